/* Compute pipelines of a device, keyed by shader and specialization constants.
 * Pipelines are created at prepare time and shared by every prepared model. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vk/vk_context.h"
#include "util/fault_injection.h"

#define MAX_SPEC 12 /* as many as a dispatch holds (VKNN_MAX_SPEC_CONSTANTS) */

struct vknn_pipeline_entry {
  vknn_pipeline_entry *next;
  vknn_shader_id shader;
  uint32_t binding_count;
  uint32_t local_size;
  uint32_t spec_count;
  uint32_t spec[MAX_SPEC];
  vknn_vk_pipeline result;
};

static bool entry_matches(const vknn_pipeline_entry *e, vknn_shader_id shader,
                          uint32_t binding_count, uint32_t local_size, const uint32_t *spec,
                          uint32_t spec_count) {
  return e->shader == shader && e->binding_count == binding_count &&
         e->local_size == local_size && e->spec_count == spec_count &&
         memcmp(e->spec, spec, spec_count * sizeof(uint32_t)) == 0;
}

static VkResult create_pipeline(vknn_vk *vk, vknn_pipeline_entry *e) {
  if (vknn_vk_layout_get(&vk->layouts, vk->device, vk->log, e->binding_count,
                         vknn_embedded_shaders[e->shader].texel_bindings,
                         &e->result.layout) != VKNN_STATUS_NONE)
    return VK_ERROR_INITIALIZATION_FAILED;
  uint32_t values[MAX_SPEC + 1];
  VkSpecializationMapEntry map[MAX_SPEC + 1];
  values[0] = e->local_size;
  for (uint32_t i = 0; i <= e->spec_count; ++i) {
    if (i > 0) values[i] = e->spec[i - 1];
    map[i] = (VkSpecializationMapEntry){
        .constantID = i, .offset = i * sizeof(uint32_t), .size = sizeof(uint32_t)};
  }
  VkSpecializationInfo spec = {.mapEntryCount = e->spec_count + 1,
                               .pMapEntries = map,
                               .dataSize = (e->spec_count + 1) * sizeof(uint32_t),
                               .pData = values};
  VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = vk->shader_modules[e->shader],
                .pName = "main",
                .pSpecializationInfo = &spec},
      .layout = e->result.layout->pipeline};
  atomic_fetch_add(&vk->counters.pipelines_created, 1);
  pthread_rwlock_rdlock(&vk->pipeline_cache_lock);
  VkResult r = vkCreateComputePipelines(vk->device, vk->pipeline_cache, 1, &info, NULL,
                                        &e->result.pipeline);
  pthread_rwlock_unlock(&vk->pipeline_cache_lock);
  return r;
}

