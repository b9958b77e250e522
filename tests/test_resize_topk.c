/* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR and TOPK_V2 against models of the
 * NNAPI reference written here: every combination of align_corners and
 * half_pixel_centers in both layouts, sizes given as sizes or scales, the
 * reference's quantized rounding, TOPK_V2's tie order (equal values: the
 * larger index first) and rows longer than one workgroup's sort (the
 * multi-pass path), the long-row limit reported as unsupported, and the
 * output size and k given as model inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/shared_memory.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED

typedef runner_fixture fixture;

/* ---- running a model --------------------------------------------------- */

static vknn_prepared_model *prepare(fixture *f, model_builder *b) {
  return model_runner_prepare(f->device, &f->log, b);
}

static vknn_status execute(vknn_prepared_model *pm, const model_builder *b, const buffer_arg *inputs,
                           buffer_arg *outputs, vknn_output_shape *shapes) {
  return model_runner_execute(pm, b, inputs, outputs, shapes);
}

static void run_model(fixture *f, model_builder *b, const buffer_arg *inputs, buffer_arg *outputs,
                      vknn_output_shape *shapes) {
  model_runner_run(f->device, &f->log, b, inputs, outputs, shapes);
}

static uint32_t const_bool(model_builder *b, bool value) {
  uint8_t byte = value;
  return mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &byte, 1);
}

static uint32_t const_f32(model_builder *b, float value) {
  return mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &value, sizeof(value));
}

/* ---- the reference's resize -------------------------------------------- */

typedef struct resize_case {
  uint32_t batches, in_h, in_w, channels, out_h, out_w;
  bool nchw, align_corners, half_pixel;
} resize_case;

static uint32_t element(const resize_case *c, uint32_t n, uint32_t y, uint32_t x, uint32_t ch,
                        uint32_t h, uint32_t w) {
  if (c->nchw) return ((n * c->channels + ch) * h + y) * w + x;
  return ((n * h + y) * w + x) * c->channels + ch;
}

static float resize_scale(uint32_t in, uint32_t out, bool align_corners) {
  return align_corners && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
}

/* ComputeInterpolationValues: source coordinate, lower and upper pixel. */
static float bilinear_source(uint32_t o, float scale, bool half_pixel, uint32_t size, int *lo, int *hi) {
  float s = half_pixel ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
  int floor_s = (int)floorf(s), ceil_s = (int)ceilf(s);
  *lo = floor_s > 0 ? floor_s : 0;
  *hi = ceil_s < (int)size - 1 ? ceil_s : (int)size - 1;
  return s;
}

/* Bilinear output values as reals (the reference's float expression). */
static void bilinear_reference(const resize_case *c, const float *in, float *out) {
  float sh = resize_scale(c->in_h, c->out_h, c->align_corners);
  float sw = resize_scale(c->in_w, c->out_w, c->align_corners);
  for (uint32_t n = 0; n < c->batches; ++n)
    for (uint32_t y = 0; y < c->out_h; ++y) {
      int y0, y1;
      float sy = bilinear_source(y, sh, c->half_pixel, c->in_h, &y0, &y1);
      float dy = sy - (float)y0;
      for (uint32_t x = 0; x < c->out_w; ++x) {
        int x0, x1;
        float sx = bilinear_source(x, sw, c->half_pixel, c->in_w, &x0, &x1);
        float dx = sx - (float)x0;
        for (uint32_t ch = 0; ch < c->channels; ++ch) {
          float v00 = in[element(c, n, (uint32_t)y0, (uint32_t)x0, ch, c->in_h, c->in_w)];
          float v01 = in[element(c, n, (uint32_t)y0, (uint32_t)x1, ch, c->in_h, c->in_w)];
          float v10 = in[element(c, n, (uint32_t)y1, (uint32_t)x0, ch, c->in_h, c->in_w)];
          float v11 = in[element(c, n, (uint32_t)y1, (uint32_t)x1, ch, c->in_h, c->in_w)];
          float a = v00 * (1 - dy) * (1 - dx), b = v10 * dy * (1 - dx);
          float e = v01 * (1 - dy) * dx, d = v11 * dy * dx;
          out[element(c, n, y, x, ch, c->out_h, c->out_w)] = a + b + e + d;
        }
      }
    }
}

