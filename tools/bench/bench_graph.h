/* Builds float32 models of any size through the public API, operand by
 * operand: tensors of constants are random (a fixed seed) and live in one
 * CONSTANT_REFERENCE pool, scalars are CONSTANT_COPY values. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "common/shared_memory.h"
#include "vknn/vknn.h"

typedef struct bench_graph_operand {
  vknn_operand operand;
  uint32_t dims[4];
} bench_graph_operand;

typedef struct bench_graph_operation {
  vknn_operation operation;
  uint32_t indexes[12]; /* inputs, then the output */
} bench_graph_operation;

typedef struct bench_graph {
  bench_graph_operand *operands;
  uint32_t operand_count, operand_capacity;
  bench_graph_operation *operations;
  uint32_t operation_count, operation_capacity;
  uint8_t *values; /* CONSTANT_COPY bytes */
  size_t values_size, values_capacity;
  float *weights; /* CONSTANT_REFERENCE floats, copied into pool at bench_graph_finish */
  size_t weight_count, weight_capacity;
  uint32_t input, output; /* the model's one input and one output */
  uint64_t random_state;
  bool failed; /* an allocation failed: bench_graph_finish reports it */
  /* Set before bench_graph_finish: the model quantized (bench_graph_quant.c),
   * its input and output QUANT8_ASYMM. */
  bool quant8;
  /* Set before bench_graph_finish: every float operand as float16
   * (bench_graph_half.c). */
  bool float16;
  /* Valid after bench_graph_finish, while the graph lives. */
  vknn_operand *model_operands;
  vknn_operation *model_operations;
  shared_memory pool;
  vknn_model model;
} bench_graph;

void bench_graph_init(bench_graph *g, uint64_t seed);
void bench_graph_free(bench_graph *g);

/* A uniform random float in [-1, 1) from the graph's generator. */
float bench_graph_random(bench_graph *g);

/* The model input (a float32 tensor); one per graph. */
uint32_t bench_graph_input(bench_graph *g, const uint32_t *dims, uint32_t rank);
/* A float32 tensor computed by an operation. */
uint32_t bench_graph_tensor(bench_graph *g, const uint32_t *dims, uint32_t rank);
/* A constant float32 tensor of uniform random values in [-scale, scale). */
uint32_t bench_graph_random_tensor(bench_graph *g, const uint32_t *dims, uint32_t rank,
                                   float scale);
uint32_t bench_graph_int32(bench_graph *g, int32_t value);
uint32_t bench_graph_float32(bench_graph *g, float value);
uint32_t bench_graph_bool(bench_graph *g, bool value);
/* A constant 1-D TENSOR_INT32 of count values (an operation's axes). */
uint32_t bench_graph_int32_vector(bench_graph *g, const int32_t *values, uint32_t count);
/* An operation with one output; counts the consumers of its inputs. */
void bench_graph_operation_add(bench_graph *g, int32_t type, const uint32_t *inputs,
                               uint32_t input_count, uint32_t output);
/* Copies the dimensions of operand index (up to 4) and returns its rank. */
uint32_t bench_graph_shape(const bench_graph *g, uint32_t index, uint32_t out_dims[4]);

/* Makes index the model output and builds g->model (quantized when
 * g->quant8); 0, or -1 with a message. */
int bench_graph_finish(bench_graph *g, uint32_t output, bool relaxed);

/* Elements of a tensor operand. */
size_t bench_graph_element_count(const bench_graph *g, uint32_t index);
