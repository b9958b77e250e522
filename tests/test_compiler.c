/* What prepare builds: fusion, barriers only where needed, arena sharing,
 * record once (executions record nothing and create no pipelines), timing. */
#include <math.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "compiler/compiler.h"
#include "ops/conv2d.h"
#include "support/model_builder.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32

static const uint32_t image[4] = {1, 4, 4, 2};

typedef struct fixture {
  vknn_device *device;
  model_builder b;
} fixture;

static int open_device(void **state, bool profile) {
  fixture *f = calloc(1, sizeof(*f));
  /* The device's rules only: the tests count pipelines and name kernels. */
  vknn_device_options options = {.enable_validation = true, .profile_dispatches = profile,
                                 .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  if (f == NULL || vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  mb_init(&f->b);
  *state = f;
  return 0;
}

static int setup(void **state) { return open_device(state, false); }
static int setup_profiled(void **state) { return open_device(state, true); }

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

/* out = ADD(a, b) with no activation. */
static void add(model_builder *b, uint32_t a, uint32_t c, uint32_t out) {
  const uint32_t in[3] = {a, c, mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, VKNN_OPERATION_ADD, in, 3, &out, 1);
}

static float weights[2 * 3 * 3 * 2], bias[2] = {0.5f, -0.5f};

/* The expected result, computed here on the CPU for the test. */
static float reference(const float *x, const float *y, int oy, int ox, int oc) {
  float acc = bias[oc];
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx)
      for (int ic = 0; ic < 2; ++ic) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy >= 0 && iy < 4 && ix >= 0 && ix < 4)
          acc += x[(iy * 4 + ix) * 2 + ic] * weights[((oc * 3 + ky) * 3 + kx) * 2 + ic];
      }
  acc = acc < 0.f ? 0.f : acc > 6.f ? 6.f : acc;
  return acc + y[(oy * 4 + ox) * 2 + oc];
}

/* t = CONV_2D(x) 3x3 SAME, 2 -> 2 channels; out = RELU6(t) + y. */
static const vknn_model *conv_relu_add(model_builder *b) {
  for (int i = 0; i < 36; ++i) weights[i] = (float)(i % 5) - 2.f;
  const uint32_t filter_dims[4] = {2, 3, 3, 2}, bias_dims[1] = {2};
  uint32_t x = mb_input(b, F32, image, 4), y = mb_input(b, F32, image, 4);
  uint32_t filter = mb_const_tensor(b, F32, filter_dims, 4, weights, sizeof(weights));
  uint32_t bias_op = mb_const_tensor(b, F32, bias_dims, 1, bias, sizeof(bias));
  uint32_t t = mb_temporary(b, F32, image, 4), r = mb_temporary(b, F32, image, 4);
  uint32_t out = mb_output(b, F32, image, 4);
  const uint32_t conv_in[7] = {x, filter, bias_op, mb_const_i32(b, 1), mb_const_i32(b, 1),
                               mb_const_i32(b, 1), mb_const_i32(b, VKNN_FUSED_NONE)};
  mb_operation(b, VKNN_OPERATION_CONV_2D, conv_in, 7, &t, 1);
  mb_operation(b, VKNN_OPERATION_RELU6, &t, 1, &r, 1);
  add(b, r, y, out);
  return mb_finish(b);
}

static vknn_prepared_model *prepare(fixture *f, const vknn_model *model) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

static vknn_prepared_model_info info_of(vknn_prepared_model *pm) {
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  return info;
}

/* Executes a model whose inputs and outputs are all [1,4,4,2] float32;
 * inputs hold (i % 7) - 3, the first output is copied to first_output. */
