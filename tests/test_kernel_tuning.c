/* Kernel tuning (the device option kernel_tuning, src/runtime/kernel_tuning.c):
 * prepare measures a float convolution's variants and compiles it on the
 * fastest; the results match the untuned model's; a shape measured once is
 * not measured again; the options a caller forces are not tuned (and a
 * pointwise layer measures the shared-memory tiles where they are open);
 * filter loads shared across subgroups or not are measured where AUTO; a
 * device that says no width has layers tried at assumed widths; a global
 * pooling is measured as a reduction and per output where AUTO; a model
 * whose temporaries can be packed is timed packed and not where AUTO; AUTO,
 * deadlines and preferences decide when it runs; concurrent prepares share
 * the device's table; a failed allocation anywhere in the measuring ends
 * the prepare in an error or in a right answer; the choices travel in the
 * compilation cache. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "runtime/device_internal.h"
#include "util/fault_injection.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define MAX_C 32
#define MAX_SIDE 12

/* A 3x3 convolution (stride 1, SAME, RELU) of a side x side image with
 * in_c channels to out_c: its filter and bias constants made from seed;
 * pointwise: a 1x1 window instead; global_pool: an AVERAGE_POOL_2D of the
 * whole image instead (out_c = in_c). */
typedef struct conv_layer {
  uint32_t side, in_c, out_c, seed;
  bool pointwise;
  bool global_pool;
} conv_layer;

static uint32_t output_elements(const conv_layer *l) {
  return l->global_pool ? l->out_c : l->side * l->side * l->out_c;
}

static const vknn_model *build_global_pool(model_builder *b, const conv_layer *l) {
  mb_init(b);
  const uint32_t image[4] = {1, l->side, l->side, l->in_c}, result[4] = {1, 1, 1, l->out_c};
  uint32_t side = mb_const_i32(b, (int32_t)l->side), one = mb_const_i32(b, 1);
  /* Implicit padding 2 (VALID): the window is the image. */
  uint32_t in[7] = {mb_input(b, F32, image, 4), mb_const_i32(b, 2), one, one, side, side,
                    mb_const_i32(b, VKNN_FUSED_NONE)};
  uint32_t out = mb_output(b, F32, result, 4);
  mb_operation(b, VKNN_OPERATION_AVERAGE_POOL_2D, in, 7, &out, 1);
  return mb_finish(b);
}

/* The builder copies the constants: filter and bias may live on the stack. */
static const vknn_model *build(model_builder *b, const conv_layer *l) {
  if (l->global_pool) return build_global_pool(b, l);
  float filter[MAX_C * 9 * MAX_C], bias[MAX_C];
  uint32_t window = l->pointwise ? 1 : 3, taps = window * window;
  for (uint32_t i = 0; i < l->out_c * taps * l->in_c; ++i) filter[i] = (float)((i * 7 + l->seed) % 23) / 16.f - 0.7f;
  for (uint32_t i = 0; i < l->out_c; ++i) bias[i] = (float)((i + l->seed) % 5) / 4.f - 0.5f;
  mb_init(b);
  const uint32_t image[4] = {1, l->side, l->side, l->in_c}, result[4] = {1, l->side, l->side, l->out_c};
  const uint32_t filter_dims[4] = {l->out_c, window, window, l->in_c}, bias_dims[1] = {l->out_c};
  uint32_t in[7] = {mb_input(b, F32, image, 4),
                    mb_const_tensor(b, F32, filter_dims, 4, filter, l->out_c * taps * l->in_c * sizeof(float)),
                    mb_const_tensor(b, F32, bias_dims, 1, bias, l->out_c * sizeof(float)),
                    mb_const_i32(b, 1),
                    mb_const_i32(b, 1),
                    mb_const_i32(b, 1),
                    mb_const_i32(b, VKNN_FUSED_RELU)};
  uint32_t out = mb_output(b, F32, result, 4);
  mb_operation(b, VKNN_OPERATION_CONV_2D, in, 7, &out, 1);
  return mb_finish(b);
}

typedef struct fixture {
  vknn_device *device; /* the options of the test */
  vknn_device *plain;  /* tuning off */
  test_log log;
} fixture;

static int open_fixture(void **state, vknn_device_options options) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  options.log_callback = test_log_callback;
  options.log_user_data = &f->log;
  options.enable_validation = true;
  vknn_device_options plain = {.enable_validation = true, .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  return vknn_device_open(&plain, &f->plain) == VKNN_STATUS_NONE ? 0 : -1;
}

static int open_on(void **state) {
  return open_fixture(state, (vknn_device_options){.kernel_tuning = VKNN_KERNEL_TUNING_ON});
}

static int open_auto(void **state) { return open_fixture(state, (vknn_device_options){0}); }

