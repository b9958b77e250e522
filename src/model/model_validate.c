#include "model/model_validate.h"

#include <stdlib.h>
#include <string.h>

#include "memory/memory_pool.h"
#include "model/extension.h"
#include "model/operand_type.h"
#include "util/fault_injection.h"

#define FAIL(...)                                  \
  do {                                             \
    VKNN_LOG_E(v->log, "model", __VA_ARGS__);      \
    return VKNN_STATUS_INVALID_ARGUMENT;           \
  } while (0)

typedef struct validator {
  const vknn_logger *log;
  const vknn_model *model;
  const vknn_subgraph *sg;
  uint32_t sg_index; /* 0 = main, i+1 = referenced[i] */
} validator;

uint64_t vknn_operand_byte_size(const vknn_operand *operand) {
  uint32_t element = vknn_operand_type_element_size(operand->type);
  if (element == 0) return UINT64_MAX;
  if (vknn_operand_type_is_scalar(operand->type)) return element;
  if (operand->dimension_count == 0) return 0;
  return vknn_saturating_bytes(vknn_shape_element_count(operand->dimensions, operand->dimension_count),
                               element);
}

static vknn_status validate_extension_table(const validator *v) {
  const vknn_model *m = v->model;
  if (m->extension_name_to_prefix_count > 0 && m->extension_name_to_prefix == NULL)
    FAIL("extensionNameToPrefix is NULL with %u entries", m->extension_name_to_prefix_count);
  for (uint32_t i = 0; i < m->extension_name_to_prefix_count; ++i) {
    const vknn_extension_prefix *e = &m->extension_name_to_prefix[i];
    if (e->name == NULL || e->name[0] == '\0') FAIL("extension %u has no name", i);
    if (e->prefix == 0) FAIL("extension %s has prefix 0, which means no extension", e->name);
    for (uint32_t j = 0; j < i; ++j) {
      if (m->extension_name_to_prefix[j].prefix == e->prefix)
        FAIL("extension prefix %u is used twice", e->prefix);
      if (strcmp(m->extension_name_to_prefix[j].name, e->name) == 0)
        FAIL("extension %s is listed twice", e->name);
    }
  }
  return VKNN_STATUS_NONE;
}

/* Scale and zero point rules per type (HAL validateOperand). */
static vknn_status validate_quantization(const validator *v, uint32_t index,
                                         const vknn_operand *o) {
  const char *name = vknn_operand_type_name(o->type);
  switch (o->type) {
    case VKNN_OPERAND_TENSOR_INT32:
      if (o->scale < 0.f || o->zero_point != 0)
        FAIL("operand %u (%s): scale must be >= 0 and zeroPoint 0", index, name);
      return VKNN_STATUS_NONE;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM:
      if (!(o->scale > 0.f) || o->zero_point < 0 || o->zero_point > 255)
        FAIL("operand %u (%s): scale %g must be > 0, zeroPoint %d in [0, 255]", index, name,
             o->scale, o->zero_point);
      return VKNN_STATUS_NONE;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
      if (!(o->scale > 0.f) || o->zero_point < -128 || o->zero_point > 127)
        FAIL("operand %u (%s): scale %g must be > 0, zeroPoint %d in [-128, 127]", index, name,
             o->scale, o->zero_point);
      return VKNN_STATUS_NONE;
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM:
      if (!(o->scale > 0.f) || o->zero_point < 0 || o->zero_point > 65535)
        FAIL("operand %u (%s): scale %g must be > 0, zeroPoint %d in [0, 65535]", index, name,
             o->scale, o->zero_point);
      return VKNN_STATUS_NONE;
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM:
      if (!(o->scale > 0.f) || o->zero_point != 0)
        FAIL("operand %u (%s): scale %g must be > 0 and zeroPoint 0", index, name, o->scale);
      return VKNN_STATUS_NONE;
    default:
      if (o->scale != 0.f || o->zero_point != 0)
        FAIL("operand %u (%s): scale and zeroPoint must be 0", index, name);
      return VKNN_STATUS_NONE;
  }
}

