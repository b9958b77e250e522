#include "model/extension.h"

#include <math.h>
#include <string.h>

typedef struct ext_type_name {
  uint16_t code;
  const char *name;
  /* Operations: "EXTENSION:NAME", as logs name them (NULL for operands). */
  const char *qualified;
} ext_type_name;

#define EXT_OPERATION(extension, code, name) {code, name, extension ":" name}

/* What the driver knows of an extension beyond its public description. */
typedef struct ext_def {
  const ext_type_name *operand_names; /* as many as its public operand types */
  const ext_type_name *operations;
  uint32_t operation_count;
} ext_def;

static const vknn_extension_operand_type fibonacci_operands[] = {
    {.type = VKNN_EXAMPLE_INT64, .is_tensor = false, .byte_size = 8},
    {.type = VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM, .is_tensor = true, .byte_size = 8},
};
static const ext_type_name fibonacci_operand_names[] = {
    {VKNN_EXAMPLE_INT64, "EXAMPLE_INT64", NULL},
    {VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM, "EXAMPLE_TENSOR_QUANT64_ASYMM", NULL},
};
static const ext_type_name fibonacci_operations[] = {
    EXT_OPERATION(VKNN_FIBONACCI_EXTENSION_NAME, VKNN_EXAMPLE_FIBONACCI, "EXAMPLE_FIBONACCI"),
};
static const ext_type_name transformer_operations[] = {
    EXT_OPERATION(VKNN_TRANSFORMER_EXTENSION_NAME, VKNN_TRANSFORMER_BATCH_MATMUL, "BATCH_MATMUL"),
    EXT_OPERATION(VKNN_TRANSFORMER_EXTENSION_NAME, VKNN_TRANSFORMER_LAYER_NORMALIZATION,
                  "LAYER_NORMALIZATION"),
    EXT_OPERATION(VKNN_TRANSFORMER_EXTENSION_NAME, VKNN_TRANSFORMER_GELU, "GELU"),
    EXT_OPERATION(VKNN_TRANSFORMER_EXTENSION_NAME, VKNN_TRANSFORMER_ATTENTION, "ATTENTION"),
};

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* Indexed by VKNN_EXT_*. The one extension that needs 64-bit arithmetic
 * comes first, so that a device without it answers the rest of the table. */
static const vknn_extension public_table[VKNN_EXT_COUNT] = {
    {VKNN_FIBONACCI_EXTENSION_NAME, fibonacci_operands, COUNT(fibonacci_operands)},
    {VKNN_TRANSFORMER_EXTENSION_NAME, NULL, 0},
};
static const ext_def extensions[VKNN_EXT_COUNT] = {
    {fibonacci_operand_names, fibonacci_operations, COUNT(fibonacci_operations)},
    {NULL, transformer_operations, COUNT(transformer_operations)},
};
_Static_assert(VKNN_EXT_FIBONACCI == 0, "the 64-bit extension comes first");

static int ext_by_name(const char *name) {
  for (int i = 0; i < VKNN_EXT_COUNT; ++i)
    if (strcmp(public_table[i].name, name) == 0) return i;
  return -1;
}

/* The driver's extension of a canonical type, or -1. */
static int ext_of_canonical(int32_t canonical) {
  uint32_t prefix = VKNN_EXTENSION_PREFIX(canonical);
  if (prefix < VKNN_EXT_PREFIX_BASE || prefix >= VKNN_EXT_PREFIX_BASE + VKNN_EXT_COUNT) return -1;
  return (int)(prefix - VKNN_EXT_PREFIX_BASE);
}

static const char *model_extension_name(const vknn_model *model, uint32_t prefix) {
  for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i)
    if (model->extension_name_to_prefix[i].prefix == prefix)
      return model->extension_name_to_prefix[i].name;
  return NULL;
}

static const ext_type_name *find_code(const ext_type_name *names, uint32_t count, uint32_t code) {
  for (uint32_t i = 0; i < count; ++i)
    if (names[i].code == code) return &names[i];
  return NULL;
}

/* Decoding shared by operands and operations: kind selects the table. */
static vknn_ext_decoding decode(const vknn_model *model, int32_t type, bool operation,
                                int32_t *out_canonical) {
  uint32_t prefix = VKNN_EXTENSION_PREFIX(type), code = VKNN_EXTENSION_CODE(type);
  if (prefix == 0) {
    *out_canonical = type;
    return VKNN_EXT_NOT_EXTENSION;
  }
  const char *name = model_extension_name(model, prefix);
  if (name == NULL) return VKNN_EXT_NO_PREFIX;
  int ext = ext_by_name(name);
  if (ext < 0) {
    *out_canonical = VKNN_EXTENSION_TYPE(VKNN_EXT_PREFIX_FOREIGN, code);
    return VKNN_EXT_FOREIGN;
  }
  const ext_def *d = &extensions[ext];
  bool known = operation ? find_code(d->operations, d->operation_count, code) != NULL
                         : find_code(d->operand_names, public_table[ext].operand_type_count, code) != NULL;
  if (!known) return VKNN_EXT_UNKNOWN_CODE;
  *out_canonical = VKNN_EXT_CANONICAL(ext, code);
  return VKNN_EXT_DECODED;
}

vknn_ext_decoding vknn_ext_decode_operand(const vknn_model *model, int32_t type,
                                          int32_t *out_canonical) {
  return decode(model, type, false, out_canonical);
}

vknn_ext_decoding vknn_ext_decode_operation(const vknn_model *model, int32_t type,
                                            int32_t *out_canonical) {
  return decode(model, type, true, out_canonical);
}

