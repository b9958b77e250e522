/* The compilation cache (HAL prepareModel with cache handles,
 * prepareModelFromCache) and the NN HAL's rules for it: argument errors,
 * access modes, a tampered model cache, a tampered data cache, a wrong
 * token, a cache from another device or driver, a malformed kernel tuning
 * table, another cache key, a deadline passing during a prepare. Restores
 * happen on a device
 * opened afresh, as after a restart. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/compilation_cache.h"
#include "runtime/tuning_table.h"
#include "util/fault_injection.h"
#include "support/test_model.h"

typedef struct cache_fixture {
  test_log log;
  vknn_device *device;
  test_model model;
  int fds[2]; /* model cache, data cache */
  vknn_cache_handle handles[2];
  uint8_t token[VKNN_CACHE_TOKEN_SIZE];
  vknn_cache_files files;
} cache_fixture;

static vknn_device *open_device(test_log *log) {
  vknn_device_options options = {
      .log_callback = test_log_callback, .log_user_data = log, .enable_validation = true};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  return device;
}

/* A device closed and opened again: nothing of the save stays in memory. */
static void reopen_device(cache_fixture *f) {
  assert_int_equal(vknn_device_get_validation_message_count(f->device), 0);
  vknn_device_close(f->device);
  f->device = open_device(&f->log);
}

static void point_files(cache_fixture *f) {
  for (int i = 0; i < 2; ++i) f->handles[i] = (vknn_cache_handle){.fds = &f->fds[i], .fd_count = 1};
  f->files = (vknn_cache_files){.model_cache = &f->handles[0], .model_cache_count = 1,
                                .data_cache = &f->handles[1], .data_cache_count = 1,
                                .token = f->token};
}

static int setup(void **state) {
  cache_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  f->device = open_device(&f->log);
  test_model_init_add(&f->model, VKNN_OPERAND_TENSOR_FLOAT32);
  f->fds[0] = memfd_create("model-cache", 0);
  f->fds[1] = memfd_create("data-cache", 0);
  for (int i = 0; i < VKNN_CACHE_TOKEN_SIZE; ++i) f->token[i] = (uint8_t)(7 * i + 1);
  point_files(f);
  return f->fds[0] >= 0 && f->fds[1] >= 0 ? 0 : -1;
}

static int teardown(void **state) {
  cache_fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  for (int i = 0; i < 2; ++i) close(f->fds[i]);
  free(f);
  return messages == 0 ? 0 : -1;
}

/* Runs the ADD model: out[i] = i + 10 i. */
static void expect_add_runs(vknn_prepared_model *pm) {
  test_request r;
  assert_int_equal(test_request_init_add(&r), 0);
  vknn_output_shape shapes[1];
  vknn_timing timing;
  assert_int_equal(vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                               shapes, 1, &timing),
                   VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i) assert_true(test_request_output(&r, i) == 11.f * i);
  test_request_release(&r);
}

static vknn_status save(cache_fixture *f, const vknn_cache_files *files) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model_with_cache(f->device, &f->model.model,
                                                       VKNN_PREFER_FAST_SINGLE_ANSWER,
                                                       VKNN_PRIORITY_HIGH, NULL, files, &pm);
  if (s == VKNN_STATUS_NONE) expect_add_runs(pm);
  vknn_prepared_model_release(pm);
  return s;
}

/* Prepare from the cache on a fresh device; a model it gives must run. */
static vknn_status restore(cache_fixture *f, const vknn_cache_files *files) {
  reopen_device(f);
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model_from_cache(f->device, NULL, files, &pm);
  if (s == VKNN_STATUS_NONE) expect_add_runs(pm);
  else assert_null(pm);
  vknn_prepared_model_release(pm);
  return s;
}

static size_t file_size(int fd) { return (size_t)lseek(fd, 0, SEEK_END); }

static uint8_t *read_all(int fd, size_t *size) {
  *size = file_size(fd);
  uint8_t *bytes = malloc(*size + 1);
  assert_non_null(bytes);
  assert_int_equal(pread(fd, bytes, *size, 0), (ssize_t)*size);
  return bytes;
}

