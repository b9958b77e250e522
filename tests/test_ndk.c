/* The NNAPI C API of libneuralnetworks.so: one test per runtime rule (NULL
 * arguments, frozen models, finished compilations, executions used once,
 * index and type checks), and each way of computing, checked against values
 * computed here. Every model runs on vknn's device. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "android/NeuralNetworks.h"
#include "vknn_ndk.h"
#include "vknn_sl.h"
#include "vknn/extensions/fibonacci.h"
#include "vknn/extensions/transformer.h"

#define N 4
#define OK ANEURALNETWORKS_NO_ERROR

static const ANeuralNetworksOperandType tensor_type = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){N}, 0.f, 0};
static const ANeuralNetworksOperandType scalar_type = {ANEURALNETWORKS_INT32, 0, NULL, 0.f, 0};

static ANeuralNetworksDevice *device(void) {
  ANeuralNetworksDevice *d = NULL;
  assert_int_equal(ANeuralNetworks_getDevice(0, &d), OK);
  return d;
}

/* Operands 0: a, 1: b, 2: activation, 3: out = a + b; b is an input unless
 * b_count values are given for it (a tensor of b_count elements, broadcast). */
static ANeuralNetworksModel *add_model_unfinished(const float *b, uint32_t b_count) {
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  ANeuralNetworksOperandType b_type = tensor_type;
  b_type.dimensions = (const uint32_t[]){b ? b_count : N};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &b_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  int32_t none = ANEURALNETWORKS_FUSED_NONE;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, sizeof(none)), OK);
  if (b) assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 1, b, b_count * sizeof(float)), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, b ? 1 : 2, (uint32_t[]){0, 1}, 1, (uint32_t[]){3}), OK);
  return m;
}

static ANeuralNetworksModel *add_model(void) {
  ANeuralNetworksModel *m = add_model_unfinished(NULL, 0);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  return m;
}

static ANeuralNetworksCompilation *compile(ANeuralNetworksModel *m, bool for_devices) {
  ANeuralNetworksCompilation *c = NULL;
  if (for_devices) {
    const ANeuralNetworksDevice *d = device();
    assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, &d, 1, &c), OK);
  } else {
    assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
  }
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  return c;
}

static const float A[N] = {1, 2, 3, 4}, B[N] = {10, 20, 30, 40};

static ANeuralNetworksExecution *execution_with_inputs(ANeuralNetworksCompilation *c, float *out) {
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 1, NULL, B, sizeof(B)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, N * sizeof(float)), OK);
  return e;
}

static void check_sum(const float *out) {
  for (int i = 0; i < N; ++i) assert_true(out[i] == A[i] + B[i]);
}

/* ---- devices -------------------------------------------------------------- */

static void test_device_queries(void **state) {
  (void)state;
  uint32_t count = 0;
  assert_int_equal(ANeuralNetworks_getDeviceCount(&count), OK);
  assert_int_equal(count, 1);
  assert_int_equal(ANeuralNetworks_getDeviceCount(NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksDevice *d = NULL;
  assert_int_equal(ANeuralNetworks_getDevice(1, &d), ANEURALNETWORKS_BAD_DATA);
  assert_null(d);
  d = device();
  const char *name = NULL, *version = NULL;
  int32_t type = 0;
  int64_t level = 0;
  assert_int_equal(ANeuralNetworksDevice_getName(d, &name), OK);
  assert_int_equal(ANeuralNetworksDevice_getVersion(d, &version), OK);
  assert_non_null(strstr(version, "vknn"));
  assert_int_equal(ANeuralNetworksDevice_getType(d, &type), OK);
  assert_true(type == ANEURALNETWORKS_DEVICE_CPU || type == ANEURALNETWORKS_DEVICE_GPU ||
              type == ANEURALNETWORKS_DEVICE_OTHER);
  assert_int_equal(ANeuralNetworksDevice_getFeatureLevel(d, &level), OK);
  assert_int_equal(level, 30);
  assert_int_equal(ANeuralNetworksDevice_wait(d), OK);
  assert_int_equal(ANeuralNetworksDevice_getName(NULL, &name), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksDevice_getName(d, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksDevice_getFeatureLevel((ANeuralNetworksDevice *)&count, &level),
                   ANEURALNETWORKS_BAD_DATA);
  bool supported = true;
  assert_int_equal(ANeuralNetworksDevice_getExtensionSupport(d, "com.example.ext", &supported), OK);
  assert_false(supported);
  assert_int_equal(ANeuralNetworksDevice_getExtensionSupport(d, VKNN_FIBONACCI_EXTENSION_NAME, &supported), OK);
  assert_true(supported);
  assert_int_equal(ANeuralNetworksDevice_getExtensionSupport(d, VKNN_TRANSFORMER_EXTENSION_NAME, &supported), OK);
  assert_true(supported);
  assert_int_equal(ANeuralNetworks_getDefaultLoopTimeout(), 2000000000ull);
  assert_int_equal(ANeuralNetworks_getMaximumLoopTimeout(), 15000000000ull);
  assert_non_null(vknn_ndk_device(d));
}

/* ---- models ---------------------------------------------------------------- */

static void test_model_null_arguments(void **state) {
  (void)state;
  assert_int_equal(ANeuralNetworksModel_create(NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(NULL, &tensor_type), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, NULL, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 1, NULL, 1, (uint32_t[]){0}),
                   ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, NULL),
                   ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_finish(NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksModel_free(NULL);
}

static void test_model_operand_checks(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  ANeuralNetworksOperandType t = {1234, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), ANEURALNETWORKS_BAD_DATA);
  t = (ANeuralNetworksOperandType){ANEURALNETWORKS_INT32, 1, (const uint32_t[]){2}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), ANEURALNETWORKS_BAD_DATA);
  t = (ANeuralNetworksOperandType){ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1, (const uint32_t[]){2}, 0.5f, 300};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), ANEURALNETWORKS_BAD_DATA);
  t = (ANeuralNetworksOperandType){ANEURALNETWORKS_TENSOR_FLOAT32, 2, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  float v[N + 1] = {0};
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 1, v, sizeof(float) * N), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, -1, v, sizeof(float) * N), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, v, sizeof(v)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_RELU, 1, (uint32_t[]){0}, 1, (uint32_t[]){7}),
                   ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, 5000, 1, (uint32_t[]){0}, 1, (uint32_t[]){0}),
                   ANEURALNETWORKS_BAD_DATA);
  /* A model that failed a call stays invalid. */
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 0, (uint32_t[]){0}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
}

static void test_model_io_checks(void **state) {
  (void)state;
  ANeuralNetworksModel *m = add_model_unfinished((const float[]){1, 2, 3, 4}, N);
  /* An input with a value, an index twice, an index out of range. */
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){1}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  m = add_model_unfinished(NULL, 0);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 2, (uint32_t[]){0, 0}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  m = add_model_unfinished(NULL, 0);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){9}),
                   ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  /* No inputs and outputs at all. */
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
}

static void test_model_frozen_after_finish(void **state) {
  (void)state;
  ANeuralNetworksModel *m = add_model();
  int32_t v = 0;
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &v, sizeof(v)), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_relaxComputationFloat32toFloat16(m, true), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_finish(m), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksModel_free(m);
}

