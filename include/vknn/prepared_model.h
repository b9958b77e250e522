/*
 * vknn prepared model: a compiled model ready to execute (HAL IPreparedModel).
 */
#ifndef VKNN_PREPARED_MODEL_H
#define VKNN_PREPARED_MODEL_H

#include "vknn/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Executes the prepared model on one request and waits for it (HAL
 * executeSynchronously_1_3). Input and output values are read from and written
 * to the request's memory pools.
 *
 * out_shapes receives one entry per model output (shape_count must be at least
 * request->output_count, or 0 with out_shapes NULL when the caller does not
 * want them); out_timing may be NULL. deadline and loop_timeout may be NULL.
 * Timing fields are UINT64_MAX when measure is NO or nothing was measured.
 *
 * INVALID_ARGUMENT for a request that does not match the model (argument
 * counts, dimensions, locations outside their pools); OUTPUT_INSUFFICIENT_SIZE
 * when an output's location is too small for its value. */
vknn_status vknn_prepared_model_execute(vknn_prepared_model *prepared_model,
                                        const vknn_request *request,
                                        vknn_measure_timing measure,
                                        const vknn_deadline *deadline,
                                        const vknn_duration *loop_timeout,
                                        vknn_output_shape *out_shapes, uint32_t shape_count,
                                        vknn_timing *out_timing);

/* What prepare built, for tools and tests. */
typedef struct vknn_prepared_model_info {
  uint32_t dispatch_count; /* compute dispatches recorded */
  uint32_t barrier_count;  /* pipeline barriers between dispatches */
  uint64_t arena_bytes;    /* device memory of intermediate tensors */
  uint64_t constant_bytes; /* device memory of constants */
  bool profiled;           /* per-dispatch GPU times are recorded */
} vknn_prepared_model_info;

vknn_status vknn_prepared_model_get_info(const vknn_prepared_model *prepared_model,
                                         vknn_prepared_model_info *out_info);

/* The kernel variant of dispatch i ("conv2d_f32"), or NULL when out of range. */
const char *vknn_prepared_model_get_dispatch_kernel(const vknn_prepared_model *prepared_model,
                                                    uint32_t i);

/* GPU time of each dispatch in the last successful execution, in
 * milliseconds, from timestamp queries. Needs a device opened with
 * profile_dispatches and a device with timestamps; else GENERAL_FAILURE. */
vknn_status vknn_prepared_model_get_dispatch_times(const vknn_prepared_model *prepared_model,
                                                   double *out_ms, uint32_t count);

/* Releases a prepared model. NULL is ignored. */
void vknn_prepared_model_release(vknn_prepared_model *prepared_model);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_PREPARED_MODEL_H */