static vknn_status execute_io(vknn_prepared_model *pm, uint32_t inputs, uint32_t outputs,
                              vknn_timing *timing, float *first_output) {
  const uint32_t bytes = 32 * sizeof(float);
  shared_memory pool;
  assert_int_equal(shared_memory_create(&pool, (inputs + outputs) * bytes), 0);
  for (uint32_t i = 0; i < inputs * 32; ++i) ((float *)pool.data)[i] = (float)(i % 7) - 3.f;
  vknn_request_argument args[8];
  for (uint32_t i = 0; i < inputs + outputs; ++i)
    args[i] = (vknn_request_argument){.location = {0, i * bytes, bytes}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool.memory}};
  vknn_request request = {args, inputs, args + inputs, outputs, pools, 1};
  vknn_status s = vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_YES, NULL, NULL,
                                              NULL, 0, timing);
  if (first_output != NULL) memcpy(first_output, pool.data + inputs * bytes, bytes);
  shared_memory_destroy(&pool);
  return s;
}

static void test_activation_fused_into_conv(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, conv_relu_add(&f->b));
  vknn_prepared_model_info info = info_of(pm);
  /* CONV(+RELU6, +ADD of the second input: a fused residual). */
  assert_int_equal(info.dispatch_count, 1);
  /* conv2d_gemm_f32_residual, or its _texel_ twin where the device reads texels. */
  const char *kernel = vknn_prepared_model_get_dispatch_kernel(pm, 0);
  assert_int_equal(strncmp(kernel, "conv2d_gemm_f32", 15), 0);
  assert_non_null(strstr(kernel, "_residual"));
  assert_null(vknn_prepared_model_get_dispatch_kernel(pm, 1));
  float inputs[64], out[32];
  for (int i = 0; i < 64; ++i) inputs[i] = (float)(i % 7) - 3.f;
  vknn_timing timing;
  assert_int_equal(execute_io(pm, 2, 1, &timing, out), VKNN_STATUS_NONE);
  for (int oy = 0; oy < 4; ++oy)
    for (int ox = 0; ox < 4; ++ox)
      for (int oc = 0; oc < 2; ++oc)
        assert_float_equal(out[(oy * 4 + ox) * 2 + oc], reference(inputs, inputs + 32, oy, ox, oc), 1e-5);
  vknn_prepared_model_release(pm);
}

static void test_execution_records_nothing(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, conv_relu_add(&f->b));
  vknn_device_statistics before, after;
  vknn_timing timing;
  /* The first execution on a memory may import it and record the graph
   * bound to it (zero copy); the following ones only submit. */
  assert_int_equal(execute_io(pm, 2, 1, &timing, NULL), VKNN_STATUS_NONE);
  assert_int_equal(vknn_device_get_statistics(f->device, &before), VKNN_STATUS_NONE);
  for (int i = 0; i < 5; ++i) assert_int_equal(execute_io(pm, 2, 1, &timing, NULL), VKNN_STATUS_NONE);
  assert_int_equal(vknn_device_get_statistics(f->device, &after), VKNN_STATUS_NONE);
  assert_int_equal(after.command_buffers_recorded, before.command_buffers_recorded);
  assert_int_equal(after.pipelines_created, before.pipelines_created);
  assert_int_equal(after.memory_allocations, before.memory_allocations);
  assert_int_equal(after.submissions, before.submissions + 5);
  vknn_prepared_model_release(pm);
}

/* Pipelines are shared: preparing the same model again creates none. */
static void test_pipelines_shared_across_models(void **state) {
  fixture *f = *state;
  const vknn_model *model = conv_relu_add(&f->b);
  vknn_prepared_model *first = prepare(f, model);
  vknn_device_statistics before, after;
  vknn_device_get_statistics(f->device, &before);
  vknn_prepared_model *second = prepare(f, model);
  vknn_device_get_statistics(f->device, &after);
  assert_int_equal(after.pipelines_created, before.pipelines_created);
  vknn_prepared_model_release(first);
  vknn_prepared_model_release(second);
}

