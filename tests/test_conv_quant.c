/* The quantized matrix-product convolution kernels (conv2d_gemm_q8,
 * conv2d_gemm_q8_filter_i8, conv2d_gemm_q8s) against an integer reference
 * written here as the NNAPI reference computes: sums of (input - zero point)
 * * (filter - zero point) in int32, the bias added, requantized by the
 * fixed-point multiplier (rounding doubling high multiply, then a rounding
 * shift), the output zero point added and the activation's clamp. Bit for
 * bit. The cases take both input paths of the kernel (four channels from
 * one 32-bit load where a group's input channels are a multiple of 4, one
 * at a time otherwise) with unsigned, signed and per-channel signed filters,
 * padding, strides, groups, fully connected layers, and the depthwise
 * kernels (conv2d_depthwise_q8, _q8_filter_i8, _q8s). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "support/model_builder.h"
#include "support/reads_fixture.h"
#include "support/quant_reference.h"
#include "runtime/device_internal.h"
#include "vknn/vknn.h"

#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define PER_CHANNEL VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL
#define MAX_OUT_C 64
#define POOL_BYTES (1u << 17)

typedef enum conv_op { OP_CONV, OP_DEPTHWISE, OP_GROUPED, OP_FULLY_CONNECTED } conv_op;

typedef struct quant_case {
  const char *kernel;
  conv_op op;
  int32_t type, filter_type;
  uint32_t in_h, in_w, in_c, out_c, k, stride, pad, groups;
  int32_t activation;
  /* Sums near their largest: every product large and positive, so a sum of
   * over 2^24 would lose its low bits in float32 (the gemm kernel's exact
   * float partial sums must move into int32 in time); the bias cancels
   * the sum and the multiplier is 1, so an error of one shows. A 1x1
   * convolution without padding, per-tensor filter. */
  bool large_sums;
  bool unrolled_taps; /* conv2d_gemm unrolls its taps (a large layer's few taps) */
} quant_case;

/* Every case runs on three devices: operands read from storage buffers,
 * through texel buffers (the kernels' _texel variants), and summed as packed
 * 8-bit dot products where the device has them (conv2d_gemm's _idot
 * variants, with integer_dot ON: lavapipe has the instructions but does not
 * call them accelerated, so AUTO leaves them off there). */