/* Tuning on, every option it could vary forced but the shared-memory tiles. */
static vknn_device_options tiles_open_options(void) {
  return (vknn_device_options){.kernel_tuning = VKNN_KERNEL_TUNING_ON,
                               .operand_reads = VKNN_OPERAND_READS_STORAGE,
                               .winograd = VKNN_WINOGRAD_OFF,
                               .subgroup_filter = VKNN_SUBGROUP_FILTER_OFF};
}

static int open_tiles_open(void **state) { return open_fixture(state, tiles_open_options()); }

/* Tuning on, but every option it could vary forced. */
static int open_forced(void **state) {
  vknn_device_options options = tiles_open_options();
  options.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  options.global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_OFF;
  return open_fixture(state, options);
}

/* Tuning on, every option forced but global poolings as reductions. */
static int open_pool_reduction_open(void **state) {
  vknn_device_options options = tiles_open_options();
  options.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  options.global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_AUTO;
  return open_fixture(state, options);
}

/* Tuning on, every option forced, filter loads shared across subgroups where
 * the device can: a layer whose reduction splits at a tried width then
 * runs another kernel (a split reduction shares no filter loads). */
static int open_forced_shared_loads(void **state) {
  vknn_device_options options = tiles_open_options();
  options.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  options.subgroup_filter = VKNN_SUBGROUP_FILTER_ON;
  return open_fixture(state, options);
}

/* Tuning on, every option forced but shared filter loads. */
static int open_shared_loads_open(void **state) {
  vknn_device_options options = tiles_open_options();
  options.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  options.subgroup_filter = VKNN_SUBGROUP_FILTER_AUTO;
  return open_fixture(state, options);
}

/* Every option forced, the packed layout as given. */
static int open_forced_packed(void **state, vknn_packed_layout packed) {
  vknn_device_options options = tiles_open_options();
  options.gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  options.global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_OFF;
  options.packed_layout = packed;
  return open_fixture(state, options);
}

static int open_packed_open(void **state) { return open_forced_packed(state, VKNN_PACKED_LAYOUT_AUTO); }
static int open_packed_on(void **state) { return open_forced_packed(state, VKNN_PACKED_LAYOUT_ON); }
static int open_packed_off(void **state) { return open_forced_packed(state, VKNN_PACKED_LAYOUT_OFF); }

static int close_fixture(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->device) +
                      vknn_device_get_validation_message_count(f->plain);
  vknn_device_close(f->device);
  vknn_device_close(f->plain);
  free(f);
  return messages == 0 ? 0 : -1;
}

static vknn_device_statistics statistics(vknn_device *device) {
  vknn_device_statistics s;
  assert_int_equal(vknn_device_get_statistics(device, &s), VKNN_STATUS_NONE);
  return s;
}

static vknn_prepared_model *prepare(vknn_device *device, const test_log *log, const vknn_model *model,
                                    vknn_execution_preference preference, const vknn_deadline *deadline) {
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(device, model, preference, VKNN_PRIORITY_MEDIUM, deadline, &pm);
  if (s != VKNN_STATUS_NONE) fail_msg("prepare: %s (%s)", vknn_status_name(s), log->last);
  return pm;
}

