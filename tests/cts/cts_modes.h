/* Execution paths of the conformance runner (cts_run.c: sync; cts_modes.c:
 * the others). */
#pragma once
#include "cts_case.h"
#include "cts_run.h"

#define CTS_MAX_OUTPUTS 64

typedef struct cts_judgement {
  cts_status status;
  char reason[512];
} cts_judgement;

/* Judges one execution's outcome: a driver error passes an expectFailure case
 * and fails any other; success must come with valid timing and the expected
 * outputs (read from output_pool; shapes checked when given). Leaves j
 * untouched when it passes. */
void cts_judge(cts_worker *w, const cts_case *c, const char *step, vknn_status status,
               const uint8_t *output_pool, const vknn_output_shape *shapes,
               const vknn_timing *timing, cts_judgement *j);
bool cts_timing_valid(const vknn_timing *t);

/* Loads the case again with outputs of unknown shape, prepares it, checks
 * OUTPUT_INSUFFICIENT_SIZE on a too small first output, then executes. */
void cts_run_dynamic(cts_worker *w, const cJSON *test, cts_judgement *j);

/* Runs a single-operation case's signed twin (cts_quant_coupling.c); passes
 * cases it does not apply to. */
void cts_run_quant_coupling(cts_worker *w, const cJSON *test, cts_judgement *j);

/* Inputs and outputs through driver-managed buffers (cts_device_memory.c). */
void cts_run_device_memory(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);

/* Model and request mutations that must be rejected (cts_validation.c). */
void cts_run_validation(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);

/* Prepared with cache files, restored on the worker's restore device, run
 * there (cts_cache.c). */
void cts_run_cache(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);

void cts_run_async(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);
void cts_run_burst(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);
/* Whether the model leaves a dimension of an output open (0): its real shape
 * comes from the data; fenced executions, which report no shapes, are refused. */
bool cts_output_shape_open(const cts_case *c);
void cts_run_fenced(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);
void cts_run_threads(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j);

/* The case built and run through the NNAPI C API (cts_ndk.c), on its own:
 * it needs no prepared model of the worker's device. */
void cts_run_ndk(cts_worker *w, cts_case *c, cts_judgement *j);
