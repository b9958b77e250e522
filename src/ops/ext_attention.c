/* ATTENTION of the extension org.vknn.transformer
 * (include/vknn/extensions/transformer.h): softmax(Q K^T scale + mask) V,
 * lowered at prepare to three dispatches: the scaled, masked scores on the
 * batched matrix kernel (ext_batch_matmul.h), SOFTMAX's row kernel along
 * the keys (softmax.h), and the product with the values on the batched
 * kernel again (which may copy the values transposed first). The scores and probabilities are temporaries of the arena
 * ([batch..., Sq, Sk], the query's type). */
#include <math.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "ops/ext_batch_matmul.h"
#include "ops/known_dims.h"
#include "ops/softmax.h"

enum { IN_Q = 0, IN_K = 1, IN_V = 2, IN_MASK = 3, IN_SCALE = 4 };

static bool check_tensor(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                         uint32_t input, const char *what) {
  /* An omitted mask keeps its declared type. */
  const vknn_operand *o = &sg->operands[op->inputs[input]];
  if (!vknn_op_check_type(log, op, what, o, sg->operands[op->inputs[IN_Q]].type)) return false;
  if (o->dimension_count != 1 && o->dimension_count <= VKNN_BATCH_MATMUL_MAX_RANK) return true;
  VKNN_LOG_E(log, "model", "ATTENTION: %s has rank %u (2 to %d)", what, o->dimension_count,
             VKNN_BATCH_MATMUL_MAX_RANK);
  return false;
}

