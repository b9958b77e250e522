/* Memory bound without copies (VK_EXT_external_memory_host): the second
 * execution on an aligned memfd runs in place, later ones reuse the import
 * and the recording, bursts too; unaligned arguments are staged. Constants
 * in model pools (CONSTANT_REFERENCE) are read in place from prepare on,
 * from read-only pools too, where the device shares the host's memory;
 * unaligned ones, and all on a discrete GPU, are copied. With the device
 * option io_copies (the default on discrete GPUs) the kernels use
 * device-local copies of the inputs and outputs, copied in the execution's
 * own submission from and to the staged or imported request memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "runtime/recorded_graph.h"
#include "support/add_fixture.h"
#include "vknn/vknn.h"

typedef add_fixture fixture;

static int setup(void **state) { return add_fixture_setup(state, NULL); }
static int teardown(void **state) { return add_fixture_teardown(state); }

static vknn_device_statistics stats(const fixture *f) {
  vknn_device_statistics s;
  assert_int_equal(vknn_device_get_statistics(f->device, &s), VKNN_STATUS_NONE);
  return s;
}

/* in0 | in1 | out at the given stride in one memfd. */
static void lay_out(fixture *f, shared_memory *pool, uint32_t stride) {
  assert_int_equal(shared_memory_create(pool, 3 * stride), 0);
  for (int i = 0; i < 6; ++i) {
    ((float *)pool->data)[i] = (float)i;
    ((float *)(pool->data + stride))[i] = 10.f * (float)i;
  }
  for (int i = 0; i < 2; ++i) f->r.inputs[i].location = (vknn_data_location){0, i * stride, 24};
  f->r.outputs[0].location = (vknn_data_location){0, 2 * stride, 24};
  f->r.pools[0].memory = pool->memory;
}

static void execute_and_check(fixture *f, const shared_memory *pool, uint32_t stride) {
  memset(pool->data + 2 * stride, 0, 24);
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i)
    assert_float_equal(((const float *)(pool->data + 2 * stride))[i], 11.f * (float)i, 0.f);
}

static void test_aligned_memfd_runs_in_place(void **state) {
  fixture *f = *state;
  shared_memory pool;
  lay_out(f, &pool, 256);
  vknn_device_statistics s0 = stats(f);
  execute_and_check(f, &pool, 256); /* first sighting: staged */
  vknn_device_statistics s1 = stats(f);
  assert_int_equal(s1.staged_executions, s0.staged_executions + 1);
  assert_int_equal(s1.zero_copy_executions, s0.zero_copy_executions);
  execute_and_check(f, &pool, 256); /* imported, recorded once */
  vknn_device_statistics s2 = stats(f);
  assert_int_equal(s2.zero_copy_executions, s1.zero_copy_executions + 1);
  assert_int_equal(s2.host_imports, s1.host_imports + 1);
  assert_int_equal(s2.command_buffers_recorded, s1.command_buffers_recorded + 1);
  for (int i = 0; i < 3; ++i) execute_and_check(f, &pool, 256);
  vknn_device_statistics s3 = stats(f);
  assert_int_equal(s3.zero_copy_executions, s2.zero_copy_executions + 3);
  assert_int_equal(s3.host_imports, s2.host_imports);
  assert_int_equal(s3.command_buffers_recorded, s2.command_buffers_recorded);
  assert_int_equal(s3.staged_executions, s1.staged_executions);
  shared_memory_destroy(&pool);
}

/* A request whose input is shorter than its value is INVALID_ARGUMENT on the
 * path that runs in place too (its layout already imported), and nothing
 * changes: a whole request runs in place after. */
static void test_short_input_refused_in_place(void **state) {
  fixture *f = *state;
  shared_memory pool;
  lay_out(f, &pool, 256);
  execute_and_check(f, &pool, 256);
  execute_and_check(f, &pool, 256);
  vknn_device_statistics before = stats(f);
  f->r.inputs[1].location.length = 20;
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_INVALID_ARGUMENT);
  f->r.inputs[1].location.length = 24;
  execute_and_check(f, &pool, 256);
  assert_int_equal(stats(f).zero_copy_executions, before.zero_copy_executions + 1);
  shared_memory_destroy(&pool);
}

static void test_burst_reuses_import(void **state) {
  fixture *f = *state;
  shared_memory pool;
  lay_out(f, &pool, 256);
  vknn_burst *burst = NULL;
  assert_int_equal(vknn_burst_create(f->pm, &burst), VKNN_STATUS_NONE);
  const int32_t slots[1] = {0};
  vknn_device_statistics before = stats(f);
  for (int i = 0; i < 4; ++i) {
    memset(pool.data + 512, 0, 24);
    assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                     VKNN_STATUS_NONE);
    assert_float_equal(((const float *)(pool.data + 512))[5], 55.f, 0.f);
  }
  vknn_device_statistics after = stats(f);
  assert_int_equal(after.zero_copy_executions, before.zero_copy_executions + 3);
  assert_int_equal(after.host_imports, before.host_imports + 1);
  vknn_burst_release(burst);
  shared_memory_destroy(&pool);
}