static uint32_t nearest_source(uint32_t o, float scale, const resize_case *c, uint32_t size) {
  float s = c->half_pixel ? ((float)o + 0.5f) * scale : (float)o * scale;
  int i = c->align_corners ? (int)roundf(s) : (int)floorf(s);
  if (i > (int)size - 1) i = (int)size - 1;
  if (c->half_pixel && i < 0) i = 0;
  return (uint32_t)i;
}

static void nearest_reference(const resize_case *c, const float *in, float *out) {
  float sh = resize_scale(c->in_h, c->out_h, c->align_corners);
  float sw = resize_scale(c->in_w, c->out_w, c->align_corners);
  for (uint32_t n = 0; n < c->batches; ++n)
    for (uint32_t y = 0; y < c->out_h; ++y)
      for (uint32_t x = 0; x < c->out_w; ++x)
        for (uint32_t ch = 0; ch < c->channels; ++ch) {
          uint32_t iy = nearest_source(y, sh, c, c->in_h), ix = nearest_source(x, sw, c, c->in_w);
          out[element(c, n, y, x, ch, c->out_h, c->out_w)] = in[element(c, n, iy, ix, ch, c->in_h, c->in_w)];
        }
}

/* ---- building resize models ---------------------------------------------- */

static void image_dims(const resize_case *c, uint32_t h, uint32_t w, uint32_t dims[4]) {
  dims[0] = c->batches;
  dims[c->nchw ? 2 : 1] = h;
  dims[c->nchw ? 3 : 2] = w;
  dims[c->nchw ? 1 : 3] = c->channels;
}

/* RESIZE_* of c, the output size given as INT32 sizes; every flag given. */
static void build_resize(model_builder *b, int32_t op_type, int32_t type, float scale, int32_t zero_point,
                         const resize_case *c) {
  uint32_t in_dims[4], out_dims[4];
  image_dims(c, c->in_h, c->in_w, in_dims);
  image_dims(c, c->out_h, c->out_w, out_dims);
  mb_init(b);
  uint32_t in = mb_input(b, type, in_dims, 4), out = mb_output(b, type, out_dims, 4);
  b->operands[in].scale = b->operands[out].scale = scale;
  b->operands[in].zero_point = b->operands[out].zero_point = zero_point;
  uint32_t inputs[6] = {in, mb_const_i32(b, (int32_t)c->out_w), mb_const_i32(b, (int32_t)c->out_h),
                        const_bool(b, c->nchw), const_bool(b, c->align_corners),
                        const_bool(b, c->half_pixel)};
  mb_operation(b, op_type, inputs, 6, &out, 1);
}

static size_t image_count(const resize_case *c, bool output) {
  return (size_t)c->batches * c->channels * (output ? c->out_h * c->out_w : c->in_h * c->in_w);
}

/* Fractional values, distinct enough that a wrong pixel shows. */
static void fill_image(float *values, size_t count) {
  for (size_t i = 0; i < count; ++i) values[i] = (float)((i * 37) % 101) / 8.f - 4.f;
}

/* Shapes: up and down, fractional scales, a 1-pixel axis; channel counts
 * that fill a group of 4, leave one partial, and span several groups
 * (multiples of 4 in NHWC: the 4-vector path). */
static const resize_case shapes[] = {
    {2, 3, 5, 3, 7, 4, false, false, false}, {1, 4, 4, 1, 2, 3, false, false, false},
    {1, 1, 3, 6, 3, 5, false, false, false}, {1, 5, 3, 9, 5, 8, false, false, false},
    {1, 2, 2, 4, 3, 3, false, false, false}, {1, 6, 7, 2, 1, 1, false, false, false},
};

/* Every shape in both layouts with each allowed pair of flags. */
static void for_each_resize_case(void (*check)(fixture *, const resize_case *), fixture *f) {
  static const bool flags[3][2] = {{false, false}, {true, false}, {false, true}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s)
    for (int layout = 0; layout < 2; ++layout)
      for (int k = 0; k < 3; ++k) {
        resize_case c = shapes[s];
        c.nchw = layout == 1;
        c.align_corners = flags[k][0];
        c.half_pixel = flags[k][1];
        check(f, &c);
      }
}

