/* CONCATENATION: the inputs side by side along an axis; one copy dispatch per
 * input into its slice of the output, except for the inputs whose producers
 * write their slice themselves (vknn_fuse_concat_slices). Along axis 0 of
 * values whose rows the data decide, one dispatch of
 * shaders/concat_rows.comp places the real rows one after the other and
 * writes the output's count word (docs/architecture.md, "Outputs whose size
 * the data decide"). */
#include <string.h>

#include "model/operand_type.h"
#include "ops/known_dims.h"
#include "ops/slice_copy.h"

#define CONCAT_MAX_RANK 4
#define ROW_CONCAT_MAX_INPUTS 4 /* concat_rows.comp's MAX_INPUTS */

static vknn_status validate_concatenation(const vknn_logger *log, const vknn_model *model,
                                          const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, UINT32_MAX, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *first = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (vknn_variant_of(first->type) < 0) {
    VKNN_LOG_E(log, "model", "CONCATENATION: type %s is not allowed", vknn_operand_type_name(first->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!vknn_op_check_type(log, op, "the output", out, first->type)) return VKNN_STATUS_INVALID_ARGUMENT;
  uint32_t n = op->input_count - 1;
  for (uint32_t i = 0; i < n; ++i) {
    const vknn_operand *in = &sg->operands[op->inputs[i]];
    if (!vknn_op_check_type(log, op, "every input", in, first->type)) return VKNN_STATUS_INVALID_ARGUMENT;
    if (in->dimension_count > CONCAT_MAX_RANK ||
        (in->dimension_count && first->dimension_count && in->dimension_count != first->dimension_count)) {
      VKNN_LOG_E(log, "model", "CONCATENATION: input %u has rank %u (up to %d, all equal)", i,
                 in->dimension_count, CONCAT_MAX_RANK);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  bool ok = vknn_op_check_type(log, op, "axis", &sg->operands[op->inputs[n]], VKNN_OPERAND_INT32);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The axis, in [0, rank) as NNAPI states it (INVALID_ARGUMENT otherwise:
 * unlike other operations' axes, a negative one is not allowed). */
static vknn_status read_axis(vknn_graph *graph, const vknn_operation *op, uint32_t rank,
                             uint32_t *out_axis) {
  int32_t axis;
  if (!vknn_graph_const_i32_list(graph, op, op->input_count - 1, 1, &axis))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (axis < 0 || axis >= (int32_t)rank) {
    VKNN_LOG_E(graph->log, "model", "CONCATENATION: axis %d out of rank %u", axis, rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *out_axis = (uint32_t)axis;
  return VKNN_STATUS_NONE;
}

/* Off the axis, the inputs of rank `rank` agree where their dimensions are
 * known (0: not known yet, ops/known_dims.h); dims gets the known ones. */
static vknn_status check_off_axis(vknn_graph *graph, const vknn_operation *op, uint32_t axis, uint32_t rank,
                                  uint32_t *dims) {
  memset(dims, 0, rank * sizeof(uint32_t));
  for (uint32_t i = 0; i + 1 < op->input_count; ++i) {
    const vknn_tensor *in = &graph->tensors[op->inputs[i]];
    if (in->rank != rank) continue; /* not known yet, or refused once the shapes are */
    for (uint32_t d = 0; d < rank; ++d) {
      if (d != axis && !vknn_dims_agree(in->dims[d], dims[d])) {
        VKNN_LOG_E(graph->log, "model", "CONCATENATION: input %u differs off the axis", i);
        return VKNN_STATUS_INVALID_ARGUMENT;
      }
      if (dims[d] == 0) dims[d] = in->dims[d];
    }
  }
  return VKNN_STATUS_NONE;
}

/* The output's extent along the axis: the inputs' sum once each of them is
 * known, else 0 (not known yet). */
static uint32_t known_axis_sum(const vknn_graph *graph, const vknn_operation *op, uint32_t axis, uint32_t rank) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i + 1 < op->input_count; ++i) {
    const vknn_tensor *in = &graph->tensors[op->inputs[i]];
    if (in->rank != rank || in->dims[axis] == 0) return 0;
    sum += in->dims[axis];
  }
  return sum > UINT32_MAX ? 0 : (uint32_t)sum;
}

/* A constant axis and the dimensions off it are checked against what the
 * model gives (input 0's rank) before the shapes are required, and the
 * declared output against them: a model leaving them to an execution still
 * has them checked at prepare. */
static vknn_status infer_concatenation(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *first = &graph->tensors[op->inputs[0]];
  bool early = first->rank != 0 && graph->tensors[op->inputs[op->input_count - 1]].constant_data != NULL;
  uint32_t axis, dims[VKNN_MAX_RANK];
  vknn_status s = early ? read_axis(graph, op, first->rank, &axis) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE && early) s = check_off_axis(graph, op, axis, first->rank, dims);
  if (s == VKNN_STATUS_NONE && early) {
    dims[axis] = known_axis_sum(graph, op, axis, first->rank);
    s = vknn_op_check_known_output(graph, op, dims, first->rank);
  }
  for (uint32_t i = 0; i + 1 < op->input_count && s == VKNN_STATUS_NONE; ++i) {
    s = vknn_op_require_input_shape(graph, op, i);
    /* Ranks again: a rank the model leaves unknown passed its checks. */
    if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, i, first->rank, first->rank);
    if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, i, 1, CONCAT_MAX_RANK);
  }
  if (s == VKNN_STATUS_NONE && !early) s = read_axis(graph, op, first->rank, &axis);
  if (s == VKNN_STATUS_NONE && !early) s = check_off_axis(graph, op, axis, first->rank, dims);
  if (s != VKNN_STATUS_NONE) return s;
  dims[axis] = 0;
  for (uint32_t i = 0; i + 1 < op->input_count; ++i) dims[axis] += graph->tensors[op->inputs[i]].dims[axis];
  return vknn_op_set_output_shape(graph, op, 0, dims, first->rank);
}

/* Push constants of concat_rows.comp. */
typedef struct row_concat_params {
  uint32_t inner, inputs, planned_rows, count_word;
  uint32_t count_words[ROW_CONCAT_MAX_INPUTS], rows[ROW_CONCAT_MAX_INPUTS];
  float scale_ratio[ROW_CONCAT_MAX_INPUTS];
  int32_t in_zero_point[ROW_CONCAT_MAX_INPUTS];
  uint32_t requantize;
  int32_t out_zero_point;
  float q_min, q_max;
} row_concat_params;
VKNN_PUSH_LAYOUT(concat_rows, row_concat_params);

static vknn_shader_id row_concat_shader(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
    case VKNN_OPERAND_TENSOR_BOOL8: return VKNN_SHADER_CONCAT_ROWS_Q8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM: return VKNN_SHADER_CONCAT_ROWS_Q8S;
    default:
      return vknn_operand_type_element_size(type) == 2 ? VKNN_SHADER_CONCAT_ROWS_RAW16
                                                       : VKNN_SHADER_CONCAT_ROWS_RAW32;
  }
}

/* Input i's part of the push constants: its count word and rows per count,
 * or its fixed rows; its requantization into the output's encoding. */
static void describe_input(const vknn_tensor *in, const vknn_tensor *out, uint32_t i, row_concat_params *p) {
  p->count_words[i] = in->count_slot;
  p->rows[i] = in->count_slot != 0 ? in->rows_per_count : in->dims[0];
  bool requantize = vknn_is_quant8(in->type) && (in->scale != out->scale || in->zero_point != out->zero_point);
  p->scale_ratio[i] = requantize ? in->scale / out->scale : 1.f;
  p->in_zero_point[i] = in->zero_point;
  p->requantize |= (requantize ? 1u : 0u) << i;
}

/* Along axis 0 of values whose rows the data decide: one dispatch over the
 * output's planned rows (the inputs bound first, input 0 again for the
 * missing ones, then the output). */
static vknn_status lower_row_concat(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  uint32_t n = op->input_count - 1;
  if (n > ROW_CONCAT_MAX_INPUTS) {
    VKNN_LOG_E(graph->log, "compilation",
               "CONCATENATION: %u inputs along rows the data decide, at most %u are supported", n,
               ROW_CONCAT_MAX_INPUTS);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint64_t inner = out->dims[0] == 0 ? 0 : vknn_tensor_byte_size(out) / vknn_operand_type_element_size(out->type) /
                                                   out->dims[0];
  row_concat_params p;
  memset(&p, 0, sizeof(p));
  p.inner = (uint32_t)inner;
  p.inputs = n;
  p.planned_rows = out->dims[0];
  p.count_word = out->count_slot;
  p.out_zero_point = out->zero_point;
  p.q_min = (float)vknn_quant_min(out->type);
  p.q_max = (float)vknn_quant_max(out->type);
  for (uint32_t i = 0; i < n; ++i) describe_input(&graph->tensors[op->inputs[i]], out, i, &p);
  vknn_dispatch *d = vknn_op_add_pass(out_list, row_concat_shader(out->type), &p, sizeof(p), 64,
                                      (uint64_t)out->dims[0] * inner);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < ROW_CONCAT_MAX_INPUTS; ++i)
    vknn_dispatch_bind(d, op->inputs[i < n ? i : 0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  return VKNN_STATUS_NONE;
}

static vknn_status lower_concatenation(vknn_graph *graph, const vknn_operation *op,
                                       vknn_dispatch_list *out_list) {
  uint32_t axis;
  const vknn_tensor *out = &graph->tensors[op->outputs[0]];
  vknn_status s = read_axis(graph, op, out->rank, &axis);
  if (s != VKNN_STATUS_NONE) return s;
  if (axis == 0 && out->count_slot != 0) return lower_row_concat(graph, op, out_list);
  vknn_slice slice = {.outer = 1, .inner = 1, .out_axis = out->dims[axis]};
  for (uint32_t d = 0; d < axis; ++d) slice.outer *= out->dims[d];
  for (uint32_t d = axis + 1; d < out->rank; ++d) slice.inner *= out->dims[d];
  uint64_t in_place = graph->fusion[vknn_graph_op_index(graph, op)].inputs_in_place;
  for (uint32_t i = 0; i + 1 < op->input_count; ++i) {
    slice.in_axis = graph->tensors[op->inputs[i]].dims[axis];
    bool written = i < 64 && (in_place >> i & 1u);
    s = written ? VKNN_STATUS_NONE
                : vknn_lower_slice_copy(graph, op->inputs[i], op->outputs[0], &slice, out_list);
    if (s != VKNN_STATUS_NONE) return s;
    slice.axis_offset += slice.in_axis;
  }
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_concatenation = {VKNN_OPERATION_CONCATENATION, false,
                                           validate_concatenation, infer_concatenation,
                                           lower_concatenation};