/* The layer's output on the device (prepared for sustained speed). */
static void run(vknn_device *device, const test_log *log, const conv_layer *l, float *out) {
  model_builder *b = calloc(1, sizeof(*b));
  float *x = malloc(l->side * l->side * l->in_c * sizeof(float));
  assert_true(b != NULL && x != NULL);
  for (uint32_t i = 0; i < l->side * l->side * l->in_c; ++i) x[i] = (float)(i * 13 % 29) / 8.f - 1.5f;
  vknn_prepared_model *pm = prepare(device, log, build(b, l), VKNN_PREFER_SUSTAINED_SPEED, NULL);
  const buffer_arg in[1] = {{x, NULL, l->side * l->side * l->in_c * sizeof(float)}};
  buffer_arg outs[1] = {{NULL, out, output_elements(l) * sizeof(float)}};
  assert_int_equal(model_runner_execute(pm, b, in, outs, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  free(x);
  free(b);
}

/* Tuned and untuned agree within what Winograd's transforms allow (a
 * variant tuning may pick): a few units of 2^-20 of the terms' size. */
static void expect_same_results(fixture *f, const conv_layer *l) {
  static float tuned[MAX_SIDE * MAX_SIDE * MAX_C], plain[MAX_SIDE * MAX_SIDE * MAX_C];
  run(f->device, &f->log, l, tuned);
  run(f->plain, &f->log, l, plain);
  for (uint32_t i = 0; i < output_elements(l); ++i)
    if (fabsf(tuned[i] - plain[i]) > 1e-4f * (1.f + fabsf(plain[i])))
      fail_msg("element %u: tuned %g, untuned %g", i, tuned[i], plain[i]);
}

/* A layer is measured once per shape: a second layer of the same shapes
 * (other weights) takes the choice; another shape is measured. */
static void test_measures_each_shape_once(void **state) {
  fixture *f = *state;
  const conv_layer a = {10, 8, 12, 1}, same_shape = {10, 8, 12, 5}, other = {6, 4, 8, 2};
  expect_same_results(f, &a);
  vknn_device_statistics s = statistics(f->device);
  assert_int_equal(s.kernel_tunings, 1);
  assert_int_equal(s.kernel_tunings_reused, 0);
  expect_same_results(f, &same_shape);
  s = statistics(f->device);
  assert_int_equal(s.kernel_tunings, 1);
  assert_int_equal(s.kernel_tunings_reused, 1);
  expect_same_results(f, &other);
  assert_int_equal(statistics(f->device).kernel_tunings, 2);
  assert_int_equal(statistics(f->plain).kernel_tunings, 0);
}

/* The layer runs on one of its variants: the implicit matrix product or a
 * Winograd convolution, reading storage or texel buffers. */
static void test_runs_a_variant(void **state) {
  fixture *f = *state;
  const conv_layer l = {8, 8, 8, 3};
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = prepare(f->device, &f->log, build(b, &l), VKNN_PREFER_SUSTAINED_SPEED, NULL);
  const char *kernel = vknn_prepared_model_get_dispatch_kernel(pm, 0);
  assert_non_null(kernel);
  if (strncmp(kernel, "conv2d_gemm_f32", 15) != 0 && strncmp(kernel, "conv2d_winograd_input_f", 23) != 0)
    fail_msg("kernel %s", kernel);
  vknn_prepared_model_release(pm);
  free(b);
}

/* With every open option forced, the one variant left is the forced one,
 * and there is nothing to time. */
static void test_forced_options_stay(void **state) {
  fixture *f = *state;
  const conv_layer layers[2] = {{8, 8, 8, 4}, {8, 8, 8, 4, true}};
  for (int i = 0; i < 2; ++i) {
    model_builder *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    vknn_prepared_model *pm = prepare(f->device, &f->log, build(b, &layers[i]), VKNN_PREFER_SUSTAINED_SPEED, NULL);
    assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), "conv2d_gemm_f32");
    assert_int_equal(statistics(f->device).kernel_tunings, 0);
    vknn_prepared_model_release(pm);
    free(b);
  }
}

/* One dimension of the tuning table's entries: whether an entry made the
 * choice (made), setting it (make), and the kernel a layer then runs. */
typedef struct choice {
  bool (*made)(const vknn_tuning_entry *e);
  void (*make)(vknn_tuning_entry *e, bool value);
  const char *if_made, *otherwise;
} choice;

static const char *kernel_of(fixture *f, const conv_layer *l) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = prepare(f->device, &f->log, build(b, l), VKNN_PREFER_SUSTAINED_SPEED, NULL);
  static char name[64];
  snprintf(name, sizeof(name), "%s", vknn_prepared_model_get_dispatch_kernel(pm, 0));
  vknn_prepared_model_release(pm);
  free(b);
  return name;
}

/* A choice in the table that this device's options rule out (Winograd, on
 * a device opened with it OFF: a table restored from elsewhere, or edited)
 * is not taken: the layer is measured again, runs what the options allow,
 * and the new choice replaces the entry. */
static void test_closed_choice_not_taken(void **state) {
  fixture *f = *state;
  const conv_layer l = {8, 8, 8, 4};
  assert_string_equal(kernel_of(f, &l), "conv2d_gemm_f32");
  pthread_mutex_lock(&f->device->tuning.lock);
  assert_int_equal(f->device->tuning.count, 1);
  f->device->tuning.entries[0].winograd = VKNN_WINOGRAD_F4X3;
  pthread_mutex_unlock(&f->device->tuning.lock);
  f->log.errors = 0;
  assert_string_equal(kernel_of(f, &l), "conv2d_gemm_f32");
  assert_int_equal(f->log.errors, 1);
  assert_non_null(strstr(f->log.last, "not open on this device"));
  /* The choice measured instead took the entry's place: taken from then on. */
  pthread_mutex_lock(&f->device->tuning.lock);
  assert_int_equal(f->device->tuning.count, 1);
  assert_int_equal(f->device->tuning.entries[0].winograd, VKNN_WINOGRAD_OFF);
  pthread_mutex_unlock(&f->device->tuning.lock);
  assert_string_equal(kernel_of(f, &l), "conv2d_gemm_f32");
  assert_int_equal(f->log.errors, 1);
}


/* The layer measured, with the results of the untuned model; prepared
 * again, it runs the kernel of the table's one entry. Then the entry is set
 * each way by hand, so that both reach the model whatever the timing kept. */
