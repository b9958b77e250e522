/* vknn-bench capabilities: the reference convolution wrapped in IF and in
 * WHILE, so that control flow is timed on the same work as the float32
 * figure (an IF taking the convolution's branch, a WHILE running it
 * CAPABILITIES_LOOP times). */
#pragma once
#include "bench_graph.h"

#define CAPABILITIES_LOOP 4

typedef struct control_model {
  vknn_model model;
  vknn_operand operands[6];
  vknn_operation operation;
  uint32_t inputs[4], outputs[2], model_inputs[1], model_outputs[1];
  vknn_subgraph referenced[2];
  /* WHILE's body (the convolution and a counter) and condition. */
  vknn_operand *body_operands;
  vknn_operation *body_operations;
  uint32_t body_inputs[2], body_outputs[2];
  vknn_operand cond_operands[4];
  vknn_operation cond_operation;
  uint32_t cond_inputs[2], cond_outputs[1], less_inputs[2], add_inputs[3], add_output[1];
  uint8_t *values;
} control_model;

/* g finished (bench_graph_finish), one input and one output of one shape.
 * 0, or -1 when memory runs out. The model lives while g and c do. */
int control_model_if(control_model *c, const bench_graph *g);
int control_model_while(control_model *c, const bench_graph *g);
void control_model_free(control_model *c);