static void write_all(int fd, const uint8_t *bytes, size_t size) {
  assert_int_equal(ftruncate(fd, 0), 0);
  assert_int_equal(pwrite(fd, bytes, size, 0), (ssize_t)size);
}

static void test_number_of_files(void **state) {
  cache_fixture *f = *state;
  uint32_t model_cache = 0, data_cache = 0;
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(f->device, &model_cache, &data_cache),
                   VKNN_STATUS_NONE);
  assert_int_equal(model_cache, 1);
  assert_int_equal(data_cache, 1);
}

static void test_save_and_restore(void **state) {
  cache_fixture *f = *state;
  /* Stale bytes and odd offsets: saving truncates, both sides use offset 0. */
  uint8_t junk[4096];
  memset(junk, 0x5a, sizeof(junk));
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(write(f->fds[i], junk, sizeof(junk)), (ssize_t)sizeof(junk));
    assert_int_equal(lseek(f->fds[i], 17, SEEK_SET), 17);
  }
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  assert_true(file_size(f->fds[0]) < sizeof(junk));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  /* A restored model may be restored again: nothing is consumed. */
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
}

/* A model with a constant from a shared-memory pool (CONSTANT_REFERENCE):
 * the data cache keeps its bytes, the pool may be gone when restoring. */
static void test_constant_reference(void **state) {
  cache_fixture *f = *state;
  shared_memory pool;
  assert_int_equal(shared_memory_create(&pool, 64), 0);
  float *in1 = (float *)(pool.data + 16);
  for (int i = 0; i < 6; ++i) in1[i] = 10.f * i;
  vknn_operand *o = &f->model.operands[1];
  o->lifetime = VKNN_LIFETIME_CONSTANT_REFERENCE;
  o->location = (vknn_data_location){.pool_index = 0, .offset = 16, .length = 24};
  f->model.inputs[0] = 0;
  f->model.model.main.input_count = 1;
  f->model.model.pools = &pool.memory;
  f->model.model.pool_count = 1;
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model_with_cache(f->device, &f->model.model,
                                                        VKNN_PREFER_LOW_POWER, VKNN_PRIORITY_LOW,
                                                        NULL, &f->files, &pm),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  shared_memory_destroy(&pool);
  reopen_device(f);
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                   VKNN_STATUS_NONE);
  test_request r;
  assert_int_equal(test_request_init_add(&r), 0);
  r.request.input_count = 1;
  vknn_output_shape shapes[1];
  vknn_timing timing;
  assert_int_equal(vknn_prepared_model_execute(pm, &r.request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                               shapes, 1, &timing),
                   VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i) assert_true(test_request_output(&r, i) == 11.f * i);
  test_request_release(&r);
  vknn_prepared_model_release(pm);
}

/* HAL: a wrong number of files, or a handle without exactly one fd, is
 * INVALID_ARGUMENT when restoring. */
static void test_restore_invalid_arguments(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  int extra_fds[2] = {f->fds[0], f->fds[1]};
  vknn_cache_handle three[3] = {f->handles[0], f->handles[1], f->handles[1]};
  vknn_cache_handle two_fds = {.fds = extra_fds, .fd_count = 2};
  vknn_cache_handle no_fd = {.fds = extra_fds, .fd_count = 0};
  vknn_cache_files cases[] = {
      {.model_cache = three, .model_cache_count = 2, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = f->token},
      {.model_cache = NULL, .model_cache_count = 0, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = three,
       .data_cache_count = 3, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = NULL,
       .data_cache_count = 0, .token = f->token},
      {.model_cache = &two_fds, .model_cache_count = 1, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = &no_fd,
       .data_cache_count = 1, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = NULL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    vknn_prepared_model *pm = NULL;
    assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &cases[i], &pm),
                     VKNN_STATUS_INVALID_ARGUMENT);
    assert_null(pm);
  }
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, NULL, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  /* The right arguments still restore. */
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
}