static void test_barriers_only_between_dependent_dispatches(void **state) {
  fixture *f = *state;
  model_builder *b = &f->b;
  uint32_t a = mb_input(b, F32, image, 4), c = mb_input(b, F32, image, 4);
  uint32_t o1 = mb_output(b, F32, image, 4), o2 = mb_output(b, F32, image, 4);
  uint32_t t = mb_temporary(b, F32, image, 4), o3 = mb_output(b, F32, image, 4);
  add(b, a, c, o1); /* independent of the next one */
  add(b, c, c, o2);
  add(b, a, a, t);  /* t is read right after: one barrier */
  add(b, t, c, o3);
  vknn_prepared_model *pm = prepare(f, mb_finish(b));
  vknn_prepared_model_info info = info_of(pm);
  assert_int_equal(info.dispatch_count, 4);
  assert_int_equal(info.barrier_count, 1);
  vknn_prepared_model_release(pm);
}

/* x -> t1 -> t2 -> t3 -> out: t1 and t3 never live at once and share bytes. */
static void test_arena_shares_bytes(void **state) {
  fixture *f = *state;
  model_builder *b = &f->b;
  uint32_t x = mb_input(b, F32, image, 4);
  uint32_t t1 = mb_temporary(b, F32, image, 4), t2 = mb_temporary(b, F32, image, 4);
  uint32_t t3 = mb_temporary(b, F32, image, 4), out = mb_output(b, F32, image, 4);
  add(b, x, x, t1);
  add(b, t1, x, t2);
  add(b, t2, x, t3);
  add(b, t3, x, out);
  vknn_prepared_model *pm = prepare(f, mb_finish(b));
  vknn_prepared_model_info info = info_of(pm);
  assert_int_equal(info.arena_bytes, 2 * 32 * sizeof(float));
  assert_int_equal(info.barrier_count, 3);
  vknn_prepared_model_release(pm);
}

static uint32_t reshape(model_builder *b, uint32_t in, const int32_t *shape, uint32_t rank,
                        bool output) {
  uint32_t dims[4], shape_dims[1] = {rank};
  for (uint32_t d = 0; d < rank; ++d) dims[d] = (uint32_t)shape[d];
  uint32_t out = output ? mb_output(b, F32, dims, rank) : mb_temporary(b, F32, dims, rank);
  const uint32_t ins[2] = {in, mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, shape_dims, 1, shape,
                                               rank * sizeof(int32_t))};
  mb_operation(b, VKNN_OPERATION_RESHAPE, ins, 2, &out, 1);
  return out;
}

/* Reshapes to temporaries are views: no dispatch, whether they view a model
 * input or an intermediate tensor, alone or in a row. A reshape to a model
 * output is a copy. */
static void test_reshape_is_a_view(void **state) {
  fixture *f = *state;
  model_builder *b = &f->b;
  const int32_t flat[1] = {32}, nhwc[4] = {1, 4, 4, 2};
  uint32_t x = mb_input(b, F32, image, 4), y = mb_input(b, F32, image, 4);
  uint32_t out = mb_output(b, F32, image, 4);
  uint32_t x_view = reshape(b, reshape(b, x, flat, 1, false), nhwc, 4, false);
  uint32_t twice = mb_temporary(b, F32, image, 4);
  add(b, x_view, x_view, twice);
  uint32_t twice_flat = reshape(b, twice, flat, 1, false);
  add(b, reshape(b, twice_flat, nhwc, 4, false), y, out);
  reshape(b, twice_flat, nhwc, 4, true);
  vknn_prepared_model *pm = prepare(f, mb_finish(b));
  assert_int_equal(info_of(pm).dispatch_count, 3); /* ADD, ADD, the copy to the second output */
  float out_values[32];
  vknn_timing timing;
  for (int run = 0; run < 3; ++run) { /* staged, then in place */
    assert_int_equal(execute_io(pm, 2, 2, &timing, out_values), VKNN_STATUS_NONE);
    for (int i = 0; i < 32; ++i) {
      float v = (float)(i % 7) - 3.f, w = (float)((i + 32) % 7) - 3.f;
      assert_float_equal(out_values[i], 2.f * v + w, 0.f);
    }
  }
  vknn_prepared_model_release(pm);
}