typedef struct fixture {
  void *reads; /* the reads_fixture */
  vknn_device *integer_dot;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  if (reads_fixture_setup(&f->reads, POOL_BYTES) != 0) return -1;
  vknn_device_options options = {.enable_validation = true,
                                 .operand_reads = VKNN_OPERAND_READS_STORAGE,
                                 .integer_dot = VKNN_INTEGER_DOT_ON,
                                 .subgroup_filter = VKNN_SUBGROUP_FILTER_OFF,
                                 .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  return vknn_device_open(&options, &f->integer_dot) == VKNN_STATUS_NONE ? 0 : -1;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = vknn_device_get_validation_message_count(f->integer_dot);
  vknn_device_close(f->integer_dot);
  int reads = reads_fixture_teardown(&f->reads);
  free(f);
  return reads == 0 && messages == 0 ? 0 : -1;
}

/* The kernel the integer_dot device runs: the packed variant where the
 * matrix kernel reads four channels at once, else the storage one. */
static void integer_dot_kernel(const quant_case *c, char *out, size_t size) {
  uint32_t cin_per_group = c->op == OP_DEPTHWISE ? 1 : c->in_c / c->groups;
  bool packed = strncmp(c->kernel, "conv2d_gemm", 11) == 0 && cin_per_group % 4 == 0;
  snprintf(out, size, "%s%s", c->kernel, packed ? "_idot" : "");
}

/* ---- the case's tensors ----------------------------------------------------- */

typedef struct tensors {
  uint32_t out_h, out_w, cin_per_group, filter_count, in_count, out_count;
  int32_t in_zp, filter_zp, out_zp;
  float in_scale, filter_scales[MAX_OUT_C], out_scale;
  int32_t *in, *filter, bias[MAX_OUT_C]; /* raw 8-bit values, widened */
} tensors;

static uint32_t seed = 12345;
static uint32_t next_random(void) { return seed = seed * 1664525u + 1013904223u; }
static int32_t random_in(int32_t lo, int32_t hi) { return lo + (int32_t)(next_random() >> 8) % (hi - lo + 1); }

static void make_large_sums(const quant_case *c, tensors *t);

static void make_tensors(const quant_case *c, tensors *t) {
  bool signed_in = c->type == Q8S;
  assert_true(c->out_c <= MAX_OUT_C);
  t->out_h = (c->in_h + 2 * c->pad - c->k) / c->stride + 1;
  t->out_w = (c->in_w + 2 * c->pad - c->k) / c->stride + 1;
  t->cin_per_group = c->op == OP_DEPTHWISE ? 1 : c->in_c / c->groups;
  t->filter_count = c->out_c * c->k * c->k * t->cin_per_group;
  t->in_count = c->in_h * c->in_w * c->in_c;
  t->out_count = t->out_h * t->out_w * c->out_c;
  t->in_zp = signed_in ? -5 : 3;
  t->filter_zp = c->filter_type == PER_CHANNEL ? 0 : (signed_in ? -2 : 7);
  t->out_zp = signed_in ? 4 : 120;
  t->in_scale = 0.5f;
  for (uint32_t oc = 0; oc < c->out_c; ++oc)
    t->filter_scales[oc] = c->filter_type == PER_CHANNEL ? 0.01f * (float)(oc + 3) : 0.03f;
  t->out_scale = 0.37f * (float)(c->k * c->k * t->cin_per_group);
  t->in = malloc(t->in_count * sizeof(int32_t));
  t->filter = malloc(t->filter_count * sizeof(int32_t));
  assert_true(t->in && t->filter);
  int32_t lo = signed_in ? -128 : 0, hi = signed_in ? 127 : 255;
  for (uint32_t i = 0; i < t->in_count; ++i) t->in[i] = random_in(lo, hi);
  bool signed_filter = signed_in || c->filter_type == PER_CHANNEL;
  for (uint32_t i = 0; i < t->filter_count; ++i)
    t->filter[i] = signed_filter ? random_in(-128, 127) : random_in(0, 255);
  for (uint32_t oc = 0; oc < c->out_c; ++oc) t->bias[oc] = random_in(-3000, 3000);
  if (c->large_sums) make_large_sums(c, t);
}

/* The sum of (input - zero point) x (filter - zero point) over the window
 * of output (oy, ox, oc). */
static int32_t window_sum(const quant_case *c, const tensors *t, uint32_t oy, uint32_t ox, uint32_t oc) {
  uint32_t cout_per_group = c->op == OP_DEPTHWISE ? 1 : c->out_c / c->groups;
  uint32_t ic0 = oc / cout_per_group * t->cin_per_group;
  int32_t acc = 0;
  for (uint32_t ky = 0; ky < c->k; ++ky)
    for (uint32_t kx = 0; kx < c->k; ++kx) {
      int64_t iy = (int64_t)(oy * c->stride + ky) - c->pad, ix = (int64_t)(ox * c->stride + kx) - c->pad;
      if (iy < 0 || ix < 0 || iy >= c->in_h || ix >= c->in_w) continue;
      for (uint32_t i = 0; i < t->cin_per_group; ++i) {
        int32_t x = t->in[((uint32_t)iy * c->in_w + (uint32_t)ix) * c->in_c + ic0 + i] - t->in_zp;
        uint32_t wi = c->op == OP_DEPTHWISE ? (ky * c->k + kx) * c->out_c + oc
                                            : ((oc * c->k + ky) * c->k + kx) * t->cin_per_group + i;
        int32_t w = t->filter[wi] - t->filter_zp;
        acc += x * w;
      }
    }
  return acc;
}

/* large_sums: the largest values of the type, the same at every pixel; the
 * bias leaves 40 of each sum (every output pixel has the same window). */
static void make_large_sums(const quant_case *c, tensors *t) {
  int32_t hi = c->type == Q8S ? 127 : 255;
  for (uint32_t i = 0; i < t->in_count; ++i)
    t->in[i] = i < c->in_c ? random_in(hi - 15, hi) : t->in[i % c->in_c];
  for (uint32_t i = 0; i < t->filter_count; ++i) t->filter[i] = random_in(hi - 15, hi);
  for (uint32_t oc = 0; oc < c->out_c; ++oc) t->bias[oc] = 40 - window_sum(c, t, 0, 0, oc);
  t->out_scale = t->in_scale * t->filter_scales[0];
}

static int32_t reference(const quant_case *c, const tensors *t, uint32_t oy, uint32_t ox, uint32_t oc) {
  int32_t acc = t->bias[oc] + window_sum(c, t, oy, ox, oc);
  double real = (double)(t->in_scale * t->filter_scales[oc]) / t->out_scale;
  int32_t q = ref_multiply(acc, ref_quantize_multiplier(real)) + t->out_zp;
  int32_t lo = c->type == Q8S ? -128 : 0, hi = c->type == Q8S ? 127 : 255;
  if (c->activation == VKNN_FUSED_RELU && q < t->out_zp) q = t->out_zp;
  return q < lo ? lo : q > hi ? hi : q;
}

/* ---- the model -------------------------------------------------------------- */

static void pack(int32_t type, const int32_t *values, uint32_t count, uint8_t *out) {
  for (uint32_t i = 0; i < count; ++i) out[i] = (uint8_t)(type == Q8 ? values[i] : (int8_t)values[i]);
}

static uint32_t filter_operand(model_builder *b, const quant_case *c, const tensors *t) {
  uint8_t bytes[4096];
  assert_true(t->filter_count <= sizeof(bytes));
  int32_t type = c->filter_type;
  pack(type == PER_CHANNEL ? Q8S : type, t->filter, t->filter_count, bytes);
  uint32_t dims4[4] = {c->out_c, c->k, c->k, t->cin_per_group}, dims2[2] = {c->out_c, c->in_c};
  if (c->op == OP_DEPTHWISE) dims4[0] = 1, dims4[3] = c->out_c;
  bool fc = c->op == OP_FULLY_CONNECTED;
  uint32_t w = mb_const_tensor(b, type, fc ? dims2 : dims4, fc ? 2 : 4, bytes, t->filter_count);
  vknn_operand *o = &b->operands[w];
  o->zero_point = t->filter_zp;
  if (type == PER_CHANNEL) {
    o->scale = 0.f;
    o->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
    o->extra_params.channel_quant.channel_dim = c->op == OP_DEPTHWISE ? 3 : 0;
    o->extra_params.channel_quant.scale_count = c->out_c;
    o->extra_params.channel_quant.scales = t->filter_scales;
  } else {
    o->scale = t->filter_scales[0];
  }
  return w;
}

static const vknn_model *build(model_builder *b, const quant_case *c, const tensors *t) {
  mb_init(b);
  bool fc = c->op == OP_FULLY_CONNECTED;
  uint32_t in_dims[4] = {1, c->in_h, c->in_w, c->in_c}, fc_in[2] = {c->in_h * c->in_w, c->in_c};
  uint32_t out_dims[4] = {1, t->out_h, t->out_w, c->out_c}, fc_out[2] = {c->in_h * c->in_w, c->out_c};
  uint32_t inputs[13], n = 0;
  uint32_t in = inputs[n++] = mb_input(b, c->type, fc ? fc_in : in_dims, fc ? 2 : 4);
  b->operands[in].scale = t->in_scale;
  b->operands[in].zero_point = t->in_zp;
  inputs[n++] = filter_operand(b, c, t);
  uint32_t bias_dims[1] = {c->out_c};
  uint32_t bias = inputs[n++] = mb_const_tensor(b, VKNN_OPERAND_TENSOR_INT32, bias_dims, 1, t->bias,
                                                 c->out_c * sizeof(int32_t));
  b->operands[bias].scale = c->filter_type == PER_CHANNEL ? 0.f : t->in_scale * t->filter_scales[0];
  if (!fc) {
    int32_t params[6] = {(int32_t)c->pad, (int32_t)c->pad, (int32_t)c->pad, (int32_t)c->pad,
                         (int32_t)c->stride, (int32_t)c->stride};
    for (int i = 0; i < 6; ++i) inputs[n++] = mb_const_i32(b, params[i]);
    if (c->op == OP_GROUPED) inputs[n++] = mb_const_i32(b, (int32_t)c->groups);
    if (c->op == OP_DEPTHWISE) inputs[n++] = mb_const_i32(b, 1); /* depth multiplier */
  }
  inputs[n++] = mb_const_i32(b, c->activation);
  const uint8_t nhwc = 0;
  if (c->op == OP_GROUPED) inputs[n++] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &nhwc, 1);
  uint32_t out = mb_output(b, c->type, fc ? fc_out : out_dims, fc ? 2 : 4);
  b->operands[out].scale = t->out_scale;
  b->operands[out].zero_point = t->out_zp;
  static const int32_t op_types[] = {[OP_CONV] = VKNN_OPERATION_CONV_2D,
                                     [OP_DEPTHWISE] = VKNN_OPERATION_DEPTHWISE_CONV_2D,
                                     [OP_GROUPED] = VKNN_OPERATION_GROUPED_CONV_2D,
                                     [OP_FULLY_CONNECTED] = VKNN_OPERATION_FULLY_CONNECTED};
  mb_operation(b, op_types[c->op], inputs, n, &out, 1);
  return mb_finish(b);
}

