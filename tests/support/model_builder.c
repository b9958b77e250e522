#include "model_builder.h"

#include "model/operand_type.h"

#include <string.h>

void mb_init(model_builder *b) { memset(b, 0, sizeof(*b)); }

static uint32_t add_operand(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank,
                            vknn_operand_lifetime lifetime) {
  uint32_t i = b->operand_count++;
  if (rank > 0) memcpy(b->dims[i], dims, rank * sizeof(uint32_t));
  b->operands[i] = (vknn_operand){.type = type, .dimension_count = rank, .dimensions = b->dims[i],
                                  .lifetime = lifetime};
  return i;
}

uint32_t mb_input(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = add_operand(b, type, dims, rank, VKNN_LIFETIME_SUBGRAPH_INPUT);
  b->inputs[b->input_count++] = i;
  return i;
}

uint32_t mb_output(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = add_operand(b, type, dims, rank, VKNN_LIFETIME_SUBGRAPH_OUTPUT);
  b->outputs[b->output_count++] = i;
  return i;
}

uint32_t mb_temporary(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank) {
  return add_operand(b, type, dims, rank, VKNN_LIFETIME_TEMPORARY_VARIABLE);
}

uint32_t mb_const_tensor(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank,
                         const void *data, size_t size) {
  uint32_t i = add_operand(b, type, dims, rank, VKNN_LIFETIME_CONSTANT_COPY);
  model_builder *v = b->values_owner != NULL ? b->values_owner : b;
  size_t offset = (v->values_size + 3) & ~(size_t)3;
  memcpy(v->values + offset, data, size);
  v->values_size = offset + size;
  b->operands[i].location = (vknn_data_location){0, (uint32_t)offset, (uint32_t)size};
  return i;
}

uint32_t mb_const_zeros(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank) {
  size_t size = vknn_operand_type_element_size(type);
  for (uint32_t d = 0; d < rank; ++d) size *= dims[d];
  uint32_t i = add_operand(b, type, dims, rank, VKNN_LIFETIME_CONSTANT_COPY);
  model_builder *v = b->values_owner != NULL ? b->values_owner : b;
  size_t offset = (v->values_size + 3) & ~(size_t)3;
  memset(v->values + offset, 0, size);
  v->values_size = offset + size;
  b->operands[i].location = (vknn_data_location){0, (uint32_t)offset, (uint32_t)size};
  return i;
}

uint32_t mb_const_i32(model_builder *b, int32_t value) {
  return mb_const_tensor(b, VKNN_OPERAND_INT32, NULL, 0, &value, sizeof(value));
}

void mb_operation(model_builder *b, int32_t type, const uint32_t *inputs, uint32_t input_count,
                  const uint32_t *outputs, uint32_t output_count) {
  uint32_t *in = &b->indexes[b->index_count];
  memcpy(in, inputs, input_count * sizeof(uint32_t));
  uint32_t *out = in + input_count;
  memcpy(out, outputs, output_count * sizeof(uint32_t));
  b->index_count += input_count + output_count;
  for (uint32_t i = 0; i < input_count; ++i) b->operands[inputs[i]].number_of_consumers++;
  b->operations[b->operation_count++] = (vknn_operation){type, in, input_count, out, output_count};
}

const vknn_model *mb_finish(model_builder *b) {
  b->model = (vknn_model){
      .main = {b->operands, b->operand_count, b->operations, b->operation_count, b->inputs,
               b->input_count, b->outputs, b->output_count},
      .operand_values = b->values,
      .operand_values_size = b->values_size,
      .extension_name_to_prefix = b->extension_names,
      .extension_name_to_prefix_count = b->extension_name_count,
      .relax_computation_float32_to_float16 = b->relaxed};
  return &b->model;
}

uint32_t mb_subgraph(model_builder *b, uint32_t index) {
  uint32_t i = add_operand(b, VKNN_OPERAND_SUBGRAPH, NULL, 0, VKNN_LIFETIME_SUBGRAPH);
  b->operands[i].location.offset = index;
  return i;
}

const vknn_model *mb_finish_referencing(model_builder *b, model_builder *subgraphs,
                                        uint32_t count, vknn_subgraph *referenced) {
  for (uint32_t i = 0; i < count; ++i) referenced[i] = mb_finish(&subgraphs[i])->main;
  mb_finish(b);
  b->model.referenced = referenced;
  b->model.referenced_count = count;
  return &b->model;
}

void mb_replace_input(model_builder *b, uint32_t operation, uint32_t k, uint32_t operand) {
  vknn_operation *op = &b->operations[operation];
  b->operands[op->inputs[k]].number_of_consumers--;
  b->operands[operand].number_of_consumers++;
  ((uint32_t *)op->inputs)[k] = operand;
}

void mb_set_quant(model_builder *b, uint32_t operand, float scale, int32_t zero) {
  b->operands[operand].scale = scale;
  b->operands[operand].zero_point = zero;
}
