/* The reduction kernels (shaders/reduce.comp, arg_minmax.comp; the rows and
 * passes of src/ops/reduce.c) against references computed here as the NNAPI
 * reference defines the operations: rows long enough to be split across
 * workgroups (two and three passes), reductions over axes that are not the
 * innermost (kept axes between and after the reduced ones), keep_dims and
 * the shapes it gives, ARGMAX/ARGMIN ties (the lowest index wins, across
 * lanes and split rows) and NaNs, quantized MEAN's truncating division, and
 * axes given at run time. Every output shape is left unknown in the model
 * and checked against the one the execution reports. */
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

#include "common/cts_values.h"
#include "common/shared_memory.h"
#include "support/device_pool_fixture.h"
#include "support/model_builder.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define B8 VKNN_OPERAND_TENSOR_BOOL8
#define OP(name) VKNN_OPERATION_##name

#define POOL_BYTES (8u << 20)
#define MAX_INPUT_BYTES (POOL_BYTES - (1u << 20))

/* How the input is filled. */
typedef enum fill {
  FILL_RANDOM,   /* floats in [-1, 1), codes over the whole range, any bytes for B8 */
  FILL_NEAR_ONE, /* floats in [0.99, 1.01): long products stay finite */
  FILL_LEVELS,   /* eight values only: many ties */
} fill;

typedef struct reduce_case {
  const char *what;
  int32_t op;
  int32_t type;
  uint32_t rank, dims[4];
  int32_t axes[4]; /* ARGMAX/ARGMIN: axes[0] is the axis */
  uint32_t axis_count;
  int32_t keep_dims; /* MEAN: any INT32; the others: 0 or 1 */
  fill fill;
  uint32_t passes; /* dispatches expected */
} reduce_case;

typedef device_pool_fixture fixture;

static int setup(void **state) { return device_pool_fixture_setup(state, POOL_BYTES); }
static int teardown(void **state) { return device_pool_fixture_teardown(state); }

static bool is_arg(int32_t op) { return op == OP(ARGMAX) || op == OP(ARGMIN); }

static uint32_t element_size(int32_t type) {
  return type == F32 || type == I32 ? 4 : type == F16 ? 2 : 1;
}

static uint64_t element_count(const uint32_t *dims, uint32_t rank) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

/* ---- input values --------------------------------------------------------- */

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8; /* 24 bits */
}

/* Element i of the input, written into bytes; returns the value as stored. */
static double put_value(int32_t type, uint8_t *bytes, size_t i, double v) {
  switch (type) {
    case F32: {
      float x = (float)v;
      memcpy(bytes + 4 * i, &x, 4);
      return x;
    }
    case F16: {
      uint16_t h = cts_float_to_half((float)v);
      memcpy(bytes + 2 * i, &h, 2);
      return cts_half_to_float(h);
    }
    case I32: {
      int32_t x = (int32_t)v;
      memcpy(bytes + 4 * i, &x, 4);
      return x;
    }
    case Q8S: bytes[i] = (uint8_t)(int8_t)v; return (int8_t)v;
    default: bytes[i] = (uint8_t)v; return (uint8_t)v;
  }
}

static double make_value(int32_t type, fill how, uint32_t *state) {
  uint32_t r = next_random(state);
  bool floats = type == F32 || type == F16;
  if (how == FILL_LEVELS) {
    double level = (double)(r % 8);
    return floats ? level * 0.25 - 1.0 : type == Q8S ? level * 30 - 128 : type == I32 ? level * 1e6 - 4e6 : level * 30;
  }
  if (floats) return how == FILL_NEAR_ONE ? 0.99 + 0.02 * (r / 16777216.0) : r / 8388608.0 - 1.0;
  switch (type) {
    case I32: return (double)(int32_t)(r * 256u);
    case Q8S: return (double)(int32_t)(r % 256) - 128;
    case B8: return (r % 4 == 0) ? 0 : (double)(1 + r % 255); /* any non-zero byte is true */
    default: return (double)(r % 256);
  }
}

/* ---- the NNAPI reference, in double or integer arithmetic ------------------ */

typedef struct expectation {
  uint32_t rank, dims[4];
  uint64_t count;
  double *values;
  double *tolerance; /* per output: the allowed error */
} expectation;