static void expect_kernel_of_choice(fixture *f, const conv_layer *l, const choice *c) {
  expect_same_results(f, l);
  assert_int_equal(statistics(f->device).kernel_tunings, 1);
  pthread_mutex_lock(&f->device->tuning.lock);
  assert_int_equal(f->device->tuning.count, 1);
  bool kept = c->made(&f->device->tuning.entries[0]);
  pthread_mutex_unlock(&f->device->tuning.lock);
  assert_string_equal(kernel_of(f, l), kept ? c->if_made : c->otherwise);
  for (int value = 0; value < 2; ++value) {
    pthread_mutex_lock(&f->device->tuning.lock);
    c->make(&f->device->tuning.entries[0], value == 1);
    pthread_mutex_unlock(&f->device->tuning.lock);
    assert_string_equal(kernel_of(f, l), value == 1 ? c->if_made : c->otherwise);
  }
  assert_int_equal(statistics(f->device).kernel_tunings, 1);
  assert_int_equal(statistics(f->device).kernel_tunings_reused, 3);
}

static bool made_tiles(const vknn_tuning_entry *e) { return e->gemm_shared_tiles; }
static void make_tiles(vknn_tuning_entry *e, bool value) { e->gemm_shared_tiles = value; }
static bool made_shared_loads(const vknn_tuning_entry *e) { return e->subgroup_filter; }
static void make_shared_loads(vknn_tuning_entry *e, bool value) { e->subgroup_filter = value; }
static bool made_width(const vknn_tuning_entry *e) {
  assert_true(e->width <= VKNN_TUNING_WIDTHS);
  return e->width != 0;
}
static void make_width(vknn_tuning_entry *e, bool value) { e->width = value ? 1 : 0; }
static bool made_pool_reduction(const vknn_tuning_entry *e) { return e->global_pool_reduction; }
static void make_pool_reduction(vknn_tuning_entry *e, bool value) { e->global_pool_reduction = value; }

/* A pointwise layer with the shared-memory tiles left open: both kernels
 * are measured (the only open option, so two lowerings to time), the model
 * runs on the one the table kept, and its results match the untuned
 * model's. */
static void test_shared_tiles_measured(void **state) {
  fixture *f = *state;
  if (f->device->vk.timestamp_valid_bits == 0) skip(); /* nothing is measured */
  const conv_layer l = {9, 12, 16, 6, true};
  const choice tiles = {made_tiles, make_tiles, "gemm_shared_64x64_f32", "conv2d_gemm_f32"};
  expect_kernel_of_choice(f, &l, &tiles);
}

/* Where the device can share filter loads across subgroups and the option
 * leaves it open, a layer is measured both ways (16 input channels: no
 * width splits it, so those are its only two lowerings) and runs the one
 * kept. */
static void test_shared_loads_measured(void **state) {
  fixture *f = *state;
  if (f->device->vk.timestamp_valid_bits == 0 || !f->device->vk.subgroup_filter_possible) skip();
  const conv_layer l = {9, 16, 16, 10, true};
  const choice shared = {made_shared_loads, make_shared_loads, "conv2d_gemm_f32_subgroup", "conv2d_gemm_f32"};
  expect_kernel_of_choice(f, &l, &shared);
}

/* On a device that says no width (lavapipe), a layer of 32 input channels
 * is also tried at the assumed widths, where its reduction splits in two:
 * with every option forced, those are the only other lowering, so the layer
 * is measured; the model runs what the table kept (the split kernel shares
 * no filter loads), and its results match the untuned model's. */
static void test_widths_measured(void **state) {
  fixture *f = *state;
  const vknn_vk *vk = &f->device->vk;
  if (vk->timestamp_valid_bits == 0 || vk->parallel_invocations != 0 || !vk->subgroup_filter) skip();
  const conv_layer l = {9, 32, 16, 9, true};
  const choice width = {made_width, make_width, "conv2d_gemm_f32", "conv2d_gemm_f32_subgroup"};
  expect_kernel_of_choice(f, &l, &width);
}

/* A global pooling, with global poolings as reductions left open: both
 * lowerings are measured, the model runs the one the table kept, and its
 * results match the untuned model's (per output on lavapipe). */
static void test_pool_reduction_measured(void **state) {
  fixture *f = *state;
  if (f->device->vk.timestamp_valid_bits == 0) skip();
  const conv_layer l = {9, 16, 16, 0, false, true};
  const choice reduction = {made_pool_reduction, make_pool_reduction, "reduce_f32", "pool2d_f32"};
  expect_kernel_of_choice(f, &l, &reduction);
}

/* The variant the table kept for the layer is the one the model runs on: the
 * same kernels as on a device forced to that variant. */
