#include "graph/graph.h"
#include "graph/runtime_check.h"

#include <stdlib.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "vknn/device.h"
#include "util/fault_injection.h"

void vknn_tensor_set_shape(vknn_tensor *tensor, const uint32_t *dims, uint32_t rank) {
  /* A rank past the arrays' (a valid model may have one): no shape is held,
   * and the operations touching it are unsupported (vknn_operation_ranks_fit). */
  if (rank > VKNN_MAX_RANK) rank = 0;
  tensor->rank = rank;
  if (rank > 0) memcpy(tensor->dims, dims, rank * sizeof(uint32_t));
  tensor->shape_known = vknn_operand_type_is_scalar(tensor->type) ||
                        (rank > 0 && vknn_shape_element_count(dims, rank) != 0);
}

uint64_t vknn_tensor_byte_size(const vknn_tensor *tensor) {
  if (vknn_operand_type_is_scalar(tensor->type))
    return vknn_operand_type_element_size(tensor->type);
  return vknn_saturating_bytes(vknn_shape_element_count(tensor->dims, tensor->rank),
                               vknn_operand_type_element_size(tensor->type));
}

static vknn_status map_pools(vknn_graph *graph) {
  graph->pool_count = graph->model->pool_count;
  if (graph->pool_count == 0) return VKNN_STATUS_NONE;
  graph->pools = vknn_calloc(graph->pool_count, sizeof(*graph->pools));
  if (graph->pools == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < graph->pool_count; ++i) {
    vknn_status s = vknn_memory_map(graph->log, &graph->model->pools[i], &graph->pools[i]);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

static const uint8_t *constant_bytes(const vknn_graph *graph, const vknn_operand *o) {
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY)
    return graph->model->operand_values + o->location.offset;
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE)
    return graph->pools[o->location.pool_index].data + o->location.offset;
  return NULL;
}

static void apply_override(vknn_tensor *t, const vknn_input_override *o) {
  if (o->omitted) {
    t->lifetime = VKNN_LIFETIME_NO_VALUE;
    return;
  }
  if (o->rank > 0) vknn_tensor_set_shape(t, o->dims, o->rank);
  t->constant_data = o->value;
}