/* Which input axes each output reduces, and the output's shape. */
static void output_shape(const reduce_case *c, bool reduced[4], expectation *e) {
  memset(reduced, 0, 4 * sizeof(bool));
  for (uint32_t i = 0; i < (is_arg(c->op) ? 1 : c->axis_count); ++i) {
    int32_t axis = c->axes[i] < 0 ? c->axes[i] + (int32_t)c->rank : c->axes[i];
    if (axis >= 0 && axis < (int32_t)c->rank) reduced[axis] = true; /* else the execution fails */
  }
  bool keep = !is_arg(c->op) && c->keep_dims > 0;
  e->rank = 0;
  for (uint32_t d = 0; d < c->rank; ++d)
    if (!reduced[d] || keep) e->dims[e->rank++] = reduced[d] ? 1 : c->dims[d];
  if (e->rank == 0) e->dims[e->rank++] = 1;
}

/* One output: its row's elements in the reference's order. */
typedef struct row_fold {
  double sum, magnitude, product, best;
  int64_t code_sum;
  uint64_t count, best_index;
  bool nan_first;
} row_fold;

static void fold(const reduce_case *c, row_fold *r, double v, uint64_t index) {
  if (r->count == 0) {
    r->best = v;
    r->best_index = 0;
    r->nan_first = isnan(v);
  } else if (!r->nan_first) {
    bool better = c->op == OP(ARGMIN) || c->op == OP(REDUCE_MIN) || c->op == OP(REDUCE_ALL) ? v < r->best
                                                                                            : v > r->best;
    if (better) r->best = v, r->best_index = index;
  }
  r->sum += v;
  r->magnitude += fabs(v);
  r->product *= v;
  if (c->type == Q8 || c->type == Q8S) r->code_sum += (int64_t)v;
  r->count++;
}

static double result_of(const reduce_case *c, const row_fold *r, double *tolerance) {
  bool quant = c->type == Q8 || c->type == Q8S;
  double f16 = c->type == F16 ? 1.0 / 1024 : 0;
  *tolerance = 0;
  switch (c->op) {
    case OP(ARGMAX): case OP(ARGMIN): return (double)r->best_index;
    case OP(REDUCE_ANY): case OP(REDUCE_ALL): return r->best != 0;
    case OP(REDUCE_MAX): case OP(REDUCE_MIN): return r->best;
    case OP(REDUCE_PROD):
      *tolerance = fabs(r->product) * (1e-5 + f16);
      return r->product;
    case OP(MEAN):
      /* Quantized: the codes' sum divided in integers, truncated toward zero. */
      if (quant) return (double)(r->code_sum / (int64_t)r->count);
      *tolerance = (1e-5 * r->magnitude + f16 * fabs(r->sum)) / (double)r->count + 1e-7;
      return r->sum / (double)r->count;
    default:
      *tolerance = 1e-5 * r->magnitude + f16 * fabs(r->sum) + 1e-7;
      return r->sum;
  }
}

/* Walks the input in row-major order, folding each element into its output. */
static void reference(const reduce_case *c, const double *in, expectation *e) {
  bool reduced[4];
  output_shape(c, reduced, e);
  uint32_t out_dims[4], out_stride[4];
  for (uint32_t d = 0; d < c->rank; ++d) out_dims[d] = reduced[d] ? 1 : c->dims[d];
  for (uint32_t d = c->rank, s = 1; d-- > 0;) out_stride[d] = s, s *= out_dims[d];
  e->count = element_count(out_dims, c->rank);
  row_fold *rows = calloc(e->count, sizeof(row_fold));
  e->values = calloc(e->count, sizeof(double));
  e->tolerance = calloc(e->count, sizeof(double));
  assert_true(rows != NULL && e->values != NULL && e->tolerance != NULL);
  for (uint64_t o = 0; o < e->count; ++o) rows[o].product = 1;
  uint64_t total = element_count(c->dims, c->rank);
  for (uint64_t i = 0; i < total; ++i) {
    uint64_t rest = i, o = 0, index_along_axis = 0;
    for (uint32_t d = c->rank; d-- > 0;) {
      uint64_t coordinate = rest % c->dims[d];
      rest /= c->dims[d];
      if (reduced[d]) index_along_axis = coordinate;
      else o += coordinate * out_stride[d];
    }
    double v = in[i];
    if (c->op == OP(REDUCE_ANY) || c->op == OP(REDUCE_ALL)) v = v != 0;
    fold(c, &rows[o], v, index_along_axis);
  }
  for (uint64_t o = 0; o < e->count; ++o) e->values[o] = result_of(c, &rows[o], &e->tolerance[o]);
  free(rows);
}

