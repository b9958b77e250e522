/* The HAL signature rules of IF and WHILE (NeuralNetworks.h; the framework's
 * validateIfOperation / validateWhileOperation):
 *   IF:    condition (TENSOR_BOOL8 [1]), then, else (SUBGRAPH), inputs...;
 *          each branch has as many inputs and outputs as the IF passes and
 *          returns, agreeing with them.
 *   WHILE: cond, body (SUBGRAPH), then m loop-carried, k state and n
 *          invariant inputs; m outputs. cond takes the m+k+n inputs and
 *          returns one TENSOR_BOOL8 [1]; body takes them too and returns
 *          m+k values, each agreeing with its input (a shape left unknown
 *          may change from one iteration to the next).
 * Operands that meet agree in type, scale, zero point and other parameters
 * (per-channel scales and dimension, an extension's bytes), and in rank and
 * dimensions where both specify them.
 * No input may be omitted (NO_VALUE). A subgraph referencing itself, directly or not, is ruled out by the model
 * rules (model/model_validate.c). */ 
#include "compiler/control_flow_validate.h"

#include <string.h>

#include "model/operand_type.h"
#include "vknn/device.h"

#define TAG "model"

#define FAIL(...)                          \
  do {                                     \
    VKNN_LOG_E(log, TAG, __VA_ARGS__);     \
    return VKNN_STATUS_INVALID_ARGUMENT;   \
  } while (0)

bool vknn_is_control_flow(int32_t operation_type) {
  return operation_type == VKNN_OPERATION_IF || operation_type == VKNN_OPERATION_WHILE;
}

bool vknn_subgraph_has_control_flow(const vknn_subgraph *sg) {
  for (uint32_t k = 0; k < sg->operation_count; ++k)
    if (vknn_is_control_flow(sg->operations[k].type)) return true;
  return false;
}

const vknn_subgraph *vknn_referenced_subgraph(const vknn_model *model, const vknn_operand *o) {
  return &model->referenced[o->location.offset];
}

static bool same_extra_params(const vknn_operand_extra_params *a, const vknn_operand_extra_params *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case VKNN_EXTRA_PARAMS_CHANNEL_QUANT:
      return a->channel_quant.channel_dim == b->channel_quant.channel_dim &&
             a->channel_quant.scale_count == b->channel_quant.scale_count &&
             (a->channel_quant.scale_count == 0 ||
              memcmp(a->channel_quant.scales, b->channel_quant.scales,
                     a->channel_quant.scale_count * sizeof(float)) == 0);
    case VKNN_EXTRA_PARAMS_EXTENSION:
      return a->extension.size == b->extension.size &&
             (a->extension.size == 0 || memcmp(a->extension.data, b->extension.data, a->extension.size) == 0);
    default: return true;
  }
}

/* Same type, quantization and other parameters; shapes that can be equal
 * (an unknown rank or dimension agrees with anything). */
static bool same_type(const vknn_operand *a, const vknn_operand *b) {
  return a->type == b->type && a->scale == b->scale && a->zero_point == b->zero_point &&
         same_extra_params(&a->extra_params, &b->extra_params);
}

static bool operands_agree(const vknn_operand *a, const vknn_operand *b) {
  if (!same_type(a, b)) return false;
  if (a->dimension_count == 0 || b->dimension_count == 0) return true;
  if (a->dimension_count != b->dimension_count) return false;
  for (uint32_t d = 0; d < a->dimension_count; ++d)
    if (a->dimensions[d] != 0 && b->dimensions[d] != 0 && a->dimensions[d] != b->dimensions[d])
      return false;
  return true;
}

static bool is_condition(const vknn_operand *o) {
  return o->type == VKNN_OPERAND_TENSOR_BOOL8 && o->dimension_count == 1 && o->dimensions[0] == 1;
}

static vknn_status subgraph_operand(const vknn_logger *log, const vknn_model *model,
                                    const vknn_subgraph *sg, uint32_t operand, const char *what,
                                    const vknn_subgraph **out) {
  const vknn_operand *o = &sg->operands[operand];
  if (o->lifetime != VKNN_LIFETIME_SUBGRAPH) FAIL("%s: operand %u is not a SUBGRAPH", what, operand);
  *out = vknn_referenced_subgraph(model, o);
  return VKNN_STATUS_NONE;
}

/* The subgraph's inputs [0, count) agree with outer operands list[0, count). */
static vknn_status inputs_agree(const vknn_logger *log, const vknn_subgraph *outer,
                                const uint32_t *list, const vknn_subgraph *inner,
                                const char *what) {
  for (uint32_t i = 0; i < inner->input_count; ++i)
    if (!operands_agree(&outer->operands[list[i]], &inner->operands[inner->input_indexes[i]]))
      FAIL("%s: input %u does not agree with the outer operand %u", what, i, list[i]);
  return VKNN_STATUS_NONE;
}