/* HAL: invalid cache arguments when saving leave the prepare itself
 * untouched, and nothing usable is saved (the files stay empty). */
static void test_save_invalid_arguments(void **state) {
  cache_fixture *f = *state;
  int extra_fds[2] = {f->fds[0], f->fds[1]};
  vknn_cache_handle two = {.fds = extra_fds, .fd_count = 2};
  vknn_cache_handle none = {.fds = extra_fds, .fd_count = 0};
  vknn_cache_handle models[2] = {f->handles[0], f->handles[0]};
  vknn_cache_files cases[] = {
      {.model_cache = models, .model_cache_count = 2, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = NULL,
       .data_cache_count = 0, .token = f->token},
      {.model_cache = &two, .model_cache_count = 1, .data_cache = &f->handles[1],
       .data_cache_count = 1, .token = f->token},
      {.model_cache = &f->handles[0], .model_cache_count = 1, .data_cache = &none,
       .data_cache_count = 1, .token = f->token},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    assert_int_equal(save(f, &cases[i]), VKNN_STATUS_NONE);
    assert_int_equal(file_size(f->fds[0]), 0);
    assert_int_equal(file_size(f->fds[1]), 0);
    assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  }
}

/* The same file opened again with another access mode. */
static int reopen_fd(int fd, int flags) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  int reopened = open(path, flags);
  assert_true(reopened >= 0);
  return reopened;
}

/* HAL: a read-only file when saving: the prepare succeeds, the cache is
 * not written, restoring fails with GENERAL_FAILURE. */
static void test_save_read_only(void **state) {
  cache_fixture *f = *state;
  for (int which = 0; which < 2; ++which) {
    int fds[2] = {f->fds[0], f->fds[1]};
    fds[which] = reopen_fd(f->fds[which], O_RDONLY);
    vknn_cache_handle handles[2] = {{.fds = &fds[0], .fd_count = 1}, {.fds = &fds[1], .fd_count = 1}};
    vknn_cache_files files = f->files;
    files.model_cache = &handles[0];
    files.data_cache = &handles[1];
    assert_int_equal(save(f, &files), VKNN_STATUS_NONE);
    close(fds[which]);
    assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  }
}

/* HAL: a write-only file when restoring is GENERAL_FAILURE. */
static void test_restore_write_only(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  for (int which = 0; which < 2; ++which) {
    int fds[2] = {f->fds[0], f->fds[1]};
    fds[which] = reopen_fd(f->fds[which], O_WRONLY);
    vknn_cache_handle handles[2] = {{.fds = &fds[0], .fd_count = 1}, {.fds = &fds[1], .fd_count = 1}};
    vknn_cache_files files = f->files;
    files.model_cache = &handles[0];
    files.data_cache = &handles[1];
    assert_int_equal(restore(f, &files), VKNN_STATUS_GENERAL_FAILURE);
    close(fds[which]);
  }
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
}

/* HAL: one flipped bit anywhere in the model cache, or bytes appended, or
 * one missing, is GENERAL_FAILURE. Every byte is tried. */
static void test_model_cache_tampered(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  size_t size;
  uint8_t *saved = read_all(f->fds[0], &size);
  vknn_prepared_model *pm = NULL;
  for (size_t i = 0; i < size; ++i) {
    saved[i] ^= (uint8_t)(1u << (i % 8));
    write_all(f->fds[0], saved, size);
    assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                     VKNN_STATUS_GENERAL_FAILURE);
    saved[i] ^= (uint8_t)(1u << (i % 8));
  }
  saved[size] = 0;
  write_all(f->fds[0], saved, size + 1);
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  write_all(f->fds[0], saved, size - 1);
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  write_all(f->fds[0], saved, size);
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  free(saved);
}

/* The model file sealed again around other fields, data or a kernel tuning
 * table (tuning: NULL keeps the saved one), as only someone who can write
 * the model cache could: what the checksum alone cannot stop. */