/* ---- model and execution --------------------------------------------------- */

typedef struct run_options {
  bool runtime_axes;         /* axes (ARG*: the axis) as a model input */
  const int32_t *run_axes;   /* their values for this execution (default: the case's) */
  vknn_status expect_status; /* of the execution */
} run_options;

static uint32_t axes_operand(model_builder *b, const reduce_case *c, const run_options *o) {
  if (is_arg(c->op))
    return o->runtime_axes ? mb_input(b, VKNN_OPERAND_INT32, NULL, 0) : mb_const_i32(b, c->axes[0]);
  if (o->runtime_axes) return mb_input(b, I32, &c->axis_count, 1);
  return mb_const_tensor(b, I32, &c->axis_count, 1, c->axes, c->axis_count * sizeof(int32_t));
}

static const vknn_model *build(model_builder *b, const reduce_case *c, const run_options *o,
                               uint32_t out_rank) {
  mb_init(b);
  uint32_t in = mb_input(b, c->type, c->dims, c->rank);
  b->operands[in].scale = c->type == Q8 || c->type == Q8S ? 0.5f : 0.f;
  uint32_t inputs[3] = {in, axes_operand(b, c, o), 0};
  if (c->op == OP(MEAN)) {
    inputs[2] = mb_const_i32(b, c->keep_dims);
  } else if (!is_arg(c->op)) {
    uint8_t keep = c->keep_dims > 0;
    inputs[2] = mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &keep, 1);
  }
  const uint32_t unknown[4] = {0, 0, 0, 0};
  uint32_t out = mb_output(b, is_arg(c->op) ? I32 : c->type, unknown, out_rank);
  b->operands[out].scale = b->operands[in].scale;
  mb_operation(b, c->op, inputs, is_arg(c->op) ? 2 : 3, &out, 1);
  return mb_finish(b);
}

static uint32_t align_256(uint64_t v) { return (uint32_t)((v + 255u) & ~255ull); }

static double read_output(const reduce_case *c, const uint8_t *bytes, uint64_t i) {
  return cts_decode_value(is_arg(c->op) ? I32 : c->type, bytes, i);
}

/* Runs the case on a prepared model; checks status, shape and values. */
static void execute_and_check(fixture *f, vknn_prepared_model *pm, const reduce_case *c,
                              const run_options *o, const double *in_values, uint32_t in_bytes) {
  reduce_case actual = *c;
  uint32_t axis_count = is_arg(c->op) ? 1 : c->axis_count;
  if (o->run_axes != NULL) memcpy(actual.axes, o->run_axes, axis_count * sizeof(int32_t));
  uint32_t axes_offset = align_256(in_bytes), axes_bytes = 4 * axis_count;
  uint32_t out_offset = axes_offset + 256;
  expectation e;
  bool reduced[4];
  output_shape(&actual, reduced, &e);
  uint32_t out_bytes = (uint32_t)(element_count(e.dims, e.rank) * 4);
  assert_true(out_offset + out_bytes <= POOL_BYTES);
  memcpy(f->pool.data + axes_offset, actual.axes, axes_bytes);
  memset(f->pool.data + out_offset, 0xa5, out_bytes);
  vknn_request_argument args[3] = {{.location = {0, 0, in_bytes}}};
  uint32_t n = 1;
  if (o->runtime_axes) args[n++] = (vknn_request_argument){.location = {0, axes_offset, axes_bytes}};
  args[n] = (vknn_request_argument){.location = {0, out_offset, out_bytes}};
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY, .memory = f->pool.memory}};
  vknn_request request = {args, n, args + n, 1, pools, 1};
  vknn_output_shape shape = {0};
  vknn_status s = vknn_prepared_model_execute(pm, &request, VKNN_MEASURE_TIMING_NO, NULL, NULL,
                                              &shape, 1, NULL);
  if (s != o->expect_status)
    fail_msg("%s: the execution gave %s, not %s", c->what, vknn_status_name(s),
             vknn_status_name(o->expect_status));
  if (s != VKNN_STATUS_NONE) return;
  reference(&actual, in_values, &e);
  assert_int_equal(shape.rank, e.rank);
  for (uint32_t d = 0; d < e.rank; ++d)
    if (shape.dimensions[d] != e.dims[d])
      fail_msg("%s: output dimension %u is %u, the reference's %u", c->what, d, shape.dimensions[d], e.dims[d]);
  uint32_t mismatches = 0;
  for (uint64_t i = 0; i < e.count; ++i) {
    double got = read_output(c, f->pool.data + out_offset, i), want = e.values[i];
    if (fabs(got - want) <= e.tolerance[i]) continue;
    if (mismatches++ < 4)
      print_error("%s: output %llu = %.9g, the reference gives %.9g\n", c->what,
                  (unsigned long long)i, got, want);
  }
  free(e.values);
  free(e.tolerance);
  if (mismatches > 0) fail_msg("%s: %u outputs differ", c->what, mismatches);
}

