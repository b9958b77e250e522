/* The vendor extensions the driver implements (docs/extensions.md), and the
 * decoding of a model's extension types through its extensionNameToPrefix
 * table.
 *
 * Inside the driver an extension type is *canonical*: its prefix is the
 * driver's own for the extension (VKNN_EXT_PREFIX_BASE + its index in the
 * driver's table), whatever prefix the model chose. The compiler's tensors,
 * a prepared model's input and output declarations and the operation
 * registry hold canonical types, so facts about a type (operand_type.h) and
 * the registry (src/ops/op_list.h) need no model. A model's own types are
 * decoded where they enter those structures (vknn_model_operand_type,
 * vknn_model_operation_type). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "util/log.h"
#include "vknn/extensions/fibonacci.h"
#include "vknn/extensions/transformer.h"

/* The driver's extensions, by index. */
enum { VKNN_EXT_FIBONACCI = 0, VKNN_EXT_TRANSFORMER = 1, VKNN_EXT_COUNT = 2 };

#define VKNN_EXT_PREFIX_BASE 0x7f00u
/* The canonical prefix of the types of extensions the driver does not know
 * (their code is kept): no rule or operation applies to them. */
#define VKNN_EXT_PREFIX_FOREIGN 0x7fffu
#define VKNN_EXT_CANONICAL(ext, code) VKNN_EXTENSION_TYPE(VKNN_EXT_PREFIX_BASE + (ext), code)

/* Canonical types, named as op_list.h's rows and the operations' rules use them. */
#define VKNN_OPERAND_EXAMPLE_INT64 VKNN_EXT_CANONICAL(VKNN_EXT_FIBONACCI, VKNN_EXAMPLE_INT64)
#define VKNN_OPERAND_EXAMPLE_TENSOR_QUANT64_ASYMM \
  VKNN_EXT_CANONICAL(VKNN_EXT_FIBONACCI, VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM)
#define VKNN_OPERATION_EXAMPLE_FIBONACCI VKNN_EXT_CANONICAL(VKNN_EXT_FIBONACCI, VKNN_EXAMPLE_FIBONACCI)
#define VKNN_OPERATION_TRANSFORMER_BATCH_MATMUL \
  VKNN_EXT_CANONICAL(VKNN_EXT_TRANSFORMER, VKNN_TRANSFORMER_BATCH_MATMUL)
#define VKNN_OPERATION_TRANSFORMER_LAYER_NORMALIZATION \
  VKNN_EXT_CANONICAL(VKNN_EXT_TRANSFORMER, VKNN_TRANSFORMER_LAYER_NORMALIZATION)
#define VKNN_OPERATION_TRANSFORMER_GELU VKNN_EXT_CANONICAL(VKNN_EXT_TRANSFORMER, VKNN_TRANSFORMER_GELU)
#define VKNN_OPERATION_TRANSFORMER_ATTENTION \
  VKNN_EXT_CANONICAL(VKNN_EXT_TRANSFORMER, VKNN_TRANSFORMER_ATTENTION)

/* What a model's type says about its extension. */
typedef enum vknn_ext_decoding {
  VKNN_EXT_NOT_EXTENSION = 0, /* prefix 0: a type of the HAL */
  VKNN_EXT_DECODED,           /* a type of an extension the driver implements */
  VKNN_EXT_NO_PREFIX,         /* the prefix is not in extensionNameToPrefix: invalid */
  VKNN_EXT_FOREIGN,           /* an extension the driver does not know: valid, unsupported */
  VKNN_EXT_UNKNOWN_CODE,      /* a known extension without that type: invalid */
} vknn_ext_decoding;

/* Decodes a model's operand or operation type; *out_canonical gets the
 * driver's type (the type itself when not an extension; the foreign prefix
 * for FOREIGN; unchanged otherwise). */
vknn_ext_decoding vknn_ext_decode_operand(const vknn_model *model, int32_t type,
                                          int32_t *out_canonical);
vknn_ext_decoding vknn_ext_decode_operation(const vknn_model *model, int32_t type,
                                            int32_t *out_canonical);

/* The canonical type of a model's operand or operation type (of a valid
 * model): decoded, or the foreign prefix, or the type itself. */
int32_t vknn_model_operand_type(const vknn_model *model, int32_t type);
int32_t vknn_model_operation_type(const vknn_model *model, int32_t type);

/* The table getSupportedExtensions answers: the extensions whose every
 * kernel the device can run (int64_float64: the device has shaderInt64
 * and shaderFloat64, which com.example.fibonacci needs). */
const vknn_extension *vknn_ext_supported(bool int64_float64, uint32_t *out_count);

/* A canonical extension operand type's facts; false for other types. */
bool vknn_ext_operand_info(int32_t canonical, bool *out_is_tensor, uint32_t *out_byte_size);

/* Name of a canonical extension operand or operation type ("EXAMPLE_INT64"),
 * or NULL. */
const char *vknn_ext_operand_name(int32_t canonical);
const char *vknn_ext_operation_name(int32_t canonical);

/* The name logs give an operation of a model: an operation of an extension
 * the driver implements as "EXTENSION:NAME" ("org.vknn.transformer:GELU",
 * decoded through the model's extensionNameToPrefix table), any other as
 * vknn_operation_type_name names it ("an extension operation" for one of an
 * extension the driver does not know). model may be NULL (no decoding).
 * Never NULL; the string is static. */
const char *vknn_model_operation_name(const vknn_model *model, int32_t type);

/* The rules of a decoded extension operand the HAL leaves to the driver:
 * shape, no scale or zero point, its extension data. INVALID_ARGUMENT
 * (logged, tag "model") when broken. */
vknn_status vknn_ext_validate_operand(const vknn_logger *log, uint32_t index,
                                      const vknn_operand *operand, int32_t canonical);

/* The scale and zero point of a valid EXAMPLE_TENSOR_QUANT64_ASYMM operand. */
vknn_example_quant64_asymm_params vknn_ext_quant64_params(const vknn_operand *operand);
