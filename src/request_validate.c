/* Request validation (HAL validateRequest), against a prepared model. */
#include "memory_pool.h"
#include "operand_type.h"
#include "prepared_model_internal.h"

#define FAIL(...)                                      \
  do {                                                 \
    VKNN_LOG_E(log, "execution", __VA_ARGS__);         \
    return VKNN_STATUS_INVALID_ARGUMENT;               \
  } while (0)

static vknn_status validate_pools(const vknn_logger *log, const vknn_request *request) {
  if (request->pool_count > 0 && request->pools == NULL) FAIL("request pool list is NULL");
  for (uint32_t i = 0; i < request->pool_count; ++i) {
    const vknn_request_pool *pool = &request->pools[i];
    if (pool->kind == VKNN_REQUEST_POOL_TOKEN)
      FAIL("request pool %u: token %u names no driver buffer", i, pool->token);
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

/* An input's value must have a full shape: from the model or the request. */
static vknn_status validate_input_shape_known(const vknn_logger *log, uint32_t index,
                                              const vknn_request_argument *arg,
                                              const vknn_io_decl *decl) {
  if (vknn_operand_type_is_scalar(decl->type)) return VKNN_STATUS_NONE;
  uint32_t rank = arg->dimension_count ? arg->dimension_count : decl->declared_rank;
  if (rank == 0) FAIL("input %u: rank unknown in the model and the request", index);
  for (uint32_t d = 0; d < rank; ++d) {
    uint32_t dim = arg->dimension_count ? arg->dimensions[d] : 0;
    if (dim == 0 && decl->declared_rank != 0) dim = decl->declared_dims[d];
    if (dim == 0) FAIL("input %u: dimension %u unknown in the model and the request", index, d);
  }
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
    const vknn_memory *memory = &request->pools[arg->location.pool_index].memory;
    if ((uint64_t)arg->location.offset + arg->location.length > memory->size)
      FAIL("%s %u: [%u, +%u) lies outside its pool of %llu bytes", what, i, arg->location.offset,
           arg->location.length, (unsigned long long)memory->size);
    vknn_status s = validate_dimensions(log, what, i, arg, &decls[i]);
    if (s == VKNN_STATUS_NONE && is_input) s = validate_input_shape_known(log, i, arg, &decls[i]);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_validate_request(const vknn_prepared_model *pm, const vknn_request *request) {
  const vknn_logger *log = &pm->device->log;
  if (request->input_count != pm->input_count || request->output_count != pm->output_count)
    FAIL("request has %u inputs and %u outputs, the model %u and %u", request->input_count,
         request->output_count, pm->input_count, pm->output_count);
  vknn_status s = validate_pools(log, request);
  if (s == VKNN_STATUS_NONE)
    s = validate_arguments(log, request, request->inputs, request->input_count, pm->inputs, "input");
  if (s == VKNN_STATUS_NONE)
    s = validate_arguments(log, request, request->outputs, request->output_count, pm->outputs,
                           "output");
  return s;
}
