/* TRANSPOSE: output dimension d is input dimension perm[d] (perm omitted:
 * reversed). Kernel: shaders/remap.comp. */
#include "ops/remap.h"

static vknn_status validate_transpose(const vknn_logger *log, const vknn_model *model,
                                      const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  /* The counts first: input 1 exists only once they hold. */
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *perm = &sg->operands[op->inputs[1]];
  bool ok = vknn_op_check_data_types(log, sg, op, 4, false) &&
            vknn_op_check_type(log, op, "perm", perm, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "perm", perm, 1) && vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* perm known only at run time: the declared output, axes set on the GPU. */
static vknn_status build_dynamic_transpose(vknn_graph *graph, const vknn_operation *op,
                                           vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  return vknn_remap_dynamic_identity(graph, op, graph->tensors[op->inputs[0]].rank,
                                     VKNN_REMAP_DYNAMIC_TRANSPOSE, r, dims, rank);
}

static bool perm_omitted(const vknn_graph *graph, const vknn_operation *op) {
  return op->input_count < 2 || vknn_graph_omitted(graph, op->inputs[1]);
}

/* A constant perm (at most VKNN_MAX_RANK entries), or the input's axes
 * reversed where perm is omitted (none while the rank is not known). */
static vknn_status read_perm(const vknn_graph *graph, const vknn_operation *op, int32_t *perm, uint32_t *n) {
  if (perm_omitted(graph, op)) {
    *n = graph->tensors[op->inputs[0]].rank;
    for (uint32_t d = 0; d < *n; ++d) perm[d] = (int32_t)(*n - 1 - d);
    return VKNN_STATUS_NONE;
  }
  if (vknn_graph_const_i32_tensor(graph, op->inputs[1], perm, VKNN_MAX_RANK, n)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "TRANSPOSE: perm does not fit the input");
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Output dimension d is input dimension perm[d]: 0 while that is not known
 * (ops/known_dims.h), exact once it is. */
static void transposed_shape(const vknn_tensor *in, const int32_t *perm, uint32_t n, uint32_t *dims) {
  for (uint32_t d = 0; d < n; ++d) dims[d] = (uint32_t)perm[d] < in->rank ? in->dims[perm[d]] : 0;
}

/* perm is a permutation of the input's axes; while the model leaves the
 * rank unknown, of as many axes as it has entries (the output's rank). */
static vknn_status check_transpose(vknn_graph *graph, const vknn_operation *op, uint32_t *dims,
                                   uint32_t *out_rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t perm[VKNN_MAX_RANK];
  uint32_t n, rank = in->rank, seen = 0;
  vknn_status s = read_perm(graph, op, perm, &n);
  if (s != VKNN_STATUS_NONE) return s;
  if (rank == 0) rank = n;
  for (uint32_t d = 0; d < n; ++d)
    if (perm[d] >= 0 && perm[d] < (int32_t)rank) seen |= 1u << perm[d];
  if (n != rank || seen != (1u << rank) - 1) {
    VKNN_LOG_E(graph->log, "model", "TRANSPOSE: perm is not a permutation of %u axes", rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  transposed_shape(in, perm, n, dims);
  *out_rank = n;
  return VKNN_STATUS_NONE;
}

/* A constant or omitted perm has passed check_transpose. */
static vknn_status build_transpose(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                   vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  (void)output;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t perm[VKNN_MAX_RANK];
  uint32_t n;
  if (!perm_omitted(graph, op) && graph->tensors[op->inputs[1]].constant_data == NULL)
    return build_dynamic_transpose(graph, op, r, dims, rank);
  vknn_status s = read_perm(graph, op, perm, &n);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_remap_set_axes(r, in);
  transposed_shape(in, perm, n, dims);
  for (uint32_t d = 0; d < n; ++d) vknn_remap_add_view(r, dims[d], (uint32_t)perm[d], 1);
  *rank = n;
  return VKNN_STATUS_NONE;
}

VKNN_REMAP_OP_DEF(transpose, TRANSPOSE, validate_transpose, check_transpose, build_transpose);
