/* The compilation cache (HAL prepareModel with cache handles,
 * prepareModelFromCache): one model-cache file and one data-cache file.
 *
 * The data file is the model (model/model_serialize.h). The model file seals
 * it: the token, the identity of the device and driver that wrote it, the
 * data file's size and SHA-256, the preference and priority, the Vulkan
 * pipeline cache's data, the device's kernel tuning table with the options
 * it was measured under, and an HMAC-SHA256 over everything before it under
 * the device's cache key (runtime/cache_key.h). Loading reads each file once
 * into memory and checks it there, the model file first; nothing of a file
 * is used before the whole is checked. Format and checks: docs/architecture.md,
 * "Compilation cache". */
#pragma once
#include "model/model_serialize.h"
#include "runtime/device_internal.h"

#define VKNN_CACHE_MODEL_FILES 1u
#define VKNN_CACHE_DATA_FILES 1u
#define VKNN_CACHE_DIGEST_SIZE 32u /* SHA-256 */
#define VKNN_CACHE_VERSION_SIZE 32u

/* Who wrote a cache: the driver's version and the Vulkan device and driver. */
typedef struct vknn_cache_identity {
  char driver_version[VKNN_CACHE_VERSION_SIZE]; /* VKNN_VERSION, zero padded */
  uint32_t vendor_id;
  uint32_t device_id;
  uint32_t vulkan_driver_version;
  uint8_t pipeline_cache_uuid[16];
} vknn_cache_identity;

/* The fixed fields of a model-cache file. */
typedef struct vknn_cache_header {
  vknn_cache_identity identity;
  uint8_t token[VKNN_CACHE_TOKEN_SIZE];
  uint32_t preference;
  uint32_t priority;
  uint64_t data_size;
  uint8_t data_digest[VKNN_CACHE_DIGEST_SIZE];
} vknn_cache_header;

/* The variable parts of a model-cache file: the Vulkan pipeline cache's
 * data, and the device's kernel tuning table (runtime/tuning_table.h) with
 * the context it was measured in (vknn_kernel_tuning_context). */
typedef struct vknn_cache_blobs {
  const uint8_t *pipeline;
  size_t pipeline_size;
  uint32_t tuning_context;
  const uint8_t *tuning;
  size_t tuning_size;
} vknn_cache_blobs;

/* Whether the caller gave cache files at all (both counts 0: no). */
bool vknn_cache_given(const vknn_cache_files *files);

/* The HAL's argument rules: the counts of getNumberOfCacheFilesNeeded,
 * exactly one descriptor per handle, a token. INVALID_ARGUMENT (logged). */
vknn_status vknn_cache_check_arguments(const vknn_logger *log, const vknn_cache_files *files);

/* The identity of this device and driver. */
void vknn_cache_identity_of(const vknn_device *device, vknn_cache_identity *out);

/* SHA-256, the data file's checksum (sealed into the model file). */
void vknn_cache_digest(const uint8_t *data, size_t size, uint8_t out[VKNN_CACHE_DIGEST_SIZE]);

/* HMAC-SHA256 under key: the model file's seal. */
void vknn_cache_seal(const uint8_t key[VKNN_CACHE_KEY_SIZE], const uint8_t *data, size_t size,
                     uint8_t out[VKNN_CACHE_DIGEST_SIZE]);

/* A model-cache file from its fields and blobs, sealed under key
 * (*out_bytes malloc'd). */
vknn_status vknn_cache_model_file_build(const uint8_t key[VKNN_CACHE_KEY_SIZE],
                                        const vknn_cache_header *header, const vknn_cache_blobs *blobs,
                                        uint8_t **out_bytes, size_t *out_size);

/* Reads a model-cache file's fields: its length must be exactly what they
 * say and its seal under key must match. The blobs point into bytes (the
 * tuning table not checked yet: vknn_tuning_table_check). GENERAL_FAILURE
 * (logged) otherwise. */
vknn_status vknn_cache_model_file_parse(const vknn_logger *log, const uint8_t key[VKNN_CACHE_KEY_SIZE],
                                        const uint8_t *bytes, size_t size,
                                        vknn_cache_header *out_header, vknn_cache_blobs *out_blobs);

/* Saves a prepared model's cache: checks the arguments and that every file
 * is open for reading and writing, then truncates and writes the data file
 * and the model file. Failures are logged and otherwise ignored (the HAL:
 * saving never fails the prepare). */
void vknn_cache_save(vknn_device *device, const vknn_model *model, const vknn_cache_files *files,
                     vknn_execution_preference preference, vknn_priority priority);

/* What loading a cache gives back. */
typedef struct vknn_cache_loaded {
  vknn_model_owned model; /* parsed, not validated yet */
  vknn_execution_preference preference;
  vknn_priority priority;
  uint8_t *model_file;    /* holds blobs */
  vknn_cache_blobs blobs; /* checked whole, not yet merged into the device's */
  bool tuning_usable;     /* measured under this device's options */
} vknn_cache_loaded;

/* Reads and checks the cache files (the arguments must have passed
 * vknn_cache_check_arguments) and parses the model. GENERAL_FAILURE
 * (logged) for anything unreadable, malformed, tampered with or written
 * elsewhere. Release out with vknn_cache_loaded_release whatever the status. */
vknn_status vknn_cache_load(vknn_device *device, const vknn_cache_files *files,
                            vknn_cache_loaded *out);
/* Merges the saved pipeline-cache data and kernel tuning choices into the
 * device's: only once the loaded model has passed validation, so that a
 * cache holding an invalid model leaves the device as it was. */
void vknn_cache_use_saved(vknn_device *device, const vknn_cache_loaded *loaded);
void vknn_cache_loaded_release(vknn_cache_loaded *loaded);