vknn_status vknn_graph_init(vknn_graph *graph, const vknn_logger *log, const vknn_model *model,
                            const vknn_input_override *overrides) {
  memset(graph, 0, sizeof(*graph));
  graph->log = log;
  graph->model = model;
  graph->sg = &model->main;
  graph->tensor_count = model->main.operand_count;
  graph->tensor_capacity = graph->tensor_count + 16;
  graph->tensors = vknn_calloc(graph->tensor_capacity, sizeof(vknn_tensor));
  graph->fusion = vknn_calloc(model->main.operation_count + 1, sizeof(vknn_op_fusion));
  if (graph->tensors == NULL || graph->fusion == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t k = 0; k < model->main.operation_count; ++k)
    graph->fusion[k] = (vknn_op_fusion){
        .extra_activation = -1, .output_override = UINT32_MAX, .input_override = UINT32_MAX,
        .residual = UINT32_MAX};
  vknn_status status = map_pools(graph);
  if (status != VKNN_STATUS_NONE) return status;
  for (uint32_t i = 0; i < graph->tensor_count; ++i) {
    const vknn_operand *o = &model->main.operands[i];
    vknn_tensor *t = &graph->tensors[i];
    t->type = vknn_model_operand_type(model, o->type); /* the driver's types */
    t->scale = o->scale;
    t->zero_point = o->zero_point;
    t->lifetime = o->lifetime;
    t->constant_data = constant_bytes(graph, o);
    t->first_dispatch = t->last_dispatch = -1;
    t->alias_of = UINT32_MAX;
    vknn_tensor_set_shape(t, o->dimensions, o->dimension_count);
  }
  graph->input_presence_known = overrides != NULL;
  for (uint32_t i = 0; i < model->main.input_count; ++i) {
    vknn_tensor *t = &graph->tensors[model->main.input_indexes[i]];
    t->io_index = i;
    if (overrides != NULL) apply_override(t, &overrides[i]);
    /* The model's own shapes were held to this; a request's are here. */
    if (t->shape_known && vknn_tensor_byte_size(t) > VKNN_MAX_TENSOR_BYTES) {
      VKNN_LOG_E(log, "execution", "input %u: a value of more than 4 GiB", i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  for (uint32_t i = 0; i < model->main.output_count; ++i)
    graph->tensors[model->main.output_indexes[i]].io_index = i;
  return VKNN_STATUS_NONE;
}

void vknn_graph_release(vknn_graph *graph) {
  for (uint32_t i = 0; i < graph->pool_count && graph->pools != NULL; ++i)
    vknn_memory_unmap(&graph->pools[i]);
  free(graph->pools);
  free(graph->tensors);
  free(graph->fusion);
  for (uint32_t i = 0; i < graph->owned_count; ++i) free(graph->owned[i]);
  free(graph->owned);
  memset(graph, 0, sizeof(*graph));
}

vknn_status vknn_graph_defer(vknn_graph *graph, const vknn_operation *op, const char *why) {
  VKNN_LOG_V(graph->log, "compilation", "%s: %s; compiled per execution",
             vknn_model_operation_name(graph->model, op->type), why);
  graph->deferrals++;
  return VKNN_STATUS_GENERAL_FAILURE;
}

bool vknn_graph_alias(vknn_graph *graph, uint32_t view, uint32_t source) {
  vknn_tensor *v = &graph->tensors[view];
  if (v->lifetime != VKNN_LIFETIME_TEMPORARY_VARIABLE) return false;
  uint32_t root = graph->tensors[source].alias_of;
  v->alias_of = root != UINT32_MAX ? root : source;
  return true;
}

bool vknn_graph_const_i32(const vknn_graph *graph, uint32_t operand, int32_t *out_value) {
  const vknn_tensor *t = &graph->tensors[operand];
  if (t->constant_data == NULL || t->type != VKNN_OPERAND_INT32) return false;
  memcpy(out_value, t->constant_data, sizeof(int32_t));
  return true;
}

/* Appends a tensor of the compiler's own; NULL when out of memory. */
static vknn_tensor *append_tensor(vknn_graph *graph, int32_t type, const uint32_t *dims,
                                  uint32_t rank, vknn_operand_lifetime lifetime) {
  if (graph->tensor_count == graph->tensor_capacity) {
    uint32_t capacity = graph->tensor_capacity * 2;
    vknn_tensor *tensors = vknn_realloc(graph->tensors, capacity * sizeof(vknn_tensor));
    if (tensors == NULL) return NULL;
    graph->tensors = tensors;
    graph->tensor_capacity = capacity;
  }
  vknn_tensor *t = &graph->tensors[graph->tensor_count++];
  memset(t, 0, sizeof(*t));
  t->type = type;
  t->lifetime = lifetime;
  t->first_dispatch = t->last_dispatch = -1;
  t->alias_of = UINT32_MAX;
  vknn_tensor_set_shape(t, dims, rank);
  return t;
}

uint32_t vknn_graph_add_constant(vknn_graph *graph, int32_t type, const uint32_t *dims,
                                 uint32_t rank, void *data) {
  void **owned = vknn_realloc(graph->owned, (graph->owned_count + 1) * sizeof(void *));
  if (owned == NULL || data == NULL) {
    if (owned != NULL) graph->owned = owned;
    free(data);
    return UINT32_MAX;
  }
  graph->owned = owned;
  graph->owned[graph->owned_count++] = data;
  vknn_tensor *t = append_tensor(graph, type, dims, rank, VKNN_LIFETIME_CONSTANT_COPY);
  if (t == NULL) return UINT32_MAX;
  t->constant_data = data;
  return graph->tensor_count - 1;
}

uint32_t vknn_graph_add_temporary(vknn_graph *graph, int32_t type, const uint32_t *dims,
                                  uint32_t rank) {
  vknn_tensor *t = append_tensor(graph, type, dims, rank, VKNN_LIFETIME_TEMPORARY_VARIABLE);
  return t == NULL ? UINT32_MAX : graph->tensor_count - 1;
}

uint32_t vknn_graph_op_index(const vknn_graph *graph, const vknn_operation *op) {
  return (uint32_t)(op - graph->sg->operations);
}

uint32_t vknn_graph_op_source(const vknn_graph *graph, uint32_t k) {
  return graph->op_sources != NULL ? graph->op_sources[k] : k;
}

uint32_t vknn_graph_check_code(const vknn_graph *graph, const vknn_operation *op) {
  return vknn_runtime_check_code(vknn_graph_op_source(graph, vknn_graph_op_index(graph, op)));
}

void vknn_graph_use_kernels_of(vknn_graph *graph, uint32_t k) {
  bool tuned = graph->op_kernels != NULL && k < graph->sg->operation_count;
  graph->kernels = tuned ? graph->op_kernels[k] : graph->device_kernels;
}

uint32_t vknn_graph_op_input(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  const vknn_op_fusion *f = &graph->fusion[vknn_graph_op_index(graph, op)];
  return i == 0 && f->input_override != UINT32_MAX ? f->input_override : op->inputs[i];
}

uint32_t vknn_graph_op_output(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  const vknn_op_fusion *f = &graph->fusion[vknn_graph_op_index(graph, op)];
  return i == 0 && f->output_override != UINT32_MAX ? f->output_override : op->outputs[i];
}
