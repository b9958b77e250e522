/* The tiled float convolution kernels (conv2d_gemm, conv2d_depthwise,
 * gemv_splitk; src/ops/conv2d_select.c) against a double-precision reference
 * computed here, on shapes that cut their tiles and blocks: pixel counts and
 * channel counts that are not multiples of a tile, input channels that are
 * not a multiple of 4, padding on every side, stride 2, several batches,
 * float32 and float16 tensors; GROUPED_CONV_2D and TRANSPOSE_CONV_2D on the
 * tiled and the direct kernel; Winograd convolutions (F(2,3) and F(4,3),
 * forced by the device option) against the reference and against the
 * implicit matrix product; the float16 kernels computing in float16 (their
 * _f16_arith variants, forced by the device option), long reductions
 * included. Each case also checks which kernel ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "common/shared_memory.h"
#include "support/model_builder.h"
#include "support/reads_fixture.h"
#include "runtime/device_internal.h"
#include "vknn/vknn.h"

typedef enum conv_op { OP_CONV, OP_DEPTHWISE, OP_FULLY_CONNECTED, OP_GROUPED, OP_TRANSPOSED } conv_op;

typedef struct conv_case {
  const char *kernel; /* the kernel variant expected to run */
  conv_op op;
  bool f16;
  uint32_t batches, in_h, in_w, in_c, out_c; /* fully connected: in_c = input size */
  uint32_t k_h, k_w, stride_x, stride_y;
  uint32_t pad_left, pad_right, pad_top, pad_bottom;
  int32_t activation;
  bool constant_weights; /* filter and bias as model constants, else model inputs */
  uint32_t groups;       /* OP_GROUPED only */
  /* Every input element 1, filter element 0.75 and bias 0: each output is
   * 0.75 times its window's element count, exactly. A float16 sum of the
   * four-channel products (3 each) rounds at every step past 2048, where
   * float16's spacing is 2: one long float16 sum ends far off. */
  bool long_sums;
  bool unrolled_taps; /* conv2d_gemm unrolls its taps (a large layer's few taps) */
  /* The filter packed by 8 channels would not fit a texel view where the
   * plain one does: shared loads read it unpacked. */
  bool packed_too_large;
} conv_case;

/* Every case runs with input and filter read from storage buffers and
 * through texel buffers (the *_texel variants), each way loading filter
 * values in every lane and sharing them across a subgroup (the _subgroup
 * variants): the fixture's four devices. */
#define POOL_BYTES (4u << 20)

typedef reads_fixture fixture;

static int setup(void **state) { return reads_fixture_setup(state, POOL_BYTES); }
static int teardown(void **state) { return reads_fixture_teardown(state); }

/* IEEE binary16 from binary32, rounding to nearest even (normal and
 * subnormal halves; the test's values stay far from overflow). */
static uint16_t half_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  float magnitude = fabsf(value);
  if (magnitude < 6.103515625e-05f) { /* subnormal half: units of 2^-24 */
    return (uint16_t)(sign | (uint32_t)lrintf(magnitude * 16777216.f));
  }
  uint32_t exponent = ((bits >> 23) & 0xffu) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return (uint16_t)(sign | half);
}

static float float_from_half(uint16_t h) {
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  float magnitude = exponent == 0 ? ldexpf((float)mantissa, -24)
                                  : ldexpf((float)(mantissa | 0x400u), (int)exponent - 25);
  return (h & 0x8000u) ? -magnitude : magnitude;
}

typedef struct tensors {
  uint32_t out_h, out_w;
  uint32_t in_count, filter_count, out_count; /* elements */
  float *in, *filter, *bias;                  /* values as stored (rounded to half for f16) */
} tensors;

static uint32_t out_size(const conv_case *c, uint32_t in, uint32_t k, uint32_t stride,
                         uint32_t before, uint32_t after) {
  if (c->op == OP_TRANSPOSED) return stride * (in - 1) + k - before - after;
  return (in + before + after - k) / stride + 1;
}

static uint32_t groups_of(const conv_case *c) { return c->op == OP_GROUPED ? c->groups : 1; }

/* A small deterministic generator: values in [-1, 1). */
static float next_value(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / 8388608.f - 1.f;
}

static void make_tensors(const conv_case *c, tensors *t) {
  t->out_h = out_size(c, c->in_h, c->k_h, c->stride_y, c->pad_top, c->pad_bottom);
  t->out_w = out_size(c, c->in_w, c->k_w, c->stride_x, c->pad_left, c->pad_right);
  t->in_count = c->batches * c->in_h * c->in_w * c->in_c;
  uint32_t per_channel = c->op == OP_DEPTHWISE ? 1 : c->in_c / groups_of(c);
  t->filter_count = c->out_c * c->k_h * c->k_w * per_channel;
  t->out_count = c->batches * t->out_h * t->out_w * c->out_c;
  t->in = malloc(t->in_count * sizeof(float));
  t->filter = malloc(t->filter_count * sizeof(float));
  t->bias = malloc(c->out_c * sizeof(float));
  assert_true(t->in != NULL && t->filter != NULL && t->bias != NULL);
  uint32_t state = 12345u + c->in_c * 31u + c->out_c;
  float *all[3] = {t->in, t->filter, t->bias};
  uint32_t counts[3] = {t->in_count, t->filter_count, c->out_c};
  for (int k = 0; k < 3; ++k) {
    for (uint32_t i = 0; i < counts[k]; ++i) {
      float v = c->long_sums ? (k == 0 ? 1.f : k == 1 ? 0.75f : 0.f) : next_value(&state);
      all[k][i] = c->f16 ? float_from_half(half_from_float(v)) : v;
    }
  }
}

static void free_tensors(tensors *t) {
  free(t->in);
  free(t->filter);
  free(t->bias);
}

