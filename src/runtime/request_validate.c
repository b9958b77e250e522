/* Request validation (HAL validateRequest), against a prepared model. */
#include "runtime/buffer.h"
#include "memory/memory_pool.h"
#include "model/operand_type.h"
#include "runtime/prepared_model_internal.h"

#define FAIL(...)                                      \
  do {                                                 \
    VKNN_LOG_E(log, "execution", __VA_ARGS__);         \
    return VKNN_STATUS_INVALID_ARGUMENT;               \
  } while (0)

/* Every argument in a token pool must be a use the buffer was allocated
 * for, at offset 0 with length 0, with dimensions that agree with the
 * buffer's; one buffer is not both an input and an output. */
static bool same_token(const vknn_request *request, uint32_t a, uint32_t b) {
  return request->pools[a].kind == VKNN_REQUEST_POOL_TOKEN &&
         request->pools[b].kind == VKNN_REQUEST_POOL_TOKEN &&
         request->pools[a].token == request->pools[b].token;
}

/* An input read from a driver buffer has the shape of the value the buffer
 * holds (HAL: the shape of the last output written to it): dimensions the
 * request gives must be that shape's. A buffer never written fails at the
 * execution. */
static bool input_shape_is_value(const vknn_request_argument *arg, const vknn_buffer_shape *shape) {
  if (arg->dimension_count == 0 || !shape->initialized) return true;
  if (arg->dimension_count != shape->rank) return false;
  for (uint32_t d = 0; d < arg->dimension_count; ++d)
    if (arg->dimensions[d] != 0 && arg->dimensions[d] != shape->dims[d]) return false;
  return true;
}

