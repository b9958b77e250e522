/* Bursts: executions that reuse the mappings of request memories by slot, so
 * a run of executions maps each memory once. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/prepared_model_internal.h"
#include "vknn/burst.h"
#include "util/fault_injection.h"

#define TAG "execution"

/* A slot keeps the memory it was first given, with a descriptor of its own:
 * every execution naming the slot runs on that memory, whatever memory the
 * request gives with it and even once the caller has closed its own
 * descriptor (as the HAL's burst keeps its memories). */
typedef struct burst_slot {
  int32_t slot;
  vknn_mapped_pool pool;
  int fd;
  int32_t ints[3];
  vknn_memory memory; /* fds and ints point into this slot */
} burst_slot;

struct vknn_burst {
  vknn_prepared_model *pm;
  pthread_mutex_t lock; /* one execution at a time; guards the slots */
  burst_slot **slots;   /* each slot on its own: the memories point into them */
  uint32_t count, capacity;
  /* The current request's pools, in its order: mapped, and as run. */
  vknn_mapped_pool *scratch;
  vknn_request_pool *scratch_pools;
  uint32_t scratch_capacity;
};

vknn_status vknn_burst_create(vknn_prepared_model *pm, vknn_burst **out_burst) {
  if (pm == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  if (out_burst == NULL) {
    VKNN_LOG_E(&pm->device->log, TAG, "burst: no place for the burst");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_burst *b = vknn_calloc(1, sizeof(*b));
  if (b == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  b->pm = pm;
  pthread_mutex_init(&b->lock, NULL);
  *out_burst = b;
  return VKNN_STATUS_NONE;
}

static burst_slot *find_slot(vknn_burst *b, int32_t slot) {
  for (uint32_t i = 0; i < b->count; ++i)
    if (b->slots[i]->slot == slot) return b->slots[i];
  return NULL;
}

static void slot_free(burst_slot *s) {
  vknn_memory_unmap(&s->pool);
  if (s->fd >= 0) close(s->fd);
  free(s);
}

/* The slot's own copy of a mapped memory (an ashmem or mmap_fd pool). */
static vknn_status keep_memory(const vknn_logger *log, burst_slot *s, const vknn_memory *memory) {
  s->fd = fcntl(memory->fds[0], F_DUPFD_CLOEXEC, 0);
  if (s->fd < 0) {
    VKNN_LOG_E(log, TAG, "burst slot %d: duplicating its memory's descriptor: %s", s->slot,
               strerror(errno));
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  bool mmap_fd = strcmp(memory->name, "mmap_fd") == 0;
  if (mmap_fd) memcpy(s->ints, memory->ints, sizeof(s->ints));
  s->memory = (vknn_memory){.name = mmap_fd ? "mmap_fd" : "ashmem", .fds = &s->fd, .fd_count = 1,
                            .ints = s->ints, .int_count = mmap_fd ? 3 : 0, .size = memory->size};
  return VKNN_STATUS_NONE;
}

static vknn_status add_slot(vknn_burst *b, int32_t slot, const vknn_memory *memory,
                            burst_slot **out) {
  if (b->count == b->capacity) {
    uint32_t capacity = b->capacity ? b->capacity * 2 : 8;
    burst_slot **slots = vknn_realloc(b->slots, capacity * sizeof(*slots));
    if (slots == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    b->slots = slots;
    b->capacity = capacity;
  }
  burst_slot *s = vknn_calloc(1, sizeof(*s));
  if (s == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  s->slot = slot;
  s->fd = -1;
  const vknn_logger *log = &b->pm->device->log;
  vknn_status status = vknn_memory_map(log, memory, &s->pool);
  if (status == VKNN_STATUS_NONE) status = keep_memory(log, s, memory);
  if (status != VKNN_STATUS_NONE) {
    slot_free(s);
    return status;
  }
  b->slots[b->count++] = s;
  *out = s;
  return VKNN_STATUS_NONE;
}

static vknn_status reserve_scratch(vknn_burst *b, uint32_t count) {
  if (count <= b->scratch_capacity) return VKNN_STATUS_NONE;
  vknn_mapped_pool *scratch = vknn_realloc(b->scratch, count * sizeof(*scratch));
  if (scratch != NULL) b->scratch = scratch;
  vknn_request_pool *pools = vknn_realloc(b->scratch_pools, count * sizeof(*pools));
  if (pools != NULL) b->scratch_pools = pools;
  if (scratch == NULL || pools == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  b->scratch_capacity = count;
  return VKNN_STATUS_NONE;
}

/* The request's pools from the slot cache, mapping the new ones. */
static vknn_status gather_pools(vknn_burst *b, const vknn_request *request, const int32_t *slots) {
  vknn_status status = reserve_scratch(b, request->pool_count);
  if (status != VKNN_STATUS_NONE) return status;
  for (uint32_t i = 0; i < request->pool_count; ++i) {
    if (request->pools[i].kind != VKNN_REQUEST_POOL_MEMORY) {
      VKNN_LOG_E(&b->pm->device->log, TAG, "a burst takes shared memory pools only (pool %u)", i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (slots[i] < 0) {
      VKNN_LOG_E(&b->pm->device->log, TAG, "burst slot %d of pool %u is negative", slots[i], i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    burst_slot *s = find_slot(b, slots[i]);
    if (s == NULL) {
      status = add_slot(b, slots[i], &request->pools[i].memory, &s);
      if (status != VKNN_STATUS_NONE) return status;
    }
    b->scratch[i] = s->pool;
    b->scratch_pools[i] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = s->memory};
  }
  return VKNN_STATUS_NONE;
}

/* Every argument inside the memory its slot holds: validation checked the
 * memories the request gives, but a cached slot's own may be smaller. */
static vknn_status check_slot_bounds(vknn_burst *b, const vknn_request *request, const int32_t *slots) {
  for (uint32_t i = 0; i < request->input_count + request->output_count; ++i) {
    const vknn_request_argument *a =
        i < request->input_count ? &request->inputs[i] : &request->outputs[i - request->input_count];
    if (a->has_no_value) continue;
    const vknn_mapped_pool *pool = &b->scratch[a->location.pool_index];
    if ((uint64_t)a->location.offset + a->location.length <= pool->size) continue;
    VKNN_LOG_E(&b->pm->device->log, TAG, "%s %u: bytes %u..%llu lie past the %llu of burst slot %d",
               i < request->input_count ? "input" : "output",
               i < request->input_count ? i : i - request->input_count, a->location.offset,
               (unsigned long long)a->location.offset + a->location.length, (unsigned long long)pool->size,
               slots[a->location.pool_index]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_burst_execute(vknn_burst *b, const vknn_request *request, const int32_t *slots,
                               vknn_measure_timing measure, const vknn_deadline *deadline,
                               const vknn_duration *loop_timeout, vknn_output_shape *out_shapes,
                               uint32_t shape_count, vknn_timing *out_timing) {
  if (out_timing != NULL) *out_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  if (b == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  if (request != NULL && request->pool_count > 0 && slots == NULL) {
    VKNN_LOG_E(&b->pm->device->log, TAG, "burst: %u pools and no slots", request->pool_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_execution_options o = vknn_execution_options_make(b->pm, measure, deadline, loop_timeout);
  vknn_status s = vknn_execution_validate(b->pm, request, measure, out_shapes, shape_count);
  if (s != VKNN_STATUS_NONE) return s;
  pthread_mutex_lock(&b->lock);
  s = gather_pools(b, request, slots);
  if (s == VKNN_STATUS_NONE) s = check_slot_bounds(b, request, slots);
  /* The request as run names the slots' memories. */
  vknn_request on_slots = *request;
  on_slots.pools = b->scratch_pools;
  if (s == VKNN_STATUS_NONE)
    s = vknn_execution_run(b->pm, &on_slots, b->scratch, &o, out_shapes, shape_count, out_timing);
  pthread_mutex_unlock(&b->lock);
  return s;
}

vknn_status vknn_burst_free_memory(vknn_burst *b, int32_t slot) {
  if (b == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  pthread_mutex_lock(&b->lock);
  for (uint32_t i = 0; i < b->count; ++i) {
    if (b->slots[i]->slot != slot) continue;
    slot_free(b->slots[i]);
    b->slots[i] = b->slots[--b->count];
    break;
  }
  pthread_mutex_unlock(&b->lock);
  return VKNN_STATUS_NONE;
}

void vknn_burst_release(vknn_burst *b) {
  if (b == NULL) return;
  for (uint32_t i = 0; i < b->count; ++i) slot_free(b->slots[i]);
  pthread_mutex_destroy(&b->lock);
  free(b->slots);
  free(b->scratch);
  free(b->scratch_pools);
  free(b);
}
