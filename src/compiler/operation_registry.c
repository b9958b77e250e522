#include "compiler/operation_registry.h"

#include <stddef.h>

#include "compiler/control_flow.h"
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

/* Each implemented operation's own signature rules, over every subgraph. */
static vknn_status validate_signatures(const vknn_logger *log, const vknn_model *model,
                                       const vknn_subgraph *sg) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    const vknn_op_def *def = vknn_op_find(op->type);
    vknn_status s = VKNN_STATUS_NONE;
    if (vknn_is_control_flow(op->type)) s = vknn_control_flow_validate(log, model, sg, op);
    else if (def != NULL) s = def->validate(log, model, sg, op);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_compiler_validate_model(const vknn_logger *log, const vknn_model *model) {
  vknn_status s = vknn_validate_model(log, model);
  if (s == VKNN_STATUS_NONE) s = validate_signatures(log, model, &model->main);
  /* s first: model may be NULL (then invalid). */
  for (uint32_t i = 0; s == VKNN_STATUS_NONE && i < model->referenced_count; ++i)
    s = validate_signatures(log, model, &model->referenced[i]);
  return s;
}
