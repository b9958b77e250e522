/* RANDOM_MULTINOMIAL: samples [batches, samples] classes from the softmax of
 * each row of logits [batches, classes], with two seeds. Kernel:
 * shaders/random_multinomial.comp, a counter-based generator: an execution
 * is a function of the model and its inputs (seeds 0 and 0 too, where NNAPI
 * leaves the seeds to the driver). */
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"

static vknn_status validate_random_multinomial(const vknn_logger *log, const vknn_model *model,
                                               const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *logits = &sg->operands[op->inputs[0]];
  if (!vknn_is_float_tensor(logits->type)) {
    VKNN_LOG_E(log, "model", "RANDOM_MULTINOMIAL: logits of type %s are not allowed",
               vknn_operand_type_name(logits->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_operand *seeds = &sg->operands[op->inputs[2]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  bool ok = vknn_op_check_rank(log, op, "the logits", logits, 2) &&
            vknn_op_check_type(log, op, "the sample count", &sg->operands[op->inputs[1]],
                               VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the seeds", seeds, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "the seeds", seeds, 1) &&
            vknn_op_check_type(log, op, "the output", out, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "the output", out, 2);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct multinomial_params {
  uint32_t batches, classes, samples;
} multinomial_params;
VKNN_PUSH_LAYOUT(random_multinomial, multinomial_params);

/* The sample count, read and checked before the shapes: a model whose
 * shapes wait for an execution still has it checked at prepare. */
static vknn_status read_samples(vknn_graph *graph, const vknn_operation *op, int32_t *samples) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, 1);
  if (s == VKNN_STATUS_NONE && !vknn_graph_const_i32_list(graph, op, 1, 1, samples))
    s = VKNN_STATUS_GENERAL_FAILURE;
  if (s != VKNN_STATUS_NONE) return s;
  if (*samples < 0) {
    VKNN_LOG_E(graph->log, "model", "RANDOM_MULTINOMIAL: %d samples (0 or more expected)", *samples);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (*samples == 0) {
    /* Valid (the reference takes it), but an output of no elements. */
    VKNN_LOG_E(graph->log, "compilation", "RANDOM_MULTINOMIAL: 0 samples: zero-sized tensors are not supported");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status read_params(vknn_graph *graph, const vknn_operation *op,
                               multinomial_params *p) {
  int32_t samples = 0;
  vknn_status s = read_samples(graph, op, &samples);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 2);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *logits = &graph->tensors[op->inputs[0]];
  const vknn_tensor *seeds = &graph->tensors[op->inputs[2]];
  if (logits->rank != 2 || seeds->rank != 1 || seeds->dims[0] != 2) {
    VKNN_LOG_E(graph->log, "model", "RANDOM_MULTINOMIAL: logits of rank %u (2 expected) or %u seeds "
               "(2 expected)", logits->rank, seeds->rank == 1 ? seeds->dims[0] : 0);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *p = (multinomial_params){logits->dims[0], logits->dims[1], (uint32_t)samples};
  if ((uint64_t)p->batches * p->samples > INT32_MAX ||
      (uint64_t)p->batches * p->classes > INT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation",
               "RANDOM_MULTINOMIAL: %u x %u samples or %u classes are too many", p->batches,
               p->samples, p->classes);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_random_multinomial(vknn_graph *graph, const vknn_operation *op) {
  multinomial_params p;
  vknn_status s = read_params(graph, op, &p);
  uint32_t dims[2] = {p.batches, p.samples};
  return s == VKNN_STATUS_NONE ? vknn_op_set_output_shape(graph, op, 0, dims, 2) : s;
}

static vknn_status lower_random_multinomial(vknn_graph *graph, const vknn_operation *op,
                                            vknn_dispatch_list *out_list) {
  multinomial_params p;
  vknn_status s = read_params(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  /* Each invocation walks its row three times: maximum, total, pick. */
  if (!vknn_op_within_loop_budget(graph, "RANDOM_MULTINOMIAL", 3ull * p.classes, "the walks over the classes"))
    return VKNN_STATUS_GENERAL_FAILURE;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool f16 = graph->tensors[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  d->shader = f16 ? VKNN_SHADER_RANDOM_MULTINOMIAL_F16 : VKNN_SHADER_RANDOM_MULTINOMIAL_F32;
  d->local_size = 64;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[2], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.batches * p.samples;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_random_multinomial = {VKNN_OPERATION_RANDOM_MULTINOMIAL, false,
                                                validate_random_multinomial,
                                                infer_random_multinomial,
                                                lower_random_multinomial};
