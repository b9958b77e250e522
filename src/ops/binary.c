/* Elementwise binary operations with broadcasting (kernel: shaders/binary.comp):
 * ADD, SUB, MUL, DIV (with a fused activation), MAXIMUM, MINIMUM, POW, PRELU,
 * the comparisons EQUAL ... GREATER_EQUAL and LOGICAL_AND, LOGICAL_OR,
 * LOGICAL_NOT (one input), which write TENSOR_BOOL8. */
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"
#include "util/quant_multiplier.h"

#define BINARY_MAX_RANK 4

/* Allowed input types, as bits. */
enum {
  T_F32 = 1 << 0, T_F16 = 1 << 1, T_I32 = 1 << 2, T_Q8 = 1 << 3, T_Q8S = 1 << 4, T_BOOL = 1 << 5,
  T_FLOAT = T_F32 | T_F16, T_QUANT = T_Q8 | T_Q8S, T_ALL_NUMERIC = T_FLOAT | T_I32 | T_QUANT,
};

typedef struct binary_kind {
  int32_t type;
  uint32_t code;       /* OP of binary.comp */
  uint32_t inputs;     /* 3 when the last one is a fused activation */
  unsigned types;
  bool compare;        /* writes TENSOR_BOOL8 */
} binary_kind;

static const binary_kind kinds[] = {
    {VKNN_OPERATION_ADD, 0, 3, T_ALL_NUMERIC, false},
    {VKNN_OPERATION_SUB, 1, 3, T_ALL_NUMERIC, false},
    {VKNN_OPERATION_MUL, 2, 3, T_ALL_NUMERIC, false},
    {VKNN_OPERATION_DIV, 3, 3, T_FLOAT | T_I32, false},
    {VKNN_OPERATION_MAXIMUM, 4, 2, T_ALL_NUMERIC, false},
    {VKNN_OPERATION_MINIMUM, 5, 2, T_ALL_NUMERIC, false},
    {VKNN_OPERATION_POW, 6, 2, T_FLOAT, false},
    {VKNN_OPERATION_PRELU, 7, 2, T_FLOAT | T_QUANT, false},
    {VKNN_OPERATION_EQUAL, 8, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_NOT_EQUAL, 9, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_LESS, 10, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_LESS_EQUAL, 11, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_GREATER, 12, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_GREATER_EQUAL, 13, 2, T_ALL_NUMERIC | T_BOOL, true},
    {VKNN_OPERATION_LOGICAL_AND, 14, 2, T_BOOL, true},
    {VKNN_OPERATION_LOGICAL_OR, 15, 2, T_BOOL, true},
    {VKNN_OPERATION_LOGICAL_NOT, 16, 1, T_BOOL, true},
};

static const binary_kind *kind_of(int32_t type) {
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    if (kinds[i].type == type) return &kinds[i];
  return NULL;
}

static unsigned type_bit(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return T_F32;
    case VKNN_OPERAND_TENSOR_FLOAT16: return T_F16;
    case VKNN_OPERAND_TENSOR_INT32: return T_I32;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: return T_Q8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: return T_Q8S;
    case VKNN_OPERAND_TENSOR_BOOL8: return T_BOOL;
    default: return 0;
  }
}

/* Push constants of binary.comp, std430 layout. */
typedef struct binary_params {
  uint32_t out_dims[4];
  uint32_t a_strides[4];
  uint32_t b_strides[4];
  uint32_t count;
  float a_scale;
  int32_t a_zero_point;
  float b_scale;
  int32_t b_zero_point;
  float out_scale;
  int32_t out_zero_point;
  float act_min;
  float act_max;
  vknn_quant_multiplier a_multiplier, b_multiplier, out_multiplier;
  int32_t left_shift;
  float post_alpha[VKNN_MAX_POST_OPS];
} binary_params;
VKNN_PUSH_LAYOUT(binary, binary_params);

/* Broadcast shape of a and b (numpy rules, aligned on trailing dimensions).
 * Unknown (0) dimensions stay unknown unless the other side fixes them. */
