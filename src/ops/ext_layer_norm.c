/* LAYER_NORMALIZATION of the extension org.vknn.transformer
 * (include/vknn/extensions/transformer.h): normalization along one axis
 * with optional per-position gamma and beta, a row reduction (row_reduce.h)
 * on shaders/layer_norm.comp. */
#include <math.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "ops/known_dims.h"
#include "ops/row_reduce.h"

#define LAYER_NORM_MAX_RANK 4

enum { IN_X = 0, IN_GAMMA = 1, IN_BETA = 2, IN_AXIS = 3, IN_EPSILON = 4 };

_Static_assert(VKNN_SPEC_LAYER_NORM_PASS == 0, "row kernels take the pass as constant_id 1");

static bool check_affine(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                         uint32_t input, const char *what) {
  /* An omitted one keeps its declared type. */
  const vknn_operand *o = &sg->operands[op->inputs[input]];
  return vknn_op_check_type(log, op, what, o, sg->operands[op->inputs[IN_X]].type) &&
         vknn_op_check_rank(log, op, what, o, 1);
}

static vknn_status validate_layer_norm(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  uint32_t optional = (1u << IN_GAMMA) | (1u << IN_BETA);
  if (!vknn_op_check_counts_optional(log, sg, op, 5, 1, optional)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *x = &sg->operands[op->inputs[IN_X]];
  if (!vknn_is_float_tensor(x->type) || x->dimension_count > LAYER_NORM_MAX_RANK) {
    VKNN_LOG_E(log, "model", "LAYER_NORMALIZATION: %s of rank %u is not allowed (float32 or "
               "float16, rank 1 to %d)", vknn_operand_type_name(x->type), x->dimension_count,
               LAYER_NORM_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t epsilon_type =
      x->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  bool ok = check_affine(log, sg, op, IN_GAMMA, "gamma") && check_affine(log, sg, op, IN_BETA, "beta") &&
            vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[IN_AXIS]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "epsilon", &sg->operands[op->inputs[IN_EPSILON]], epsilon_type) &&
            vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], x->type);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct layer_norm_args {
  uint32_t axis;
  float epsilon;
  bool has_gamma, has_beta;
} layer_norm_args;

/* A present gamma or beta holds one value per position along the axis (an
 * extent of 0 is not known yet, ops/known_dims.h), checked before it waits
 * for its own shape. */
static vknn_status check_affine_shape(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                      uint32_t extent, bool *out_present) {
  *out_present = !vknn_graph_omitted(graph, op->inputs[input]);
  if (!*out_present) return VKNN_STATUS_NONE;
  if (vknn_presence_waits(graph, &graph->tensors[op->inputs[input]]))
    return vknn_graph_defer(graph, op, "whether gamma and beta are omitted is known at execution");
  const vknn_tensor *t = &graph->tensors[op->inputs[input]];
  if (vknn_dims_fit(t, 1, extent, 0)) return vknn_op_require_input_shape(graph, op, input);
  VKNN_LOG_E(graph->log, "model", "LAYER_NORMALIZATION: %s has %u values, the axis %u",
             input == IN_GAMMA ? "gamma" : "beta", vknn_known_dim(t, 1, 0), extent);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The axis and epsilon; given as model inputs, they are compiled per
 * execution with their values. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, int32_t *axis,
                               float *epsilon) {
  vknn_status s = vknn_op_require_constant_params(graph, op, IN_AXIS, 2);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, IN_AXIS, 1, axis) ||
      !vknn_graph_const_float(graph, op->inputs[IN_EPSILON], epsilon))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (*epsilon > 0.f && isfinite(*epsilon)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "LAYER_NORMALIZATION: epsilon %g is not finite and > 0", *epsilon);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The parameters, the axis against the input's rank and gamma and beta
 * against the input's dimensions, as far as they are known, come before
 * the input's shape: a model whose shape waits for an execution still has
 * them checked at prepare. The model gives the rank with its dimensions,
 * even those an execution gives; a rank it leaves unknown waits. */
static vknn_status read_args(vknn_graph *graph, const vknn_operation *op, layer_norm_args *a) {
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_X]];
  int32_t axis = 0;
  vknn_status s = read_params(graph, op, &axis, &a->epsilon);
  if (s == VKNN_STATUS_NONE && x->rank == 0) s = vknn_op_require_input_shape(graph, op, IN_X);
  if (s == VKNN_STATUS_NONE) s = vknn_op_axis(graph, op, axis, x->rank, &a->axis);
  if (s == VKNN_STATUS_NONE)
    s = check_affine_shape(graph, op, IN_GAMMA, x->dims[a->axis], &a->has_gamma);
  if (s == VKNN_STATUS_NONE)
    s = check_affine_shape(graph, op, IN_BETA, x->dims[a->axis], &a->has_beta);
  return s == VKNN_STATUS_NONE ? vknn_op_require_output_like_input(graph, op, IN_X) : s;
}

static vknn_status infer_layer_norm(vknn_graph *graph, const vknn_operation *op) {
  layer_norm_args a;
  vknn_status s = read_args(graph, op, &a);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_X]];
  return vknn_op_set_output_shape(graph, op, 0, x->dims, x->rank);
}

/* Push constants of layer_norm.comp, std430 layout. */
typedef struct layer_norm_params {
  VKNN_ROW_PARAMS;
  float epsilon;
  uint32_t has_gamma, has_beta;
} layer_norm_params;
VKNN_PUSH_LAYOUT(layer_norm, layer_norm_params);

static vknn_status lower_layer_norm(vknn_graph *graph, const vknn_operation *op,
                                    vknn_dispatch_list *out_list) {
  layer_norm_args a;
  vknn_status s = read_args(graph, op, &a);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_X]];
  vknn_row_plan plan;
  if (!vknn_row_plan_of(graph, x, a.axis, &plan)) return VKNN_STATUS_GENERAL_FAILURE;
  layer_norm_params p = {VKNN_ROW_PARAMS_OF(plan), .epsilon = a.epsilon,
                         .has_gamma = a.has_gamma, .has_beta = a.has_beta};
  bool f16 = x->type == VKNN_OPERAND_TENSOR_FLOAT16;
  vknn_row_kernel kernel = {.shader = f16 ? VKNN_SHADER_LAYER_NORM_F16 : VKNN_SHADER_LAYER_NORM_F32,
                            .spec_count = VKNN_SPEC_COUNT_LAYER_NORM,
                            .push = &p,
                            .push_size = sizeof(p)};
  uint32_t first = out_list->count;
  s = vknn_row_reduce_lower(graph, &plan, &kernel, op->inputs[IN_X], op->outputs[0], out_list);
  if (s != VKNN_STATUS_NONE) return s;
  /* gamma and beta after the row kernel's three bindings; an omitted one is
   * never read, and the input stands in for it. */
  for (uint32_t d = first; d < out_list->count; ++d) {
    vknn_dispatch_bind(&out_list->items[d], a.has_gamma ? op->inputs[IN_GAMMA] : op->inputs[IN_X],
                       VKNN_ACCESS_READ);
    vknn_dispatch_bind(&out_list->items[d], a.has_beta ? op->inputs[IN_BETA] : op->inputs[IN_X],
                       VKNN_ACCESS_READ);
  }
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_transformer_layer_normalization = {
    VKNN_OPERATION_TRANSFORMER_LAYER_NORMALIZATION, false, validate_layer_norm, infer_layer_norm,
    lower_layer_norm};