/* out = op(in) for a unary operation (ELU takes alpha 0.5). */
static void unary(model_builder *b, int32_t type, uint32_t in, uint32_t out) {
  float alpha = 0.5f;
  const uint32_t inputs[2] = {in, mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &alpha, sizeof(alpha))};
  mb_operation(b, type, inputs, type == VKNN_OPERATION_ELU ? 2 : 1, &out, 1);
}

/* Runs a chain of unary operations after in0 + in1 (or after in0 alone
 * when start_with_add is false); returns the dispatches it took and writes
 * the output for the standard inputs. */
static uint32_t run_chain(fixture *f, bool start_with_add, const int32_t *types, uint32_t count,
                          float *out) {
  model_builder *b = &f->b;
  uint32_t x = mb_input(b, F32, image, 4), y = start_with_add ? mb_input(b, F32, image, 4) : x;
  uint32_t t = x;
  if (start_with_add) add(b, x, y, t = mb_temporary(b, F32, image, 4));
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t next = i + 1 == count ? mb_output(b, F32, image, 4) : mb_temporary(b, F32, image, 4);
    unary(b, types[i], t, next);
    t = next;
  }
  vknn_prepared_model *pm = prepare(f, mb_finish(b));
  vknn_timing timing;
  assert_int_equal(execute_io(pm, start_with_add ? 2 : 1, 1, &timing, out), VKNN_STATUS_NONE);
  uint32_t dispatches = info_of(pm).dispatch_count;
  vknn_prepared_model_release(pm);
  return dispatches;
}

static float input_value(int i) { return (float)(i % 7) - 3.f; }

/* ADD then EXP, NEG, ABS run in one dispatch; SQRT, a fourth step, in a
 * second one. */
static void test_elementwise_chain_fused(void **state) {
  static const int32_t chain[4] = {VKNN_OPERATION_EXP, VKNN_OPERATION_NEG, VKNN_OPERATION_ABS,
                                   VKNN_OPERATION_SQRT};
  float out[32];
  assert_int_equal(run_chain(*state, true, chain, 4, out), 2);
  for (int i = 0; i < 32; ++i)
    assert_float_equal(out[i], sqrtf(fabsf(-expf(input_value(i) + input_value(32 + i)))), 1e-5);
}

/* A unary kernel hosts a chain too, ELU's alpha included. */
static void test_unary_chain_fused(void **state) {
  static const int32_t chain[2] = {VKNN_OPERATION_TANH, VKNN_OPERATION_ELU};
  float out[32];
  assert_int_equal(run_chain(*state, false, chain, 2, out), 1);
  for (int i = 0; i < 32; ++i) {
    float t = tanhf(input_value(i));
    assert_float_equal(out[i], t < 0.f ? 0.5f * (expf(t) - 1.f) : t, 1e-5);
  }
}

/* A result two operations read is written, not chained. */
static void test_shared_result_not_chained(void **state) {
  fixture *f = *state;
  model_builder *b = &f->b;
  uint32_t x = mb_input(b, F32, image, 4), t = mb_temporary(b, F32, image, 4);
  add(b, x, x, t);
  unary(b, VKNN_OPERATION_EXP, t, mb_output(b, F32, image, 4));
  unary(b, VKNN_OPERATION_NEG, t, mb_output(b, F32, image, 4));
  vknn_prepared_model *pm = prepare(f, mb_finish(b));
  assert_int_equal(info_of(pm).dispatch_count, 3);
  vknn_prepared_model_release(pm);
}