/* The filter element of output channel oc, tap (ky, kx), input channel ic
 * of oc's group: [out_c][k_h][k_w][in_c / groups], or [1][k_h][k_w][out_c]
 * for depthwise. */
static float filter_at(const conv_case *c, const tensors *t, uint32_t oc, uint32_t ky, uint32_t kx,
                       uint32_t icg) {
  if (c->op == OP_DEPTHWISE) return t->filter[(ky * c->k_w + kx) * c->out_c + oc];
  return t->filter[((oc * c->k_h + ky) * c->k_w + kx) * (c->in_c / groups_of(c)) + icg];
}

/* The input index that output position o reads under tap k, or -1: a
 * convolution window, or (transposed) the input whose scattered window puts
 * tap k on o, where o + pad - k is a multiple of the stride. */
static int64_t source(const conv_case *c, uint32_t o, uint32_t k, uint32_t stride, uint32_t pad,
                      uint32_t extent) {
  int64_t i = (int64_t)o * stride + k - pad;
  if (c->op == OP_TRANSPOSED) {
    int64_t t = (int64_t)o + pad - k;
    i = t >= 0 && t % stride == 0 ? t / stride : -1;
  }
  return i >= 0 && i < extent ? i : -1;
}

/* One output in double precision, and the sum of the magnitudes of its
 * terms (the scale of its rounding error). */
static double reference(const conv_case *c, const tensors *t, uint32_t n, uint32_t oy, uint32_t ox,
                        uint32_t oc, double *magnitude) {
  double sum = t->bias[oc];
  *magnitude = fabs(sum);
  for (uint32_t ky = 0; ky < c->k_h; ++ky) {
    for (uint32_t kx = 0; kx < c->k_w; ++kx) {
      int64_t iy = source(c, oy, ky, c->stride_y, c->pad_top, c->in_h);
      int64_t ix = source(c, ox, kx, c->stride_x, c->pad_left, c->in_w);
      if (iy < 0 || ix < 0) continue;
      uint32_t cin = c->in_c / groups_of(c), group = oc / (c->out_c / groups_of(c));
      uint32_t first = c->op == OP_DEPTHWISE ? oc : group * cin;
      uint32_t end = c->op == OP_DEPTHWISE ? oc + 1 : first + cin;
      for (uint32_t ic = first; ic < end; ++ic) {
        double term = (double)t->in[((n * c->in_h + (uint32_t)iy) * c->in_w + (uint32_t)ix) * c->in_c + ic] *
                      filter_at(c, t, oc, ky, kx, ic - (c->op == OP_DEPTHWISE ? 0 : first));
        sum += term;
        *magnitude += fabs(term);
      }
    }
  }
  if (c->activation == VKNN_FUSED_RELU) return sum < 0 ? 0 : sum;
  if (c->activation == VKNN_FUSED_RELU6) return sum < 0 ? 0 : sum > 6 ? 6 : sum;
  return sum;
}

/* Writes values at byte offset of the pool as float32 or float16. */
static void put(fixture *f, uint32_t offset, const float *values, uint32_t count, bool f16) {
  for (uint32_t i = 0; i < count; ++i) {
    if (f16) {
      uint16_t h = half_from_float(values[i]);
      memcpy(f->pool.data + offset + 2 * i, &h, 2);
    } else {
      memcpy(f->pool.data + offset + 4 * i, &values[i], 4);
    }
  }
}

static float get(const fixture *f, uint32_t offset, uint32_t i, bool f16) {
  if (f16) {
    uint16_t h;
    memcpy(&h, f->pool.data + offset + 2 * i, 2);
    return float_from_half(h);
  }
  float v;
  memcpy(&v, f->pool.data + offset + 4 * i, 4);
  return v;
}

static uint32_t weight_operand(model_builder *b, const conv_case *c, int32_t type,
                               const uint32_t *dims, uint32_t rank, const float *values,
                               uint32_t count) {
  if (!c->constant_weights) return mb_input(b, type, dims, rank);
  uint32_t size = count * (c->f16 ? 2u : 4u);
  uint8_t *bytes = malloc(size);
  assert_non_null(bytes);
  for (uint32_t i = 0; i < count; ++i) {
    if (c->f16) {
      uint16_t h = half_from_float(values[i]);
      memcpy(bytes + 2 * i, &h, 2);
    } else {
      memcpy(bytes + 4 * i, &values[i], 4);
    }
  }
  uint32_t operand = mb_const_tensor(b, type, dims, rank, bytes, size);
  free(bytes);
  return operand;
}