/* A burst slot keeps the memory it was first given: later requests naming
 * the slot with another memory run on the slot's, in place as staged (the
 * other memory's layout seen twice must not be imported and bound). */
static void test_burst_slot_memory_runs_in_place(void **state) {
  fixture *f = *state;
  shared_memory first, other;
  lay_out(f, &other, 256);
  for (int i = 0; i < 6; ++i) ((float *)other.data)[i] = 100.f;
  lay_out(f, &first, 256);
  vknn_burst *burst = NULL;
  assert_int_equal(vknn_burst_create(f->pm, &burst), VKNN_STATUS_NONE);
  const int32_t slots[1] = {0};
  assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  f->r.pools[0].memory = other.memory;
  vknn_device_statistics before = stats(f);
  for (int run = 0; run < 3; ++run) {
    memset(first.data + 512, 0, 24);
    assert_int_equal(vknn_burst_execute(burst, &f->r.request, slots, 0, NULL, NULL, NULL, 0, NULL),
                     VKNN_STATUS_NONE);
    for (int i = 0; i < 6; ++i) {
      assert_float_equal(((const float *)(first.data + 512))[i], 11.f * (float)i, 0.f);
      assert_float_equal(((const float *)(other.data + 512))[i], 0.f, 0.f);
    }
  }
  /* The slot's memory was seen before: every run is in place. */
  assert_int_equal(stats(f).zero_copy_executions, before.zero_copy_executions + 3);
  vknn_burst_release(burst);
  shared_memory_destroy(&first);
  shared_memory_destroy(&other);
}

/* An output inside an input's range ending past 4 GiB of the pool shares
 * bytes with it: staged, never bound in place (the range's end does not
 * wrap to a small offset). */
static void test_overlap_past_4_gib_is_staged(void **state) {
  fixture *f = *state;
  shared_memory pool;
  const uint64_t size = (1ull << 32) + 4096; /* sparse */
  if (shared_memory_create(&pool, size) != 0) skip();
  const uint32_t start = 0xffffff00u;
  for (int i = 0; i < 6; ++i) ((float *)(pool.data + start))[i] = (float)i;
  f->r.inputs[0].location = (vknn_data_location){0, start, 0x200};
  f->r.inputs[1].location = (vknn_data_location){0, 0, 24};
  f->r.outputs[0].location = (vknn_data_location){0, start + 0x80, 24};
  f->r.pools[0].memory = pool.memory;
  vknn_device_statistics before = stats(f);
  for (int run = 0; run < 3; ++run)
    assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                     VKNN_STATUS_NONE);
  vknn_device_statistics after = stats(f);
  assert_int_equal(after.staged_executions, before.staged_executions + 3);
  assert_int_equal(after.zero_copy_executions, before.zero_copy_executions);
  for (int i = 0; i < 6; ++i) assert_float_equal(((const float *)(pool.data + start + 0x80))[i], (float)i, 0.f);
  shared_memory_destroy(&pool);
}

/* Offsets that miss the storage-buffer alignment stay on the staging path. */
static void test_unaligned_is_staged(void **state) {
  fixture *f = *state;
  vknn_device_statistics before = stats(f);
  for (int i = 0; i < 3; ++i) execute_and_check(f, &f->r.pool, 24);
  vknn_device_statistics after = stats(f);
  assert_int_equal(after.staged_executions, before.staged_executions + 3);
  assert_int_equal(after.zero_copy_executions, before.zero_copy_executions);
}

static int setup_io_copies(void **state) {
  return add_fixture_setup_with(state, NULL, (vknn_device_options){.io_copies = VKNN_IO_COPIES_ON});
}

static uint64_t io_copy_bytes(const fixture *f) {
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(f->pm, &info), VKNN_STATUS_NONE);
  return info.io_copy_bytes;
}

/* Lavapipe shares the host's memory: AUTO copies nothing there. */
static void test_io_copies_off_on_host_memory(void **state) {
  assert_int_equal(io_copy_bytes(*state), 0);
}

/* Staged, imported (zero copy) and burst executions, each through the
 * device-local copies: two inputs and the output, 24 bytes each. */
static void test_io_copies_every_path(void **state) {
  fixture *f = *state;
  assert_int_equal(io_copy_bytes(f), 3 * 24);
  for (int i = 0; i < 2; ++i) execute_and_check(f, &f->r.pool, 24); /* unaligned: staged */
  shared_memory pool;
  lay_out(f, &pool, 256);
  vknn_device_statistics before = stats(f);
  for (int i = 0; i < 3; ++i) execute_and_check(f, &pool, 256);
  vknn_device_statistics after = stats(f);
  assert_int_equal(after.zero_copy_executions, before.zero_copy_executions + 2);
  shared_memory_destroy(&pool);
  test_burst_reuses_import(state);
}

/* The ADD model with in1 a constant 10 i in a model pool at weight_offset,
 * the pool described as weight_kind with weight_protection. */
