#include "compiler/operation_registry.h"

#include <stddef.h>

#include "compiler/control_flow_validate.h"
#include "model/extension.h"
#include "model/model_validate.h"

#define VKNN_OP(TYPE, family, name) extern const vknn_op_def vknn_op_##name;
#include "ops/op_list.h"
#undef VKNN_OP

typedef struct registry_row {
  int32_t type;
  const vknn_op_def *def;
} registry_row;

static const registry_row implemented[] = {
#define VKNN_OP(TYPE, family, name) {VKNN_OPERATION_##TYPE, &vknn_op_##name},
#include "ops/op_list.h"
#undef VKNN_OP
};

const vknn_op_def *vknn_op_find(int32_t type) {
  for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); ++i)
    if (implemented[i].type == type) return implemented[i].def;
  return NULL;
}

const vknn_op_def *vknn_op_find_in(const vknn_model *model, int32_t type) {
  return vknn_op_find(vknn_model_operation_type(model, type));
}

static bool operands_fit(const vknn_subgraph *sg, const uint32_t *list, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (sg->operands[list[i]].dimension_count > VKNN_MAX_RANK) return false;
  return true;
}

bool vknn_operation_ranks_fit(const vknn_subgraph *sg, const vknn_operation *op) {
  return operands_fit(sg, op->inputs, op->input_count) && operands_fit(sg, op->outputs, op->output_count);
}

static bool subgraph_ranks_fit(const vknn_subgraph *sg) {
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    if (sg->operands[i].dimension_count > VKNN_MAX_RANK) return false;
  return true;
}

bool vknn_model_ranks_fit(const vknn_model *model) {
  bool fit = subgraph_ranks_fit(&model->main);
  for (uint32_t i = 0; fit && i < model->referenced_count; ++i) fit = subgraph_ranks_fit(&model->referenced[i]);
  return fit;
}

vknn_status vknn_compiler_validate_signatures(const vknn_logger *log, const vknn_model *model,
                                              const vknn_subgraph *sg) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    const vknn_op_def *def = vknn_op_find_in(model, op->type);
    vknn_status s = VKNN_STATUS_NONE;
    if (vknn_is_control_flow(op->type)) s = vknn_control_flow_validate(log, model, sg, op);
    else if (def != NULL && vknn_operation_ranks_fit(sg, op)) s = def->validate(log, model, sg, op);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_compiler_validate_model(const vknn_logger *log, const vknn_model *model) {
  vknn_status s = vknn_validate_model(log, model);
  if (s == VKNN_STATUS_NONE) s = vknn_compiler_validate_signatures(log, model, &model->main);
  /* s first: model may be NULL (then invalid). */
  for (uint32_t i = 0; s == VKNN_STATUS_NONE && i < model->referenced_count; ++i)
    s = vknn_compiler_validate_signatures(log, model, &model->referenced[i]);
  if (s == VKNN_STATUS_NONE) s = vknn_validate_model_references(log, model);
  return s;
}

/* The inputs (bit i: input i) an operation reads as data only: no validate,
 * infer or lower reads their values. The binary family (src/ops/binary.c)
 * reads one value, the activation (input 2). Operations not listed: none
 * known, so every input may decide something. */
static uint32_t data_inputs(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_ADD: case VKNN_OPERATION_SUB: case VKNN_OPERATION_MUL:
    case VKNN_OPERATION_DIV: case VKNN_OPERATION_MAXIMUM: case VKNN_OPERATION_MINIMUM:
    case VKNN_OPERATION_POW: case VKNN_OPERATION_PRELU: case VKNN_OPERATION_EQUAL:
    case VKNN_OPERATION_NOT_EQUAL: case VKNN_OPERATION_LESS: case VKNN_OPERATION_LESS_EQUAL:
    case VKNN_OPERATION_GREATER: case VKNN_OPERATION_GREATER_EQUAL:
    case VKNN_OPERATION_LOGICAL_AND: case VKNN_OPERATION_LOGICAL_OR:
      return 0x3u;
    case VKNN_OPERATION_LOGICAL_NOT:
      return 0x1u;
    default:
      return 0;
  }
}

bool vknn_operand_read_only_as_data(const vknn_subgraph *sg, uint32_t operand) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    for (uint32_t i = 0; i < op->input_count; ++i)
      if (op->inputs[i] == operand && (i >= 32 || (data_inputs(op->type) & (1u << i)) == 0))
        return false;
  }
  return true;
}