static void test_device_time_measured(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, conv_relu_add(&f->b));
  vknn_timing timing;
  assert_int_equal(execute_io(pm, 2, 1, &timing, NULL), VKNN_STATUS_NONE);
  assert_true(timing.time_on_device != UINT64_MAX); /* lavapipe has timestamps */
  assert_true(timing.time_in_driver >= timing.time_on_device);
  double ms[2];
  /* Not profiled: no per-dispatch times. */
  assert_int_equal(vknn_prepared_model_get_dispatch_times(pm, ms, 2), VKNN_STATUS_GENERAL_FAILURE);
  vknn_prepared_model_release(pm);
}

/* Eleven ADDs: more dispatches than one segment holds (VKNN_SEGMENT_DISPATCHES
 * is 8), so a deadline submits them one segment at a time. out = 12 x. */
static const vknn_model *add_chain(model_builder *b) {
  uint32_t x = mb_input(b, F32, image, 4), t = x;
  for (int i = 0; i < 11; ++i) {
    uint32_t next = i == 10 ? mb_output(b, F32, image, 4) : mb_temporary(b, F32, image, 4);
    add(b, t, x, next);
    t = next;
  }
  return mb_finish(b);
}

static vknn_status execute_with_deadline(vknn_prepared_model *pm, vknn_measure_timing measure,
                                         vknn_timing *timing, float *out) {
  shared_memory pool;
  assert_int_equal(shared_memory_create(&pool, 64 * sizeof(float)), 0);
  for (int i = 0; i < 32; ++i) ((float *)pool.data)[i] = input_value(i);
  vknn_request_argument args[2] = {{.location = {0, 0, 128}}, {.location = {0, 128, 128}}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool.memory}};
  vknn_request request = {args, 1, args + 1, 1, pools, 1};
  struct timespec now;
  clock_gettime(CLOCK_BOOTTIME, &now);
  vknn_deadline deadline = {true, (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec +
                                      10000000000ull};
  vknn_status s = vknn_prepared_model_execute(pm, &request, measure, &deadline, NULL, NULL, 0, timing);
  memcpy(out, pool.data + 128, 128);
  shared_memory_destroy(&pool);
  return s;
}

/* The begin and end timestamps run only when an execution measures its
 * time, around every segment when a deadline sends them one by one; an
 * untimed execution reports no time and submits the same segments. */
static void test_device_time_with_deadline(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, add_chain(&f->b));
  assert_int_equal(info_of(pm).dispatch_count, 11);
  vknn_timing timing;
  float out[32];
  vknn_device_statistics before, after;
  for (int measured = 0; measured < 2; ++measured) {
    assert_int_equal(vknn_device_get_statistics(f->device, &before), VKNN_STATUS_NONE);
    vknn_measure_timing measure = measured ? VKNN_MEASURE_TIMING_YES : VKNN_MEASURE_TIMING_NO;
    assert_int_equal(execute_with_deadline(pm, measure, &timing, out), VKNN_STATUS_NONE);
    assert_int_equal(vknn_device_get_statistics(f->device, &after), VKNN_STATUS_NONE);
    assert_int_equal(after.submissions, before.submissions + 2);
    assert_int_equal(after.command_buffers_recorded, before.command_buffers_recorded);
    if (measured) {
      assert_true(timing.time_on_device != UINT64_MAX && timing.time_in_driver >= timing.time_on_device);
    } else {
      assert_true(timing.time_on_device == UINT64_MAX && timing.time_in_driver == UINT64_MAX);
    }
    for (int i = 0; i < 32; ++i) assert_float_equal(out[i], 12.f * input_value(i), 0.f);
  }
  vknn_prepared_model_release(pm);
}