static void test_model_references_and_extensions(void **state) {
  (void)state;
  ANeuralNetworksModel *body = add_model_unfinished(NULL, 0), *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  ANeuralNetworksOperandType model_type = {ANEURALNETWORKS_MODEL, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &model_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromModel(m, 0, body), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_finish(body), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromModel(m, 1, body), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromModel(m, 0, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  int32_t type = 0;
  assert_int_equal(ANeuralNetworksModel_getExtensionOperandType(m, "com.example.ext", 1, &type), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_getExtensionOperationType(m, "com.example.ext", 1, &type), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_setOperandExtensionData(m, 1, "x", 1), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksModel_free(body);
}

/* The device's extensions through the C API: types from names, their
 * operands checked against the device's description, extension data taken,
 * and the support query on a model of them. */
static void test_model_extension_types(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  int32_t int64_type = 0, quant64_type = 0, fib = 0, gelu = 0;
  const char *fib_name = VKNN_FIBONACCI_EXTENSION_NAME;
  assert_int_equal(ANeuralNetworksModel_getExtensionOperandType(m, fib_name, VKNN_EXAMPLE_INT64, &int64_type), OK);
  assert_int_equal(ANeuralNetworksModel_getExtensionOperandType(m, fib_name, VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM,
                                                                &quant64_type), OK);
  assert_int_equal(ANeuralNetworksModel_getExtensionOperationType(m, fib_name, VKNN_EXAMPLE_FIBONACCI, &fib), OK);
  assert_int_equal(ANeuralNetworksModel_getExtensionOperationType(m, VKNN_TRANSFORMER_EXTENSION_NAME,
                                                                  VKNN_TRANSFORMER_GELU, &gelu), OK);
  /* Extension i of the device has prefix i + 1. */
  assert_int_equal(int64_type, (1 << 16) | VKNN_EXAMPLE_INT64);
  assert_int_equal(quant64_type, (1 << 16) | VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM);
  assert_int_equal(gelu, (2 << 16) | VKNN_TRANSFORMER_GELU);
  ANeuralNetworksOperandType bad_code = {(1 << 16) | 7, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &bad_code), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  ANeuralNetworksOperandType scaled = {quant64_type, 1, (const uint32_t[]){4}, 0.5f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scaled), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  ANeuralNetworksOperandType n_type = {int64_type, 0, NULL, 0.f, 0};
  ANeuralNetworksOperandType out_type = {quant64_type, 1, (const uint32_t[]){4}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &n_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &out_type), OK);
  int64_t n = 4;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &n, 4), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &n_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &out_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &n, sizeof(n)), OK);
  const vknn_example_quant64_asymm_params q = {0.5, 1};
  assert_int_equal(ANeuralNetworksModel_setOperandExtensionData(m, 1, &q, sizeof(q)), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandExtensionData(m, 2, &q, sizeof(q)), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &n_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &out_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &n, sizeof(n)), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandExtensionData(m, 1, &q, sizeof(q)), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, fib, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 0, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  const ANeuralNetworksDevice *d = device();
  bool supported = false;
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 1, &supported), OK);
  assert_true(supported);
  /* A query changes nothing: a finished model answers it (as in the runtime). */
  int32_t again = 0;
  assert_int_equal(ANeuralNetworksModel_getExtensionOperandType(m, fib_name, VKNN_EXAMPLE_INT64, &again), OK);
  assert_int_equal(again, int64_type);
  assert_int_equal(ANeuralNetworksModel_getExtensionOperationType(m, fib_name, VKNN_EXAMPLE_FIBONACCI, &again), OK);
  assert_int_equal(again, fib);
  ANeuralNetworksModel_free(m);
}

static ANeuralNetworksModel *add_constant_model(uint32_t count, float *b) {
  ANeuralNetworksModel *m = NULL;
  ANeuralNetworksOperandType t = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){count}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &t), OK);
  int32_t none = 0;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, sizeof(none)), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 1, b, count * sizeof(float)), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){3}), OK);
  return m;
}

/* Values up to 128 bytes are copied at the call; above 128 bytes the model
 * reads the client's buffer at compilation. */
static float constant_seen(uint32_t count) {
  float b[64], a[64] = {0}, out[64] = {0};
  for (uint32_t i = 0; i < count; ++i) b[i] = 1.f;
  ANeuralNetworksModel *m = add_constant_model(count, b);
  for (uint32_t i = 0; i < count; ++i) b[i] = 2.f; /* after setOperandValue, before compilation */
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, false);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, a, count * sizeof(float)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, count * sizeof(float)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  return out[count - 1];
}

static void test_model_small_values_copied_large_referenced(void **state) {
  (void)state;
  assert_true(constant_seen(32) == 1.f); /* 128 bytes: copied at the call */
  assert_true(constant_seen(33) == 2.f); /* 132 bytes: read at compilation */
}

/* The support query answers in the order operations were added, not the
 * run order: an unsupported OEM_OPERATION added first reads the output of a
 * FLOOR added second (which runs first). */
static void test_supported_in_added_order(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  for (int i = 0; i < 3; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, 10000 /* OEM_OPERATION */, 1, (uint32_t[]){1}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_FLOOR, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksDevice *device = NULL;
  assert_int_equal(ANeuralNetworks_getDevice(0, &device), OK);
  bool supported[2] = {true, false};
  const ANeuralNetworksDevice *devices[1] = {device};
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, devices, 1, supported), OK);
  assert_false(supported[0]);
  assert_true(supported[1]);
  ANeuralNetworksModel_free(m);
}

/* Operations added out of order run in dependency order. */
static void test_model_operations_sorted(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  for (int i = 0; i < 3; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_RELU, 1, (uint32_t[]){1}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_FLOOR, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, false);
  ANeuralNetworksExecution *e = NULL;
  float in[N] = {-1.5f, 0.5f, 2.5f, -0.5f}, out[N];
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, in, sizeof(in)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  assert_true(out[0] == 0.f && out[1] == 0.f && out[2] == 2.f && out[3] == 0.f);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

static void test_supported_operations(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, 10000 /* OEM_OPERATION */, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  const ANeuralNetworksDevice *d = device();
  bool supported[1] = {true};
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 1, supported), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, NULL, 1, supported), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 0, supported), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 1, supported), OK);
  assert_false(supported[0]);
  /* Unsupported stays unsupported: the compilation fails. */
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, &d, 1, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  m = add_model();
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 1, supported), OK);
  assert_true(supported[0]);
  ANeuralNetworksModel_free(m);
}

/* ---- compilations ------------------------------------------------------------ */

static void test_compilation_rules(void **state) {
  (void)state;
  ANeuralNetworksModel *unfinished = add_model_unfinished(NULL, 0), *m = add_model();
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_create(unfinished, &c), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksCompilation_create(NULL, &c), ANEURALNETWORKS_UNEXPECTED_NULL);
  const ANeuralNetworksDevice *twice[2] = {device(), device()};
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, twice, 2, &c), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, NULL, 1, &c), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setPreference(c, 7), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksCompilation_setPriority(c, 95), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksCompilation_setTimeout(c, 1000000000ull), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksCompilation_setPreference(c, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED), OK);
  assert_int_equal(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_HIGH), OK);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksBurst *b = NULL;
  assert_int_equal(ANeuralNetworksBurst_create(c, &b), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksCompilation_setPreference(c, 0), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksCompilation_setCaching(c, "/tmp", (uint8_t[32]){0}), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksCompilation_free(c);
  /* With one device named, a timeout is allowed. */
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, twice, 1, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setTimeout(c, 60000000000ull), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  float out[N];
  e = execution_with_inputs(c, out);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksModel_free(unfinished);
}

static int files_in(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') ++count;
  closedir(d);
  return count;
}

/* One computation of the ADD model's compilation, its sums checked. */
static void compute_and_check(ANeuralNetworksCompilation *c) {
  float out[N];
  ANeuralNetworksExecution *e = execution_with_inputs(c, out);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
}

/* The errors the library logs, counted (for the cache test below). */
static atomic_int logged_errors;
static void count_errors(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data, (void)tag, (void)message;
  if (level == VKNN_LOG_ERROR) atomic_fetch_add(&logged_errors, 1);
}

/* Caches written by another process restore here: the library keeps its
 * key in the user's cache folder (XDG_CACHE_HOME, set by main to a fresh
 * folder), made 0600 on first use. A child process compiles with caching;
 * this process then restores from its files without an error (a cache
 * sealed under another key is logged and prepared anew). */
