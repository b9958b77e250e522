/* Device bring-up and the device queries (validation layer on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/device_internal.h"
#include "support/model_builder.h"
#include "support/test_model.h"
#include "util/fault_injection.h"
#include "vk/vk_buffer.h"
#include "vknn/vknn.h"

/* Address-space limits and sanitizers' shadow memory do not mix. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static vknn_device *open_device(void) {
  vknn_device_options options = {.enable_validation = true};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  assert_non_null(device);
  return device;
}

static void close_device(vknn_device *device) {
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

/* More than any heap holds can never succeed: PERSISTENT. An allocation
 * that fits a heap but fails now may succeed later: TRANSIENT. */
static void test_memory_exhaustion_kinds(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_vk_buffer buffer;
  assert_int_equal(vknn_vk_buffer_create(&device->vk, (VkDeviceSize)1 << 52,
                                         VKNN_BUFFER_DEVICE_LOCAL, &buffer),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT);
  assert_null(buffer.buffer);
  assert_int_equal(vknn_vk_status(VK_ERROR_OUT_OF_DEVICE_MEMORY),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
  assert_int_equal(vknn_vk_status(VK_ERROR_OUT_OF_HOST_MEMORY),
                   VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT);
  close_device(device);
}

/* x -> ADD(x, x) -> t -> ADD(t, t) -> out, every tensor of n floats: the
 * temporary lives in the arena, x and out in the staging buffer. */
static const vknn_model *doubling_chain(model_builder *b, uint32_t n) {
  const uint32_t dims[1] = {n};
  mb_init(b);
  uint32_t x = mb_input(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
  uint32_t t = mb_temporary(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_FLOAT32, dims, 1);
  const uint32_t first[3] = {x, x, mb_const_i32(b, VKNN_FUSED_NONE)};
  const uint32_t second[3] = {t, t, first[2]};
  mb_operation(b, VKNN_OPERATION_ADD, first, 3, &t, 1);
  mb_operation(b, VKNN_OPERATION_ADD, second, 3, &out, 1);
  return mb_finish(b);
}

static vknn_status prepare_chain(vknn_device *device, model_builder *b, uint32_t n) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(device, doubling_chain(b, n), VKNN_PREFER_SUSTAINED_SPEED,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  vknn_prepared_model_release(pm);
  return s;
}

#ifndef UNDER_SANITIZER
static size_t address_space_bytes(void) {
  unsigned long pages = 0;
  FILE *statm = fopen("/proc/self/statm", "r");
  if (statm != NULL) {
    if (fscanf(statm, "%lu", &pages) != 1) pages = 0;
    fclose(statm);
  }
  return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* In a child process: with the address space capped a little above what
 * the process uses, a model whose buffers (288 MiB) fit the heap but not the
 * process fails to prepare with RESOURCE_EXHAUSTED_TRANSIENT, without a
 * crash; the device goes on preparing small models; with the cap lifted the
 * same model prepares. Returns the child's exit code (0: all held). */
static int memory_pressure_child(void) {
  vknn_device_options options = {.enable_validation = true};
  vknn_device *device = NULL;
  model_builder *b = malloc(sizeof(*b));
  if (b == NULL || vknn_device_open(&options, &device) != VKNN_STATUS_NONE) return 10;
  const uint32_t small = 1024, large = 24u << 20; /* 96 MiB per tensor */
  if (prepare_chain(device, b, small) != VKNN_STATUS_NONE) return 11;
  struct rlimit old_limit, cap;
  getrlimit(RLIMIT_AS, &old_limit);
  cap = old_limit;
  cap.rlim_cur = address_space_bytes() + ((rlim_t)64 << 20);
  if (setrlimit(RLIMIT_AS, &cap) != 0) return 12;
  vknn_status pressed = prepare_chain(device, b, large);
  vknn_status small_after = prepare_chain(device, b, small);
  setrlimit(RLIMIT_AS, &old_limit);
  vknn_status relieved = prepare_chain(device, b, large);
  uint64_t messages = vknn_device_get_validation_message_count(device);
  vknn_device_close(device);
  free(b);
  if (pressed != VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT) return 20 + (int)pressed;
  if (small_after != VKNN_STATUS_NONE) return 40;
  if (relieved != VKNN_STATUS_NONE) return 50;
  return messages == 0 ? 0 : 60;
}
#endif

static void test_real_memory_pressure(void **state) {
  (void)state;
#ifdef UNDER_SANITIZER
  skip();
#else
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(memory_pressure_child());
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* A tensor larger than one storage-buffer binding may span can never run:
 * RESOURCE_EXHAUSTED_PERSISTENT at prepare, before any allocation. Where
 * the device's limit is beyond the largest tensor a model may declare
 * (4 GiB, discrete GPUs), the device is made to report a 64 MiB limit: the
 * planner reads it from the device's properties at prepare. */
static void test_binding_beyond_device_limit(void **state) {
  (void)state;
  vknn_device *device = open_device();
  uint32_t *limit = &device->vk.properties.limits.maxStorageBufferRange;
  if ((uint64_t)*limit + 1024 * sizeof(float) > UINT32_MAX) *limit = 64u << 20;
  uint32_t floats = *limit / sizeof(float) + 1024;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  assert_int_equal(prepare_chain(device, b, floats), VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT);
  free(b);
  close_device(device);
}

/* The support query answers for prepare: the chain passes inference, but
 * with the device's binding limit below its tensors neither ADD can run,
 * and the query says so. */
static void test_query_checks_binding_limit(void **state) {
  (void)state;
  vknn_device *device = open_device();
  uint32_t *limit = &device->vk.properties.limits.maxStorageBufferRange;
  if ((uint64_t)*limit + 1024 * sizeof(float) > UINT32_MAX) *limit = 64u << 20;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  bool supported[2] = {true, true};
  const vknn_model *model = doubling_chain(b, *limit / sizeof(float) + 1024);
  assert_int_equal(vknn_device_get_supported_operations(device, model, supported, 2),
                   VKNN_STATUS_NONE);
  assert_false(supported[0]);
  assert_false(supported[1]);
  model = doubling_chain(b, 1024);
  assert_int_equal(vknn_device_get_supported_operations(device, model, supported, 2),
                   VKNN_STATUS_NONE);
  assert_true(supported[0] && supported[1]);
  free(b);
  close_device(device);
}

/* A dispatch grid beyond the device's: unsupported in the query, and
 * prepare fails as for any unsupported operation (GENERAL_FAILURE). The
 * device is made to report a 4 x 4 grid. */
static void test_query_checks_grid_limit(void **state) {
  (void)state;
  vknn_device *device = open_device();
  uint32_t *groups = device->vk.properties.limits.maxComputeWorkGroupCount;
  uint32_t saved[2] = {groups[0], groups[1]};
  groups[0] = groups[1] = 4;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  bool supported[2] = {true, true};
  assert_int_equal(vknn_device_get_supported_operations(device, doubling_chain(b, 1u << 20),
                                                        supported, 2),
                   VKNN_STATUS_NONE);
  assert_false(supported[0] || supported[1]);
  assert_int_equal(prepare_chain(device, b, 1u << 20), VKNN_STATUS_GENERAL_FAILURE);
  groups[0] = saved[0], groups[1] = saved[1];
  assert_int_equal(prepare_chain(device, b, 1u << 20), VKNN_STATUS_NONE);
  free(b);
  close_device(device);
}

/* Running out of host memory inside the query is RESOURCE_EXHAUSTED, never
 * an operation reported unsupported: every allocation of the query fails in
 * turn. */
static void test_query_out_of_memory(void **state) {
  (void)state;
  vknn_device *device = open_device();
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  const vknn_model *model = doubling_chain(b, 1024);
  bool done = false;
  for (uint64_t n = 1; !done && n < 10000; ++n) {
    bool supported[2] = {false, false};
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, n);
    vknn_status s = vknn_device_get_supported_operations(device, model, supported, 2);
    done = vknn_fault_count(VKNN_FAULT_HOST_ALLOCATION) < n;
    vknn_fault_arm(VKNN_FAULT_HOST_ALLOCATION, 0);
    if (done) {
      assert_int_equal(s, VKNN_STATUS_NONE);
    } else if (s != VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT) {
      assert_int_equal(s, VKNN_STATUS_NONE);
      assert_true(supported[0] && supported[1]);
    }
  }
  assert_true(done);
  free(b);
  close_device(device);
}

/* OEM_OPERATION over OEM operands is a valid model the driver does not
 * run: unsupported in the query, and prepare fails as for any unsupported
 * operation. */
static void test_oem_model_unsupported(void **state) {
  (void)state;
  vknn_device *device = open_device();
  test_model m;
  test_model_init_oem(&m);
  bool supported = true;
  assert_int_equal(vknn_device_get_supported_operations(device, &m.model, &supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, &m.model, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_GENERAL_FAILURE);
  assert_null(pm);
  close_device(device);
}

static void test_open_and_query(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_device_type type;
  const char *version = NULL;
  uint32_t model_cache = 9, data_cache = 9;
  assert_int_equal(vknn_device_get_type(device, &type), VKNN_STATUS_NONE);
  /* The type follows Vulkan's: lavapipe (llvmpipe) is a CPU, a GPU a GPU. */
  VkPhysicalDeviceType vk_type = device->vk.properties.deviceType;
  if (strstr(device->vk.properties.deviceName, "llvmpipe") != NULL)
    assert_int_equal(type, VKNN_DEVICE_TYPE_CPU);
  else if (vk_type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
           vk_type == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU)
    assert_int_equal(type, VKNN_DEVICE_TYPE_GPU);
  assert_int_equal(vknn_device_get_version_string(device, &version), VKNN_STATUS_NONE);
  assert_non_null(strstr(version, "vknn-"));
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(device, &model_cache, &data_cache),
                   VKNN_STATUS_NONE);
  assert_int_equal(model_cache, 1); /* compilation caching: test_compilation_cache.c */
  assert_int_equal(data_cache, 1);
  close_device(device);
}

/* Capabilities list every non-extension type but SUBGRAPH, sorted, and are
 * the same on every open. */
static void test_capabilities_stable_and_sorted(void **state) {
  (void)state;
  vknn_capabilities first, second;
  vknn_device *device = open_device();
  assert_int_equal(vknn_device_get_capabilities(device, &first), VKNN_STATUS_NONE);
  close_device(device);
  device = open_device();
  assert_int_equal(vknn_device_get_capabilities(device, &second), VKNN_STATUS_NONE);
  close_device(device);
  assert_memory_equal(&first, &second, sizeof(first));
  assert_int_equal(first.operand_performance_count, VKNN_OPERAND_SUBGRAPH);
  for (uint32_t i = 0; i < first.operand_performance_count; ++i) {
    assert_int_equal(first.operand_performance[i].type, (int32_t)i);
    assert_true(first.operand_performance[i].info.exec_time > 0.f);
  }
}

static void test_device_choice_by_environment(void **state) {
  (void)state;
  vknn_device *device = open_device();
  const char *name = NULL;
  assert_int_equal(vknn_device_get_name(device, &name), VKNN_STATUS_NONE);
  char prefix[8] = {0};
  strncpy(prefix, name, 4);
  close_device(device);

  setenv("VKNN_DEVICE", prefix, 1); /* a name substring */
  device = open_device();
  close_device(device);
  setenv("VKNN_DEVICE", "0", 1); /* an index */
  device = open_device();
  close_device(device);
  setenv("VKNN_DEVICE", "no-such-device", 1);
  assert_int_equal(vknn_device_open(NULL, &device), VKNN_STATUS_DEVICE_UNAVAILABLE);
  assert_null(device);
  setenv("VKNN_DEVICE", "99", 1);
  assert_int_equal(vknn_device_open(NULL, &device), VKNN_STATUS_DEVICE_UNAVAILABLE);
  unsetenv("VKNN_DEVICE");
}

static void test_null_arguments(void **state) {
  (void)state;
  vknn_device *device = open_device();
  vknn_capabilities caps;
  vknn_device_type type;
  const char *text;
  uint32_t a, b;
  bool supported;
  vknn_prepared_model *pm;
  assert_int_equal(vknn_device_open(NULL, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  /* Options outside their enumerations. */
  vknn_device *other = NULL;
  vknn_device_options bad_reads = {.operand_reads = (vknn_operand_reads)3};
  vknn_device_options bad_dot = {.integer_dot = (vknn_integer_dot)3};
  vknn_device_options bad_winograd = {.winograd = (vknn_winograd)5};
  vknn_device_options bad_relaxed = {.relaxed_float16 = (vknn_relaxed_float16)3};
  vknn_device_options bad_float16 = {.float16_arithmetic = (vknn_float16_arithmetic)3};
  vknn_device_options bad_tuning = {.kernel_tuning = (vknn_kernel_tuning)3};
  vknn_device_options bad_subgroup = {.subgroup_filter = (vknn_subgroup_filter)3};
  vknn_device_options bad_tiles = {.gemm_shared_tiles = (vknn_gemm_shared_tiles)3};
  vknn_device_options bad_pools = {.global_pool_reduction = (vknn_global_pool_reduction)3};
  vknn_device_options bad_layout = {.packed_layout = (vknn_packed_layout)3};
  assert_int_equal(vknn_device_open(&bad_reads, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_dot, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_winograd, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_relaxed, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_float16, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_tuning, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_subgroup, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_pools, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_tiles, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_open(&bad_layout, &other), VKNN_STATUS_INVALID_ARGUMENT);
  assert_null(other);
  assert_int_equal(vknn_device_get_capabilities(NULL, &caps), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_capabilities(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_type(NULL, &type), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_type(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_version_string(device, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_version_string(NULL, &text), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(device, NULL, &b),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_number_of_cache_files_needed(NULL, &a, &b),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_get_supported_operations(device, NULL, &supported, 1),
                   VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_device_prepare_model(device, NULL, VKNN_PREFER_LOW_POWER,
                                             VKNN_PRIORITY_LOW, NULL, &pm),
                   VKNN_STATUS_INVALID_ARGUMENT);
  vknn_device_close(NULL);
  vknn_prepared_model_release(NULL);
  close_device(device);
}

static void test_names(void **state) {
  (void)state;
  assert_string_equal(vknn_operation_type_name(VKNN_OPERATION_RANK), "RANK");
  assert_string_equal(vknn_operation_type_name(VKNN_OPERATION_ADD), "ADD");
  assert_null(vknn_operation_type_name(102));
  assert_string_equal(vknn_operation_type_name(VKNN_OPERATION_OEM), "OEM_OPERATION");
  assert_string_equal(vknn_operand_type_name(VKNN_OPERAND_TENSOR_OEM_BYTE), "TENSOR_OEM_BYTE");
  assert_string_equal(vknn_operand_type_name(VKNN_OPERAND_OEM), "OEM");
  assert_string_equal(vknn_operand_type_name(VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED),
                      "TENSOR_QUANT8_ASYMM_SIGNED");
  assert_string_equal(vknn_status_name(VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE),
                      "OUTPUT_INSUFFICIENT_SIZE");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_and_query),
      cmocka_unit_test(test_capabilities_stable_and_sorted),
      cmocka_unit_test(test_device_choice_by_environment),
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_memory_exhaustion_kinds),
      cmocka_unit_test(test_real_memory_pressure),
      cmocka_unit_test(test_binding_beyond_device_limit),
      cmocka_unit_test(test_query_checks_binding_limit),
      cmocka_unit_test(test_query_checks_grid_limit),
      cmocka_unit_test(test_query_out_of_memory),
      cmocka_unit_test(test_oem_model_unsupported),
  };
  return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}
