/* ANeuralNetworksCompilation: the settings of a prepare, and the vknn
 * prepared model that finish makes. */
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ndk.h"

static atomic_uint_fast64_t last_compilation_id;

static int create_compilation(ANeuralNetworksModel *model, ANeuralNetworksDevice *device,
                              bool explicit_device, ANeuralNetworksCompilation **out) {
  ANeuralNetworksCompilation *c = ndk_alloc(sizeof(*c));
  if (c == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  c->id = atomic_fetch_add(&last_compilation_id, 1) + 1;
  c->model = model;
  c->device = device;
  c->explicit_device = explicit_device;
  c->preference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER;
  c->priority = ANEURALNETWORKS_PRIORITY_DEFAULT;
  c->cache_fds[0] = c->cache_fds[1] = -1;
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
  if (compilation->prepared != NULL) ndk_device_drop();
  vknn_prepared_model_release(compilation->prepared);
  for (int i = 0; i < 2; ++i)
    if (compilation->cache_fds[i] >= 0) close(compilation->cache_fds[i]);
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
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
  vknn_cache_files files;
  bool existed;
} cache_files;

/* The token the driver sees: the application's with the preference and
 * priority folded in (SHA-256), as the NNAPI runtime does, so that a
 * compilation with other settings does not take a cache prepared with
 * different ones. */
static void cache_token_of(const ANeuralNetworksCompilation *c,
                           uint8_t out[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN]) {
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN, c->token);
  const int32_t settings[2] = {c->preference, c->priority};
  sha256_update(&ctx, sizeof(settings), (const uint8_t *)settings);
  sha256_digest(&ctx, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN, out);
}

static bool has_bytes(int fd) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0;
}

static int open_cache_file(const ANeuralNetworksCompilation *c, const uint8_t *token, const char *suffix) {
  char path[4096], hex[2 * ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN + 1];
  for (int i = 0; i < ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN; ++i) sprintf(hex + 2 * i, "%02x", token[i]);
  /* Cut short, the two files' paths would be one file. */
  if (snprintf(path, sizeof(path), "%s/%s.%s", c->cache_dir, hex, suffix) >= (int)sizeof(path)) {
    ndk_log_error("ANeuralNetworksCompilation_finish", "the cache folder's path is too long: no caching");
    return -1;
  }
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) ndk_log_error("ANeuralNetworksCompilation_finish", "cannot open the cache file %s", path);
  return fd;
}

/* The files of setCaching (by token in the directory) or of setCachingFromFds. */
static void open_cache(const ANeuralNetworksCompilation *c, cache_files *cache) {
  cache_token_of(c, cache->token);
  for (int i = 0; i < 2; ++i)
    cache->fds[i] = c->cache_fds[i] >= 0 ? fcntl(c->cache_fds[i], F_DUPFD_CLOEXEC, 0)
                                         : open_cache_file(c, cache->token, i == 0 ? "model" : "data");
  cache->existed = has_bytes(cache->fds[0]) && has_bytes(cache->fds[1]);
  for (int i = 0; i < 2; ++i) cache->handles[i] = (vknn_cache_handle){&cache->fds[i], 1};
  cache->files = (vknn_cache_files){&cache->handles[0], 1, &cache->handles[1], 1, cache->token};
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
  vknn_deadline deadline = {compilation->has_timeout, ndk_deadline_after(compilation->timeout_ns)};
  vknn_status s;
  if (compilation->cache_dir != NULL || compilation->cache_fds[0] >= 0) s = prepare_cached(compilation, &flat.model, &deadline);
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
  } else {
    ndk_device_hold();
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

/* Support Library: the cache files as descriptors, one of each kind (what
 * vknn_device_get_number_of_cache_files_needed asks for). */
int ndk_compilation_set_caching_from_fds(ANeuralNetworksCompilation *compilation, const int *model_fds,
                                         uint32_t model_count, const int *data_fds, uint32_t data_count,
                                         const uint8_t *token) {
  NDK_NOT_NULL(token);
  NDK_COMPILATION_SETTER(compilation);
  NDK_REQUIRE(model_count == 1 && data_count == 1 && model_fds != NULL && data_fds != NULL,
              ANEURALNETWORKS_BAD_DATA, "vknn needs one model cache file and one data cache file");
  int fds[2] = {fcntl(model_fds[0], F_DUPFD_CLOEXEC, 0), fcntl(data_fds[0], F_DUPFD_CLOEXEC, 0)};
  if (fds[0] < 0 || fds[1] < 0) {
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) close(fds[i]);
    ndk_log_error(__func__, "a cache file descriptor is not open");
    return ANEURALNETWORKS_BAD_DATA;
  }
  for (int i = 0; i < 2; ++i) {
    if (compilation->cache_fds[i] >= 0) close(compilation->cache_fds[i]);
    compilation->cache_fds[i] = fds[i];
  }
  memcpy(compilation->token, token, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN);
  return ANEURALNETWORKS_NO_ERROR;
}

/* Feature level 5: what the library prefers of io buffers. Any alignment and
 * padding work (pointer arguments are copied); these avoid nothing more. */
static int preferred(const ANeuralNetworksCompilation *c, uint32_t index, bool is_input, uint32_t *out,
                     uint32_t value, const char *function) {
  NDK_REQUIRE_IN(function, c != NULL && out != NULL, ANEURALNETWORKS_UNEXPECTED_NULL, "an argument is NULL");
  NDK_REQUIRE_IN(function, c->finished && c->prepared != NULL, ANEURALNETWORKS_BAD_STATE,
                 "the compilation is not finished successfully");
  NDK_REQUIRE_IN(function, ndk_compilation_io_operand(c, index, is_input) != NULL, ANEURALNETWORKS_BAD_DATA,
                 "the model has no %s %u", is_input ? "input" : "output", index);
  *out = value;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation *compilation,
                                                                   uint32_t index, uint32_t *alignment) {
  return preferred(compilation, index, true, alignment, NDK_ARGUMENT_ALIGNMENT, __func__);
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation *compilation,
                                                                    uint32_t index, uint32_t *alignment) {
  return preferred(compilation, index, false, alignment, NDK_ARGUMENT_ALIGNMENT, __func__);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation *compilation,
                                                                 uint32_t index, uint32_t *padding) {
  return preferred(compilation, index, true, padding, 1, __func__);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation *compilation,
                                                                  uint32_t index, uint32_t *padding) {
  return preferred(compilation, index, false, padding, 1, __func__);
}
