/* The fixture of the kernel tests that run every case both ways a device
 * may read operands: devices[0] reads storage buffers, devices[1] texel
 * buffers (the kernels' _texel variants); both with the validation layer
 * on, and one shared-memory pool for requests. Teardown fails when the
 * layer reported anything. */
#pragma once
#include <stddef.h>

#include "common/shared_memory.h"
#include "vknn/vknn.h"

typedef struct reads_fixture {
  vknn_device *devices[2];
  shared_memory pool;
} reads_fixture;

/* cmocka setup with a pool of pool_bytes (call it from a setup of the
 * cmocka signature), and teardown. */
int reads_fixture_setup(void **state, size_t pool_bytes);
int reads_fixture_teardown(void **state);
