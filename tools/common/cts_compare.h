/* The upstream accuracy criteria (see ../shared/nnapi-cts/README.md). */
#pragma once
#include "cts_case.h"

/* Compares every non-ignored output of a case with what the driver returned.
 * Returns 0 when all match, else -1 with a reason written to reason. */
int cts_compare_outputs(const cts_case *c, const vknn_output_shape *shapes, char *reason,
                        size_t reason_size);
/* The same, reading the outputs from another copy of the output pool. */
int cts_compare_outputs_in(const cts_case *c, const uint8_t *output_pool,
                           const vknn_output_shape *shapes, char *reason, size_t reason_size);

/* Overrides the quantized tolerance (the upstream criteria allow 1 step, 3
 * for MobileNet); 0 asks for bit-exact results. Negative restores it. */
void cts_compare_set_quant_tolerance(int steps);