/* Fills the input (values_override: the case's own values instead). */
static double *fill_input(fixture *f, const reduce_case *c, const double *values_override,
                          uint32_t *out_bytes) {
  uint64_t count = element_count(c->dims, c->rank);
  assert_true(count * element_size(c->type) <= MAX_INPUT_BYTES);
  double *values = malloc(count * sizeof(double));
  assert_non_null(values);
  uint32_t state = 20240611u + (uint32_t)count;
  for (uint64_t i = 0; i < count; ++i) {
    double v = values_override ? values_override[i] : make_value(c->type, c->fill, &state);
    values[i] = put_value(c->type, f->pool.data, i, v);
  }
  *out_bytes = (uint32_t)(count * element_size(c->type));
  return values;
}

static vknn_prepared_model *prepare(fixture *f, const vknn_model *model) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

/* The case with constant axes: its passes (each a reduce or arg_minmax
 * kernel of the input's storage), then its values. */
static void run_case_with(fixture *f, const reduce_case *c, const double *values_override) {
  run_options o = {0};
  bool reduced[4];
  expectation shape_only;
  output_shape(c, reduced, &shape_only);
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  vknn_prepared_model *pm = prepare(f, build(b, c, &o, shape_only.rank));
  vknn_prepared_model_info info;
  assert_int_equal(vknn_prepared_model_get_info(pm, &info), VKNN_STATUS_NONE);
  if (info.dispatch_count != c->passes)
    fail_msg("%s: %u dispatches, expected %u", c->what, info.dispatch_count, c->passes);
  const char *family = is_arg(c->op) ? "arg_minmax_" : "reduce_";
  for (uint32_t i = 0; i < info.dispatch_count; ++i)
    assert_memory_equal(vknn_prepared_model_get_dispatch_kernel(pm, i), family, strlen(family));
  uint32_t in_bytes;
  double *values = fill_input(f, c, values_override, &in_bytes);
  execute_and_check(f, pm, c, &o, values, in_bytes);
  free(values);
  vknn_prepared_model_release(pm);
  free(b);
}

static void run_cases(void **state, const reduce_case *cases, size_t count) {
  for (size_t i = 0; i < count; ++i) run_case_with(*state, &cases[i], NULL);
}

#define RUN(cases) run_cases(state, cases, sizeof(cases) / sizeof(cases[0]))

/* ---- the tests ------------------------------------------------------------- */

/* Rows longer than a workgroup takes (32 elements a lane): split across
 * workgroups, their partials combined by a second pass, and by a third when
 * the partials are many for few outputs. */
static void test_long_rows(void **state) {
  static const reduce_case cases[] = {
      {"sum of 100000", OP(REDUCE_SUM), F32, 2, {1, 100000}, {-1}, 1, 0, FILL_RANDOM, 2},
      {"sum of 3 x 20000 (float16)", OP(REDUCE_SUM), F16, 2, {3, 20000}, {1}, 1, 1, FILL_RANDOM, 2},
      {"quant8 mean of 4500001", OP(MEAN), Q8, 1, {4500001}, {0}, 1, 0, FILL_RANDOM, 3},
      {"signed quant8 mean of 2 x 70001", OP(MEAN), Q8S, 2, {2, 70001}, {1}, 1, 0, FILL_RANDOM, 2},
      {"max of 4 x 9000", OP(REDUCE_MAX), F32, 2, {4, 9000}, {1}, 1, 0, FILL_RANDOM, 2},
      {"min of 300000 codes", OP(REDUCE_MIN), Q8S, 1, {300000}, {0}, 1, 1, FILL_RANDOM, 2},
      {"product of 9001", OP(REDUCE_PROD), F32, 1, {9001}, {0}, 1, 0, FILL_NEAR_ONE, 2},
      {"all of 70000", OP(REDUCE_ALL), B8, 1, {70000}, {0}, 1, 0, FILL_RANDOM, 2},
      {"argmax of 2 x 100000 levels", OP(ARGMAX), F32, 2, {2, 100000}, {1}, 1, 0, FILL_LEVELS, 2},
      {"argmin of 1200000 int32", OP(ARGMIN), I32, 1, {1200000}, {0}, 1, 0, FILL_RANDOM, 2},
  };
  RUN(cases);
}

