/* Elementwise unary operations (kernel: shaders/activation.comp): RELU, RELU1,
 * RELU6, LOGISTIC, TANH, HARD_SWISH (float and quantized), ABS, NEG (also
 * int32), EXP, LOG, SIN, SQRT, RSQRT, FLOOR, ELU (float), and GELU of the
 * extension org.vknn.transformer (float; its form, exact or tanh, a BOOL). A RELU family
 * operation right after an operation with a fused activation usually
 * disappears into it (fusion.c). */
#include <math.h>
#include <string.h>

#include "model/extension.h"
#include "ops/op_common.h"
#include "model/operand_type.h"
#include "util/quant_multiplier.h"

enum { T_FLOAT = 1, T_QUANT = 2, T_I32 = 4 };
enum { GELU_EXACT = 13, GELU_TANH = 14 }; /* unary_math.glsl */

typedef struct unary_kind {
  int32_t type;
  uint32_t code;      /* OP of activation.comp */
  unsigned types;
  uint32_t max_rank;  /* 0: any */
  int32_t clamp;      /* RELU family: the activation code whose bounds apply, else -1 */
} unary_kind;

static const unary_kind kinds[] = {
    {VKNN_OPERATION_RELU, 0, T_FLOAT | T_QUANT, 4, VKNN_FUSED_RELU},
    {VKNN_OPERATION_RELU1, 0, T_FLOAT | T_QUANT, 4, VKNN_FUSED_RELU1},
    {VKNN_OPERATION_RELU6, 0, T_FLOAT | T_QUANT, 4, VKNN_FUSED_RELU6},
    {VKNN_OPERATION_LOGISTIC, 1, T_FLOAT | T_QUANT, 4, -1},
    {VKNN_OPERATION_TANH, 2, T_FLOAT | T_QUANT, 4, -1},
    {VKNN_OPERATION_ABS, 3, T_FLOAT | T_I32, 0, -1},
    {VKNN_OPERATION_EXP, 4, T_FLOAT, 0, -1},
    {VKNN_OPERATION_LOG, 5, T_FLOAT, 0, -1},
    {VKNN_OPERATION_SIN, 6, T_FLOAT, 0, -1},
    {VKNN_OPERATION_SQRT, 7, T_FLOAT, 0, -1},
    {VKNN_OPERATION_RSQRT, 8, T_FLOAT, 0, -1},
    {VKNN_OPERATION_NEG, 9, T_FLOAT | T_I32, 0, -1},
    {VKNN_OPERATION_FLOOR, 10, T_FLOAT, 4, -1},
    {VKNN_OPERATION_ELU, 11, T_FLOAT, 0, -1},
    {VKNN_OPERATION_HARD_SWISH, 12, T_FLOAT | T_QUANT, 0, -1},
    {VKNN_OPERATION_TRANSFORMER_GELU, GELU_EXACT, T_FLOAT, 0, -1},
};

/* The kind of a model's operation (extension types decoded). */
static const unary_kind *kind_of(const vknn_model *model, int32_t type) {
  int32_t canonical = vknn_model_operation_type(model, type);
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    if (kinds[i].type == canonical) return &kinds[i];
  return NULL;
}

/* GELU: approximate (input 1), a BOOL. */
static bool check_gelu_form(const vknn_logger *log, const vknn_subgraph *sg,
                            const vknn_operation *op) {
  return vknn_op_check_type(log, op, "approximate", &sg->operands[op->inputs[1]], VKNN_OPERAND_BOOL);
}

static unsigned type_bit(int32_t type) {
  if (vknn_is_float_tensor(type)) return T_FLOAT;
  if (vknn_is_quant8(type)) return T_QUANT;
  return type == VKNN_OPERAND_TENSOR_INT32 ? T_I32 : 0;
}

/* The fixed output encoding NNAPI demands of quantized LOGISTIC and TANH. */
static bool quant_output_ok(int32_t op_type, const vknn_operand *out) {
  bool is_signed = out->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED;
  if (op_type == VKNN_OPERATION_LOGISTIC)
    return out->scale == 1.f / 256 && out->zero_point == (is_signed ? -128 : 0);
  if (op_type == VKNN_OPERATION_TANH)
    return out->scale == 1.f / 128 && out->zero_point == (is_signed ? 0 : 128);
  return true;
}