static void reseal_with(cache_fixture *f, void (*edit)(vknn_cache_header *h, void *arg), void *arg,
                        const uint8_t *data, size_t data_size, const uint8_t *tuning,
                        size_t tuning_size) {
  size_t size;
  uint8_t *model_file = read_all(f->fds[0], &size);
  vknn_cache_header h;
  vknn_cache_blobs blobs;
  vknn_logger log;
  vknn_logger_init(&log, test_log_callback, &f->log);
  assert_int_equal(vknn_cache_model_file_parse(&log, f->device->cache_key, model_file, size, &h, &blobs), VKNN_STATUS_NONE);
  if (tuning != NULL) {
    blobs.tuning = tuning;
    blobs.tuning_size = tuning_size;
  }
  if (edit != NULL) edit(&h, arg);
  if (data != NULL) {
    h.data_size = data_size;
    vknn_cache_digest(data, data_size, h.data_digest);
    write_all(f->fds[1], data, data_size);
  }
  uint8_t *sealed;
  size_t sealed_size;
  assert_int_equal(vknn_cache_model_file_build(f->device->cache_key, &h, &blobs, &sealed, &sealed_size), VKNN_STATUS_NONE);
  write_all(f->fds[0], sealed, sealed_size);
  free(sealed);
  free(model_file);
}

static void reseal(cache_fixture *f, void (*edit)(vknn_cache_header *h, void *arg), void *arg,
                   const uint8_t *data, size_t data_size) {
  reseal_with(f, edit, arg, data, data_size, NULL, 0);
}

/* HAL: a tampered data cache gives an error or a correct model, never a
 * crash. Changed under an intact model cache, the checksum refuses it;
 * changed with the model cache sealed again (every byte flipped, every
 * length cut), the parser and the model validation must hold, and any
 * model they accept is prepared and run. */
static void test_data_cache_tampered(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  size_t size;
  uint8_t *saved = read_all(f->fds[1], &size);
  size_t model_size;
  uint8_t *model_file = read_all(f->fds[0], &model_size);
  vknn_prepared_model *pm = NULL;
  saved[size / 2] ^= 1;
  write_all(f->fds[1], saved, size);
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  saved[size / 2] ^= 1;
  for (size_t i = 0; i < size; ++i) {
    saved[i] ^= (uint8_t)(0x81u << (i % 2));
    reseal(f, NULL, NULL, saved, size);
    if (vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm) == VKNN_STATUS_NONE)
      vknn_prepared_model_release(pm); /* another valid model: allowed */
    saved[i] ^= (uint8_t)(0x81u << (i % 2));
    write_all(f->fds[0], model_file, model_size);
  }
  for (size_t cut = 0; cut < size; ++cut) {
    reseal(f, NULL, NULL, saved, cut);
    assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                     VKNN_STATUS_GENERAL_FAILURE);
    write_all(f->fds[0], model_file, model_size);
  }
  write_all(f->fds[1], saved, size);
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  free(model_file);
  free(saved);
}

/* HAL: a token other than the one saved is GENERAL_FAILURE. */
static void test_wrong_token(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  for (int i = 0; i < VKNN_CACHE_TOKEN_SIZE; i += 5) {
    f->token[i] ^= 0x10;
    assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
    f->token[i] ^= 0x10;
  }
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
}

/* The kernel tuning table sealed into the model file must be well formed:
 * a variant field out of range, a count beyond the entries, an empty or
 * overlong signature, a byte after the last entry or no table at all fail
 * the load (GENERAL_FAILURE: the cache's fault); a well-formed table of
 * choices restores, whatever the device makes of them. */
