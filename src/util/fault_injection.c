#include "util/fault_injection.h"

#include <stdatomic.h>
#include <stdlib.h>

static struct {
  atomic_uint_fast64_t count;
  atomic_uint_fast64_t fail_at; /* 0: never */
} faults[VKNN_FAULT_KIND_COUNT];

void vknn_fault_arm(vknn_fault_kind kind, uint64_t nth) {
  atomic_store(&faults[kind].fail_at, 0);
  atomic_store(&faults[kind].count, 0);
  atomic_store(&faults[kind].fail_at, nth);
}

uint64_t vknn_fault_count(vknn_fault_kind kind) { return atomic_load(&faults[kind].count); }

bool vknn_fault_next(vknn_fault_kind kind) {
  uint64_t n = atomic_fetch_add(&faults[kind].count, 1) + 1;
  return n == atomic_load(&faults[kind].fail_at);
}

uint64_t vknn_fault_clock_jump_ns(void) {
  /* Unarmed (always, outside tests), a clock reading costs one load. */
  uint64_t at = atomic_load_explicit(&faults[VKNN_FAULT_CLOCK_JUMP].fail_at, memory_order_relaxed);
  if (at == 0) return 0;
  uint64_t n = atomic_fetch_add(&faults[VKNN_FAULT_CLOCK_JUMP].count, 1) + 1;
  return n >= at ? 3600ull * 1000000000ull : 0;
}

void *vknn_malloc(size_t size) {
  return vknn_fault_next(VKNN_FAULT_HOST_ALLOCATION) ? NULL : malloc(size);
}

void *vknn_calloc(size_t count, size_t size) {
  return vknn_fault_next(VKNN_FAULT_HOST_ALLOCATION) ? NULL : calloc(count, size);
}

void *vknn_realloc(void *pointer, size_t size) {
  return vknn_fault_next(VKNN_FAULT_HOST_ALLOCATION) ? NULL : realloc(pointer, size);
}
