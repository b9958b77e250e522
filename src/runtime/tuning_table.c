/* The device's table of kernel tuning choices (tuning_table.h). */
#include "runtime/tuning_table.h"

#include <stdlib.h>
#include <string.h>

#include "util/fault_injection.h"

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