static void test_choice_reaches_the_model(void **state) {
  fixture *f = *state;
  const conv_layer l = {12, 16, 16, 8};
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  const vknn_model *model = build(b, &l);
  vknn_prepared_model *pm = prepare(f->device, &f->log, model, VKNN_PREFER_SUSTAINED_SPEED, NULL);
  pthread_mutex_lock(&f->device->tuning.lock);
  assert_int_equal(f->device->tuning.count, 1);
  vknn_tuning_entry kept = f->device->tuning.entries[0];
  pthread_mutex_unlock(&f->device->tuning.lock);
  assert_int_equal(kept.width, 0); /* 16 input channels: no width splits the layer */
  vknn_device_options forced = {.enable_validation = true,
                                .operand_reads = kept.texel_reads ? VKNN_OPERAND_READS_TEXEL : VKNN_OPERAND_READS_STORAGE,
                                .winograd = kept.winograd,
                                .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
                                .gemm_shared_tiles = kept.gemm_shared_tiles ? VKNN_GEMM_SHARED_TILES_ON
                                                                            : VKNN_GEMM_SHARED_TILES_OFF,
                                .subgroup_filter = kept.subgroup_filter ? VKNN_SUBGROUP_FILTER_ON
                                                                        : VKNN_SUBGROUP_FILTER_OFF,
                                .global_pool_reduction = kept.global_pool_reduction
                                                             ? VKNN_GLOBAL_POOL_REDUCTION_ON
                                                             : VKNN_GLOBAL_POOL_REDUCTION_OFF};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&forced, &device), VKNN_STATUS_NONE);
  vknn_prepared_model *want = prepare(device, &f->log, model, VKNN_PREFER_SUSTAINED_SPEED, NULL);
  vknn_prepared_model_info a, w;
  assert_int_equal(vknn_prepared_model_get_info(pm, &a), VKNN_STATUS_NONE);
  assert_int_equal(vknn_prepared_model_get_info(want, &w), VKNN_STATUS_NONE);
  assert_int_equal(a.dispatch_count, w.dispatch_count);
  for (uint32_t i = 0; i < a.dispatch_count; ++i)
    assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, i),
                        vknn_prepared_model_get_dispatch_kernel(want, i));
  vknn_prepared_model_release(want);
  vknn_prepared_model_release(pm);
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
  free(b);
}

/* ON tunes whatever the preference, but never under a deadline. */
static void test_on_and_deadline(void **state) {
  fixture *f = *state;
  const conv_layer l = {6, 4, 4, 6};
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  const vknn_model *model = build(b, &l);
  vknn_deadline later = {true, test_boottime_ns() + 60ull * 1000000000ull};
  vknn_prepared_model_release(prepare(f->device, &f->log, model, VKNN_PREFER_SUSTAINED_SPEED, &later));
  vknn_device_statistics s = statistics(f->device);
  assert_int_equal(s.kernel_tunings + s.kernel_tunings_reused, 0);
  vknn_prepared_model_release(prepare(f->device, &f->log, model, VKNN_PREFER_FAST_SINGLE_ANSWER, NULL));
  s = statistics(f->device);
  bool timestamps = f->device->vk.timestamp_valid_bits != 0;
  assert_int_equal(s.kernel_tunings, timestamps ? 1 : 0);
  free(b);
}

/* AUTO: models prepared for sustained speed, on devices without measured
 * rules (lavapipe has them: none there) that have timestamps; never for
 * another preference. */
static void test_auto(void **state) {
  fixture *f = *state;
  const conv_layer l = {6, 4, 4, 6};
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  const vknn_model *model = build(b, &l);
  vknn_prepared_model_release(prepare(f->device, &f->log, model, VKNN_PREFER_FAST_SINGLE_ANSWER, NULL));
  assert_int_equal(statistics(f->device).kernel_tunings, 0);
  vknn_prepared_model_release(prepare(f->device, &f->log, model, VKNN_PREFER_SUSTAINED_SPEED, NULL));
  bool tunes = !vknn_vk_kernel_rules_measured(&f->device->vk) && f->device->vk.timestamp_valid_bits != 0;
  assert_int_equal(statistics(f->device).kernel_tunings, tunes ? 1 : 0);
  free(b);
}

/* Prepares of one shape from several threads at once: each ends with the
 * layer measured or taken from the table, and the table stays whole. */
typedef struct prepare_job {
  fixture *f;
  uint32_t seed;
  vknn_status status;
} prepare_job;

static void *prepare_thread(void *arg) {
  prepare_job *job = arg;
  model_builder *b = calloc(1, sizeof(*b));
  if (b == NULL) return NULL;
  const conv_layer l = {6, 8, 8, job->seed};
  vknn_prepared_model *pm = NULL;
  job->status = vknn_device_prepare_model(job->f->device, build(b, &l), VKNN_PREFER_SUSTAINED_SPEED,
                                          VKNN_PRIORITY_MEDIUM, NULL, &pm);
  vknn_prepared_model_release(pm);
  free(b);
  return NULL;
}

static void test_concurrent_prepares(void **state) {
  fixture *f = *state;
  enum { THREADS = 4 };
  pthread_t threads[THREADS];
  prepare_job jobs[THREADS];
  for (uint32_t i = 0; i < THREADS; ++i) {
    jobs[i] = (prepare_job){f, 10 + i, VKNN_STATUS_GENERAL_FAILURE};
    assert_int_equal(pthread_create(&threads[i], NULL, prepare_thread, &jobs[i]), 0);
  }
  for (uint32_t i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(jobs[i].status, VKNN_STATUS_NONE);
  }
  vknn_device_statistics s = statistics(f->device);
  assert_int_equal(s.kernel_tunings + s.kernel_tunings_reused, THREADS);
  assert_true(s.kernel_tunings >= 1);
}

