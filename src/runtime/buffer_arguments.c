#include "runtime/buffer_arguments.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/buffer.h"
#include "util/fault_injection.h"

static bool names_buffers(const vknn_request *request, const vknn_mapped_pool *pools) {
  for (uint32_t i = 0; i < request->pool_count; ++i)
    if (pools[i].buffer != NULL) return true;
  return false;
}

static vknn_status resolve_input(const vknn_logger *log, uint32_t index, vknn_buffer *buffer,
                                 vknn_request_argument *arg, uint32_t *dims) {
  vknn_buffer_shape shape;
  vknn_buffer_get_state(buffer, &shape);
  if (!shape.initialized) {
    VKNN_LOG_E(log, "execution", "input %u reads a driver buffer never written", index);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  memcpy(dims, shape.dims, sizeof(shape.dims));
  arg->dimensions = dims;
  arg->dimension_count = shape.rank;
  arg->location.length = (uint32_t)shape.byte_size;
  return VKNN_STATUS_NONE;
}

/* An output buffer of a full declared shape offers that many bytes; one of
 * unknown shape grows to whatever the output needs. */
static void resolve_output(vknn_buffer *buffer, vknn_request_argument *arg) {
  vknn_buffer_shape shape;
  vknn_buffer_get_state(buffer, &shape);
  arg->location.length = shape.fixed_size ? (uint32_t)shape.fixed_size : UINT32_MAX;
}

vknn_status vknn_resolve_buffer_arguments(const vknn_logger *log, const vknn_request *request,
                                          const vknn_mapped_pool *pools,
                                          vknn_resolved_request *out) {
  memset(out, 0, sizeof(*out));
  out->request = *request;
  if (!names_buffers(request, pools)) return VKNN_STATUS_NONE;
  uint32_t n = request->input_count + request->output_count;
  out->arguments = vknn_calloc(n ? n : 1, sizeof(*out->arguments));
  out->dimensions = vknn_calloc(n ? n : 1, sizeof(*out->dimensions));
  if (out->arguments == NULL || out->dimensions == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (request->input_count > 0)
    memcpy(out->arguments, request->inputs, request->input_count * sizeof(*out->arguments));
  if (request->output_count > 0)
    memcpy(out->arguments + request->input_count, request->outputs,
           request->output_count * sizeof(*out->arguments));
  out->request.inputs = out->arguments;
  out->request.outputs = out->arguments + request->input_count;
  for (uint32_t i = 0; i < n; ++i) {
    vknn_request_argument *arg = &out->arguments[i];
    vknn_buffer *buffer = arg->has_no_value ? NULL : pools[arg->location.pool_index].buffer;
    if (buffer == NULL) continue;
    if (i >= request->input_count) {
      resolve_output(buffer, arg);
      continue;
    }
    vknn_status s = resolve_input(log, i, buffer, arg, out->dimensions[i]);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

void vknn_resolved_request_free(vknn_resolved_request *resolved) {
  free(resolved->arguments);
  free(resolved->dimensions);
  memset(resolved, 0, sizeof(*resolved));
}
