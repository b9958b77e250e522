/* The fixture of the kernel tests that run every case each way a device
 * may read operands: devices[0] reads storage buffers, devices[1] texel
 * buffers (the kernels' _texel variants), both loading their own filter
 * values; devices[2] and [3] read the same ways sharing filter loads across
 * a subgroup (the _subgroup variants, where the device can). All with the
 * validation layer on, and one shared-memory pool for requests. Teardown
 * fails when the layer reported anything. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/shared_memory.h"
#include "vknn/vknn.h"

#define READS_FIXTURE_DEVICES 4

typedef struct reads_fixture {
  vknn_device *devices[READS_FIXTURE_DEVICES];
  shared_memory pool;
} reads_fixture;

/* cmocka setup with a pool of pool_bytes (call it from a setup of the
 * cmocka signature), and teardown. */
int reads_fixture_setup(void **state, size_t pool_bytes);
int reads_fixture_teardown(void **state);

/* Whether a case whose kernel is `kernel` (on devices[0]) takes its
 * _subgroup variant on devices[2] and [3]: conv2d_gemm with blocks of 8
 * output channels (16 where they divide an ungrouped layer's), so 8 or more,
 * and with groups (1: none) 8 dividing a group's. A split reduction (a wide
 * device) shares nothing either. */
bool reads_fixture_shares_filter_loads(const char *kernel, uint32_t out_c, uint32_t groups);

/* Whether dispatch i of the prepared model runs conv2d_gemm on a filter
 * packed by 8 channels (its PACKED_FILTER: shared filter loads reading a
 * constant filter). */
bool reads_fixture_filter_packed(const vknn_prepared_model *pm, uint32_t i);

/* Whether dispatch i of the prepared model runs conv2d_gemm with its taps
 * unrolled (its UNROLL_TAPS). */
bool reads_fixture_taps_unrolled(const vknn_prepared_model *pm, uint32_t i);