static void test_tuning_table_malformed(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  /* One entry: a 2-byte signature, texel reads, Winograd F(4,3), float32,
   * shared-memory tiles, shared filter loads, the last tried width, global
   * poolings as reductions, the packed layout. */
  const uint8_t good[18] = {1, 0, 0, 0, 2, 0, 0, 0, 0xab, 0xcd, 1, VKNN_WINOGRAD_F4X3, 0, 1, 1, VKNN_TUNING_WIDTHS, 1, 1};
  reseal_with(f, NULL, NULL, NULL, 0, good, sizeof(good));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  struct { size_t at; uint8_t value; } edits[] = {
      {10, 2}, {11, VKNN_WINOGRAD_F4X3 + 1}, {12, 2}, {13, 2}, {14, 2}, {15, VKNN_TUNING_WIDTHS + 1}, {16, 2}, {17, 2}, /* variant fields */
      {0, 2}, {0, 0xff},                             /* the count */
      {4, 0}, {4, 3}, {7, 0x80},                     /* the signature's length */
  };
  uint8_t bad[sizeof(good) + 1];
  for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); ++i) {
    memcpy(bad, good, sizeof(good));
    bad[edits[i].at] = edits[i].value;
    reseal_with(f, NULL, NULL, NULL, 0, bad, sizeof(good));
    assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  }
  memcpy(bad, good, sizeof(good));
  bad[sizeof(good)] = 0;
  reseal_with(f, NULL, NULL, NULL, 0, bad, sizeof(bad));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  reseal_with(f, NULL, NULL, NULL, 0, bad, 0);
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
}

/* A cache whose model fails validation leaves the device as it was: its
 * kernel tuning choices (and pipelines) are merged only once the model read
 * back has passed. The same table with the valid model is merged. */
static void test_invalid_model_merges_nothing(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  const uint8_t table[18] = {1, 0, 0, 0, 2, 0, 0, 0, 0x5a, 0xa5, 1, VKNN_WINOGRAD_F4X3, 0, 1, 1, 0, 1, 1};
  const uint8_t signature[2] = {0x5a, 0xa5};
  test_model invalid = f->model;
  invalid.model.main.operands = invalid.operands;
  invalid.model.main.operations = &invalid.operation;
  invalid.operation.inputs = invalid.op_inputs;
  invalid.operation.outputs = invalid.op_outputs;
  invalid.model.main.input_indexes = invalid.inputs;
  invalid.model.main.output_indexes = invalid.outputs;
  invalid.model.operand_values = (const uint8_t *)&invalid.activation;
  invalid.operation.input_count = 2; /* ADD without its activation */
  vknn_logger log;
  vknn_logger_init(&log, test_log_callback, &f->log);
  uint8_t *data;
  size_t data_size;
  assert_int_equal(vknn_model_serialize(&log, &invalid.model, &data, &data_size), VKNN_STATUS_NONE);
  reseal_with(f, NULL, NULL, data, data_size, table, sizeof(table));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  vknn_tuning_entry entry;
  assert_false(vknn_tuning_table_find(&f->device->tuning, signature, 2, &entry));
  free(data);
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  reseal_with(f, NULL, NULL, NULL, 0, table, sizeof(table));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  assert_true(vknn_tuning_table_find(&f->device->tuning, signature, 2, &entry));
}

static void other_vendor(vknn_cache_header *h, void *arg) { (void)arg, h->identity.vendor_id++; }
static void other_device(vknn_cache_header *h, void *arg) { (void)arg, h->identity.device_id++; }
static void other_vulkan_driver(vknn_cache_header *h, void *arg) {
  (void)arg, h->identity.vulkan_driver_version++;
}
static void other_uuid(vknn_cache_header *h, void *arg) {
  (void)arg, h->identity.pipeline_cache_uuid[3] ^= 1;
}
static void other_vknn(vknn_cache_header *h, void *arg) {
  (void)arg;
  snprintf(h->identity.driver_version, sizeof(h->identity.driver_version), "0.0.1");
}
static void bad_priority(vknn_cache_header *h, void *arg) { (void)arg, h->priority = 7; }

/* HAL: a cache made by another device or driver version is
 * GENERAL_FAILURE (the identity rewritten and the file sealed again). */