static void test_caching_across_processes(void **state) {
  (void)state;
  char path[4200];
  snprintf(path, sizeof(path), "%s/vknn/cache.key", getenv("XDG_CACHE_HOME"));
  char dir[] = "/tmp/vknn-ndk-xcache-XXXXXX";
  assert_non_null(mkdtemp(dir));
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {9, 8, 7};
  pid_t child = fork();
  if (child == 0) {
    ANeuralNetworksModel *m = add_model();
    ANeuralNetworksCompilation *c = NULL;
    int ok = ANeuralNetworksCompilation_create(m, &c) == OK && ANeuralNetworksCompilation_setCaching(c, dir, token) == OK &&
             ANeuralNetworksCompilation_finish(c) == OK;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(st.st_size, 32);
  vknn_ndk_set_log_callback(count_errors, NULL);
  atomic_store(&logged_errors, 0);
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setCaching(c, dir, token), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  vknn_ndk_set_log_callback(NULL, NULL);
  assert_int_equal(atomic_load(&logged_errors), 0);
  compute_and_check(c);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
  assert_int_equal(system(cmd), 0);
}

static void test_compilation_caching(void **state) {
  (void)state;
  char dir[] = "/tmp/vknn-ndk-cache-XXXXXX";
  assert_non_null(mkdtemp(dir));
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
  for (int i = 0; i < ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN; ++i) token[i] = (uint8_t)i;
  ANeuralNetworksModel *m = add_model();
  for (int round = 0; round < 2; ++round) { /* writes the cache, then prepares from it */
    ANeuralNetworksCompilation *c = NULL;
    assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
    assert_int_equal(ANeuralNetworksCompilation_setCaching(c, dir, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
    assert_int_equal(ANeuralNetworksCompilation_setCaching(c, dir, token), OK);
    assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
    compute_and_check(c);
    ANeuralNetworksCompilation_free(c);
  }
  assert_int_equal(files_in(dir), 2);
  /* Another priority, the same token: a cache of its own (the settings are
   * part of the driver's token, as the NNAPI runtime makes it), not the
   * model prepared at the default priority. */
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setPriority(c, ANEURALNETWORKS_PRIORITY_HIGH), OK);
  assert_int_equal(ANeuralNetworksCompilation_setCaching(c, dir, token), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  ANeuralNetworksCompilation_free(c);
  assert_int_equal(files_in(dir), 4);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
  assert_int_equal(system(cmd), 0);
  ANeuralNetworksModel_free(m);
}

/* A cache folder whose files' paths would not fit the longest path (4096
 * bytes) caches nothing: cut short, the .model and .data files' paths were
 * one and the same file. The compilation still succeeds. */
static void test_caching_path_too_long(void **state) {
  (void)state;
  char base[] = "/tmp/vknn-ndk-long-XXXXXX";
  assert_non_null(mkdtemp(base));
  char dir[4200], part[251];
  memset(part, 'd', 250);
  part[250] = '\0';
  size_t len = (size_t)snprintf(dir, sizeof(dir), "%s", base);
  for (int i = 0; i < 16; ++i) {
    len += (size_t)snprintf(dir + len, sizeof(dir) - len, "/%s", part);
    assert_int_equal(mkdir(dir, 0700), 0);
  }
  assert_true(len + 1 + 2 * ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN + 6 >= 4096 && len < 4096);
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_create(m, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setCaching(c, dir, (uint8_t[32]){1, 2, 3}), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  compute_and_check(c);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  assert_int_equal(files_in(dir), 0);
  char cmd[128];
  snprintf(cmd, sizeof(cmd), "rm -r %s", base);
  assert_int_equal(system(cmd), 0);
}

/* ---- executions -------------------------------------------------------------- */

typedef struct fixture {
  ANeuralNetworksModel *model;
  ANeuralNetworksCompilation *compilation;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  f->model = add_model();
  f->compilation = compile(f->model, true);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ANeuralNetworksCompilation_free(f->compilation);
  ANeuralNetworksModel_free(f->model);
  free(f);
  return 0;
}

static void test_execution_argument_checks(void **state) {
  fixture *f = *state;
  ANeuralNetworksExecution *e = NULL;
  float out[N];
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 2, NULL, A, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, -1, NULL, A, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A) - 1), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, NULL, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksOperandType wrong = tensor_type;
  wrong.type = ANEURALNETWORKS_TENSOR_INT32;
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, &wrong, A, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  wrong = tensor_type;
  wrong.dimensions = (const uint32_t[]){N + 1};
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, &wrong, A, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, &tensor_type, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  /* Input 1 was never set. */
  assert_int_equal(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_compute(NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksExecution_free(e);
  assert_int_equal(ANeuralNetworksExecution_create(NULL, &e), ANEURALNETWORKS_UNEXPECTED_NULL);
}

static void test_execution_used_once(void **state) {
  fixture *f = *state;
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  uint32_t rank = 0, dims[1] = {0};
  uint64_t ns = 0;
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), OK);
  assert_int_equal(ANeuralNetworksExecution_setLoopTimeout(e, UINT64_MAX), OK);
  assert_int_equal(ANeuralNetworksExecution_setTimeout(e, 60000000000ull), OK);
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE, &ns), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  assert_int_equal(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, false), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksEvent *ev = NULL;
  assert_int_equal(ANeuralNetworksExecution_startCompute(e, &ev), ANEURALNETWORKS_BAD_STATE);
  assert_null(ev);
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), OK);
  assert_int_equal(rank, 1);
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dims), OK);
  assert_int_equal(dims[0], N);
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandRank(e, 1, &rank), ANEURALNETWORKS_BAD_DATA);
  uint64_t hw = 0, driver = 0;
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE, &hw), OK);
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, &driver), OK);
  assert_true(driver != UINT64_MAX && (hw == UINT64_MAX || hw <= driver));
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, 9, &hw), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
}

/* Timing needs a compilation for one named device. */
static void test_execution_timing_needs_device(void **state) {
  (void)state;
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = compile(m, false);
  float out[N];
  ANeuralNetworksExecution *e = execution_with_inputs(c, out);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setTimeout(e, 1000), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  uint64_t ns = 0;
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, &ns), ANEURALNETWORKS_BAD_STATE);
  assert_true(ns == UINT64_MAX);
  /* The device rule comes before the state (NNAPI's order). */
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setTimeout(e, 1000), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* NNAPI argument rules: an argument is set once; a type gives dimensions
 * exactly when its count is not 0; a buffer has bytes or is NULL. */
static void test_argument_rules(void **state) {
  fixture *f = *state;
  float out[N];
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  const ANeuralNetworksOperandType dims_for_none = {ANEURALNETWORKS_TENSOR_FLOAT32, 0, (const uint32_t[]){N}, 0.f, 0};
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, &dims_for_none, A, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, 0), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 1, NULL, B, sizeof(B)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
}

static void test_execution_async(void **state) {
  fixture *f = *state;
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  ANeuralNetworksEvent *ev = NULL;
  assert_int_equal(ANeuralNetworksExecution_startCompute(e, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksExecution_startCompute(e, &ev), OK);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  check_sum(out);
  int fd = 0;
  assert_int_equal(ANeuralNetworksEvent_getSyncFenceFd(ev, &fd), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(fd, -1);
  /* The event outlives its execution. */
  ANeuralNetworksExecution_free(e);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  ANeuralNetworksEvent_free(ev);
}

static void test_execution_fenced(void **state) {
  fixture *f = *state;
  assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(-1, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksEvent *dep = NULL, *ev = NULL;
  assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(-1, &dep), ANEURALNETWORKS_BAD_DATA);
  int signaled = eventfd(1, EFD_CLOEXEC);
  assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(signaled, &dep), OK);
  close(signaled); /* the event has its own descriptor */
  assert_int_equal(ANeuralNetworksEvent_wait(dep), OK);
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), OK);
  const ANeuralNetworksEvent *deps[1] = {dep};
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, NULL, 1, 0, &ev), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, deps, 1, 0, &ev), OK);
  int fence = -1;
  assert_int_equal(ANeuralNetworksEvent_getSyncFenceFd(ev, &fence), OK);
  assert_true(fence >= 0);
  close(fence);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  check_sum(out);
  uint64_t fenced = 0;
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER, &fenced), OK);
  uint32_t dims[1];
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dims), OK);
  assert_int_equal(dims[0], N);
  ANeuralNetworksEvent_free(ev);
  ANeuralNetworksEvent_free(dep);
  ANeuralNetworksExecution_free(e);
}

static void *wait_for_event(void *event) {
  return (void *)(intptr_t)ANeuralNetworksEvent_wait(event);
}

static void *free_execution(void *execution) {
  ANeuralNetworksExecution_free(execution);
  return NULL;
}

/* A thread waiting on a computation's event while another frees the
 * execution (which waits for the computation first): the free waits for
 * the waiter to be done with the execution, which it read freed before
 * (ASan). The computation waits for a gate so that both are waiting. */
static void test_event_waiter_and_free(void **state) {
  fixture *f = *state;
  for (int round = 0; round < 10; ++round) {
    int gate = eventfd(0, EFD_CLOEXEC);
    ANeuralNetworksEvent *dep = NULL, *ev = NULL;
    assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(gate, &dep), OK);
    float out[N] = {0};
    ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
    const ANeuralNetworksEvent *deps[1] = {dep};
    assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, deps, 1, 0, &ev), OK);
    pthread_t waiters[3], freer;
    for (int i = 0; i < 3; ++i) assert_int_equal(pthread_create(&waiters[i], NULL, wait_for_event, ev), 0);
    usleep(5000);
    assert_int_equal(pthread_create(&freer, NULL, free_execution, e), 0);
    usleep(5000);
    uint64_t one = 1;
    assert_int_equal(write(gate, &one, sizeof(one)), sizeof(one));
    for (int i = 0; i < 3; ++i) {
      void *result = NULL;
      assert_int_equal(pthread_join(waiters[i], &result), 0);
      assert_int_equal((int)(intptr_t)result, OK);
    }
    assert_int_equal(pthread_join(freer, NULL), 0);
    check_sum(out);
    assert_int_equal(ANeuralNetworksEvent_wait(ev), OK); /* the result outlives the execution */
    ANeuralNetworksEvent_free(ev);
    ANeuralNetworksEvent_free(dep);
    close(gate);
  }
}

