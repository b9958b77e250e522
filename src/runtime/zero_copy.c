/* Request memory bound without copies. A memory layout (which pools, by file
 * identity, and where each argument lies in them) keys a cache entry that
 * owns the pools' imports (our own mapping of each pool, imported as Vulkan
 * memory) and the graph recorded with its inputs and outputs bound there.
 * Repeated executions and bursts on the same memory reuse the entry: no new
 * import, no new recording. A layout is imported the second time it is
 * seen: memory used once (a new pool per execution) goes through staging
 * rather than cost an import and a recording. */
#include "runtime/zero_copy.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/device_internal.h"
#include "memory/host_import.h"
#include "util/fault_injection.h"

#define CACHE_ENTRIES 4

typedef struct pool_identity {
  uint64_t dev, ino, offset, size;
} pool_identity;

typedef struct host_import {
  pool_identity id;
  vknn_host_import import;
} host_import;

/* Per argument: the pool's identity and where the argument starts in it. */
typedef struct argument_key {
  pool_identity pool;
  uint64_t offset;
  uint32_t present;
} argument_key;

typedef struct zero_copy_entry {
  argument_key *key; /* inputs, then outputs */
  host_import *imports;
  uint32_t import_count;
  vknn_recording recording;
  uint64_t last_use;    /* the cache's clock, for eviction */
  uint64_t last_use_ns; /* for the watchdog */
} zero_copy_entry;

struct vknn_zero_copy_cache {
  zero_copy_entry entries[CACHE_ENTRIES];
  uint32_t count;
  uint64_t clock;
  argument_key *seen[CACHE_ENTRIES]; /* layouts seen once, not imported */
  uint32_t next_seen;
};

static bool identify(const vknn_memory *memory, pool_identity *out) {
  struct stat st;
  if (memory->fd_count < 1 || fstat(memory->fds[0], &st) != 0) return false;
  if (strcmp(memory->name, "mmap_fd") == 0) {
    if ((memory->ints[0] & PROT_WRITE) == 0) return false; /* imports want writable pages */
  } else if (strcmp(memory->name, "ashmem") != 0) {
    return false;
  }
  *out = (pool_identity){(uint64_t)st.st_dev, (uint64_t)st.st_ino, vknn_memory_offset(memory),
                         memory->size};
  return true;
}

static uint32_t arg_count(const vknn_request *r) { return r->input_count + r->output_count; }

static const vknn_request_argument *arg_at(const vknn_request *r, uint32_t i) {
  return i < r->input_count ? &r->inputs[i] : &r->outputs[i - r->input_count];
}

/* In 64 bits: a range of a pool past 4 GiB ends beyond what 32 bits hold. */
static uint64_t end_of(const vknn_request_argument *a) {
  return (uint64_t)a->location.offset + a->location.length;
}

static bool overlaps(const vknn_request_argument *a, const vknn_request_argument *b) {
  return a->location.pool_index == b->location.pool_index && a->location.offset < end_of(b) &&
         b->location.offset < end_of(a);
}

/* Outputs must not share bytes with any other argument. */
static bool outputs_alone(const vknn_request *r) {
  for (uint32_t o = r->input_count; o < arg_count(r); ++o) {
    const vknn_request_argument *out = arg_at(r, o);
    if (out->has_no_value) continue;
    for (uint32_t i = 0; i < arg_count(r); ++i)
      if (i != o && !arg_at(r, i)->has_no_value && overlaps(out, arg_at(r, i))) return false;
  }
  return true;
}

/* Every pool's identity, once per pool; false when one cannot be imported. */
static bool identify_pools(const vknn_request *r, pool_identity *ids) {
  for (uint32_t p = 0; p < r->pool_count; ++p)
    if (r->pools[p].kind != VKNN_REQUEST_POOL_MEMORY || !identify(&r->pools[p].memory, &ids[p]))
      return false;
  return true;
}