static void test_other_device_or_driver(void **state) {
  cache_fixture *f = *state;
  void (*edits[])(vknn_cache_header *, void *) = {other_vendor, other_device, other_vulkan_driver,
                                                   other_uuid, other_vknn, bad_priority};
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  size_t size;
  uint8_t *saved = read_all(f->fds[0], &size);
  reseal(f, NULL, NULL, NULL, 0); /* sealing again unchanged: still good */
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); ++i) {
    reseal(f, edits[i], NULL, NULL, 0);
    assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
    write_all(f->fds[0], saved, size);
  }
  free(saved);
}

/* Empty, truncated and foreign files are refused, not parsed. */
static void test_empty_and_foreign_files(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  uint8_t junk[300];
  for (size_t i = 0; i < sizeof(junk); ++i) junk[i] = (uint8_t)(i * 31);
  write_all(f->fds[0], junk, sizeof(junk));
  write_all(f->fds[1], junk, sizeof(junk));
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
}

/* A device with this cache key (NULL: the default), logging into log. */
static vknn_device *open_device_with_key(test_log *log, const uint8_t *key) {
  vknn_device_options options = {.log_callback = test_log_callback, .log_user_data = log,
                                 .enable_validation = true, .cache_key = key};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  return device;
}

static vknn_status restore_on(vknn_device *device, const vknn_cache_files *files) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model_from_cache(device, NULL, files, &pm);
  if (s == VKNN_STATUS_NONE) expect_add_runs(pm);
  vknn_prepared_model_release(pm);
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  return s;
}

/* HAL: the model cache is security sensitive. Its seal is keyed: a cache
 * restores on a device with the key that wrote it, and not under another
 * key, which is what a client that rewrote its files and sealed them again
 * without the driver's key would give. */
static void test_sealed_under_another_key(void **state) {
  cache_fixture *f = *state;
  uint8_t key[VKNN_CACHE_KEY_SIZE], other[VKNN_CACHE_KEY_SIZE];
  for (int i = 0; i < VKNN_CACHE_KEY_SIZE; ++i) key[i] = (uint8_t)(3 * i + 5), other[i] = key[i];
  other[31] ^= 1;
  vknn_device_close(f->device);
  f->device = open_device_with_key(&f->log, key);
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  vknn_device *same = open_device_with_key(&f->log, key);
  assert_int_equal(restore_on(same, &f->files), VKNN_STATUS_NONE);
  vknn_device_close(same);
  vknn_device *wrong = open_device_with_key(&f->log, other);
  assert_int_equal(restore_on(wrong, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "sealed under another cache key"));
  vknn_device_close(wrong);
  /* The default key is neither. */
  reopen_device(f);
  assert_int_equal(restore_on(f->device, &f->files), VKNN_STATUS_GENERAL_FAILURE);
}

static uint8_t *read_path(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  uint8_t *bytes = read_all(fd, size);
  close(fd);
  return bytes;
}

/* VKNN_CACHE_KEY_FILE (or the option cache_key_file): made with a fresh key
 * of VKNN_CACHE_KEY_SIZE bytes (mode 0600) when absent, read by every device
 * after; a file that holds no key, or that others may read, is logged and
 * the process's key taken instead. */