static vknn_status validate_channel_quant(const validator *v, uint32_t index,
                                          const vknn_operand *o) {
  const vknn_operand_extra_params *x = &o->extra_params;
  if (x->kind != VKNN_EXTRA_PARAMS_CHANNEL_QUANT)
    FAIL("operand %u (TENSOR_QUANT8_SYMM_PER_CHANNEL) needs channel quantization params", index);
  if (x->channel_quant.channel_dim >= o->dimension_count)
    FAIL("operand %u: channelDim %u out of rank %u", index, x->channel_quant.channel_dim,
         o->dimension_count);
  uint32_t channels = o->dimensions[x->channel_quant.channel_dim];
  if (channels == 0 || x->channel_quant.scale_count != channels || x->channel_quant.scales == NULL)
    FAIL("operand %u: %u channel scales for channel dimension %u", index,
         x->channel_quant.scale_count, channels);
  for (uint32_t i = 0; i < channels; ++i)
    if (!(x->channel_quant.scales[i] > 0.f))
      FAIL("operand %u: channel scale %u is not > 0", index, i);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_extra_params(const validator *v, uint32_t index,
                                         const vknn_operand *o) {
  if (o->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return validate_channel_quant(v, index, o);
  if (vknn_operand_type_is_extension(o->type)) {
    /* An implemented extension's operand was checked with its type. */
    if (o->extra_params.kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT)
      FAIL("operand %u: extension type with channel quantization params", index);
    if (o->extra_params.kind == VKNN_EXTRA_PARAMS_EXTENSION && o->extra_params.extension.size &&
        o->extra_params.extension.data == NULL)
      FAIL("operand %u: extension params without data", index);
    return VKNN_STATUS_NONE;
  }
  if (o->extra_params.kind != VKNN_EXTRA_PARAMS_NONE)
    FAIL("operand %u (%s): unexpected extra params", index, vknn_operand_type_name(o->type));
  return VKNN_STATUS_NONE;
}

/* An extension operand: its prefix must be in the model's table; the driver
 * checks the types of the extensions it implements (model/extension.c) and
 * leaves those of others alone (their operations are unsupported). */
static vknn_status validate_extension_operand(const validator *v, uint32_t index,
                                              const vknn_operand *o) {
  int32_t canonical;
  switch (vknn_ext_decode_operand(v->model, o->type, &canonical)) {
    case VKNN_EXT_NO_PREFIX:
      FAIL("operand %u: extension type 0x%x has no prefix in extensionNameToPrefix", index,
           (unsigned)o->type);
    case VKNN_EXT_UNKNOWN_CODE:
      FAIL("operand %u: extension type 0x%x: the extension has no operand type %u", index,
           (unsigned)o->type, VKNN_EXTENSION_CODE(o->type));
    case VKNN_EXT_DECODED: {
      vknn_operand decoded = *o;
      decoded.type = canonical;
      if (o->dimension_count <= VKNN_MAX_RANK && vknn_operand_type_is_tensor(canonical) &&
          vknn_operand_byte_size(&decoded) > UINT32_MAX)
        FAIL("operand %u: tensor of more than 4 GiB", index);
      return vknn_ext_validate_operand(v->log, index, o, canonical);
    }
    default:
      return VKNN_STATUS_NONE;
  }
}

static vknn_status validate_operand_type(const validator *v, uint32_t index,
                                         const vknn_operand *o) {
  if (o->dimension_count > 0 && o->dimensions == NULL)
    FAIL("operand %u: %u dimensions but no dimension array", index, o->dimension_count);
  /* NNAPI sets no rank limit: one past the driver's (VKNN_MAX_RANK) makes
   * the operations touching it unsupported, not the model invalid. */
  /* The HAL sets no rule on an OEM operand's shape or quantization. */
  if (vknn_operand_type_is_oem(o->type)) return VKNN_STATUS_NONE;
  if (vknn_operand_type_is_extension(o->type)) return validate_extension_operand(v, index, o);
  if (!vknn_operand_type_is_builtin(o->type)) FAIL("operand %u: invalid type %d", index, o->type);
  if ((vknn_operand_type_is_scalar(o->type) || o->type == VKNN_OPERAND_SUBGRAPH) &&
      o->dimension_count != 0)
    FAIL("operand %u (%s): a scalar has no dimensions", index, vknn_operand_type_name(o->type));
  if (vknn_operand_type_is_tensor(o->type) && vknn_operand_byte_size(o) > UINT32_MAX)
    FAIL("operand %u: tensor of more than 4 GiB", index);
  return VKNN_STATUS_NONE;
}

static bool location_is_empty(const vknn_data_location *l) {
  return l->pool_index == 0 && l->offset == 0 && l->length == 0;
}

static vknn_status validate_constant_size(const validator *v, uint32_t index,
                                          const vknn_operand *o) {
  /* The size of an unknown extension's or OEM value is its owner's business. */
  vknn_operand decoded = *o;
  if (vknn_operand_type_is_extension(o->type) &&
      vknn_ext_decode_operand(v->model, o->type, &decoded.type) != VKNN_EXT_DECODED)
    return VKNN_STATUS_NONE;
  if (vknn_operand_type_is_oem(o->type)) return VKNN_STATUS_NONE;
  uint64_t size = vknn_operand_byte_size(&decoded);
  if (size == 0) FAIL("operand %u: constant of unknown dimensions", index);
  if (size != o->location.length)
    FAIL("operand %u: constant length %u does not match its type and dimensions (%llu bytes)",
         index, o->location.length, (unsigned long long)size);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_lifetime(const validator *v, uint32_t index, const vknn_operand *o) {
  const vknn_data_location *l = &o->location;
  if ((o->type == VKNN_OPERAND_SUBGRAPH) != (o->lifetime == VKNN_LIFETIME_SUBGRAPH))
    FAIL("operand %u: type SUBGRAPH and lifetime SUBGRAPH go together", index);
  switch (o->lifetime) {
    case VKNN_LIFETIME_TEMPORARY_VARIABLE:
    case VKNN_LIFETIME_SUBGRAPH_INPUT:
    case VKNN_LIFETIME_SUBGRAPH_OUTPUT:
    case VKNN_LIFETIME_NO_VALUE:
      if (!location_is_empty(l)) FAIL("operand %u: a non-constant has a data location", index);
      return VKNN_STATUS_NONE;
    case VKNN_LIFETIME_CONSTANT_COPY:
      if (l->pool_index != 0 || (uint64_t)l->offset + l->length > v->model->operand_values_size)
        FAIL("operand %u: CONSTANT_COPY [%u, +%u) outside operandValues (%zu bytes)", index,
             l->offset, l->length, v->model->operand_values_size);
      return validate_constant_size(v, index, o);
    case VKNN_LIFETIME_CONSTANT_REFERENCE:
      if (l->pool_index >= v->model->pool_count)
        FAIL("operand %u: pool %u does not exist", index, l->pool_index);
      if ((uint64_t)l->offset + l->length > v->model->pools[l->pool_index].size)
        FAIL("operand %u: CONSTANT_REFERENCE [%u, +%u) outside pool %u", index, l->offset,
             l->length, l->pool_index);
      return validate_constant_size(v, index, o);
    case VKNN_LIFETIME_SUBGRAPH:
      if (l->pool_index != 0 || l->length != 0 || l->offset >= v->model->referenced_count)
        FAIL("operand %u: references subgraph %u of %u", index, l->offset,
             v->model->referenced_count);
      return VKNN_STATUS_NONE;
  }
  FAIL("operand %u: invalid lifetime %d", index, (int)o->lifetime);
}

static vknn_status validate_operands(const validator *v) {
  for (uint32_t i = 0; i < v->sg->operand_count; ++i) {
    const vknn_operand *o = &v->sg->operands[i];
    vknn_status s = validate_operand_type(v, i, o);
    if (s == VKNN_STATUS_NONE && !vknn_operand_type_is_extension(o->type) &&
        !vknn_operand_type_is_oem(o->type))
      s = validate_quantization(v, i, o);
    if (s == VKNN_STATUS_NONE) s = validate_extra_params(v, i, o);
    if (s == VKNN_STATUS_NONE) s = validate_lifetime(v, i, o);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

/* Inputs and outputs: in range, unique, and exactly the operands whose
 * lifetime says so. */
static vknn_status validate_io_list(const validator *v, const uint32_t *list, uint32_t count,
                                    vknn_operand_lifetime lifetime, const char *what) {
  if (count > 0 && list == NULL) FAIL("subgraph %u: %s list is NULL", v->sg_index, what);
  uint32_t expected = 0;
  for (uint32_t i = 0; i < v->sg->operand_count; ++i)
    expected += v->sg->operands[i].lifetime == lifetime;
  if (expected != count)
    FAIL("subgraph %u: %u %ss listed, %u operands have that lifetime", v->sg_index, count, what,
         expected);
  for (uint32_t i = 0; i < count; ++i) {
    if (list[i] >= v->sg->operand_count)
      FAIL("subgraph %u: %s %u is operand %u of %u", v->sg_index, what, i, list[i],
           v->sg->operand_count);
    if (v->sg->operands[list[i]].lifetime != lifetime)
      FAIL("subgraph %u: %s %u (operand %u) has the wrong lifetime", v->sg_index, what, i,
           list[i]);
    for (uint32_t j = 0; j < i; ++j)
      if (list[j] == list[i]) FAIL("subgraph %u: operand %u listed twice as %s", v->sg_index, list[i], what);
  }
  return VKNN_STATUS_NONE;
}

static vknn_status validate_operation_type(const validator *v, uint32_t index, int32_t type) {
  /* OEM_OPERATION is valid; it is unsupported (no operation implements it). */
  if (type == VKNN_OPERATION_OEM) return VKNN_STATUS_NONE;
  int32_t canonical;
  switch (vknn_ext_decode_operation(v->model, type, &canonical)) {
    case VKNN_EXT_NO_PREFIX:
      FAIL("operation %u: extension type 0x%x has no prefix in extensionNameToPrefix", index,
           (unsigned)type);
    case VKNN_EXT_UNKNOWN_CODE:
      FAIL("operation %u: extension type 0x%x: the extension has no operation %u", index,
           (unsigned)type, VKNN_EXTENSION_CODE(type));
    case VKNN_EXT_DECODED:
    case VKNN_EXT_FOREIGN:
      return VKNN_STATUS_NONE;
    default:
      break;
  }
  if (vknn_operation_type_name(type) == NULL) FAIL("operation %u: invalid type %d", index, type);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_index_list(const validator *v, uint32_t op, const uint32_t *list,
                                       uint32_t count, const char *what) {
  if (count > 0 && list == NULL) FAIL("operation %u: %s list is NULL", op, what);
  for (uint32_t i = 0; i < count; ++i)
    if (list[i] >= v->sg->operand_count)
      FAIL("operation %u: %s %u is operand %u of %u", op, what, i, list[i], v->sg->operand_count);
  return VKNN_STATUS_NONE;
}

/* Operations in execution order: every value is written exactly once, by an
 * operation that comes before its readers (this also rules out cycles). */
static vknn_status validate_dataflow(const validator *v, uint8_t *written) {
  const vknn_subgraph *sg = v->sg;
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    vknn_operand_lifetime l = sg->operands[i].lifetime;
    written[i] = l != VKNN_LIFETIME_TEMPORARY_VARIABLE && l != VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  }
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    for (uint32_t i = 0; i < op->input_count; ++i)
      if (!written[op->inputs[i]])
        FAIL("operation %u (%s) reads operand %u before it is written", k,
             vknn_model_operation_name(v->model, op->type), op->inputs[i]);
    for (uint32_t i = 0; i < op->output_count; ++i) {
      uint32_t o = op->outputs[i];
      vknn_operand_lifetime l = sg->operands[o].lifetime;
      if (l != VKNN_LIFETIME_TEMPORARY_VARIABLE && l != VKNN_LIFETIME_SUBGRAPH_OUTPUT)
        FAIL("operation %u writes operand %u, which is not a temporary or an output", k, o);
      if (written[o]) FAIL("operand %u is written more than once", o);
      written[o] = 1;
    }
  }
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    if (!written[i]) FAIL("subgraph %u: operand %u is never written", v->sg_index, i);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_consumers(const validator *v, uint32_t *consumers) {
  const vknn_subgraph *sg = v->sg;
  memset(consumers, 0, sg->operand_count * sizeof(uint32_t));
  for (uint32_t k = 0; k < sg->operation_count; ++k)
    for (uint32_t i = 0; i < sg->operations[k].input_count; ++i)
      consumers[sg->operations[k].inputs[i]]++;
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    if (consumers[i] != sg->operands[i].number_of_consumers)
      FAIL("operand %u: numberOfConsumers is %u, %u operations read it", i,
           sg->operands[i].number_of_consumers, consumers[i]);
  return VKNN_STATUS_NONE;
}

static vknn_status validate_operations(const validator *v) {
  const vknn_subgraph *sg = v->sg;
  if (sg->operation_count > 0 && sg->operations == NULL)
    FAIL("subgraph %u: operation list is NULL", v->sg_index);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    vknn_status s = validate_operation_type(v, k, op->type);
    if (s == VKNN_STATUS_NONE) s = validate_index_list(v, k, op->inputs, op->input_count, "input");
    if (s == VKNN_STATUS_NONE)
      s = validate_index_list(v, k, op->outputs, op->output_count, "output");
    if (s != VKNN_STATUS_NONE) return s;
    if (op->output_count == 0) FAIL("operation %u has no output", k);
  }
  size_t n = sg->operand_count ? sg->operand_count : 1;
  uint32_t *scratch = vknn_calloc(n, sizeof(uint32_t));
  if (scratch == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_status s = validate_dataflow(v, (uint8_t *)scratch);
  if (s == VKNN_STATUS_NONE) s = validate_consumers(v, scratch);
  free(scratch);
  return s;
}

static vknn_status validate_subgraph(validator *v, const vknn_subgraph *sg, uint32_t index) {
  v->sg = sg;
  v->sg_index = index;
  if (sg->operand_count > 0 && sg->operands == NULL)
    FAIL("subgraph %u: operand list is NULL", index);
  if (sg->operation_count == 0) FAIL("subgraph %u has no operations", index);
  if (sg->output_count == 0) FAIL("subgraph %u has no outputs", index);
  vknn_status s = validate_operands(v);
  if (s == VKNN_STATUS_NONE)
    s = validate_io_list(v, sg->input_indexes, sg->input_count, VKNN_LIFETIME_SUBGRAPH_INPUT,
                         "input");
  if (s == VKNN_STATUS_NONE)
    s = validate_io_list(v, sg->output_indexes, sg->output_count, VKNN_LIFETIME_SUBGRAPH_OUTPUT,
                         "output");
  if (s == VKNN_STATUS_NONE) s = validate_operations(v);
  return s;
}

/* A subgraph on the search's path: its index (0: main) and the next of
 * its operands to look at. */
typedef struct path_step {
  uint32_t subgraph, next_operand;
} path_step;

/* Depth-first search from `start` over SUBGRAPH operands (validated to name
 * subgraphs that exist): state 1 = on the path, 2 = done. The path lives in
 * `path` (one step per subgraph at most), not on the thread's stack, which a
 * chain of as many references as the model has subgraphs could exhaust. */
static bool has_reference_cycle(const vknn_model *m, uint32_t start, uint8_t *state, path_step *path) {
  if (state[start] != 0) return false;
  uint32_t depth = 0;
  path[depth++] = (path_step){start, 0};
  state[start] = 1;
  while (depth > 0) {
    path_step *top = &path[depth - 1];
    const vknn_subgraph *sg = top->subgraph == 0 ? &m->main : &m->referenced[top->subgraph - 1];
    if (top->next_operand == sg->operand_count) {
      state[top->subgraph] = 2;
      --depth;
      continue;
    }
    const vknn_operand *o = &sg->operands[top->next_operand++];
    if (o->lifetime != VKNN_LIFETIME_SUBGRAPH) continue;
    uint32_t next = o->location.offset + 1;
    if (state[next] == 1) return true;
    if (state[next] == 0) {
      state[next] = 1;
      path[depth++] = (path_step){next, 0};
    }
  }
  return false;
}

static vknn_status validate_pools(const validator *v) {
  if (v->model->pool_count > 0 && v->model->pools == NULL) FAIL("pool list is NULL");
  if (v->model->operand_values_size > 0 && v->model->operand_values == NULL)
    FAIL("operandValues is NULL with %zu bytes", v->model->operand_values_size);
  for (uint32_t i = 0; i < v->model->pool_count; ++i) {
    vknn_status s = vknn_memory_validate(v->log, &v->model->pools[i]);
    if (s != VKNN_STATUS_NONE) FAIL("pool %u is invalid", i);
  }
  return VKNN_STATUS_NONE;
}

/* HAL Model.referenced: each referenced subgraph is referenced by the main
 * subgraph or another one; OperandLifeTime::SUBGRAPH: such an operand is an
 * input of an IF or WHILE (operations' own rules refuse it elsewhere, so a
 * consumer is one). */
static vknn_status validate_references(const validator *v, uint8_t *referenced) {
  const vknn_model *m = v->model;
  if (referenced == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i <= m->referenced_count; ++i) {
    const vknn_subgraph *sg = i == 0 ? &m->main : &m->referenced[i - 1];
    for (uint32_t k = 0; k < sg->operand_count; ++k) {
      const vknn_operand *o = &sg->operands[k];
      if (o->lifetime != VKNN_LIFETIME_SUBGRAPH) continue;
      if (o->number_of_consumers == 0)
        FAIL("subgraph %u, operand %u: a subgraph reference no IF or WHILE takes", i, k);
      if (o->location.offset + 1 != i) referenced[o->location.offset] = 1;
    }
  }
  for (uint32_t i = 0; i < m->referenced_count; ++i)
    if (!referenced[i]) FAIL("referenced subgraph %u: no subgraph references it", i + 1);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_validate_model_references(const vknn_logger *log, const vknn_model *model) {
  validator v = {.log = log, .model = model};
  uint8_t *referenced = vknn_calloc(model->referenced_count + 1, 1);
  vknn_status s = validate_references(&v, referenced);
  free(referenced);
  return s;
}

vknn_status vknn_validate_model(const vknn_logger *log, const vknn_model *model) {
  validator ctx = {.log = log, .model = model};
  validator *v = &ctx;
  if (model == NULL) FAIL("model is NULL");
  if (model->referenced_count > 0 && model->referenced == NULL) FAIL("referenced list is NULL");
  vknn_status s = validate_extension_table(v);
  if (s == VKNN_STATUS_NONE) s = validate_pools(v);
  if (s == VKNN_STATUS_NONE) s = validate_subgraph(v, &model->main, 0);
  for (uint32_t i = 0; i < model->referenced_count && s == VKNN_STATUS_NONE; ++i)
    s = validate_subgraph(v, &model->referenced[i], i + 1);
  if (s != VKNN_STATUS_NONE) return s;
  uint8_t *state = vknn_calloc(model->referenced_count + 1, 1);
  path_step *path = vknn_calloc(model->referenced_count + 1, sizeof(path_step));
  if (state == NULL || path == NULL) {
    free(state);
    free(path);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  /* From every subgraph: a cycle among unreachable subgraphs is invalid too. */
  bool cycle = false;
  for (uint32_t i = 0; i <= model->referenced_count && !cycle; ++i)
    cycle = has_reference_cycle(model, i, state, path);
  free(path);
  free(state);
  if (cycle) FAIL("subgraph references form a cycle");
  return VKNN_STATUS_NONE;
}
