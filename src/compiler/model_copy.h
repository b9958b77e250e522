/* A prepared model's own copy of its main subgraph, kept when shapes are
 * known only at execution time so that the model can be compiled again per
 * input shapes (prepared_model.c). Every constant becomes CONSTANT_COPY, so
 * the caller's CONSTANT_REFERENCE pools need not stay mapped. */
#pragma once
#include "graph/graph.h"

typedef struct vknn_model_copy {
  vknn_model model;
  void **blocks; /* every allocation the copy owns */
  uint32_t block_count;
  /* Per operation of the copy's main subgraph, the index of the operation
   * it stands for in the model copied (UINT32_MAX: one the copy added);
   * NULL when they are the same. For messages that name operations. */
  const uint32_t *op_sources;
} vknn_model_copy;

/* Copies the model a graph was built from, constants taken from the graph
 * (and the graph's op_sources, where it has them). */
vknn_status vknn_model_copy_make(const vknn_graph *graph, vknn_model_copy *out);
void vknn_model_copy_free(vknn_model_copy *copy);

/* The bytes a constant of length bytes takes in a copy's block of values:
 * rounded up to 8, so that every value starts 8-byte aligned. */
size_t vknn_model_copy_value_slot(size_t length);

/* A zeroed block of size bytes owned by the copy (freed with it); NULL when
 * out of memory. */
void *vknn_model_copy_own(vknn_model_copy *copy, size_t size);