/* Builds the key; false when some argument cannot be bound in place. */
static bool make_key(const vknn_graph_instance *inst, const vknn_request *r, argument_key *key) {
  VkDeviceSize align = vknn_vk_binding_alignment(&inst->graph->device->vk);
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  memset(key, 0, arg_count(r) * sizeof(*key));
  pool_identity *ids = vknn_calloc(r->pool_count ? r->pool_count : 1, sizeof(*ids));
  bool ok = ids != NULL && identify_pools(r, ids);
  for (uint32_t i = 0; ok && i < arg_count(r); ++i) {
    const vknn_request_argument *a = arg_at(r, i);
    if (a->has_no_value) continue;
    key[i].pool = ids[a->location.pool_index];
    /* The import starts at the page holding the pool's first byte: the
     * binding offset is the pool's offset within that page plus the
     * argument's, and must meet the storage-buffer alignment. */
    ok = (key[i].pool.offset % page + a->location.offset) % align == 0;
    key[i].offset = a->location.offset;
    key[i].present = 1;
  }
  free(ids);
  return ok && outputs_alone(r);
}

static void release_entry(const vknn_graph_instance *inst, zero_copy_entry *e) {
  vknn_recording_resources res = vknn_graph_instance_resources(inst);
  vknn_recording_destroy(&res, &e->recording);
  for (uint32_t i = 0; i < e->import_count; ++i)
    vknn_host_import_destroy(&inst->graph->device->vk, &e->imports[i].import);
  free(e->imports);
  free(e->key);
  memset(e, 0, sizeof(*e));
}

static host_import *find_import(zero_copy_entry *e, const pool_identity *id) {
  for (uint32_t i = 0; i < e->import_count; ++i)
    if (memcmp(&e->imports[i].id, id, sizeof(*id)) == 0) return &e->imports[i];
  return NULL;
}

/* Imports every pool the arguments use and binds each argument in place;
 * an argument without a value keeps its staging slot. */
static vknn_status bind_arguments(const vknn_graph_instance *inst, const vknn_request *r,
                                  zero_copy_entry *e, vknn_io_binding *bindings) {
  const vknn_recorded_graph *rg = inst->graph;
  e->imports = vknn_calloc(r->pool_count ? r->pool_count : 1, sizeof(host_import));
  if (e->imports == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < arg_count(r); ++i) {
    bool output = i >= r->input_count;
    const vknn_io_slot *slot = output ? &rg->outputs[i - r->input_count] : &rg->inputs[i];
    bindings[i] = (vknn_io_binding){inst->staging.buffer, slot->offset};
    if (!e->key[i].present) continue;
    const vknn_request_argument *a = arg_at(r, i);
    host_import *imp = find_import(e, &e->key[i].pool);
    if (imp == NULL) {
      imp = &e->imports[e->import_count++];
      imp->id = e->key[i].pool;
      vknn_status s = vknn_host_import_create(&rg->device->vk,
                                              &r->pools[a->location.pool_index].memory,
                                              VKNN_IMPORT_SHARED, &imp->import);
      if (s != VKNN_STATUS_NONE) return s;
    }
    bindings[i] = (vknn_io_binding){imp->import.buffer,
                                    vknn_host_import_start(&imp->import) + a->location.offset};
  }
  return VKNN_STATUS_NONE;
}

static zero_copy_entry *free_entry(const vknn_graph_instance *inst, struct vknn_zero_copy_cache *c) {
  if (c->count < CACHE_ENTRIES) return &c->entries[c->count++];
  zero_copy_entry *oldest = &c->entries[0];
  for (uint32_t i = 1; i < c->count; ++i)
    if (c->entries[i].last_use < oldest->last_use) oldest = &c->entries[i];
  release_entry(inst, oldest);
  return oldest;
}

/* Drops an entry: the last one takes its place. */
static void remove_entry(const vknn_graph_instance *inst, zero_copy_entry *e) {
  struct vknn_zero_copy_cache *c = inst->zero_copy;
  release_entry(inst, e);
  *e = c->entries[--c->count];
  memset(&c->entries[c->count], 0, sizeof(c->entries[c->count]));
}

