/* A finished model and every model it references (IF and WHILE bodies),
 * flattened into one vknn_model: the first model is the main subgraph, the
 * others the referenced subgraphs in the order first met. Values copied into
 * the models and values left in the client's buffers all become
 * CONSTANT_COPY bytes; values in memory become CONSTANT_REFERENCE pools. */
#include <string.h>

#include "ndk.h"

static void *flat_alloc(ndk_flat_model *flat, size_t size) {
  if (ndk_reserve((void **)&flat->allocations, &flat->allocation_capacity,
                  flat->allocation_count + 1, sizeof(void *)) != 0)
    return NULL;
  void *p = ndk_alloc(size);
  if (p != NULL) flat->allocations[flat->allocation_count++] = p;
  return p;
}

void ndk_flat_model_free(ndk_flat_model *flat) {
  for (uint32_t i = 0; i < flat->allocation_count; ++i) ndk_free(flat->allocations[i]);
  ndk_free(flat->allocations);
  memset(flat, 0, sizeof(*flat));
}

typedef struct flatten_state {
  ndk_flat_model *flat;
  const ANeuralNetworksModel **models; /* [0]: main */
  uint32_t model_count, model_capacity;
  const ANeuralNetworksMemory **memories;
  vknn_memory *pools;
  uint32_t pool_count, pool_capacity, memory_capacity;
  uint8_t *values;
  size_t values_size;
} flatten_state;

static uint32_t model_index(flatten_state *st, const ANeuralNetworksModel *m) {
  for (uint32_t i = 0; i < st->model_count; ++i)
    if (st->models[i] == m) return i;
  return UINT32_MAX;
}

/* Every model reachable from the main one, each once. */
static int collect_models(flatten_state *st, const ANeuralNetworksModel *main) {
  st->model_count = 0;
  if (ndk_reserve((void **)&st->models, &st->model_capacity, 1, sizeof(void *)) != 0) return -1;
  st->models[st->model_count++] = main;
  for (uint32_t m = 0; m < st->model_count; ++m) {
    const ANeuralNetworksModel *model = st->models[m];
    for (uint32_t i = 0; i < model->operand_count; ++i) {
      const ndk_operand *o = &model->operands[i];
      if (o->value != NDK_VALUE_MODEL || model_index(st, o->model) != UINT32_MAX) continue;
      if (ndk_reserve((void **)&st->models, &st->model_capacity, st->model_count + 1, sizeof(void *)) != 0)
        return -1;
      st->models[st->model_count++] = o->model;
    }
  }
  return 0;
}

static uint32_t pool_index(flatten_state *st, const ANeuralNetworksMemory *memory) {
  for (uint32_t i = 0; i < st->pool_count; ++i)
    if (st->memories[i] == memory) return i;
  if (ndk_reserve((void **)&st->memories, &st->memory_capacity, st->pool_count + 1, sizeof(void *)) != 0 ||
      ndk_reserve((void **)&st->pools, &st->pool_capacity, st->pool_count + 1, sizeof(vknn_memory)) != 0)
    return UINT32_MAX;
  st->memories[st->pool_count] = memory;
  st->pools[st->pool_count] = memory->vk;
  return st->pool_count++;
}

/* The size of every value that becomes CONSTANT_COPY bytes, with alignment. */
static size_t copied_bytes(const flatten_state *st) {
  size_t total = 0;
  for (uint32_t m = 0; m < st->model_count; ++m)
    for (uint32_t i = 0; i < st->models[m]->operand_count; ++i) {
      const ndk_operand *o = &st->models[m]->operands[i];
      if (o->value == NDK_VALUE_COPY || o->value == NDK_VALUE_POINTER) total += (o->length + 7) & ~(size_t)7;
    }
  return total;
}

static uint32_t append_value(flatten_state *st, const void *bytes, size_t length) {
  uint32_t offset = (uint32_t)st->values_size;
  if (length == 0) return offset; /* no bytes, perhaps no block to put them in */
  memcpy(st->values + offset, bytes, length);
  st->values_size += (length + 7) & ~(size_t)7;
  return offset;
}