static vknn_status validate_attention(const vknn_logger *log, const vknn_model *model,
                                      const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts_optional(log, sg, op, 5, 1, 1u << IN_MASK))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *q = &sg->operands[op->inputs[IN_Q]];
  if (!vknn_is_float_tensor(q->type)) {
    VKNN_LOG_E(log, "model", "ATTENTION: %s is not allowed (float32 or float16)",
               vknn_operand_type_name(q->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  int32_t scale_type =
      q->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  bool ok = check_tensor(log, sg, op, IN_Q, "query") && check_tensor(log, sg, op, IN_K, "key") &&
            check_tensor(log, sg, op, IN_V, "value") && check_tensor(log, sg, op, IN_MASK, "mask") &&
            vknn_op_check_type(log, op, "scale", &sg->operands[op->inputs[IN_SCALE]], scale_type) &&
            vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], q->type);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct attention_shape {
  uint32_t rank, sq, sk, d, dv;
  uint32_t batch[2];
  bool has_mask;
  float scale;
} attention_shape;

static vknn_status fail_shapes(const vknn_graph *graph, const char *why) {
  VKNN_LOG_E(graph->log, "model", "ATTENTION: %s", why);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The mask: rank 2 to the query's, [..., Sq or 1, Sk or 1], its batch
 * broadcasting to the query's; as far as the dimensions are known
 * (ops/known_dims.h: 0 not known yet), exact once the shapes are. */
static vknn_status check_mask(const vknn_graph *graph, const vknn_tensor *mask,
                              const attention_shape *s) {
  if (mask->rank < 2 || mask->rank > s->rank)
    return fail_shapes(graph, "the mask's rank is not 2 to the query's");
  uint32_t rows = mask->dims[mask->rank - 2], cols = mask->dims[mask->rank - 1];
  uint32_t batch[2];
  if ((rows != 1 && !vknn_dims_agree(rows, s->sq)) || (cols != 1 && !vknn_dims_agree(cols, s->sk)))
    return fail_shapes(graph, "the mask is not [..., Sq, Sk] (or 1 for either)");
  uint32_t unit[2] = {1, 1};
  bool ok = vknn_batch_broadcast(mask->dims, mask->rank, unit, 2, batch) &&
            (batch[0] == 1 || vknn_dims_agree(batch[0], s->batch[0])) &&
            (batch[1] == 1 || vknn_dims_agree(batch[1], s->batch[1]));
  return ok ? VKNN_STATUS_NONE : fail_shapes(graph, "the mask's batch does not broadcast to the query's");
}

/* The scale: finite; given as a model input, it is compiled per execution
 * with its value. */
static vknn_status read_scale(vknn_graph *graph, const vknn_operation *op, attention_shape *s) {
  vknn_status st = vknn_op_require_constant_params(graph, op, IN_SCALE, 1);
  if (st != VKNN_STATUS_NONE) return st;
  if (!vknn_graph_const_float(graph, op->inputs[IN_SCALE], &s->scale))
    return VKNN_STATUS_GENERAL_FAILURE;
  return isfinite(s->scale) ? VKNN_STATUS_NONE : fail_shapes(graph, "the scale is not finite");
}

/* The first known of two dimensions, 0 when neither is. */
static uint32_t either(uint32_t a, uint32_t b) { return a != 0 ? a : b; }

/* Query [..., Sq, D], key [..., Sk, D] and value [..., Sk, Dv] of one rank
 * (2 to 4) and one batch, as far as the dimensions are known. */
static vknn_status check_qkv(const vknn_graph *graph, const vknn_operation *op, attention_shape *s) {
  const vknn_tensor *q = &graph->tensors[op->inputs[IN_Q]];
  const vknn_tensor *k = &graph->tensors[op->inputs[IN_K]];
  const vknn_tensor *v = &graph->tensors[op->inputs[IN_V]];
  s->rank = q->rank;
  if (s->rank < 2 || s->rank > VKNN_BATCH_MATMUL_MAX_RANK || k->rank != s->rank || v->rank != s->rank)
    return fail_shapes(graph, "query, key and value must have one rank, 2 to 4");
  for (uint32_t d = 0; d + 2 < s->rank; ++d)
    if (!vknn_dims_agree(q->dims[d], k->dims[d]) || !vknn_dims_agree(q->dims[d], v->dims[d]) ||
        !vknn_dims_agree(k->dims[d], v->dims[d]))
      return fail_shapes(graph, "query, key and value must have the same batch dimensions");
  s->sq = q->dims[s->rank - 2];
  s->d = q->dims[s->rank - 1];
  s->sk = either(k->dims[s->rank - 2], v->dims[s->rank - 2]);
  s->dv = v->dims[s->rank - 1];
  if (!vknn_dims_agree(k->dims[s->rank - 1], s->d) ||
      !vknn_dims_agree(v->dims[s->rank - 2], k->dims[s->rank - 2]))
    return fail_shapes(graph, "key must be [..., Sk, D] and value [..., Sk, Dv]");
  vknn_batch_broadcast(q->dims, q->rank, q->dims, q->rank, s->batch);
  return VKNN_STATUS_NONE;
}

/* Whether the mask is given (a model input may or may not be until an
 * execution says), and its shape against the others'. */
static vknn_status read_mask(vknn_graph *graph, const vknn_operation *op, attention_shape *s) {
  const vknn_tensor *mask = &graph->tensors[op->inputs[IN_MASK]];
  s->has_mask = !vknn_graph_omitted(graph, op->inputs[IN_MASK]);
  if (!s->has_mask) return VKNN_STATUS_NONE;
  if (vknn_presence_waits(graph, mask))
    return vknn_graph_defer(graph, op, "whether the mask is omitted is known at execution");
  vknn_status st = mask->rank == 0 ? vknn_op_require_input_shape(graph, op, IN_MASK) : VKNN_STATUS_NONE;
  return st == VKNN_STATUS_NONE ? check_mask(graph, mask, s) : st;
}

/* The scale and the shapes known so far are checked before the operation
 * waits for the rest: a model whose shapes an execution gives still has them
 * checked at prepare. The model gives a rank with its dimensions, even those
 * an execution gives; a rank it leaves unknown waits. */
static vknn_status read_shape(vknn_graph *graph, const vknn_operation *op, attention_shape *s) {
  vknn_status st = read_scale(graph, op, s);
  for (uint32_t i = IN_Q; i <= IN_V && st == VKNN_STATUS_NONE; ++i)
    if (graph->tensors[op->inputs[i]].rank == 0) st = vknn_op_require_input_shape(graph, op, i);
  if (st == VKNN_STATUS_NONE) st = check_qkv(graph, op, s);
  if (st == VKNN_STATUS_NONE) st = read_mask(graph, op, s);
  for (uint32_t i = IN_Q; i <= IN_MASK && st == VKNN_STATUS_NONE; ++i)
    if (i != IN_MASK || s->has_mask) st = vknn_op_require_input_shape(graph, op, i);
  return st;
}

/* The shape of [batch..., rows, cols] for the query's batch. */
static void batch_shape(const vknn_graph *graph, const vknn_operation *op, uint32_t rows,
                        uint32_t cols, uint32_t *dims) {
  const vknn_tensor *q = &graph->tensors[op->inputs[IN_Q]];
  memcpy(dims, q->dims, (q->rank - 2) * sizeof(uint32_t));
  dims[q->rank - 2] = rows;
  dims[q->rank - 1] = cols;
}

static vknn_status infer_attention(vknn_graph *graph, const vknn_operation *op) {
  attention_shape s;
  vknn_status st = read_shape(graph, op, &s);
  if (st != VKNN_STATUS_NONE) return st;
  uint32_t dims[VKNN_BATCH_MATMUL_MAX_RANK];
  batch_shape(graph, op, s.sq, s.dv, dims);
  return vknn_op_set_output_shape(graph, op, 0, dims, s.rank);
}

/* The scores: query times key transposed, scaled, plus the mask. */
static vknn_status lower_scores(vknn_graph *graph, const vknn_operation *op,
                                const attention_shape *s, uint32_t scores,
                                vknn_dispatch_list *out_list) {
  vknn_batch_matmul bm =
      vknn_batch_matmul_of(graph, op->inputs[IN_Q], op->inputs[IN_K], scores, s->batch);
  /* query [.., Sq, D] times key [.., Sk, D] transposed. */
  bm.m = s->sq;
  bm.n = s->sk;
  bm.k = s->d;
  bm.a_row = s->d;
  bm.a_col = 1;
  bm.b_row = 1;
  bm.b_col = s->d;
  bm.alpha = s->scale;
  if (s->has_mask) {
    const vknn_tensor *mask = &graph->tensors[op->inputs[IN_MASK]];
    uint32_t ms[2], cols = mask->dims[mask->rank - 1];
    vknn_batch_strides(mask->dims, mask->rank, ms);
    bm.mask = op->inputs[IN_MASK];
    bm.mask_outer = ms[0];
    bm.mask_inner = ms[1];
    bm.mask_row = mask->dims[mask->rank - 2] == 1 ? 0 : cols;
    bm.mask_col = cols == 1 ? 0 : 1;
  }
  return vknn_lower_batch_matmul(graph, &bm, out_list);
}

static vknn_status lower_attention(vknn_graph *graph, const vknn_operation *op,
                                   vknn_dispatch_list *out_list) {
  attention_shape s;
  vknn_status st = read_shape(graph, op, &s);
  if (st != VKNN_STATUS_NONE) return st;
  int32_t type = graph->tensors[op->inputs[IN_Q]].type;
  uint32_t dims[VKNN_BATCH_MATMUL_MAX_RANK];
  batch_shape(graph, op, s.sq, s.sk, dims);
  uint32_t scores = vknn_graph_add_temporary(graph, type, dims, s.rank);
  uint32_t probs = vknn_graph_add_temporary(graph, type, dims, s.rank);
  if (scores == UINT32_MAX || probs == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  st = lower_scores(graph, op, &s, scores, out_list);
  if (st == VKNN_STATUS_NONE) st = vknn_lower_softmax_last_axis(graph, scores, probs, out_list);
  if (st != VKNN_STATUS_NONE) return st;
  /* probabilities [.., Sq, Sk] times value [.., Sk, Dv]. */
  vknn_batch_matmul bm = vknn_batch_matmul_of(graph, probs, op->inputs[IN_V], op->outputs[0], s.batch);
  bm.m = s.sq;
  bm.n = s.dv;
  bm.k = s.sk;
  bm.a_row = s.sk;
  bm.a_col = 1;
  bm.b_row = s.dv;
  bm.b_col = 1;
  return vknn_lower_batch_matmul(graph, &bm, out_list);
}

const vknn_op_def vknn_op_transformer_attention = {VKNN_OPERATION_TRANSFORMER_ATTENTION, false,
                                                   validate_attention, infer_attention,
                                                   lower_attention};
