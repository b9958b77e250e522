/* ANeuralNetworksModel: operands, values, operations, inputs and outputs,
 * collected until finish freezes the model. As in the NNAPI runtime, a call
 * refused with BAD_DATA changes nothing (the model stays usable); a finish
 * that fails leaves the model invalid, and every later call that would
 * change or finish it is BAD_STATE. */
#include <string.h>

#include "ndk.h"

#define NDK_MAX_OPERATION_TYPE ANEURALNETWORKS_RANK

int ANeuralNetworksModel_create(ANeuralNetworksModel **model) {
  NDK_NOT_NULL(model);
  *model = ndk_alloc(sizeof(**model));
  return *model ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUT_OF_MEMORY;
}

void ANeuralNetworksModel_free(ANeuralNetworksModel *model) {
  if (model == NULL) return;
  for (uint32_t i = 0; i < model->operand_count; ++i) {
    ndk_free(model->operands[i].dimensions);
    ndk_free(model->operands[i].scales);
    ndk_free(model->operands[i].extension_data);
  }
  for (uint32_t i = 0; i < model->operation_count; ++i) {
    ndk_free(model->operations[i].inputs);
    ndk_free(model->operations[i].outputs);
  }
  ndk_free(model->operands);
  ndk_free(model->operations);
  ndk_free(model->added_index);
  ndk_free(model->inputs);
  ndk_free(model->outputs);
  ndk_free(model->values);
  ndk_free(model);
}

/* A call's argument refused: BAD_DATA, the model unchanged. */
#define NDK_MODEL_CHECK(model, cond, ...) NDK_REQUIRE(cond, ANEURALNETWORKS_BAD_DATA, __VA_ARGS__)
/* A check of finish: failing it leaves the model invalid. */
#define NDK_FINISH_CHECK(model, cond, ...)                                      \
  do {                                                                          \
    if (!(cond)) {                                                              \
      ndk_log_error(__func__, __VA_ARGS__);                                     \
      (model)->invalid = true;                                                  \
      return ANEURALNETWORKS_BAD_DATA;                                          \
    }                                                                           \
  } while (0)
#define NDK_MODEL_NOT_FINISHED(model)                                                   \
  NDK_REQUIRE(!(model)->finished && !(model)->invalid, ANEURALNETWORKS_BAD_STATE, "%s", \
              (model)->finished ? "the model is finished" : "an earlier finish found the model invalid")

/* A type of the NNAPI, or of a supported extension's operand types. */
static bool known_operand_type(int32_t type) {
  if (VKNN_EXTENSION_PREFIX(type) != 0) return ndk_extension_operand_info(type) != NULL;
  return (type >= ANEURALNETWORKS_FLOAT32 && type <= ANEURALNETWORKS_MODEL) ||
         type == VKNN_OPERAND_OEM || type == VKNN_OPERAND_TENSOR_OEM_BYTE;
}

/* The quantization parameters each type allows (NNAPI OperandCode): none
 * (scale and zero point 0) for the types without them, except TENSOR_INT32
 * (a quantized bias may carry its scale) and the OEM types. */
static bool quant_params_valid(const ANeuralNetworksOperandType *t) {
  switch (t->type) {
    case ANEURALNETWORKS_TENSOR_INT32:
    case VKNN_OPERAND_OEM:
    case VKNN_OPERAND_TENSOR_OEM_BYTE:
      return true;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
      return t->scale > 0.f && t->zeroPoint >= 0 && t->zeroPoint <= 255;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED:
      return t->scale > 0.f && t->zeroPoint >= -128 && t->zeroPoint <= 127;
    case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
      return t->scale > 0.f && t->zeroPoint >= 0 && t->zeroPoint <= 65535;
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM:
    case ANEURALNETWORKS_TENSOR_QUANT16_SYMM:
      return t->scale > 0.f && t->zeroPoint == 0;
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return t->scale == 0.f && t->zeroPoint == 0;
    default: /* an extension's parameters are its extension data */
      return t->scale == 0.f && t->zeroPoint == 0;
  }
}

