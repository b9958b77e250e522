/* RANDOM_MULTINOMIAL's accuracy criterion: the samples are random, so a case
 * with expectedMultinomialDistributionTolerance > 0 is judged by the
 * distribution they draw (see ../shared/nnapi-cts/README.md). */
#pragma once
#include <stddef.h>

#include "cts_case.h"

/* Checks output index of c (read from pool): every sample is a class of its
 * row, and per row and class the share of samples drawing it is within the
 * case's tolerance of softmax(logits). The logits are the operation's input
 * 0, a model input. Returns 0, or -1 with a reason. */
int cts_check_multinomial(const cts_case *c, const uint8_t *pool, uint32_t index, char *reason,
                          size_t reason_size);
