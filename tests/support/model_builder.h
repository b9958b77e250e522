/* Builds small models for unit tests, operand by operand. */
#pragma once
#include "vknn/vknn.h"

#define MB_MAX_OPERANDS 64
#define MB_MAX_OPERATIONS 16
#define MB_MAX_IO 16 /* model inputs, and model outputs */

typedef struct model_builder {
  vknn_operand operands[MB_MAX_OPERANDS];
  uint32_t dims[MB_MAX_OPERANDS][VKNN_MAX_RANK];
  uint32_t operand_count;
  vknn_operation operations[MB_MAX_OPERATIONS];
  uint32_t operation_count;
  uint32_t indexes[MB_MAX_OPERATIONS * 16];
  uint32_t index_count;
  uint8_t values[1 << 14];
  size_t values_size;
  uint32_t inputs[MB_MAX_IO], input_count;
  uint32_t outputs[MB_MAX_IO], output_count;
  vknn_model model;
  /* The model's extensionNameToPrefix (none when count is 0). */
  const vknn_extension_prefix *extension_names;
  uint32_t extension_name_count;
  /* Where constants go: this builder's values, or (a referenced subgraph)
   * those of the main subgraph's builder, since a model has one operandValues. */
  struct model_builder *values_owner;
  bool relaxed; /* the model's relaxComputationFloat32toFloat16 */
} model_builder;

void mb_init(model_builder *b);
/* A model input, a model output or a temporary tensor. */
uint32_t mb_input(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank);
uint32_t mb_output(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank);
uint32_t mb_temporary(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank);
/* Constants (CONSTANT_COPY). */
uint32_t mb_const_i32(model_builder *b, int32_t value);
/* A constant tensor of zeros (every element zero bytes, whatever the type). */
uint32_t mb_const_zeros(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank);
uint32_t mb_const_tensor(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank,
                         const void *data, size_t size);
/* An operation; counts the consumers of its inputs. */
void mb_operation(model_builder *b, int32_t type, const uint32_t *inputs, uint32_t input_count,
                  const uint32_t *outputs, uint32_t output_count);
/* Operation input k of operation `operation` becomes operand (the consumer
 * counts follow). */
void mb_replace_input(model_builder *b, uint32_t operation, uint32_t k, uint32_t operand);
/* An operand's scale and zero point. */
void mb_set_quant(model_builder *b, uint32_t operand, float scale, int32_t zero);
/* A SUBGRAPH operand naming referenced subgraph index. */
uint32_t mb_subgraph(model_builder *b, uint32_t index);
/* The model, valid while b lives. */
const vknn_model *mb_finish(model_builder *b);
/* The model with referenced subgraphs: subgraphs[i] (built with
 * values_owner = b) becomes referenced[i]; referenced must hold count. */
const vknn_model *mb_finish_referencing(model_builder *b, model_builder *subgraphs,
                                        uint32_t count, vknn_subgraph *referenced);
