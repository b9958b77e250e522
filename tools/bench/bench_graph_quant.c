/* A finished float32 bench_graph as a QUANT8_ASYMM model (vknn-bench kernel
 * --quant8): activations at one scale, each filter at its own (the largest
 * magnitude over 127, zero point 128), each bias as TENSOR_INT32 at input
 * scale times filter scale, as NNAPI requires. Only graphs of convolutions
 * and fully connected layers: their weights are the pool's only tensors. */
#include "bench_graph_quant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs lie in [-1, 1): 128 steps of 1/64 either side of zero point 128. */
#define ACTIVATION_SCALE (1.0f / 64.0f)
#define ZERO_POINT 128

static bool is_weighted(int32_t type) {
  return type == VKNN_OPERATION_CONV_2D || type == VKNN_OPERATION_DEPTHWISE_CONV_2D ||
         type == VKNN_OPERATION_FULLY_CONNECTED;
}

static const float *weights_of(const bench_graph *g, uint32_t index, size_t *count) {
  *count = bench_graph_element_count(g, index);
  return g->weights + g->operands[index].operand.location.offset / sizeof(float);
}

/* Appends size bytes (16-byte aligned) to the new pool; their offset. */
static uint32_t append(uint8_t *pool, size_t *used, const void *bytes, size_t size) {
  size_t offset = (*used + 15) & ~(size_t)15;
  memset(pool + *used, 0, offset - *used);
  memcpy(pool + offset, bytes, size);
  *used = offset + size;
  return (uint32_t)offset;
}

static void quantize_filter(bench_graph *g, uint32_t index, uint8_t *pool, size_t *used, uint8_t *scratch) {
  size_t count;
  const float *w = weights_of(g, index, &count);
  float largest = 0.f;
  for (size_t i = 0; i < count; ++i) largest = fmaxf(largest, fabsf(w[i]));
  float scale = largest > 0.f ? largest / 127.f : 1.f;
  for (size_t i = 0; i < count; ++i) scratch[i] = (uint8_t)(lrintf(w[i] / scale) + ZERO_POINT);
  vknn_operand *o = &g->operands[index].operand;
  o->type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
  o->scale = scale;
  o->zero_point = ZERO_POINT;
  o->location.offset = append(pool, used, scratch, count);
  o->location.length = (uint32_t)count;
}

static void quantize_bias(bench_graph *g, uint32_t index, float scale, uint8_t *pool, size_t *used,
                          uint8_t *scratch) {
  size_t count;
  const float *b = weights_of(g, index, &count);
  int32_t *values = (int32_t *)(void *)scratch;
  for (size_t i = 0; i < count; ++i) values[i] = (int32_t)lrintf(b[i] / scale);
  vknn_operand *o = &g->operands[index].operand;
  o->type = VKNN_OPERAND_TENSOR_INT32;
  o->scale = scale;
  o->location.offset = append(pool, used, scratch, count * sizeof(int32_t));
  o->location.length = (uint32_t)(count * sizeof(int32_t));
}

int bench_graph_quantize(bench_graph *g, uint8_t **out_pool, size_t *out_size) {
  /* Quantized weights take at most as many bytes as the floats did. */
  size_t capacity = g->weight_count * sizeof(float) + 16 * g->operand_count;
  uint8_t *pool = calloc(capacity ? capacity : 1, 1), *scratch = malloc(capacity ? capacity : 1);
  if (pool == NULL || scratch == NULL) {
    free(pool), free(scratch);
    return -1;
  }
  size_t used = 0;
  for (uint32_t i = 0; i < g->operation_count; ++i) {
    const bench_graph_operation *op = &g->operations[i];
    if (!is_weighted(op->operation.type)) {
      fprintf(stderr, "vknn-bench: --quant8 takes convolutions and fully connected layers only\n");
      free(pool), free(scratch);
      return -1;
    }
    quantize_filter(g, op->indexes[1], pool, &used, scratch);
    quantize_bias(g, op->indexes[2], ACTIVATION_SCALE * g->operands[op->indexes[1]].operand.scale, pool,
                  &used, scratch);
  }
  for (uint32_t i = 0; i < g->operand_count; ++i) {
    vknn_operand *o = &g->operands[i].operand;
    if (o->type != VKNN_OPERAND_TENSOR_FLOAT32) continue;
    o->type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
    o->scale = ACTIVATION_SCALE;
    o->zero_point = ZERO_POINT;
  }
  free(scratch);
  *out_pool = pool;
  *out_size = used;
  return 0;
}