static void run_case_on(vknn_device *device, shared_memory *pool, const char *kernel,
                        const quant_case *c) {
  tensors t;
  make_tensors(c, &t);
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, build(b, c, &t), VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), kernel);
  /* The filter is a constant: packed by 8 channels where its loads are shared. */
  assert_int_equal(reads_fixture_filter_packed(pm, 0), strstr(kernel, "_subgroup") != NULL);
  assert_int_equal(reads_fixture_taps_unrolled(pm, 0), c->unrolled_taps);
  assert_true(t.in_count + t.out_count + 256 <= POOL_BYTES);
  pack(c->type, t.in, t.in_count, pool->data);
  memset(pool->data + 32768, 0xa5, t.out_count);
  vknn_request_argument args[2] = {{.location = {0, 0, t.in_count}}, {.location = {0, 32768, t.out_count}}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = pool->memory}};
  vknn_request request = {args, 1, args + 1, 1, pools, 1};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  uint32_t mismatches = 0, i = 0;
  for (uint32_t oy = 0; oy < t.out_h; ++oy)
    for (uint32_t ox = 0; ox < t.out_w; ++ox)
      for (uint32_t oc = 0; oc < c->out_c; ++oc, ++i) {
        uint8_t byte = pool->data[32768 + i];
        int32_t got = c->type == Q8 ? byte : (int8_t)byte, want = reference(c, &t, oy, ox, oc);
        if (got != want && mismatches++ == 0)
          print_error("%s: output (%u, %u, %u) = %d, the reference gives %d\n", kernel, oy, ox, oc, got, want);
      }
  assert_int_equal(mismatches, 0);
  vknn_prepared_model_release(pm);
  free(t.in), free(t.filter), free(b);
}