vknn_status vknn_vk_get_pipeline(vknn_vk *vk, vknn_shader_id shader, uint32_t binding_count,
                                 uint32_t local_size, const uint32_t *spec, uint32_t spec_count,
                                 vknn_vk_pipeline *out) {
  if (spec_count > MAX_SPEC || binding_count == 0 || binding_count > VKNN_MAX_BINDINGS)
    return VKNN_STATUS_GENERAL_FAILURE;
  if (!vknn_vk_has_shader(vk, shader)) {
    VKNN_LOG_E(vk->log, "compilation", "%s needs a device feature this device lacks",
               vknn_embedded_shaders[shader].name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  pthread_mutex_lock(&vk->pipeline_lock);
  vknn_pipeline_entry *e = vk->pipelines;
  while (e != NULL && !entry_matches(e, shader, binding_count, local_size, spec, spec_count))
    e = e->next;
  vknn_status status = VKNN_STATUS_NONE;
  if (e == NULL) {
    e = vknn_calloc(1, sizeof(*e));
    if (e == NULL) {
      status = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    } else {
      *e = (vknn_pipeline_entry){.shader = shader,
                                 .binding_count = binding_count,
                                 .local_size = local_size,
                                 .spec_count = spec_count};
      if (spec_count > 0) memcpy(e->spec, spec, spec_count * sizeof(uint32_t));
      VkResult r = create_pipeline(vk, e);
      if (r != VK_SUCCESS) {
        VKNN_LOG_E(vk->log, "compilation", "creating the pipeline of %s failed (%d)",
                   vknn_embedded_shaders[shader].name, r);
        free(e);
        e = NULL;
        status = vknn_vk_status(r);
      } else {
        e->next = vk->pipelines;
        vk->pipelines = e;
      }
    }
  }
  if (e != NULL) *out = e->result;
  pthread_mutex_unlock(&vk->pipeline_lock);
  return status;
}

/* Threads creating pipelines at once: one per core, at most this many. */
#define MAX_CREATE_THREADS 8

typedef struct create_work {
  vknn_vk *vk;
  vknn_pipeline_entry **entries; /* to create, not yet in the device's list */
  uint32_t count;
  uint32_t next; /* taken under lock */
  pthread_mutex_t lock;
} create_work;

static void *create_worker(void *arg) {
  create_work *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    uint32_t i = w->next < w->count ? w->next++ : UINT32_MAX;
    pthread_mutex_unlock(&w->lock);
    if (i == UINT32_MAX) return NULL;
    if (create_pipeline(w->vk, w->entries[i]) != VK_SUCCESS)
      w->entries[i]->result.pipeline = VK_NULL_HANDLE;
  }
}

static bool listed(const vknn_vk *vk, vknn_pipeline_entry *const *entries, uint32_t count,
                   const vknn_pipeline_key *k) {
  for (const vknn_pipeline_entry *e = vk->pipelines; e != NULL; e = e->next)
    if (entry_matches(e, k->shader, k->binding_count, k->local_size, k->spec, k->spec_count))
      return true;
  for (uint32_t i = 0; i < count; ++i)
    if (entry_matches(entries[i], k->shader, k->binding_count, k->local_size, k->spec,
                      k->spec_count))
      return true;
  return false;
}

/* The entries of the keys the device has no pipeline for yet, each once. */
static uint32_t missing_entries(vknn_vk *vk, const vknn_pipeline_key *keys, uint32_t count,
                                vknn_pipeline_entry **out) {
  uint32_t n = 0;
  pthread_mutex_lock(&vk->pipeline_lock);
  for (uint32_t i = 0; i < count; ++i) {
    const vknn_pipeline_key *k = &keys[i];
    if (k->spec_count > MAX_SPEC || k->binding_count == 0 || k->binding_count > VKNN_MAX_BINDINGS ||
        !vknn_vk_has_shader(vk, k->shader) || listed(vk, out, n, k))
      continue;
    vknn_pipeline_entry *e = vknn_calloc(1, sizeof(*e));
    if (e == NULL) break;
    *e = (vknn_pipeline_entry){.shader = k->shader, .binding_count = k->binding_count,
                               .local_size = k->local_size, .spec_count = k->spec_count};
    if (k->spec_count > 0) memcpy(e->spec, k->spec, k->spec_count * sizeof(uint32_t));
    out[n++] = e;
  }
  pthread_mutex_unlock(&vk->pipeline_lock);
  return n;
}

/* Adds the created entries to the device's list; one another thread added
 * meanwhile, or one whose creation failed, is dropped (a later
 * vknn_vk_get_pipeline creates it again and reports the failure). */
static void adopt_entries(vknn_vk *vk, vknn_pipeline_entry **entries, uint32_t count) {
  pthread_mutex_lock(&vk->pipeline_lock);
  for (uint32_t i = 0; i < count; ++i) {
    vknn_pipeline_entry *e = entries[i];
    bool taken = false;
    for (const vknn_pipeline_entry *o = vk->pipelines; o != NULL && !taken; o = o->next)
      taken = entry_matches(o, e->shader, e->binding_count, e->local_size, e->spec, e->spec_count);
    if (taken || e->result.pipeline == VK_NULL_HANDLE) {
      if (e->result.pipeline != VK_NULL_HANDLE) vkDestroyPipeline(vk->device, e->result.pipeline, NULL);
      free(e);
      continue;
    }
    e->next = vk->pipelines;
    vk->pipelines = e;
  }
  pthread_mutex_unlock(&vk->pipeline_lock);
}

void vknn_vk_create_pipelines(vknn_vk *vk, const vknn_pipeline_key *keys, uint32_t count) {
  if (count == 0) return;
  vknn_pipeline_entry **entries = vknn_calloc(count, sizeof(*entries));
  if (entries == NULL) return;
  create_work w = {.vk = vk, .entries = entries, .count = missing_entries(vk, keys, count, entries)};
  pthread_mutex_init(&w.lock, NULL);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  uint32_t threads = cores < 1 ? 1 : cores > MAX_CREATE_THREADS ? MAX_CREATE_THREADS : (uint32_t)cores;
  if (threads > w.count) threads = w.count;
  pthread_t helpers[MAX_CREATE_THREADS];
  uint32_t started = 0;
  /* The calling thread works too: helpers beyond the first are extra. */
  while (started + 1 < threads && pthread_create(&helpers[started], NULL, create_worker, &w) == 0)
    started++;
  create_worker(&w);
  for (uint32_t i = 0; i < started; ++i) pthread_join(helpers[i], NULL);
  pthread_mutex_destroy(&w.lock);
  adopt_entries(vk, entries, w.count);
  free(entries);
}

bool vknn_vk_has_shader(const vknn_vk *vk, vknn_shader_id shader) {
  uint32_t needs = vknn_embedded_shaders[shader].needs;
  return (vk->shader_features & needs) == needs;
}

void vknn_vk_destroy_pipelines(vknn_vk *vk) {
  while (vk->pipelines != NULL) {
    vknn_pipeline_entry *next = vk->pipelines->next;
    vkDestroyPipeline(vk->device, vk->pipelines->result.pipeline, NULL);
    free(vk->pipelines);
    vk->pipelines = next;
  }
}

vknn_status vknn_vk_pipeline_cache_data(vknn_vk *vk, uint8_t **out_data, size_t *out_size) {
  *out_data = NULL;
  *out_size = 0;
  pthread_rwlock_wrlock(&vk->pipeline_cache_lock);
  size_t size = 0;
  VkResult r = vkGetPipelineCacheData(vk->device, vk->pipeline_cache, &size, NULL);
  uint8_t *data = r == VK_SUCCESS ? vknn_malloc(size ? size : 1) : NULL;
  if (data != NULL) r = vkGetPipelineCacheData(vk->device, vk->pipeline_cache, &size, data);
  pthread_rwlock_unlock(&vk->pipeline_cache_lock);
  if (data == NULL || r != VK_SUCCESS) {
    free(data);
    VKNN_LOG_E(vk->log, "compilation", "reading the pipeline cache failed (%d)", r);
    return r == VK_SUCCESS ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT : vknn_vk_status(r);
  }
  *out_data = data;
  *out_size = size;
  return VKNN_STATUS_NONE;
}

/* The header every pipeline cache's data starts with
 * (VkPipelineCacheHeaderVersionOne), read byte by byte: the data has no
 * alignment. */
static uint32_t read_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool header_names_device(const vknn_vk *vk, const uint8_t *data, size_t size) {
  const size_t header = 16 + VK_UUID_SIZE;
  if (size < header) return false;
  uint32_t header_size = read_u32(data);
  return header_size >= header && header_size <= size &&
         read_u32(data + 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         read_u32(data + 8) == vk->properties.vendorID &&
         read_u32(data + 12) == vk->properties.deviceID &&
         memcmp(data + 16, vk->properties.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

vknn_status vknn_vk_pipeline_cache_merge(vknn_vk *vk, const uint8_t *data, size_t size) {
  if (!header_names_device(vk, data, size)) {
    VKNN_LOG_E(vk->log, "compilation", "pipeline-cache data of another device or malformed");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = size,
                                    .pInitialData = data};
  VkPipelineCache saved = VK_NULL_HANDLE;
  VkResult r = vkCreatePipelineCache(vk->device, &info, NULL, &saved);
  if (r == VK_SUCCESS) {
    pthread_rwlock_wrlock(&vk->pipeline_cache_lock);
    r = vkMergePipelineCaches(vk->device, vk->pipeline_cache, 1, &saved);
    pthread_rwlock_unlock(&vk->pipeline_cache_lock);
    vkDestroyPipelineCache(vk->device, saved, NULL);
  }
  if (r != VK_SUCCESS) {
    VKNN_LOG_E(vk->log, "compilation", "merging saved pipeline-cache data failed (%d)", r);
    return vknn_vk_status(r);
  }
  return VKNN_STATUS_NONE;
}
