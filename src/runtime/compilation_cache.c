#include "runtime/compilation_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/kernel_tuning.h"
#include "util/fault_injection.h"
#include "util/little_endian.h"

#define TAG "compilation"

static const uint8_t MAGIC[8] = {'V', 'K', 'N', 'N', 'C', 'A', 'C', 'H'};
#define FORMAT_VERSION 7u
/* Bytes of the model file before the pipeline-cache data, between it and
 * the tuning table (the context and the table's length), and after that. */
#define FIXED_BYTES 160u
#define TUNING_FIXED_BYTES 12u
#define TRAILER_BYTES VKNN_CACHE_DIGEST_SIZE
/* The most a cache file may hold; a larger one is not read. */
#define MAX_FILE_BYTES (2ull << 30)

bool vknn_cache_given(const vknn_cache_files *files) {
  return files != NULL && (files->model_cache_count > 0 || files->data_cache_count > 0);
}

static vknn_status check_handles(const vknn_logger *log, const char *kind,
                                 const vknn_cache_handle *handles, uint32_t count,
                                 uint32_t needed) {
  if (count != needed) {
    VKNN_LOG_E(log, TAG, "%u %s-cache files given, the device needs %u", count, kind, needed);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (handles == NULL) {
    VKNN_LOG_E(log, TAG, "the %s-cache handle list is NULL", kind);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (handles[i].fd_count != 1 || handles[i].fds == NULL) {
      VKNN_LOG_E(log, TAG, "%s-cache handle %u holds %u file descriptors, not 1", kind, i,
                 handles[i].fd_count);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (handles[i].fds[0] < 0) {
      VKNN_LOG_E(log, TAG, "%s-cache handle %u: invalid file descriptor", kind, i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_cache_check_arguments(const vknn_logger *log, const vknn_cache_files *files) {
  if (files == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = check_handles(log, "model", files->model_cache, files->model_cache_count,
                                VKNN_CACHE_MODEL_FILES);
  if (s == VKNN_STATUS_NONE)
    s = check_handles(log, "data", files->data_cache, files->data_cache_count,
                      VKNN_CACHE_DATA_FILES);
  if (s == VKNN_STATUS_NONE && files->token == NULL) {
    VKNN_LOG_E(log, TAG, "no cache token");
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  return s;
}

void vknn_cache_identity_of(const vknn_device *device, vknn_cache_identity *out) {
  memset(out, 0, sizeof(*out));
  const VkPhysicalDeviceProperties *p = &device->vk.properties;
  strncpy(out->driver_version, VKNN_VERSION, sizeof(out->driver_version) - 1);
  out->vendor_id = p->vendorID;
  out->device_id = p->deviceID;
  out->vulkan_driver_version = p->driverVersion;
  memcpy(out->pipeline_cache_uuid, p->pipelineCacheUUID, sizeof(out->pipeline_cache_uuid));
}

void vknn_cache_digest(const uint8_t *data, size_t size,
                       uint8_t digest[VKNN_CACHE_DIGEST_SIZE]) {
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, size, data);
  sha256_digest(&ctx, VKNN_CACHE_DIGEST_SIZE, digest);
}

void vknn_cache_seal(const uint8_t key[VKNN_CACHE_KEY_SIZE], const uint8_t *data, size_t size,
                     uint8_t out[VKNN_CACHE_DIGEST_SIZE]) {
  struct hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, VKNN_CACHE_KEY_SIZE, key);
  hmac_sha256_update(&ctx, size, data);
  hmac_sha256_digest(&ctx, VKNN_CACHE_DIGEST_SIZE, out);
}

/* Compares all of both, so that the time taken tells nothing of where a
 * forged seal first differs. */
static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t size) {
  uint8_t differ = 0;
  for (size_t i = 0; i < size; ++i) differ |= (uint8_t)(a[i] ^ b[i]);
  return differ == 0;
}

/* ---- the model file ------------------------------------------------------- */

static uint8_t *put_bytes(uint8_t *p, const void *src, size_t n) {
  memcpy(p, src, n);
  return p + n;
}

static uint32_t get_u32(const uint8_t **p) {
  *p += 4;
  return vknn_le32_get(*p - 4);
}

static uint64_t get_u64(const uint8_t **p) {
  *p += 8;
  return vknn_le64_get(*p - 8);
}

static void get_bytes(const uint8_t **p, void *dst, size_t n) {
  memcpy(dst, *p, n);
  *p += n;
}

vknn_status vknn_cache_model_file_build(const uint8_t key[VKNN_CACHE_KEY_SIZE],
                                        const vknn_cache_header *h, const vknn_cache_blobs *blobs,
                                        uint8_t **out_bytes, size_t *out_size) {
  size_t size = FIXED_BYTES + blobs->pipeline_size + TUNING_FIXED_BYTES + blobs->tuning_size +
                TRAILER_BYTES;
  uint8_t *bytes = vknn_malloc(size);
  if (bytes == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  const vknn_cache_identity *id = &h->identity;
  uint8_t *p = put_bytes(bytes, MAGIC, sizeof(MAGIC));
  p = vknn_le32_put(p, FORMAT_VERSION);
  p = put_bytes(p, id->driver_version, sizeof(id->driver_version));
  p = vknn_le32_put(p, id->vendor_id);
  p = vknn_le32_put(p, id->device_id);
  p = vknn_le32_put(p, id->vulkan_driver_version);
  p = put_bytes(p, id->pipeline_cache_uuid, sizeof(id->pipeline_cache_uuid));
  p = put_bytes(p, h->token, sizeof(h->token));
  p = vknn_le32_put(p, h->preference);
  p = vknn_le32_put(p, h->priority);
  p = vknn_le64_put(p, h->data_size);
  p = put_bytes(p, h->data_digest, sizeof(h->data_digest));
  p = vknn_le64_put(p, blobs->pipeline_size);
  if (blobs->pipeline_size > 0) p = put_bytes(p, blobs->pipeline, blobs->pipeline_size);
  p = vknn_le32_put(p, blobs->tuning_context);
  p = vknn_le64_put(p, blobs->tuning_size);
  if (blobs->tuning_size > 0) p = put_bytes(p, blobs->tuning, blobs->tuning_size);
  vknn_cache_seal(key, bytes, (size_t)(p - bytes), p);
  *out_bytes = bytes;
  *out_size = size;
  return VKNN_STATUS_NONE;
}

/* The lengths of the pipeline data and the tuning table, which must fill
 * the bytes between the fixed fields and the trailer exactly (appended or
 * missing bytes fail here); p is just past the fixed fields. */
static bool blob_lengths(const uint8_t *p, size_t size, vknn_cache_blobs *out) {
  size_t between = size - FIXED_BYTES - TRAILER_BYTES;
  uint64_t pipeline_size = get_u64(&p);
  if (pipeline_size > between - TUNING_FIXED_BYTES) return false;
  out->pipeline = p;
  out->pipeline_size = (size_t)pipeline_size;
  p += pipeline_size;
  out->tuning_context = get_u32(&p);
  uint64_t tuning_size = get_u64(&p);
  if (tuning_size != between - TUNING_FIXED_BYTES - pipeline_size) return false;
  out->tuning = p;
  out->tuning_size = (size_t)tuning_size;
  return true;
}

vknn_status vknn_cache_model_file_parse(const vknn_logger *log, const uint8_t key[VKNN_CACHE_KEY_SIZE],
                                        const uint8_t *bytes, size_t size, vknn_cache_header *out,
                                        vknn_cache_blobs *out_blobs) {
  memset(out, 0, sizeof(*out));
  memset(out_blobs, 0, sizeof(*out_blobs));
  if (size < FIXED_BYTES + TUNING_FIXED_BYTES + TRAILER_BYTES ||
      memcmp(bytes, MAGIC, sizeof(MAGIC)) != 0) {
    VKNN_LOG_E(log, TAG, "the model cache is not a vknn cache (%zu bytes)", size);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  const uint8_t *p = bytes + sizeof(MAGIC);
  if (get_u32(&p) != FORMAT_VERSION) {
    VKNN_LOG_E(log, TAG, "the model cache has another format version");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  vknn_cache_identity *id = &out->identity;
  get_bytes(&p, id->driver_version, sizeof(id->driver_version));
  id->driver_version[sizeof(id->driver_version) - 1] = '\0';
  id->vendor_id = get_u32(&p);
  id->device_id = get_u32(&p);
  id->vulkan_driver_version = get_u32(&p);
  get_bytes(&p, id->pipeline_cache_uuid, sizeof(id->pipeline_cache_uuid));
  get_bytes(&p, out->token, sizeof(out->token));
  out->preference = get_u32(&p);
  out->priority = get_u32(&p);
  out->data_size = get_u64(&p);
  get_bytes(&p, out->data_digest, sizeof(out->data_digest));
  /* The lengths first: appended or missing bytes fail here. */
  vknn_cache_blobs blobs;
  if (!blob_lengths(p, size, &blobs)) {
    VKNN_LOG_E(log, TAG, "the model cache's %zu bytes are not what its lengths say", size);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint8_t seal[VKNN_CACHE_DIGEST_SIZE];
  vknn_cache_seal(key, bytes, size - TRAILER_BYTES, seal);
  if (!same_bytes(seal, bytes + size - TRAILER_BYTES, sizeof(seal))) {
    VKNN_LOG_E(log, TAG, "the model cache's seal does not match: it was changed, or sealed under "
               "another cache key");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *out_blobs = blobs;
  return VKNN_STATUS_NONE;
}

/* ---- files ---------------------------------------------------------------- */

static int access_mode(int fd) {
  int flags = fcntl(fd, F_GETFL);
  return flags < 0 ? -1 : (flags & O_ACCMODE);
}

/* Reads a whole file from offset 0 (whatever the descriptor's offset) into
 * memory: what is checked is then what is used, whatever happens to the
 * file meanwhile. expected: the size the file must have (checked before
 * anything is allocated), or ANY_SIZE. */
#define ANY_SIZE UINT64_MAX
static vknn_status read_file(const vknn_logger *log, const char *kind, int fd, uint64_t expected,
                             uint8_t **out, size_t *out_size) {
  *out = NULL;
  *out_size = 0;
  struct stat st;
  if (access_mode(fd) == O_WRONLY || fstat(fd, &st) != 0) {
    VKNN_LOG_E(log, TAG, "the %s cache cannot be read (not open for reading)", kind);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (st.st_size < 0 || (uint64_t)st.st_size > MAX_FILE_BYTES) {
    VKNN_LOG_E(log, TAG, "the %s cache is larger than the driver reads", kind);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (expected != ANY_SIZE && (uint64_t)st.st_size != expected) {
    VKNN_LOG_E(log, TAG, "the %s cache has %lld bytes, not the %llu sealed: it was changed", kind,
               (long long)st.st_size, (unsigned long long)expected);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  size_t size = (size_t)st.st_size;
  uint8_t *bytes = vknn_malloc(size ? size : 1);
  if (bytes == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, bytes + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  if (done != size) {
    free(bytes);
    VKNN_LOG_E(log, TAG, "reading the %s cache failed (%s)", kind,
               done < size && errno ? strerror(errno) : "it shrank");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *out = bytes;
  *out_size = size;
  return VKNN_STATUS_NONE;
}

/* Truncates the file and writes bytes from offset 0. */
static bool write_file(const vknn_logger *log, const char *kind, int fd, const uint8_t *bytes,
                       size_t size) {
  if (ftruncate(fd, 0) != 0) {
    VKNN_LOG_E(log, TAG, "cannot truncate the %s cache: %s", kind, strerror(errno));
    return false;
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, bytes + done, size - done, (off_t)done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      VKNN_LOG_E(log, TAG, "writing the %s cache failed: %s", kind,
                 n < 0 ? strerror(errno) : "nothing written");
      return false;
    }
    done += (size_t)n;
  }
  return true;
}

/* ---- saving --------------------------------------------------------------- */

static bool files_writable(const vknn_logger *log, const vknn_cache_files *files) {
  int fds[2] = {files->model_cache[0].fds[0], files->data_cache[0].fds[0]};
  for (int i = 0; i < 2; ++i)
    if (access_mode(fds[i]) != O_RDWR) {
      VKNN_LOG_E(log, TAG, "the %s cache is not open for reading and writing: not saved",
                 i == 0 ? "model" : "data");
      return false;
    }
  return true;
}

static vknn_status build_model_file(vknn_device *device, const uint8_t *data, size_t data_size,
                                    const vknn_cache_files *files,
                                    vknn_execution_preference preference, vknn_priority priority,
                                    uint8_t **out_bytes, size_t *out_size) {
  vknn_cache_header header = {.preference = (uint32_t)preference,
                              .priority = (uint32_t)priority,
                              .data_size = data_size};
  vknn_cache_identity_of(device, &header.identity);
  memcpy(header.token, files->token, sizeof(header.token));
  vknn_cache_digest(data, data_size, header.data_digest);
  uint8_t *pipeline = NULL, *tuning = NULL;
  vknn_cache_blobs blobs = {.tuning_context = vknn_kernel_tuning_context(device)};
  vknn_status s = vknn_vk_pipeline_cache_data(&device->vk, &pipeline, &blobs.pipeline_size);
  if (s == VKNN_STATUS_NONE) s = vknn_tuning_table_encode(&device->tuning, &tuning, &blobs.tuning_size);
  blobs.pipeline = pipeline;
  blobs.tuning = tuning;
  if (s == VKNN_STATUS_NONE)
    s = vknn_cache_model_file_build(device->cache_key, &header, &blobs, out_bytes, out_size);
  free(pipeline);
  free(tuning);
  return s;
}

void vknn_cache_save(vknn_device *device, const vknn_model *model, const vknn_cache_files *files,
                     vknn_execution_preference preference, vknn_priority priority) {
  const vknn_logger *log = &device->log;
  if (vknn_cache_check_arguments(log, files) != VKNN_STATUS_NONE || !files_writable(log, files))
    return;
  uint8_t *data = NULL, *model_file = NULL;
  size_t data_size = 0, model_size = 0;
  vknn_status s = vknn_model_serialize(log, model, &data, &data_size);
  if (s == VKNN_STATUS_NONE)
    s = build_model_file(device, data, data_size, files, preference, priority, &model_file,
                         &model_size);
  /* The data first: the model file seals it, so a save that stops halfway
   * leaves a cache that fails its checks. */
  bool saved = s == VKNN_STATUS_NONE &&
               write_file(log, "data", files->data_cache[0].fds[0], data, data_size) &&
               write_file(log, "model", files->model_cache[0].fds[0], model_file, model_size);
  if (saved)
    VKNN_LOG_V(log, TAG, "saved the compilation cache: model %zu bytes, data %zu bytes",
               model_size, data_size);
  else
    VKNN_LOG_E(log, TAG, "the compilation cache was not saved; the prepared model is fine");
  free(data);
  free(model_file);
}

/* ---- loading -------------------------------------------------------------- */

static vknn_status check_header(vknn_device *device, const vknn_cache_header *h,
                                const uint8_t *token) {
  const vknn_logger *log = &device->log;
  vknn_cache_identity here;
  vknn_cache_identity_of(device, &here);
  const vknn_cache_identity *saved = &h->identity;
  if (memcmp(h->token, token, VKNN_CACHE_TOKEN_SIZE) != 0) {
    VKNN_LOG_E(log, TAG, "the cache token does not match the one saved");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (strcmp(saved->driver_version, here.driver_version) != 0) {
    VKNN_LOG_E(log, TAG, "the cache was written by vknn %s, this is %s", saved->driver_version,
               here.driver_version);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (saved->vendor_id != here.vendor_id || saved->device_id != here.device_id ||
      saved->vulkan_driver_version != here.vulkan_driver_version ||
      memcmp(saved->pipeline_cache_uuid, here.pipeline_cache_uuid, 16) != 0) {
    VKNN_LOG_E(log, TAG, "the cache was written for another device or Vulkan driver "
               "(vendor 0x%x, device 0x%x, driver 0x%x)", saved->vendor_id, saved->device_id,
               saved->vulkan_driver_version);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (h->preference > VKNN_PREFER_SUSTAINED_SPEED || h->priority > VKNN_PRIORITY_HIGH) {
    VKNN_LOG_E(log, TAG, "the cache holds an invalid preference or priority");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status check_data(const vknn_logger *log, const vknn_cache_header *h,
                              const uint8_t *data, size_t size) {
  uint8_t digest[VKNN_CACHE_DIGEST_SIZE];
  if (size == h->data_size) vknn_cache_digest(data, size, digest);
  if (size != h->data_size || memcmp(digest, h->data_digest, sizeof(digest)) != 0) {
    VKNN_LOG_E(log, TAG, "the data cache does not match its checksum: it was changed");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* Saved pipelines make compiling again cheaper, nothing more: data the
 * Vulkan driver does not take costs only time. */
static void merge_pipelines(vknn_device *device, const uint8_t *pipeline, size_t size) {
  if (size > 0 && vknn_vk_pipeline_cache_merge(&device->vk, pipeline, size) != VKNN_STATUS_NONE)
    VKNN_LOG_E(&device->log, TAG, "the saved pipelines are not used; they are compiled again");
}

/* The saved kernel tuning choices spare a prepare from cache the measuring,
 * where this device leaves the same variants open as the one that measured
 * them (checked whole either way: malformed, they fail the load). */
static vknn_status check_tuning(vknn_device *device, const vknn_cache_blobs *blobs, bool *out_usable) {
  *out_usable = blobs->tuning_context == vknn_kernel_tuning_context(device);
  if (!*out_usable)
    VKNN_LOG_V(&device->log, TAG,
               "the saved kernel tuning choices were measured under other options: not used");
  return vknn_tuning_table_check(&device->log, blobs->tuning, blobs->tuning_size);
}

/* The model file read and checked whole: its seal, then its fields. */
static vknn_status load_model_file(vknn_device *device, int fd, const uint8_t *token,
                                   uint8_t **out_bytes, vknn_cache_header *out_header,
                                   vknn_cache_blobs *out_blobs) {
  size_t size = 0;
  vknn_status s = read_file(&device->log, "model", fd, ANY_SIZE, out_bytes, &size);
  if (s == VKNN_STATUS_NONE)
    s = vknn_cache_model_file_parse(&device->log, device->cache_key, *out_bytes, size, out_header,
                                    out_blobs);
  if (s == VKNN_STATUS_NONE) s = check_header(device, out_header, token);
  return s;
}

/* The data file, read only once the model file has checked out and only at
 * the size it seals, then everything else the model file holds. */
static vknn_status load_data(vknn_device *device, int fd, const vknn_cache_header *header,
                             vknn_cache_loaded *out) {
  uint8_t *data = NULL;
  size_t data_size = 0;
  vknn_status s = read_file(&device->log, "data", fd, header->data_size, &data, &data_size);
  if (s == VKNN_STATUS_NONE) s = check_data(&device->log, header, data, data_size);
  if (s == VKNN_STATUS_NONE) s = check_tuning(device, &out->blobs, &out->tuning_usable);
  if (s == VKNN_STATUS_NONE) s = vknn_model_deserialize(&device->log, data, data_size, &out->model);
  free(data);
  if (s == VKNN_STATUS_INVALID_ARGUMENT) s = VKNN_STATUS_GENERAL_FAILURE; /* the cache's fault */
  if (s != VKNN_STATUS_NONE) return s;
  out->preference = (vknn_execution_preference)header->preference;
  out->priority = (vknn_priority)header->priority;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_cache_load(vknn_device *device, const vknn_cache_files *files,
                            vknn_cache_loaded *out) {
  memset(out, 0, sizeof(*out));
  vknn_cache_header header;
  vknn_status s = load_model_file(device, files->model_cache[0].fds[0], files->token, &out->model_file,
                                  &header, &out->blobs);
  if (s == VKNN_STATUS_NONE) s = load_data(device, files->data_cache[0].fds[0], &header, out);
  return s;
}

void vknn_cache_use_saved(vknn_device *device, const vknn_cache_loaded *loaded) {
  merge_pipelines(device, loaded->blobs.pipeline, loaded->blobs.pipeline_size);
  if (loaded->tuning_usable)
    vknn_tuning_table_merge(&device->tuning, loaded->blobs.tuning, loaded->blobs.tuning_size);
}

void vknn_cache_loaded_release(vknn_cache_loaded *loaded) {
  vknn_model_owned_free(&loaded->model);
  free(loaded->model_file); /* the blobs pointed into it */
  memset(loaded, 0, sizeof(*loaded));
}