static const vknn_model *build(model_builder *b, const conv_case *c, const tensors *t) {
  int32_t type = c->f16 ? VKNN_OPERAND_TENSOR_FLOAT16 : VKNN_OPERAND_TENSOR_FLOAT32;
  mb_init(b);
  uint32_t inputs[13], count = 0;
  uint32_t bias_dims[1] = {c->out_c};
  if (c->op == OP_FULLY_CONNECTED) {
    uint32_t in_dims[2] = {c->batches, c->in_c}, w_dims[2] = {c->out_c, c->in_c};
    uint32_t out_dims[2] = {c->batches, c->out_c};
    inputs[count++] = mb_input(b, type, in_dims, 2);
    inputs[count++] = weight_operand(b, c, type, w_dims, 2, t->filter, t->filter_count);
    inputs[count++] = weight_operand(b, c, type, bias_dims, 1, t->bias, c->out_c);
    inputs[count++] = mb_const_i32(b, c->activation);
    uint32_t out = mb_output(b, type, out_dims, 2);
    mb_operation(b, VKNN_OPERATION_FULLY_CONNECTED, inputs, count, &out, 1);
    return mb_finish(b);
  }
  bool depthwise = c->op == OP_DEPTHWISE;
  uint32_t in_dims[4] = {c->batches, c->in_h, c->in_w, c->in_c};
  uint32_t f_dims[4] = {depthwise ? 1 : c->out_c, c->k_h, c->k_w,
                        depthwise ? c->out_c : c->in_c / groups_of(c)};
  uint32_t out_dims[4] = {c->batches, t->out_h, t->out_w, c->out_c};
  inputs[count++] = mb_input(b, type, in_dims, 4);
  inputs[count++] = weight_operand(b, c, type, f_dims, 4, t->filter, t->filter_count);
  inputs[count++] = weight_operand(b, c, type, bias_dims, 1, t->bias, c->out_c);
  int32_t params[6] = {(int32_t)c->pad_left, (int32_t)c->pad_right, (int32_t)c->pad_top,
                       (int32_t)c->pad_bottom, (int32_t)c->stride_x, (int32_t)c->stride_y};
  for (int i = 0; i < 6; ++i) inputs[count++] = mb_const_i32(b, params[i]);
  if (depthwise) inputs[count++] = mb_const_i32(b, 1); /* depth multiplier */
  if (c->op == OP_GROUPED) inputs[count++] = mb_const_i32(b, (int32_t)c->groups);
  inputs[count++] = mb_const_i32(b, c->activation);
  /* GROUPED_CONV_2D and TRANSPOSE_CONV_2D take the layout in every form. */
  const uint8_t nhwc = 0;
  if (c->op == OP_GROUPED || c->op == OP_TRANSPOSED)
    inputs[count++] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &nhwc, 1);
  uint32_t out = mb_output(b, type, out_dims, 4);
  static const int32_t op_types[] = {
      [OP_CONV] = VKNN_OPERATION_CONV_2D, [OP_DEPTHWISE] = VKNN_OPERATION_DEPTHWISE_CONV_2D,
      [OP_GROUPED] = VKNN_OPERATION_GROUPED_CONV_2D, [OP_TRANSPOSED] = VKNN_OPERATION_TRANSPOSE_CONV_2D};
  mb_operation(b, op_types[c->op], inputs, count, &out, 1);
  return mb_finish(b);
}

static uint32_t align_256(uint32_t v) { return (v + 255u) & ~255u; }

/* Dispatches of a convolution on a kernel: a Winograd convolution's input
 * transform (its first) is followed by the matrix products and the output
 * transform. */
static uint32_t dispatches_of(const char *kernel) {
  return strncmp(kernel, "conv2d_winograd", 15) == 0 ? 3 : 1;
}

/* Outputs of another kernel's run of a case: filled by one run_case_on,
 * compared by a later one (values: NULL for neither). */
typedef struct other_run {
  float *values;
  bool compare; /* false: fill values */
  double relative;
} other_run;

/* Prepares and runs the case; checks the kernel that ran and every output
 * against the reference (and against another kernel's run, see other_run). */
static void run_case_on(fixture *f, vknn_device *device, const char *kernel, const conv_case *c,
                        other_run *other) {
  tensors t;
  make_tensors(c, &t);
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  const vknn_model *model = build(b, c, &t);
  uint32_t elem = c->f16 ? 2 : 4;
  uint32_t offsets[4], sizes[4] = {t.in_count * elem, t.filter_count * elem, c->out_c * elem,
                                   t.out_count * elem};
  uint32_t offset = 0;
  for (int i = 0; i < 4; ++i) {
    offsets[i] = offset;
    offset = align_256(offset + sizes[i]);
  }
  assert_true(offset <= POOL_BYTES);
  put(f, offsets[0], t.in, t.in_count, c->f16);
  put(f, offsets[1], t.filter, t.filter_count, c->f16);
  put(f, offsets[2], t.bias, c->out_c, c->f16);
  memset(f->pool.data + offsets[3], 0xff, sizes[3]); /* NaN until written */

  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  assert_int_equal(info.dispatch_count, dispatches_of(kernel));
  assert_string_equal(vknn_prepared_model_get_dispatch_kernel(pm, 0), kernel);
  /* Shared filter loads read a constant filter packed by 8 channels
   * (Winograd's products read U, always a constant). */
  bool constant_filter = c->constant_weights || dispatches_of(kernel) == 3;
  for (uint32_t i = 0; i < info.dispatch_count; ++i) {
    const char *name = vknn_prepared_model_get_dispatch_kernel(pm, i);
    bool shared = strncmp(name, "conv2d_gemm", 11) == 0 && strstr(name, "_subgroup") != NULL;
    assert_int_equal(reads_fixture_filter_packed(pm, i), shared && constant_filter && !c->packed_too_large);
  }
  assert_int_equal(reads_fixture_taps_unrolled(pm, 0), c->unrolled_taps);

  uint32_t input_count = c->constant_weights ? 1 : 3;
  vknn_request_argument args[4];
  for (uint32_t i = 0; i < input_count; ++i)
    args[i] = (vknn_request_argument){.location = {0, offsets[i], sizes[i]}};
  args[input_count] = (vknn_request_argument){.location = {0, offsets[3], sizes[3]}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = f->pool.memory}};
  vknn_request request = {args, input_count, args + input_count, 1, pools, 1};
  assert_int_equal(vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                               NULL, 0, NULL),
                   VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);

  /* float32 sums in another order: a few units of 2^-24 of the terms'
   * magnitude; float16 results round to 11 bits. Winograd convolutions sum
   * float32 products of transformed values, whose rounding errors the
   * transforms' coefficients scale (up to 8 and 5 in F(4,3)'s A and B):
   * measured up to 1.2e-6 of the terms' magnitude in F(4,3) (1e-7 in the
   * implicit product), bounded by twice the float32 bound. Computed in
   * float16 (_f16_arith), a sum of at most 32 float16 products (the
   * kernels' F16_SPAN) errs by up to 33 units of 2^-11 of its terms'
   * magnitude, and the result's rounding adds one. */
  double relative = strstr(kernel, "_arith") != NULL ? 34.0 / 2048
                    : c->f16                         ? 1.0 / 1024
                    : dispatches_of(kernel) == 3     ? 2e-5
                                                     : 1e-5;
  uint32_t mismatches = 0, i = 0;
  for (uint32_t n = 0; n < c->batches; ++n)
    for (uint32_t oy = 0; oy < t.out_h; ++oy)
      for (uint32_t ox = 0; ox < t.out_w; ++ox)
        for (uint32_t oc = 0; oc < c->out_c; ++oc, ++i) {
          double magnitude, want = reference(c, &t, n, oy, ox, oc, &magnitude);
          double got = get(f, offsets[3], i, c->f16);
          double bound = relative * (magnitude + 1e-3);
          if (other != NULL && other->values != NULL && !other->compare) other->values[i] = (float)got;
          /* Both within their bounds of the reference: within the sum of
           * them of each other. */
          if (other != NULL && other->values != NULL && other->compare &&
              fabs(got - other->values[i]) > bound + other->relative * (magnitude + 1e-3)) {
            if (mismatches++ == 0)
              print_error("%s: output (%u, %u, %u, %u) = %.7g, the other kernel gives %.7g\n",
                          kernel, n, oy, ox, oc, got, other->values[i]);
            continue;
          }
          if (fabs(got - want) <= bound) continue;
          if (mismatches++ == 0)
            print_error("%s: output (%u, %u, %u, %u) = %.7g, the reference gives %.7g\n",
                        kernel, n, oy, ox, oc, got, want);
        }
  if (other != NULL) other->relative = relative;
  assert_int_equal(mismatches, 0);
  free(b);
  free_tensors(&t);
}

