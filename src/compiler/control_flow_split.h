/* A subgraph that holds IF or WHILE, split into segments: the runs of other
 * operations between them, each compiled as a model of its own
 * (control_flow_split.c); the support query over such a model. The runtime
 * (runtime/control_flow.c) chains the segments' recordings and evaluates the
 * branches and loops. */
#pragma once
#include "compiler/compiler.h"
#include "compiler/control_flow_validate.h"

/* A run of operations [first, end) of a subgraph as a model of its own: its
 * inputs are the values it reads that other steps write (or the subgraph's
 * inputs), its outputs the values it writes that later steps read (or the
 * subgraph's outputs). Constants and pools are the original model's. */
typedef struct vknn_segment {
  vknn_model model;
  uint32_t first, end;
  uint32_t *inputs;  /* the subgraph operand of each segment input */
  uint32_t *outputs; /* the subgraph operand of each segment output */
  uint32_t input_count, output_count;
  /* What the segment owns: the model's operand and operation arrays, and
   * every index list (the model's and inputs/outputs above). */
  vknn_operand *operands;
  vknn_operation *operations;
  uint32_t *indexes;
} vknn_segment;

/* The segment of operations [first, end) of sg (none of them IF or WHILE).
 * A segment whose results nobody reads has output_count 0. */
vknn_status vknn_segment_make(const vknn_model *model, const vknn_subgraph *sg, uint32_t first,
                              uint32_t end, vknn_segment *out);
void vknn_segment_free(vknn_segment *segment);
/* The end of the segment starting at operation first: the next IF or WHILE. */
uint32_t vknn_segment_end(const vknn_subgraph *sg, uint32_t first);

/* A WHILE whose condition and body hold no IF or WHILE, as one segment: the
 * body, then the condition on the body's outputs (and its invariant inputs).
 * Inputs: the body's; outputs: the body's, then the condition's boolean.
 * One execution of it is one iteration and the test for the next. */
vknn_status vknn_segment_make_loop(const vknn_model *model, const vknn_subgraph *cond,
                                   const vknn_subgraph *body, vknn_segment *out);

/* The deepest nesting of IF and WHILE the driver runs: the support query,
 * prepare and executions walk nested subgraphs one stack frame a level, so
 * a deeper model (valid: the HAL sets no limit) is unsupported rather than
 * a stack overflow. */
#define VKNN_MAX_CONTROL_FLOW_NESTING 32u

/* Whether no chain of IF and WHILE references from the main subgraph is
 * deeper than VKNN_MAX_CONTROL_FLOW_NESTING (without recursion: level by
 * level). The model must be valid (no reference cycles). */
vknn_status vknn_control_flow_nesting_fits(const vknn_model *model, bool *out_fits);

/* The support query for a model whose main subgraph holds IF or WHILE: each
 * segment's operations as vknn_compile_query answers them; an IF or WHILE
 * only when every operation of every subgraph it reaches is supported, and
 * none where the nesting does not fit. */
vknn_status vknn_control_flow_query(const vknn_logger *log, const vknn_model *model,
                                    const vknn_plan_target *target, bool *supported);
