/* Driver-managed buffers (buffer.c) as the execution and the device see them. */
#pragma once
#include "runtime/device_internal.h"
#include "vk/vk_buffer.h"

/* The buffer a token names on a device, with a reference the caller drops
 * with vknn_buffer_unref; NULL when the token names none. */
vknn_buffer *vknn_buffer_acquire(vknn_device *device, uint32_t token);
void vknn_buffer_unref(vknn_buffer *buffer);

/* True when the buffer was allocated for this use of the prepared model. */
bool vknn_buffer_has_role(const vknn_buffer *buffer, const vknn_prepared_model *pm,
                          uint32_t io_index, bool output);

/* The buffer's value shape: known (written), and otherwise its declared
 * (combined) dimensions, 0 where unknown. */
typedef struct vknn_buffer_shape {
  bool initialized;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  uint64_t byte_size;     /* of the value, when initialized */
  uint64_t fixed_size;    /* bytes when the declared shape is full, else 0 */
  uint32_t declared_rank;
  uint32_t declared_dims[VKNN_MAX_RANK];
} vknn_buffer_shape;
void vknn_buffer_get_state(vknn_buffer *buffer, vknn_buffer_shape *out);

/* Reads the value into dst; GENERAL_FAILURE when never written or when its
 * size is no longer size (a concurrent writer changed it). */
vknn_status vknn_buffer_read(vknn_buffer *buffer, void *dst, uint64_t size);
/* Returns the buffer to unwritten: an execution writing it as an output
 * failed (HAL IDevice::allocate). */
void vknn_buffer_forget(vknn_buffer *buffer);
/* Stores a value of the given shape (an execution's output). */
vknn_status vknn_buffer_write(vknn_buffer *buffer, const void *src, uint64_t size,
                              const uint32_t *dims, uint32_t rank);