/* The direct kernel (conv2d_f32, conv2d_f16) has no texel-read variant. */
static bool direct_kernel(const char *kernel) { return strncmp(kernel, "conv2d_f", 8) == 0; }

/* Set while the fixture's devices stand for wide ones (test_wide_device):
 * their matrix products split reductions, whose slices share no filter
 * loads. */
static bool split_reductions = false;

/* Whether the case's matrix product shares its filter loads on devices[2]
 * and [3] (reads_fixture_shares_filter_loads). */
static bool shares_filter_loads(const conv_case *c) {
  uint32_t groups = c->op == OP_GROUPED ? c->groups : 1;
  return reads_fixture_shares_filter_loads(c->kernel, c->out_c, groups) && !split_reductions;
}

/* The case on storage reads, then on texel reads where the device has them;
 * each also sharing filter loads across a subgroup where the device can,
 * which must agree with the run loading its own (within both runs' bounds:
 * the same products in the same order, but where a whole reduction unrolls
 * the compiler may reassociate the sums differently in each variant, a
 * unit in the last place apart; a block's channels out of order would be
 * far apart). */
static void run_case(fixture *f, const conv_case *c) {
  tensors t;
  make_tensors(c, &t);
  other_run other = {malloc(t.out_count * sizeof(float)), false, 0};
  assert_non_null(other.values);
  free_tensors(&t);
  for (int reads = 0; reads < 2; ++reads) {
    vknn_device *own = f->devices[reads], *shared = f->devices[2 + reads];
    /* Forced texel reads take effect wherever the device can read texels. */
    if (reads == 1) assert_int_equal(own->vk.texel_reads, own->vk.texel_reads_possible);
    assert_int_equal(shared->vk.subgroup_filter,
                     shared->vk.subgroup_shuffle && shared->vk.subgroup_size % 8 == 0);
    if (reads == 1 && !own->vk.texel_reads) break;
    char kernel[80];
    snprintf(kernel, sizeof(kernel), "%s%s", c->kernel,
             reads == 1 && !direct_kernel(c->kernel) ? "_texel" : "");
    other.compare = false;
    run_case_on(f, own, kernel, c, &other);
    if (!shared->vk.subgroup_filter) continue;
    if (shares_filter_loads(c)) strcat(kernel, "_subgroup");
    other.compare = true;
    run_case_on(f, shared, kernel, c, &other);
  }
  free(other.values);
}

static void run_cases(void **state, const conv_case *cases, size_t count) {
  for (size_t i = 0; i < count; ++i) run_case(*state, &cases[i]);
}

#define RUN(cases) run_cases(state, cases, sizeof(cases) / sizeof(cases[0]))

/* Pointwise convolutions and fully connected layers of several rows: the
 * tiled matrix product. */
