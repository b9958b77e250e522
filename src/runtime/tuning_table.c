/* The device's table of kernel tuning choices (tuning_table.h). */
#include "runtime/tuning_table.h"

#include <stdlib.h>
#include <string.h>

#include "util/fault_injection.h"
#include "util/little_endian.h"

void vknn_tuning_table_init(vknn_tuning_table *table) {
  memset(table, 0, sizeof(*table));
  pthread_mutex_init(&table->lock, NULL);
}

void vknn_tuning_table_destroy(vknn_tuning_table *table) {
  for (uint32_t i = 0; i < table->count; ++i) free(table->entries[i].signature);
  free(table->entries);
  pthread_mutex_destroy(&table->lock);
  memset(table, 0, sizeof(*table));
}

bool vknn_tuning_table_find(vknn_tuning_table *table, const uint8_t *signature, uint32_t size,
                            vknn_tuning_entry *out) {
  bool found = false;
  pthread_mutex_lock(&table->lock);
  for (uint32_t i = 0; i < table->count && !found; ++i) {
    const vknn_tuning_entry *e = &table->entries[i];
    if (e->signature_size == size && memcmp(e->signature, signature, size) == 0) {
      *out = *e;
      found = true;
    }
  }
  pthread_mutex_unlock(&table->lock);
  return found;
}

void vknn_tuning_table_remove(vknn_tuning_table *table, const uint8_t *signature, uint32_t size) {
  pthread_mutex_lock(&table->lock);
  for (uint32_t i = 0; i < table->count; ++i)
    if (table->entries[i].signature_size == size && memcmp(table->entries[i].signature, signature, size) == 0) {
      free(table->entries[i].signature);
      table->entries[i] = table->entries[--table->count];
      break;
    }
  pthread_mutex_unlock(&table->lock);
}

void vknn_tuning_table_add(vknn_tuning_table *table, const uint8_t *signature, uint32_t size,
                           const vknn_tuning_entry *choice) {
  uint8_t *bytes = vknn_malloc(size);
  if (bytes == NULL) return;
  memcpy(bytes, signature, size);
  pthread_mutex_lock(&table->lock);
  for (uint32_t i = 0; i < table->count && bytes != NULL; ++i)
    if (table->entries[i].signature_size == size && memcmp(table->entries[i].signature, bytes, size) == 0) {
      free(bytes);
      bytes = NULL;
    }
  if (bytes != NULL && table->count == table->capacity) {
    uint32_t capacity = table->capacity ? 2 * table->capacity : 16;
    vknn_tuning_entry *grown = vknn_realloc(table->entries, capacity * sizeof(*grown));
    if (grown != NULL) {
      table->entries = grown;
      table->capacity = capacity;
    }
  }
  if (bytes != NULL && table->count < table->capacity) {
    vknn_tuning_entry *e = &table->entries[table->count++];
    *e = *choice;
    e->signature = bytes;
    e->signature_size = size;
    bytes = NULL;
  }
  pthread_mutex_unlock(&table->lock);
  free(bytes);
}

/* ---- bytes (the compilation cache) ------------------------------------------ */

/* An entry's bytes besides its signature: the signature's size, the variant. */
#define ENTRY_FIXED_BYTES 12u

vknn_status vknn_tuning_table_encode(vknn_tuning_table *table, uint8_t **out, size_t *out_size) {
  pthread_mutex_lock(&table->lock);
  size_t size = 4;
  for (uint32_t i = 0; i < table->count; ++i) size += ENTRY_FIXED_BYTES + table->entries[i].signature_size;
  uint8_t *bytes = vknn_malloc(size);
  if (bytes != NULL) {
    uint8_t *p = vknn_le32_put(bytes, table->count);
    for (uint32_t i = 0; i < table->count; ++i) {
      const vknn_tuning_entry *e = &table->entries[i];
      p = vknn_le32_put(p, e->signature_size);
      memcpy(p, e->signature, e->signature_size);
      p += e->signature_size;
      *p++ = e->texel_reads;
      *p++ = (uint8_t)e->winograd;
      *p++ = e->float16_arithmetic;
      *p++ = e->gemm_shared_tiles;
      *p++ = e->subgroup_filter;
      *p++ = e->width;
      *p++ = e->global_pool_reduction;
      *p++ = e->packed_layout;
    }
  }
  pthread_mutex_unlock(&table->lock);
  *out = bytes;
  *out_size = bytes != NULL ? size : 0;
  return bytes != NULL ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
}

/* Entry at *offset: its signature and variant, *offset moved past it; false
 * when it runs past size or a field is out of range. */
static bool decode_entry(const uint8_t *bytes, size_t size, size_t *offset, const uint8_t **signature,
                         vknn_tuning_entry *out) {
  if (size - *offset < ENTRY_FIXED_BYTES) return false;
  uint32_t length = vknn_le32_get(bytes + *offset);
  if (length == 0 || length > size - *offset - ENTRY_FIXED_BYTES) return false;
  *signature = bytes + *offset + 4;
  const uint8_t *v = *signature + length;
  if (v[0] > 1 || v[1] > VKNN_WINOGRAD_F4X3 || v[2] > 1 || v[3] > 1 || v[4] > 1 || v[5] > VKNN_TUNING_WIDTHS ||
      v[6] > 1 || v[7] > 1)
    return false;
  *out = (vknn_tuning_entry){.signature_size = length,  .texel_reads = v[0],
                             .winograd = (vknn_winograd)v[1], .float16_arithmetic = v[2],
                             .gemm_shared_tiles = v[3], .subgroup_filter = v[4],
                             .width = v[5], .global_pool_reduction = v[6], .packed_layout = v[7]};
  *offset += ENTRY_FIXED_BYTES + length;
  return true;
}

vknn_status vknn_tuning_table_check(const vknn_logger *log, const uint8_t *bytes, size_t size) {
  uint32_t count = size >= 4 ? vknn_le32_get(bytes) : 0;
  bool ok = size >= 4 && count <= (size - 4) / ENTRY_FIXED_BYTES;
  size_t offset = 4;
  const uint8_t *signature;
  vknn_tuning_entry entry;
  for (uint32_t i = 0; ok && i < count; ++i) ok = decode_entry(bytes, size, &offset, &signature, &entry);
  if (ok && offset == size) return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "compilation", "the cache's kernel tuning table is malformed");
  return VKNN_STATUS_GENERAL_FAILURE;
}

void vknn_tuning_table_merge(vknn_tuning_table *table, const uint8_t *bytes, size_t size) {
  size_t offset = 4;
  const uint8_t *signature;
  vknn_tuning_entry entry;
  uint32_t count = vknn_le32_get(bytes);
  for (uint32_t i = 0; i < count && decode_entry(bytes, size, &offset, &signature, &entry); ++i)
    vknn_tuning_table_add(table, signature, entry.signature_size, &entry);
}
