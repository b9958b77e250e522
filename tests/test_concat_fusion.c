/* A CONCATENATION whose inputs convolutions write (temporaries only it
 * reads) costs no copy: each convolution stores its result into its slice
 * of the CONCATENATION's output (src/compiler/fusion.c,
 * vknn_fuse_concat_slices; shaders/output_slice.glsl). Each case builds the
 * model twice: as it is, and with every branch's result also a model output
 * (so the branches write tensors of their own and the CONCATENATION copies
 * them). Both run the same kernels, so the concatenated bytes must be equal;
 * the first has no copy dispatches and no barrier between its writers. Covered: the matrix kernel (vec4 and
 * scalar stores), the depthwise kernel (vec4 stores, and scalar ones at an
 * offset that is no multiple of 4), a 3x3 convolution, an axis other than
 * the last, the one-row split-K kernel (FULLY_CONNECTED), the direct
 * kernel (a quantized FULLY_CONNECTED of one row), Winograd convolutions
 * (their output transform stores the slice) and the shared-memory tiles of
 * gemm_shared_64x64 (vec4 and scalar stores). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define PADDING_SAME 1 /* NNAPI's implicit padding scheme */
#define MAX_BRANCHES (MODEL_RUNNER_MAX_ARGS - 1)

typedef runner_fixture fixture;

typedef enum branch_kind { CONV_1X1, CONV_3X3, DEPTHWISE_3X3, FULLY_CONNECTED } branch_kind;

typedef struct branch {
  branch_kind kind;
  uint32_t out_c; /* output channels (units); depthwise: the input's */
} branch;

typedef struct concat_case {
  int32_t type;
  uint32_t in_dims[4], rank; /* the input: NHWC image, or [batch, size] */
  const branch *branches;
  uint32_t branch_count;
  uint32_t axis;
} concat_case;

static void set_encoding(model_builder *b, const concat_case *c, uint32_t t, float scale) {
  if (c->type == Q8) b->operands[t].scale = scale, b->operands[t].zero_point = 100;
}

static uint32_t elem_bytes(const concat_case *c) { return c->type == Q8 ? 1u : 4u; }

/* A branch's output dimensions (SAME padding, stride 1). */
static void branch_dims(const concat_case *c, const branch *br, uint32_t dims[4]) {
  memcpy(dims, c->in_dims, sizeof(c->in_dims));
  dims[c->rank - 1] = br->out_c;
}

/* Constant filter (weights) and bias of a branch, in deterministic values. */
static void add_weights(model_builder *b, const concat_case *c, const branch *br, uint32_t *inputs) {
  uint32_t in_c = c->in_dims[c->rank - 1], k = br->kind == CONV_3X3 || br->kind == DEPTHWISE_3X3 ? 3 : 1;
  uint32_t filter_dims[4] = {br->out_c, k, k, in_c}, count = br->out_c * k * k * in_c;
  if (br->kind == DEPTHWISE_3X3) filter_dims[0] = 1, filter_dims[3] = br->out_c, count = 9 * br->out_c;
  uint32_t fc_dims[2] = {br->out_c, in_c}, bias_dims[1] = {br->out_c};
  bool fc = br->kind == FULLY_CONNECTED, q = c->type == Q8;
  uint8_t *bytes = malloc(count * 4 + br->out_c * 4);
  assert_non_null(bytes);
  for (uint32_t i = 0; i < count; ++i) {
    if (q) bytes[i] = (uint8_t)((i * 29 + br->out_c) % 251);
    else ((float *)bytes)[i] = (float)((i * 7 + br->out_c) % 23) / 16.f - 0.6f;
  }
  inputs[1] = mb_const_tensor(b, c->type, fc ? fc_dims : filter_dims, fc ? 2 : 4, bytes, count * elem_bytes(c));
  set_encoding(b, c, inputs[1], 0.02f);
  for (uint32_t i = 0; i < br->out_c; ++i) {
    if (q) ((int32_t *)bytes)[i] = (int32_t)(i * 97 % 400) - 150;
    else ((float *)bytes)[i] = (float)(i % 5) / 4.f - 0.5f;
  }
  inputs[2] = mb_const_tensor(b, q ? VKNN_OPERAND_TENSOR_INT32 : F32, bias_dims, 1, bytes, br->out_c * 4);
  if (q) b->operands[inputs[2]].scale = 0.5f * 0.02f;
  free(bytes);
}