/* Each case on storage and texel reads, and packed dot products; with
 * shared_loads, also on storage and texel reads sharing filter loads
 * across a subgroup (the same products, so the reference's bits too). */
static void run_cases_with(void **state, const quant_case *cases, size_t count, bool shared_loads) {
  fixture *f = *state;
  reads_fixture *reads = f->reads;
  for (size_t i = 0; i < count; ++i) {
    char texel_kernel[64], dot_kernel[64];
    snprintf(texel_kernel, sizeof(texel_kernel), "%s_texel", cases[i].kernel);
    integer_dot_kernel(&cases[i], dot_kernel, sizeof(dot_kernel));
    run_case_on(reads->devices[0], &reads->pool, cases[i].kernel, &cases[i]);
    run_case_on(reads->devices[1], &reads->pool, texel_kernel, &cases[i]);
    run_case_on(f->integer_dot, &reads->pool, dot_kernel, &cases[i]);
    if (!shared_loads) continue;
    uint32_t groups = cases[i].op == OP_GROUPED ? cases[i].groups : 1;
    bool shares = reads_fixture_shares_filter_loads(cases[i].kernel, cases[i].out_c, groups);
    const char *suffix = shares ? "_subgroup" : "";
    for (int d = 2; d < READS_FIXTURE_DEVICES; ++d) {
      char kernel[80];
      snprintf(kernel, sizeof(kernel), "%s%s", d == 2 ? cases[i].kernel : texel_kernel, suffix);
      vknn_device *device = reads->devices[d];
      assert_int_equal(device->vk.subgroup_filter, device->vk.subgroup_shuffle && device->vk.subgroup_size % 8 == 0);
      if (device->vk.subgroup_filter) run_case_on(device, &reads->pool, kernel, &cases[i]);
    }
  }
}