/* Reduced axes before, between and around kept ones: lanes across the inner
 * kept run (inner >= 8) or along the row, and rows of two separate runs. */
static void test_non_innermost_axes(void **state) {
  static const reduce_case cases[] = {
      {"max over the middle axis", OP(REDUCE_MAX), F32, 3, {3, 50, 20}, {1}, 1, 0, FILL_RANDOM, 1},
      {"sum over axes 0 and 2 (middle kept)", OP(REDUCE_SUM), F32, 3, {5, 7, 9}, {0, 2}, 2, 0, FILL_RANDOM, 1},
      {"mean over axes 1 and 3", OP(MEAN), F32, 4, {2, 3, 4, 5}, {1, 3}, 2, 1, FILL_RANDOM, 1},
      {"mean over height and width", OP(MEAN), F16, 4, {1, 56, 56, 32}, {1, 2}, 2, 1, FILL_RANDOM, 2},
      {"quant8 mean over height and width", OP(MEAN), Q8, 4, {2, 67, 61, 24}, {2, 1}, 2, 0, FILL_RANDOM, 2},
      {"min over the two outer axes", OP(REDUCE_MIN), Q8, 3, {4, 700, 16}, {0, 1}, 2, 0, FILL_RANDOM, 2},
      {"product over the middle axis, inner 3", OP(REDUCE_PROD), F32, 3, {6, 40, 3}, {1}, 1, 0, FILL_NEAR_ONE, 1},
      {"any over the first axis", OP(REDUCE_ANY), B8, 3, {9, 5, 11}, {0}, 1, 0, FILL_RANDOM, 1},
      {"argmin along the middle axis", OP(ARGMIN), I32, 3, {4, 33, 9}, {1}, 1, 0, FILL_LEVELS, 1},
      {"argmax along the first axis", OP(ARGMAX), F16, 3, {700, 3, 16}, {0}, 1, 0, FILL_LEVELS, 2},
      {"argmax along the first axis, inner 17", OP(ARGMAX), F32, 3, {700, 3, 17}, {0}, 1, 0, FILL_LEVELS, 2},
      {"argmax along axis 2 of 4", OP(ARGMAX), Q8S, 4, {2, 3, 40, 5}, {-2}, 1, 0, FILL_LEVELS, 1},
  };
  RUN(cases);
}

/* Repeated and negative axes count once; keep_dims keeps them as 1 (MEAN:
 * any positive INT32); every axis reduced without it gives [1]. */
static void test_keep_dims(void **state) {
  static const reduce_case cases[] = {
      {"axes {-1, 0, -1}", OP(REDUCE_SUM), F32, 3, {2, 3, 4}, {-1, 0, -1}, 3, 0, FILL_RANDOM, 1},
      {"axes {-1, 0, -1}, kept", OP(REDUCE_SUM), F32, 3, {2, 3, 4}, {-1, 0, -1}, 3, 1, FILL_RANDOM, 1},
      {"every axis", OP(REDUCE_MAX), F16, 3, {2, 3, 4}, {0, 1, 2}, 3, 0, FILL_RANDOM, 1},
      {"every axis, kept", OP(REDUCE_MIN), F32, 3, {2, 3, 4}, {2, 1, 0}, 3, 1, FILL_RANDOM, 1},
      {"MEAN keep_dims 7", OP(MEAN), F32, 2, {5, 6}, {0}, 1, 7, FILL_RANDOM, 1},
      {"MEAN keep_dims -1", OP(MEAN), F32, 2, {5, 6}, {0}, 1, -1, FILL_RANDOM, 1},
      {"an axis of extent 1", OP(REDUCE_SUM), F32, 3, {4, 1, 6}, {1}, 1, 1, FILL_RANDOM, 1},
      {"ARGMAX of a 1-D tensor", OP(ARGMAX), F32, 1, {37}, {0}, 1, 0, FILL_RANDOM, 1},
  };
  RUN(cases);
}

