/* Graphviz pictures of a model as received and of its compiled plan, for
 * VKNN_GRAPH_DUMP (api/prepare.c). Reads the plan; changes nothing. */
#pragma once
#include <stdio.h>

#include "compiler/compiler.h"

/* Every subgraph of a model: operands (type, shape, lifetime) and
 * operations, joined by the operands they read and write. */
void vknn_graph_dump_model(FILE *out, const vknn_model *model);

/* A plan: each dispatch with its kernel and the operation it lowers (with the
 * operations fused into it), the tensors it binds grouped by memory region,
 * with offset, size and the dispatches between which each lives. */
void vknn_graph_dump_plan(FILE *out, const vknn_plan *plan);

/* Writes model-N.dot (and plan-N.dot when plan is not NULL) in dir, N the
 * first number no model file has yet. A folder that cannot be written is
 * logged; nothing else happens. */
void vknn_graph_dump_files(const vknn_logger *log, const char *dir, const vknn_model *model,
                           const vknn_plan *plan);