static void check_float_resize(fixture *f, const resize_case *c, int32_t op_type) {
  size_t in_count = image_count(c, false), out_count = image_count(c, true);
  float *in = malloc(in_count * sizeof(float)), *want = malloc(out_count * sizeof(float));
  float *got = malloc(out_count * sizeof(float));
  model_builder *b = malloc(sizeof(*b));
  assert_true(in && want && got && b);
  fill_image(in, in_count);
  if (op_type == VKNN_OPERATION_RESIZE_BILINEAR) bilinear_reference(c, in, want);
  else nearest_reference(c, in, want);
  build_resize(b, op_type, F32, 0.f, 0, c);
  buffer_arg input = {in, NULL, in_count * sizeof(float)}, output = {NULL, got, out_count * sizeof(float)};
  run_model(f, b, &input, &output, NULL);
  for (size_t i = 0; i < out_count; ++i)
    if (fabsf(got[i] - want[i]) > 1e-6f * (1.f + fabsf(want[i])))
      fail_msg("%ux%u -> %ux%u x%u %s ac=%d hp=%d: element %zu is %.9g, want %.9g", c->in_h, c->in_w,
               c->out_h, c->out_w, c->channels, c->nchw ? "NCHW" : "NHWC", c->align_corners,
               c->half_pixel, i, got[i], want[i]);
  free(in), free(want), free(got), free(b);
}

static void check_bilinear_f32(fixture *f, const resize_case *c) {
  check_float_resize(f, c, VKNN_OPERATION_RESIZE_BILINEAR);
}
static void check_nearest_f32(fixture *f, const resize_case *c) {
  check_float_resize(f, c, VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR);
}

static void test_bilinear_corners_and_centers(void **state) { for_each_resize_case(check_bilinear_f32, *state); }
static void test_nearest_corners_and_centers(void **state) { for_each_resize_case(check_nearest_f32, *state); }

/* Quantized bilinear rounds as the reference: static_cast<T>(v + 0.5f),
 * so a negative int8 result moves toward zero (-27.5 gives -27), while the
 * unsigned codes round half up. Both types against the model, every case. */
static void check_quant_bilinear(fixture *f, const resize_case *c) {
  size_t in_count = image_count(c, false), out_count = image_count(c, true);
  float *real_in = malloc(in_count * sizeof(float)), *want = malloc(out_count * sizeof(float));
  uint8_t *codes = malloc(in_count), *got = malloc(out_count);
  model_builder *b = malloc(sizeof(*b));
  assert_true(real_in && want && codes && got && b);
  for (int is_signed = 0; is_signed < 2; ++is_signed) {
    for (size_t i = 0; i < in_count; ++i) {
      int code = (int)((i * 53 + 7) % 256) - (is_signed ? 128 : 0);
      codes[i] = (uint8_t)code;
      real_in[i] = (float)code;
    }
    bilinear_reference(c, real_in, want);
    build_resize(b, VKNN_OPERATION_RESIZE_BILINEAR, is_signed ? Q8S : Q8, 0.5f, is_signed ? -3 : 3, c);
    buffer_arg input = {codes, NULL, in_count}, output = {NULL, got, out_count};
    run_model(f, b, &input, &output, NULL);
    for (size_t i = 0; i < out_count; ++i) {
      int expected = (int)(want[i] + 0.5f); /* truncates toward zero */
      int actual = is_signed ? (int)(int8_t)got[i] : (int)got[i];
      if (actual != expected)
        fail_msg("%s %ux%u -> %ux%u ac=%d hp=%d %s: element %zu is %d, want %d (real %.9g)",
                 is_signed ? "int8" : "uint8", c->in_h, c->in_w, c->out_h, c->out_w, c->align_corners,
                 c->half_pixel, c->nchw ? "NCHW" : "NHWC", i, actual, expected, want[i]);
    }
  }
  free(real_in), free(want), free(codes), free(got), free(b);
}

static void test_quant_bilinear_rounding(void **state) { for_each_resize_case(check_quant_bilinear, *state); }

/* Sizes from FLOAT32 scales (floor(size * scale)), the output left unknown
 * in the model: a 5x5 image by 1.6 and 0.5 is 8 high, 2 wide. The float16
 * form: a TENSOR_FLOAT16 image with FLOAT16 scales. */