static void test_dispatch_times_when_profiled(void **state) {
  fixture *f = *state;
  vknn_prepared_model *pm = prepare(f, add_chain(&f->b));
  uint32_t n = info_of(pm).dispatch_count;
  double ms[16];
  assert_true(n >= 2 && n <= 16);
  for (uint32_t i = 0; i < n; ++i) ms[i] = -1;
  assert_true(info_of(pm).profiled);
  assert_int_equal(vknn_prepared_model_get_dispatch_times(pm, ms, n), VKNN_STATUS_GENERAL_FAILURE);
  vknn_timing timing;
  assert_int_equal(execute_io(pm, 1, 1, &timing, NULL), VKNN_STATUS_NONE);
  assert_int_equal(vknn_prepared_model_get_dispatch_times(pm, ms, n - 1), VKNN_STATUS_INVALID_ARGUMENT);
  assert_int_equal(vknn_prepared_model_get_dispatch_times(pm, ms, n), VKNN_STATUS_NONE);
  for (uint32_t i = 0; i < n; ++i) assert_true(ms[i] >= 0);
  vknn_prepared_model_release(pm);
}

/* A small layer's workgroup shrinks to the device's subgroup and no
 * further: 8 lanes where unknown (lavapipe's width), a 32-lane subgroup
 * keeps 32; a large layer keeps 64. */
static void test_workgroup_floor_is_the_subgroup(void **state) {
  (void)state;
  vknn_conv_geometry small = {.batches = 1, .in_h = 2, .in_w = 2, .in_c = 16, .out_h = 2, .out_w = 2,
                              .out_c = 16, .k_w = 1, .k_h = 1, .stride_x = 1, .stride_y = 1,
                              .dilation_x = 1, .dilation_y = 1, .cin_per_group = 16,
                              .cout_per_group = 16};
  vknn_conv_geometry large = small;
  large.in_h = large.in_w = large.out_h = large.out_w = 32;
  vknn_kernel_target warp = {.subgroup_size = 32}, simd8 = {.subgroup_size = 8};
  assert_int_equal(vknn_conv_select(NULL, &small, F32).group, 8);
  assert_int_equal(vknn_conv_select(&simd8, &small, F32).group, 8);
  assert_int_equal(vknn_conv_select(&warp, &small, F32).group, 32);
  assert_int_equal(vknn_conv_select(&warp, &large, F32).group, 64);
  assert_int_equal(vknn_conv_select(&warp, &small, F32).kernel, VKNN_CONV_KERNEL_GEMM);
}

/* MobileNet v1's 1x1 layer at 14x14 with 512 channels. */
static const vknn_conv_geometry pointwise_14x14x512 = {
    .batches = 1, .in_h = 14, .in_w = 14, .in_c = 512, .out_h = 14, .out_w = 14, .out_c = 512,
    .k_w = 1, .k_h = 1, .stride_x = 1, .stride_y = 1, .dilation_x = 1, .dilation_y = 1,
    .cin_per_group = 512, .cout_per_group = 512};

/* A 3x3 stride-1 depthwise layer of size x size x channels, SAME padding. */
static vknn_conv_geometry depthwise_3x3(uint32_t size, uint32_t channels) {
  return (vknn_conv_geometry){.batches = 1, .in_h = size, .in_w = size, .in_c = channels,
                              .out_h = size, .out_w = size, .out_c = channels, .k_w = 3, .k_h = 3,
                              .stride_x = 1, .stride_y = 1, .dilation_x = 1, .dilation_y = 1,
                              .pad_left = 1, .pad_top = 1, .cin_per_group = 1,
                              .cout_per_group = 1, .depthwise = true};
}

/* Where a subgroup shares the filter loads (lavapipe), a matrix product of
 * a multiple of 16 output channels takes blocks of 2 pixels x 16 channels;
 * other channel counts, grouped convolutions and devices loading the filter
 * in every lane keep 4 pixels x 8 channels. */
