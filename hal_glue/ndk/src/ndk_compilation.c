/* ANeuralNetworksCompilation: the settings of a prepare, and the vknn
 * prepared model that finish makes. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ndk.h"

static int create_compilation(ANeuralNetworksModel *model, ANeuralNetworksDevice *device,
                              bool explicit_device, ANeuralNetworksCompilation **out) {
  ANeuralNetworksCompilation *c = ndk_alloc(sizeof(*c));
  if (c == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  c->model = model;
  c->device = device;
  c->explicit_device = explicit_device;
  c->preference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER;
  c->priority = ANEURALNETWORKS_PRIORITY_DEFAULT;
  *out = c;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksCompilation_create(ANeuralNetworksModel *model,
                                      ANeuralNetworksCompilation **compilation) {
  NDK_NOT_NULL(compilation);
  *compilation = NULL;
  NDK_NOT_NULL(model);
  NDK_REQUIRE(model->finished, ANEURALNETWORKS_BAD_STATE, "the model is not finished");
  ANeuralNetworksDevice *device;
  int r = ndk_device_get(&device);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  return create_compilation(model, device, false, compilation);
}

int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel *model,
                                                const ANeuralNetworksDevice *const *devices,
                                                uint32_t numDevices,
                                                ANeuralNetworksCompilation **compilation) {
  NDK_NOT_NULL(compilation);
  *compilation = NULL;
  NDK_NOT_NULL(model);
  int r = ndk_device_check_list(__func__, devices, numDevices);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  NDK_REQUIRE(model->finished, ANEURALNETWORKS_BAD_STATE, "the model is not finished");
  /* The list holds this library's one device, once (checked above). */
  return create_compilation(model, (ANeuralNetworksDevice *)devices[0], true, compilation);
}

void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation *compilation) {
  if (compilation == NULL) return;
  vknn_prepared_model_release(compilation->prepared);
  ndk_free(compilation->cache_dir);
  ndk_free(compilation);
}

#define NDK_COMPILATION_SETTER(c)                                                    \
  NDK_NOT_NULL(c);                                                                   \
  NDK_REQUIRE(!(c)->finished, ANEURALNETWORKS_BAD_STATE, "the compilation is finished")

int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation *compilation,
                                             int32_t preference) {
  NDK_COMPILATION_SETTER(compilation);
  NDK_REQUIRE(preference >= ANEURALNETWORKS_PREFER_LOW_POWER &&
                  preference <= ANEURALNETWORKS_PREFER_SUSTAINED_SPEED,
              ANEURALNETWORKS_BAD_DATA, "unknown preference %d", preference);
  compilation->preference = preference;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation *compilation, int priority) {
  NDK_COMPILATION_SETTER(compilation);
  NDK_REQUIRE(priority == ANEURALNETWORKS_PRIORITY_LOW || priority == ANEURALNETWORKS_PRIORITY_MEDIUM ||
                  priority == ANEURALNETWORKS_PRIORITY_HIGH,
              ANEURALNETWORKS_BAD_DATA, "unknown priority %d", priority);
  compilation->priority = priority;
  return ANEURALNETWORKS_NO_ERROR;
}

/* A timeout needs a compilation for exactly one device named by the client
 * (the NDK's rule: the runtime cannot split a deadline between devices). */