static vknn_status validate_unary(const vknn_logger *log, const vknn_model *model,
                                  const vknn_subgraph *sg, const vknn_operation *op) {
  const unary_kind *k = kind_of(model, op->type);
  bool gelu = k->type == VKNN_OPERATION_TRANSFORMER_GELU;
  uint32_t inputs = op->type == VKNN_OPERATION_ELU || gelu ? 2 : 1;
  if (!vknn_op_check_counts(log, sg, op, inputs, inputs, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  const char *name = gelu ? "GELU" : vknn_operation_type_name(op->type);
  if (!(type_bit(in->type) & k->types) || out->type != in->type ||
      (k->max_rank && in->dimension_count > k->max_rank)) {
    VKNN_LOG_E(log, "model", "%s: %s of rank %u is not allowed", name, vknn_operand_type_name(in->type),
               in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (vknn_is_quant8(in->type) && !quant_output_ok(op->type, out)) {
    VKNN_LOG_E(log, "model", "%s: wrong quantized output scale or zero point", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* The RELU family clamps codes: NNAPI keeps the input's encoding. */
  if (k->clamp >= 0 && !vknn_op_check_same_quant(log, sg, op, 0)) return VKNN_STATUS_INVALID_ARGUMENT;
  if (gelu && !check_gelu_form(log, sg, op)) return VKNN_STATUS_INVALID_ARGUMENT;
  if (op->type == VKNN_OPERATION_ELU) {
    int32_t alpha_type = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
    if (!vknn_op_check_type(log, op, "alpha", &sg->operands[op->inputs[1]], alpha_type))
      return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status read_alpha(const vknn_graph *graph, const vknn_operation *op, float *alpha) {
  *alpha = 0.f;
  if (op->type != VKNN_OPERATION_ELU || vknn_graph_const_float(graph, op->inputs[1], alpha))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "compilation", "ELU: alpha must be a constant");
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Push constants of activation.comp, std430 layout. */
typedef struct unary_params {
  uint32_t count;
  float in_scale;
  int32_t in_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float lo, hi;
  float alpha;
  int32_t reluish_multiplier, reluish_exponent;
  int32_t output_multiplier, output_exponent;
  float post_alpha[VKNN_MAX_POST_OPS];
} unary_params;
VKNN_PUSH_LAYOUT(activation, unary_params);

/* A multiplier's mantissa rounded to its top 16 bits, saturating. */
static int32_t mantissa_16(int32_t mantissa) {
  const int32_t rounding = 1 << 15;
  if (mantissa >= INT32_MAX - rounding) return INT16_MAX;
  return (mantissa + rounding) >> 16;
}

/* Quantized HARD_SWISH's multipliers, with the scales combined in single
 * precision as the NNAPI reference combines them. */
static bool hard_swish_multipliers(float in_scale, float out_scale, unary_params *p) {
  float hires_scale = (1.f / 128.f) * in_scale;
  float reluish_scale = 3.f / 32768.f;
  vknn_quant_multiplier to_output, to_reluish;
  if (!vknn_quantize_multiplier(hires_scale / out_scale, &to_output) || to_output.shift > 0 ||
      !vknn_quantize_multiplier(hires_scale / reluish_scale, &to_reluish))
    return false;
  p->output_multiplier = mantissa_16(to_output.multiplier);
  p->output_exponent = to_output.shift;
  p->reluish_multiplier = mantissa_16(to_reluish.multiplier);
  p->reluish_exponent = to_reluish.shift;
  return true;
}

static vknn_status check_multipliers(const vknn_graph *graph, const vknn_operation *op,
                                     unary_params *p) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  if (op->type != VKNN_OPERATION_HARD_SWISH || !vknn_is_quant8(in->type) ||
      hard_swish_multipliers(in->scale, out->scale, p))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "compilation", "HARD_SWISH: the scales give no usable multiplier");
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* The kernel's OP: the kind's, or GELU's form from its constant BOOL. */
static vknn_status unary_code(const vknn_graph *graph, const vknn_operation *op,
                              uint32_t *out_code) {
  const unary_kind *k = kind_of(graph->model, op->type);
  *out_code = k->code;
  if (k->type != VKNN_OPERATION_TRANSFORMER_GELU) return VKNN_STATUS_NONE;
  bool approximate;
  if (!vknn_graph_const_bool(graph, op->inputs[1], &approximate)) {
    VKNN_LOG_E(graph->log, "compilation", "GELU: approximate must be a constant");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *out_code = approximate ? GELU_TANH : GELU_EXACT;
  return VKNN_STATUS_NONE;
}

static vknn_status infer_unary(vknn_graph *graph, const vknn_operation *op) {
  unary_params unused;
  uint32_t code;
  vknn_status s = vknn_op_require_output_like_input(graph, op, 0);
  /* GELU's form: a model input is known per execution (specialization). */
  if (s == VKNN_STATUS_NONE && kind_of(graph->model, op->type)->type == VKNN_OPERATION_TRANSFORMER_GELU)
    s = vknn_op_require_constant_params(graph, op, 1, 1);
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  uint32_t max_rank = kind_of(graph->model, op->type)->max_rank;
  if (s == VKNN_STATUS_NONE && max_rank != 0) s = vknn_op_check_known_rank(graph, op, 0, 0, max_rank);
  if (s == VKNN_STATUS_NONE) s = unary_code(graph, op, &code);
  if (s == VKNN_STATUS_NONE) s = read_alpha(graph, op, &unused.alpha);
  if (s == VKNN_STATUS_NONE) s = check_multipliers(graph, op, &unused);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  return vknn_op_set_output_shape(graph, op, 0, in->dims, in->rank);
}

static vknn_shader_id shader_for(int32_t type) {
  static const vknn_shader_id shaders[] = {VKNN_SHADER_ACTIVATION_F32, VKNN_SHADER_ACTIVATION_F16,
                                           VKNN_SHADER_ACTIVATION_Q8, VKNN_SHADER_ACTIVATION_Q8S};
  return type == VKNN_OPERAND_TENSOR_INT32 ? VKNN_SHADER_ACTIVATION_I32 : shaders[vknn_variant_of(type)];
}

static vknn_status lower_unary(vknn_graph *graph, const vknn_operation *op,
                               vknn_dispatch_list *out_list) {
  const unary_kind *k = kind_of(graph->model, op->type);
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[out_index];
  unary_params p = {.count = (uint32_t)vknn_shape_element_count(in->dims, in->rank),
                    .in_scale = in->scale, .in_zero_point = in->zero_point,
                    .out_scale = out->scale, .out_zero_point = out->zero_point};
  uint32_t code;
  vknn_status s = unary_code(graph, op, &code);
  if (s == VKNN_STATUS_NONE) s = read_alpha(graph, op, &p.alpha);
  if (s == VKNN_STATUS_NONE) s = check_multipliers(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_activation_bounds(k->clamp >= 0 ? k->clamp : VKNN_FUSED_NONE, out, &p.lo, &p.hi);
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shader_for(in->type);
  d->spec[VKNN_SPEC_ACTIVATION_OP] = code;
  vknn_op_set_post_ops(graph, op, d, p.post_alpha);
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = p.count;
  return VKNN_STATUS_NONE;
}

bool vknn_unary_hosts_post_ops(const vknn_graph *graph, const vknn_operation *op) {
  return kind_of(graph->model, op->type) != NULL &&
         vknn_is_float_tensor(graph->tensors[op->inputs[0]].type);
}

/* The RELU family stays out: fusion.c merges it into clamps instead. */
bool vknn_unary_as_post_op(const vknn_graph *graph, const vknn_operation *op, uint32_t *out_code,
                           float *out_alpha) {
  const unary_kind *k = kind_of(graph->model, op->type);
  if (k == NULL || k->clamp >= 0 || !vknn_is_float_tensor(graph->tensors[op->inputs[0]].type)) return false;
  return unary_code(graph, op, out_code) == VKNN_STATUS_NONE &&
         read_alpha(graph, op, out_alpha) == VKNN_STATUS_NONE;
}

#define UNARY_DEF(name, TYPE) \
  const vknn_op_def vknn_op_##name = {VKNN_OPERATION_##TYPE, false, validate_unary, infer_unary, lower_unary}
UNARY_DEF(relu, RELU);
UNARY_DEF(relu1, RELU1);
UNARY_DEF(relu6, RELU6);
UNARY_DEF(logistic, LOGISTIC);
UNARY_DEF(tanh, TANH);
UNARY_DEF(abs, ABS);
UNARY_DEF(exp, EXP);
UNARY_DEF(log, LOG);
UNARY_DEF(sin, SIN);
UNARY_DEF(sqrt, SQRT);
UNARY_DEF(rsqrt, RSQRT);
UNARY_DEF(neg, NEG);
UNARY_DEF(floor, FLOOR);
UNARY_DEF(elu, ELU);
UNARY_DEF(hard_swish, HARD_SWISH);
UNARY_DEF(transformer_gelu, TRANSFORMER_GELU);