static shared_memory weights;
static uint32_t weight_offset;
static const char *weight_kind;
static int32_t weight_ints[3];

static void reference_weights(test_model *m) {
  assert_int_equal(shared_memory_create(&weights, 4096), 0);
  for (int i = 0; i < 6; ++i) ((float *)(weights.data + weight_offset))[i] = 10.f * (float)i;
  weights.memory.name = weight_kind;
  weights.memory.ints = weight_ints;
  weights.memory.int_count = 3;
  m->operands[1].lifetime = VKNN_LIFETIME_CONSTANT_REFERENCE;
  m->operands[1].location = (vknn_data_location){0, weight_offset, 24};
  m->model.main.input_count = 1;
  m->model.pools = &weights.memory;
  m->model.pool_count = 1;
}

static uint64_t imports_at_setup;

static int setup_weights(void **state, const char *kind, int protection, uint32_t offset) {
  weight_kind = kind;
  weight_ints[0] = protection;
  weight_offset = offset;
  vknn_device_statistics before = {0};
  int r = add_fixture_setup(state, reference_weights);
  fixture *f = *state;
  if (r == 0) {
    r = vknn_device_get_statistics(f->device, &before) == VKNN_STATUS_NONE ? 0 : -1;
    imports_at_setup = before.host_imports;
    f->r.request.input_count = 1;
  }
  return r;
}

static int setup_aligned(void **state) { return setup_weights(state, "ashmem", 0, 256); }
static int setup_read_only(void **state) {
  return setup_weights(state, "mmap_fd", PROT_READ, 512);
}
static int setup_unaligned(void **state) { return setup_weights(state, "ashmem", 0, 4); }
static int teardown_weights(void **state) {
  int r = add_fixture_teardown(state);
  shared_memory_destroy(&weights);
  return r;
}

static void expect_in_place(void **state, uint64_t in_place_bytes) {
  fixture *f = *state;
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(f->pm, &info), VKNN_STATUS_NONE);
  assert_int_equal(info.constant_bytes_in_place, in_place_bytes);
  assert_int_equal(imports_at_setup, in_place_bytes ? 1 : 0);
  assert_true(in_place_bytes ? info.constant_bytes == 0 : info.constant_bytes >= 24);
  for (int run = 0; run < 2; ++run) {
    memset(f->r.pool.data + 48, 0, 24);
    assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                     VKNN_STATUS_NONE);
    for (int i = 0; i < 6; ++i) assert_float_equal(test_request_output(&f->r, i), 11.f * i, 0.f);
  }
  for (int i = 0; i < 6; ++i)
    assert_float_equal(((const float *)(weights.data + weight_offset))[i], 10.f * i, 0.f);
}

/* Constants are read in place only where the device shares the host's
 * memory (integrated GPUs, CPU devices); a discrete GPU copies them into
 * its own, to spare a bus crossing on every execution. */
static uint64_t constant_bytes_read_in_place(void **state) {
  const fixture *f = *state;
  return vknn_recorded_graph_target(f->device).import_pools ? 24 : 0;
}

/* The shaders read the pool's own pages: a change the caller makes after
 * prepare shows in the next execution (a copy would not see it). */
static void test_constant_reference_read_in_place(void **state) {
  uint64_t in_place = constant_bytes_read_in_place(state);
  expect_in_place(state, in_place);
  if (in_place == 0) return; /* copied: later changes are not seen, as allowed */
  fixture *f = *state;
  for (int i = 0; i < 6; ++i) ((float *)(weights.data + weight_offset))[i] = 100.f * (float)i;
  assert_int_equal(vknn_prepared_model_execute(f->pm, &f->r.request, 0, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  for (int i = 0; i < 6; ++i) assert_float_equal(test_request_output(&f->r, i), 101.f * i, 0.f);
}
static void test_read_only_pool_read_in_place(void **state) {
  expect_in_place(state, constant_bytes_read_in_place(state));
}
static void test_unaligned_constant_is_copied(void **state) { expect_in_place(state, 0); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_aligned_memfd_runs_in_place, setup, teardown),
      cmocka_unit_test_setup_teardown(test_short_input_refused_in_place, setup, teardown),
      cmocka_unit_test_setup_teardown(test_burst_reuses_import, setup, teardown),
      cmocka_unit_test_setup_teardown(test_burst_slot_memory_runs_in_place, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unaligned_is_staged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_overlap_past_4_gib_is_staged, setup, teardown),
      cmocka_unit_test_setup_teardown(test_io_copies_off_on_host_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_io_copies_every_path, setup_io_copies, teardown),
      cmocka_unit_test_setup_teardown(test_constant_reference_read_in_place, setup_aligned,
                                      teardown_weights),
      cmocka_unit_test_setup_teardown(test_read_only_pool_read_in_place, setup_read_only,
                                      teardown_weights),
      cmocka_unit_test_setup_teardown(test_unaligned_constant_is_copied, setup_unaligned,
                                      teardown_weights),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
