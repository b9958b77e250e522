/* ARGMAX, ARGMIN: the index of the largest (smallest) element along one
 * axis, the lowest index among equal ones; TENSOR_INT32 results of the
 * input's shape without the axis ([1] for a 1-D input). Kernel:
 * shaders/arg_minmax.comp, over the rows and passes of ops/reduce.h. */
#include "model/operand_type.h"
#include "ops/reduce.h"

static vknn_status validate_arg_minmax(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  if (vknn_variant_of(in->type) < 0 && in->type != VKNN_OPERAND_TENSOR_INT32) {
    VKNN_LOG_E(log, "model", "%s: input %s is not allowed", vknn_operation_type_name(op->type),
               vknn_operand_type_name(in->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]],
                               VKNN_OPERAND_TENSOR_INT32);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The output's shape: the input's reduced along the axis, not kept. */
static uint32_t arg_shape(const vknn_tensor *in, uint32_t axis, uint32_t *dims) {
  bool reduced[VKNN_MAX_RANK] = {false};
  reduced[axis] = true;
  return vknn_reduced_shape(in, reduced, false, dims);
}

/* The axis, in [-rank, rank); given at run time, the operation waits for it
 * (a scalar the execution makes known). It is checked before the input's
 * shape: the model gives the rank with its dimensions, even those an
 * execution gives (a rank it leaves unknown waits), so a model whose shape
 * waits for an execution still has its axis checked at prepare. */
static vknn_status read_axis(vknn_graph *graph, const vknn_operation *op, uint32_t *out_axis) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  int32_t axis;
  if (!vknn_graph_const_i32(graph, op->inputs[1], &axis)) return VKNN_STATUS_GENERAL_FAILURE;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (in->rank == 0) s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  s = vknn_op_axis(graph, op, axis, in->rank, out_axis);
  if (s == VKNN_STATUS_NONE && !in->shape_known && in->lifetime != VKNN_LIFETIME_NO_VALUE) {
    uint32_t dims[VKNN_MAX_RANK];
    s = vknn_op_check_known_output(graph, op, dims, arg_shape(in, *out_axis, dims));
  }
  return s == VKNN_STATUS_NONE ? vknn_op_require_input_shape(graph, op, 0) : s;
}

static vknn_status infer_arg_minmax(vknn_graph *graph, const vknn_operation *op) {
  uint32_t axis;
  vknn_status s = read_axis(graph, op, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_reduce_fits(graph, op)) return VKNN_STATUS_GENERAL_FAILURE;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK];
  return vknn_op_set_output_shape(graph, op, 0, dims, arg_shape(in, axis, dims));
}

/* The kernel of one ARGMAX or ARGMIN. */
typedef struct arg_kernel {
  vknn_shader_id shader;
  bool is_min;
} arg_kernel;

static void set_arg_kernel(const void *context, const vknn_reduce_pass *pass, vknn_dispatch *d) {
  const arg_kernel *k = context;
  d->shader = k->shader;
  d->spec[VKNN_SPEC_ARG_MINMAX_IS_MIN] = k->is_min;
  d->spec[VKNN_SPEC_ARG_MINMAX_OUT_LANES] = pass->out_lanes;
  d->spec[VKNN_SPEC_ARG_MINMAX_READS_PARTIALS] = pass->reads_partials;
  d->spec[VKNN_SPEC_ARG_MINMAX_WRITES_PARTIALS] = pass->writes_partials;
  d->spec[VKNN_SPEC_ARG_MINMAX_VECTORS] = pass->vectors;
  d->spec_count = VKNN_SPEC_COUNT_ARG_MINMAX;
}

VKNN_PUSH_LAYOUT(arg_minmax, vknn_reduce_params);

static vknn_status lower_arg_minmax(vknn_graph *graph, const vknn_operation *op,
                                    vknn_dispatch_list *out_list) {
  uint32_t axis;
  vknn_status s = read_axis(graph, op, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  static const vknn_shader_id by_variant[] = {VKNN_SHADER_ARG_MINMAX_F32, VKNN_SHADER_ARG_MINMAX_F16,
                                              VKNN_SHADER_ARG_MINMAX_Q8, VKNN_SHADER_ARG_MINMAX_Q8S};
  int variant = vknn_variant_of(in->type);
  arg_kernel kernel = {variant < 0 ? VKNN_SHADER_ARG_MINMAX_I32 : by_variant[variant],
                       op->type == VKNN_OPERATION_ARGMIN};
  /* A partial result: the value's bits and its index. */
  vknn_reduce_lowering r = {.input = op->inputs[0],
                            .output = vknn_graph_op_output(graph, op, 0),
                            .partial_type = VKNN_OPERAND_TENSOR_INT32,
                            .partial_words = 2,
                            .count = in->dims[axis],
                            .set_kernel = set_arg_kernel,
                            .context = &kernel};
  bool reduced[VKNN_MAX_RANK] = {false};
  reduced[axis] = true;
  if (!vknn_reduce_rows_of(in->dims, in->rank, reduced, &r.rows)) return VKNN_STATUS_GENERAL_FAILURE;
  return vknn_lower_reduce(graph, &r, out_list);
}

const vknn_op_def vknn_op_argmax = {VKNN_OPERATION_ARGMAX, false, validate_arg_minmax,
                                    infer_arg_minmax, lower_arg_minmax};
const vknn_op_def vknn_op_argmin = {VKNN_OPERATION_ARGMIN, false, validate_arg_minmax,
                                    infer_arg_minmax, lower_arg_minmax};