/* A dependency in error (a pipe whose writer left without signaling, as
 * vknn's fence of a failed computation) fails the computation, whose own
 * fence is then in error: a computation depending on it fails too, and
 * neither writes its outputs. */
static void test_failed_dependency_fails_dependents(void **state) {
  fixture *f = *state;
  int ends[2];
  assert_int_equal(pipe(ends), 0);
  close(ends[1]);
  ANeuralNetworksEvent *failed = NULL, *first = NULL, *second = NULL;
  assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(ends[0], &failed), OK);
  close(ends[0]);
  assert_int_equal(ANeuralNetworksEvent_wait(failed), ANEURALNETWORKS_OP_FAILED);
  float out[2][N] = {{0}};
  ANeuralNetworksExecution *e[2] = {execution_with_inputs(f->compilation, out[0]),
                                    execution_with_inputs(f->compilation, out[1])};
  const ANeuralNetworksEvent *on_failed[1] = {failed};
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e[0], on_failed, 1, 0, &first), OK);
  const ANeuralNetworksEvent *on_first[1] = {first};
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e[1], on_first, 1, 0, &second), OK);
  assert_int_equal(ANeuralNetworksEvent_wait(second), ANEURALNETWORKS_OP_FAILED);
  assert_int_equal(ANeuralNetworksEvent_wait(first), ANEURALNETWORKS_OP_FAILED);
  for (int i = 0; i < N; ++i) assert_true(out[0][i] == 0.f && out[1][i] == 0.f);
  ANeuralNetworksEvent_free(second);
  ANeuralNetworksEvent_free(first);
  ANeuralNetworksEvent_free(failed);
  ANeuralNetworksExecution_free(e[1]);
  ANeuralNetworksExecution_free(e[0]);
}

static void test_execution_burst(void **state) {
  fixture *f = *state;
  ANeuralNetworksBurst *burst = NULL, *other = NULL;
  assert_int_equal(ANeuralNetworksBurst_create(f->compilation, &burst), OK);
  for (int i = 0; i < 3; ++i) {
    float out[N] = {0};
    ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
    assert_int_equal(ANeuralNetworksExecution_burstCompute(e, burst), OK);
    check_sum(out);
    assert_int_equal(ANeuralNetworksExecution_burstCompute(e, burst), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksExecution_free(e);
  }
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = compile(m, false);
  assert_int_equal(ANeuralNetworksBurst_create(c, &other), OK);
  float out[N];
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  assert_int_equal(ANeuralNetworksExecution_burstCompute(e, other), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_burstCompute(e, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksBurst_free(other);
  ANeuralNetworksBurst_free(burst);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* An output of unknown size: too small a buffer reports the size it needs.
 * The execution did not succeed, so it has no duration (NNAPI: BAD_STATE
 * and UINT64_MAX, as before it finished). */
static void test_execution_dynamic_output(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  ANeuralNetworksOperandType unknown = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){0}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &unknown), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_RELU, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, true);
  ANeuralNetworksExecution *e = NULL;
  float out[N];
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, 2 * sizeof(float)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  uint64_t ns = 0;
  assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, &ns), ANEURALNETWORKS_BAD_STATE);
  assert_true(ns == UINT64_MAX);
  uint32_t rank = 0, dims[1] = {0};
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  ANeuralNetworksExecution *fenced = NULL;
  ANeuralNetworksEvent *ev = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &fenced), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(fenced, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(fenced, 0, NULL, out, sizeof(out)), OK);
  /* NNAPI: a fenced computation needs every output's dimensions; refused
   * before it starts, the execution may still compute. */
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(fenced, NULL, 0, 0, &ev), ANEURALNETWORKS_BAD_DATA);
  assert_null(ev);
  assert_int_equal(ANeuralNetworksExecution_compute(fenced), OK);
  ANeuralNetworksExecution_free(fenced);
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dims), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
  assert_int_equal(rank, 1);
  assert_int_equal(dims[0], N);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* ---- memory ------------------------------------------------------------------ */

static int memfd_with(const void *bytes, size_t size) {
  int fd = memfd_create("test-ndk", MFD_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)size), 0);
  if (bytes) assert_int_equal(pwrite(fd, bytes, size, 0), (ssize_t)size);
  return fd;
}

static void test_memory_from_fd(void **state) {
  fixture *f = *state;
  ANeuralNetworksMemory *mem = NULL, *out_mem = NULL;
  float ab[2 * N];
  memcpy(ab, A, sizeof(A));
  memcpy(ab + N, B, sizeof(B));
  int fd = memfd_with(ab, sizeof(ab)), out_fd = memfd_with(NULL, sizeof(A));
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(ab), PROT_READ, -1, 0, &mem), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(ab), PROT_READ, fd, 0, NULL), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(ab) + 1, PROT_READ, fd, 0, &mem), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(ab), PROT_READ | PROT_WRITE, fd, 0, &mem), OK);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, out_fd, 0, &out_mem), OK);
  close(fd);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, mem, sizeof(ab), sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, NULL, 0, sizeof(A)), ANEURALNETWORKS_UNEXPECTED_NULL);
  /* Offset 0 and length 0: the size cannot be implied from an fd memory. */
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, mem, 0, 0), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, mem, 0, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 1, NULL, mem, sizeof(A), sizeof(B)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutputFromMemory(e, 0, NULL, out_mem, 0, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  float out[N];
  assert_int_equal(pread(out_fd, out, sizeof(out), 0), (ssize_t)sizeof(out));
  check_sum(out);
  ANeuralNetworksExecution_free(e);
  /* Copies between shared memories must have equal sizes. */
  assert_int_equal(ANeuralNetworksMemory_copy(mem, out_mem), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemory_copy(NULL, out_mem), ANEURALNETWORKS_UNEXPECTED_NULL);
  ANeuralNetworksMemory_free(mem);
  ANeuralNetworksMemory_free(out_mem);
  close(out_fd);
}

/* A constant in memory (setOperandValueFromMemory). */
static void test_memory_constant(void **state) {
  (void)state;
  int fd = memfd_with(B, sizeof(B));
  ANeuralNetworksMemory *mem = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(B), PROT_READ, fd, 0, &mem), OK);
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  for (int i = 0; i < 2; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  int32_t none = 0;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, sizeof(none)), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromMemory(m, 1, mem, 4, sizeof(B)), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  for (int i = 0; i < 2; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, sizeof(none)), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromMemory(m, 1, mem, 0, sizeof(B)), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, false);
  ANeuralNetworksExecution *e = NULL;
  float out[N];
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksMemory_free(mem);
  close(fd);
}

static void test_memory_desc_rules(void **state) {
  fixture *f = *state;
  ANeuralNetworksMemoryDesc *desc = NULL;
  ANeuralNetworksMemory *mem = NULL;
  assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
  assert_int_equal(ANeuralNetworksMemory_createFromDesc(desc, &mem), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, 5, 1.f), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, 0, 0.f), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, NULL, 0, 1.f), ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, 0, 1.f), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, 0, 1.f), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemoryDesc_setDimensions(desc, 1, (uint32_t[]){N + 1}), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemoryDesc_setDimensions(desc, 1, (uint32_t[]){N}), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addOutputRole(desc, f->compilation, 0, 1.f), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, 1, 1.f), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksMemoryDesc_free(desc);
}

/* Inputs and the output through driver buffers: copy in, compute, copy out. */
static void test_memory_device_buffers(void **state) {
  fixture *f = *state;
  ANeuralNetworksMemory *bufs[3] = {NULL}, *host_a = NULL, *host_out = NULL;
  for (int i = 0; i < 3; ++i) {
    ANeuralNetworksMemoryDesc *desc = NULL;
    assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
    if (i < 2) assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, f->compilation, (uint32_t)i, 1.f), OK);
    else assert_int_equal(ANeuralNetworksMemoryDesc_addOutputRole(desc, f->compilation, 0, 1.f), OK);
    assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), OK);
    assert_int_equal(ANeuralNetworksMemory_createFromDesc(desc, &bufs[i]), OK);
    ANeuralNetworksMemoryDesc_free(desc);
  }
  int a_fd = memfd_with(A, sizeof(A)), b_fd = memfd_with(B, sizeof(B)), out_fd = memfd_with(NULL, sizeof(A));
  ANeuralNetworksMemory *host_b = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, a_fd, 0, &host_a), OK);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(B), PROT_READ | PROT_WRITE, b_fd, 0, &host_b), OK);
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, out_fd, 0, &host_out), OK);
  /* NNAPI: a memory copied onto itself is a no-op, even unwritten; an
   * unwritten source is BAD_DATA, whatever the destination. */
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[0], bufs[0]), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(host_a, host_a), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[2], host_out), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[2], bufs[0]), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksMemory_copy(host_a, bufs[0]), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(host_b, bufs[1]), OK);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  /* A buffer only serves its roles, at offset 0 and length 0. */
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 1, NULL, bufs[0], 0, 0), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, bufs[0], 0, 4), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, bufs[0], 0, 0), OK);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 1, NULL, bufs[1], 0, 0), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutputFromMemory(e, 0, NULL, bufs[2], 0, 0), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  ANeuralNetworksExecution_free(e);
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[2], host_out), OK);
  float out[N];
  assert_int_equal(pread(out_fd, out, sizeof(out), 0), (ssize_t)sizeof(out));
  check_sum(out);
  /* A device-to-device copy, then read back. */
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[2], bufs[0]), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[0], host_a), OK);
  assert_int_equal(pread(a_fd, out, sizeof(out), 0), (ssize_t)sizeof(out));
  check_sum(out);
  for (int i = 0; i < 3; ++i) ANeuralNetworksMemory_free(bufs[i]);
  ANeuralNetworksMemory_free(host_a);
  ANeuralNetworksMemory_free(host_b);
  ANeuralNetworksMemory_free(host_out);
  close(a_fd);
  close(b_fd);
  close(out_fd);
}