static void test_key_file(void **state) {
  cache_fixture *f = *state;
  char dir[] = "/tmp/vknn-key-XXXXXX", path[64];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/cache.key", dir);
  assert_int_equal(setenv("VKNN_CACHE_KEY_FILE", path, 1), 0);
  vknn_device *first = open_device_with_key(&f->log, NULL);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  size_t size;
  uint8_t *key = read_path(path, &size);
  assert_int_equal(size, VKNN_CACHE_KEY_SIZE);
  assert_memory_equal(first->cache_key, key, VKNN_CACHE_KEY_SIZE);
  assert_memory_not_equal(first->cache_key, f->device->cache_key, VKNN_CACHE_KEY_SIZE);
  vknn_device *second = open_device_with_key(&f->log, NULL);
  assert_memory_equal(second->cache_key, key, VKNN_CACHE_KEY_SIZE);
  vknn_device_close(second);
  vknn_device_close(first);
  /* Too short: the process's key, logged. */
  int fd = open(path, O_WRONLY | O_TRUNC);
  assert_int_equal(write(fd, key, 5), 5);
  close(fd);
  f->log.errors = 0;
  vknn_device *fallback = open_device_with_key(&f->log, NULL);
  assert_int_equal(f->log.errors, 1);
  assert_non_null(strstr(f->log.last, "(size)"));
  assert_memory_equal(fallback->cache_key, f->device->cache_key, VKNN_CACHE_KEY_SIZE);
  vknn_device_close(fallback);
  /* A whole key others may read is not taken either. */
  fd = open(path, O_WRONLY | O_TRUNC);
  assert_int_equal(write(fd, key, VKNN_CACHE_KEY_SIZE), VKNN_CACHE_KEY_SIZE);
  close(fd);
  assert_int_equal(chmod(path, 0644), 0);
  fallback = open_device_with_key(&f->log, NULL);
  assert_non_null(strstr(f->log.last, "not private to this user"));
  assert_memory_equal(fallback->cache_key, f->device->cache_key, VKNN_CACHE_KEY_SIZE);
  vknn_device_close(fallback);
  assert_int_equal(chmod(path, 0600), 0);
  assert_int_equal(unsetenv("VKNN_CACHE_KEY_FILE"), 0);
  /* The option names the file too. */
  vknn_device_options options = {.log_callback = test_log_callback, .log_user_data = &f->log,
                                 .enable_validation = true, .cache_key_file = path};
  vknn_device *from_option = NULL;
  assert_int_equal(vknn_device_open(&options, &from_option), VKNN_STATUS_NONE);
  assert_memory_equal(from_option->cache_key, key, VKNN_CACHE_KEY_SIZE);
  vknn_device_close(from_option);
  free(key);
  unlink(path);
  rmdir(dir);
}

/* The data file is read only after the model file checked out, and only at
 * the size that seals: a junk model file beside a large data file costs one
 * allocation (the model file's), not the data file's. */
static void test_data_read_after_model_file(void **state) {
  cache_fixture *f = *state;
  uint8_t junk[300];
  for (size_t i = 0; i < sizeof(junk); ++i) junk[i] = (uint8_t)(i * 31);
  write_all(f->fds[0], junk, sizeof(junk));
  assert_int_equal(ftruncate(f->fds[1], 64 << 20), 0);
  vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, 0);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  assert_int_equal(vknn_fault_count(VKNN_FAULT_HOST_ALLOCATION), 1);
  /* A sealed model file, a data file of another size: refused by its size. */
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  size_t size;
  uint8_t *data = read_all(f->fds[1], &size);
  data[size] = 0;
  write_all(f->fds[1], data, size + 1);
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "not the"));
  free(data);
}

/* HAL: a prepare that cannot finish before its deadline is aborted with
 * MISSED_DEADLINE_*. The deadline clock jumps an hour after the entry check
 * (VKNN_FAULT_CLOCK_JUMP at the second reading): the prepare, the prepare
 * with cache and the prepare from cache give MISSED_DEADLINE_TRANSIENT and
 * no model, and so does a prepare from cache whose deadline passes after the
 * cache was read (the third reading: the check after its prepare); a restore whose deadline passed before it starts gives
 * MISSED_DEADLINE_PERSISTENT. */