/* Ties go to the lowest index, wherever the tied elements lie: within one
 * lane, in different lanes, in different split workgroups. */
static void test_arg_ties(void **state) {
  fixture *f = *state;
  enum { N = 20000 };
  double *values = malloc(2 * N * sizeof(double));
  assert_non_null(values);
  /* Row 0: every element equal. Row 1: the maximum at 19999, 2048 and 7
   * (in three different workgroups' chunks), the minimum at 13000 and 12999. */
  for (int i = 0; i < N; ++i) values[i] = 7, values[N + i] = 5 + (i * 7) % 5;
  values[N + 19999] = values[N + 2048] = values[N + 7] = 20;
  values[N + 13000] = values[N + 12999] = 1;
  reduce_case max = {"tied maxima", OP(ARGMAX), F32, 2, {2, N}, {1}, 1, 0, FILL_RANDOM, 2};
  run_case_with(f, &max, values);
  reduce_case min = {"tied minima", OP(ARGMIN), F32, 2, {2, N}, {-1}, 1, 0, FILL_RANDOM, 2};
  run_case_with(f, &min, values);
  reduce_case codes = {"tied codes", OP(ARGMAX), Q8, 2, {2, N}, {1}, 1, 0, FILL_RANDOM, 2};
  run_case_with(f, &codes, values);
  free(values);
  /* int32 values that float32 would make equal: compared as integers. */
  double ints[6] = {16777217, 16777216, 16777217, -2147483648.0, -2147483647.0, -2147483648.0};
  reduce_case wide = {"int32 beyond float precision", OP(ARGMAX), I32, 2, {2, 3}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &wide, ints);
  reduce_case wide_min = {"int32 minimum ties", OP(ARGMIN), I32, 2, {2, 3}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &wide_min, ints);
  /* -0 and +0 are equal: the first stays. */
  double zeros[4] = {-0.0, 0.0, 0.0, -0.0};
  reduce_case signed_zero = {"signed zeros", OP(ARGMAX), F32, 2, {2, 2}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &signed_zero, zeros);
}

/* The reference replaces its candidate only by a strictly greater value: a
 * NaN first element stays, any other NaN is never taken. */
static void test_arg_nan(void **state) {
  fixture *f = *state;
  enum { N = 12000 };
  double *values = malloc(3 * N * sizeof(double));
  assert_non_null(values);
  for (int i = 0; i < 3 * N; ++i) values[i] = (double)((i * 37) % 101) / 8;
  values[0] = NAN;         /* row 0: NaN first */
  values[N + 4000] = NAN;  /* row 1: NaN among numbers, the maximum elsewhere */
  values[N + 4001] = 100;
  for (int i = 2 * N; i < 3 * N; ++i) values[i] = NAN;
  values[2 * N + 3] = -1; /* row 2: one number among NaNs (the first is NaN: 0) */
  reduce_case max = {"NaNs", OP(ARGMAX), F32, 2, {3, N}, {1}, 1, 0, FILL_RANDOM, 2};
  run_case_with(f, &max, values);
  reduce_case min = {"NaNs, float16", OP(ARGMIN), F16, 2, {3, N}, {1}, 1, 0, FILL_RANDOM, 2};
  run_case_with(f, &min, values);
  free(values);
}

/* Quantized MEAN: the sum of codes divided in integers, truncated toward
 * zero (signed sums below zero round up); MAX and MIN keep codes; ANY and
 * ALL read any non-zero byte as true and write 1. */
static void test_quantized_rounding(void **state) {
  fixture *f = *state;
  /* Three rows of four: sums 6 (1.5 -> 1), 13 (3.25 -> 3), 255 * 4 - 1. */
  double unsigned_codes[12] = {0, 1, 2, 3, 3, 3, 3, 4, 255, 255, 255, 254};
  reduce_case q8 = {"quant8 mean", OP(MEAN), Q8, 2, {3, 4}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &q8, unsigned_codes);
  /* Sums -3 (-0.75 -> 0), -7 (-1.75 -> -1), -510 (-127.5 -> -127). */
  double signed_codes[12] = {-1, -1, -1, 0, -2, -2, -2, -1, -128, -128, -127, -127};
  reduce_case q8s = {"signed quant8 mean", OP(MEAN), Q8S, 2, {3, 4}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &q8s, signed_codes);
  reduce_case random_q8s = {"signed quant8 means", OP(MEAN), Q8S, 3, {20, 7, 30}, {0, 2}, 2, 1, FILL_RANDOM, 2};
  run_case_with(f, &random_q8s, NULL);
  double bytes[8] = {0, 2, 0, 0, 255, 128, 1, 7};
  reduce_case any = {"any of bytes", OP(REDUCE_ANY), B8, 2, {4, 2}, {1}, 1, 0, FILL_RANDOM, 1};
  run_case_with(f, &any, bytes);
  reduce_case all = {"all of bytes", OP(REDUCE_ALL), B8, 2, {4, 2}, {1}, 1, 1, FILL_RANDOM, 1};
  run_case_with(f, &all, bytes);
}

