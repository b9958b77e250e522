/* A compact byte form of an NNAPI model (and input values) for the fuzz
 * targets: fuzz_model_decode reads whatever bytes libFuzzer makes, within
 * fixed limits, without judging them (the driver does that);
 * fuzz_model_encode writes the seed corpus from the conformance cases.
 *
 * Little-endian: u8 relax; u8 operand count, then per operand: i32 type,
 * u8 lifetime, u8 rank, u16 dims[rank], f32 scale, i32 zero point,
 * u16 consumers, u8 channel-quant flag [u8 channel dim, u16 count,
 * f32 scales[count]], and for constants u32 length + bytes; u8 operation
 * count, then per operation: i32 type, u8 n + u16 inputs[n], u8 n +
 * u16 outputs[n]; u8 n + u16 model inputs[n]; u8 n + u16 model outputs[n].
 * The bytes after that are input values. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "common/shared_memory.h"
#include "vknn/vknn.h"

#define FUZZ_MAX_OPERANDS 255
#define FUZZ_MAX_OPERATIONS 255
/* One past the driver's VKNN_MAX_RANK: such a model is valid, its operations
 * unsupported, and nothing may copy its shape into the driver's arrays. */
#define FUZZ_MAX_RANK 9
#define FUZZ_MAX_OP_ARGS 64

typedef struct fuzz_model {
  vknn_model model;
  vknn_operand operands[FUZZ_MAX_OPERANDS];
  uint32_t dims[FUZZ_MAX_OPERANDS][FUZZ_MAX_RANK];
  float *scales[FUZZ_MAX_OPERANDS];
  vknn_operation operations[FUZZ_MAX_OPERATIONS];
  uint32_t op_args[FUZZ_MAX_OPERATIONS][2][FUZZ_MAX_OP_ARGS];
  uint32_t inputs[FUZZ_MAX_OPERANDS], outputs[FUZZ_MAX_OPERANDS];
  uint8_t *values, *references;
  size_t values_size, references_size;
  shared_memory constant_pool;
  const uint8_t *input_bytes; /* what follows the model */
  size_t input_size;
} fuzz_model;

/* 0 when the bytes hold a whole model (valid or not); -1 when they end early. */
int fuzz_model_decode(const uint8_t *data, size_t size, fuzz_model *out);
void fuzz_model_free(fuzz_model *m);

/* The byte form of model (main subgraph; pool_data[i]: the bytes of
 * model->pools[i]) followed by input values, in a malloc'd buffer; -1 when
 * the model exceeds the limits above. */
int fuzz_model_encode(const vknn_model *model, const uint8_t *const *pool_data,
                      const uint8_t *inputs, size_t input_size, uint8_t **out, size_t *out_size);