static vknn_status create_entry(vknn_graph_instance *inst, const vknn_request *r,
                                argument_key *key, zero_copy_entry **out) {
  zero_copy_entry *e = free_entry(inst, inst->zero_copy);
  e->key = key;
  vknn_io_binding *bindings = vknn_calloc(arg_count(r) ? arg_count(r) : 1, sizeof(*bindings));
  vknn_status s = bindings == NULL ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                                   : bind_arguments(inst, r, e, bindings);
  vknn_recording_resources res = vknn_graph_instance_resources(inst);
  if (s == VKNN_STATUS_NONE)
    s = vknn_recording_create(&res, bindings, bindings + r->input_count, &e->recording);
  free(bindings);
  if (s != VKNN_STATUS_NONE) {
    remove_entry(inst, e);
    return s;
  }
  *out = e;
  return VKNN_STATUS_NONE;
}

/* True when the layout was seen before (it is then forgotten: an entry takes
 * over); otherwise remembers it, taking ownership of key. */
static bool seen_before(struct vknn_zero_copy_cache *c, argument_key *key, size_t key_size) {
  for (uint32_t i = 0; i < CACHE_ENTRIES; ++i) {
    if (c->seen[i] == NULL || memcmp(c->seen[i], key, key_size) != 0) continue;
    free(c->seen[i]);
    c->seen[i] = NULL;
    return true;
  }
  free(c->seen[c->next_seen]);
  c->seen[c->next_seen] = key;
  c->next_seen = (c->next_seen + 1) % CACHE_ENTRIES;
  return false;
}

vknn_status vknn_zero_copy_select(vknn_graph_instance *inst, const vknn_request *request,
                                  const vknn_recording **out_recording) {
  *out_recording = NULL;
  const vknn_device *device = inst->graph->device;
  if (device->vk.host_import_alignment == 0 || arg_count(request) == 0) return VKNN_STATUS_NONE;
  argument_key *key = vknn_calloc(arg_count(request), sizeof(*key));
  if (key == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (!make_key(inst, request, key)) {
    free(key);
    return VKNN_STATUS_NONE;
  }
  if (inst->zero_copy == NULL) inst->zero_copy = vknn_calloc(1, sizeof(*inst->zero_copy));
  struct vknn_zero_copy_cache *c = inst->zero_copy;
  if (c == NULL) {
    free(key);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  zero_copy_entry *e = NULL;
  size_t key_size = arg_count(request) * sizeof(*key);
  for (uint32_t i = 0; i < c->count && e == NULL; ++i)
    if (memcmp(c->entries[i].key, key, key_size) == 0) e = &c->entries[i];
  if (e == NULL && !seen_before(c, key, key_size)) return VKNN_STATUS_NONE;
  vknn_status s = VKNN_STATUS_NONE;
  if (e != NULL) free(key);
  else s = create_entry(inst, request, key, &e);
  if (s != VKNN_STATUS_NONE) {
    /* Not the caller's fault: the staging path still works. */
    VKNN_LOG_V(&device->log, "execution", "zero copy unavailable (%s); staging instead",
               vknn_status_name(s));
    return VKNN_STATUS_NONE;
  }
  e->last_use = ++c->clock;
  e->last_use_ns = vknn_now_boottime_ns();
  *out_recording = &e->recording;
  return VKNN_STATUS_NONE;
}

uint32_t vknn_zero_copy_trim(vknn_graph_instance *inst, uint64_t now_ns, uint64_t idle_ns) {
  struct vknn_zero_copy_cache *c = inst->zero_copy;
  uint32_t released = 0;
  for (uint32_t i = 0; c != NULL && i < c->count;) {
    if (now_ns - c->entries[i].last_use_ns < idle_ns) {
      ++i;
      continue;
    }
    remove_entry(inst, &c->entries[i]);
    released++;
  }
  return released;
}

void vknn_zero_copy_release(vknn_graph_instance *inst) {
  struct vknn_zero_copy_cache *c = inst->zero_copy;
  if (c == NULL) return;
  for (uint32_t i = 0; i < c->count; ++i) release_entry(inst, &c->entries[i]);
  for (uint32_t i = 0; i < CACHE_ENTRIES; ++i) free(c->seen[i]);
  free(c);
  inst->zero_copy = NULL;
}
