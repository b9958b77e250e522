/* TILE: the input repeated multiples[d] times along each axis.
 * Kernel: shaders/remap.comp (axes wrap). */
#include "ops/remap.h"

static vknn_status validate_tile(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  /* The counts first: input 1 exists only once they hold. */
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *multiples = &sg->operands[op->inputs[1]];
  bool ok = vknn_op_check_data_types(log, sg, op, VKNN_MAX_RANK, true) &&
            vknn_op_check_type(log, op, "multiples", multiples, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "multiples", multiples, 1) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Constant multiples (at most VKNN_MAX_RANK). */
static vknn_status read_multiples(const vknn_graph *graph, const vknn_operation *op, int32_t *multiples,
                                  uint32_t *n) {
  if (vknn_graph_const_i32_tensor(graph, op->inputs[1], multiples, VKNN_MAX_RANK, n)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "TILE: multiples do not fit the input");
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The input's shape with axis d repeated multiples[d] times: an axis whose
 * size is not known yet (0, ops/known_dims.h) stays so. */
static void tiled_shape(const vknn_tensor *in, const int32_t *multiples, uint32_t n, uint32_t *dims) {
  for (uint32_t d = 0; d < n; ++d) dims[d] = (d < in->rank ? in->dims[d] : 0) * (uint32_t)multiples[d];
}

/* One multiple per input axis (once the rank is known; while it is not, the
 * multiples give it), each above 0, and each axis tiled within a
 * dimension's 32 bits where its size is known. */
static vknn_status check_tile(vknn_graph *graph, const vknn_operation *op, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t multiples[VKNN_MAX_RANK];
  uint32_t n;
  vknn_status s = read_multiples(graph, op, multiples, &n);
  if (s != VKNN_STATUS_NONE) return s;
  if (in->rank != 0 && n != in->rank) {
    VKNN_LOG_E(graph->log, "model", "TILE: %u multiples for rank %u", n, in->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t d = 0; d < n; ++d) {
    if (multiples[d] <= 0) {
      VKNN_LOG_E(graph->log, "model", "TILE: multiple %d on axis %u", multiples[d], d);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    uint64_t size = (uint64_t)(d < in->rank ? in->dims[d] : 0) * (uint64_t)multiples[d];
    if (size > UINT32_MAX) {
      VKNN_LOG_E(graph->log, "model", "TILE: axis %u tiled to %llu elements, more than a dimension holds", d,
                 (unsigned long long)size);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  tiled_shape(in, multiples, n, dims);
  *rank = n;
  return VKNN_STATUS_NONE;
}

/* Constant multiples have passed check_tile. */
static vknn_status build_tile(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                              vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t multiples[VKNN_MAX_RANK];
  uint32_t n;
  if (graph->tensors[op->inputs[1]].constant_data == NULL) {
    /* The declared output says how often each axis repeats: wrapping the
     * input axes is all the copy needs; the GPU checks the multiples agree. */
    vknn_status s = vknn_remap_dynamic_identity(graph, op, in->rank, VKNN_REMAP_DYNAMIC_TILE, r,
                                                dims, rank);
    for (uint32_t d = 0; s == VKNN_STATUS_NONE && d < in->rank; ++d) r->axes[d].modulo = true;
    return s;
  }
  vknn_status s = read_multiples(graph, op, multiples, &n);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_remap_set_axes(r, in);
  tiled_shape(in, multiples, in->rank, dims);
  for (uint32_t d = 0; d < in->rank; ++d) {
    r->axes[d].modulo = true;
    vknn_remap_add_view(r, dims[d], d, 1);
  }
  *rank = in->rank;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(tile, TILE, validate_tile, check_tile, build_tile);