/* Appends one branch reading x; returns its output operand (a temporary, or
 * also a model output when exposed). */
static uint32_t add_branch(model_builder *b, const concat_case *c, const branch *br, uint32_t x,
                           bool exposed) {
  uint32_t inputs[12] = {x}, n = 3, dims[4];
  add_weights(b, c, br, inputs);
  if (br->kind != FULLY_CONNECTED) {
    inputs[n++] = mb_const_i32(b, PADDING_SAME);
    inputs[n++] = mb_const_i32(b, 1);
    inputs[n++] = mb_const_i32(b, 1);
    if (br->kind == DEPTHWISE_3X3) inputs[n++] = mb_const_i32(b, 1);
  }
  inputs[n++] = mb_const_i32(b, VKNN_FUSED_RELU6);
  branch_dims(c, br, dims);
  uint32_t y = exposed ? mb_output(b, c->type, dims, c->rank) : mb_temporary(b, c->type, dims, c->rank);
  set_encoding(b, c, y, 0.75f);
  static const int32_t types[] = {[CONV_1X1] = VKNN_OPERATION_CONV_2D, [CONV_3X3] = VKNN_OPERATION_CONV_2D,
                                  [DEPTHWISE_3X3] = VKNN_OPERATION_DEPTHWISE_CONV_2D,
                                  [FULLY_CONNECTED] = VKNN_OPERATION_FULLY_CONNECTED};
  mb_operation(b, types[br->kind], inputs, n, &y, 1);
  return y;
}

/* The CONCATENATION's output dimensions. */
static void concat_dims(const concat_case *c, uint32_t dims[4]) {
  branch_dims(c, &c->branches[0], dims);
  dims[c->axis] = 0;
  for (uint32_t i = 0; i < c->branch_count; ++i) {
    uint32_t d[4];
    branch_dims(c, &c->branches[i], d);
    dims[c->axis] += d[c->axis];
  }
}