/* NNAPI: a memory from a descriptor need not be outlived by the descriptor,
 * nor by the compilations of its roles (those must outlive the descriptor
 * only): with the descriptor, compilation and model freed, a copy between
 * two such memories still works (it read the freed compilation), and a new
 * compilation does not take over the old one's roles. */
static void test_memory_outlives_its_compilation(void **state) {
  (void)state;
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = compile(m, false);
  ANeuralNetworksMemory *bufs[2] = {NULL, NULL}, *host = NULL;
  for (int i = 0; i < 2; ++i) {
    ANeuralNetworksMemoryDesc *desc = NULL;
    assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
    assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, c, 0, 1.f), OK);
    assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), OK);
    assert_int_equal(ANeuralNetworksMemory_createFromDesc(desc, &bufs[i]), OK);
    ANeuralNetworksMemoryDesc_free(desc);
  }
  int fd = memfd_with(A, sizeof(A));
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, fd, 0, &host), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(host, bufs[0]), OK);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[0], bufs[1]), OK);
  float zeros[N] = {0}, back[N];
  assert_int_equal(pwrite(fd, zeros, sizeof(zeros), 0), (ssize_t)sizeof(zeros));
  assert_int_equal(ANeuralNetworksMemory_copy(bufs[1], host), OK);
  assert_int_equal(pread(fd, back, sizeof(back), 0), (ssize_t)sizeof(back));
  assert_memory_equal(back, A, sizeof(A));
  /* Another compilation: the memories are none of its inputs. */
  ANeuralNetworksModel *m2 = add_model();
  ANeuralNetworksCompilation *c2 = compile(m2, false);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c2, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, bufs[0], 0, 0), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c2);
  ANeuralNetworksModel_free(m2);
  for (int i = 0; i < 2; ++i) ANeuralNetworksMemory_free(bufs[i]);
  ANeuralNetworksMemory_free(host);
  close(fd);
}

/* Timeouts too long to end: the deadline saturates (now + UINT64_MAX
 * wrapped into the past, MISSED_DEADLINE_PERSISTENT). */
static void test_longest_timeouts(void **state) {
  (void)state;
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = NULL;
  const ANeuralNetworksDevice *d = device();
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, &d, 1, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_setTimeout(c, UINT64_MAX), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), OK);
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(c, out);
  assert_int_equal(ANeuralNetworksExecution_setTimeout(e, UINT64_MAX), OK);
  assert_int_equal(ANeuralNetworksExecution_setMeasureTiming(e, true), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  /* Not started with dependencies: the fenced durations are the plain ones. */
  uint64_t plain[2], fenced[2];
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE + i, &plain[i]), OK);
    assert_int_equal(ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE + i, &fenced[i]), OK);
    assert_true(plain[i] != UINT64_MAX);
    assert_int_equal(fenced[i], plain[i]);
  }
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* NNAPI: an argument's length is its value's raw size unless padding is
 * enabled (then it may be longer). */
static void test_argument_length_is_raw_size(void **state) {
  fixture *f = *state;
  float a[2 * N] = {1, 2, 3, 4}, out[2 * N] = {0};
  for (int padded = 0; padded < 2; ++padded) {
    ANeuralNetworksExecution *e = NULL;
    assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
    if (padded) assert_int_equal(ANeuralNetworksExecution_enableInputAndOutputPadding(e, true), OK);
    int want = padded ? OK : ANEURALNETWORKS_BAD_DATA;
    assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, a, sizeof(a)), want);
    assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), want);
    ANeuralNetworksExecution_free(e);
  }
}

static int mapping_count(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  int lines = 0;
  for (int c; (c = fgetc(maps)) != EOF;) lines += c == '\n';
  fclose(maps);
  return lines;
}

/* A memory freed leaves the bursts that mapped it: 64 fresh memories used
 * by one burst and freed leave no mappings behind (they stayed until the
 * burst was freed). */
static void test_burst_forgets_freed_memory(void **state) {
  fixture *f = *state;
  ANeuralNetworksBurst *burst = NULL;
  assert_int_equal(ANeuralNetworksBurst_create(f->compilation, &burst), OK);
  int before = 0;
  for (int round = 0; round < 65; ++round) {
    if (round == 1) before = mapping_count(); /* after the first round's lasting ones */
    int fd = memfd_with(A, sizeof(A));
    ANeuralNetworksMemory *mem = NULL;
    assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, fd, 0, &mem), OK);
    close(fd);
    float out[N] = {0};
    ANeuralNetworksExecution *e = NULL;
    assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
    assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, mem, 0, sizeof(A)), OK);
    assert_int_equal(ANeuralNetworksExecution_setInput(e, 1, NULL, B, sizeof(B)), OK);
    assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
    assert_int_equal(ANeuralNetworksExecution_burstCompute(e, burst), OK);
    check_sum(out);
    ANeuralNetworksExecution_free(e);
    ANeuralNetworksMemory_free(mem);
  }
  assert_true(mapping_count() <= before + 4);
  ANeuralNetworksBurst_free(burst);
}

/* finish validates the model (the NNAPI runtime does): an ADD reading an
 * operand nothing writes is BAD_DATA there, and the model stays unusable. */
static void test_finish_validates(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  const ANeuralNetworksOperandType *types[4] = {&tensor_type, &tensor_type, &scalar_type, &tensor_type};
  for (int i = 0; i < 4; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, types[i]), OK);
  int32_t none = ANEURALNETWORKS_FUSED_NONE;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, sizeof(none)), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), ANEURALNETWORKS_BAD_DATA);
  /* NNAPI: after a failed finish, changing or finishing the model is BAD_STATE. */
  assert_int_equal(ANeuralNetworksModel_finish(m), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &none, sizeof(none)), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_create(m, &c), ANEURALNETWORKS_BAD_STATE);
  ANeuralNetworksModel_free(m);
}

/* NNAPI: a tensor that takes a constant is fully specified. A value for a
 * tensor of unknown size (0 bytes, the size it would need) is BAD_DATA at
 * the call, from a buffer or a memory, and the model stays usable. An OEM
 * scalar of 0 bytes is the model's first copied value: nothing is copied
 * (UBSan checks the copies). */
static void test_zero_byte_value(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  const ANeuralNetworksOperandType open = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){0}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &open), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &open), OK);
  static const float unused = 0.f;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &unused, 0), ANEURALNETWORKS_BAD_DATA);
  int fd = memfd_with(NULL, 16);
  ANeuralNetworksMemory *mem = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(16, PROT_READ, fd, 0, &mem), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromMemory(m, 0, mem, 0, 0), ANEURALNETWORKS_BAD_DATA);
  /* Operand 0 has no value: it may be the model's input. */
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_RELU, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksMemory_free(mem);
  close(fd);
  const ANeuralNetworksOperandType oem_scalar = {10000 /* OEM_SCALAR */, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &oem_scalar), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 1, &unused, 0), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, 10000 /* OEM_OPERATION */, 2, (uint32_t[]){0, 1}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksModel_free(m);
}

/* NNAPI: a builder call refused with BAD_DATA leaves the model as it was;
 * only a failed finish makes it invalid (every refusal did). */
