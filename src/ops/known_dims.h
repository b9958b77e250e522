/* Shape checks made before every shape is known: a model may leave
 * dimensions (or a rank) to the execution, and the operations that wait for
 * them still check, at prepare, what the known dimensions already decide
 * (weights that cannot fit each other, a parameter out of range). A
 * dimension 0 here is one not known yet: it agrees with any. Once every
 * shape is known, these checks are exact. */
#pragma once
#include "graph/graph.h"

/* Dimensions agree unless both are known (above 0) and differ. */
static inline bool vknn_dims_agree(uint32_t a, uint32_t b) { return a == 0 || b == 0 || a == b; }

/* Dimension d of t when t has the rank, else 0: not known yet (a wrong rank
 * is reported once the shape is known). */
static inline uint32_t vknn_known_dim(const vknn_tensor *t, uint32_t rank, uint32_t d) {
  return t->rank == rank ? t->dims[d] : 0;
}

/* t is [d0] or [d0, d1] (by rank) as far as both are known: a rank not known
 * yet agrees. */
static inline bool vknn_dims_fit(const vknn_tensor *t, uint32_t rank, uint32_t d0, uint32_t d1) {
  if (t->rank == 0 && !t->shape_known) return true;
  return t->rank == rank && vknn_dims_agree(t->dims[0], d0) && (rank < 2 || vknn_dims_agree(t->dims[1], d1));
}

/* The first of count dimensions that is known (0: none yet): where several
 * operands give one extent, each is checked against the first known. */
static inline uint32_t vknn_first_known_dim(const uint32_t *dims, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (dims[i] != 0) return dims[i];
  return 0;
}

/* Whether each execution decides if t is given: a model input a request may
 * omit, in a graph compiled before any request. */
static inline bool vknn_presence_waits(const vknn_graph *graph, const vknn_tensor *t) {
  return t->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT && !graph->input_presence_known;
}

/* Whether an operand is given: 1 or 0, or -1 where each execution decides
 * (vknn_presence_waits). An optional operand's shape is checked only where
 * it is given. */
static inline int vknn_known_presence(const vknn_graph *graph, uint32_t tensor) {
  const vknn_tensor *t = &graph->tensors[tensor];
  if (vknn_presence_waits(graph, t)) return -1;
  return t->lifetime != VKNN_LIFETIME_NO_VALUE;
}
