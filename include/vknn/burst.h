/*
 * vknn burst: many executions of one prepared model in a row (HAL
 * IBurstContext), with the request memories cached by slot.
 */
#ifndef VKNN_BURST_H
#define VKNN_BURST_H

#include "vknn/prepared_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vknn_burst vknn_burst;

/* A burst on a prepared model; release it before the prepared model. */
vknn_status vknn_burst_create(vknn_prepared_model *prepared_model, vknn_burst **out_burst);

/* Executes synchronously like vknn_prepared_model_execute. Pool i of the
 * request is identified by slots[i] (>= 0): the first time a slot is seen its
 * memory is mapped and kept, with a duplicate of its descriptor (the caller
 * may close its own); later executions naming the slot run on that memory,
 * staged or in place. The memory given with a known slot is still validated,
 * with the arguments' bounds, but not used; the arguments must also lie
 * within the slot's memory. */
vknn_status vknn_burst_execute(vknn_burst *burst, const vknn_request *request,
                               const int32_t *slots, vknn_measure_timing measure,
                               const vknn_deadline *deadline, const vknn_duration *loop_timeout,
                               vknn_output_shape *out_shapes, uint32_t shape_count,
                               vknn_timing *out_timing);

/* Forgets a slot's memory, its mapping and descriptor (HAL freeMemory). An
 * unknown slot is ignored. */
vknn_status vknn_burst_free_memory(vknn_burst *burst, int32_t slot);

void vknn_burst_release(vknn_burst *burst);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_BURST_H */
