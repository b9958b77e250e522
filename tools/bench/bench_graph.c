#include "bench_graph.h"
#include "bench_graph_half.h"
#include "bench_graph_quant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Constant tensors start at this alignment in their pool, so that the driver
 * may read them in place. */
#define WEIGHT_ALIGNMENT_FLOATS 64

void bench_graph_init(bench_graph *g, uint64_t seed) {
  memset(g, 0, sizeof(*g));
  g->random_state = seed;
  g->input = g->output = UINT32_MAX;
  g->pool.fd = -1;
}

void bench_graph_free(bench_graph *g) {
  free(g->operands);
  free(g->operations);
  free(g->values);
  free(g->weights);
  free(g->model_operands);
  free(g->model_operations);
  if (g->pool.fd >= 0) shared_memory_destroy(&g->pool);
  memset(g, 0, sizeof(*g));
}

/* splitmix64: a fixed sequence for a fixed seed on every machine. */
float bench_graph_random(bench_graph *g) {
  uint64_t z = (g->random_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)((double)(z >> 40) / (double)(1ull << 23) - 1.0);
}

/* array (of *capacity items of size bytes) grown to hold needed items: the
 * array to use from now on, or NULL (the graph marked failed, array kept)
 * when memory runs out. */
static void *grow(bench_graph *g, void *array, size_t needed, size_t *capacity, size_t size) {
  if (needed <= *capacity) return array;
  size_t wanted = *capacity ? *capacity * 2 : 64;
  while (wanted < needed) wanted *= 2;
  void *grown = realloc(array, wanted * size);
  if (grown == NULL) {
    g->failed = true;
    return NULL;
  }
  *capacity = wanted;
  return grown;
}

static uint32_t add_operand(bench_graph *g, int32_t type, const uint32_t *dims, uint32_t rank,
                            vknn_operand_lifetime lifetime) {
  size_t capacity = g->operand_capacity;
  bench_graph_operand *operands =
      rank > 4 ? NULL : grow(g, g->operands, g->operand_count + 1, &capacity, sizeof(*operands));
  if (operands == NULL) {
    g->failed = true;
    return 0;
  }
  g->operands = operands;
  g->operand_capacity = (uint32_t)capacity;
  bench_graph_operand *o = &g->operands[g->operand_count];
  memset(o, 0, sizeof(*o));
  if (rank > 0) memcpy(o->dims, dims, rank * sizeof(uint32_t));
  o->operand = (vknn_operand){.type = type, .dimension_count = rank, .lifetime = lifetime};
  return g->operand_count++;
}

uint32_t bench_graph_input(bench_graph *g, const uint32_t *dims, uint32_t rank) {
  g->input = add_operand(g, VKNN_OPERAND_TENSOR_FLOAT32, dims, rank, VKNN_LIFETIME_SUBGRAPH_INPUT);
  return g->input;
}

uint32_t bench_graph_tensor(bench_graph *g, const uint32_t *dims, uint32_t rank) {
  return add_operand(g, VKNN_OPERAND_TENSOR_FLOAT32, dims, rank, VKNN_LIFETIME_TEMPORARY_VARIABLE);
}

uint32_t bench_graph_random_tensor(bench_graph *g, const uint32_t *dims, uint32_t rank,
                                   float scale) {
  uint32_t index = add_operand(g, VKNN_OPERAND_TENSOR_FLOAT32, dims, rank,
                               VKNN_LIFETIME_CONSTANT_REFERENCE);
  if (g->failed) return index;
  size_t count = bench_graph_element_count(g, index);
  size_t offset = (g->weight_count + WEIGHT_ALIGNMENT_FLOATS - 1) & ~(size_t)(WEIGHT_ALIGNMENT_FLOATS - 1);
  float *weights = grow(g, g->weights, offset + count, &g->weight_capacity, sizeof(float));
  if (weights == NULL) return index;
  g->weights = weights;
  for (size_t i = g->weight_count; i < offset; ++i) g->weights[i] = 0.0f;
  for (size_t i = 0; i < count; ++i) g->weights[offset + i] = scale * bench_graph_random(g);
  g->weight_count = offset + count;
  g->operands[index].operand.location =
      (vknn_data_location){0, (uint32_t)(offset * sizeof(float)), (uint32_t)(count * sizeof(float))};
  return index;
}

static uint32_t add_scalar(bench_graph *g, int32_t type, const void *value) {
  uint32_t index = add_operand(g, type, NULL, 0, VKNN_LIFETIME_CONSTANT_COPY);
  uint8_t *values = g->failed ? NULL : grow(g, g->values, g->values_size + 4, &g->values_capacity, 1);
  if (values == NULL) return index;
  g->values = values;
  memcpy(g->values + g->values_size, value, 4);
  g->operands[index].operand.location = (vknn_data_location){0, (uint32_t)g->values_size, 4};
  g->values_size += 4;
  return index;
}

uint32_t bench_graph_int32(bench_graph *g, int32_t value) {
  return add_scalar(g, VKNN_OPERAND_INT32, &value);
}

uint32_t bench_graph_float32(bench_graph *g, float value) {
  return add_scalar(g, VKNN_OPERAND_FLOAT32, &value);
}