static void test_gemm_pointwise(void **state) {
  static const conv_case cases[] = {
      /* 35 pixels (no whole tile), 13 output channels (no whole block), vec4 rows. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 5, 7, 12, 13, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, true},
      /* Input channels not a multiple of 4; fewer than 8 output channels. */
      {"conv2d_gemm_f16", OP_CONV, true, 2, 3, 5, 6, 5, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* 323 pixels: several tiles, the last one partial. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 17, 19, 16, 24, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 9, 9, 20, 17, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      /* 35 pixels (a lane's second pixel past the end), 32 and 48 output
       * channels: blocks of 16 where a subgroup shares the filter loads. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 5, 7, 12, 32, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 7, 3, 8, 48, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      /* Three rows of 20. */
      {"conv2d_gemm_f32", OP_FULLY_CONNECTED, false, 3, 1, 1, 20, 9, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 5, 1, 1, 7, 11, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
  };
  RUN(cases);
}

/* Windows larger than a pixel: the implicit matrix product, with padding
 * and strides. */
static void test_gemm_windows(void **state) {
  static const conv_case cases[] = {
      /* MobileNet's first layer in small: 3x3, stride 2, 3 input channels, padding. */
      {"conv2d_gemm_f32", OP_CONV, false, 2, 9, 11, 3, 8, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_RELU6, true},
      /* The same with 16 outputs: scalar loads in blocks of 16 channels. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 9, 11, 3, 16, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_NONE, false},
      /* 3x3 stride 1 with padding, 8 input channels (vec4 rows), 10 outputs. */
      {"conv2d_gemm_f16", OP_CONV, true, 1, 7, 6, 8, 10, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, false},
      /* A 2x3 window, strides (1, 2), padding on one side of each axis. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 8, 9, 5, 7, 2, 3, 1, 2, 0, 2, 1, 0, VKNN_FUSED_NONE, false},
      /* A 1x1 window with stride 2 is no plain row read. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 9, 9, 4, 12, 1, 1, 2, 2, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 10, 13, 16, 9, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_RELU6, false},
      /* First layers large enough (32x32 pixels x 64 outputs) to unroll
       * their taps: MobileNet's (filter and bias constants) and a 2x3
       * window over 2 channels (filter and bias model inputs). */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 64, 64, 3, 64, 3, 3, 2, 2, 0, 1, 1, 1, VKNN_FUSED_RELU6, true,
       0, false, true},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 64, 64, 2, 64, 2, 3, 2, 2, 1, 1, 0, 1, VKNN_FUSED_NONE, false,
       0, false, true},
  };
  RUN(cases);
}

/* One row (or pixel) against a long reduction: the split-K product. */
static void test_gemv(void **state) {
  static const conv_case cases[] = {
      {"gemv_splitk_f32", OP_FULLY_CONNECTED, false, 1, 1, 1, 300, 37, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      /* A row length that is no multiple of 4. */
      {"gemv_splitk_f16", OP_FULLY_CONNECTED, true, 1, 1, 1, 130, 6, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      {"gemv_splitk_f32", OP_CONV, false, 1, 1, 1, 64, 10, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      {"gemv_splitk_f16", OP_FULLY_CONNECTED, true, 1, 1, 1, 1000, 3, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
  };
  RUN(cases);
}

static void test_depthwise(void **state) {
  static const conv_case cases[] = {
      /* 3x3 stride 1, padding 1, 9 columns (no whole row block), vec4 channels. */
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 1, 7, 9, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, true},
      /* Stride 2, padding only after, 6 channels (not a multiple of 4). */
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 1, 9, 10, 6, 6, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_NONE, false},
      /* A 5x5 window, no padding, two batches. */
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 2, 8, 11, 12, 12, 5, 5, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 1, 6, 6, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_RELU6, true},
      /* Wider padding than the window reaches on one side; 3 channels. */
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 1, 5, 6, 3, 3, 3, 2, 2, 1, 2, 0, 1, 2, VKNN_FUSED_NONE, false},
      /* Rows of 8 and 9 taps. */
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 1, 9, 12, 8, 8, 2, 8, 1, 1, 3, 4, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 1, 10, 13, 8, 8, 3, 9, 1, 1, 4, 4, 1, 1, VKNN_FUSED_NONE, false},
  };
  RUN(cases);
}

/* Groups: a channel block of 8 or 4 inside each group on the tiled kernel;
 * groups of output channels that no block of 4 divides on the direct one. */
static void test_grouped(void **state) {
  static const conv_case cases[] = {
      /* 2 groups of 8 outputs from 4 inputs each (vec4 loads), 3x3 stride 2, padding. */
      {"conv2d_gemm_f32", OP_GROUPED, false, 2, 9, 7, 8, 16, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_RELU6, true, 2},
      /* 3 groups of 4 outputs from 3 inputs each (scalar loads), stride (1, 2). */
      {"conv2d_gemm_f16", OP_GROUPED, true, 1, 8, 9, 9, 12, 2, 3, 1, 2, 0, 2, 1, 0, VKNN_FUSED_NONE, false, 3},
      /* Pointwise, 4 groups of 8 outputs from 2 inputs each. */
      {"conv2d_gemm_f32", OP_GROUPED, false, 1, 5, 7, 8, 32, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false, 4},
      /* 2 groups of 6 outputs (no block of 4 divides a group): the direct kernel. */
      {"conv2d_f32", OP_GROUPED, false, 1, 7, 6, 4, 12, 3, 3, 2, 1, 1, 1, 0, 1, VKNN_FUSED_NONE, true, 2},
      /* 3 groups of 3 outputs, float16, stride 2. */
      {"conv2d_f16", OP_GROUPED, true, 2, 6, 5, 6, 9, 3, 2, 2, 2, 1, 0, 1, 1, VKNN_FUSED_RELU, false, 3},
  };
  RUN(cases);
}

/* Transposed convolutions as gathers: strides above 1 (taps between input
 * rows contribute nothing), padding that crops the output. */
