#include "bench_graph_half.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cts_values.h"

/* A float32 constant's values as half floats at the next 16-byte boundary
 * of the new pool. */
static void convert_constant(const bench_graph *g, vknn_operand *o, uint8_t *pool, size_t *used) {
  size_t count = o->location.length / sizeof(float);
  const float *values = g->weights + o->location.offset / sizeof(float);
  size_t offset = (*used + 15) & ~(size_t)15;
  memset(pool + *used, 0, offset - *used);
  for (size_t i = 0; i < count; ++i) {
    uint16_t h = cts_float_to_half(values[i]);
    memcpy(pool + offset + 2 * i, &h, sizeof(h));
  }
  o->location.offset = (uint32_t)offset;
  o->location.length = (uint32_t)(2 * count);
  *used = offset + 2 * count;
}

/* A FLOAT32 scalar's value becomes a FLOAT16 in the first two of its bytes. */
static void convert_scalar(bench_graph *g, vknn_operand *o) {
  float value;
  memcpy(&value, g->values + o->location.offset, sizeof(value));
  uint16_t h = cts_float_to_half(value);
  memcpy(g->values + o->location.offset, &h, sizeof(h));
  o->location.length = sizeof(h);
  o->type = VKNN_OPERAND_FLOAT16;
}

int bench_graph_to_float16(bench_graph *g, uint8_t **out_pool, size_t *out_size) {
  /* Halves, each constant padded to 16 bytes: never more than the floats. */
  size_t capacity = g->weight_count * sizeof(float) + 16 * (size_t)g->operand_count;
  uint8_t *pool = calloc(capacity ? capacity : 1, 1);
  if (pool == NULL) {
    fprintf(stderr, "vknn-bench: no memory for the float16 weights\n");
    return -1;
  }
  size_t used = 0;
  for (uint32_t i = 0; i < g->operand_count; ++i) {
    vknn_operand *o = &g->operands[i].operand;
    if (o->type == VKNN_OPERAND_FLOAT32 && o->lifetime == VKNN_LIFETIME_CONSTANT_COPY) {
      convert_scalar(g, o);
    } else if (o->type == VKNN_OPERAND_TENSOR_FLOAT32) {
      if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY) {
        fprintf(stderr, "vknn-bench: --float16 takes no float tensor copied into the model\n");
        free(pool);
        return -1;
      }
      if (o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE) convert_constant(g, o, pool, &used);
      o->type = VKNN_OPERAND_TENSOR_FLOAT16;
    }
  }
  *out_pool = pool;
  *out_size = used;
  return 0;
}
