/* Operations reading a value whose rows the data decide (BOX_WITH_NMS_LIMIT's
 * and GENERATE_PROPOSALS' outputs, and what row-wise operations make of
 * them). Such a value is planned at its largest rows; the rows past the real
 * ones hold harmless values (its producer writes them: zero boxes, batch 0),
 * so an operation that treats each row apart may run over all of them, and
 * its output's real rows are the input's: the same count word tells them.
 * CONCATENATION along the rows places the real rows one after the other on
 * the GPU and writes a count word of its own (their sum). Anything else that
 * mixes rows (an axis 0 reduction or softmax, a transpose moving them) would
 * read rows past the real end as data: it is reported unsupported. */
#include "compiler/dynamic_rows.h"

#include <string.h>

#include "model/extension.h"
#include "ops/op_common.h"

#define MAX_DYNAMIC_OUTPUTS 4

static bool is_type(int32_t type, const int32_t *types, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (types[i] == type) return true;
  return false;
}

static const int32_t kElementwise[] = {
    VKNN_OPERATION_RELU,     VKNN_OPERATION_RELU1,      VKNN_OPERATION_RELU6,    VKNN_OPERATION_LOGISTIC,
    VKNN_OPERATION_TANH,     VKNN_OPERATION_QUANTIZE,   VKNN_OPERATION_DEQUANTIZE, VKNN_OPERATION_CAST,
    VKNN_OPERATION_ABS,      VKNN_OPERATION_NEG,        VKNN_OPERATION_EXP,      VKNN_OPERATION_LOG,
    VKNN_OPERATION_SQRT,     VKNN_OPERATION_RSQRT,      VKNN_OPERATION_SIN,      VKNN_OPERATION_FLOOR,
    VKNN_OPERATION_ELU,      VKNN_OPERATION_HARD_SWISH,
};
static const int32_t kBroadcast[] = {VKNN_OPERATION_ADD,     VKNN_OPERATION_SUB,     VKNN_OPERATION_MUL,
                                     VKNN_OPERATION_DIV,     VKNN_OPERATION_MAXIMUM, VKNN_OPERATION_MINIMUM,
                                     VKNN_OPERATION_POW,     VKNN_OPERATION_PRELU};
/* Batch-major in either layout: the rows are the batches. */
static const int32_t kPerBatch[] = {
    VKNN_OPERATION_CONV_2D,          VKNN_OPERATION_DEPTHWISE_CONV_2D,     VKNN_OPERATION_GROUPED_CONV_2D,
    VKNN_OPERATION_AVERAGE_POOL_2D,  VKNN_OPERATION_MAX_POOL_2D,           VKNN_OPERATION_L2_POOL_2D,
    VKNN_OPERATION_RESIZE_BILINEAR,  VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR, VKNN_OPERATION_FULLY_CONNECTED,
    VKNN_OPERATION_DEPTH_TO_SPACE,   VKNN_OPERATION_SPACE_TO_DEPTH,        VKNN_OPERATION_TRANSPOSE_CONV_2D,
};
#define COUNT_OF(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const vknn_tensor *input_tensor(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  return op->inputs[i] < graph->tensor_count ? &graph->tensors[op->inputs[i]] : NULL;
}

static bool is_dynamic(const vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  const vknn_tensor *t = input_tensor(graph, op, i);
  return t != NULL && t->count_slot != 0;
}

/* Every input reading rows the data decide lies in mask (a bit per input). */
static bool dynamic_only_in(const vknn_graph *graph, const vknn_operation *op, uint32_t mask) {
  for (uint32_t i = 0; i < op->input_count; ++i)
    if (is_dynamic(graph, op, i) && (i >= 32 || !(mask >> i & 1u))) return false;
  return true;
}

/* An axis parameter (negative counts from the end; default when absent)
 * that is not the rows' axis. */
static bool axis_not_rows(const vknn_graph *graph, const vknn_operation *op, uint32_t input, uint32_t rank,
                          int32_t fallback) {
  int32_t axis = fallback;
  if (input < op->input_count && !vknn_graph_omitted(graph, op->inputs[input]) &&
      !vknn_graph_const_i32(graph, op->inputs[input], &axis))
    return false;
  if (axis < 0) axis += (int32_t)rank;
  return axis != 0;
}

