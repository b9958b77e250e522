/* A model as bytes, for the compilation cache's data file: every subgraph
 * (main and referenced), constants included (CONSTANT_REFERENCE pools are
 * read and their bytes stored as CONSTANT_COPY), the relaxed flag and the
 * extension prefixes. Reading never trusts the bytes: every count, length
 * and size is checked against what is left, the result's arrays match their
 * counts, and nothing is read beyond the buffer. What it does not check are
 * the HAL's model rules (indexes in range, lifetimes, dataflow): a model read
 * back must be validated like a new one before use. Format: docs/architecture.md,
 * "Compilation cache". */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "util/log.h"

/* A model read from bytes, owning every array it points to. */
typedef struct vknn_model_owned {
  vknn_model model;
  void **blocks;
  uint32_t block_count;
} vknn_model_owned;

/* The bytes of a valid model (malloc'd into *out_bytes). The model's pools
 * are mapped to read the CONSTANT_REFERENCE values. */
vknn_status vknn_model_serialize(const vknn_logger *log, const vknn_model *model,
                                 uint8_t **out_bytes, size_t *out_size);

/* Reads a model from bytes. INVALID_ARGUMENT (logged) when the bytes are not
 * a whole, well-formed serialized model, with nothing left over. */
vknn_status vknn_model_deserialize(const vknn_logger *log, const uint8_t *bytes, size_t size,
                                   vknn_model_owned *out);
void vknn_model_owned_free(vknn_model_owned *owned);
