/* PAD and PAD_V2: the input surrounded by a constant (0, the zero point for
 * quantized tensors, or PAD_V2's value). Kernel: shaders/remap.comp. */
#include <string.h>

#include "ops/remap.h"
#include "util/float16.h"

static int32_t pad_value_type(int32_t tensor_type) {
  switch (tensor_type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return VKNN_OPERAND_FLOAT32;
    case VKNN_OPERAND_TENSOR_FLOAT16: return VKNN_OPERAND_FLOAT16;
    default: return VKNN_OPERAND_INT32;
  }
}

static vknn_status validate_pad(const vknn_logger *log, const vknn_model *model,
                                const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  bool v2 = op->type == VKNN_OPERATION_PAD_V2;
  uint32_t inputs = v2 ? 3 : 2;
  bool ok = vknn_op_check_counts(log, sg, op, inputs, inputs, 1) &&
            vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_type(log, op, "paddings", &sg->operands[op->inputs[1]], VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "paddings", &sg->operands[op->inputs[1]], 2) &&
            vknn_op_check_same_quant(log, sg, op, 0) &&
            (!v2 || vknn_op_check_type(log, op, "pad value", &sg->operands[op->inputs[2]],
                                       pad_value_type(sg->operands[op->inputs[0]].type)));
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status pad_bits(vknn_graph *graph, const vknn_operation *op, uint32_t *out_bits) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (op->type == VKNN_OPERATION_PAD) {
    *out_bits = vknn_zero_pad_bits(in);
    return VKNN_STATUS_NONE;
  }
  float f;
  int32_t q;
  if (in->type == VKNN_OPERAND_TENSOR_FLOAT32 && vknn_graph_const_float(graph, op->inputs[2], &f))
    memcpy(out_bits, &f, sizeof(f));
  else if (in->type == VKNN_OPERAND_TENSOR_FLOAT16 && vknn_graph_const_float(graph, op->inputs[2], &f))
    *out_bits = vknn_float16_bits(f);
  else if (vknn_is_quant8(in->type) && vknn_graph_const_i32(graph, op->inputs[2], &q))
    *out_bits = (uint32_t)q & 0xffu;
  else {
    VKNN_LOG_E(graph->log, "compilation", "PAD_V2: the pad value must be a constant");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* The paddings tensor is {rank(input0), 2} (checked once its shape is known). */
static vknn_status check_paddings_shape(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *paddings = &graph->tensors[op->inputs[1]];
  uint32_t rank = graph->tensors[op->inputs[0]].rank;
  if (!paddings->shape_known || (paddings->rank == 2 && paddings->dims[0] == rank && paddings->dims[1] == 2))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "%s: paddings must have shape [%u, 2]",
             vknn_operation_type_name(op->type), rank);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Paddings known only at run time: the declared output shape and a map
 * completed on the GPU. */
static vknn_status build_dynamic_pad(vknn_graph *graph, const vknn_operation *op, vknn_remap *r,
                                     uint32_t *dims, uint32_t *rank) {
  uint32_t count = 2 * graph->tensors[op->inputs[0]].rank;
  return vknn_remap_dynamic_identity(graph, op, count, VKNN_REMAP_DYNAMIC_PAD, r, dims, rank);
}

/* The input's shape with each axis padded: an axis whose size is not known
 * yet (0, ops/known_dims.h) stays so, whatever its paddings. */
static void padded_shape(const vknn_tensor *in, const int32_t *paddings, uint32_t *dims) {
  for (uint32_t d = 0; d < in->rank; ++d)
    dims[d] = in->dims[d] == 0 ? 0 : in->dims[d] + (uint32_t)paddings[2 * d] + (uint32_t)paddings[2 * d + 1];
}

/* Constant paddings: [rank, 2] (once the input's rank is known), none
 * negative, each axis padded within a dimension's 32 bits (its size 0 until
 * known). Paddings too long to read while the rank is unknown are checked
 * once it is known, by their shape. The output's shape once the rank is
 * known. */
static vknn_status check_pad(vknn_graph *graph, const vknn_operation *op, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t paddings[2 * VKNN_MAX_RANK];
  uint32_t n;
  vknn_status s = in->rank != 0 ? check_paddings_shape(graph, op) : VKNN_STATUS_NONE;
  if (s != VKNN_STATUS_NONE ||
      !vknn_graph_const_i32_tensor(graph, op->inputs[1], paddings, 2 * VKNN_MAX_RANK, &n))
    return s;
  for (uint32_t d = 0; d < n / 2; ++d) {
    int32_t before = paddings[2 * d], after = paddings[2 * d + 1];
    if (before < 0 || after < 0) {
      VKNN_LOG_E(graph->log, "model", "%s: negative padding", vknn_operation_type_name(op->type));
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    uint64_t size = (uint64_t)(d < in->rank ? in->dims[d] : 0) + (uint64_t)before + (uint64_t)after;
    if (size > UINT32_MAX) {
      VKNN_LOG_E(graph->log, "model", "%s: axis %u padded to %llu elements, more than a dimension holds",
                 vknn_operation_type_name(op->type), d, (unsigned long long)size);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  if (in->rank != 0) padded_shape(in, paddings, dims);
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

/* Constant paddings have passed check_pad. */
static vknn_status build_pad(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                             vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_status s = pad_bits(graph, op, &r->pad_bits);
  if (s == VKNN_STATUS_NONE) s = check_paddings_shape(graph, op);
  if (s != VKNN_STATUS_NONE) return s;
  int32_t paddings[2 * VKNN_MAX_RANK];
  uint32_t n;
  if (!vknn_graph_const_i32_tensor(graph, op->inputs[1], paddings, 2 * VKNN_MAX_RANK, &n))
    return build_dynamic_pad(graph, op, r, dims, rank);
  vknn_remap_set_axes(r, in);
  padded_shape(in, paddings, dims);
  for (uint32_t d = 0; d < in->rank; ++d) {
    r->axes[d].start = -paddings[2 * d];
    vknn_remap_add_view(r, dims[d], d, 1);
  }
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

bool vknn_pad_spatial_amounts(const vknn_graph *graph, const vknn_operation *op, bool nchw,
                              uint32_t out_pad[4]) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t paddings[2 * VKNN_MAX_RANK];
  uint32_t n;
  if (op->type != VKNN_OPERATION_PAD || in->rank != 4 ||
      !vknn_graph_const_i32_tensor(graph, op->inputs[1], paddings, 2 * VKNN_MAX_RANK, &n) || n != 8)
    return false;
  uint32_t h = nchw ? 2 : 1, w = h + 1, c = nchw ? 1 : 3;
  for (int i = 0; i < 8; ++i)
    if (paddings[i] < 0) return false;
  if (paddings[0] || paddings[1] || paddings[2 * c] || paddings[2 * c + 1]) return false;
  out_pad[0] = (uint32_t)paddings[2 * w];
  out_pad[1] = (uint32_t)paddings[2 * w + 1];
  out_pad[2] = (uint32_t)paddings[2 * h];
  out_pad[3] = (uint32_t)paddings[2 * h + 1];
  return true;
}

VKNN_REMAP_OP_DEF(pad, PAD, validate_pad, check_pad, build_pad);
VKNN_REMAP_OP_DEF(pad_v2, PAD_V2, validate_pad, check_pad, build_pad);