static bool broadcast_shape(const uint32_t *a, uint32_t ra, const uint32_t *b, uint32_t rb,
                            uint32_t *out, uint32_t *out_rank) {
  uint32_t rank = ra > rb ? ra : rb;
  for (uint32_t i = 0; i < rank; ++i) {
    uint32_t da = i < ra ? a[ra - 1 - i] : 1;
    uint32_t db = i < rb ? b[rb - 1 - i] : 1;
    uint32_t d;
    if (da == db || db == 1) d = da;
    else if (da == 1) d = db;
    else if (da == 0 || db == 0) d = da == 0 ? db : da;
    else return false;
    out[rank - 1 - i] = d;
  }
  *out_rank = rank;
  return true;
}

/* TENSOR_INT32 arithmetic takes no fused activation. */
static bool activation_valid(int32_t activation, int32_t type) {
  return vknn_activation_valid(activation) &&
         (type != VKNN_OPERAND_TENSOR_INT32 || activation == VKNN_FUSED_NONE);
}

static uint32_t second_input(const vknn_operation *op) {
  return op->input_count > 1 ? op->inputs[1] : op->inputs[0];
}

static bool check_signature(const vknn_logger *log, const vknn_model *model,
                            const vknn_subgraph *sg, const vknn_operation *op,
                            const binary_kind *k) {
  const char *name = vknn_operation_type_name(op->type);
  if (!vknn_op_check_counts(log, sg, op, k->inputs, k->inputs, 1)) return false;
  const vknn_operand *a = &sg->operands[op->inputs[0]];
  const vknn_operand *b = &sg->operands[second_input(op)];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  int32_t out_type = k->compare ? VKNN_OPERAND_TENSOR_BOOL8 : a->type;
  if (!(type_bit(a->type) & k->types) || b->type != a->type || out->type != out_type) {
    VKNN_LOG_E(log, "model", "%s: operand types %s, %s -> %s are not allowed", name,
               vknn_operand_type_name(a->type), vknn_operand_type_name(b->type),
               vknn_operand_type_name(out->type));
    return false;
  }
  bool rank_limited = k->inputs == 3; /* NNAPI limits ADD, SUB, MUL, DIV to rank 4 */
  if (rank_limited && (a->dimension_count > BINARY_MAX_RANK || b->dimension_count > BINARY_MAX_RANK ||
                       out->dimension_count > BINARY_MAX_RANK)) {
    VKNN_LOG_E(log, "model", "%s supports tensors of rank up to %d", name, BINARY_MAX_RANK);
    return false;
  }
  if (k->inputs < 3) return true;
  const vknn_operand *act = &sg->operands[op->inputs[2]];
  if (!vknn_op_check_type(log, op, "input 2 (activation)", act, VKNN_OPERAND_INT32)) return false;
  int32_t activation;
  if (act->lifetime == VKNN_LIFETIME_CONSTANT_COPY && act->location.length == sizeof(activation)) {
    memcpy(&activation, model->operand_values + act->location.offset, sizeof(activation));
    if (!activation_valid(activation, a->type)) {
      VKNN_LOG_E(log, "model", "%s: invalid fused activation %d", name, activation);
      return false;
    }
  }
  return true;
}