static void test_refused_call_keeps_the_model(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  const ANeuralNetworksOperandType bad[] = {
      {ANEURALNETWORKS_TENSOR_FLOAT32, 0, (const uint32_t[]){N}, 0.f, 0}, /* dimensions for rank 0 */
      {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){N}, 0.5f, 0}, /* a scale on a float */
      {ANEURALNETWORKS_INT32, 0, NULL, 0.f, 3},                            /* a zero point on a scalar */
      {ANEURALNETWORKS_TENSOR_FLOAT32, 3, (const uint32_t[]){65536, 65536, 2}, 0.f, 0}, /* 32 GiB */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i)
    assert_int_equal(ANeuralNetworksModel_addOperand(m, &bad[i]), ANEURALNETWORKS_BAD_DATA);
  /* A quantized bias keeps its scale; unknown dimensions do not count. */
  const ANeuralNetworksOperandType bias = {ANEURALNETWORKS_TENSOR_INT32, 1, (const uint32_t[]){N}, 0.25f, 0};
  const ANeuralNetworksOperandType open = {ANEURALNETWORKS_TENSOR_FLOAT32, 3, (const uint32_t[]){65536, 0, 16383}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &bias), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &open), OK);
  /* Per-channel scales need their channel dimension known. */
  const ANeuralNetworksOperandType open_filter = {ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, 4,
                                                  (const uint32_t[]){0, 3, 3, 2}, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &open_filter), OK);
  const ANeuralNetworksSymmPerChannelQuantParams no_channels = {0, 0, (const float[]){1.f}};
  assert_int_equal(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m, 2, &no_channels), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  m = add_model_unfinished(NULL, 0);
  /* addOperation checks the operation's signature, as the runtime does: an
   * ADD without its activation, or with a tensor for it. */
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 2, (uint32_t[]){0, 1}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 0}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_DATA);
  int32_t none = ANEURALNETWORKS_FUSED_NONE;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 2, &none, 2), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 9, &none, sizeof(none)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){2}, 1, (uint32_t[]){3}),
                   ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, false);
  float out[N];
  ANeuralNetworksExecution *e = execution_with_inputs(c, out);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* A finished model of one operation of one input, input and output of type t. */
static ANeuralNetworksModel *unary_model(ANeuralNetworksOperationType operation, const ANeuralNetworksOperandType *t) {
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, t), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, t), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, operation, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  return m;
}

/* A model of one RELU, input and output of type t, compiled. */
static ANeuralNetworksCompilation *relu_compilation(const ANeuralNetworksOperandType *t, ANeuralNetworksModel **model) {
  *model = unary_model(ANEURALNETWORKS_RELU, t);
  return compile(*model, false);
}

/* A memory from a descriptor with one role: input or output 0 of c. */
static ANeuralNetworksMemory *role_memory(ANeuralNetworksCompilation *c, bool is_input, uint32_t rank,
                                          const uint32_t *dims) {
  ANeuralNetworksMemoryDesc *desc = NULL;
  ANeuralNetworksMemory *mem = NULL;
  assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
  if (is_input) assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, c, 0, 1.f), OK);
  else assert_int_equal(ANeuralNetworksMemoryDesc_addOutputRole(desc, c, 0, 1.f), OK);
  if (rank) assert_int_equal(ANeuralNetworksMemoryDesc_setDimensions(desc, rank, dims), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_finish(desc), OK);
  assert_int_equal(ANeuralNetworksMemory_createFromDesc(desc, &mem), OK);
  ANeuralNetworksMemoryDesc_free(desc);
  return mem;
}

static ANeuralNetworksMemory *input_memory(ANeuralNetworksCompilation *c, uint32_t rank, const uint32_t *dims) {
  return role_memory(c, true, rank, dims);
}

/* A CONV_2D whose every input is a model input, the filter per channel
 * with these two scales (input 1); inputs 3-6 are INT32 scalars. */
static ANeuralNetworksCompilation *channel_conv(const float *scales, ANeuralNetworksModel **model) {
  const ANeuralNetworksOperandType io = {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 4, (const uint32_t[]){1, 4, 4, 2}, 1.f, 0};
  const ANeuralNetworksOperandType filter = {ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, 4, (const uint32_t[]){2, 3, 3, 2}, 0.f, 0};
  const ANeuralNetworksOperandType bias = {ANEURALNETWORKS_TENSOR_INT32, 1, (const uint32_t[]){2}, 0.f, 0};
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &io), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &filter), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &bias), OK);
  for (int i = 0; i < 4; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &io), OK);
  const ANeuralNetworksSymmPerChannelQuantParams channels = {0, 2, scales};
  assert_int_equal(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m, 1, &channels), OK);
  const uint32_t in[7] = {0, 1, 2, 3, 4, 5, 6}, out[1] = {7};
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_CONV_2D, 7, in, 1, out), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 7, in, 1, out), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  *model = m;
  return compile(m, false);
}

/* NNAPI memory rules on what values mean: the roles of a descriptor, and
 * the two ends of a copy between such memories, share type, quantization
 * and per-channel scales; a scalar's memory has no dimensions; a type given
 * with a memory agrees with its dimensions. A shared memory may be made
 * PROT_NONE (a use it does not allow fails later). */
static void test_memory_metadata(void **state) {
  (void)state;
  ANeuralNetworksOperandType q = {ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1, (const uint32_t[]){N}, 1.f, 0};
  ANeuralNetworksModel *m1, *m2;
  ANeuralNetworksCompilation *c1 = relu_compilation(&q, &m1);
  q.scale = 0.5f;
  ANeuralNetworksCompilation *c2 = relu_compilation(&q, &m2);
  ANeuralNetworksMemory *a = input_memory(c1, 0, NULL), *b = input_memory(c2, 0, NULL);
  int fd = memfd_with((const uint8_t[N]){1, 2, 3, 4}, N);
  ANeuralNetworksMemory *host = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(N, PROT_READ, fd, 0, &host), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(host, a), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(a, b), ANEURALNETWORKS_BAD_DATA); /* scales 1 and 0.5 */
  ANeuralNetworksMemory *none = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(N, PROT_NONE, fd, 0, &none), OK);
  ANeuralNetworksMemory_free(none);
  /* A type's dimensions against the memory's: [N + 1] for a memory of [N]. */
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c1, &e), OK);
  q.scale = 1.f;
  q.dimensions = (const uint32_t[]){N + 1};
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, &q, a, 0, 0), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksMemory_free(a);
  ANeuralNetworksMemory_free(b);
  ANeuralNetworksMemory_free(host);
  close(fd);
  ANeuralNetworksCompilation_free(c1);
  ANeuralNetworksCompilation_free(c2);
  ANeuralNetworksModel_free(m1);
  ANeuralNetworksModel_free(m2);
  /* Per-channel scales are part of a role's type; scalar roles take no dimensions. */
  ANeuralNetworksCompilation *k1 = channel_conv((const float[]){1.f, 1.f}, &m1);
  ANeuralNetworksCompilation *k2 = channel_conv((const float[]){0.5f, 0.5f}, &m2);
  ANeuralNetworksMemoryDesc *desc = NULL;
  assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, k1, 1, 1.f), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, k2, 1, 1.f), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksMemoryDesc_free(desc);
  assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, k1, 3, 1.f), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_setDimensions(desc, 1, (const uint32_t[]){2}), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksMemoryDesc_free(desc);
  assert_int_equal(ANeuralNetworksMemoryDesc_create(&desc), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_setDimensions(desc, 1, (const uint32_t[]){2}), OK);
  assert_int_equal(ANeuralNetworksMemoryDesc_addInputRole(desc, k1, 3, 1.f), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksMemoryDesc_free(desc);
  ANeuralNetworksCompilation_free(k1);
  ANeuralNetworksCompilation_free(k2);
  ANeuralNetworksModel_free(m1);
  ANeuralNetworksModel_free(m2);
}

/* NNAPI sets no rank limit: a model of rank 9 finishes; its operation is
 * unsupported here, so the compilation fails. */
static void test_rank_9_model(void **state) {
  (void)state;
  const uint32_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, N};
  const ANeuralNetworksOperandType t = {ANEURALNETWORKS_TENSOR_FLOAT32, 9, dims, 0.f, 0};
  ANeuralNetworksModel *m = unary_model(ANEURALNETWORKS_ABS, &t);
  const ANeuralNetworksDevice *d = device();
  bool supported = true;
  assert_int_equal(ANeuralNetworksModel_getSupportedOperationsForDevices(m, &d, 1, &supported), OK);
  assert_false(supported);
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(ANeuralNetworksCompilation_createForDevices(m, &d, 1, &c), OK);
  assert_int_equal(ANeuralNetworksCompilation_finish(c), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* Small rules: a tensor of unknown rank takes no constant (its size is
 * unknown), and descriptor 0 is no sync fence. */
static void test_unknown_rank_constant_and_fence_zero(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  const ANeuralNetworksOperandType unknown_rank = {ANEURALNETWORKS_TENSOR_FLOAT32, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &unknown_rank), OK);
  const float value = 1.f;
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 0, &value, sizeof(value)), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksEvent *event = NULL;
  assert_int_equal(ANeuralNetworksEvent_createFromSyncFenceFd(0, &event), ANEURALNETWORKS_BAD_DATA);
  assert_null(event);
}