static void run_cases(void **state, const quant_case *cases, size_t count) {
  run_cases_with(state, cases, count, true);
}

/* Input channels per group (depthwise: channels) a multiple of 4: 32-bit
 * loads of four channels. */
static void test_four_channel_loads(void **state) {
  static const quant_case cases[] = {
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 5, 6, 8, 12, 3, 1, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8_filter_i8", OP_CONV, Q8, PER_CHANNEL, 7, 3, 8, 6, 1, 1, 0, 1, VKNN_FUSED_RELU},
      {"conv2d_gemm_q8s", OP_CONV, Q8S, Q8S, 6, 5, 12, 5, 3, 2, 1, 1, VKNN_FUSED_RELU},
      {"conv2d_gemm_q8s", OP_CONV, Q8S, PER_CHANNEL, 4, 4, 16, 9, 3, 1, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8s", OP_GROUPED, Q8S, PER_CHANNEL, 5, 5, 8, 8, 3, 1, 1, 2, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8", OP_FULLY_CONNECTED, Q8, Q8, 3, 1, 16, 10, 1, 1, 0, 1, VKNN_FUSED_NONE},
      /* Blocks of 16 channels where a subgroup shares the filter loads. */
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 5, 7, 8, 32, 1, 1, 0, 1, VKNN_FUSED_RELU},
      {"conv2d_depthwise_q8", OP_DEPTHWISE, Q8, Q8, 9, 11, 8, 8, 3, 1, 1, 1, VKNN_FUSED_RELU},
      {"conv2d_depthwise_q8_filter_i8", OP_DEPTHWISE, Q8, PER_CHANNEL, 7, 6, 12, 12, 3, 2, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_depthwise_q8s", OP_DEPTHWISE, Q8S, Q8S, 10, 10, 16, 16, 3, 2, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_depthwise_q8s", OP_DEPTHWISE, Q8S, PER_CHANNEL, 5, 13, 4, 4, 3, 1, 1, 1, VKNN_FUSED_RELU},
  };
  run_cases(state, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Other channel counts: one 8-bit load per channel. */
static void test_single_channel_loads(void **state) {
  static const quant_case cases[] = {
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 9, 9, 3, 8, 3, 2, 1, 1, VKNN_FUSED_RELU},
      {"conv2d_gemm_q8s", OP_CONV, Q8S, Q8S, 5, 7, 5, 3, 2, 1, 0, 1, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8_filter_i8", OP_GROUPED, Q8, PER_CHANNEL, 4, 6, 6, 12, 3, 1, 1, 3, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8s", OP_FULLY_CONNECTED, Q8S, Q8S, 2, 2, 7, 11, 1, 1, 0, 1, VKNN_FUSED_RELU},
      {"conv2d_gemm_q8s", OP_CONV, Q8S, PER_CHANNEL, 7, 5, 3, 16, 3, 2, 1, 1, VKNN_FUSED_NONE},
      /* An image's first layer large enough (32x32 pixels x 64 outputs) to
       * unroll its taps. */
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 64, 64, 3, 64, 3, 2, 1, 1, VKNN_FUSED_RELU, false, true},
      {"conv2d_depthwise_q8", OP_DEPTHWISE, Q8, Q8, 6, 9, 6, 6, 3, 1, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_depthwise_q8s", OP_DEPTHWISE, Q8S, PER_CHANNEL, 8, 7, 5, 5, 3, 2, 0, 1, VKNN_FUSED_RELU},
  };
  run_cases(state, cases, sizeof(cases) / sizeof(cases[0]));
}

