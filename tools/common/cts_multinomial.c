#include "cts_multinomial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cts_values.h"

/* The logits: input 0 of the case's RANDOM_MULTINOMIAL, as a model input. */
static const uint8_t *find_logits(const cts_case *c, int32_t *type, uint32_t *classes) {
  const vknn_subgraph *sg = &c->model.main;
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    if (sg->operations[k].type != VKNN_OPERATION_RANDOM_MULTINOMIAL) continue;
    uint32_t operand = sg->operations[k].inputs[0];
    const vknn_operand *o = &sg->operands[operand];
    for (uint32_t i = 0; i < sg->input_count && i < c->input_count; ++i) {
      if (sg->input_indexes[i] != operand || o->dimension_count != 2) continue;
      *type = o->type;
      *classes = o->dimensions[1];
      return c->input_pool.data + c->inputs[i].location.offset;
    }
  }
  return NULL;
}

/* Row b: the shares of its samples against softmax(logits[b]). */
static int check_row(const cts_case *c, const uint8_t *logits, int32_t type, uint32_t classes,
                     const uint32_t *counts, uint32_t samples, uint32_t b, char *reason,
                     size_t reason_size) {
  double top = -INFINITY, total = 0;
  for (uint32_t k = 0; k < classes; ++k)
    top = fmax(top, cts_decode_value(type, logits, (size_t)b * classes + k));
  for (uint32_t k = 0; k < classes; ++k)
    total += exp(cts_decode_value(type, logits, (size_t)b * classes + k) - top);
  for (uint32_t k = 0; k < classes; ++k) {
    double expected = exp(cts_decode_value(type, logits, (size_t)b * classes + k) - top) / total;
    double actual = (double)counts[k] / samples;
    if (fabs(actual - expected) <= c->multinomial_tolerance) continue;
    snprintf(reason, reason_size,
             "multinomial: row %u, class %u drawn %.4f of the time, its probability %.4f", b, k,
             actual, expected);
    return -1;
  }
  return 0;
}

int cts_check_multinomial(const cts_case *c, const uint8_t *pool, uint32_t index, char *reason,
                          size_t reason_size) {
  const cts_expected *e = &c->expected[index];
  int32_t type = 0;
  uint32_t classes = 0;
  const uint8_t *logits = find_logits(c, &type, &classes);
  if (logits == NULL || e->rank != 2 || e->type != VKNN_OPERAND_TENSOR_INT32 || classes == 0) {
    snprintf(reason, reason_size, "multinomial: the case has no RANDOM_MULTINOMIAL to judge by");
    return -1;
  }
  uint32_t batches = e->dims[0], samples = e->dims[1];
  const uint8_t *out = pool + c->outputs[index].location.offset;
  uint32_t *counts = calloc(classes, sizeof(uint32_t));
  int result = counts == NULL ? -1 : 0;
  for (uint32_t b = 0; b < batches && result == 0; ++b) {
    for (uint32_t k = 0; k < classes; ++k) counts[k] = 0;
    for (uint32_t s = 0; s < samples && result == 0; ++s) {
      double drawn = cts_decode_value(e->type, out, (size_t)b * samples + s);
      if (drawn >= 0 && drawn < classes) {
        counts[(uint32_t)drawn]++;
        continue;
      }
      snprintf(reason, reason_size, "multinomial: sample %u of row %u is class %.0f, not in "
               "[0, %u)", s, b, drawn, classes);
      result = -1;
    }
    if (result == 0)
      result = check_row(c, logits, type, classes, counts, samples, b, reason, reason_size);
  }
  if (counts == NULL) snprintf(reason, reason_size, "multinomial: out of memory");
  free(counts);
  return result;
}
