/* Shared memory for callers of the driver: a memfd described as an "ashmem"
 * pool, as the NNAPI framework hands it to drivers on Linux. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "vknn/types.h"

typedef struct shared_memory {
  int fd;
  uint8_t *data;
  size_t size;
  vknn_memory memory; /* points at fd: valid while this object lives */
} shared_memory;

/* Creates a zeroed pool of size bytes (at least 1); 0 on success, -1 on error. */
int shared_memory_create(shared_memory *out, size_t size);
void shared_memory_destroy(shared_memory *memory);