/* vknn locates values by 32-bit offsets and lengths: a value at an offset
 * beyond 4 GiB of a memory (sparse here), or an argument of more than
 * 4 GiB (padding allows a length above the value's), is refused at the
 * call, not cut to 32 bits (the computation read the memory's first bytes). */
static void test_locations_within_4gib(void **state) {
  fixture *f = *state;
  const size_t beyond = (size_t)1 << 32;
  int fd = memfd_with(NULL, beyond + sizeof(A));
  assert_int_equal(pwrite(fd, A, sizeof(A), (off_t)beyond), (ssize_t)sizeof(A));
  ANeuralNetworksMemory *mem = NULL;
  assert_int_equal(ANeuralNetworksMemory_createFromFd(beyond + sizeof(A), PROT_READ | PROT_WRITE, fd, 0, &mem), OK);
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInputFromMemory(e, 0, NULL, mem, beyond, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setOutputFromMemory(e, 0, NULL, mem, beyond, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  assert_int_equal(ANeuralNetworksExecution_create(f->compilation, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_enableInputAndOutputPadding(e, true), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, beyond + sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValueFromMemory(m, 0, mem, beyond, sizeof(A)), ANEURALNETWORKS_BAD_DATA);
  const ANeuralNetworksOperandType oem_scalar = {10000 /* OEM_SCALAR */, 0, NULL, 0.f, 0};
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &oem_scalar), OK);
  assert_int_equal(ANeuralNetworksModel_setOperandValue(m, 1, A, beyond), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksModel_free(m);
  ANeuralNetworksMemory_free(mem);
  close(fd);
}

/* NNAPI: a fenced computation's event is backed by a sync fence, and gives
 * it (a descriptor the client closes) after its execution is freed too; a
 * later computation may depend on it then. */
static void test_fenced_event_outlives_execution(void **state) {
  fixture *f = *state;
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  ANeuralNetworksEvent *ev = NULL, *next = NULL;
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, NULL, 0, 0, &ev), OK);
  ANeuralNetworksExecution_free(e);
  check_sum(out);
  int fence = -1;
  assert_int_equal(ANeuralNetworksEvent_getSyncFenceFd(ev, &fence), OK);
  assert_true(fence >= 0);
  close(fence);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  memset(out, 0, sizeof(out));
  e = execution_with_inputs(f->compilation, out);
  const ANeuralNetworksEvent *deps[1] = {ev};
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, deps, 1, 0, &next), OK);
  assert_int_equal(ANeuralNetworksEvent_wait(next), OK);
  check_sum(out);
  ANeuralNetworksEvent_free(next);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksEvent_free(ev);
}

/* A model of one RELU whose output has unknown dimensions, compiled for the device. */
static ANeuralNetworksCompilation *open_relu_compilation(ANeuralNetworksModel **model) {
  const ANeuralNetworksOperandType open = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){0}, 0.f, 0};
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &open), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_RELU, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 1, (uint32_t[]){0}, 1, (uint32_t[]){1}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  *model = m;
  return compile(m, true);
}

/* An output of unknown dimensions in the model, known from its memory's
 * descriptor: a fenced computation takes it, and reports those dimensions
 * (they were reported as rank 0, a scalar's). */
static void test_fenced_shape_from_descriptor(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  ANeuralNetworksCompilation *c = open_relu_compilation(&m);
  ANeuralNetworksMemory *mem = role_memory(c, false, 1, (const uint32_t[]){N}), *host = NULL;
  ANeuralNetworksExecution *e = NULL;
  ANeuralNetworksEvent *ev = NULL;
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutputFromMemory(e, 0, NULL, mem, 0, 0), OK);
  assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, NULL, 0, 0, &ev), OK);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  uint32_t rank = 0, dims[1] = {0};
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandRank(e, 0, &rank), OK);
  assert_int_equal(rank, 1);
  assert_int_equal(ANeuralNetworksExecution_getOutputOperandDimensions(e, 0, dims), OK);
  assert_int_equal(dims[0], N);
  ANeuralNetworksEvent_free(ev);
  ANeuralNetworksExecution_free(e);
  int fd = memfd_with(NULL, sizeof(A));
  assert_int_equal(ANeuralNetworksMemory_createFromFd(sizeof(A), PROT_READ | PROT_WRITE, fd, 0, &host), OK);
  assert_int_equal(ANeuralNetworksMemory_copy(mem, host), OK);
  float out[N];
  assert_int_equal(pread(fd, out, sizeof(out), 0), (ssize_t)sizeof(out));
  assert_memory_equal(out, A, sizeof(A)); /* RELU of positive values */
  ANeuralNetworksMemory_free(host);
  ANeuralNetworksMemory_free(mem);
  close(fd);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* NNAPI: the type given with an argument is a valid type: no dimensions
 * for a scalar, and its known bytes within uint32 (as addOperand's), also
 * with a memory from a descriptor, whose length is not checked. */
static void test_argument_type_is_valid(void **state) {
  (void)state;
  ANeuralNetworksModel *m = NULL;
  assert_int_equal(ANeuralNetworksModel_create(&m), OK);
  for (int i = 0; i < 2; ++i) assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &scalar_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperand(m, &tensor_type), OK);
  assert_int_equal(ANeuralNetworksModel_addOperation(m, ANEURALNETWORKS_ADD, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_identifyInputsAndOutputs(m, 3, (uint32_t[]){0, 1, 2}, 1, (uint32_t[]){3}), OK);
  assert_int_equal(ANeuralNetworksModel_finish(m), OK);
  ANeuralNetworksCompilation *c = compile(m, false);
  ANeuralNetworksExecution *e = NULL;
  float out[N];
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  const int32_t none = ANEURALNETWORKS_FUSED_NONE;
  const ANeuralNetworksOperandType scalar_with_dims = {ANEURALNETWORKS_INT32, 1, (const uint32_t[]){1}, 0.f, 0};
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 2, &scalar_with_dims, &none, sizeof(none)), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 2, &scalar_type, &none, sizeof(none)), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(ANeuralNetworksExecution_setInput(e, 1, NULL, B, sizeof(B)), OK);
  assert_int_equal(ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  /* 2^31 floats (8 GiB) for an output of unknown size in a descriptor's memory. */
  c = open_relu_compilation(&m);
  ANeuralNetworksMemory *mem = role_memory(c, false, 0, NULL);
  assert_int_equal(ANeuralNetworksExecution_create(c, &e), OK);
  const ANeuralNetworksOperandType huge = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, (const uint32_t[]){1u << 31}, 0.f, 0};
  assert_int_equal(ANeuralNetworksExecution_setOutputFromMemory(e, 0, &huge, mem, 0, 0), ANEURALNETWORKS_BAD_DATA);
  ANeuralNetworksExecution_free(e);
  ANeuralNetworksMemory_free(mem);
  ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
}

/* ---- feature level 5 and the Support Library table ----------------------------- */

static void test_reusable_execution(void **state) {
  fixture *f = *state;
  float out[N] = {0};
  ANeuralNetworksExecution *e = execution_with_inputs(f->compilation, out);
  assert_int_equal(ANeuralNetworksExecution_enableInputAndOutputPadding(e, true), ANEURALNETWORKS_BAD_STATE);
  assert_int_equal(ANeuralNetworksExecution_setReusable(e, true), OK);
  for (int i = 0; i < 3; ++i) {
    memset(out, 0, sizeof(out));
    assert_int_equal(ANeuralNetworksExecution_compute(e), OK);
    check_sum(out);
  }
  ANeuralNetworksEvent *ev = NULL;
  assert_int_equal(ANeuralNetworksExecution_startCompute(e, &ev), OK);
  assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
  ANeuralNetworksEvent_free(ev);
  /* Again with dependencies (none), twice: a completed reusable execution
   * starts over on every path. */
  for (int i = 0; i < 2; ++i) {
    memset(out, 0, sizeof(out));
    assert_int_equal(ANeuralNetworksExecution_startComputeWithDependencies(e, NULL, 0, 0, &ev), OK);
    assert_int_equal(ANeuralNetworksEvent_wait(ev), OK);
    check_sum(out);
    ANeuralNetworksEvent_free(ev);
  }
  ANeuralNetworksExecution_free(e);
  uint32_t value = 0;
  assert_int_equal(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(f->compilation, 0, &value), OK);
  assert_true(value >= 1 && (value & (value - 1)) == 0);
  assert_int_equal(ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(f->compilation, 0, &value), OK);
  assert_int_equal(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(f->compilation, 1, &value),
                   ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(NULL, 0, &value),
                   ANEURALNETWORKS_UNEXPECTED_NULL);
}

