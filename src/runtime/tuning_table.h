/* What a device's kernel tuning has measured (runtime/kernel_tuning.h): the
 * variant kept for each layer signature, shared by the device's prepares. */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/log.h"
#include "vknn/device.h"

/* The widths kernel tuning tries on a device that says none (kernel_tuning.c). */
#define VKNN_TUNING_WIDTHS 2u

/* The variant one layer signature was measured fastest with; for a model's
 * signature (kernel_tuning.c), whether its temporaries are packed. */
typedef struct vknn_tuning_entry {
  uint8_t *signature; /* the layer's shapes and parameters (kernel_tuning.c) */
  uint32_t signature_size;
  bool texel_reads;
  vknn_winograd winograd;
  bool float16_arithmetic;
  bool gemm_shared_tiles;
  bool subgroup_filter;
  uint8_t width; /* 0: the device's own; 1..VKNN_TUNING_WIDTHS: a tried width */
  bool global_pool_reduction;
  bool packed_layout;
} vknn_tuning_entry;

typedef struct vknn_tuning_table {
  pthread_mutex_t lock;
  vknn_tuning_entry *entries;
  uint32_t count, capacity;
} vknn_tuning_table;

void vknn_tuning_table_init(vknn_tuning_table *table);
void vknn_tuning_table_destroy(vknn_tuning_table *table);

/* The entry for a signature, copied into *out; false when there is none. */
bool vknn_tuning_table_find(vknn_tuning_table *table, const uint8_t *signature, uint32_t size,
                            vknn_tuning_entry *out);
/* Drops the entry of a signature, if there is one (a choice a device
 * refuses, so that the one measured instead takes its place). */
void vknn_tuning_table_remove(vknn_tuning_table *table, const uint8_t *signature, uint32_t size);

/* Keeps a choice for a signature (once: a concurrent prepare may have added
 * it meanwhile). A failed allocation only means measuring it again. */
void vknn_tuning_table_add(vknn_tuning_table *table, const uint8_t *signature, uint32_t size,
                           const vknn_tuning_entry *choice);

/* The table as bytes, for the compilation cache (*out malloc'd): the entry
 * count, then per entry its signature's size and bytes and its variant
 * (texel reads, Winograd, float16 arithmetic, shared-memory tiles, shared
 * filter loads, width, global pooling as a reduction, packed layout: a
 * byte each),
 * integers little-endian. */
vknn_status vknn_tuning_table_encode(vknn_tuning_table *table, uint8_t **out, size_t *out_size);

/* Checks encoded entries whole: every length against the end, each variant
 * field in range, nothing after the last entry. GENERAL_FAILURE (logged)
 * for malformed bytes. */
vknn_status vknn_tuning_table_check(const vknn_logger *log, const uint8_t *bytes, size_t size);

/* Adds encoded entries that passed vknn_tuning_table_check (a signature the
 * table holds keeps its own choice). */
void vknn_tuning_table_merge(vknn_tuning_table *table, const uint8_t *bytes, size_t size);