static uint32_t element_count(const uint32_t *dims, uint32_t rank) {
  uint32_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

/* The model (model_runner_prepare finishes it): the branches, then their
 * CONCATENATION (model output 0); exposed: each branch's result is a model
 * output too (after it). */
static void build(model_builder *b, const concat_case *c, bool exposed) {
  mb_init(b);
  uint32_t x = mb_input(b, c->type, c->in_dims, c->rank), dims[4];
  set_encoding(b, c, x, 0.5f);
  concat_dims(c, dims);
  uint32_t y = mb_output(b, c->type, dims, c->rank), inputs[9];
  set_encoding(b, c, y, 0.75f);
  for (uint32_t i = 0; i < c->branch_count; ++i) inputs[i] = add_branch(b, c, &c->branches[i], x, exposed);
  inputs[c->branch_count] = mb_const_i32(b, (int32_t)c->axis);
  mb_operation(b, VKNN_OPERATION_CONCATENATION, inputs, c->branch_count + 1, &y, 1);
}

/* Runs the model on a fixed input; the CONCATENATION's bytes go to out;
 * returns the dispatch count. */
/* Where set, the kernel every branch's dispatch must run. */
static const char *branch_kernel = NULL;

static vknn_prepared_model_info run(fixture *f, const concat_case *c, bool exposed, uint8_t *out,
                                   uint32_t out_bytes) {
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  assert_true(c->branch_count <= MAX_BRANCHES);
  build(b, c, exposed);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  uint32_t in_count = element_count(c->in_dims, c->rank);
  uint8_t *input = malloc(in_count * 4);
  assert_non_null(input);
  for (uint32_t i = 0; i < in_count; ++i) {
    if (c->type == Q8) input[i] = (uint8_t)(i * 53 % 256);
    else ((float *)input)[i] = (float)(i % 17) / 4.f - 2.f;
  }
  /* Output 0 the CONCATENATION's; the exposed branches' after it. */
  buffer_arg inputs[1] = {{input, NULL, in_count * elem_bytes(c)}};
  buffer_arg outputs[MODEL_RUNNER_MAX_ARGS] = {{NULL, out, out_bytes}};
  uint8_t *branch_out[MAX_BRANCHES] = {0};
  for (uint32_t i = 0; exposed && i < c->branch_count; ++i) {
    uint32_t dims[4];
    branch_dims(c, &c->branches[i], dims);
    outputs[1 + i].bytes = element_count(dims, c->rank) * elem_bytes(c);
    outputs[1 + i].result = branch_out[i] = malloc(outputs[1 + i].bytes);
    assert_non_null(branch_out[i]);
  }
  assert_int_equal(model_runner_execute(pm, b, inputs, outputs, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  for (uint32_t i = 0; branch_kernel != NULL && i < c->branch_count; ++i)
    assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, i), branch_kernel);
  vknn_prepared_model_release(pm);
  for (uint32_t i = 0; i < MAX_BRANCHES; ++i) free(branch_out[i]);
  free(input), free(b);
  return info;
}

/* extra: dispatches of the branches beyond one each (a Winograd
 * convolution's transforms). */
static void check_dispatches(fixture *f, const concat_case *c, uint32_t extra) {
  uint32_t dims[4];
  concat_dims(c, dims);
  uint32_t out_bytes = element_count(dims, c->rank) * elem_bytes(c);
  uint8_t *in_place = malloc(out_bytes), *copied = malloc(out_bytes);
  assert_true(in_place && copied);
  vknn_prepared_model_info fused = run(f, c, false, in_place, out_bytes);
  assert_int_equal(fused.dispatch_count, c->branch_count + extra);
  /* One dispatch a branch, each reading only the model input and writing a
   * disjoint slice: no barrier between them. */
  if (extra == 0) assert_int_equal(fused.barrier_count, 0);
  assert_int_equal(run(f, c, true, copied, out_bytes).dispatch_count, 2 * c->branch_count + extra);
  assert_memory_equal(in_place, copied, out_bytes);
  free(in_place), free(copied);
}

static void check(fixture *f, const concat_case *c) { check_dispatches(f, c, 0); }

/* Channels: the matrix kernel with vec4 stores (8 channels at offset 0),
 * the depthwise kernel with vec4 stores (offset 8), a 3x3 convolution
 * (offset 12). */
static void test_channels_vec4(void **state) {
  static const branch branches[] = {{CONV_1X1, 8}, {DEPTHWISE_3X3, 4}, {CONV_3X3, 4}};
  static const concat_case c = {F32, {1, 5, 6, 4}, 4, branches, 3, 3};
  check(*state, &c);
}

/* Channels at offsets that are no multiple of 4: 3 channels from the matrix
 * kernel, then the depthwise kernel at offset 3 (scalar stores). */
static void test_channels_unaligned(void **state) {
  static const branch branches[] = {{CONV_1X1, 3}, {DEPTHWISE_3X3, 4}, {CONV_1X1, 5}};
  static const concat_case c = {F32, {1, 5, 6, 4}, 4, branches, 3, 3};
  check(*state, &c);
}

/* Along the height: each branch's whole image is one block of rows. */
static void test_height_axis(void **state) {
  static const branch branches[] = {{CONV_1X1, 8}, {CONV_3X3, 8}};
  static const concat_case c = {F32, {2, 5, 6, 4}, 4, branches, 2, 1};
  check(*state, &c);
}

/* Quantized, the matrix kernel's integer variant. */
static void test_quantized_channels(void **state) {
  static const branch branches[] = {{CONV_1X1, 4}, {CONV_3X3, 8}};
  static const concat_case c = {Q8, {1, 4, 5, 4}, 4, branches, 2, 3};
  check(*state, &c);
}

/* FULLY_CONNECTED of one row: split-K (float, 64 inputs) and the direct
 * kernel (quantized). */
static void test_fully_connected(void **state) {
  static const branch branches[] = {{FULLY_CONNECTED, 8}, {FULLY_CONNECTED, 5}};
  static const concat_case f32 = {F32, {1, 64}, 2, branches, 2, 1};
  static const concat_case q8 = {Q8, {1, 16}, 2, branches, 2, 1};
  check(*state, &f32);
  check(*state, &q8);
}

/* Replaces the fixture's device by one opened with the options (logging to
 * the fixture, validation on); returns the one it replaced. */
static vknn_device *use_device(fixture *f, vknn_device_options options) {
  vknn_device *usual = f->device;
  options.log_callback = test_log_callback;
  options.log_user_data = &f->log;
  options.enable_validation = true;
  assert_int_equal(vknn_device_open(&options, &f->device), VKNN_STATUS_NONE);
  return usual;
}

/* Closes the device use_device opened (no validation message allowed) and
 * puts the usual one back. */
static void restore_device(fixture *f, vknn_device *usual) {
  assert_int_equal(vknn_device_get_validation_message_count(f->device), 0);
  vknn_device_close(f->device);
  f->device = usual;
}

/* Winograd convolutions (forced, both tiles) writing slices: 8 channels at
 * offset 0 (vec4 stores), 5 at offset 11 (scalar stores); and along the
 * height. Each adds two transforms. */
static void test_winograd(void **state) {
  static const branch channels[] = {{CONV_3X3, 8}, {CONV_1X1, 3}, {CONV_3X3, 5}};
  static const concat_case by_channel = {F32, {1, 5, 6, 4}, 4, channels, 3, 3};
  static const branch rows[] = {{CONV_3X3, 8}, {CONV_3X3, 8}};
  static const concat_case by_row = {F32, {2, 5, 6, 4}, 4, rows, 2, 1};
  fixture *f = *state;
  static const vknn_winograd tiles[2] = {VKNN_WINOGRAD_F2X3, VKNN_WINOGRAD_F4X3};
  for (int i = 0; i < 2; ++i) {
    vknn_device *usual = use_device(f, (vknn_device_options){.winograd = tiles[i]});
    check_dispatches(f, &by_channel, 2 * 2);
    check_dispatches(f, &by_row, 2 * 2);
    restore_device(f, usual);
  }
}

/* 1x1 convolutions on gemm_shared_64x64 (the option ON) writing slices: 4
 * channels at offset 0 and 8 at offset 4 (vec4 stores), 3 at offset 12
 * (scalar stores); and along the height. */
static void test_shared_tiles(void **state) {
  static const branch channels[] = {{CONV_1X1, 4}, {CONV_1X1, 8}, {CONV_1X1, 3}};
  static const concat_case by_channel = {F32, {1, 5, 6, 4}, 4, channels, 3, 3};
  static const branch rows[] = {{CONV_1X1, 8}, {CONV_1X1, 8}};
  static const concat_case by_row = {F32, {2, 9, 9, 4}, 4, rows, 2, 1};
  fixture *f = *state;
  vknn_device *usual = use_device(f, (vknn_device_options){.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON});
  branch_kernel = "gemm_shared_64x64_f32";
  check(f, &by_channel);
  check(f, &by_row);
  branch_kernel = NULL;
  restore_device(f, usual);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_channels_vec4),
      cmocka_unit_test(test_channels_unaligned),
      cmocka_unit_test(test_height_axis),
      cmocka_unit_test(test_quantized_channels),
      cmocka_unit_test(test_fully_connected),
      cmocka_unit_test(test_winograd),
      cmocka_unit_test(test_shared_tiles),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