/* Counts an extension's operand types, checking each against the header. */
static void count_extension_operand_type(SL_ANeuralNetworksExtensionOperandTypeInformation info, void *context) {
  assert_int_equal(info.byteSize, 8);
  assert_int_equal(info.isTensor, info.type == VKNN_EXAMPLE_TENSOR_QUANT64_ASYMM);
  ++*(int *)context;
}

static void count_operand(SL_ANeuralNetworksOperandPerformanceInfo info, void *context) {
  assert_true(info.performanceInfo.execTime > 0.f);
  ++*(int *)context;
}

static void test_sl_table(void **state) {
  (void)state;
  NnApiSLDriverImpl *impl = ANeuralNetworks_getSLDriverImpl();
  assert_non_null(impl);
  assert_int_equal(impl->implFeatureLevel, ANEURALNETWORKS_FEATURE_LEVEL_5);
  const NnApiSLDriverImplFL5 *t = (const NnApiSLDriverImplFL5 *)impl;
  /* Every member after the base is a function pointer, and every one is filled. */
  const size_t count = (sizeof(*t) - sizeof(t->base)) / sizeof(void (*)(void));
  void (*const *fns)(void) = (void (*const *)(void))(const void *)((const char *)t + sizeof(t->base));
  for (size_t i = 0; i < count; ++i) assert_non_null(fns[i]);
  assert_int_equal(count, 78); /* the members of NnApiSLDriverImplFL5 */
  /* Through the table: a model, a compilation, an execution. */
  uint32_t devices = 0;
  assert_int_equal(t->ANeuralNetworks_getDeviceCount(&devices), OK);
  ANeuralNetworksDevice *d = NULL;
  assert_int_equal(t->ANeuralNetworks_getDevice(0, &d), OK);
  ANeuralNetworksModel *m = add_model();
  ANeuralNetworksCompilation *c = NULL;
  assert_int_equal(t->ANeuralNetworksCompilation_createForDevices(m, (const ANeuralNetworksDevice *const *)&d, 1, &c), OK);
  int fds[2] = {memfd_create("model-cache", MFD_CLOEXEC), memfd_create("data-cache", MFD_CLOEXEC)};
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {7};
  assert_int_equal(t->SL_ANeuralNetworksCompilation_setCachingFromFds(c, &fds[0], 2, &fds[1], 1, token), ANEURALNETWORKS_BAD_DATA);
  assert_int_equal(t->SL_ANeuralNetworksCompilation_setCachingFromFds(c, &fds[0], 1, &fds[1], 1, token), OK);
  assert_int_equal(t->ANeuralNetworksCompilation_finish(c), OK);
  assert_true(lseek(fds[0], 0, SEEK_END) > 0); /* the cache was written */
  float out[N] = {0};
  ANeuralNetworksExecution *e = NULL;
  assert_int_equal(t->ANeuralNetworksExecution_create(c, &e), OK);
  assert_int_equal(t->ANeuralNetworksExecution_setInput(e, 0, NULL, A, sizeof(A)), OK);
  assert_int_equal(t->ANeuralNetworksExecution_setInput(e, 1, NULL, B, sizeof(B)), OK);
  assert_int_equal(t->ANeuralNetworksExecution_setOutput(e, 0, NULL, out, sizeof(out)), OK);
  assert_int_equal(t->ANeuralNetworksExecution_compute(e), OK);
  check_sum(out);
  t->ANeuralNetworksExecution_free(e);
  t->ANeuralNetworksCompilation_free(c);
  ANeuralNetworksModel_free(m);
  close(fds[0]);
  close(fds[1]);
  /* The SL_ device queries. */
  uint32_t model_files = 0, data_files = 0, extensions = 9;
  assert_int_equal(t->SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(d, &model_files, &data_files), OK);
  assert_int_equal(model_files, 1);
  assert_int_equal(data_files, 1);
  SL_ANeuralNetworksPerformanceInfo info;
  assert_int_equal(t->SL_ANeuralNetworksDevice_getPerformanceInfo(d, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE, &info), OK);
  assert_true(info.execTime > 0.f);
  assert_int_equal(t->SL_ANeuralNetworksDevice_getPerformanceInfo(d, 9, &info), ANEURALNETWORKS_BAD_DATA);
  int operands = 0;
  assert_int_equal(t->SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(d, &operands, count_operand), OK);
  assert_true(operands > 0);
  assert_int_equal(t->SL_ANeuralNetworksDevice_getVendorExtensionCount(d, &extensions), OK);
  assert_int_equal(extensions, 2);
  const char *name = NULL;
  assert_int_equal(t->SL_ANeuralNetworksDevice_getVendorExtensionName(d, 0, &name), OK);
  assert_string_equal(name, VKNN_FIBONACCI_EXTENSION_NAME);
  assert_int_equal(t->SL_ANeuralNetworksDevice_getVendorExtensionName(d, 2, &name), ANEURALNETWORKS_BAD_DATA);
  int operand_types = 0;
  assert_int_equal(t->SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(
                       d, 0, &operand_types, count_extension_operand_type), OK);
  assert_int_equal(operand_types, 2);
  assert_int_equal(t->SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(NULL, &model_files, &data_files),
                   ANEURALNETWORKS_UNEXPECTED_NULL);
  assert_int_equal(t->ANeuralNetworks_getRuntimeFeatureLevel(), ANEURALNETWORKS_FEATURE_LEVEL_5);
}

static void test_no_validation_messages(void **state) {
  (void)state;
  assert_int_equal(vknn_device_get_validation_message_count(vknn_ndk_device(device())), 0);
}

int main(void) {
  /* The library's cache key goes to a fresh folder, not the user's. */
  char xdg[] = "/tmp/vknn-ndk-xdg-XXXXXX";
  if (mkdtemp(xdg) == NULL || setenv("XDG_CACHE_HOME", xdg, 1) != 0 || unsetenv("VKNN_CACHE_KEY_FILE") != 0) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),
      cmocka_unit_test(test_model_null_arguments),
      cmocka_unit_test(test_model_operand_checks),
      cmocka_unit_test(test_model_io_checks),
      cmocka_unit_test(test_model_frozen_after_finish),
      cmocka_unit_test(test_model_references_and_extensions),
      cmocka_unit_test(test_model_extension_types),
      cmocka_unit_test(test_model_small_values_copied_large_referenced),
      cmocka_unit_test(test_model_operations_sorted),
      cmocka_unit_test(test_supported_operations),
      cmocka_unit_test(test_compilation_rules),
      cmocka_unit_test(test_compilation_caching),
      cmocka_unit_test(test_caching_path_too_long),
      cmocka_unit_test(test_caching_across_processes),
      cmocka_unit_test_setup_teardown(test_execution_argument_checks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execution_used_once, setup, teardown),
      cmocka_unit_test(test_execution_timing_needs_device),
      cmocka_unit_test_setup_teardown(test_argument_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execution_async, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execution_fenced, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failed_dependency_fails_dependents, setup, teardown),
      cmocka_unit_test_setup_teardown(test_event_waiter_and_free, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execution_burst, setup, teardown),
      cmocka_unit_test(test_execution_dynamic_output),
      cmocka_unit_test_setup_teardown(test_memory_from_fd, setup, teardown),
      cmocka_unit_test(test_memory_constant),
      cmocka_unit_test_setup_teardown(test_memory_desc_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_device_buffers, setup, teardown),
      cmocka_unit_test(test_memory_outlives_its_compilation),
      cmocka_unit_test(test_supported_in_added_order),
      cmocka_unit_test(test_longest_timeouts),
      cmocka_unit_test_setup_teardown(test_argument_length_is_raw_size, setup, teardown),
      cmocka_unit_test_setup_teardown(test_burst_forgets_freed_memory, setup, teardown),
      cmocka_unit_test(test_unknown_rank_constant_and_fence_zero),
      cmocka_unit_test(test_finish_validates),
      cmocka_unit_test(test_refused_call_keeps_the_model),
      cmocka_unit_test(test_zero_byte_value),
      cmocka_unit_test(test_memory_metadata),
      cmocka_unit_test(test_rank_9_model),
      cmocka_unit_test_setup_teardown(test_locations_within_4gib, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fenced_event_outlives_execution, setup, teardown),
      cmocka_unit_test(test_fenced_shape_from_descriptor),
      cmocka_unit_test(test_argument_type_is_valid),
      cmocka_unit_test_setup_teardown(test_reusable_execution, setup, teardown),
      cmocka_unit_test(test_sl_table),
      cmocka_unit_test(test_no_validation_messages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