/* Sums of more products than float32 holds exactly at once: over 256
 * channels in one tap (partial sums moved into int32 within the tap), and
 * 256 or fewer channels per tap over several taps (moved between taps). */
static void test_large_sums(void **state) {
  static const quant_case cases[] = {
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 2, 2, 520, 4, 1, 1, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_q8s", OP_FULLY_CONNECTED, Q8S, Q8S, 2, 1, 2000, 2, 1, 1, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 3, 3, 64, 2, 3, 1, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_q8", OP_FULLY_CONNECTED, Q8, Q8, 2, 1, 1030, 2, 1, 1, 0, 1, VKNN_FUSED_NONE, true},
  };
  run_cases(state, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The matrix product's reductions split across the workgroup (conv2d_gemm's
 * K_SPLIT, 2 to 8 slices), on each device standing for one that runs a
 * million invocations at once (lavapipe reports no width): the slices'
 * int32 sums, the packed dot products' per-slice corrections and the
 * exact float partial sums give the reference's bits. */
static void test_split_sums(void **state) {
  static const quant_case cases[] = {
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 5, 6, 64, 6, 3, 1, 1, 1, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8s", OP_CONV, Q8S, PER_CHANNEL, 4, 4, 130, 9, 1, 1, 0, 1, VKNN_FUSED_RELU},
      {"conv2d_gemm_q8_filter_i8", OP_GROUPED, Q8, PER_CHANNEL, 5, 5, 64, 8, 3, 1, 1, 2, VKNN_FUSED_NONE},
      {"conv2d_gemm_q8", OP_CONV, Q8, Q8, 2, 2, 520, 4, 1, 1, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_q8s", OP_FULLY_CONNECTED, Q8S, Q8S, 2, 1, 2000, 2, 1, 1, 0, 1, VKNN_FUSED_NONE, true},
  };
  fixture *f = *state;
  reads_fixture *reads = f->reads;
  vknn_device *devices[3] = {reads->devices[0], reads->devices[1], f->integer_dot};
  for (int d = 0; d < 3; ++d) devices[d]->vk.parallel_invocations = 1u << 20;
  /* A split reduction shares no filter loads (its slices step apart). */
  run_cases_with(state, cases, sizeof(cases) / sizeof(cases[0]), false);
  for (int d = 0; d < 3; ++d) devices[d]->vk.parallel_invocations = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_four_channel_loads),
      cmocka_unit_test(test_single_channel_loads),
      cmocka_unit_test(test_large_sums),
      cmocka_unit_test(test_split_sums),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