/* A broadcast operand that is not the rows' own: fewer dimensions, or one row. */
static bool broadcasts_over_rows(const vknn_graph *graph, const vknn_operation *op, uint32_t rank) {
  for (uint32_t i = 0; i < 2 && i < op->input_count; ++i) {
    const vknn_tensor *t = input_tensor(graph, op, i);
    if (t == NULL || t->count_slot != 0) continue;
    if (t->rank >= rank && !(t->rank == rank && t->dims[0] == 1)) return false;
  }
  return true;
}

static bool first_of_constant(const vknn_graph *graph, const vknn_operation *op, uint32_t input, int32_t want) {
  int32_t values[VKNN_MAX_RANK];
  uint32_t n = 0;
  return input < op->input_count &&
         vknn_graph_const_i32_tensor(graph, op->inputs[input], values, VKNN_MAX_RANK, &n) && n > 0 &&
         values[0] == want;
}

/* Whether op treats each row of its dynamic inputs apart, output row r
 * coming from input row r. */
static bool keeps_rows(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in0 = input_tensor(graph, op, 0);
  uint32_t rank = in0 != NULL ? in0->rank : 0;
  if (is_type(op->type, kElementwise, COUNT_OF(kElementwise)) || is_type(op->type, kPerBatch, COUNT_OF(kPerBatch)))
    return dynamic_only_in(graph, op, 1u);
  if (is_type(op->type, kBroadcast, COUNT_OF(kBroadcast))) {
    uint32_t dyn_rank = is_dynamic(graph, op, 0) ? rank : input_tensor(graph, op, 1)->rank;
    return dynamic_only_in(graph, op, 3u) && broadcasts_over_rows(graph, op, dyn_rank);
  }
  switch (op->type) {
    case VKNN_OPERATION_ROI_ALIGN:
    case VKNN_OPERATION_ROI_POOLING: /* regions are rows: the boxes and their batch indices */
      return dynamic_only_in(graph, op, 6u) && is_dynamic(graph, op, 1) && is_dynamic(graph, op, 2);
    case VKNN_OPERATION_SOFTMAX:
    case VKNN_OPERATION_LOG_SOFTMAX:
      return dynamic_only_in(graph, op, 1u) && axis_not_rows(graph, op, 2, rank, -1);
    case VKNN_OPERATION_TRANSPOSE:
      return dynamic_only_in(graph, op, 1u) && first_of_constant(graph, op, 1, 0);
    case VKNN_OPERATION_SLICE: /* every row: begin 0, size -1 */
      return dynamic_only_in(graph, op, 1u) && first_of_constant(graph, op, 1, 0) &&
             first_of_constant(graph, op, 2, -1);
    case VKNN_OPERATION_CONCATENATION: {
      uint32_t n = op->input_count - 1;
      for (uint32_t i = 0; i < n; ++i)
        if (!is_dynamic(graph, op, i)) return false;
      return axis_not_rows(graph, op, n, rank, 0);
    }
    default:
      return false;
  }
}

/* The one count word op's inputs carry (0: none), their planned rows and
 * rows per count; false when two differ. */
static bool input_slot(const vknn_graph *graph, const vknn_operation *op, uint32_t *slot, uint32_t *rows,
                       uint32_t *per_count) {
  *slot = 0;
  *rows = 0;
  *per_count = 0;
  for (uint32_t i = 0; i < op->input_count; ++i) {
    const vknn_tensor *t = input_tensor(graph, op, i);
    if (t == NULL || t->count_slot == 0) continue;
    if (*slot != 0 && (t->count_slot != *slot || t->dims[0] != *rows || t->rows_per_count != *per_count))
      return false;
    *slot = t->count_slot;
    *rows = t->dims[0];
    *per_count = t->rows_per_count;
  }
  return true;
}

