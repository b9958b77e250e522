/*
 * vknn driver-managed buffers (memory domains, HAL IDevice::allocate and
 * IBuffer): memory the driver owns, named in requests by a token in place of
 * a shared-memory pool, and filled or read with copy_from / copy_to.
 */
#ifndef VKNN_BUFFER_H
#define VKNN_BUFFER_H

#include "vknn/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vknn_buffer vknn_buffer;

/* A use of the buffer: input or output io_index of prepared_models[model_index],
 * with a frequency in (0, 1] (HAL BufferRole). */
typedef struct vknn_buffer_role {
  uint32_t model_index;
  uint32_t io_index;
  float frequency;
} vknn_buffer_role;

/* Allocates a buffer for the given roles (HAL allocate). desc_dimensions
 * (desc_rank entries, 0 for unknown; desc_rank 0 for unknown rank) combine
 * with the dimensions of every role's operand; the roles must agree on type,
 * scale and zero point. A buffer whose shape stays unknown takes one when
 * written: by copy_from with dimensions, or as an execution's output. An
 * execution's output must agree with the dimensions known here: a smaller
 * value of another shape fails the execution (GENERAL_FAILURE), a larger one
 * than a buffer of full shape holds is OUTPUT_INSUFFICIENT_SIZE.
 * *out_token (positive as an int32, never a live buffer's) names it in
 * requests (VKNN_REQUEST_POOL_TOKEN) of the prepared models of its roles, on
 * this device only.
 * INVALID_ARGUMENT for no roles, a NULL or foreign prepared model, an index out
 * of range, a frequency outside (0, 1], a role given twice (also through a
 * prepared model listed twice), operands and dimensions that do not agree,
 * or a shape of more than 4 GiB. */
vknn_status vknn_device_allocate(vknn_device *device, const uint32_t *desc_dimensions,
                                 uint32_t desc_rank, vknn_prepared_model *const *prepared_models,
                                 uint32_t model_count, const vknn_buffer_role *input_roles,
                                 uint32_t input_role_count, const vknn_buffer_role *output_roles,
                                 uint32_t output_role_count, vknn_buffer **out_buffer,
                                 uint32_t *out_token);

/* Copies shared memory into the buffer (HAL IBuffer::copyFrom). dimensions
 * (rank entries; rank 0: the buffer's own) must agree with the buffer's and
 * give a full shape of at most 4 GiB; memory's size must be exactly the
 * value's size. DEVICE_UNAVAILABLE once the device is lost (so for copy_to). */
vknn_status vknn_buffer_copy_from(vknn_buffer *buffer, const vknn_memory *memory,
                                  const uint32_t *dimensions, uint32_t rank);

/* Copies the buffer's value into shared memory of exactly its size (HAL
 * IBuffer::copyTo). GENERAL_FAILURE when the buffer was never written. */
vknn_status vknn_buffer_copy_to(vknn_buffer *buffer, const vknn_memory *memory);

/* The buffer's current shape (rank 0 while unknown). */
vknn_status vknn_buffer_get_shape(const vknn_buffer *buffer, vknn_output_shape *out_shape);

/* Whether the buffer holds a value: a copy_from or an execution wrote it,
 * and no failed one has since (a scalar's shape alone cannot tell). */
bool vknn_buffer_is_written(const vknn_buffer *buffer);

/* Frees the buffer; its token stops naming it. Executions using it finish
 * first. */
void vknn_buffer_release(vknn_buffer *buffer);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_BUFFER_H */
