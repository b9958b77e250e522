#include "cts_compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cts_multinomial.h"
#include "cts_values.h"

typedef struct tolerance {
  double atol, rtol;
} tolerance;

static int quant_tolerance_override = -1;

void cts_compare_set_quant_tolerance(int steps) { quant_tolerance_override = steps; }

static tolerance tolerance_for(const cts_case *c, int32_t type) {
  const double fp32 = 5 * 1.1920928955078125e-7, fp16 = 5 * 0.0009765625;
  bool quant8_mobilenet = strstr(c->name, "mobilenet") != NULL;
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32:
    case VKNN_OPERAND_FLOAT32:
      if (c->relaxed || c->has_float16) return (tolerance){fp16, fp16};
      return (tolerance){1e-5, fp32};
    case VKNN_OPERAND_TENSOR_FLOAT16:
    case VKNN_OPERAND_FLOAT16:
      return (tolerance){fp16, fp16};
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
      if (quant_tolerance_override >= 0) return (tolerance){quant_tolerance_override, 0};
      return (tolerance){quant8_mobilenet ? 3 : 1, 0};
    case VKNN_OPERAND_TENSOR_BOOL8:
    case VKNN_OPERAND_BOOL:
      return (tolerance){0, 0};
    default: /* INT32, QUANT16 */
      return (tolerance){1, 0};
  }
}

static int compare_shape(const cts_expected *e, const vknn_output_shape *shape, uint32_t index,
                         char *reason, size_t reason_size) {
  bool same = shape->rank == e->rank;
  for (uint32_t d = 0; same && d < e->rank; ++d) same = shape->dimensions[d] == e->dims[d];
  if (same) return 0;
  snprintf(reason, reason_size, "output %u: shape of rank %u differs from the expected one", index,
           shape->rank);
  return -1;
}

static int compare_output(const cts_case *c, const uint8_t *pool, uint32_t index,
                          const vknn_output_shape *shape, char *reason, size_t reason_size) {
  const cts_expected *e = &c->expected[index];
  if (e->ignored) return 0;
  if (shape != NULL && compare_shape(e, shape, index, reason, reason_size) != 0) return -1;
  if (c->multinomial_tolerance > 0) return cts_check_multinomial(c, pool, index, reason, reason_size);
  tolerance tol = tolerance_for(c, e->type);
  const uint8_t *bytes = pool + c->outputs[index].location.offset;
  for (size_t i = 0; i < e->count; ++i) {
    if (e->is_nan[i]) {
      snprintf(reason, reason_size, "output %u[%zu]: the expected value is NaN", index, i);
      return -1;
    }
    double actual = cts_decode_value(e->type, bytes, i), expected = e->values[i];
    bool exact = actual == expected; /* covers matching infinities */
    if (!exact && !(fabs(actual - expected) <= tol.atol + tol.rtol * fabs(expected))) {
      snprintf(reason, reason_size, "output %u[%zu]: got %.9g, expected %.9g", index, i, actual,
               expected);
      return -1;
    }
  }
  return 0;
}

int cts_compare_outputs_in(const cts_case *c, const uint8_t *output_pool,
                           const vknn_output_shape *shapes, char *reason, size_t reason_size) {
  for (uint32_t i = 0; i < c->output_count; ++i)
    if (compare_output(c, output_pool, i, shapes ? &shapes[i] : NULL, reason, reason_size) != 0)
      return -1;
  return 0;
}

int cts_compare_outputs(const cts_case *c, const vknn_output_shape *shapes, char *reason,
                        size_t reason_size) {
  return cts_compare_outputs_in(c, c->output_pool.data, shapes, reason, reason_size);
}