/* Quantized MUL: NNAPI demands output_scale > input1_scale * input2_scale. */
static bool mul_scales_ok(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op) {
  if (op->type != VKNN_OPERATION_MUL) return true; /* LOGICAL_NOT has no second input to read */
  const vknn_operand *a = &sg->operands[op->inputs[0]];
  const vknn_operand *b = &sg->operands[op->inputs[1]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (!vknn_is_quant8(a->type) || out->scale > a->scale * b->scale) return true;
  VKNN_LOG_E(log, "model", "MUL: output scale %g must exceed the input scales' product %g",
             out->scale, a->scale * b->scale);
  return false;
}

static vknn_status validate_binary(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op) {
  const binary_kind *k = kind_of(op->type);
  if (!check_signature(log, model, sg, op, k) || !mul_scales_ok(log, sg, op))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *a = &sg->operands[op->inputs[0]];
  const vknn_operand *b = &sg->operands[second_input(op)];
  uint32_t dims[VKNN_MAX_RANK], rank;
  if (a->dimension_count > 0 && b->dimension_count > 0 &&
      !broadcast_shape(a->dimensions, a->dimension_count, b->dimensions, b->dimension_count,
                       dims, &rank)) {
    VKNN_LOG_E(log, "model", "%s: input shapes cannot be broadcast together",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The declared activation (NONE for operations without one). */
static vknn_status read_activation(vknn_graph *graph, const vknn_operation *op,
                                   const binary_kind *k, int32_t *out_activation) {
  *out_activation = VKNN_FUSED_NONE;
  if (k->inputs < 3) return VKNN_STATUS_NONE;
  /* Given as a model input: compiled per execution with its value. */
  vknn_status s = vknn_op_require_constant_params(graph, op, 2, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, 2, 1, out_activation)) return VKNN_STATUS_GENERAL_FAILURE;
  if (activation_valid(*out_activation, graph->tensors[op->inputs[0]].type)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: invalid fused activation %d",
             vknn_operation_type_name(op->type), *out_activation);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static bool same_shape(const vknn_tensor *a, const vknn_tensor *b) {
  return a->rank == b->rank && memcmp(a->dims, b->dims, a->rank * sizeof(uint32_t)) == 0;
}

/* The fixed-point multipliers of quantized arithmetic (binary.comp), with
 * the scales combined as the NNAPI reference combines them. */
static bool quantized_multipliers(int32_t op_type, float sa, float sb, float so,
                                  binary_params *p) {
  if (op_type == VKNN_OPERATION_ADD || op_type == VKNN_OPERATION_SUB) {
    vknn_add_multipliers m;
    if (!vknn_add_multipliers_for(sa, sb, so, &m)) return false;
    if (op_type == VKNN_OPERATION_SUB) m.b.multiplier = -m.b.multiplier;
    p->a_multiplier = m.a, p->b_multiplier = m.b, p->out_multiplier = m.out;
    p->left_shift = VKNN_ADD_LEFT_SHIFT;
    return true;
  }
  float product = sa * sb;
  if (op_type == VKNN_OPERATION_MUL) return vknn_quantize_multiplier((double)product / so, &p->out_multiplier);
  if (op_type == VKNN_OPERATION_PRELU)
    return vknn_quantize_multiplier(sa / so, &p->a_multiplier) &&
           vknn_quantize_multiplier((double)product / so, &p->out_multiplier);
  return true; /* MAXIMUM, MINIMUM requantize with the scales themselves */
}

/* Quantized arithmetic needs multipliers the kernel can apply. */
static vknn_status check_multipliers(const vknn_graph *graph, const vknn_operation *op,
                                     binary_params *p) {
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[second_input(op)];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  if (kind_of(op->type)->compare || !vknn_is_quant8(a->type) ||
      quantized_multipliers(op->type, a->scale, b->scale, out->scale, p))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "compilation", "%s: the quantization scales give no usable multiplier",
             vknn_operation_type_name(op->type));
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Before an execution gives the inputs' shapes: the declared output agrees
 * with the broadcast of their known dimensions (broadcast_shape takes 0 as
 * not known yet), where both ranks are given. */
static vknn_status check_known_output(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[second_input(op)];
  uint32_t dims[VKNN_MAX_RANK], rank;
  if ((a->shape_known && b->shape_known) || a->rank == 0 || b->rank == 0 ||
      !broadcast_shape(a->dims, a->rank, b->dims, b->rank, dims, &rank))
    return VKNN_STATUS_NONE; /* decided once the shapes are known */
  return vknn_op_check_known_output(graph, op, dims, rank);
}

/* Output shape: broadcast of the inputs, merged with what the model declares. */
static vknn_status infer_binary(vknn_graph *graph, const vknn_operation *op) {
  int32_t activation;
  binary_params unused;
  vknn_status s = read_activation(graph, op, kind_of(op->type), &activation);
  if (s == VKNN_STATUS_NONE) s = check_multipliers(graph, op, &unused);
  if (s == VKNN_STATUS_NONE) s = check_known_output(graph, op);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE && op->input_count > 1) s = vknn_op_require_input_shape(graph, op, 1);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[second_input(op)];
  uint32_t dims[VKNN_MAX_RANK], rank;
  const char *name = vknn_operation_type_name(op->type);
  /* The shapes known here may be an execution's: the model's checks saw
   * unknown ranks and dimensions as agreeing with anything. */
  if (!broadcast_shape(a->dims, a->rank, b->dims, b->rank, dims, &rank)) {
    VKNN_LOG_E(graph->log, "model", "%s: input shapes cannot be broadcast together", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (kind_of(op->type)->inputs == 3 && rank > BINARY_MAX_RANK) {
    VKNN_LOG_E(graph->log, "model", "%s supports tensors of rank up to %d", name, BINARY_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (rank > BINARY_MAX_RANK && !same_shape(a, b)) {
    VKNN_LOG_E(graph->log, "compilation", "%s: broadcasting beyond rank %d is not supported",
               vknn_operation_type_name(op->type), BINARY_MAX_RANK);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return vknn_op_set_output_shape(graph, op, 0, dims, rank);
}

/* Element strides of an input for each of the 4 right-aligned output
 * dimensions; 0 where the input is broadcast. */
static void broadcast_strides(const vknn_tensor *in, uint32_t strides[4]) {
  uint32_t stride = 1;
  memset(strides, 0, 4 * sizeof(uint32_t));
  for (uint32_t i = 0; i < in->rank; ++i) {
    uint32_t dim = in->dims[in->rank - 1 - i];
    strides[3 - i] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

static vknn_shader_id shader_for(int32_t type, bool compare) {
  static const vknn_shader_id arith[] = {VKNN_SHADER_BINARY_ARITH_F32, VKNN_SHADER_BINARY_ARITH_F16,
                                         VKNN_SHADER_BINARY_ARITH_Q8, VKNN_SHADER_BINARY_ARITH_Q8S};
  static const vknn_shader_id cmp[] = {VKNN_SHADER_BINARY_COMPARE_F32, VKNN_SHADER_BINARY_COMPARE_F16,
                                       VKNN_SHADER_BINARY_COMPARE_Q8, VKNN_SHADER_BINARY_COMPARE_Q8S};
  if (type == VKNN_OPERAND_TENSOR_INT32)
    return compare ? VKNN_SHADER_BINARY_COMPARE_I32 : VKNN_SHADER_BINARY_ARITH_I32;
  if (type == VKNN_OPERAND_TENSOR_BOOL8) return VKNN_SHADER_BINARY_COMPARE_Q8;
  return compare ? cmp[vknn_variant_of(type)] : arith[vknn_variant_of(type)];
}

/* Float arithmetic on inputs of the output's shape, in whole vec4s: the
 * FLAT4 variants (four elements an invocation, no index arithmetic). */
static bool runs_flat4(const vknn_tensor *a, const vknn_tensor *b, const vknn_tensor *out,
                       bool compare, uint64_t count) {
  bool float_type = a->type == VKNN_OPERAND_TENSOR_FLOAT32 ||
                    a->type == VKNN_OPERAND_TENSOR_FLOAT16;
  return float_type && !compare && count % 4 == 0 && same_shape(a, b) && same_shape(a, out);
}

static vknn_shader_id flat4_shader(const vknn_graph *graph, int32_t type, uint64_t count) {
  bool f16 = type == VKNN_OPERAND_TENSOR_FLOAT16;
  if (graph->kernels.texel_reads && count / 4 <= graph->kernels.max_texel_elements)
    return f16 ? VKNN_SHADER_BINARY_ARITH_F16_FLAT4_TEXEL : VKNN_SHADER_BINARY_ARITH_F32_FLAT4_TEXEL;
  return f16 ? VKNN_SHADER_BINARY_ARITH_F16_FLAT4 : VKNN_SHADER_BINARY_ARITH_F32_FLAT4;
}

/* Binds the two inputs as the kernel reads them: texels of four elements
 * for the FLAT4 texel variants, storage buffers otherwise. */
static void bind_inputs(vknn_dispatch *d, const vknn_operation *op, int32_t type) {
  if (!(vknn_embedded_shaders[d->shader].texel_bindings & 1u)) {
    vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, second_input(op), VKNN_ACCESS_READ);
    return;
  }
  vknn_texel_format f = type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_TEXEL_F16X4 : VKNN_TEXEL_F32X4;
  vknn_dispatch_bind_texel(d, op->inputs[0], f);
  vknn_dispatch_bind_texel(d, second_input(op), f);
}

/* Booleans are compared as the codes 0 and 1. */
static float value_scale(const vknn_tensor *t) {
  return t->type == VKNN_OPERAND_TENSOR_BOOL8 ? 1.f : t->scale;
}

static vknn_status lower_binary(vknn_graph *graph, const vknn_operation *op,
                                vknn_dispatch_list *out_list) {
  const binary_kind *k = kind_of(op->type);
  const vknn_tensor *a = &graph->tensors[op->inputs[0]];
  const vknn_tensor *b = &graph->tensors[second_input(op)];
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  const vknn_tensor *out = &graph->tensors[out_index];
  int32_t activation;
  vknn_status s = read_activation(graph, op, k, &activation);
  if (s != VKNN_STATUS_NONE) return s;
  binary_params p = {.a_scale = value_scale(a), .a_zero_point = a->zero_point,
                     .b_scale = value_scale(b), .b_zero_point = b->zero_point,
                     .out_scale = out->scale, .out_zero_point = out->zero_point};
  p.count = (uint32_t)vknn_shape_element_count(out->dims, out->rank);
  if (out->rank > 4) { /* equal shapes (infer checked): one flat dimension */
    p.out_dims[0] = p.out_dims[1] = p.out_dims[2] = 1;
    p.out_dims[3] = p.count;
    p.a_strides[3] = p.b_strides[3] = 1;
  } else {
    for (uint32_t i = 0; i < 4; ++i)
      p.out_dims[i] = i + out->rank >= 4 ? out->dims[i + out->rank - 4] : 1;
    broadcast_strides(a, p.a_strides);
    broadcast_strides(b, p.b_strides);
  }
  if (!k->compare) vknn_op_activation_bounds(graph, op, activation, &p.act_min, &p.act_max);
  s = check_multipliers(graph, op, &p);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool flat4 = runs_flat4(a, b, out, k->compare, p.count);
  d->shader = flat4 ? flat4_shader(graph, a->type, p.count) : shader_for(a->type, k->compare);
  d->spec[VKNN_SPEC_BINARY_OP] = k->code;
  vknn_op_set_post_ops(graph, op, d, p.post_alpha);
  bind_inputs(d, op, a->type);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = flat4 ? p.count / 4 : p.count;
  return VKNN_STATUS_NONE;
}

/* Float arithmetic (not comparisons) can end with a fused unary chain. */
bool vknn_binary_hosts_post_ops(const vknn_graph *graph, const vknn_operation *op) {
  const binary_kind *k = kind_of(op->type);
  return k != NULL && !k->compare && vknn_is_float_tensor(graph->tensors[op->inputs[0]].type);
}

#define BINARY_DEF(name, TYPE, fuses)                                                         \
  const vknn_op_def vknn_op_##name = {VKNN_OPERATION_##TYPE, fuses, validate_binary, infer_binary, \
                                      lower_binary}
BINARY_DEF(add, ADD, true);
BINARY_DEF(sub, SUB, true);
BINARY_DEF(mul, MUL, true);
BINARY_DEF(div, DIV, true);
BINARY_DEF(maximum, MAXIMUM, false);
BINARY_DEF(minimum, MINIMUM, false);
BINARY_DEF(pow, POW, false);
BINARY_DEF(prelu, PRELU, false);
BINARY_DEF(equal, EQUAL, false);
BINARY_DEF(not_equal, NOT_EQUAL, false);
BINARY_DEF(less, LESS, false);
BINARY_DEF(less_equal, LESS_EQUAL, false);
BINARY_DEF(greater, GREATER, false);
BINARY_DEF(greater_equal, GREATER_EQUAL, false);
BINARY_DEF(logical_and, LOGICAL_AND, false);
BINARY_DEF(logical_or, LOGICAL_OR, false);
BINARY_DEF(logical_not, LOGICAL_NOT, false);
