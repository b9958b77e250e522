#include "capabilities_control.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t kOne[1] = {1};

/* g's constant values with room for extra (4-byte aligned) after them;
 * returns the offset of the extra bytes. */
static int64_t grow_values(control_model *c, const bench_graph *g, size_t extra) {
  size_t base = (g->model.operand_values_size + 3) & ~(size_t)3;
  c->values = calloc(1, base + extra);
  if (c->values == NULL) return -1;
  if (g->model.operand_values_size > 0)
    memcpy(c->values, g->model.operand_values, g->model.operand_values_size);
  c->model = (vknn_model){.operand_values = c->values, .operand_values_size = base + extra,
                          .pools = g->model.pools, .pool_count = g->model.pool_count,
                          .relax_computation_float32_to_float16 =
                              g->model.relax_computation_float32_to_float16};
  return (int64_t)base;
}

static vknn_operand io_operand(const bench_graph *g, uint32_t index, vknn_operand_lifetime life) {
  vknn_operand o = g->model.main.operands[index];
  o.lifetime = life;
  o.number_of_consumers = life == VKNN_LIFETIME_SUBGRAPH_INPUT ? 1 : 0;
  o.location = (vknn_data_location){0};
  return o;
}

static vknn_operand reference(uint32_t subgraph) {
  return (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH,
                        .number_of_consumers = 1, .location = {0, subgraph, 0}};
}

static vknn_operand constant(int32_t type, const uint32_t *dims, uint32_t offset, uint32_t length) {
  return (vknn_operand){.type = type, .dimension_count = dims ? 1 : 0, .dimensions = dims,
                        .number_of_consumers = 1, .lifetime = VKNN_LIFETIME_CONSTANT_COPY,
                        .location = {0, offset, length}};
}

/* The outer model: one input (the convolution's), one output. */
static void finish_main(control_model *c, uint32_t operand_count, uint32_t input, uint32_t output) {
  c->model_inputs[0] = input;
  c->model_outputs[0] = output;
  c->model.main = (vknn_subgraph){c->operands, operand_count, &c->operation, 1,
                                  c->model_inputs, 1, c->model_outputs, 1};
  c->model.referenced = c->referenced;
}

int control_model_if(control_model *c, const bench_graph *g) {
  memset(c, 0, sizeof(*c));
  int64_t at = grow_values(c, g, 4);
  if (at < 0) return -1;
  c->values[at] = 1; /* the condition: take the branch */
  const vknn_subgraph *conv = &g->model.main;
  c->operands[0] = constant(VKNN_OPERAND_TENSOR_BOOL8, kOne, (uint32_t)at, 1);
  c->operands[1] = reference(0);
  c->operands[2] = reference(0);
  c->operands[3] = io_operand(g, conv->input_indexes[0], VKNN_LIFETIME_SUBGRAPH_INPUT);
  c->operands[4] = io_operand(g, conv->output_indexes[0], VKNN_LIFETIME_SUBGRAPH_OUTPUT);
  c->inputs[0] = 0, c->inputs[1] = 1, c->inputs[2] = 2, c->inputs[3] = 3;
  c->outputs[0] = 4;
  c->operation = (vknn_operation){VKNN_OPERATION_IF, c->inputs, 4, c->outputs, 1};
  c->referenced[0] = *conv;
  c->model.referenced_count = 1;
  finish_main(c, 5, 3, 4);
  return 0;
}

/* The body: the convolution, and counter + 1 (float32). */
static int build_body(control_model *c, const bench_graph *g, uint32_t one_at, uint32_t none_at) {
  const vknn_subgraph *conv = &g->model.main;
  uint32_t n = conv->operand_count;
  c->body_operands = calloc(n + 4, sizeof(vknn_operand));
  c->body_operations = calloc(conv->operation_count + 1, sizeof(vknn_operation));
  if (c->body_operands == NULL || c->body_operations == NULL) return -1;
  memcpy(c->body_operands, conv->operands, n * sizeof(vknn_operand));
  memcpy(c->body_operations, conv->operations, conv->operation_count * sizeof(vknn_operation));
  c->body_operands[n] = (vknn_operand){.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1,
                                       .dimensions = kOne, .number_of_consumers = 1,
                                       .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT};
  c->body_operands[n + 1] = constant(VKNN_OPERAND_TENSOR_FLOAT32, kOne, one_at, 4);
  c->body_operands[n + 2] = constant(VKNN_OPERAND_INT32, NULL, none_at, 4);
  c->body_operands[n + 3] = c->body_operands[n];
  c->body_operands[n + 3].lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  c->body_operands[n + 3].number_of_consumers = 0;
  c->add_inputs[0] = n, c->add_inputs[1] = n + 1, c->add_inputs[2] = n + 2;
  c->add_output[0] = n + 3;
  c->body_operations[conv->operation_count] =
      (vknn_operation){VKNN_OPERATION_ADD, c->add_inputs, 3, c->add_output, 1};
  c->body_inputs[0] = conv->input_indexes[0], c->body_inputs[1] = n;
  c->body_outputs[0] = conv->output_indexes[0], c->body_outputs[1] = n + 3;
  c->referenced[0] = (vknn_subgraph){c->body_operands, n + 4, c->body_operations,
                                     conv->operation_count + 1, c->body_inputs, 2,
                                     c->body_outputs, 2};
  return 0;
}