static vknn_status outputs_agree(const vknn_logger *log, const vknn_subgraph *outer,
                                 const uint32_t *list, uint32_t count, const vknn_subgraph *inner,
                                 const char *what) {
  for (uint32_t i = 0; i < count; ++i)
    if (!operands_agree(&outer->operands[list[i]], &inner->operands[inner->output_indexes[i]]))
      FAIL("%s: output %u does not agree with the outer operand %u", what, i, list[i]);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_branch(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op,
                                   uint32_t which, const char *what) {
  const vknn_subgraph *branch = NULL;
  vknn_status s = subgraph_operand(log, model, sg, op->inputs[which], what, &branch);
  if (s != VKNN_STATUS_NONE) return s;
  if (branch->input_count != op->input_count - 3 || branch->output_count != op->output_count)
    FAIL("%s: %u inputs and %u outputs, the IF passes %u and returns %u", what,
         branch->input_count, branch->output_count, op->input_count - 3, op->output_count);
  s = inputs_agree(log, sg, op->inputs + 3, branch, what);
  if (s == VKNN_STATUS_NONE) s = outputs_agree(log, sg, op->outputs, op->output_count, branch, what);
  return s;
}

static vknn_status validate_if(const vknn_logger *log, const vknn_model *model,
                               const vknn_subgraph *sg, const vknn_operation *op) {
  if (op->input_count < 3 || op->output_count < 1)
    FAIL("IF: %u inputs and %u outputs (at least 3 and 1)", op->input_count, op->output_count);
  if (!is_condition(&sg->operands[op->inputs[0]]))
    FAIL("IF: the condition (operand %u) is not a TENSOR_BOOL8 of shape [1]", op->inputs[0]);
  vknn_status s = validate_branch(log, model, sg, op, 1, "IF then branch");
  if (s == VKNN_STATUS_NONE) s = validate_branch(log, model, sg, op, 2, "IF else branch");
  return s;
}

static vknn_status validate_cond(const vknn_logger *log, const vknn_subgraph *sg,
                                 const vknn_operation *op, const vknn_subgraph *cond) {
  if (cond->input_count != op->input_count - 2 || cond->output_count != 1)
    FAIL("WHILE condition: %u inputs and %u outputs, the WHILE passes %u and needs 1",
         cond->input_count, cond->output_count, op->input_count - 2);
  if (!is_condition(&cond->operands[cond->output_indexes[0]]))
    FAIL("WHILE condition: its output is not a TENSOR_BOOL8 of shape [1]");
  return inputs_agree(log, sg, op->inputs + 2, cond, "WHILE condition");
}

/* Body output i carries body input i to the next iteration: they agree (a
 * shape either leaves unknown may change). */
static vknn_status validate_body(const vknn_logger *log, const vknn_subgraph *sg,
                                 const vknn_operation *op, const vknn_subgraph *body) {
  if (body->input_count != op->input_count - 2 || body->output_count < op->output_count ||
      body->output_count > body->input_count)
    FAIL("WHILE body: %u inputs and %u outputs, the WHILE passes %u and returns %u",
         body->input_count, body->output_count, op->input_count - 2, op->output_count);
  vknn_status s = inputs_agree(log, sg, op->inputs + 2, body, "WHILE body");
  if (s == VKNN_STATUS_NONE) s = outputs_agree(log, sg, op->outputs, op->output_count, body, "WHILE body");
  for (uint32_t i = 0; i < body->output_count && s == VKNN_STATUS_NONE; ++i)
    if (!operands_agree(&body->operands[body->input_indexes[i]], &body->operands[body->output_indexes[i]]))
      FAIL("WHILE body: output %u does not agree with input %u", i, i);
  return s;
}

static vknn_status validate_while(const vknn_logger *log, const vknn_model *model,
                                  const vknn_subgraph *sg, const vknn_operation *op) {
  if (op->input_count < 3 || op->output_count < 1)
    FAIL("WHILE: %u inputs and %u outputs (at least 3 and 1)", op->input_count, op->output_count);
  const vknn_subgraph *cond = NULL, *body = NULL;
  vknn_status s = subgraph_operand(log, model, sg, op->inputs[0], "WHILE condition", &cond);
  if (s == VKNN_STATUS_NONE) s = subgraph_operand(log, model, sg, op->inputs[1], "WHILE body", &body);
  if (s == VKNN_STATUS_NONE) s = validate_cond(log, sg, op, cond);
  if (s == VKNN_STATUS_NONE) s = validate_body(log, sg, op, body);
  return s;
}

/* No input of IF or WHILE is optional: an omitted one (NO_VALUE) is invalid. */
static vknn_status validate_present(const vknn_logger *log, const vknn_subgraph *sg,
                                    const vknn_operation *op) {
  for (uint32_t i = 0; i < op->input_count; ++i)
    if (sg->operands[op->inputs[i]].lifetime == VKNN_LIFETIME_NO_VALUE)
      FAIL("%s: input %u (operand %u) has no value", vknn_operation_type_name(op->type), i,
           op->inputs[i]);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_control_flow_validate(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg, const vknn_operation *op) {
  vknn_status s = validate_present(log, sg, op);
  if (s != VKNN_STATUS_NONE) return s;
  return op->type == VKNN_OPERATION_IF ? validate_if(log, model, sg, op)
                                       : validate_while(log, model, sg, op);
}