static void test_scale_form(void **state) {
  fixture *f = *state;
  for (int half = 0; half < 2; ++half) {
    model_builder *b = malloc(sizeof(*b));
    assert_non_null(b);
    mb_init(b);
    const uint32_t in_dims[4] = {1, 5, 5, 1}, unknown[4] = {0, 0, 0, 0};
    int32_t type = half ? F16 : F32;
    uint32_t in = mb_input(b, type, in_dims, 4), out = mb_output(b, type, unknown, 4);
    uint32_t width_scale, height_scale;
    if (half) {
      uint16_t w = runner_half(0.5f), h = runner_half(1.6015625f); /* 1.6 rounded to float16 */
      width_scale = mb_const_tensor(b, VKNN_OPERAND_FLOAT16, NULL, 0, &w, 2);
      height_scale = mb_const_tensor(b, VKNN_OPERAND_FLOAT16, NULL, 0, &h, 2);
    } else {
      width_scale = const_f32(b, 0.5f);
      height_scale = const_f32(b, 1.6f);
    }
    uint32_t inputs[4] = {in, width_scale, height_scale, const_bool(b, false)};
    mb_operation(b, VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR, inputs, 4, &out, 1);
    float in_f32[25];
    uint16_t in_f16[25], out_f16[16];
    float out_f32[16];
    for (int i = 0; i < 25; ++i) in_f32[i] = (float)i, in_f16[i] = runner_half((float)i);
    buffer_arg input = {half ? (const void *)in_f16 : in_f32, NULL, half ? 50u : 100u};
    buffer_arg output = {NULL, half ? (void *)out_f16 : out_f32, half ? 32u : 64u};
    vknn_output_shape shape[1];
    run_model(f, b, &input, &output, shape);
    const uint32_t want_dims[4] = {1, 8, 2, 1};
    assert_int_equal(shape[0].rank, 4);
    for (int d = 0; d < 4; ++d) assert_int_equal(shape[0].dimensions[d], want_dims[d]);
    /* Row floor(y * 5 / 8), column floor(x * 5 / 2). */
    for (uint32_t y = 0; y < 8; ++y)
      for (uint32_t x = 0; x < 2; ++x) {
        float want = in_f32[(y * 5 / 8) * 5 + (x * 5 / 2)];
        float got = half ? runner_float(out_f16[y * 2 + x]) : out_f32[y * 2 + x];
        assert_float_equal(got, want, 0.f);
      }
    free(b);
  }
}

/* The output size as model inputs: one prepared model runs with several
 * sizes (each compiled at its first execution), as INT32 sizes and as
 * FLOAT32 scales; a size of 0 fails that execution only. */
static void check_run_time_size(fixture *f, vknn_prepared_model *pm, const model_builder *b,
                                const resize_case *c, const void *size_w, const void *size_h) {
  size_t in_count = image_count(c, false), out_count = image_count(c, true);
  float in[64], want[256], got[256];
  assert_true(in_count <= 64 && out_count <= 256);
  fill_image(in, in_count);
  bilinear_reference(c, in, want);
  buffer_arg inputs[3] = {{in, NULL, in_count * sizeof(float)}, {size_w, NULL, 4}, {size_h, NULL, 4}};
  buffer_arg output = {NULL, got, out_count * sizeof(float)};
  vknn_output_shape shape[1];
  vknn_status s = execute(pm, b, inputs, &output, shape);
  if (s != VKNN_STATUS_NONE) fail_msg("execute: %s (%s)", vknn_status_name(s), f->log.last);
  const uint32_t want_dims[4] = {1, c->out_h, c->out_w, 1};
  for (int d = 0; d < 4; ++d) assert_int_equal(shape[0].dimensions[d], want_dims[d]);
  for (size_t i = 0; i < out_count; ++i)
    if (fabsf(got[i] - want[i]) > 1e-6f * (1.f + fabsf(want[i])))
      fail_msg("%ux%u: element %zu is %.9g, want %.9g", c->out_h, c->out_w, i, got[i], want[i]);
}