/* A CONSTANT_COPY operand of size bytes (scalars and small tensors). */
static uint32_t add_constant_copy(bench_graph *g, int32_t type, const uint32_t *dims, uint32_t rank,
                                  const void *bytes, uint32_t size) {
  uint32_t index = add_operand(g, type, dims, rank, VKNN_LIFETIME_CONSTANT_COPY);
  size_t offset = (g->values_size + 3) & ~(size_t)3;
  uint8_t *values = g->failed ? NULL : grow(g, g->values, offset + size, &g->values_capacity, 1);
  if (values == NULL) return index;
  g->values = values;
  memset(g->values + g->values_size, 0, offset - g->values_size);
  memcpy(g->values + offset, bytes, size);
  g->operands[index].operand.location = (vknn_data_location){0, (uint32_t)offset, size};
  g->values_size = offset + size;
  return index;
}

uint32_t bench_graph_bool(bench_graph *g, bool value) {
  uint8_t byte = value;
  return add_constant_copy(g, VKNN_OPERAND_BOOL, NULL, 0, &byte, 1);
}

uint32_t bench_graph_int32_vector(bench_graph *g, const int32_t *values, uint32_t count) {
  return add_constant_copy(g, VKNN_OPERAND_TENSOR_INT32, &count, 1, values,
                           count * (uint32_t)sizeof(int32_t));
}

void bench_graph_operation_add(bench_graph *g, int32_t type, const uint32_t *inputs,
                               uint32_t input_count, uint32_t output) {
  size_t capacity = g->operation_capacity;
  bench_graph_operation *operations =
      g->failed || input_count > 11
          ? NULL
          : grow(g, g->operations, g->operation_count + 1, &capacity, sizeof(*operations));
  if (operations == NULL) {
    g->failed = true;
    return;
  }
  g->operations = operations;
  g->operation_capacity = (uint32_t)capacity;
  bench_graph_operation *op = &g->operations[g->operation_count++];
  memcpy(op->indexes, inputs, input_count * sizeof(uint32_t));
  op->indexes[input_count] = output;
  op->operation = (vknn_operation){.type = type, .input_count = input_count, .output_count = 1};
  for (uint32_t i = 0; i < input_count; ++i) g->operands[inputs[i]].operand.number_of_consumers++;
}

uint32_t bench_graph_shape(const bench_graph *g, uint32_t index, uint32_t out_dims[4]) {
  memcpy(out_dims, g->operands[index].dims, sizeof(g->operands[index].dims));
  return g->operands[index].operand.dimension_count;
}

size_t bench_graph_element_count(const bench_graph *g, uint32_t index) {
  size_t count = 1;
  const bench_graph_operand *o = &g->operands[index];
  for (uint32_t i = 0; i < o->operand.dimension_count; ++i) count *= o->dims[i];
  return count;
}

/* The model's arrays point into the graph's own: built once, when it no longer grows. */
static int build_arrays(bench_graph *g) {
  g->model_operands = calloc(g->operand_count, sizeof(vknn_operand));
  g->model_operations = calloc(g->operation_count, sizeof(vknn_operation));
  if (g->model_operands == NULL || g->model_operations == NULL) return -1;
  for (uint32_t i = 0; i < g->operand_count; ++i) {
    g->model_operands[i] = g->operands[i].operand;
    g->model_operands[i].dimensions = g->operands[i].dims;
  }
  for (uint32_t i = 0; i < g->operation_count; ++i) {
    bench_graph_operation *op = &g->operations[i];
    g->model_operations[i] = op->operation;
    g->model_operations[i].inputs = op->indexes;
    g->model_operations[i].outputs = op->indexes + op->operation.input_count;
  }
  return 0;
}

int bench_graph_finish(bench_graph *g, uint32_t output, bool relaxed) {
  if (g->failed || g->input == UINT32_MAX || output >= g->operand_count) {
    fprintf(stderr, "vknn-bench: the model could not be built (out of memory?)\n");
    return -1;
  }
  g->output = output;
  g->operands[output].operand.lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  const void *pool_bytes = g->weights;
  size_t pool_size = g->weight_count * sizeof(float);
  uint8_t *converted = NULL;
  if (g->quant8 && bench_graph_quantize(g, &converted, &pool_size) != 0) {
    g->pool.fd = -1;
    return -1;
  }
  if (g->float16 && !g->quant8 && bench_graph_to_float16(g, &converted, &pool_size) != 0) {
    g->pool.fd = -1;
    return -1;
  }
  if (converted != NULL) pool_bytes = converted;
  if (build_arrays(g) != 0 || shared_memory_create(&g->pool, pool_size) != 0) {
    g->pool.fd = -1; /* nothing to release: a failed create closes what it opened */
    free(converted);
    fprintf(stderr, "vknn-bench: no memory for the model\n");
    return -1;
  }
  if (pool_size > 0) memcpy(g->pool.data, pool_bytes, pool_size);
  free(converted);
  g->model = (vknn_model){
      .main = {g->model_operands, g->operand_count, g->model_operations, g->operation_count,
               &g->input, 1, &g->output, 1},
      .operand_values = g->values,
      .operand_values_size = g->values_size,
      .pools = &g->pool.memory,
      .pool_count = 1,
      .relax_computation_float32_to_float16 = relaxed};
  return 0;
}