int ANeuralNetworksModel_addOperand(ANeuralNetworksModel *model,
                                    const ANeuralNetworksOperandType *type) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(type);
  NDK_MODEL_NOT_FINISHED(model);
  NDK_MODEL_CHECK(model, known_operand_type(type->type), "unknown operand type %d", type->type);
  NDK_MODEL_CHECK(model, !ndk_type_is_scalar(type->type) || type->dimensionCount == 0,
                  "a scalar operand of type %d has %u dimensions", type->type, type->dimensionCount);
  NDK_MODEL_CHECK(model, (type->dimensionCount == 0) == (type->dimensions == NULL),
                  "dimensions is %s for rank %u", type->dimensions ? "given" : "NULL", type->dimensionCount);
  NDK_MODEL_CHECK(model, quant_params_valid(type), "scale %g and zero point %d are invalid for type %d",
                  (double)type->scale, type->zeroPoint, type->type);
  NDK_MODEL_CHECK(model, ndk_type_size_fits(type), "a tensor of more than 4 GiB");
  if (ndk_reserve((void **)&model->operands, &model->operand_capacity, model->operand_count + 1,
                  sizeof(ndk_operand)) != 0)
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  ndk_operand *o = &model->operands[model->operand_count];
  memset(o, 0, sizeof(*o));
  if (type->dimensionCount > 0) {
    o->dimensions = ndk_alloc(type->dimensionCount * sizeof(uint32_t));
    if (o->dimensions == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
    memcpy(o->dimensions, type->dimensions, type->dimensionCount * sizeof(uint32_t));
  }
  o->type = type->type;
  o->rank = type->dimensionCount;
  o->scale = type->scale;
  o->zero_point = type->zeroPoint;
  model->operand_count++;
  return ANEURALNETWORKS_NO_ERROR;
}

/* The bytes a value of the operand must have; 0 when its shape is not fully
 * known (a tensor of unknown rank included: rank 0 is a scalar's only). */
static size_t value_size(const ndk_operand *o) {
  if (o->rank == 0 && !ndk_type_is_scalar(o->type)) return 0;
  size_t size = ndk_element_size(o->type);
  for (uint32_t i = 0; i < o->rank; ++i) size *= o->dimensions[i];
  return size;
}

/* NNAPI: a tensor that takes a constant is fully specified (its rank and
 * every dimension known); a scalar always is. */
static bool fully_specified(const ndk_operand *o) {
  if (ndk_type_is_scalar(o->type)) return true;
  for (uint32_t i = 0; i < o->rank; ++i)
    if (o->dimensions[i] == 0) return false;
  return o->rank > 0;
}

