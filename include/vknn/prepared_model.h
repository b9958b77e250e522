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
 * loop_timeout bounds the time a WHILE may loop (HAL loopTimeoutDuration):
 * VKNN_LOOP_TIMEOUT_DEFAULT_NS when NULL or without a value, and one above
 * VKNN_LOOP_TIMEOUT_MAXIMUM_NS is taken as the maximum; every execution entry
 * point treats it so. Timing fields are UINT64_MAX when measure is NO or
 * nothing was measured; driver time runs from the call to its return (for
 * the asynchronous path: to the callback), device time covers the GPU work,
 * and driver time is never less than device time.
 *
 * INVALID_ARGUMENT for a request that does not match the model (argument
 * counts, dimensions, locations outside their pools); OUTPUT_INSUFFICIENT_SIZE
 * when an output's location is too small for its value; MISSED_DEADLINE_*
 * past the deadline (PERSISTENT when it had passed at the call, TRANSIENT when
 * it passed while the execution waited or ran); DEVICE_UNAVAILABLE when the
 * device is lost (Vulkan reported VK_ERROR_DEVICE_LOST or a wait for its work
 * failed): this execution and every later one on the device. */
vknn_status vknn_prepared_model_execute(vknn_prepared_model *prepared_model,
                                        const vknn_request *request,
                                        vknn_measure_timing measure,
                                        const vknn_deadline *deadline,
                                        const vknn_duration *loop_timeout,
                                        vknn_output_shape *out_shapes, uint32_t shape_count,
                                        vknn_timing *out_timing);

/* Called once when an asynchronous execution completes, from a driver
 * thread: the status, one shape per output (also for
 * OUTPUT_INSUFFICIENT_SIZE) and the timing. The pointers are valid during the
 * call only. */
typedef void (*vknn_execution_callback)(void *user_data, vknn_status status,
                                        const vknn_output_shape *shapes, uint32_t shape_count,
                                        const vknn_timing *timing);

/* Starts an execution and returns at once (HAL execute_1_3). The request is
 * validated first: an invalid one returns its error and the callback is not
 * called. Otherwise the callback reports the outcome. The request's memory
 * must stay valid until then; the request structure itself may be released
 * when this returns. Executions wait in the device's queue, higher priority
 * (the one given at prepare) first. */
vknn_status vknn_prepared_model_execute_async(vknn_prepared_model *prepared_model,
                                              const vknn_request *request,
                                              vknn_measure_timing measure,
                                              const vknn_deadline *deadline,
                                              const vknn_duration *loop_timeout,
                                              vknn_execution_callback callback, void *user_data);

typedef struct vknn_fenced_execution vknn_fenced_execution;

/* Starts an execution that waits for sync fences (HAL executeFenced):
 * wait_for holds file descriptors that become readable when signaled (a
 * negative or invalid one: INVALID_ARGUMENT); the work starts once all are
 * signaled. timeout_after_fence (may be NULL) bounds the time from then to
 * completion (MISSED_DEADLINE_TRANSIENT past it). *out_sync_fence receives a
 * descriptor that becomes readable when the execution completes, signaled
 * where it succeeded and in error where it failed (vknn_sync_fence_wait), so
 * that work waiting for it fails too; the caller closes it. *out_execution reports the outcome
 * (vknn_fenced_execution_get_info) and is released by the caller. A model
 * output of unknown shape gives INVALID_ARGUMENT. */
vknn_status vknn_prepared_model_execute_fenced(vknn_prepared_model *prepared_model,
                                               const vknn_request *request, const int *wait_for,
                                               uint32_t wait_count, vknn_measure_timing measure,
                                               const vknn_deadline *deadline,
                                               const vknn_duration *loop_timeout,
                                               const vknn_duration *timeout_after_fence,
                                               int *out_sync_fence,
                                               vknn_fenced_execution **out_execution);

/* A finished fenced execution's status, with the time from launch and from
 * the fences' signal to completion (HAL
 * IFencedExecutionCallback::getExecutionInfo; UINT64_MAX when not measured).
 * It does not wait: asked before the sync fence signals, GENERAL_FAILURE
 * with every time UINT64_MAX (the HAL's rule); wait for the fence first. */
vknn_status vknn_fenced_execution_get_info(vknn_fenced_execution *execution,
                                           vknn_timing *out_timing_launched,
                                           vknn_timing *out_timing_fenced);
void vknn_fenced_execution_release(vknn_fenced_execution *execution);

/* A sync fence's state: a sync_file whose fence signaled an error (the work
 * it stood for failed, its status below 0), a descriptor poll reports in
 * error, or one that hung up without data (a pipe whose writer left: this
 * driver's completion fence of a failed execution) is VKNN_SYNC_FENCE_ERROR;
 * any other readable descriptor (an eventfd, a completion fence of an
 * execution that succeeded) is signaled. */
typedef enum vknn_sync_fence_state {
  VKNN_SYNC_FENCE_ACTIVE = 0,
  VKNN_SYNC_FENCE_SIGNALED = 1,
  VKNN_SYNC_FENCE_ERROR = 2,
} vknn_sync_fence_state;

/* Waits up to timeout_ms (0: not at all; negative: for ever) for the sync
 * fence fd to signal and says how it stands then. */
vknn_sync_fence_state vknn_sync_fence_wait(int fd, int timeout_ms);

/* What prepare built, for tools and tests. */
typedef struct vknn_prepared_model_info {
  uint32_t dispatch_count; /* compute dispatches recorded */
  uint32_t barrier_count;  /* pipeline barriers between dispatches */
  uint64_t arena_bytes;    /* device memory of intermediate tensors */
  uint64_t constant_bytes; /* device memory of constants */
  uint64_t constant_bytes_in_place; /* constants read from imported model pools, not copied */
  bool profiled;           /* per-dispatch GPU times are recorded */
  /* Bytes each execution copies between the request's memory and the
   * device-local copies of the inputs and outputs the kernels use (device
   * option io_copies); 0 when the kernels use the request's memory. */
  uint64_t io_copy_bytes;
  /* Intermediate tensors stored in the packed layout (device option
   * packed_layout). */
  uint32_t packed_tensors;
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

/* Releases a prepared model, after its pending executions complete. NULL is
 * ignored. */
void vknn_prepared_model_release(vknn_prepared_model *prepared_model);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_PREPARED_MODEL_H */