int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation *compilation,
                                          uint64_t duration) {
  NDK_COMPILATION_SETTER(compilation);
  NDK_REQUIRE(compilation->explicit_device, ANEURALNETWORKS_BAD_DATA,
              "a timeout needs a compilation made by createForDevices with one device");
  compilation->has_timeout = duration != 0; /* 0: no timeout */
  compilation->timeout_ns = duration;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation *compilation,
                                          const char *cacheDir, const uint8_t *token) {
  NDK_NOT_NULL(cacheDir);
  NDK_NOT_NULL(token);
  NDK_COMPILATION_SETTER(compilation);
  size_t len = strlen(cacheDir);
  char *dir = ndk_alloc(len + 1);
  if (dir == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  memcpy(dir, cacheDir, len + 1);
  ndk_free(compilation->cache_dir);
  compilation->cache_dir = dir;
  memcpy(compilation->token, token, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
  return ANEURALNETWORKS_NO_ERROR;
}

static vknn_priority priority_of(int priority) {
  return priority == ANEURALNETWORKS_PRIORITY_LOW    ? VKNN_PRIORITY_LOW
         : priority == ANEURALNETWORKS_PRIORITY_HIGH ? VKNN_PRIORITY_HIGH
                                                     : VKNN_PRIORITY_MEDIUM;
}

/* The cache files of a token: <dir>/<token in hex>.model and .data, opened
 * for reading and writing. */
typedef struct cache_files {
  int fds[2];
  vknn_cache_handle handles[2];
  vknn_cache_files files;
  bool existed;
} cache_files;

static int open_cache_file(const ANeuralNetworksCompilation *c, const char *suffix, bool *existed) {
  char path[4096], hex[2 * ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN + 1];
  for (int i = 0; i < ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN; ++i) sprintf(hex + 2 * i, "%02x", c->token[i]);
  snprintf(path, sizeof(path), "%s/%s.%s", c->cache_dir, hex, suffix);
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  struct stat st;
  if (fd < 0) ndk_log_error("ANeuralNetworksCompilation_finish", "cannot open the cache file %s", path);
  else if (fstat(fd, &st) == 0 && st.st_size > 0) *existed = true;
  return fd;
}

static void open_cache(const ANeuralNetworksCompilation *c, cache_files *cache) {
  bool model_existed = false, data_existed = false;
  cache->fds[0] = open_cache_file(c, "model", &model_existed);
  cache->fds[1] = open_cache_file(c, "data", &data_existed);
  cache->existed = model_existed && data_existed;
  for (int i = 0; i < 2; ++i) cache->handles[i] = (vknn_cache_handle){&cache->fds[i], 1};
  cache->files = (vknn_cache_files){&cache->handles[0], 1, &cache->handles[1], 1, c->token};
}

static void close_cache(cache_files *cache) {
  for (int i = 0; i < 2; ++i)
    if (cache->fds[i] >= 0) close(cache->fds[i]);
}

/* Prepares from the cache when it holds the token's model; else prepares and
 * writes the cache. A cache that cannot be opened only costs the caching. */
static vknn_status prepare_cached(ANeuralNetworksCompilation *c, const vknn_model *model,
                                  const vknn_deadline *deadline) {
  cache_files cache;
  open_cache(c, &cache);
  bool usable = cache.fds[0] >= 0 && cache.fds[1] >= 0;
  vknn_status s = VKNN_STATUS_GENERAL_FAILURE;
  if (usable && cache.existed)
    s = vknn_device_prepare_model_from_cache(c->device->vk, deadline, &cache.files, &c->prepared);
  if (s != VKNN_STATUS_NONE)
    s = vknn_device_prepare_model_with_cache(c->device->vk, model, (vknn_execution_preference)c->preference,
                                             priority_of(c->priority), deadline,
                                             usable ? &cache.files : NULL, &c->prepared);
  close_cache(&cache);
  return s;
}

/* Why a prepare failed with GENERAL_FAILURE: an operation vknn does not run
 * is the NDK's BAD_DATA ("not supported by the devices"), anything else OP_FAILED. */
static int failure_result(ANeuralNetworksCompilation *c, const vknn_model *model) {
  uint32_t count = model->main.operation_count;
  bool *supported = ndk_alloc(count * sizeof(bool));
  int r = ANEURALNETWORKS_OP_FAILED;
  if (supported != NULL && vknn_device_get_supported_operations(c->device->vk, model, supported, count) == VKNN_STATUS_NONE) {
    for (uint32_t i = 0; i < count; ++i)
      if (!supported[i]) r = ANEURALNETWORKS_BAD_DATA;
  }
  ndk_free(supported);
  return r;
}

int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation *compilation) {
  NDK_COMPILATION_SETTER(compilation);
  /* finish runs once, successful or not: a failed compilation stays unusable. */
  compilation->finished = true;
  ndk_flat_model flat;
  int r = ndk_flatten(compilation->model, &flat);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  vknn_deadline deadline = {compilation->has_timeout, ndk_now_boottime_ns() + compilation->timeout_ns};
  vknn_status s;
  if (compilation->cache_dir != NULL) s = prepare_cached(compilation, &flat.model, &deadline);
  else
    s = vknn_device_prepare_model(compilation->device->vk, &flat.model,
                                  (vknn_execution_preference)compilation->preference,
                                  priority_of(compilation->priority), &deadline, &compilation->prepared);
  r = ndk_result_of(s);
  if (s == VKNN_STATUS_GENERAL_FAILURE) r = failure_result(compilation, &flat.model);
  ndk_flat_model_free(&flat);
  if (r != ANEURALNETWORKS_NO_ERROR) {
    compilation->prepared = NULL;
    ndk_log_error(__func__, "vknn could not prepare the model: %s", vknn_status_name(s));
  }
  return r;
}

/* The model's input or output index of a finished compilation, or NULL. */
const ndk_operand *ndk_compilation_io_operand(const ANeuralNetworksCompilation *c, uint32_t index,
                                              bool is_input) {
  const ANeuralNetworksModel *m = c->model;
  if (is_input) return index < m->input_count ? &m->operands[m->inputs[index]] : NULL;
  return index < m->output_count ? &m->operands[m->outputs[index]] : NULL;
}