static void test_deadline_passes_during_prepare(void **state) {
  cache_fixture *f = *state;
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  vknn_deadline deadline = {.has_value = true, .nanoseconds_since_boot = test_boottime_ns() + 60000000000ull};
  /* Path 3: the prepare from cache again, the jump after the cache was read
   * (the third reading): the check after the prepare. */
  static const char *const when[4] = {"the prepare", "the prepare", "reading the cache",
                                      "the prepare from cache"};
  for (int path = 0; path < 4; ++path) {
    vknn_prepared_model *pm = NULL;
    vknn_fault_arm(VKNN_FAULT_CLOCK_JUMP, path == 3 ? 3 : 2);
    vknn_status s;
    if (path == 0)
      s = vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                    VKNN_PRIORITY_MEDIUM, &deadline, &pm);
    else if (path == 1)
      s = vknn_device_prepare_model_with_cache(f->device, &f->model.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                               VKNN_PRIORITY_MEDIUM, &deadline, &f->files, &pm);
    else
      s = vknn_device_prepare_model_from_cache(f->device, &deadline, &f->files, &pm);
    vknn_fault_arm(VKNN_FAULT_CLOCK_JUMP, 0);
    if (s != VKNN_STATUS_MISSED_DEADLINE_TRANSIENT)
      fail_msg("path %d: %s (log: %s)", path, vknn_status_name(s), f->log.last);
    assert_null(pm);
    char expected[64];
    snprintf(expected, sizeof(expected), "the deadline passed during %s", when[path]);
    if (strstr(f->log.last, expected) == NULL) fail_msg("path %d: log \"%s\"", path, f->log.last);
  }
  /* Without the jump the same deadline is met. */
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
  vknn_deadline past = {.has_value = true, .nanoseconds_since_boot = 1};
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model_from_cache(f->device, &past, &f->files, &pm),
                   VKNN_STATUS_MISSED_DEADLINE_PERSISTENT);
  assert_null(pm);
}

/* Every host allocation of a save and of a restore failed in turn: the
 * prepare succeeds (a save's failure is only logged) or reports running out
 * of memory, so does the restore (never GENERAL_FAILURE: the cache is
 * fine); nothing crashes or leaks (ASan), and the cache then restores. */
static void test_allocation_failures(void **state) {
  cache_fixture *f = *state;
  bool done = false;
  for (uint64_t n = 1; !done && n < 10000; ++n) {
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, n);
    vknn_prepared_model *pm = NULL;
    vknn_status s = vknn_device_prepare_model_with_cache(f->device, &f->model.model,
                                                         VKNN_PREFER_FAST_SINGLE_ANSWER,
                                                         VKNN_PRIORITY_MEDIUM, NULL, &f->files, &pm);
    done = vknn_fault_count(VKNN_FAULT_HOST_ALLOCATION) < n;
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, 0);
    if (s != VKNN_STATUS_NONE) assert_int_equal(s, VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
    vknn_prepared_model_release(pm);
  }
  assert_true(done);
  assert_int_equal(save(f, &f->files), VKNN_STATUS_NONE);
  done = false;
  for (uint64_t n = 1; !done && n < 10000; ++n) {
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, n);
    vknn_prepared_model *pm = NULL;
    vknn_status s = vknn_device_prepare_model_from_cache(f->device, NULL, &f->files, &pm);
    done = vknn_fault_count(VKNN_FAULT_HOST_ALLOCATION) < n;
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, 0);
    /* Some allocations only speed things up (creating pipelines several
     * at once): without them the restore still succeeds. */
    if (s == VKNN_STATUS_NONE) expect_add_runs(pm);
    else assert_int_equal(s, VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
    assert_true(!done || s == VKNN_STATUS_NONE);
    vknn_prepared_model_release(pm);
  }
  assert_true(done);
  assert_int_equal(restore(f, &f->files), VKNN_STATUS_NONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_number_of_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_and_restore, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constant_reference, setup, teardown),
      cmocka_unit_test_setup_teardown(test_restore_invalid_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_invalid_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_save_read_only, setup, teardown),
      cmocka_unit_test_setup_teardown(test_restore_write_only, setup, teardown),
      cmocka_unit_test_setup_teardown(test_model_cache_tampered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_cache_tampered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_token, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tuning_table_malformed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_device_or_driver, setup, teardown),
      cmocka_unit_test_setup_teardown(test_empty_and_foreign_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sealed_under_another_key, setup, teardown),
      cmocka_unit_test_setup_teardown(test_key_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_data_read_after_model_file, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadline_passes_during_prepare, setup, teardown),
      cmocka_unit_test_setup_teardown(test_invalid_model_merges_nothing, setup, teardown),
  };
  return cmocka_run_group_tests_name("compilation_cache", tests, NULL, NULL);
}