static vknn_status unsupported(const vknn_graph *graph, const vknn_operation *op, const char *why) {
  VKNN_LOG_E(graph->log, "compilation", "%s reads a value whose rows the data decide: %s",
             vknn_model_operation_name(graph->model, op->type), why);
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Inference with the outputs' first dimensions open: the declared ones
 * (into declared) are the real rows, not the largest. */
static vknn_status infer_open(vknn_graph *graph, const vknn_operation *op, const vknn_op_def *def,
                              uint32_t declared[MAX_DYNAMIC_OUTPUTS]) {
  for (uint32_t o = 0; o < op->output_count; ++o) {
    vknn_tensor *t = &graph->tensors[op->outputs[o]];
    declared[o] = t->rank > 0 ? t->dims[0] : 0;
    if (t->rank == 0) continue;
    uint32_t dims[VKNN_MAX_RANK];
    memcpy(dims, t->dims, sizeof(dims));
    dims[0] = 0;
    vknn_tensor_set_shape(t, dims, t->rank);
  }
  vknn_status s = def->infer(graph, op);
  /* The shapes are the largest, not the real ones: a mismatch is no model error. */
  if (s == VKNN_STATUS_INVALID_ARGUMENT) return unsupported(graph, op, "its shapes do not follow the rows");
  return s;
}

/* Inference with the outputs' first dimensions open, then the count word
 * handed on. */
static vknn_status infer_rows(vknn_graph *graph, const vknn_operation *op, const vknn_op_def *def, uint32_t slot,
                              uint32_t rows, uint32_t per_count) {
  uint32_t declared[MAX_DYNAMIC_OUTPUTS];
  vknn_status s = infer_open(graph, op, def, declared);
  if (s != VKNN_STATUS_NONE) return s;
  for (uint32_t o = 0; o < op->output_count; ++o) {
    vknn_tensor *t = &graph->tensors[op->outputs[o]];
    /* FULLY_CONNECTED splits each input row into whole rows of its own. */
    uint32_t each = t->rank > 0 && t->dims[0] % rows == 0 ? t->dims[0] / rows : 0;
    if (each == 0 || (each != 1 && op->type != VKNN_OPERATION_FULLY_CONNECTED))
      return unsupported(graph, op, "its output rows are not the input's");
    t->count_slot = slot;
    t->declared_rows = declared[o];
    t->rows_per_count = per_count * each;
  }
  return VKNN_STATUS_NONE;
}

/* A CONCATENATION along axis 0 with an input whose rows the data decide. */
static bool concatenates_rows(const vknn_graph *graph, const vknn_operation *op) {
  if (op->type != VKNN_OPERATION_CONCATENATION || op->input_count < 2) return false;
  uint32_t n = op->input_count - 1;
  bool dynamic = false;
  for (uint32_t i = 0; i < n; ++i) dynamic = dynamic || is_dynamic(graph, op, i);
  const vknn_tensor *in0 = input_tensor(graph, op, 0);
  int32_t axis;
  if (!dynamic || in0 == NULL || !vknn_graph_const_i32(graph, op->inputs[n], &axis)) return false;
  return axis == 0 || axis == -(int32_t)in0->rank;
}

/* The output planned at the sum of the inputs' planned rows, with a count
 * word of its own that the kernel writes (concatenation.c). */
static vknn_status infer_concatenated_rows(vknn_graph *graph, const vknn_operation *op, const vknn_op_def *def) {
  uint32_t declared[MAX_DYNAMIC_OUTPUTS];
  vknn_status s = infer_open(graph, op, def, declared);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_tensor *out = &graph->tensors[op->outputs[0]];
  out->count_slot = ++graph->count_slots;
  out->declared_rows = declared[0];
  out->rows_per_count = 1;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_dynamic_rows_infer(vknn_graph *graph, const vknn_operation *op, const vknn_op_def *def,
                                    bool *handled) {
  *handled = concatenates_rows(graph, op);
  if (*handled) return infer_concatenated_rows(graph, op, def);
  uint32_t slot, rows, per_count;
  bool one_slot = input_slot(graph, op, &slot, &rows, &per_count);
  *handled = !one_slot || slot != 0;
  if (!*handled) return VKNN_STATUS_NONE;
  if (!one_slot) return unsupported(graph, op, "two of them with different counts");
  if (op->output_count > MAX_DYNAMIC_OUTPUTS || !keeps_rows(graph, op))
    return unsupported(graph, op, "the operation mixes rows");
  return infer_rows(graph, op, def, slot, rows, per_count);
}