static void test_size_at_run_time(void **state) {
  fixture *f = *state;
  for (int scales = 0; scales < 2; ++scales) {
    model_builder *b = malloc(sizeof(*b));
    assert_non_null(b);
    mb_init(b);
    const uint32_t in_dims[4] = {1, 5, 6, 1}, unknown[4] = {0, 0, 0, 0};
    int32_t scalar = scales ? VKNN_OPERAND_FLOAT32 : VKNN_OPERAND_INT32;
    uint32_t in = mb_input(b, F32, in_dims, 4);
    uint32_t width = mb_input(b, scalar, NULL, 0), height = mb_input(b, scalar, NULL, 0);
    uint32_t out = mb_output(b, F32, unknown, 4);
    uint32_t inputs[4] = {in, width, height, const_bool(b, false)};
    mb_operation(b, VKNN_OPERATION_RESIZE_BILINEAR, inputs, 4, &out, 1);
    vknn_prepared_model *pm = prepare(f, b);
    /* 5x6 to 8x3, 2x12 and 8x3 again (the first compilation reused). */
    const uint32_t sizes[3][2] = {{8, 3}, {2, 12}, {8, 3}};
    for (int k = 0; k < 3; ++k) {
      resize_case c = {1, 5, 6, 1, sizes[k][0], sizes[k][1], false, false, false};
      int32_t w = (int32_t)c.out_w, h = (int32_t)c.out_h;
      float ws = (float)c.out_w / 6.f, hs = (float)c.out_h / 5.f;
      check_run_time_size(f, pm, b, &c, scales ? (const void *)&ws : &w, scales ? (const void *)&hs : &h);
    }
    float in_values[30] = {0}, out_values[1];
    int32_t zero = 0, three = 3;
    float zero_scale = 0.f, one = 1.f;
    buffer_arg bad[3] = {{in_values, NULL, sizeof(in_values)},
                         {scales ? (const void *)&zero_scale : &zero, NULL, 4},
                         {scales ? (const void *)&one : &three, NULL, 4}};
    buffer_arg output = {NULL, out_values, sizeof(out_values)};
    assert_int_not_equal(execute(pm, b, bad, &output, NULL), VKNN_STATUS_NONE);
    vknn_prepared_model_release(pm);
    free(b);
  }
}

/* ---- TOPK_V2 ------------------------------------------------------------- */

typedef struct topk_entry {
  double value;
  int32_t index;
} topk_entry;

/* NNAPI's order: larger value first; of equal values, the larger index. */
static int topk_order(const void *a, const void *b) {
  const topk_entry *x = a, *y = b;
  if (x->value != y->value) return x->value > y->value ? -1 : 1;
  return x->index > y->index ? -1 : 1;
}

/* The expected indices of each row (values follow from them). */
static void topk_reference(const double *values, uint32_t rows, uint32_t length, uint32_t k, int32_t *out) {
  topk_entry *row = malloc(length * sizeof(*row));
  assert_non_null(row);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t i = 0; i < length; ++i) row[i] = (topk_entry){values[(size_t)r * length + i], (int32_t)i};
    qsort(row, length, sizeof(*row), topk_order);
    for (uint32_t i = 0; i < k; ++i) out[(size_t)r * k + i] = row[i].index;
  }
  free(row);
}

static size_t type_bytes(int32_t type) {
  return type == F32 || type == I32 ? 4 : type == F16 ? 2 : 1;
}

/* The element i of a typed buffer as a number. */
static double typed_value(int32_t type, const void *data, size_t i) {
  switch (type) {
    case F32: return ((const float *)data)[i];
    case F16: return runner_float(((const uint16_t *)data)[i]);
    case I32: return ((const int32_t *)data)[i];
    case Q8: return ((const uint8_t *)data)[i];
    default: return ((const int8_t *)data)[i];
  }
}

static void build_topk(model_builder *b, int32_t type, const uint32_t *dims, uint32_t rank, uint32_t k) {
  uint32_t out_dims[VKNN_MAX_RANK];
  memcpy(out_dims, dims, rank * sizeof(uint32_t));
  out_dims[rank - 1] = k;
  mb_init(b);
  uint32_t in = mb_input(b, type, dims, rank);
  uint32_t outs[2] = {mb_output(b, type, out_dims, rank), mb_output(b, I32, out_dims, rank)};
  if (type == Q8 || type == Q8S) b->operands[in].scale = b->operands[outs[0]].scale = 0.25f;
  uint32_t inputs[2] = {in, mb_const_i32(b, (int32_t)k)};
  mb_operation(b, VKNN_OPERATION_TOPK_V2, inputs, 2, outs, 2);
}