/* The condition: counter < CAPABILITIES_LOOP. */
static void build_condition(control_model *c, const bench_graph *g, uint32_t limit_at) {
  c->cond_operands[0] = io_operand(g, g->model.main.input_indexes[0], VKNN_LIFETIME_SUBGRAPH_INPUT);
  c->cond_operands[0].number_of_consumers = 0;
  c->cond_operands[1] = (vknn_operand){.type = VKNN_OPERAND_TENSOR_FLOAT32, .dimension_count = 1,
                                       .dimensions = kOne, .number_of_consumers = 1,
                                       .lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT};
  c->cond_operands[2] = constant(VKNN_OPERAND_TENSOR_FLOAT32, kOne, limit_at, 4);
  c->cond_operands[3] = (vknn_operand){.type = VKNN_OPERAND_TENSOR_BOOL8, .dimension_count = 1,
                                       .dimensions = kOne,
                                       .lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT};
  c->less_inputs[0] = 1, c->less_inputs[1] = 2;
  c->cond_outputs[0] = 3;
  c->cond_operation = (vknn_operation){VKNN_OPERATION_LESS, c->less_inputs, 2, c->cond_outputs, 1};
  c->cond_inputs[0] = 0, c->cond_inputs[1] = 1;
  c->referenced[1] = (vknn_subgraph){c->cond_operands, 4, &c->cond_operation, 1, c->cond_inputs,
                                     2, c->cond_outputs, 1};
}

int control_model_while(control_model *c, const bench_graph *g) {
  memset(c, 0, sizeof(*c));
  int64_t at = grow_values(c, g, 16);
  if (at < 0) return -1;
  const float one = 1.f, limit = (float)CAPABILITIES_LOOP, zero = 0.f;
  memcpy(c->values + at, &one, 4);          /* the counter's step */
  memset(c->values + at + 4, 0, 4);         /* no activation */
  memcpy(c->values + at + 8, &limit, 4);    /* the condition's bound */
  memcpy(c->values + at + 12, &zero, 4);    /* the counter's start */
  if (build_body(c, g, (uint32_t)at, (uint32_t)at + 4) != 0) return -1;
  build_condition(c, g, (uint32_t)at + 8);
  const vknn_subgraph *conv = &g->model.main;
  c->operands[0] = reference(1);
  c->operands[1] = reference(0);
  c->operands[2] = io_operand(g, conv->input_indexes[0], VKNN_LIFETIME_SUBGRAPH_INPUT);
  c->operands[3] = constant(VKNN_OPERAND_TENSOR_FLOAT32, kOne, (uint32_t)at + 12, 4);
  c->operands[4] = io_operand(g, conv->output_indexes[0], VKNN_LIFETIME_SUBGRAPH_OUTPUT);
  c->operands[5] = c->body_operands[conv->operand_count + 3]; /* the counter at the end */
  c->operands[5].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  c->inputs[0] = 0, c->inputs[1] = 1, c->inputs[2] = 2, c->inputs[3] = 3;
  c->outputs[0] = 4, c->outputs[1] = 5;
  c->operation = (vknn_operation){VKNN_OPERATION_WHILE, c->inputs, 4, c->outputs, 2};
  c->model.referenced_count = 2;
  finish_main(c, 6, 2, 4);
  return 0;
}

void control_model_free(control_model *c) {
  free(c->values);
  free(c->body_operands);
  free(c->body_operations);
  memset(c, 0, sizeof(*c));
}