static void test_transposed(void **state) {
  static const conv_case cases[] = {
      /* 3x3 stride 2, padding 1 on every side, 8 inputs (vec4 loads), 10 outputs. */
      {"conv2d_gemm_f32", OP_TRANSPOSED, false, 2, 4, 5, 8, 10, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_RELU, true},
      /* A 2x3 window, strides (3, 2), uneven padding, 3 inputs, float16. */
      {"conv2d_gemm_f16", OP_TRANSPOSED, true, 1, 5, 4, 3, 6, 2, 3, 3, 2, 0, 2, 1, 0, VKNN_FUSED_NONE, false},
      /* Stride 1 with no padding: a full correlation with the flipped window. */
      {"conv2d_gemm_f32", OP_TRANSPOSED, false, 1, 6, 6, 5, 4, 3, 3, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
      /* A kernel smaller than the stride: output positions no tap reaches. */
      {"conv2d_gemm_f32", OP_TRANSPOSED, false, 1, 4, 3, 4, 8, 2, 2, 3, 3, 0, 1, 1, 0, VKNN_FUSED_NONE, true},
  };
  RUN(cases);
}

/* Devices forcing Winograd convolutions: F(2,3) and F(4,3), each reading
 * storage buffers, and texel buffers sharing filter loads across a subgroup
 * where the device can (the products' _subgroup variants, on a packed U);
 * and one that never runs them. */
#define WINOGRAD_DEVICES 4

typedef struct winograd_devices {
  vknn_device *winograd[WINOGRAD_DEVICES];
  vknn_device *plain;
} winograd_devices;

static void open_winograd_devices(winograd_devices *d) {
  for (int i = 0; i <= WINOGRAD_DEVICES; ++i) {
    vknn_device_options options = {
        .enable_validation = true,
        .operand_reads = i % 2 ? VKNN_OPERAND_READS_TEXEL : VKNN_OPERAND_READS_STORAGE,
        .winograd = i == WINOGRAD_DEVICES ? VKNN_WINOGRAD_OFF
                    : i / 2 == 0          ? VKNN_WINOGRAD_F2X3
                                          : VKNN_WINOGRAD_F4X3,
        .float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_OFF,
        .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
        .subgroup_filter = i % 2 ? VKNN_SUBGROUP_FILTER_ON : VKNN_SUBGROUP_FILTER_OFF};
    vknn_device **slot = i == WINOGRAD_DEVICES ? &d->plain : &d->winograd[i];
    assert_int_equal(vknn_device_open(&options, slot), VKNN_STATUS_NONE);
  }
}

static void close_winograd_devices(winograd_devices *d) {
  for (int i = 0; i <= WINOGRAD_DEVICES; ++i) {
    vknn_device *device = i == WINOGRAD_DEVICES ? d->plain : d->winograd[i];
    assert_int_equal(vknn_device_get_validation_message_count(device), 0);
    vknn_device_close(device);
  }
}

/* A case on the implicit matrix product, then on every Winograd device
 * against it. c->kernel: "winograd" where the Winograd kernels must run,
 * else the kernel expected on the Winograd devices too. */
static void run_winograd_case(fixture *f, const winograd_devices *d, const conv_case *c) {
  const char *type = c->f16 ? "f16" : "f32";
  char plain_kernel[64];
  snprintf(plain_kernel, sizeof(plain_kernel), "conv2d_gemm_%s", type);
  tensors t;
  make_tensors(c, &t);
  other_run other = {malloc(t.out_count * sizeof(float)), false, 0};
  assert_non_null(other.values);
  run_case_on(f, d->plain, plain_kernel, c, &other);
  other.compare = true;
  for (int i = 0; i < WINOGRAD_DEVICES; ++i) {
    char kernel[64];
    bool winograd = strcmp(c->kernel, "winograd") == 0;
    if (winograd) snprintf(kernel, sizeof(kernel), "conv2d_winograd_input_%s_%s", i / 2 ? "f4x3" : "f2x3", type);
    else snprintf(kernel, sizeof(kernel), "%s", c->kernel);
    /* The matrix products read their operands as texels on texel devices;
     * the transforms have no texel variants. */
    if (!winograd && i % 2 && d->winograd[i]->vk.texel_reads) strcat(kernel, "_texel");
    if (!winograd && d->winograd[i]->vk.subgroup_filter && shares_filter_loads(c)) strcat(kernel, "_subgroup");
    run_case_on(f, d->winograd[i], kernel, c, &other);
  }
  free(other.values);
  free_tensors(&t);
}

/* 3x3 stride-1 convolutions on every tile and way of reading, against the
 * implicit matrix product and the reference. */
static void test_winograd(void **state) {
  static const conv_case cases[] = {
      /* SAME padding, 7x9 (no size a tile divides), vec4 input, 12 outputs
       * (M padded to the products' block of 8, scalar stores), RELU6. */
      {"winograd", OP_CONV, false, 1, 7, 9, 8, 12, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU6, true},
      /* VALID, two batches, 5 input channels (V padded to 8), 7 outputs. */
      {"winograd", OP_CONV, false, 2, 6, 5, 5, 7, 3, 3, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      /* float16, vec4 loads and stores, RELU. */
      {"winograd", OP_CONV, true, 1, 10, 11, 12, 16, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, true},
      /* float16, uneven padding (right 2, top 1), 3 input channels, two batches. */
      {"winograd", OP_CONV, true, 2, 5, 5, 3, 5, 3, 3, 1, 1, 0, 2, 1, 0, VKNN_FUSED_RELU6, true},
      /* Reductions of 36 and 40 channels: the transforms' error grows with
       * them (the model builder holds 16 KiB of constants). */
      {"winograd", OP_CONV, false, 1, 8, 8, 36, 10, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, true},
      {"winograd", OP_CONV, true, 1, 9, 7, 40, 16, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, true},
      /* A filter that is a model input: no transform at prepare, so the
       * implicit matrix product even where Winograd is forced. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 6, 7, 4, 8, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, false},
  };
  winograd_devices d;
  open_winograd_devices(&d);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) run_winograd_case(*state, &d, &cases[i]);
  close_winograd_devices(&d);
}

/* A device computing float16 kernels in float16 (the option ON), reading
 * operands as asked, kernel tuning off (the tests name the kernels). */
static vknn_device *open_float16_arithmetic(vknn_operand_reads reads) {
  vknn_device_options options = {.enable_validation = true,
                                 .operand_reads = reads,
                                 .float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_ON,
                                 .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
                                 .subgroup_filter = VKNN_SUBGROUP_FILTER_OFF};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  return device;
}

/* float16 cases on devices computing them in float16 (the option ON),
 * reading storage and then texel buffers: every kernel's _f16_arith
 * variant, on the shapes of the tests above, and reductions of 4096
 * elements whose float16 sums must move into float32 ones in time
 * (long_sums). */
static void test_float16_arithmetic(void **state) {
  static const conv_case cases[] = {
      {"conv2d_gemm_f16", OP_CONV, true, 2, 3, 5, 6, 5, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 9, 9, 20, 17, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 5, 1, 1, 7, 11, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 7, 6, 8, 10, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 10, 13, 16, 9, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_RELU6, true},
      {"conv2d_gemm_f16", OP_GROUPED, true, 1, 8, 9, 9, 12, 2, 3, 1, 2, 0, 2, 1, 0, VKNN_FUSED_NONE, false, 3},
      {"conv2d_gemm_f16", OP_TRANSPOSED, true, 1, 5, 4, 3, 6, 2, 3, 3, 2, 0, 2, 1, 0, VKNN_FUSED_NONE, false},
      {"gemv_splitk_f16", OP_FULLY_CONNECTED, true, 1, 1, 1, 130, 6, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      {"gemv_splitk_f16", OP_FULLY_CONNECTED, true, 1, 1, 1, 1000, 3, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 1, 9, 10, 6, 6, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_NONE, false},
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 1, 6, 6, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1, VKNN_FUSED_RELU6, true},
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 2, 8, 11, 12, 12, 5, 5, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* Two rows of 4096 (four channels a step, flushed within the tap);
       * two of 4095 (one channel a step); 3x3 windows over 512 channels
       * (4608 elements at the centre); a 31x31 window over 3 channels
       * (flushed every 10 taps). Split-K sums each four-element dot
       * product into float32 at once: it has no long float16 sum. */
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 2, 1, 1, 4096, 8, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 2, 1, 1, 4095, 4, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 3, 3, 512, 4, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 31, 31, 3, 4, 31, 31, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
  };
  fixture *f = *state;
  for (int d = 0; d < 2; ++d) {
    vknn_device *device =
        open_float16_arithmetic(d ? VKNN_OPERAND_READS_TEXEL : VKNN_OPERAND_READS_STORAGE);
    bool has_float16 = vknn_vk_has_shader(&device->vk, VKNN_SHADER_CONV2D_GEMM_F16_ARITH);
    /* ON takes effect wherever the device has shaderFloat16. */
    assert_int_equal(device->vk.float16_arithmetic, has_float16);
    for (size_t i = 0; has_float16 && i < sizeof(cases) / sizeof(cases[0]); ++i) {
      if (d && !device->vk.texel_reads) break;
      char kernel[64];
      snprintf(kernel, sizeof(kernel), "%s_arith%s", cases[i].kernel, d ? "_texel" : "");
      run_case_on(f, device, kernel, &cases[i], NULL);
    }
    if (!has_float16) print_message("no shaderFloat16: the float16 arithmetic kernels are not tested\n");
    assert_int_equal(vknn_device_get_validation_message_count(device), 0);
    vknn_device_close(device);
  }
}

/* Pointwise layers on gemm_shared_64x64 (the option ON, kernel tuning off):
 * tiles of 64 pixels x 64 channels staged in shared memory, steps of 16
 * input channels. Layers it does not take stay on their kernels. */
static void test_gemm_shared_tiles(void **state) {
  static const conv_case cases[] = {
      /* 35 pixels, 13 channels: one partial tile, scalar stores. */
      {"gemm_shared_64x64_f32", OP_CONV, false, 1, 5, 7, 12, 13, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, true},
      /* 6 input channels (scalar loads, a step mostly past the row's end). */
      {"gemm_shared_64x64_f16", OP_CONV, true, 2, 3, 5, 6, 5, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* 323 pixels and 72 channels: 6 x 2 tiles, the last of each partial;
       * 40 input channels: two whole steps and half of one. */
      {"gemm_shared_64x64_f32", OP_CONV, false, 1, 17, 19, 40, 72, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      /* 37 input channels (scalar loads over three steps), 64 channels. */
      {"gemm_shared_64x64_f16", OP_CONV, true, 1, 9, 9, 37, 64, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, true},
      {"gemm_shared_64x64_f32", OP_TRANSPOSED, false, 1, 6, 5, 8, 12, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      /* Rows of a fully connected layer; two rows of 4096. */
      {"gemm_shared_64x64_f32", OP_FULLY_CONNECTED, false, 3, 1, 1, 20, 9, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, true},
      {"gemm_shared_64x64_f16", OP_FULLY_CONNECTED, true, 5, 1, 1, 7, 11, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU, false},
      {"gemm_shared_64x64_f32", OP_FULLY_CONNECTED, false, 2, 1, 1, 4096, 8, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* One row, windows and groups keep their kernels. */
      {"gemv_splitk_f32", OP_FULLY_CONNECTED, false, 1, 1, 1, 130, 6, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      {"conv2d_gemm_f32", OP_CONV, false, 1, 7, 6, 8, 10, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, false},
      {"conv2d_gemm_f32", OP_GROUPED, false, 1, 4, 5, 8, 16, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 2},
  };
  vknn_device_options options = {.enable_validation = true,
                                 .operand_reads = VKNN_OPERAND_READS_STORAGE,
                                 .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
                                 .subgroup_filter = VKNN_SUBGROUP_FILTER_OFF,
                                 .gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  assert_true(device->vk.gemm_shared_tiles);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
    run_case_on(*state, device, cases[i].kernel, &cases[i], NULL);
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

/* A device whose texel views hold at most 28 texels: a 12-channel filter
 * of 8 input channels (24 texels) fits one, packed by 8 channels (16 rows,
 * 32 texels) it would not, so the shared loads read it unpacked and no
 * packed copy is made. */
static void test_packed_filter_too_large(void **state) {
  static const conv_case c = {"conv2d_gemm_f32_texel_subgroup", OP_CONV, false, 1, 2, 2, 8, 12, 1, 1, 1, 1,
                              0, 0, 0, 0, VKNN_FUSED_NONE, true, .packed_too_large = true};
  vknn_device_options options = {.enable_validation = true,
                                 .operand_reads = VKNN_OPERAND_READS_TEXEL,
                                 .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
                                 .subgroup_filter = VKNN_SUBGROUP_FILTER_ON};
  vknn_device *device = NULL;
  assert_int_equal(vknn_device_open(&options, &device), VKNN_STATUS_NONE);
  if (!device->vk.texel_reads || !device->vk.subgroup_filter) {
    print_message("no texel reads or shared filter loads here: not tested\n");
  } else {
    device->vk.properties.limits.maxTexelBufferElements = 28;
    run_case_on(*state, device, c.kernel, &c, NULL);
  }
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

/* Stands the device for one that runs a million invocations at once, so
 * that the matrix product splits its reductions across the workgroup
 * (conv2d_gemm's K_SPLIT; lavapipe reports no width). 0 restores it. */
static void set_width(vknn_device *device, uint32_t invocations) {
  device->vk.parallel_invocations = invocations;
}

/* On a device that says it is wide: reductions split in 2 to 8 slices
 * (pointwise and windowed, vec4 and single-channel steps, slices of unequal
 * length, groups, transposed, several batches, float32 and float16; with
 * float16 arithmetic, long sums whose slices must flush their float16 sums
 * in time), and depthwise rows in the shortest blocks. */
static void test_wide_device(void **state) {
  static const conv_case cases[] = {
      /* 8 slices of 64 channels; 13 outputs (scalar stores), 49 pixels. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 7, 7, 512, 13, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
      /* 3x3 windows with padding, 64 channels: 4 slices; two batches. */
      {"conv2d_gemm_f16", OP_CONV, true, 2, 5, 6, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_RELU, false},
      /* 130 channels one at a time: 8 slices of 17 and 16. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 4, 5, 130, 8, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_NONE, false},
      /* 40 channels: 2 slices of 5 and 5 vec4 steps; stride 2. */
      {"conv2d_gemm_f32", OP_CONV, false, 1, 9, 9, 40, 12, 1, 1, 2, 2, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* Three rows of 1000. */
      {"conv2d_gemm_f32", OP_FULLY_CONNECTED, false, 3, 1, 1, 1000, 9, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false},
      /* Two groups of 32 input channels: 2 slices in each group. */
      {"conv2d_gemm_f32", OP_GROUPED, false, 1, 6, 7, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, false, 2},
      {"conv2d_gemm_f16", OP_TRANSPOSED, true, 1, 4, 5, 48, 8, 3, 3, 2, 2, 0, 1, 1, 0, VKNN_FUSED_NONE, false},
      /* Depthwise rows in blocks of 1 on such a device (of 8 and 4 elsewhere). */
      {"conv2d_depthwise_f32", OP_DEPTHWISE, false, 1, 9, 10, 6, 6, 3, 3, 2, 2, 0, 1, 0, 1, VKNN_FUSED_NONE, true},
      {"conv2d_depthwise_f16", OP_DEPTHWISE, true, 2, 8, 11, 12, 12, 5, 5, 1, 1, 0, 0, 0, 0, VKNN_FUSED_RELU6, false},
  };
  static const conv_case long_sums[] = {
      /* 8 slices of 8000 channels: unless every slice flushes its float16
       * sums in time, each ends thousands off (past 2048, float16 adds 3
       * as 2 or 4). */
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 2, 1, 1, 64000, 4, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 2, 1, 1, 4096, 8, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_FULLY_CONNECTED, true, 2, 1, 1, 4095, 4, 1, 1, 1, 1, 0, 0, 0, 0, VKNN_FUSED_NONE, false, 0, true},
      {"conv2d_gemm_f16", OP_CONV, true, 1, 3, 3, 512, 4, 3, 3, 1, 1, 1, 1, 1, 1, VKNN_FUSED_NONE, false, 0, true},
  };
  fixture *f = *state;
  for (int d = 0; d < READS_FIXTURE_DEVICES; ++d) set_width(f->devices[d], 1u << 20);
  split_reductions = true;
  RUN(cases);
  split_reductions = false;
  for (int d = 0; d < READS_FIXTURE_DEVICES; ++d) set_width(f->devices[d], 0);
  vknn_device *device = open_float16_arithmetic(VKNN_OPERAND_READS_STORAGE);
  set_width(device, 1u << 20);
  for (size_t i = 0; device->vk.float16_arithmetic && i < sizeof(long_sums) / sizeof(long_sums[0]); ++i)
    run_case_on(f, device, "conv2d_gemm_f16_arith", &long_sums[i], NULL);
  assert_int_equal(vknn_device_get_validation_message_count(device), 0);
  vknn_device_close(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_pointwise),
      cmocka_unit_test(test_gemm_windows),
      cmocka_unit_test(test_gemv),
      cmocka_unit_test(test_depthwise),
      cmocka_unit_test(test_grouped),
      cmocka_unit_test(test_transposed),
      cmocka_unit_test(test_winograd),
      cmocka_unit_test(test_float16_arithmetic),
      cmocka_unit_test(test_gemm_shared_tiles),
      cmocka_unit_test(test_packed_filter_too_large),
      cmocka_unit_test(test_wide_device),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