/* Runs TOPK_V2 on typed data and checks values (bit for bit: the input's
 * own elements) and indices against the reference order. */
static void check_topk(fixture *f, int32_t type, const void *data, const uint32_t *dims, uint32_t rank,
                       uint32_t k) {
  uint32_t length = dims[rank - 1];
  size_t count = 1;
  for (uint32_t d = 0; d < rank; ++d) count *= dims[d];
  uint32_t rows = (uint32_t)(count / length);
  size_t out_count = (size_t)rows * k, bytes = type_bytes(type);
  double *numbers = malloc(count * sizeof(double));
  int32_t *want = malloc(out_count * sizeof(int32_t)), *got_indices = malloc(out_count * sizeof(int32_t));
  uint8_t *got_values = malloc(out_count * bytes);
  model_builder *b = malloc(sizeof(*b));
  assert_true(numbers && want && got_indices && got_values && b);
  for (size_t i = 0; i < count; ++i) numbers[i] = typed_value(type, data, i);
  topk_reference(numbers, rows, length, k, want);
  build_topk(b, type, dims, rank, k);
  buffer_arg input = {data, NULL, count * bytes};
  buffer_arg outputs[2] = {{NULL, got_values, out_count * bytes}, {NULL, got_indices, out_count * 4}};
  run_model(f, b, &input, outputs, NULL);
  for (size_t i = 0; i < out_count; ++i) {
    size_t row = i / k;
    const uint8_t *source = (const uint8_t *)data + (row * length + (size_t)want[i]) * bytes;
    if (got_indices[i] != want[i] || memcmp(got_values + i * bytes, source, bytes) != 0)
      fail_msg("rows of %u, k %u, entry %zu: index %d value %g, want index %d value %g", length, k, i,
               got_indices[i], typed_value(type, got_values, i), want[i], numbers[row * length + (size_t)want[i]]);
  }
  free(numbers), free(want), free(got_indices), free(got_values), free(b);
}

/* Ties: equal values rank the larger index first; -0 equals +0 (the one
 * with the larger index first, its sign kept); k up to the whole row. */
static void test_topk_ties(void **state) {
  static const float values[2][8] = {{1.f, 3.f, 3.f, 2.f, 3.f, 0.f, -0.f, -5.f},
                                     {-0.f, 0.f, -1.f, -1.f, 7.f, -1.f, 0.f, 7.f}};
  const uint32_t dims[2] = {2, 8};
  for (uint32_t k = 1; k <= 8; ++k) check_topk(*state, F32, values, dims, 2, k);
  static const int32_t ones[2][8] = {{2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1}};
  check_topk(*state, I32, ones, dims, 2, 5);
}

/* Every input type, rank 1 to 3, with duplicates and the types' extremes. */
static void test_topk_types(void **state) {
  fixture *f = *state;
  static const int32_t ints[10] = {INT32_MIN, 5, INT32_MAX, -1, 0, 5, INT32_MIN, INT32_MAX, 3, -7};
  const uint32_t dims1[1] = {10};
  check_topk(f, I32, ints, dims1, 1, 6);
  static const uint8_t u8[12] = {0, 255, 7, 7, 128, 0, 255, 1, 2, 3, 4, 7};
  const uint32_t dims3[3] = {2, 2, 3};
  check_topk(f, Q8, u8, dims3, 3, 2);
  static const int8_t i8[12] = {-128, 127, 0, -1, -128, 5, 127, 127, 0, -7, -8, 3};
  check_topk(f, Q8S, i8, dims3, 3, 3);
  uint16_t halves[10];
  static const float half_values[10] = {0.5f, -2.f, 65504.f, -65504.f, 0.5f, 0.25f, -0.f, 0.f, 3.f, -2.f};
  for (int i = 0; i < 10; ++i) halves[i] = runner_half(half_values[i]);
  const uint32_t dims2[2] = {2, 5};
  check_topk(f, F16, halves, dims2, 2, 4);
}

/* Rows longer than one sort (2048): chunks and merges on the GPU. Many ties
 * (values mod 13, a scrambled order) so that the order of equal values is
 * checked across chunks; 2048 is one sort, 2049 the smallest multi-pass row;
 * k 1024, the largest a long row runs with, through several merge passes. */
