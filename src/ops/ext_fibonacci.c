/* EXAMPLE_FIBONACCI of the example extension com.example.fibonacci
 * (include/vknn/extensions/fibonacci.h): the first n Fibonacci numbers as
 * TENSOR_FLOAT32 or EXAMPLE_TENSOR_QUANT64_ASYMM. n decides the output's
 * shape, so it is read at prepare (a constant) or per execution (a model
 * input: the model is specialized for its value); the numbers are computed
 * by shaders/ext_fibonacci.comp, which needs 64-bit integer and float
 * arithmetic. */
#include <math.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "ops/op_common.h"

/* F(92) is the largest Fibonacci number of a signed 64-bit integer. */
#define FIBONACCI_MAX_N 92

static vknn_status validate_fibonacci(const vknn_logger *log, const vknn_model *model,
                                      const vknn_subgraph *sg, const vknn_operation *op) {
  if (!vknn_op_check_counts_optional(log, sg, op, 1, 1, 0)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *n = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  int32_t n_type = vknn_model_operand_type(model, n->type);
  int32_t out_type = vknn_model_operand_type(model, out->type);
  if (n_type != VKNN_OPERAND_EXAMPLE_INT64 && n_type != VKNN_OPERAND_TENSOR_FLOAT32) {
    VKNN_LOG_E(log, "model", "EXAMPLE_FIBONACCI: n must be EXAMPLE_INT64 or TENSOR_FLOAT32");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (n_type == VKNN_OPERAND_TENSOR_FLOAT32 && n->dimension_count > 0 &&
      vknn_shape_element_count(n->dimensions, n->dimension_count) > 1) {
    VKNN_LOG_E(log, "model", "EXAMPLE_FIBONACCI: a TENSOR_FLOAT32 n must hold exactly one element");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (out_type != VKNN_OPERAND_TENSOR_FLOAT32 && out_type != VKNN_OPERAND_EXAMPLE_TENSOR_QUANT64_ASYMM) {
    VKNN_LOG_E(log, "model",
               "EXAMPLE_FIBONACCI: the output must be TENSOR_FLOAT32 or EXAMPLE_TENSOR_QUANT64_ASYMM");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (out->dimension_count > 1) {
    VKNN_LOG_E(log, "model", "EXAMPLE_FIBONACCI: the output has rank %u, not 1", out->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* n from its constant bytes (a model input's, when specialized). */
static vknn_status read_n(vknn_graph *graph, const vknn_operation *op, uint32_t *out_n) {
  const vknn_tensor *t = &graph->tensors[op->inputs[0]];
  if (t->constant_data == NULL) {
    if (t->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT)
      return vknn_graph_defer(graph, op, "n, a model input, decides the output's shape");
    VKNN_LOG_E(graph->log, "compilation", "EXAMPLE_FIBONACCI: n must be a constant or a model input");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (t->type == VKNN_OPERAND_EXAMPLE_INT64) {
    int64_t v;
    memcpy(&v, t->constant_data, sizeof(v));
    if (v < 1 || v > FIBONACCI_MAX_N) {
      VKNN_LOG_E(graph->log, "model", "EXAMPLE_FIBONACCI: n = %lld is not an integer in [1, %d]",
                 (long long)v, FIBONACCI_MAX_N);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    *out_n = (uint32_t)v;
    return VKNN_STATUS_NONE;
  }
  if (vknn_shape_element_count(t->dims, t->rank) != 1) {
    VKNN_LOG_E(graph->log, "model", "EXAMPLE_FIBONACCI: a TENSOR_FLOAT32 n must hold one element");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  float n;
  memcpy(&n, t->constant_data, sizeof(n));
  if (!(n >= 1.f && n <= FIBONACCI_MAX_N) || n != floorf(n)) {
    VKNN_LOG_E(graph->log, "model", "EXAMPLE_FIBONACCI: n = %g is not an integer in [1, %d]",
               (double)n, FIBONACCI_MAX_N);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *out_n = (uint32_t)n;
  return VKNN_STATUS_NONE;
}

static vknn_status infer_fibonacci(vknn_graph *graph, const vknn_operation *op) {
  uint32_t n;
  vknn_status s = read_n(graph, op, &n);
  if (s != VKNN_STATUS_NONE) return s;
  if (!graph->kernels.int64_float64) {
    VKNN_LOG_E(graph->log, "compilation",
               "EXAMPLE_FIBONACCI: the device lacks 64-bit integer and float arithmetic");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return vknn_op_set_output_shape(graph, op, 0, &n, 1);
}

typedef struct ext_fibonacci_params {
  uint32_t n;
  uint32_t scale_lo, scale_hi;
  uint32_t zero_lo, zero_hi;
} ext_fibonacci_params;
VKNN_PUSH_LAYOUT(ext_fibonacci, ext_fibonacci_params);

static vknn_status lower_fibonacci(vknn_graph *graph, const vknn_operation *op,
                                   vknn_dispatch_list *out_list) {
  uint32_t n;
  vknn_status s = read_n(graph, op, &n);
  if (s != VKNN_STATUS_NONE) return s;
  ext_fibonacci_params p = {.n = n};
  bool quantized = graph->tensors[op->outputs[0]].type == VKNN_OPERAND_EXAMPLE_TENSOR_QUANT64_ASYMM;
  if (quantized) {
    /* The operand's extension data, checked by model validation. */
    vknn_example_quant64_asymm_params q =
        vknn_ext_quant64_params(&graph->sg->operands[op->outputs[0]]);
    uint64_t scale_bits, zero_bits = (uint64_t)q.zero_point;
    memcpy(&scale_bits, &q.scale, sizeof(scale_bits));
    p.scale_lo = (uint32_t)scale_bits;
    p.scale_hi = (uint32_t)(scale_bits >> 32);
    p.zero_lo = (uint32_t)zero_bits;
    p.zero_hi = (uint32_t)(zero_bits >> 32);
  }
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = quantized ? VKNN_SHADER_EXT_FIBONACCI_Q64 : VKNN_SHADER_EXT_FIBONACCI_F32;
  d->local_size = 64;
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = n;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_example_fibonacci = {VKNN_OPERATION_EXAMPLE_FIBONACCI, false,
                                               validate_fibonacci, infer_fibonacci,
                                               lower_fibonacci};
