#include "memory/request_copy.h"
#include "util/fault_injection.h"

#include <stdlib.h>
#include <string.h>

/* Bump allocation inside one block, 8-byte aligned. */
typedef struct cursor {
  uint8_t *base;
  size_t used;
} cursor;

static void *take(cursor *c, size_t size) {
  void *p = c->base + c->used;
  c->used += (size + 7) & ~(size_t)7;
  return p;
}

static size_t arguments_size(const vknn_request_argument *args, uint32_t count) {
  size_t size = ((count * sizeof(vknn_request_argument)) + 7) & ~(size_t)7;
  for (uint32_t i = 0; i < count; ++i)
    size += ((args[i].dimension_count * sizeof(uint32_t)) + 7) & ~(size_t)7;
  return size;
}

/* A pool named by token has no memory: its memory fields are not read (the
 * caller may have left anything there). */
static size_t pools_size(const vknn_request_pool *pools, uint32_t count) {
  size_t size = ((count * sizeof(vknn_request_pool)) + 7) & ~(size_t)7;
  for (uint32_t i = 0; i < count; ++i) {
    if (pools[i].kind != VKNN_REQUEST_POOL_MEMORY) continue;
    const vknn_memory *m = &pools[i].memory;
    size += ((m->fd_count * sizeof(int)) + 7) & ~(size_t)7;
    size += ((m->int_count * sizeof(int32_t)) + 7) & ~(size_t)7;
    size += ((m->name ? strlen(m->name) + 1 : 0) + 7) & ~(size_t)7;
  }
  return size;
}

static vknn_request_argument *copy_arguments(cursor *c, const vknn_request_argument *args,
                                             uint32_t count) {
  vknn_request_argument *out = take(c, count * sizeof(*out));
  for (uint32_t i = 0; i < count; ++i) {
    out[i] = args[i];
    uint32_t *dims = take(c, args[i].dimension_count * sizeof(uint32_t));
    if (args[i].dimension_count > 0) memcpy(dims, args[i].dimensions, args[i].dimension_count * sizeof(uint32_t));
    out[i].dimensions = dims;
  }
  return out;
}

static vknn_request_pool *copy_pools(cursor *c, const vknn_request_pool *pools, uint32_t count) {
  vknn_request_pool *out = take(c, count * sizeof(*out));
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_memory *m = &pools[i].memory;
    if (pools[i].kind != VKNN_REQUEST_POOL_MEMORY) {
      out[i] = (vknn_request_pool){.kind = pools[i].kind, .token = pools[i].token};
      continue;
    }
    out[i] = pools[i];
    int *fds = take(c, m->fd_count * sizeof(int));
    int32_t *ints = take(c, m->int_count * sizeof(int32_t));
    if (m->fd_count > 0) memcpy(fds, m->fds, m->fd_count * sizeof(int));
    if (m->int_count > 0) memcpy(ints, m->ints, m->int_count * sizeof(int32_t));
    out[i].memory.fds = fds;
    out[i].memory.ints = ints;
    if (m->name != NULL) {
      char *name = take(c, strlen(m->name) + 1);
      strcpy(name, m->name);
      out[i].memory.name = name;
    }
  }
  return out;
}

/* The request must have been validated (counts match non-NULL arrays). */
vknn_status vknn_request_copy_make(const vknn_request *request, vknn_request_copy *out) {
  size_t size = arguments_size(request->inputs, request->input_count) +
                arguments_size(request->outputs, request->output_count) +
                pools_size(request->pools, request->pool_count) + 8;
  cursor c = {vknn_calloc(1, size), 0};
  if (c.base == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  out->storage = c.base;
  out->request.inputs = copy_arguments(&c, request->inputs, request->input_count);
  out->request.input_count = request->input_count;
  out->request.outputs = copy_arguments(&c, request->outputs, request->output_count);
  out->request.output_count = request->output_count;
  out->request.pools = copy_pools(&c, request->pools, request->pool_count);
  out->request.pool_count = request->pool_count;
  return VKNN_STATUS_NONE;
}

void vknn_request_copy_free(vknn_request_copy *copy) {
  free(copy->storage);
  copy->storage = NULL;
}