/* The operand's type, dimensions and quantization parameters. */
static void convert_operand_type(const ndk_operand *o, vknn_operand *out) {
  out->type = o->type;
  out->dimension_count = o->rank;
  out->dimensions = o->dimensions;
  out->scale = o->scale;
  out->zero_point = o->zero_point;
  if (o->scales != NULL) {
    out->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
    out->extra_params.channel_quant.scales = o->scales;
    out->extra_params.channel_quant.scale_count = o->scale_count;
    out->extra_params.channel_quant.channel_dim = o->channel_dim;
  }
  if (o->extension_data != NULL) {
    out->extra_params.kind = VKNN_EXTRA_PARAMS_EXTENSION;
    out->extra_params.extension.data = o->extension_data;
    out->extra_params.extension.size = o->extension_size;
  }
}

static int convert_operand(flatten_state *st, const ANeuralNetworksModel *model, const ndk_operand *o,
                           vknn_operand *out) {
  convert_operand_type(o, out);
  out->lifetime = o->is_input    ? VKNN_LIFETIME_SUBGRAPH_INPUT
                  : o->is_output ? VKNN_LIFETIME_SUBGRAPH_OUTPUT
                                 : VKNN_LIFETIME_TEMPORARY_VARIABLE;
  switch (o->value) {
    case NDK_VALUE_COPY:
    case NDK_VALUE_POINTER:
      out->lifetime = VKNN_LIFETIME_CONSTANT_COPY;
      out->location.offset = append_value(st, o->value == NDK_VALUE_POINTER ? o->pointer
                                              : o->length > 0         ? model->values + o->offset
                                                                      : NULL,
                                          o->length);
      out->location.length = (uint32_t)o->length;
      break;
    case NDK_VALUE_MEMORY:
      out->lifetime = VKNN_LIFETIME_CONSTANT_REFERENCE;
      out->location = (vknn_data_location){pool_index(st, o->memory), (uint32_t)o->offset, (uint32_t)o->length};
      if (out->location.pool_index == UINT32_MAX) return ANEURALNETWORKS_OUT_OF_MEMORY;
      break;
    case NDK_VALUE_OMITTED: out->lifetime = VKNN_LIFETIME_NO_VALUE; break;
    case NDK_VALUE_MODEL:
      out->lifetime = VKNN_LIFETIME_SUBGRAPH;
      out->location.offset = model_index(st, o->model) - 1; /* among the referenced subgraphs */
      break;
    case NDK_VALUE_NONE: break;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

static int convert_model(flatten_state *st, const ANeuralNetworksModel *model, vknn_subgraph *out) {
  ndk_flat_model *flat = st->flat;
  vknn_operand *operands = flat_alloc(flat, model->operand_count * sizeof(vknn_operand));
  vknn_operation *operations = flat_alloc(flat, model->operation_count * sizeof(vknn_operation));
  if (operands == NULL || operations == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  for (uint32_t i = 0; i < model->operand_count; ++i) {
    int r = convert_operand(st, model, &model->operands[i], &operands[i]);
    if (r != ANEURALNETWORKS_NO_ERROR) return r;
  }
  for (uint32_t i = 0; i < model->operation_count; ++i) {
    const ndk_operation *op = &model->operations[i];
    operations[i] = (vknn_operation){op->type, op->inputs, op->input_count, op->outputs, op->output_count};
    for (uint32_t k = 0; k < op->input_count; ++k) operands[op->inputs[k]].number_of_consumers++;
  }
  *out = (vknn_subgraph){operands, model->operand_count, operations, model->operation_count,
                         model->inputs, model->input_count, model->outputs, model->output_count};
  return ANEURALNETWORKS_NO_ERROR;
}

static int flatten_models(flatten_state *st, const ANeuralNetworksModel *main) {
  ndk_flat_model *flat = st->flat;
  if (collect_models(st, main) != 0) return ANEURALNETWORKS_OUT_OF_MEMORY;
  st->values = flat_alloc(flat, copied_bytes(st));
  vknn_subgraph *referenced = flat_alloc(flat, st->model_count * sizeof(vknn_subgraph));
  if (st->values == NULL || referenced == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  int r = convert_model(st, main, &flat->model.main);
  for (uint32_t m = 1; m < st->model_count && r == ANEURALNETWORKS_NO_ERROR; ++m)
    r = convert_model(st, st->models[m], &referenced[m - 1]);
  vknn_memory *pools = flat_alloc(flat, st->pool_count * sizeof(vknn_memory));
  if (r != ANEURALNETWORKS_NO_ERROR || pools == NULL) return r ? r : ANEURALNETWORKS_OUT_OF_MEMORY;
  if (st->pool_count) memcpy(pools, st->pools, st->pool_count * sizeof(vknn_memory));
  flat->model.referenced = referenced;
  flat->model.referenced_count = st->model_count - 1;
  flat->model.operand_values = st->values;
  flat->model.operand_values_size = st->values_size;
  flat->model.pools = pools;
  flat->model.pool_count = st->pool_count;
  flat->model.relax_computation_float32_to_float16 = main->relaxed;
  ndk_extension_table(&flat->model.extension_name_to_prefix,
                      &flat->model.extension_name_to_prefix_count);
  return ANEURALNETWORKS_NO_ERROR;
}

int ndk_flatten(const ANeuralNetworksModel *main, ndk_flat_model *out) {
  memset(out, 0, sizeof(*out));
  flatten_state st = {.flat = out};
  int r = flatten_models(&st, main);
  ndk_free(st.models);
  ndk_free(st.memories);
  ndk_free(st.pools);
  if (r != ANEURALNETWORKS_NO_ERROR) ndk_flat_model_free(out);
  return r;
}

/* Local index of model operand `index` among the first *count of map,
 * appended when new. */
static uint32_t local_operand(uint32_t *map, uint32_t *count, uint32_t index) {
  for (uint32_t i = 0; i < *count; ++i)
    if (map[i] == index) return i;
  map[*count] = index;
  return (*count)++;
}

/* Operation lists remapped to local operands; each operand's role (input or
 * output of the model) from the first list naming it. */
static uint32_t *local_list(ndk_flat_model *flat, const uint32_t *list, uint32_t count, uint32_t *map,
                            uint32_t *operand_count) {
  uint32_t *local = flat_alloc(flat, (count ? count : 1) * sizeof(uint32_t));
  if (local == NULL) return NULL;
  for (uint32_t i = 0; i < count; ++i) local[i] = local_operand(map, operand_count, list[i]);
  return local;
}

int ndk_flatten_operation(const ANeuralNetworksModel *model, const ndk_operation *op, ndk_flat_model *out) {
  memset(out, 0, sizeof(*out));
  uint32_t total = op->input_count + op->output_count, n = 0;
  uint32_t *map = flat_alloc(out, (total ? total : 1) * sizeof(uint32_t));
  uint32_t *inputs = map == NULL ? NULL : local_list(out, op->inputs, op->input_count, map, &n);
  uint32_t first_output = n;
  uint32_t *outputs = inputs == NULL ? NULL : local_list(out, op->outputs, op->output_count, map, &n);
  vknn_operand *operands = flat_alloc(out, (n ? n : 1) * sizeof(vknn_operand));
  vknn_operation *operation = flat_alloc(out, sizeof(vknn_operation));
  uint32_t *io = flat_alloc(out, (n ? n : 1) * sizeof(uint32_t));
  if (outputs == NULL || operands == NULL || operation == NULL || io == NULL) {
    ndk_flat_model_free(out);
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  uint32_t input_count = 0, output_count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const ndk_operand *o = &model->operands[map[i]];
    convert_operand_type(o, &operands[i]);
    if (o->value == NDK_VALUE_OMITTED) operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
    else if (i < first_output) operands[i].lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT, io[input_count++] = i;
    else operands[i].lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  }
  for (uint32_t i = first_output; i < n; ++i)
    if (operands[i].lifetime == VKNN_LIFETIME_SUBGRAPH_OUTPUT) io[input_count + output_count++] = i;
  for (uint32_t k = 0; k < op->input_count; ++k) operands[inputs[k]].number_of_consumers++;
  *operation = (vknn_operation){op->type, inputs, op->input_count, outputs, op->output_count};
  out->model.main = (vknn_subgraph){operands, n, operation, 1, io, input_count, io + input_count, output_count};
  ndk_extension_table(&out->model.extension_name_to_prefix, &out->model.extension_name_to_prefix_count);
  return ANEURALNETWORKS_NO_ERROR;
}
