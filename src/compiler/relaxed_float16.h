/* Relaxed models kept in float16 (docs/architecture.md, "Relaxed models in
 * float16"). NNAPI lets the float32 operations of a model marked
 * relaxComputationFloat32toFloat16 compute with float16's range and
 * precision. Such a model is compiled as a copy in which the operations
 * named in relaxed_float16.c run on float16 tensors: half the bytes to read
 * and write, float16 weights converted once here. The model's inputs and
 * outputs keep float32: CAST operations convert at the boundary, and
 * between a float16 operation and a float32 one. */
#pragma once
#include "compiler/model_copy.h"

/* Whether the model is relaxed and has an operation worth running in
 * float16 (and no control flow, whose segments are compiled apart). */
bool vknn_relaxed_float16_applies(const vknn_model *model);

/* The float16 copy of a relaxed model (valid, or an error and no copy).
 * Operands keep their indices (the copy adds operands after them), so the
 * model's inputs and outputs are the copy's; the copy borrows the model's
 * pools and dimensions, so it must not outlive it. */
vknn_status vknn_relaxed_float16_make(const vknn_logger *log, const vknn_model *model,
                                      vknn_model_copy *out);