/* Axes given by the execution: each set of values compiles once with them
 * known; values out of range fail that execution with INVALID_ARGUMENT. */
static void test_runtime_axes(void **state) {
  fixture *f = *state;
  static const reduce_case sum = {"run-time axes", OP(REDUCE_SUM), F32, 3, {4, 5, 6}, {1, -1}, 2, 0, FILL_RANDOM, 0};
  static const reduce_case arg = {"run-time axis", OP(ARGMIN), Q8, 3, {4, 5, 6}, {1}, 1, 0, FILL_LEVELS, 0};
  static const int32_t axes[][2] = {{1, -1}, {0, 0}, {2, 1}, {1, -1}};
  const reduce_case *cases[2] = {&sum, &arg};
  for (int k = 0; k < 2; ++k) {
    const reduce_case *c = cases[k];
    run_options o = {.runtime_axes = true};
    model_builder *b = malloc(sizeof(*b));
    assert_non_null(b);
    uint32_t rank = is_arg(c->op) ? 2 : 1; /* the output rank these axes give */
    vknn_prepared_model *pm = prepare(f, build(b, c, &o, rank));
    uint32_t in_bytes;
    double *values = fill_input(f, c, NULL, &in_bytes);
    for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); ++i) {
      bool repeats = axes[i][0] == axes[i][1];
      if (!is_arg(c->op) && repeats) continue; /* {0, 0} reduces one axis: rank 2 */
      o.run_axes = axes[i];
      execute_and_check(f, pm, c, &o, values, in_bytes);
    }
    static const int32_t out_of_range[2] = {3, 0}, negative[2] = {-4, 0};
    o.expect_status = VKNN_STATUS_INVALID_ARGUMENT;
    o.run_axes = out_of_range;
    execute_and_check(f, pm, c, &o, values, in_bytes);
    o.run_axes = negative;
    execute_and_check(f, pm, c, &o, values, in_bytes);
    free(values);
    vknn_prepared_model_release(pm);
    free(b);
  }
}

/* Axes computed in the graph are known to no execution before it runs:
 * the reduction is unsupported (the ADD producing them is not). */
static void test_computed_axes_unsupported(void **state) {
  fixture *f = *state;
  model_builder *b = malloc(sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t dims[3] = {4, 5, 6}, one = 1, out_dims[2] = {4, 6};
  static const int32_t zero = 0;
  uint32_t in = mb_input(b, F32, dims, 3), axes_in = mb_input(b, I32, &one, 1);
  uint32_t axes = mb_temporary(b, I32, &one, 1), out = mb_output(b, F32, out_dims, 2);
  uint32_t add_inputs[3] = {axes_in, mb_const_tensor(b, I32, &one, 1, &zero, sizeof(zero)), mb_const_i32(b, 0)};
  mb_operation(b, VKNN_OPERATION_ADD, add_inputs, 3, &axes, 1);
  uint8_t keep = 0;
  uint32_t reduce_inputs[3] = {in, axes, mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &keep, 1)};
  mb_operation(b, VKNN_OPERATION_REDUCE_SUM, reduce_inputs, 3, &out, 1);
  bool supported[2] = {false, true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 2),
                   VKNN_STATUS_NONE);
  assert_true(supported[0]);
  assert_false(supported[1]);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_rows),
      cmocka_unit_test(test_non_innermost_axes),
      cmocka_unit_test(test_keep_dims),
      cmocka_unit_test(test_arg_ties),
      cmocka_unit_test(test_arg_nan),
      cmocka_unit_test(test_quantized_rounding),
      cmocka_unit_test(test_runtime_axes),
      cmocka_unit_test(test_computed_axes_unsupported),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