static void test_block_where_filter_loads_are_shared(void **state) {
  (void)state;
  vknn_conv_geometry layer = pointwise_14x14x512;
  vknn_kernel_target shared = {.subgroup_size = 8, .subgroup_filter = true};
  vknn_kernel_target own = {.subgroup_size = 8};
  vknn_conv_choice c = vknn_conv_select(&shared, &layer, F32);
  assert_int_equal(c.kernel, VKNN_CONV_KERNEL_GEMM);
  assert_int_equal(c.ch_block, 16);
  assert_int_equal(c.pix_block, 2);
  assert_int_equal(vknn_conv_select(&shared, &layer, VKNN_OPERAND_TENSOR_QUANT8_ASYMM).ch_block, 16);
  c = vknn_conv_select(&own, &layer, F32);
  assert_int_equal(c.ch_block, 8);
  assert_int_equal(c.pix_block, 4);
  vknn_conv_geometry odd = layer; /* 24 channels: no whole blocks of 16 */
  odd.out_c = odd.cout_per_group = 24;
  assert_int_equal(vknn_conv_select(&shared, &odd, F32).ch_block, 8);
  vknn_conv_geometry grouped = layer; /* 2 groups of 256 */
  grouped.cin_per_group = 256;
  grouped.cout_per_group = 256;
  c = vknn_conv_select(&shared, &grouped, F32);
  assert_int_equal(c.ch_block, 8);
  assert_int_equal(c.pix_block, 4);
}

/* The matrix product's and the depthwise kernel's workgroups leave the
 * fewest lanes idle, the largest group among equals, never below the
 * device's subgroup: 14x14's 98 blocks of 2 pixels in groups of 8 (104
 * lanes; 64 would take 128), 112x112's 6272 in groups of 64 (none idle);
 * on a device of 32-lane subgroups 98 blocks take groups of 64 (128 lanes,
 * as groups of 32 would). */
static void test_groups_leave_few_lanes_idle(void **state) {
  (void)state;
  vknn_conv_geometry layer = pointwise_14x14x512;
  vknn_kernel_target shared = {.subgroup_size = 8, .subgroup_filter = true};
  vknn_kernel_target wide_subgroups = {.subgroup_size = 32, .subgroup_filter = true};
  assert_int_equal(vknn_conv_select(&shared, &layer, F32).group, 8);
  assert_int_equal(vknn_conv_select(&wide_subgroups, &layer, F32).group, 64);
  vknn_conv_geometry large = layer;
  large.in_h = large.in_w = large.out_h = large.out_w = 112;
  assert_int_equal(vknn_conv_select(&shared, &large, F32).group, 64);
  /* 28x28 depthwise: 28 rows x 4 blocks of 8 columns = 112 items, in 7
   * groups of 16 (2 of 64 would leave 16 idle). */
  vknn_conv_geometry depthwise = depthwise_3x3(28, 256);
  vknn_conv_choice c = vknn_conv_select(&shared, &depthwise, F32);
  assert_int_equal(c.kernel, VKNN_CONV_KERNEL_DEPTHWISE);
  assert_int_equal(c.group, 16);
}

/* The matrix product splits its reduction across a workgroup only on a
 * device that says it runs many more invocations than the layer has
 * register blocks: MobileNet's 14x14 layer of 512 channels in 8 slices of
 * 16 lanes on an H200's width, none where the width is unknown (lavapipe)
 * or the layer fills the device; slices keep 16 input channels or more;
 * depthwise rows in shorter blocks by the same measure. */
