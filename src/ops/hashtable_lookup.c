/* HASHTABLE_LOOKUP: rows of values picked by matching lookups against
 * ascending keys, and whether each lookup hit. Kernel:
 * shaders/hashtable_lookup.comp (a binary search per output element). */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "model/operand_type.h"

static bool check_value_type(const vknn_logger *log, const vknn_operand *values) {
  if (values->type == VKNN_OPERAND_TENSOR_FLOAT32 || values->type == VKNN_OPERAND_TENSOR_INT32 ||
      values->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM)
    return true;
  VKNN_LOG_E(log, "model", "HASHTABLE_LOOKUP: values of type %s are not allowed",
             vknn_operand_type_name(values->type));
  return false;
}

/* Hits: TENSOR_QUANT8_ASYMM of scale 1 and zero point 0, a byte per lookup. */
static bool check_hits(const vknn_logger *log, const vknn_operation *op, const vknn_operand *hits) {
  if (!vknn_op_check_type(log, op, "hits", hits, VKNN_OPERAND_TENSOR_QUANT8_ASYMM) ||
      !vknn_op_check_rank(log, op, "hits", hits, 1))
    return false;
  if (hits->scale == 1.f && hits->zero_point == 0) return true;
  VKNN_LOG_E(log, "model", "HASHTABLE_LOOKUP: hits must have scale 1 and zero point 0, not %g, %d",
             hits->scale, hits->zero_point);
  return false;
}

static vknn_status validate_hashtable_lookup(const vknn_logger *log, const vknn_model *model,
                                             const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 2)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *lookups = &sg->operands[op->inputs[0]];
  const vknn_operand *keys = &sg->operands[op->inputs[1]];
  const vknn_operand *values = &sg->operands[op->inputs[2]];
  bool ok = vknn_op_check_type(log, op, "lookups", lookups, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "lookups", lookups, 1) &&
            vknn_op_check_type(log, op, "keys", keys, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "keys", keys, 1) && check_value_type(log, values);
  ok = ok && vknn_op_check_table(log, op, values, &sg->operands[op->outputs[0]]) &&
       check_hits(log, op, &sg->operands[op->outputs[1]]);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* NNAPI requires ascending keys: constant ones are checked here; keys given
 * at run time by the kernel (its search stays in bounds either way). */
static vknn_status check_constant_keys(vknn_graph *graph, const vknn_tensor *keys) {
  if (keys->constant_data == NULL) return VKNN_STATUS_NONE;
  for (uint32_t i = 1; i < vknn_known_dim(keys, 1, 0); ++i) {
    int32_t before, key;
    memcpy(&before, keys->constant_data + (i - 1) * sizeof(int32_t), sizeof(before));
    memcpy(&key, keys->constant_data + i * sizeof(int32_t), sizeof(key));
    if (key < before) {
      VKNN_LOG_E(graph->log, "model", "HASHTABLE_LOOKUP: keys are not ascending (%d after %d)",
                 key, before);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

/* Lookups and keys 1-D, the values' first dimension the key count, as far as
 * the ranks and dimensions are known (ops/known_dims.h: 0 not known yet);
 * exact once the shapes are. */
static vknn_status check_shapes(vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *lookups = &graph->tensors[op->inputs[0]];
  const vknn_tensor *keys = &graph->tensors[op->inputs[1]];
  const vknn_tensor *values = &graph->tensors[op->inputs[2]];
  uint32_t rows = values->rank >= 2 ? values->dims[0] : 0;
  if ((lookups->rank == 0 || lookups->rank == 1) && vknn_dims_fit(keys, 1, rows, 0) && values->rank != 1)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "HASHTABLE_LOOKUP: lookups and keys must be 1-D and the values' first dimension "
             "the key count (keys of rank %u, values of rank %u)",
             keys->rank, values->rank);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Both declared outputs against the dimensions known (ops/known_dims.h):
 * the rows of values with the lookup count first, and hits [lookups]. */
static vknn_status check_known_outputs(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *lookups = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK], hits = vknn_known_dim(lookups, 1, 0);
  uint32_t rank = vknn_op_lookup_shape(lookups, &graph->tensors[op->inputs[2]], dims);
  vknn_status s = vknn_op_check_known_output(graph, op, dims, rank);
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_output_at(graph, op, 1, &hits, 1) : s;
}

/* Output: the values' shape with the lookup count first; hits: [lookups].
 * The shapes known so far, constant keys and both declared outputs are
 * checked before the operation waits for the rest: a model whose shapes an
 * execution gives still has them checked at prepare. */
static vknn_status infer_hashtable_lookup(vknn_graph *graph, const vknn_operation *op) {
  vknn_status s = check_shapes(graph, op);
  if (s == VKNN_STATUS_NONE) s = check_constant_keys(graph, &graph->tensors[op->inputs[1]]);
  if (s == VKNN_STATUS_NONE) s = check_known_outputs(graph, op);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shapes(graph, op, 3);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *lookups = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK], rank = vknn_op_lookup_shape(lookups, &graph->tensors[op->inputs[2]], dims);
  s = vknn_op_set_output_shape(graph, op, 0, dims, rank);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, 1, lookups->dims, 1);
  return s;
}

typedef struct hashtable_lookup_params {
  uint32_t lookup_count, key_count, row_size;
  uint32_t check_keys; /* keys given at run time: the kernel checks their order */
  uint32_t check_code; /* graph/runtime_check.h: keys not ascending */
} hashtable_lookup_params;
VKNN_PUSH_LAYOUT(hashtable_lookup, hashtable_lookup_params);

static vknn_status lower_hashtable_lookup(vknn_graph *graph, const vknn_operation *op,
                                          vknn_dispatch_list *out_list) {
  const vknn_tensor *values = &graph->tensors[op->inputs[2]];
  bool keys_constant = graph->tensors[op->inputs[1]].constant_data != NULL;
  hashtable_lookup_params p = {graph->tensors[op->inputs[0]].dims[0], values->dims[0], 1, !keys_constant,
                               vknn_graph_check_code(graph, op)};
  for (uint32_t d = 1; d < values->rank; ++d) p.row_size *= values->dims[d];
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = values->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ? VKNN_SHADER_HASHTABLE_LOOKUP_B8
                                                               : VKNN_SHADER_HASHTABLE_LOOKUP_B32;
  for (uint32_t i = 0; i < 3; ++i) vknn_dispatch_bind(d, op->inputs[i], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, op->outputs[1], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.lookup_count * p.row_size;
  /* Enough invocations to check every pair of neighbouring keys. */
  if (p.check_keys && p.key_count > d->invocations + 1) d->invocations = p.key_count - 1;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_hashtable_lookup = {VKNN_OPERATION_HASHTABLE_LOOKUP, false,
                                              validate_hashtable_lookup, infer_hashtable_lookup,
                                              lower_hashtable_lookup};
