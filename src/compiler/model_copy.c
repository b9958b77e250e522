#include "compiler/model_copy.h"
#include "util/fault_injection.h"

#include <stdlib.h>
#include <string.h>

void *vknn_model_copy_own(vknn_model_copy *copy, size_t size) {
  void **blocks = vknn_realloc(copy->blocks, (copy->block_count + 1) * sizeof(void *));
  if (blocks == NULL) return NULL;
  copy->blocks = blocks;
  void *p = vknn_calloc(1, size ? size : 1);
  if (p != NULL) copy->blocks[copy->block_count++] = p;
  return p;
}

static void *own_copy(vknn_model_copy *copy, const void *src, size_t size, bool *ok) {
  if (size == 0 || src == NULL) return NULL;
  void *p = vknn_model_copy_own(copy, size);
  if (p == NULL) *ok = false;
  else memcpy(p, src, size);
  return p;
}

size_t vknn_model_copy_value_slot(size_t length) { return (length + 7u) & ~(size_t)7; }

static size_t constants_size(const vknn_graph *graph) {
  size_t size = 0;
  for (uint32_t i = 0; i < graph->sg->operand_count; ++i)
    if (graph->tensors[i].constant_data != NULL)
      size += vknn_model_copy_value_slot(graph->sg->operands[i].location.length);
  return size;
}

static bool copy_operands(vknn_model_copy *copy, const vknn_graph *graph, uint8_t *values) {
  const vknn_subgraph *sg = graph->sg;
  vknn_operand *operands = vknn_model_copy_own(copy, sg->operand_count * sizeof(vknn_operand));
  bool ok = operands != NULL;
  size_t offset = 0;
  for (uint32_t i = 0; ok && i < sg->operand_count; ++i) {
    vknn_operand *o = &operands[i];
    *o = sg->operands[i];
    o->dimensions = own_copy(copy, o->dimensions, o->dimension_count * sizeof(uint32_t), &ok);
    vknn_operand_extra_params *x = &o->extra_params;
    x->channel_quant.scales =
        own_copy(copy, x->channel_quant.scales, x->channel_quant.scale_count * sizeof(float), &ok);
    x->extension.data = own_copy(copy, x->extension.data, x->extension.size, &ok);
    if (graph->tensors[i].constant_data != NULL) {
      memcpy(values + offset, graph->tensors[i].constant_data, o->location.length);
      o->lifetime = VKNN_LIFETIME_CONSTANT_COPY;
      o->location = (vknn_data_location){.pool_index = 0, .offset = (uint32_t)offset,
                                         .length = o->location.length};
      offset += vknn_model_copy_value_slot(o->location.length);
    }
  }
  copy->model.main.operands = operands;
  return ok;
}

static bool copy_operations(vknn_model_copy *copy, const vknn_subgraph *sg) {
  vknn_operation *ops = vknn_model_copy_own(copy, sg->operation_count * sizeof(vknn_operation));
  bool ok = ops != NULL;
  for (uint32_t k = 0; ok && k < sg->operation_count; ++k) {
    ops[k] = sg->operations[k];
    ops[k].inputs = own_copy(copy, ops[k].inputs, ops[k].input_count * sizeof(uint32_t), &ok);
    ops[k].outputs = own_copy(copy, ops[k].outputs, ops[k].output_count * sizeof(uint32_t), &ok);
  }
  copy->model.main.operations = ops;
  return ok;
}

static bool copy_extension_names(vknn_model_copy *copy, const vknn_model *model) {
  uint32_t n = model->extension_name_to_prefix_count;
  if (n == 0) return true;
  vknn_extension_prefix *prefixes = vknn_model_copy_own(copy, n * sizeof(*prefixes));
  bool ok = prefixes != NULL;
  for (uint32_t i = 0; ok && i < n; ++i) {
    prefixes[i] = model->extension_name_to_prefix[i];
    const char *name = prefixes[i].name;
    prefixes[i].name = own_copy(copy, name, name ? strlen(name) + 1 : 0, &ok);
  }
  copy->model.extension_name_to_prefix = prefixes;
  return ok;
}

vknn_status vknn_model_copy_make(const vknn_graph *graph, vknn_model_copy *out) {
  memset(out, 0, sizeof(*out));
  const vknn_subgraph *sg = graph->sg;
  vknn_subgraph *main = &out->model.main;
  *main = *sg;
  out->model.relax_computation_float32_to_float16 = graph->model->relax_computation_float32_to_float16;
  out->model.extension_name_to_prefix_count = graph->model->extension_name_to_prefix_count;
  size_t values_size = constants_size(graph);
  uint8_t *values = vknn_model_copy_own(out, values_size);
  bool ok = values != NULL && copy_operands(out, graph, values) && copy_operations(out, sg) &&
            copy_extension_names(out, graph->model);
  out->model.operand_values = values;
  out->model.operand_values_size = values_size;
  main->input_indexes = own_copy(out, sg->input_indexes, sg->input_count * sizeof(uint32_t), &ok);
  main->output_indexes =
      own_copy(out, sg->output_indexes, sg->output_count * sizeof(uint32_t), &ok);
  if (graph->op_sources != NULL)
    out->op_sources = own_copy(out, graph->op_sources, sg->operation_count * sizeof(uint32_t), &ok);
  if (ok) return VKNN_STATUS_NONE;
  vknn_model_copy_free(out);
  return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
}

void vknn_model_copy_free(vknn_model_copy *copy) {
  for (uint32_t i = 0; i < copy->block_count; ++i) free(copy->blocks[i]);
  free(copy->blocks);
  memset(copy, 0, sizeof(*copy));
}
