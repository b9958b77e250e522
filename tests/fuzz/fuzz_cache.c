/* libFuzzer target: compilation-cache bytes -> prepare from cache.
 *
 * The first byte chooses what the fuzzer controls:
 *  - 0: the data cache (a serialized model). The model cache is sealed
 *    around it as the driver would write it (this device's identity, the
 *    token, the data's SHA-256), so the bytes get past the checksum and
 *    reach the model parser, the model validation and the compiler: what a
 *    writer of both files could feed the driver.
 *  - otherwise: both files raw, split where the next two bytes say: the
 *    header, length and checksum checks of the model cache.
 * Seeds: serialized conformance models (fuzz-seeds --cache). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_device.h"
#include "runtime/compilation_cache.h"

static const uint8_t TOKEN[VKNN_CACHE_TOKEN_SIZE] = {1, 2, 3, 4, 5, 6, 7, 8};

static void put_file(int fd, const uint8_t *bytes, size_t size) {
  if (ftruncate(fd, 0) != 0) abort();
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, bytes + done, size - done, (off_t)done);
    if (n <= 0) abort();
    done += (size_t)n;
  }
}

/* The model file the driver writes for this data (no saved pipelines, no
 * kernel tuning choices). */
static void seal(vknn_device *device, int fd, const uint8_t *data, size_t size) {
  vknn_cache_header h = {.preference = VKNN_PREFER_FAST_SINGLE_ANSWER,
                         .priority = VKNN_PRIORITY_MEDIUM,
                         .data_size = size};
  vknn_cache_identity_of(device, &h.identity);
  memcpy(h.token, TOKEN, sizeof(TOKEN));
  vknn_cache_digest(data, size, h.data_digest);
  static const uint8_t no_tuning[4] = {0}; /* a table of no entries */
  vknn_cache_blobs blobs = {.tuning = no_tuning, .tuning_size = sizeof(no_tuning)};
  uint8_t *model_file = NULL;
  size_t model_size = 0;
  if (vknn_cache_model_file_build(device->cache_key, &h, &blobs, &model_file, &model_size) != VKNN_STATUS_NONE)
    abort();
  put_file(fd, model_file, model_size);
  free(model_file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  vknn_device *device = fuzz_device();
  int fds[2] = {memfd_create("fuzz-model-cache", 0), memfd_create("fuzz-data-cache", 0)};
  if (fds[0] < 0 || fds[1] < 0) abort();
  const uint8_t *rest = data + 1;
  size_t rest_size = size - 1;
  if (data[0] == 0) {
    put_file(fds[1], rest, rest_size);
    seal(device, fds[0], rest, rest_size);
  } else {
    size_t split = rest_size >= 2 ? ((size_t)rest[0] | (size_t)rest[1] << 8) : 0;
    rest += rest_size >= 2 ? 2 : rest_size;
    rest_size -= rest_size >= 2 ? 2 : rest_size;
    if (split > rest_size) split = rest_size;
    put_file(fds[0], rest, split);
    put_file(fds[1], rest + split, rest_size - split);
  }
  vknn_cache_handle handles[2] = {{.fds = &fds[0], .fd_count = 1}, {.fds = &fds[1], .fd_count = 1}};
  vknn_cache_files files = {.model_cache = &handles[0], .model_cache_count = 1,
                            .data_cache = &handles[1], .data_cache_count = 1, .token = TOKEN};
  vknn_prepared_model *pm = NULL;
  if (vknn_device_prepare_model_from_cache(device, NULL, &files, &pm) == VKNN_STATUS_NONE)
    vknn_prepared_model_release(pm);
  close(fds[0]);
  close(fds[1]);
  return 0;
}