int32_t vknn_model_operand_type(const vknn_model *model, int32_t type) {
  int32_t canonical = type;
  vknn_ext_decode_operand(model, type, &canonical);
  return canonical;
}

int32_t vknn_model_operation_type(const vknn_model *model, int32_t type) {
  int32_t canonical = type;
  vknn_ext_decode_operation(model, type, &canonical);
  return canonical;
}

const vknn_extension *vknn_ext_supported(bool int64_float64, uint32_t *out_count) {
  *out_count = int64_float64 ? VKNN_EXT_COUNT : VKNN_EXT_COUNT - 1;
  return int64_float64 ? public_table : public_table + 1;
}

static const vknn_extension_operand_type *operand_info(int32_t canonical) {
  int ext = ext_of_canonical(canonical);
  if (ext < 0) return NULL;
  const vknn_extension *e = &public_table[ext];
  for (uint32_t i = 0; i < e->operand_type_count; ++i)
    if (e->operand_types[i].type == VKNN_EXTENSION_CODE(canonical)) return &e->operand_types[i];
  return NULL;
}

bool vknn_ext_operand_info(int32_t canonical, bool *out_is_tensor, uint32_t *out_byte_size) {
  const vknn_extension_operand_type *info = operand_info(canonical);
  if (info == NULL) return false;
  *out_is_tensor = info->is_tensor;
  *out_byte_size = info->byte_size;
  return true;
}

const char *vknn_ext_operand_name(int32_t canonical) {
  int ext = ext_of_canonical(canonical);
  if (ext < 0) return NULL;
  const ext_def *d = &extensions[ext];
  const ext_type_name *n = find_code(d->operand_names, public_table[ext].operand_type_count,
                                     VKNN_EXTENSION_CODE(canonical));
  return n != NULL ? n->name : NULL;
}

static const ext_type_name *operation_row(int32_t canonical) {
  int ext = ext_of_canonical(canonical);
  if (ext < 0) return NULL;
  return find_code(extensions[ext].operations, extensions[ext].operation_count,
                   VKNN_EXTENSION_CODE(canonical));
}

const char *vknn_ext_operation_name(int32_t canonical) {
  const ext_type_name *n = operation_row(canonical);
  return n != NULL ? n->name : NULL;
}

const char *vknn_model_operation_name(const vknn_model *model, int32_t type) {
  int32_t canonical = type;
  if (model != NULL && vknn_ext_decode_operation(model, type, &canonical) == VKNN_EXT_DECODED)
    return operation_row(canonical)->qualified;
  const char *name = vknn_operation_type_name(type);
  return name != NULL ? name : "an operation of no known type";
}

#define FAIL(...)                                  \
  do {                                             \
    VKNN_LOG_E(log, "model", __VA_ARGS__);         \
    return VKNN_STATUS_INVALID_ARGUMENT;           \
  } while (0)

vknn_example_quant64_asymm_params vknn_ext_quant64_params(const vknn_operand *operand) {
  vknn_example_quant64_asymm_params p = {0, 0};
  memcpy(&p, operand->extra_params.extension.data, sizeof(p));
  return p;
}

static vknn_status validate_quant64_params(const vknn_logger *log, uint32_t index,
                                           const vknn_operand *o) {
  const vknn_operand_extra_params *x = &o->extra_params;
  if (x->kind != VKNN_EXTRA_PARAMS_EXTENSION || x->extension.data == NULL)
    FAIL("operand %u (EXAMPLE_TENSOR_QUANT64_ASYMM) needs its extension data "
         "{double scale; int64 zeroPoint}", index);
  if (x->extension.size != sizeof(vknn_example_quant64_asymm_params))
    FAIL("operand %u (EXAMPLE_TENSOR_QUANT64_ASYMM): extension data of %zu bytes, not %zu", index,
         x->extension.size, sizeof(vknn_example_quant64_asymm_params));
  vknn_example_quant64_asymm_params p = vknn_ext_quant64_params(o);
  if (!isfinite(p.scale) || !(p.scale > 0.0))
    FAIL("operand %u (EXAMPLE_TENSOR_QUANT64_ASYMM): scale %g must be finite and > 0", index,
         p.scale);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_ext_validate_operand(const vknn_logger *log, uint32_t index,
                                      const vknn_operand *o, int32_t canonical) {
  const vknn_extension_operand_type *info = operand_info(canonical);
  const char *name = vknn_ext_operand_name(canonical);
  if (info == NULL) FAIL("operand %u: extension type 0x%x has no rules", index, (unsigned)o->type);
  if (!info->is_tensor && o->dimension_count != 0)
    FAIL("operand %u (%s): a scalar has no dimensions", index, name);
  if (o->dimension_count > VKNN_MAX_RANK)
    FAIL("operand %u (%s): rank %u exceeds %d", index, name, o->dimension_count, VKNN_MAX_RANK);
  if (o->scale != 0.f || o->zero_point != 0)
    FAIL("operand %u (%s): scale and zeroPoint must be 0 (an extension type's parameters are "
         "its extension data)", index, name);
  if (o->extra_params.kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT)
    FAIL("operand %u (%s): channel quantization params on an extension type", index, name);
  if (canonical == VKNN_OPERAND_EXAMPLE_TENSOR_QUANT64_ASYMM)
    return validate_quant64_params(log, index, o);
  if (o->extra_params.kind != VKNN_EXTRA_PARAMS_NONE)
    FAIL("operand %u (%s) takes no extension data", index, name);
  return VKNN_STATUS_NONE;
}