/* The checks every setOperandValue* shares. */
static int check_value_target(ANeuralNetworksModel *model, int32_t index, const char *function) {
  if (model->finished || model->invalid) {
    ndk_log_error(function, model->finished ? "the model is finished" : "an earlier finish found the model invalid");
    return ANEURALNETWORKS_BAD_STATE;
  }
  if (index < 0 || (uint32_t)index >= model->operand_count) {
    ndk_log_error(function, "operand %d does not exist (%u operands)", index, model->operand_count);
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

static int copy_small_value(ANeuralNetworksModel *model, ndk_operand *o, const void *buffer,
                            size_t length) {
  if (length == 0) { /* an OEM scalar of no bytes: nothing to copy */
    o->value = NDK_VALUE_COPY;
    o->offset = o->length = 0;
    return ANEURALNETWORKS_NO_ERROR;
  }
  uint32_t offset = (model->values_size + 7u) & ~7u; /* aligned for any element type */
  if (ndk_reserve((void **)&model->values, &model->values_capacity, offset + (uint32_t)length, 1) != 0)
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  memcpy(model->values + offset, buffer, length);
  model->values_size = offset + (uint32_t)length;
  o->value = NDK_VALUE_COPY;
  o->offset = offset;
  o->length = length;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel *model, int32_t index,
                                         const void *buffer, size_t length) {
  NDK_NOT_NULL(model);
  NDK_REQUIRE(buffer != NULL || length == 0, ANEURALNETWORKS_UNEXPECTED_NULL,
              "buffer is NULL for %zu bytes", length);
  int r = check_value_target(model, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  ndk_operand *o = &model->operands[index];
  if (buffer == NULL) {
    o->value = NDK_VALUE_OMITTED;
    return ANEURALNETWORKS_NO_ERROR;
  }
  NDK_MODEL_CHECK(model, o->type != ANEURALNETWORKS_MODEL, "operand %d takes a model (setOperandValueFromModel)", index);
  NDK_MODEL_CHECK(model, fully_specified(o), "operand %d: a constant needs every dimension", index);
  NDK_MODEL_CHECK(model, length <= NDK_MAX_LOCATION, "%zu bytes are more than 4 GiB", length);
  size_t needed = value_size(o);
  NDK_MODEL_CHECK(model, needed == length || o->type == VKNN_OPERAND_OEM,
                  "operand %d needs %zu bytes, got %zu", index, needed, length);
  if (length <= ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES)
    return copy_small_value(model, o, buffer, length);
  /* Large values stay in the client's buffer until the compilation reads them. */
  o->value = NDK_VALUE_POINTER;
  o->pointer = buffer;
  o->length = length;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel *model, int32_t index,
                                                   const ANeuralNetworksMemory *memory,
                                                   size_t offset, size_t length) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(memory);
  int r = check_value_target(model, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  ndk_operand *o = &model->operands[index];
  NDK_MODEL_CHECK(model, memory->kind == NDK_MEMORY_FD,
                  "memory from a descriptor cannot hold a constant");
  NDK_MODEL_CHECK(model, offset <= memory->size && length <= memory->size - offset,
                  "bytes [%zu, +%zu) are outside the memory (%zu bytes)", offset, length, memory->size);
  NDK_MODEL_CHECK(model, offset <= NDK_MAX_LOCATION, "offset %zu is beyond 4 GiB", offset);
  NDK_MODEL_CHECK(model, fully_specified(o), "operand %d: a constant needs every dimension", index);
  size_t needed = value_size(o);
  NDK_MODEL_CHECK(model, needed == length, "operand %d needs %zu bytes, got %zu", index, needed, length);
  o->value = NDK_VALUE_MEMORY;
  o->memory = memory;
  o->offset = offset;
  o->length = length;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel *model, int32_t index,
                                                  const ANeuralNetworksModel *value) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(value);
  int r = check_value_target(model, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  NDK_REQUIRE(value->finished, ANEURALNETWORKS_BAD_STATE, "the referenced model is not finished");
  ndk_operand *o = &model->operands[index];
  NDK_MODEL_CHECK(model, o->type == ANEURALNETWORKS_MODEL, "operand %d is of type %d, not MODEL",
                  index, o->type);
  NDK_MODEL_CHECK(model, value != model, "a model cannot reference itself");
  o->value = NDK_VALUE_MODEL;
  o->model = value;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel *model, int32_t index,
    const ANeuralNetworksSymmPerChannelQuantParams *channelQuant) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(channelQuant);
  int r = check_value_target(model, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  ndk_operand *o = &model->operands[index];
  NDK_MODEL_CHECK(model, o->type == ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL,
                  "operand %d is not TENSOR_QUANT8_SYMM_PER_CHANNEL", index);
  NDK_MODEL_CHECK(model, channelQuant->channelDim < o->rank, "channel dimension %u is not below rank %u",
                  channelQuant->channelDim, o->rank);
  /* NNAPI: the channel dimension is never unknown (its scales are given now). */
  NDK_MODEL_CHECK(model, o->dimensions[channelQuant->channelDim] != 0, "channel dimension %u is unknown",
                  channelQuant->channelDim);
  NDK_MODEL_CHECK(model, channelQuant->scaleCount == o->dimensions[channelQuant->channelDim] &&
                             channelQuant->scales != NULL,
                  "%u scales for a channel dimension of %u", channelQuant->scaleCount,
                  o->dimensions[channelQuant->channelDim]);
  for (uint32_t i = 0; i < channelQuant->scaleCount; ++i)
    NDK_MODEL_CHECK(model, channelQuant->scales[i] > 0.f, "scale %u is not positive", i);
  float *scales = ndk_alloc(channelQuant->scaleCount * sizeof(float));
  if (scales == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  memcpy(scales, channelQuant->scales, channelQuant->scaleCount * sizeof(float));
  ndk_free(o->scales);
  o->scales = scales;
  o->scale_count = channelQuant->scaleCount;
  o->channel_dim = channelQuant->channelDim;
  return ANEURALNETWORKS_NO_ERROR;
}

/* An operation of the NNAPI, or of a supported extension (whose code the
 * driver checks). */
static bool known_operation_type(int32_t type) {
  if (VKNN_EXTENSION_PREFIX(type) != 0) return ndk_extension_operation_known(type);
  return (type >= 0 && type <= NDK_MAX_OPERATION_TYPE) || type == VKNN_OPERATION_OEM;
}

static uint32_t *copy_indexes(const uint32_t *indexes, uint32_t count) {
  uint32_t *copy = ndk_alloc(count * sizeof(uint32_t));
  if (copy != NULL && count > 0) memcpy(copy, indexes, count * sizeof(uint32_t));
  return copy;
}

static bool indexes_valid(const ANeuralNetworksModel *model, const uint32_t *indexes, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (indexes[i] >= model->operand_count) return false;
  return true;
}

/* The operation's signature rules, checked as it is added (as the runtime
 * does) on a model of that operation alone: values may come later, and
 * none is read. IF and WHILE wait for finish, as the models they name may
 * be set after them. */
static int validate_operation(const ANeuralNetworksModel *model, const ndk_operation *op) {
  if (op->type == ANEURALNETWORKS_IF || op->type == ANEURALNETWORKS_WHILE) return ANEURALNETWORKS_NO_ERROR;
  ANeuralNetworksDevice *device = NULL;
  /* No device to validate with: finish and compilation report it. */
  if (ndk_device_get(&device) != ANEURALNETWORKS_NO_ERROR) return ANEURALNETWORKS_NO_ERROR;
  ndk_flat_model flat;
  int r = ndk_flatten_operation(model, op, &flat);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  vknn_status s = vknn_device_validate_model(device->vk, &flat.model);
  ndk_flat_model_free(&flat);
  if (s == VKNN_STATUS_INVALID_ARGUMENT) {
    ndk_log_error("ANeuralNetworksModel_addOperation",
                  "operation type %d: its operands break its rules (the line before says how)", op->type);
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ndk_result_of(s);
}

int ANeuralNetworksModel_addOperation(ANeuralNetworksModel *model,
                                      ANeuralNetworksOperationType type, uint32_t inputCount,
                                      const uint32_t *inputs, uint32_t outputCount,
                                      const uint32_t *outputs) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(inputs);
  NDK_NOT_NULL(outputs);
  NDK_MODEL_NOT_FINISHED(model);
  NDK_MODEL_CHECK(model, known_operation_type(type), "unknown operation type %d", type);
  NDK_MODEL_CHECK(model, indexes_valid(model, inputs, inputCount) && indexes_valid(model, outputs, outputCount),
                  "an operand index is out of range (%u operands)", model->operand_count);
  if (ndk_reserve((void **)&model->operations, &model->operation_capacity,
                  model->operation_count + 1, sizeof(ndk_operation)) != 0)
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  ndk_operation *op = &model->operations[model->operation_count];
  op->inputs = copy_indexes(inputs, inputCount);
  op->outputs = copy_indexes(outputs, outputCount);
  if (op->inputs == NULL || op->outputs == NULL) {
    ndk_free(op->inputs);
    ndk_free(op->outputs);
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  op->type = type;
  op->input_count = inputCount;
  op->output_count = outputCount;
  int r = validate_operation(model, op);
  if (r != ANEURALNETWORKS_NO_ERROR) {
    ndk_free(op->inputs);
    ndk_free(op->outputs);
    return r;
  }
  model->operation_count++;
  return ANEURALNETWORKS_NO_ERROR;
}

/* Model inputs and outputs are operands without a value, each listed once. */
static bool io_list_valid(ANeuralNetworksModel *model, const uint32_t *indexes, uint32_t count,
                          bool inputs) {
  for (uint32_t i = 0; i < count; ++i) {
    if (indexes[i] >= model->operand_count) return false;
    ndk_operand *o = &model->operands[indexes[i]];
    if (o->value != NDK_VALUE_NONE || o->is_input || o->is_output) return false;
    if (inputs) o->is_input = true;
    else o->is_output = true;
  }
  return true;
}

static void clear_io_flags(ANeuralNetworksModel *model) {
  for (uint32_t i = 0; i < model->operand_count; ++i)
    model->operands[i].is_input = model->operands[i].is_output = false;
}

/* The flags of the lists identified before (a refused call changes nothing). */
static void restore_io_flags(ANeuralNetworksModel *model) {
  clear_io_flags(model);
  for (uint32_t i = 0; i < model->input_count; ++i) model->operands[model->inputs[i]].is_input = true;
  for (uint32_t i = 0; i < model->output_count; ++i) model->operands[model->outputs[i]].is_output = true;
}

int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel *model,
                                                  uint32_t inputCount, const uint32_t *inputs,
                                                  uint32_t outputCount, const uint32_t *outputs) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(inputs);
  NDK_NOT_NULL(outputs);
  NDK_MODEL_NOT_FINISHED(model);
  clear_io_flags(model);
  if (!io_list_valid(model, inputs, inputCount, true) || !io_list_valid(model, outputs, outputCount, false)) {
    restore_io_flags(model);
    ndk_log_error(__func__, "an input or output is out of range, has a value, or is listed twice");
    return ANEURALNETWORKS_BAD_DATA;
  }
  uint32_t *in = copy_indexes(inputs, inputCount), *out = copy_indexes(outputs, outputCount);
  if (in == NULL || out == NULL) {
    ndk_free(in);
    ndk_free(out);
    restore_io_flags(model);
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  ndk_free(model->inputs);
  ndk_free(model->outputs);
  model->inputs = in;
  model->outputs = out;
  model->input_count = inputCount;
  model->output_count = outputCount;
  model->io_identified = true;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel *model, bool allow) {
  NDK_NOT_NULL(model);
  NDK_MODEL_NOT_FINISHED(model);
  model->relaxed = allow;
  return ANEURALNETWORKS_NO_ERROR;
}

/* Whether operand index has a value before any operation runs. */
static bool available_at_start(const ANeuralNetworksModel *model, uint32_t index) {
  const ndk_operand *o = &model->operands[index];
  return o->value != NDK_VALUE_NONE || o->is_input;
}

/* Puts the operations in an order where each runs after the producers of its
 * inputs (the order vknn runs them in); -1 when no such order exists. */
static int sort_into_run_order(ANeuralNetworksModel *model) {
  /* Sorted by an earlier finish that failed later (out of memory): the
   * operations are in run order and added_index already maps them. */
  if (model->added_index != NULL) return 0;
  uint32_t n = model->operation_count, done = 0;
  bool *ready = ndk_alloc(model->operand_count * sizeof(bool));
  ndk_operation *sorted = ndk_alloc(n * sizeof(ndk_operation));
  bool *placed = ndk_alloc(n * sizeof(bool));
  uint32_t *added = ndk_alloc((n ? n : 1) * sizeof(uint32_t));
  int result = (ready && sorted && placed && added) ? 0 : -1;
  for (uint32_t i = 0; result == 0 && i < model->operand_count; ++i) ready[i] = available_at_start(model, i);
  for (bool progress = true; result == 0 && progress && done < n;) {
    progress = false;
    for (uint32_t i = 0; i < n; ++i) {
      const ndk_operation *op = &model->operations[i];
      bool runnable = !placed[i];
      for (uint32_t k = 0; runnable && k < op->input_count; ++k) runnable = ready[op->inputs[k]];
      if (!runnable) continue;
      for (uint32_t k = 0; k < op->output_count; ++k) ready[op->outputs[k]] = true;
      added[done] = i;
      sorted[done++] = *op;
      placed[i] = progress = true;
    }
  }
  if (result == 0 && done == n) {
    if (n > 0) memcpy(model->operations, sorted, n * sizeof(ndk_operation));
    model->added_index = added;
    added = NULL;
  } else {
    result = -1;
  }
  ndk_free(added);
  ndk_free(ready);
  ndk_free(sorted);
  ndk_free(placed);
  return result;
}

/* The NNAPI runtime validates a model when it is finished: vknn's rules
 * (the HAL's model rules, every operation's signature) on the flattened
 * model, BAD_DATA and the model invalid when they fail. */
static int validate_flat(ANeuralNetworksModel *model) {
  ANeuralNetworksDevice *device = NULL;
  /* No device to validate with: the model finishes, and compiling it
   * reports the missing device. */
  if (ndk_device_get(&device) != ANEURALNETWORKS_NO_ERROR) return ANEURALNETWORKS_NO_ERROR;
  ndk_flat_model flat;
  int r = ndk_flatten(model, &flat);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  vknn_status s = vknn_device_validate_model(device->vk, &flat.model);
  ndk_flat_model_free(&flat);
  if (s == VKNN_STATUS_INVALID_ARGUMENT) {
    ndk_log_error("ANeuralNetworksModel_finish", "the model is invalid (the line before says why)");
    model->invalid = true;
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ndk_result_of(s);
}

int ANeuralNetworksModel_finish(ANeuralNetworksModel *model) {
  NDK_NOT_NULL(model);
  NDK_MODEL_NOT_FINISHED(model);
  NDK_FINISH_CHECK(model, model->io_identified, "inputs and outputs were never identified");
  for (uint32_t i = 0; i < model->operand_count; ++i)
    NDK_FINISH_CHECK(model, model->operands[i].type != ANEURALNETWORKS_MODEL ||
                                model->operands[i].value == NDK_VALUE_MODEL,
                     "operand %u of type MODEL has no model", i);
  NDK_FINISH_CHECK(model, sort_into_run_order(model) == 0,
                  "an operation reads an operand that nothing writes before it (a cycle?)");
  int r = validate_flat(model);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  model->finished = true;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksModel_getSupportedOperationsForDevices(
    const ANeuralNetworksModel *model, const ANeuralNetworksDevice *const *devices,
    uint32_t numDevices, bool *supportedOps) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(supportedOps);
  int r = ndk_device_check_list(__func__, devices, numDevices);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  NDK_REQUIRE(model->finished, ANEURALNETWORKS_BAD_STATE, "the model is not finished");
  if (model->operation_count == 0) return ANEURALNETWORKS_NO_ERROR;
  ndk_flat_model flat;
  r = ndk_flatten(model, &flat);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  bool *in_run_order = ndk_alloc(model->operation_count * sizeof(bool));
  vknn_status s = in_run_order == NULL ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                                       : vknn_device_get_supported_operations(devices[0]->vk, &flat.model,
                                                                              in_run_order, model->operation_count);
  ndk_flat_model_free(&flat);
  /* The answers in the order the operations were added (NNAPI), not the
   * run order finish sorted them into. */
  for (uint32_t k = 0; s == VKNN_STATUS_NONE && k < model->operation_count; ++k)
    supportedOps[model->added_index[k]] = in_run_order[k];
  ndk_free(in_run_order);
  NDK_REQUIRE(s == VKNN_STATUS_NONE, ndk_result_of(s), "the support query failed: %s", vknn_status_name(s));
  return ANEURALNETWORKS_NO_ERROR;
}

/* Extension types are the same in every model (ndk_device.c): the
 * extension's prefix, the code within it. A query changes nothing, so a
 * finished model answers it too (as in the NNAPI runtime). */
static int extension_type(const char *function, const char *name, uint16_t code, int32_t *type) {
  uint16_t prefix;
  int r = ndk_extension_prefix(function, name, &prefix);
  if (r == ANEURALNETWORKS_NO_ERROR) *type = VKNN_EXTENSION_TYPE(prefix, code);
  return r;
}

int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel *model,
                                                 const char *extensionName,
                                                 uint16_t operandCodeWithinExtension, int32_t *type) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(extensionName);
  NDK_NOT_NULL(type);
  return extension_type(__func__, extensionName, operandCodeWithinExtension, type);
}

int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel *model,
                                                   const char *extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType *type) {
  NDK_NOT_NULL(model);
  NDK_NOT_NULL(extensionName);
  NDK_NOT_NULL(type);
  return extension_type(__func__, extensionName, operationCodeWithinExtension, type);
}

/* The bytes go to the driver as the operand's extraParams.extension, which
 * the driver checks (an extension's data are its own business). */
int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel *model, int32_t index,
                                                 const void *data, size_t length) {
  NDK_NOT_NULL(model);
  NDK_REQUIRE(data != NULL || length == 0, ANEURALNETWORKS_UNEXPECTED_NULL, "data is NULL");
  int r = check_value_target(model, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  ndk_operand *o = &model->operands[index];
  NDK_MODEL_CHECK(model, VKNN_EXTENSION_PREFIX(o->type) != 0,
                  "operand %d is not of an extension type", index);
  uint8_t *copy = NULL;
  if (length > 0) {
    copy = ndk_alloc(length);
    if (copy == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
    memcpy(copy, data, length);
  }
  ndk_free(o->extension_data);
  o->extension_data = copy;
  o->extension_size = length;
  return ANEURALNETWORKS_NO_ERROR;
}