/* What a fault walk prepares and runs: a model of one float input and one
 * float output of `elements` each, built afresh every time. */
typedef struct walk_model {
  const vknn_model *(*build)(model_builder *b);
  uint32_t elements;
} walk_model;

static const vknn_model *build_small_layer(model_builder *b) {
  const conv_layer l = {4, 4, 4, 7};
  return build(b, &l);
}

static const vknn_model *build_chain(model_builder *b);

static const walk_model kSmallLayer = {build_small_layer, 4 * 4 * 4};

/* The nth host or Vulkan allocation of a tuned prepare and execution fails,
 * for every n the run makes; the device forgets its measurements before each
 * run, so that every run measures. Each ends in an allocation error or in
 * the untuned model's results. */
static vknn_status tuned_run(fixture *f, const walk_model *m, const float *want, float *got) {
  vknn_tuning_table_destroy(&f->device->tuning);
  vknn_tuning_table_init(&f->device->tuning);
  model_builder *b = calloc(1, sizeof(*b));
  float *x = malloc(m->elements * sizeof(float));
  assert_true(b != NULL && x != NULL);
  for (uint32_t i = 0; i < m->elements; ++i) x[i] = (float)(i % 7) - 3.f;
  vknn_prepared_model *pm = NULL;
  vknn_status s = vknn_device_prepare_model(f->device, m->build(b), VKNN_PREFER_SUSTAINED_SPEED,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  if (s == VKNN_STATUS_NONE) {
    const buffer_arg in[1] = {{x, NULL, m->elements * sizeof(float)}};
    buffer_arg outs[1] = {{NULL, got, m->elements * sizeof(float)}};
    s = model_runner_execute(pm, b, in, outs, NULL);
  }
  for (uint32_t i = 0; s == VKNN_STATUS_NONE && want != NULL && i < m->elements; ++i)
    if (fabsf(got[i] - want[i]) > 1e-4f * (1.f + fabsf(want[i])))
      fail_msg("a run that succeeded gave element %u = %g, not %g", i, got[i], want[i]);
  vknn_prepared_model_release(pm);
  free(x);
  free(b);
  return s;
}

static void walk_faults(fixture *f, vknn_fault_kind kind, const walk_model *m) {
  float *want = malloc(m->elements * sizeof(float)), *got = malloc(m->elements * sizeof(float));
  assert_true(want != NULL && got != NULL);
  assert_int_equal(tuned_run(f, m, NULL, want), VKNN_STATUS_NONE);
  vknn_fault_arm(kind, 0);
  assert_int_equal(tuned_run(f, m, want, got), VKNN_STATUS_NONE);
  uint64_t total = vknn_fault_count(kind);
  assert_true(total > 0);
  for (uint64_t n = 1; n <= total; ++n) {
    vknn_fault_arm(kind, n);
    vknn_status s = tuned_run(f, m, want, got);
    vknn_fault_arm(kind, 0);
    if (s != VKNN_STATUS_NONE && s != VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT &&
        s != VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT && s != VKNN_STATUS_GENERAL_FAILURE)
      fail_msg("allocation %llu of %llu: %s", (unsigned long long)n, (unsigned long long)total,
               vknn_status_name(s));
  }
  assert_int_equal(tuned_run(f, m, want, got), VKNN_STATUS_NONE);
  free(got);
  free(want);
}

static void test_host_allocation_failures(void **state) {
  walk_faults(*state, VKNN_FAULT_HOST_ALLOCATION, &kSmallLayer);
}

static void test_vulkan_allocation_failures(void **state) {
  walk_faults(*state, VKNN_FAULT_VULKAN_ALLOCATION, &kSmallLayer);
}

/* Prepares the layer with cache files (memfds, fds[0] model, fds[1] data)
 * or from them; the handles point at fds. */
static vknn_status prepare_cached(vknn_device *device, const vknn_model *model, int fds[2],
                                  vknn_prepared_model **out) {
  static const uint8_t token[VKNN_CACHE_TOKEN_SIZE] = {7};
  vknn_cache_handle handles[2] = {{.fds = &fds[0], .fd_count = 1}, {.fds = &fds[1], .fd_count = 1}};
  vknn_cache_files files = {.model_cache = &handles[0], .model_cache_count = 1,
                            .data_cache = &handles[1], .data_cache_count = 1, .token = token};
  if (model == NULL) return vknn_device_prepare_model_from_cache(device, NULL, &files, out);
  return vknn_device_prepare_model_with_cache(device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                              VKNN_PRIORITY_MEDIUM, NULL, &files, out);
}

/* The choices travel in the compilation cache: a device opened afresh
 * (its own table empty) prepares from the cache without measuring, while a
 * device whose options leave other variants open measures again. */
static void test_choices_in_the_cache(void **state) {
  fixture *f = *state;
  const conv_layer l = {10, 8, 12, 3};
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  int fds[2] = {memfd_create("model-cache", 0), memfd_create("data-cache", 0)};
  assert_true(fds[0] >= 0 && fds[1] >= 0);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(prepare_cached(f->device, build(b, &l), fds, &pm), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  assert_int_equal(statistics(f->device).kernel_tunings, 1);

  vknn_device_options on = {.enable_validation = true, .kernel_tuning = VKNN_KERNEL_TUNING_ON};
  vknn_device *fresh = NULL;
  assert_int_equal(vknn_device_open(&on, &fresh), VKNN_STATUS_NONE);
  assert_int_equal(prepare_cached(fresh, NULL, fds, &pm), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  assert_int_equal(statistics(fresh).kernel_tunings, 0);
  assert_int_equal(statistics(fresh).kernel_tunings_reused, 1);
  assert_int_equal(vknn_device_get_validation_message_count(fresh), 0);
  vknn_device_close(fresh);

  vknn_device_options other = on;
  other.winograd = VKNN_WINOGRAD_OFF; /* Winograd no longer a variant */
  assert_int_equal(vknn_device_open(&other, &fresh), VKNN_STATUS_NONE);
  assert_int_equal(prepare_cached(fresh, NULL, fds, &pm), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  assert_int_equal(statistics(fresh).kernel_tunings_reused, 0);
  vknn_device_close(fresh);
  close(fds[0]);
  close(fds[1]);
  free(b);
}

/* ---- the packed layout, timed over the whole model ---------------------------- */

#define CHAIN_SIDE 6
#define CHAIN_C 8
#define CHAIN_ELEMENTS (CHAIN_SIDE * CHAIN_SIDE * CHAIN_C)

/* A 1x1 convolution, a 3x3 depthwise convolution and a 1x1 convolution of a
 * 6x6x8 image: two temporaries the kernels can pack. */
static const vknn_model *build_chain(model_builder *b) {
  mb_init(b);
  const uint32_t image[4] = {1, CHAIN_SIDE, CHAIN_SIDE, CHAIN_C};
  const uint32_t pointwise_dims[4] = {CHAIN_C, 1, 1, CHAIN_C}, depthwise_dims[4] = {1, 3, 3, CHAIN_C};
  const uint32_t bias_dims[1] = {CHAIN_C};
  float weights[CHAIN_C * 9], bias[CHAIN_C];
  for (uint32_t i = 0; i < CHAIN_C * 9; ++i) weights[i] = (float)((i * 5 + 3) % 11) / 16.f - 0.3f;
  for (uint32_t i = 0; i < CHAIN_C; ++i) bias[i] = (float)(i % 3) / 4.f - 0.25f;
  uint32_t x = mb_input(b, F32, image, 4), t1 = mb_temporary(b, F32, image, 4);
  uint32_t t2 = mb_temporary(b, F32, image, 4), y = mb_output(b, F32, image, 4);
  uint32_t one = mb_const_i32(b, 1), same = mb_const_i32(b, 1), relu = mb_const_i32(b, VKNN_FUSED_RELU);
  uint32_t pointwise = mb_const_tensor(b, F32, pointwise_dims, 4, weights, CHAIN_C * CHAIN_C * sizeof(float));
  uint32_t depthwise = mb_const_tensor(b, F32, depthwise_dims, 4, weights, CHAIN_C * 9 * sizeof(float));
  uint32_t bias_c = mb_const_tensor(b, F32, bias_dims, 1, bias, sizeof(bias));
  uint32_t first[7] = {x, pointwise, bias_c, same, one, one, relu};
  uint32_t second[8] = {t1, depthwise, bias_c, same, one, one, one, relu};
  uint32_t third[7] = {t2, pointwise, bias_c, same, one, one, relu};
  mb_operation(b, VKNN_OPERATION_CONV_2D, first, 7, &t1, 1);
  mb_operation(b, VKNN_OPERATION_DEPTHWISE_CONV_2D, second, 8, &t2, 1);
  mb_operation(b, VKNN_OPERATION_CONV_2D, third, 7, &y, 1);
  return mb_finish(b);
}

/* The chain on a device: its output, and how many tensors it packed. */
static uint32_t run_chain(vknn_device *device, const test_log *log, float *out) {
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  float x[CHAIN_ELEMENTS];
  for (uint32_t i = 0; i < CHAIN_ELEMENTS; ++i) x[i] = (float)(i * 7 % 13) / 4.f - 1.5f;
  vknn_prepared_model *pm = prepare(device, log, build_chain(b), VKNN_PREFER_SUSTAINED_SPEED, NULL);
  const buffer_arg in[1] = {{x, NULL, sizeof(x)}};
  buffer_arg outs[1] = {{NULL, out, CHAIN_ELEMENTS * sizeof(float)}};
  assert_int_equal(model_runner_execute(pm, b, in, outs, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  free(b);
  return info.packed_tensors;
}

/* A whole model's entry: its signature's first word is no operation type. */
static bool is_model_entry(const vknn_tuning_entry *e) {
  uint32_t word = 0;
  if (e->signature_size >= sizeof(word)) memcpy(&word, e->signature, sizeof(word));
  return word == 0xffffffffu;
}

/* The table's entries for whole models (the last into *out). */
static uint32_t model_entries(fixture *f, vknn_tuning_entry *out) {
  uint32_t n = 0;
  pthread_mutex_lock(&f->device->tuning.lock);
  for (uint32_t i = 0; i < f->device->tuning.count; ++i) {
    if (!is_model_entry(&f->device->tuning.entries[i])) continue;
    if (out != NULL) *out = f->device->tuning.entries[i];
    ++n;
  }
  pthread_mutex_unlock(&f->device->tuning.lock);
  return n;
}

static void set_model_entries(fixture *f, bool packed) {
  pthread_mutex_lock(&f->device->tuning.lock);
  for (uint32_t i = 0; i < f->device->tuning.count; ++i)
    if (is_model_entry(&f->device->tuning.entries[i])) f->device->tuning.entries[i].packed_layout = packed;
  pthread_mutex_unlock(&f->device->tuning.lock);
}

/* The chain's temporaries left to tuning (AUTO): the model is timed both
 * ways once, its results the untuned model's bits (the forced options and
 * either layout compute the same sums in the same order), and the table's
 * choice for the model (set each way by hand after) is what it runs. */
static void test_packed_layout_measured(void **state) {
  fixture *f = *state;
  if (f->device->vk.timestamp_valid_bits == 0) skip();
  float tuned[CHAIN_ELEMENTS], plain[CHAIN_ELEMENTS];
  uint32_t packed = run_chain(f->device, &f->log, tuned);
  assert_int_equal(run_chain(f->plain, &f->log, plain), 0);
  assert_memory_equal(tuned, plain, sizeof(plain));
  vknn_tuning_entry entry;
  assert_int_equal(model_entries(f, &entry), 1);
  assert_int_equal(entry.signature_size, 36);
  assert_int_equal(packed, entry.packed_layout ? 2 : 0);
  uint32_t entries = f->device->tuning.count;
  for (int value = 0; value < 2; ++value) {
    set_model_entries(f, value == 1);
    assert_int_equal(run_chain(f->device, &f->log, tuned), value == 1 ? 2 : 0);
    assert_memory_equal(tuned, plain, sizeof(plain));
  }
  assert_int_equal(f->device->tuning.count, entries); /* taken from the table, not measured again */
}

/* An option given (ON or OFF) is not measured: the table gets no entry for
 * the model, and the model runs as the option says. */
static void test_packed_layout_given(void **state) {
  fixture *f = *state;
  float out[CHAIN_ELEMENTS];
  bool on = f->device->vk.packed_layout_option == VKNN_PACKED_LAYOUT_ON;
  assert_int_equal(run_chain(f->device, &f->log, out), on ? 2 : 0);
  assert_int_equal(model_entries(f, NULL), 0);
}

/* Every host allocation of the chain's tuned prepare, the whole-model
 * measurement's two compiles, prepares and timed runs among them, fails
 * once: each run ends in an error or in the untuned results. */
static void test_packed_layout_allocation_failures(void **state) {
  fixture *f = *state;
  if (f->device->vk.timestamp_valid_bits == 0) skip();
  static const walk_model chain = {build_chain, CHAIN_ELEMENTS};
  walk_faults(f, VKNN_FAULT_HOST_ALLOCATION, &chain);
  assert_int_equal(model_entries(f, NULL), 1); /* the last run measured the model */
}

#define TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, close_fixture)

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_measures_each_shape_once, open_on), TEST(test_runs_a_variant, open_on),
      TEST(test_forced_options_stay, open_forced), TEST(test_shared_tiles_measured, open_tiles_open),
      TEST(test_shared_loads_measured, open_shared_loads_open), TEST(test_widths_measured, open_forced_shared_loads),
      TEST(test_pool_reduction_measured, open_pool_reduction_open), TEST(test_choice_reaches_the_model, open_on),
      TEST(test_on_and_deadline, open_on), TEST(test_auto, open_auto),
      TEST(test_concurrent_prepares, open_on), TEST(test_host_allocation_failures, open_on),
      TEST(test_vulkan_allocation_failures, open_on), TEST(test_choices_in_the_cache, open_on),
      TEST(test_packed_layout_measured, open_packed_open), TEST(test_packed_layout_given, open_packed_on),
      TEST(test_packed_layout_given, open_packed_off),
      TEST(test_packed_layout_allocation_failures, open_packed_open),
      TEST(test_closed_choice_not_taken, open_forced),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