static vknn_status validate_token_uses(const vknn_prepared_model *pm, const vknn_request *request,
                                       uint32_t pool_index, vknn_buffer *buffer) {
  const vknn_logger *log = &pm->device->log;
  vknn_buffer_shape shape;
  vknn_buffer_get_state(buffer, &shape);
  bool read = false, written = false;
  for (int output = 0; output < 2; ++output) {
    const vknn_request_argument *args = output ? request->outputs : request->inputs;
    uint32_t count = output ? request->output_count : request->input_count;
    const char *what = output ? "output" : "input";
    for (uint32_t i = 0; i < count; ++i) {
      const vknn_request_argument *arg = &args[i];
      if (arg->has_no_value || !same_token(request, arg->location.pool_index, pool_index)) continue;
      if (!vknn_buffer_has_role(buffer, pm, i, output))
        FAIL("%s %u: driver buffer %u was not allocated for this use", what, i,
             request->pools[pool_index].token);
      if (arg->location.offset != 0 || arg->location.length != 0)
        FAIL("%s %u: a driver buffer takes offset 0 and length 0", what, i);
      for (uint32_t d = 0; d < arg->dimension_count && d < shape.declared_rank; ++d)
        if (arg->dimensions[d] && shape.declared_dims[d] && arg->dimensions[d] != shape.declared_dims[d])
          FAIL("%s %u: dimension %u disagrees with the driver buffer's", what, i, d);
      if (arg->dimension_count && shape.declared_rank && arg->dimension_count != shape.declared_rank)
        FAIL("%s %u: rank disagrees with the driver buffer's", what, i);
      if (!output && !input_shape_is_value(arg, &shape))
        FAIL("input %u: dimensions disagree with the shape of driver buffer %u's value", i,
             request->pools[pool_index].token);
      if (output && written)
        FAIL("driver buffer %u is more than one output", request->pools[pool_index].token);
      if (output) written = true;
      else read = true;
    }
  }
  if (read && written) FAIL("driver buffer %u is both an input and an output", request->pools[pool_index].token);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_token_pool(const vknn_prepared_model *pm, const vknn_request *request,
                                       uint32_t i) {
  const vknn_logger *log = &pm->device->log;
  vknn_buffer *buffer = vknn_buffer_acquire(pm->device, request->pools[i].token);
  if (buffer == NULL) FAIL("request pool %u: token %u names no driver buffer", i, request->pools[i].token);
  vknn_status s = validate_token_uses(pm, request, i, buffer);
  vknn_buffer_unref(buffer);
  return s;
}

static vknn_status validate_pools(const vknn_prepared_model *pm, const vknn_request *request) {
  const vknn_logger *log = &pm->device->log;
  if (request->pool_count > 0 && request->pools == NULL) FAIL("request pool list is NULL");
  for (uint32_t i = 0; i < request->pool_count; ++i) {
    const vknn_request_pool *pool = &request->pools[i];
    if (pool->kind == VKNN_REQUEST_POOL_TOKEN) {
      vknn_status s = validate_token_pool(pm, request, i);
      if (s != VKNN_STATUS_NONE) return s;
      continue;
    }
    if (pool->kind != VKNN_REQUEST_POOL_MEMORY) FAIL("request pool %u: invalid kind", i);
    if (vknn_memory_validate(log, &pool->memory) != VKNN_STATUS_NONE)
      FAIL("request pool %u is invalid", i);
  }
  return VKNN_STATUS_NONE;
}

static vknn_status validate_dimensions(const vknn_logger *log, const char *what, uint32_t index,
                                       const vknn_request_argument *arg,
                                       const vknn_io_decl *decl) {
  if (arg->dimension_count == 0) return VKNN_STATUS_NONE;
  if (vknn_operand_type_is_scalar(decl->type))
    FAIL("%s %u: a scalar given %u dimensions", what, index, arg->dimension_count);
  if (arg->dimensions == NULL) FAIL("%s %u: dimensions are NULL", what, index);
  if (arg->dimension_count > VKNN_MAX_RANK)
    FAIL("%s %u: rank %u exceeds %u", what, index, arg->dimension_count, VKNN_MAX_RANK);
  if (decl->declared_rank != 0 && arg->dimension_count != decl->declared_rank)
    FAIL("%s %u: rank %u, the model says %u", what, index, arg->dimension_count,
         decl->declared_rank);
  for (uint32_t d = 0; d < arg->dimension_count; ++d) {
    uint32_t declared = decl->declared_rank ? decl->declared_dims[d] : 0;
    if (declared != 0 && arg->dimensions[d] != declared)
      FAIL("%s %u: dimension %u is %u, the model says %u", what, index, d, arg->dimensions[d],
           declared);
  }
  return VKNN_STATUS_NONE;
}

uint32_t vknn_argument_unknown_dimension(const vknn_io_decl *decl, const vknn_request_argument *arg) {
  if (vknn_operand_type_is_scalar(decl->type)) return VKNN_SHAPE_KNOWN;
  uint32_t rank = arg->dimension_count ? arg->dimension_count : decl->declared_rank;
  if (rank == 0) return VKNN_RANK_UNKNOWN;
  for (uint32_t d = 0; d < rank; ++d) {
    uint32_t dim = arg->dimension_count ? arg->dimensions[d] : 0;
    if (dim == 0 && decl->declared_rank != 0) dim = decl->declared_dims[d];
    if (dim == 0) return d;
  }
  return VKNN_SHAPE_KNOWN;
}

/* An input's value must have a full shape: from the model or the request. */
static vknn_status validate_input_shape_known(const vknn_logger *log, uint32_t index,
                                              const vknn_request_argument *arg,
                                              const vknn_io_decl *decl) {
  uint32_t d = vknn_argument_unknown_dimension(decl, arg);
  if (d == VKNN_RANK_UNKNOWN) FAIL("input %u: rank unknown in the model and the request", index);
  if (d != VKNN_SHAPE_KNOWN) FAIL("input %u: dimension %u unknown in the model and the request", index, d);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_arguments(const vknn_logger *log, const vknn_request *request,
                                      const vknn_request_argument *args, uint32_t count,
                                      const vknn_io_decl *decls, const char *what) {
  bool is_input = args == request->inputs;
  if (count > 0 && args == NULL) FAIL("request %s list is NULL", what);
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_request_argument *arg = &args[i];
    if (arg->has_no_value) {
      if (arg->location.pool_index || arg->location.offset || arg->location.length ||
          arg->dimension_count)
        FAIL("%s %u has no value but a location or dimensions", what, i);
      continue;
    }
    if (arg->location.pool_index >= request->pool_count)
      FAIL("%s %u: pool %u of %u", what, i, arg->location.pool_index, request->pool_count);
    const vknn_request_pool *pool = &request->pools[arg->location.pool_index];
    const vknn_memory *memory = &pool->memory;
    if (pool->kind == VKNN_REQUEST_POOL_MEMORY &&
        (uint64_t)arg->location.offset + arg->location.length > memory->size)
      FAIL("%s %u: [%u, +%u) lies outside its pool of %llu bytes", what, i, arg->location.offset,
           arg->location.length, (unsigned long long)memory->size);
    vknn_status s = validate_dimensions(log, what, i, arg, &decls[i]);
    /* A driver buffer's shape is checked once the execution reads it. */
    if (s == VKNN_STATUS_NONE && is_input && pool->kind == VKNN_REQUEST_POOL_MEMORY)
      s = validate_input_shape_known(log, i, arg, &decls[i]);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_validate_request(const vknn_prepared_model *pm, const vknn_request *request) {
  const vknn_logger *log = &pm->device->log;
  if (request->input_count != pm->input_count || request->output_count != pm->output_count)
    FAIL("request has %u inputs and %u outputs, the model %u and %u", request->input_count,
         request->output_count, pm->input_count, pm->output_count);
  if (request->pool_count > 0 && request->pools == NULL) FAIL("request pool list is NULL");
  vknn_status s = validate_arguments(log, request, request->inputs, request->input_count, pm->inputs, "input");
  if (s == VKNN_STATUS_NONE)
    s = validate_arguments(log, request, request->outputs, request->output_count, pm->outputs,
                           "output");
  if (s == VKNN_STATUS_NONE) s = validate_pools(pm, request);
  return s;
}
