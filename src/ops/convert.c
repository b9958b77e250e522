/* CAST, QUANTIZE, DEQUANTIZE: element type conversions.
 * Kernel: shaders/convert.comp, specialized by input and output kind. */
#include <stdlib.h>
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"
#include "ops/typed_kind.h"
#include "util/fault_injection.h"

enum { MODE_CAST = 0, MODE_QUANTIZE = 1, MODE_DEQUANTIZE = 2 };

vknn_elem_kind vknn_elem_kind_of(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return VKNN_KIND_F32;
    case VKNN_OPERAND_TENSOR_FLOAT16: return VKNN_KIND_F16;
    case VKNN_OPERAND_TENSOR_INT32: return VKNN_KIND_I32;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_BOOL8: return VKNN_KIND_U8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL: return VKNN_KIND_I8;
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: return VKNN_KIND_U16;
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: return VKNN_KIND_I16;
    default: return VKNN_KIND_NONE;
  }
}

void vknn_elem_kind_range(vknn_elem_kind kind, int32_t *lo, int32_t *hi) {
  switch (kind) {
    case VKNN_KIND_U8: *lo = 0; *hi = 255; return;
    case VKNN_KIND_I8: *lo = -128; *hi = 127; return;
    case VKNN_KIND_U16: *lo = 0; *hi = 65535; return;
    case VKNN_KIND_I16: *lo = -32768; *hi = 32767; return;
    default: *lo = INT32_MIN; *hi = INT32_MAX; return;
  }
}

static bool is_numeric(int32_t type) {
  return type == VKNN_OPERAND_TENSOR_FLOAT32 || type == VKNN_OPERAND_TENSOR_FLOAT16 ||
         type == VKNN_OPERAND_TENSOR_INT32 || type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM;
}

/* CAST converts among float32, float16, int32 and quant8 (as integers);
 * the other types only to themselves, but for per-channel quantization,
 * which NNAPI does not list. */
static bool types_allowed(int32_t op_type, int32_t in, int32_t out) {
  switch (op_type) {
    case VKNN_OPERATION_CAST:
      return (is_numeric(in) && is_numeric(out)) ||
             (in == out && vknn_elem_kind_of(in) != VKNN_KIND_NONE &&
              in != VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL);
    case VKNN_OPERATION_QUANTIZE:
      return vknn_is_float_tensor(in) && vknn_is_quant8(out);
    default: /* DEQUANTIZE */
      return vknn_is_float_tensor(out) && (vknn_is_quant8(in) || in == VKNN_OPERAND_TENSOR_QUANT8_SYMM ||
                               in == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL);
  }
}

static vknn_status validate_convert(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 1, 1, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (!types_allowed(op->type, in->type, out->type)) {
    VKNN_LOG_E(log, "model", "%s: %s -> %s is not allowed", vknn_operation_type_name(op->type),
               vknn_operand_type_name(in->type), vknn_operand_type_name(out->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (op->type == VKNN_OPERATION_DEQUANTIZE && in->dimension_count > 4) {
    VKNN_LOG_E(log, "model", "DEQUANTIZE: rank %u is above 4", in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_convert(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = vknn_op_require_output_like_input(graph, op, 0);
  /* DEQUANTIZE's rank again: a rank the model leaves unknown passed validation. */
  if (s == VKNN_STATUS_NONE && op->type == VKNN_OPERATION_DEQUANTIZE)
    s = vknn_op_check_known_rank(graph, op, 0, 0, 4);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  return vknn_op_set_output_shape(graph, op, 0, in->dims, in->rank);
}

/* Push constants of convert.comp, std430 layout. */
typedef struct convert_params {
  uint32_t count;
  float scale;
  int32_t zero_point;
  int32_t lo, hi;
  uint32_t inner, channels;
} convert_params;
VKNN_PUSH_LAYOUT(convert, convert_params);

/* Dequantization scales: the channel scales of a per-channel tensor, else one. */
static uint32_t add_scales(vknn_graph *graph, const vknn_operation *op, convert_params *p) {
  const vknn_operand *in = &graph->sg->operands[op->inputs[0]];
  const vknn_tensor *t = &graph->tensors[op->inputs[0]];
  uint32_t count = 1;
  p->inner = 1;
  p->channels = 1;
  if (in->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    uint32_t dim = in->extra_params.channel_quant.channel_dim;
    count = p->channels = in->extra_params.channel_quant.scale_count;
    for (uint32_t d = dim + 1; d < t->rank; ++d) p->inner *= t->dims[d];
  }
  float *scales = vknn_malloc(count * sizeof(float));
  if (scales == NULL) return UINT32_MAX;
  if (in->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL)
    memcpy(scales, in->extra_params.channel_quant.scales, count * sizeof(float));
  else
    scales[0] = t->scale;
  return vknn_graph_add_constant(graph, VKNN_OPERAND_TENSOR_FLOAT32, &count, 1, scales);
}

static vknn_status lower_convert(vknn_graph *graph, const vknn_operation *op,
                                 vknn_dispatch_list *out_list) {
  int mode = op->type == VKNN_OPERATION_QUANTIZE     ? MODE_QUANTIZE
             : op->type == VKNN_OPERATION_DEQUANTIZE ? MODE_DEQUANTIZE
                                                     : MODE_CAST;
  convert_params p = {0};
  uint32_t scales = add_scales(graph, op, &p);
  if (scales == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  vknn_elem_kind in_kind = vknn_elem_kind_of(in->type), out_kind = vknn_elem_kind_of(out->type);
  p.count = (uint32_t)vknn_shape_element_count(in->dims, in->rank);
  p.scale = out->scale;
  p.zero_point = mode == MODE_DEQUANTIZE ? in->zero_point : out->zero_point;
  vknn_elem_kind_range(out_kind, &p.lo, &p.hi);
  /* The largest float below 2^31: a float input clamps to what int32 holds. */
  if (out_kind == VKNN_KIND_I32 && in_kind <= VKNN_KIND_F16) p.hi = 2147483520;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = VKNN_SHADER_CONVERT;
  d->spec[VKNN_SPEC_CONVERT_MODE] = (uint32_t)mode;
  d->spec[VKNN_SPEC_CONVERT_IN_KIND] = (uint32_t)in_kind;
  d->spec[VKNN_SPEC_CONVERT_OUT_KIND] = (uint32_t)out_kind;
  d->spec_count = VKNN_SPEC_COUNT_CONVERT;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, scales, VKNN_ACCESS_READ);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = p.count;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_cast = {VKNN_OPERATION_CAST, false, validate_convert, infer_convert,
                                  lower_convert};
const vknn_op_def vknn_op_quantize = {VKNN_OPERATION_QUANTIZE, false, validate_convert,
                                      infer_convert, lower_convert};
const vknn_op_def vknn_op_dequantize = {VKNN_OPERATION_DEQUANTIZE, false, validate_convert,
                                        infer_convert, lower_convert};