static void test_kernels_by_device_width(void **state) {
  (void)state;
  vknn_conv_geometry layer = pointwise_14x14x512;
  vknn_kernel_target h200 = {.subgroup_size = 32, .parallel_invocations = 132 * 64 * 32};
  vknn_kernel_target unknown = {.subgroup_size = 32};
  vknn_conv_choice c = vknn_conv_select(&h200, &layer, F32);
  assert_int_equal(c.kernel, VKNN_CONV_KERNEL_GEMM);
  assert_int_equal(c.k_split, 8);
  assert_int_equal(c.group, 128);
  assert_true(vknn_conv_select(&unknown, &layer, F32).k_split <= 1);
  assert_true(vknn_conv_select(NULL, &layer, F32).k_split <= 1);
  vknn_conv_geometry narrow = layer; /* 48 channels: 2 slices of 24 */
  narrow.in_c = narrow.cin_per_group = 48;
  assert_int_equal(vknn_conv_select(&h200, &narrow, F32).k_split, 2);
  assert_int_equal(vknn_conv_select(&h200, &narrow, F32).group, 128);
  vknn_conv_geometry wide = layer; /* 224x224: 802816 blocks fill the device */
  wide.in_h = wide.in_w = wide.out_h = wide.out_w = 224;
  assert_true(vknn_conv_select(&h200, &wide, F32).k_split <= 1);
  vknn_conv_geometry quant = layer;
  assert_int_equal(vknn_conv_select(&h200, &quant, VKNN_OPERAND_TENSOR_QUANT8_ASYMM).k_split, 8);
  /* Depthwise rows: blocks of 8 where the width is unknown, shorter until
   * the layer's invocations cover the device's (112x112x64: 1568 rows x 16
   * channel blocks of 4 need blocks of 1). */
  vknn_conv_geometry depthwise = depthwise_3x3(112, 64);
  assert_int_equal(vknn_conv_select(&unknown, &depthwise, F32).pix_block, 8);
  assert_int_equal(vknn_conv_select(&h200, &depthwise, F32).pix_block, 1);
  depthwise.out_h = depthwise.out_w = 1024; /* 16384 rows x channel blocks, 128 blocks of 8 each */
  depthwise.in_h = depthwise.in_w = 1024;
  assert_int_equal(vknn_conv_select(&h200, &depthwise, F32).pix_block, 8);
}

/* The copy kernel (remap.comp) addresses in int32: a SLICE of a uint8
 * source of 3 x 2^30 elements (3 GiB: a valid tensor) is unsupported even
 * on a target whose bindings could hold it, where its row stride times 2
 * wrapped to INT32_MIN. */
static void test_copy_source_past_int32(void **state) {
  (void)state;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t in_dims[2] = {3, 1u << 30}, out_dims[2] = {1, 1u << 30}, two = 2;
  const int32_t begin[2] = {2, 0}, size[2] = {1, -1};
  uint32_t in = mb_input(b, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, in_dims, 2);
  b->operands[in].scale = 1.f;
  uint32_t out = mb_output(b, VKNN_OPERAND_TENSOR_QUANT8_ASYMM, out_dims, 2);
  b->operands[out].scale = 1.f;
  const uint32_t inputs[3] = {in, mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, &two, 1, begin, 8),
                              mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, &two, 1, size, 8)};
  mb_operation(b, VKNN_OPERATION_SLICE, inputs, 3, &out, 1);
  vknn_plan_target target = {.alignment = 4};
  bool supported = true;
  assert_int_equal(vknn_compile_query(NULL, mb_finish(b), &target, &supported), VKNN_STATUS_NONE);
  assert_false(supported);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workgroup_floor_is_the_subgroup),
      cmocka_unit_test(test_kernels_by_device_width),
      cmocka_unit_test(test_block_where_filter_loads_are_shared),
      cmocka_unit_test(test_groups_leave_few_lanes_idle),
      cmocka_unit_test_setup_teardown(test_activation_fused_into_conv, setup, teardown),
      cmocka_unit_test_setup_teardown(test_execution_records_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pipelines_shared_across_models, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barriers_only_between_dependent_dispatches, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arena_shares_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reshape_is_a_view, setup, teardown),
      cmocka_unit_test_setup_teardown(test_elementwise_chain_fused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unary_chain_fused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shared_result_not_chained, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_time_with_deadline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_device_time_measured, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dispatch_times_when_profiled, setup_profiled, teardown),
      cmocka_unit_test(test_copy_source_past_int32),
  };
  return cmocka_run_group_tests_name("compiler", tests, NULL, NULL);
}