static void test_topk_long_rows(void **state) {
  fixture *f = *state;
  const uint32_t cases[][3] = {{2, 2048, 2048}, {3, 2049, 2049 - 1}, {2, 5000, 7}, {1, 70000, 1024},
                               {2, 9000, 1}};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    uint32_t rows = cases[c][0], length = cases[c][1], k = cases[c][2];
    if (length > 2048 && k > 1024) k = 1024;
    size_t count = (size_t)rows * length;
    float *values = malloc(count * sizeof(float));
    assert_non_null(values);
    for (size_t i = 0; i < count; ++i) values[i] = (float)((i * 7919) % 13) - 6.f;
    const uint32_t dims[2] = {rows, length};
    check_topk(f, F32, values, dims, 2, k);
    free(values);
  }
}

/* A row longer than 2048 with k above 1024 is outside what the passes
 * reduce: the support query says so (no error), prepare fails. */
static void test_topk_long_row_limit(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  const uint32_t dims[2] = {1, 4096};
  build_topk(b, F32, dims, 2, 1025);
  bool supported[1] = {true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported[0]);
  build_topk(b, F32, dims, 2, 1024);
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 1),
                   VKNN_STATUS_NONE);
  assert_true(supported[0]);
  free(b);
}

/* k as a model input: one prepared model, several k. */
static void test_topk_k_at_run_time(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t dims[2] = {2, 6}, unknown[2] = {0, 0};
  uint32_t in = mb_input(b, F32, dims, 2), k_input = mb_input(b, VKNN_OPERAND_INT32, NULL, 0);
  uint32_t outs[2] = {mb_output(b, F32, unknown, 2), mb_output(b, I32, unknown, 2)};
  uint32_t inputs[2] = {in, k_input};
  mb_operation(b, VKNN_OPERATION_TOPK_V2, inputs, 2, outs, 2);
  vknn_prepared_model *pm = prepare(f, b);
  static const float values[12] = {4.f, -1.f, 9.f, 9.f, 0.5f, 2.f, -3.f, 8.f, 1.f, 7.f, 7.f, 6.f};
  double numbers[12];
  for (int i = 0; i < 12; ++i) numbers[i] = values[i];
  for (int32_t k = 1; k <= 6; k += 2) {
    int32_t want[12], got_indices[12];
    float got_values[12];
    topk_reference(numbers, 2, 6, (uint32_t)k, want);
    buffer_arg args[2] = {{values, NULL, sizeof(values)}, {&k, NULL, 4}};
    buffer_arg outputs[2] = {{NULL, got_values, (size_t)k * 8}, {NULL, got_indices, (size_t)k * 8}};
    vknn_output_shape shapes[2];
    vknn_status s = execute(pm, b, args, outputs, shapes);
    if (s != VKNN_STATUS_NONE) fail_msg("k %d: %s (%s)", k, vknn_status_name(s), f->log.last);
    assert_int_equal(shapes[0].dimensions[1], k);
    assert_int_equal(shapes[1].dimensions[1], k);
    for (int32_t i = 0; i < 2 * k; ++i) {
      assert_int_equal(got_indices[i], want[i]);
      assert_float_equal(got_values[i], values[(i / k) * 6 + want[i]], 0.f);
    }
  }
  int32_t too_large = 7;
  float ignored[12];
  int32_t ignored_indices[12];
  buffer_arg args[2] = {{values, NULL, sizeof(values)}, {&too_large, NULL, 4}};
  buffer_arg outputs[2] = {{NULL, ignored, sizeof(ignored)}, {NULL, ignored_indices, sizeof(ignored_indices)}};
  assert_int_not_equal(execute(pm, b, args, outputs, NULL), VKNN_STATUS_NONE);
  vknn_prepared_model_release(pm);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bilinear_corners_and_centers),
      cmocka_unit_test(test_nearest_corners_and_centers),
      cmocka_unit_test(test_quant_bilinear_rounding),
      cmocka_unit_test(test_scale_form),
      cmocka_unit_test(test_size_at_run_time),
      cmocka_unit_test(test_topk_ties),
      cmocka_unit_test(test_topk_types),
      cmocka_unit_test(test_topk_long_rows),
      cmocka_unit_test(test_topk_long_row_limit),
      cmocka_unit_test(test_topk_k_at_run_time),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
