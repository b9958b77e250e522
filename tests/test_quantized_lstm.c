/* QUANTIZED_LSTM and QUANTIZED_16BIT_LSTM.
 *
 * Values: each cell is computed here on the host with the NNAPI reference's
 * integer arithmetic written out in 64-bit C (fixed-point exp, logistic and
 * tanh on int16, the integer layer normalization, the requantizations), and
 * the driver's outputs must equal it bit for bit. The host model is first
 * checked against the published values of the reference's own
 * QUANTIZED_16BIT_LSTM example, so a mistake shared by the driver and the
 * model cannot pass unseen there. The cases cover what the conformance
 * data does not: peepholes, clipping, a nonzero hidden zero point, no layer
 * normalization, CIFG without layer normalization, more units than a
 * workgroup has lanes, cell states whose tanh takes exp below -32, and both
 * the 4-wide and the 1-wide product loops.
 *
 * Rules: one row per signature rule, a valid single-operation model broken
 * in one way, rejected with INVALID_ARGUMENT by the support query and by
 * prepare with a log line naming the problem (the pattern of test_lstm.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define Q8SYMM VKNN_OPERAND_TENSOR_QUANT8_SYMM
#define Q16 VKNN_OPERAND_TENSOR_QUANT16_SYMM
#define I32 VKNN_OPERAND_TENSOR_INT32
#define OP(name) VKNN_OPERATION_##name


/* ---- the reference's integer arithmetic ----------------------------------- */

static int32_t sat16(int64_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : (int32_t)v; }
static int32_t wrap16(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

static int32_t rdhm32(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  int64_t ab = (int64_t)a * b;
  int64_t nudge = ab >= 0 ? (1 << 30) : 1 - (1 << 30);
  return (int32_t)((ab + nudge) / (1ll << 31));
}

static int32_t rdpot(int32_t x, int e) {
  int32_t mask = (int32_t)((1ll << e) - 1);
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > threshold ? 1 : 0);
}

static int32_t mbqm(int32_t x, int32_t m, int shift) {
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return rdpot(rdhm32(wrap32((int64_t)x * (1ll << left)), m), right);
}

static void quantize(double real, int32_t *m, int *shift) {
  *m = 0, *shift = 0;
  if (real == 0.0) return;
  int e;
  double q = frexp(real, &e);
  int64_t fixed = (int64_t)round(q * (double)(1ll << 31));
  if (fixed == (1ll << 31)) fixed /= 2, ++e;
  if (e < -31) return;
  *m = (int32_t)fixed, *shift = e;
}

static int32_t rdhm16(int32_t a, int32_t b) {
  if (a == b && a == -32768) return 32767;
  int32_t ab = a * b;
  int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
  return (int16_t)((ab + nudge) / (1 << 15));
}

static int32_t pot16(int32_t x, int e) {
  if (e < 0) return (int16_t)rdpot(x, -e);
  if (e == 0) return x;
  int32_t threshold = (1 << (15 - e)) - 1;
  return x > threshold ? 32767 : x < -threshold ? -32768 : (int16_t)(x * (1 << e));
}

/* A fixed-point constant given in Q0.31, in int16. */
static int32_t const16(int32_t v32) { return (int16_t)rdpot(v32, 16); }

static int32_t half_sum16(int32_t a, int32_t b) {
  int32_t s = a + b;
  return (int16_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

static int32_t exp_quarter(int32_t a) {
  int32_t c = const16(1895147668), third = const16(715827883);
  int32_t x = wrap16(a + (1 << 12));
  int32_t x2 = rdhm16(x, x), x3 = rdhm16(x2, x), x4 = rdhm16(x2, x2);
  int32_t t = pot16(wrap16(rdhm16(wrap16(pot16(x4, -2) + x3), third) + x2), -1);
  return sat16(c + rdhm16(c, wrap16(x + t)));
}

static int32_t exp_negative(int32_t a, int bits) {
  static const int32_t q31[7] = {1672461947, 1302514674, 790015084, 290630308,
                                 39332535,   720401,     242};
  int fraction = 15 - bits;
  int32_t quarter = 1 << (fraction - 2);
  int32_t a_mod = wrap16((a & (quarter - 1)) - quarter);
  int32_t result = exp_quarter(pot16(a_mod, bits));
  int32_t rest = wrap16(a_mod - a);
  for (int k = -2; k <= 4; ++k)
    if (bits > k && (rest & (1 << (fraction + k))) != 0)
      result = rdhm16(result, const16(q31[k + 2]));
  if (bits > 5 && a < const16(-(1 << (36 - bits)))) result = 0;
  return a == 0 ? 32767 : result;
}

static int32_t newton(int32_t e) {
  int32_t half = half_sum16(e, 32767);
  int32_t x = wrap16(const16(1515870810) + rdhm16(half, const16(-1010580540)));
  for (int i = 0; i < 3; ++i)
    x = wrap16(x + pot16(rdhm16(x, wrap16((1 << 13) - rdhm16(half, x))), 2));
  return x;
}

static int32_t logistic16(int32_t a, int bits) {
  if (a == 0) return const16(1 << 30);
  int32_t positive = pot16(newton(exp_negative(a > 0 ? wrap16(-a) : a, bits)), 1);
  return a > 0 ? positive : wrap16(32767 - positive);
}

static int32_t tanh16(int32_t a, int bits) {
  if (a == 0) return 0;
  int32_t t = pot16(wrap16(newton(exp_negative(a < 0 ? a : wrap16(-a), bits + 1)) - (1 << 13)), 2);
  return a < 0 ? wrap16(-t) : t;
}

/* ---- QUANTIZED_16BIT_LSTM on the host --------------------------------------- */

enum { MAX_B = 3, MAX_I = 8, MAX_U = 72, MAX_O = 16 };

typedef struct q16_case {
  uint32_t batches, input_size, units;
  float weight_scale;
  int32_t weight_zp;
  uint8_t x[MAX_B * MAX_I], h[MAX_B * MAX_O];
  uint8_t w_in[4][MAX_O * MAX_I], w_rec[4][MAX_O * MAX_O]; /* gates i, f, c, o */
  int32_t bias[4][MAX_O];
  int16_t c[MAX_B * MAX_O];
} q16_case;

/* The reference's fully connected layer pairs rows [input | output state]
 * with weight rows [recurrent | input] (quantized_16bit_lstm.c). */
static void q16_reference(const q16_case *q, int16_t *c_out, uint8_t *out) {
  uint32_t u = q->units, in = q->input_size;
  int32_t m;
  int shift;
  quantize(4096.0 * (double)(q->weight_scale / 128.f), &m, &shift);
  for (uint32_t b = 0; b < q->batches; ++b)
    for (uint32_t j = 0; j < u; ++j) {
      int32_t gate[4];
      for (int g = 0; g < 4; ++g) {
        int64_t acc = q->bias[g][j];
        for (uint32_t k = 0; k < in + u; ++k) {
          int32_t v = k < in ? q->x[b * in + k] : q->h[b * u + k - in];
          int32_t w = k < u ? q->w_rec[g][j * u + k] : q->w_in[g][j * in + k - u];
          acc += (v - 128) * (w - q->weight_zp);
        }
        gate[g] = sat16(mbqm(wrap32(acc), m, shift));
      }
      int32_t i = logistic16(gate[0], 3), f = logistic16(gate[1], 3);
      int32_t cc = tanh16(gate[2], 3), o = logistic16(gate[3], 3);
      int32_t state = sat16(pot16(rdhm16(i, cc), -4) + rdhm16(f, q->c[b * u + j]));
      c_out[b * u + j] = (int16_t)state;
      int32_t h = rdhm16(o, tanh16(pot16(state, 1), 3));
      int32_t r = (int16_t)rdpot(h, 8);
      out[b * u + j] = (uint8_t)(128 + (r < -128 ? -128 : r > 127 ? 127 : r));
    }
}

static uint32_t rng_state;
static int32_t rnd(int32_t lo, int32_t hi) {
  rng_state = rng_state * 1103515245u + 12345u;
  return lo + (int32_t)((rng_state >> 8) % (uint32_t)(hi - lo + 1));
}

static void q16_random(q16_case *q, uint32_t batches, uint32_t input_size, uint32_t units,
                       uint32_t seed) {
  memset(q, 0, sizeof(*q));
  rng_state = seed;
  *q = (q16_case){.batches = batches, .input_size = input_size, .units = units,
                  .weight_scale = 0.00408021f, .weight_zp = rnd(90, 140)};
  for (uint32_t i = 0; i < batches * input_size; ++i) q->x[i] = (uint8_t)rnd(0, 255);
  for (uint32_t i = 0; i < batches * units; ++i) {
    q->h[i] = (uint8_t)rnd(0, 255);
    q->c[i] = (int16_t)rnd(-20000, 20000);
  }
  for (int g = 0; g < 4; ++g) {
    for (uint32_t i = 0; i < units * input_size; ++i) q->w_in[g][i] = (uint8_t)rnd(0, 255);
    for (uint32_t i = 0; i < units * units; ++i) q->w_rec[g][i] = (uint8_t)rnd(0, 255);
    for (uint32_t i = 0; i < units; ++i) q->bias[g][i] = rnd(-60000, 60000);
  }
}

static uint32_t quant_operand(model_builder *b, uint32_t index, float scale, int32_t zp) {
  b->operands[index].scale = scale;
  b->operands[index].zero_point = zp;
  return index;
}

static uint32_t q_const(model_builder *b, int32_t type, uint32_t d0, uint32_t d1, const void *data,
                        float scale, int32_t zp) {
  const uint32_t dims[2] = {d0, d1};
  size_t esize = type == I32 ? 4 : type == Q16 ? 2 : 1;
  uint32_t rank = d1 == 0 ? 1 : 2;
  size_t n = (size_t)d0 * (rank == 2 ? d1 : 1);
  return quant_operand(b, mb_const_tensor(b, type, dims, rank, data, n * esize), scale, zp);
}

static uint32_t q_input(model_builder *b, int32_t type, uint32_t d0, uint32_t d1, float scale,
                        int32_t zp) {
  const uint32_t dims[2] = {d0, d1};
  return quant_operand(b, mb_input(b, type, dims, 2), scale, zp);
}

static uint32_t q_output(model_builder *b, int32_t type, uint32_t d0, uint32_t d1, float scale,
                         int32_t zp) {
  const uint32_t dims[2] = {d0, d1};
  return quant_operand(b, mb_output(b, type, dims, 2), scale, zp);
}

/* The operation's operands: weights and biases constants, input, cell state
 * and output state model inputs (in that order). */
static void q16_operands(model_builder *b, const q16_case *q, uint32_t *in, uint32_t *out) {
  uint32_t u = q->units;
  in[0] = q_input(b, Q8, q->batches, q->input_size, 1.f / 128.f, 128);
  for (int g = 0; g < 4; ++g) {
    in[1 + g] = q_const(b, Q8, u, q->input_size, q->w_in[g], q->weight_scale, q->weight_zp);
    in[5 + g] = q_const(b, Q8, u, u, q->w_rec[g], q->weight_scale, q->weight_zp);
    in[9 + g] = q_const(b, I32, u, 0, q->bias[g], q->weight_scale / 128.f, 0);
  }
  in[13] = q_input(b, Q16, q->batches, u, 1.f / 2048.f, 0);
  in[14] = q_input(b, Q8, q->batches, u, 1.f / 128.f, 128);
  out[0] = q_output(b, Q16, q->batches, u, 1.f / 2048.f, 0);
  out[1] = q_output(b, Q8, q->batches, u, 1.f / 128.f, 128);
}

static void q16_build(model_builder *b, const q16_case *q) {
  uint32_t in[15], out[2];
  mb_init(b);
  q16_operands(b, q, in, out);
  mb_operation(b, OP(QUANTIZED_16BIT_LSTM), in, 15, out, 2);
}

static void q16_run(const q16_case *q) {
  runner_fixture *f = runner_group_fixture;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  q16_build(b, q);
  int16_t c_out[MAX_B * MAX_O], want_c[MAX_B * MAX_O];
  uint8_t out[MAX_B * MAX_O], want[MAX_B * MAX_O];
  size_t n = q->batches * q->units;
  buffer_arg inputs[3] = {{q->x, NULL, q->batches * q->input_size},
                          {q->c, NULL, n * sizeof(int16_t)},
                          {q->h, NULL, n}};
  buffer_arg outputs[2] = {{NULL, c_out, n * sizeof(int16_t)}, {NULL, out, n}};
  model_runner_run(f->device, &f->log, b, inputs, outputs, NULL);
  free(b);
  q16_reference(q, want_c, want);
  for (size_t i = 0; i < n; ++i) {
    if (c_out[i] != want_c[i]) fail_msg("cell state %zu: %d, expected %d", i, c_out[i], want_c[i]);
    if (out[i] != want[i]) fail_msg("output %zu: %u, expected %u", i, out[i], want[i]);
  }
}

/* The reference's published example (2 batches, input 2, output 4): the
 * host model must give its numbers, then the driver the same. */
static void test_q16_published_example(void **state) {
  (void)state;
  static const uint8_t w_in[4][8] = {{146, 250, 235, 171, 10, 218, 171, 108},
                                     {24, 50, 132, 179, 158, 110, 3, 169},
                                     {133, 34, 29, 49, 206, 109, 54, 183},
                                     {195, 187, 11, 99, 109, 10, 218, 48}};
  static const uint8_t w_rec[4][16] = {
      {254, 206, 77, 168, 71, 20, 215, 6, 223, 7, 118, 225, 59, 130, 174, 26},
      {137, 240, 103, 52, 68, 51, 237, 112, 0, 220, 89, 23, 69, 4, 207, 253},
      {172, 60, 205, 65, 14, 0, 140, 168, 240, 223, 133, 56, 142, 64, 246, 216},
      {106, 214, 67, 23, 59, 158, 45, 3, 119, 132, 49, 205, 129, 218, 11, 98}};
  static const int32_t bias[4][4] = {{-7876, 13488, -726, 32839},
                                     {9206, -46884, -11693, -38724},
                                     {39481, 48624, 48976, -21419},
                                     {-58999, -17050, -41852, -40538}};
  static const uint8_t x[4] = {166, 179, 50, 150}, h[8] = {136, 150, 140, 115, 135, 152, 138, 112};
  static const int16_t c[8] = {876, 1034, 955, -909, 761, 1029, 796, -1036};
  static const int16_t published_c[8] = {1485, 1177, 1373, -1023, 1019, 1355, 1097, -1235};
  static const uint8_t published[8] = {140, 151, 146, 112, 136, 156, 142, 112};
  q16_case *q = calloc(1, sizeof(*q));
  assert_non_null(q);
  *q = (q16_case){.batches = 2, .input_size = 2, .units = 4, .weight_scale = 0.00408021f,
                  .weight_zp = 100};
  for (int g = 0; g < 4; ++g) {
    memcpy(q->w_in[g], w_in[g], 8), memcpy(q->w_rec[g], w_rec[g], 16);
    memcpy(q->bias[g], bias[g], sizeof(bias[g]));
  }
  memcpy(q->x, x, 4), memcpy(q->h, h, 8), memcpy(q->c, c, sizeof(c));
  int16_t want_c[8];
  uint8_t want[8];
  q16_reference(q, want_c, want);
  assert_memory_equal(want_c, published_c, sizeof(want_c));
  assert_memory_equal(want, published, sizeof(want));
  q16_run(q);
  free(q);
}

static void run_q16_random(uint32_t batches, uint32_t input_size, uint32_t units, uint32_t seed) {
  q16_case *q = malloc(sizeof(*q));
  assert_non_null(q);
  q16_random(q, batches, input_size, units, seed);
  q16_run(q);
  free(q);
}

/* input + output = 12 columns: the 4-wide product loop. */
static void test_q16_vec4(void **state) {
  (void)state;
  run_q16_random(3, 4, 8, 7);
}

/* input + output = 9 columns, one batch: the 1-wide loop. */
static void test_q16_scalar(void **state) {
  (void)state;
  run_q16_random(1, 3, 6, 11);
}

/* ---- QUANTIZED_LSTM on the host ---------------------------------------------- */

typedef struct ql_case {
  uint32_t batches, input_size, units, output_size;
  bool cifg, peephole, layer_norm, projection;
  float x_scale, h_scale, c_scale, proj_scale, hidden_scale, cell_clip, proj_clip;
  bool clips_omitted; /* inputs 24 and 25 given as NO_VALUE (both clips 0) */
  int32_t x_zp, h_zp, hidden_zp;
  float w_in_scale[4], w_rec_scale[4], peep_scale[3], ln_scale[4], intermediate[4];
  int8_t x[MAX_B * MAX_I], h[MAX_B * MAX_O];
  int16_t c[MAX_B * MAX_U];
  int8_t w_in[4][MAX_U * MAX_I], w_rec[4][MAX_U * MAX_O], proj[MAX_O * MAX_U];
  int16_t peep[3][MAX_U], ln[4][MAX_U];
  int32_t bias[4][MAX_U], proj_bias[MAX_O];
} ql_case;

static int cell_shift(const ql_case *q) { return (int)lround(log2((double)q->c_scale)); }

static int32_t clamp_i32(int32_t v, int32_t lo, int32_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static void inverse_sqrt(int32_t v, int32_t *m, int *shift) {
  if (v <= 1) {
    *m = INT32_MAX, *shift = 0;
    return;
  }
  int s = 11;
  while (v >= (1 << 29)) v /= 4, ++s;
  int pairs = (__builtin_clz((uint32_t)v) - 1) / 2 - 1;
  s -= pairs;
  v <<= 2 * pairs;
  int32_t half = rdpot(v >> 1, 1), x = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    int64_t x3 = (int64_t)rdhm32(rdhm32(x, x), x) * 64;
    x3 = x3 > INT32_MAX ? INT32_MAX : x3 < INT32_MIN ? INT32_MIN : x3;
    int64_t next = (int64_t)wrap32((int64_t)rdhm32((1 << 28) + (1 << 27), x) -
                                   rdhm32(half, (int32_t)x3)) * 8;
    x = (int32_t)(next > INT32_MAX ? INT32_MAX : next < INT32_MIN ? INT32_MIN : next);
  }
  x = rdhm32(x, 1518500250);
  if (s < 0) x <<= -s, s = 0;
  *m = x, *shift = -s;
}

static void layer_norm(const ql_case *q, int g, int32_t *a) {
  int32_t lm, im;
  int ls, is;
  quantize((double)q->ln_scale[g], &lm, &ls);
  int32_t limit = (int32_t)(10000.f * q->ln_scale[g]);
  limit = limit < 1 ? limit : 1;
  uint32_t u = q->units;
  for (uint32_t b = 0; b < q->batches; ++b) {
    int64_t sum = 0, sq = 0;
    for (uint32_t j = 0; j < u; ++j)
      sum += a[b * u + j], sq += (int64_t)a[b * u + j] * a[b * u + j];
    int32_t mean = (int32_t)(sum * 1024 / u);
    int64_t variance = sq * ((1 << 20) / u) - (int64_t)mean * mean;
    int32_t v = (int32_t)(variance / (1 << 20));
    inverse_sqrt(v < 1 ? limit : v, &im, &is);
    for (uint32_t j = 0; j < u; ++j) {
      int32_t rescaled = mbqm(1024 * a[b * u + j] - mean, im, is);
      int64_t v3 = wrap32((int64_t)rescaled * q->ln[g][j] + q->bias[g][j]);
      int32_t v4 = (int32_t)((v3 > 0 ? v3 + 512 : v3 - 512) / 1024);
      a[b * u + j] = sat16(mbqm(v4, lm, ls + 12));
    }
  }
}

/* Gate g (0 i, 1 f, 2 c, 3 o) before its activation; cell: what the
 * peephole reads. */
static void gate(const ql_case *q, int g, const int16_t *cell, int32_t *a) {
  int32_t mx, mh, mp = 0;
  int sx, sh, sp = 0, p = g == 3 ? 2 : g;
  quantize((double)(q->w_in_scale[g] * q->x_scale / q->intermediate[g]), &mx, &sx);
  quantize((double)(q->w_rec_scale[g] * q->h_scale / q->intermediate[g]), &mh, &sh);
  bool peephole = q->peephole && g != 2;
  if (peephole)
    quantize((double)(float)(ldexp(1.0, cell_shift(q)) * (double)q->peep_scale[p] /
                             (double)q->intermediate[g]),
             &mp, &sp);
  uint32_t u = q->units, in = q->input_size, o = q->output_size;
  for (uint32_t b = 0; b < q->batches; ++b)
    for (uint32_t j = 0; j < u; ++j) {
      int64_t ax = 0, ah = 0;
      for (uint32_t k = 0; k < in; ++k) ax += (q->x[b * in + k] - q->x_zp) * q->w_in[g][j * in + k];
      for (uint32_t k = 0; k < o; ++k) ah += (q->h[b * o + k] - q->h_zp) * q->w_rec[g][j * o + k];
      int32_t v = sat16(mbqm(wrap32(ax), mx, sx));
      v = sat16(v + mbqm(wrap32(ah), mh, sh));
      if (peephole) v = sat16(v + mbqm(q->peep[p][j] * cell[b * u + j], mp, sp));
      a[b * u + j] = v;
    }
  if (q->layer_norm) layer_norm(q, g, a);
}

static void ql_reference(const ql_case *q, int16_t *c_out, int8_t *out) {
  static int32_t f[MAX_B * MAX_U], cc[MAX_B * MAX_U], i[MAX_B * MAX_U], o[MAX_B * MAX_U];
  static int32_t h8[MAX_B * MAX_U];
  uint32_t n = q->batches * q->units;
  int cs = cell_shift(q);
  gate(q, 1, q->c, f);
  gate(q, 2, q->c, cc);
  if (!q->cifg) gate(q, 0, q->c, i);
  int32_t clip = q->cell_clip > 0.f ? (int16_t)(int32_t)fminf(fmaxf(q->cell_clip / q->c_scale,
                                                                     -32768.f), 32767.f)
                                    : 0;
  for (uint32_t k = 0; k < n; ++k) {
    f[k] = logistic16(f[k], 3);
    cc[k] = tanh16(cc[k], 3);
    i[k] = q->cifg ? 32767 - f[k] : logistic16(i[k], 3);
    int32_t next =
        sat16((int16_t)rdpot(f[k] * q->c[k], 15) + (int16_t)rdpot(i[k] * cc[k], 30 + cs));
    c_out[k] = (int16_t)(clip > 0 ? clamp_i32(next, -clip, clip) : next);
  }
  gate(q, 3, c_out, o);
  int32_t hm, pm;
  int hs, ps;
  quantize((double)(float)(ldexp(1.0, -15) / (double)q->hidden_scale * ldexp(1.0, -15)), &hm, &hs);
  int32_t hidden_zp = (int8_t)q->hidden_zp;
  for (uint32_t k = 0; k < n; ++k)
    h8[k] = clamp_i32(mbqm(logistic16(o[k], 3) * tanh16(c_out[k], cs + 15), hm, hs) - hidden_zp,
                      -128, 127);
  if (!q->projection) {
    for (uint32_t k = 0; k < n; ++k) out[k] = (int8_t)h8[k];
    return;
  }
  quantize((double)(q->proj_scale * q->hidden_scale / q->h_scale), &pm, &ps);
  int32_t pclip = q->proj_clip > 0.f ? (int8_t)(int32_t)fminf(fmaxf(q->proj_clip / q->proj_scale,
                                                                     -128.f), 127.f)
                                     : 0;
  uint32_t u = q->units;
  for (uint32_t b = 0; b < q->batches; ++b)
    for (uint32_t r = 0; r < q->output_size; ++r) {
      int64_t acc = q->proj_bias[r];
      for (uint32_t j = 0; j < u; ++j) acc += (h8[b * u + j] + hidden_zp) * q->proj[r * u + j];
      int32_t v = clamp_i32(mbqm(wrap32(acc), pm, ps) + q->h_zp, -128, 127);
      out[b * q->output_size + r] = (int8_t)(pclip > 0 ? clamp_i32(v, -pclip, pclip) : v);
    }
}

static void ql_fill(ql_case *q, uint32_t seed) {
  rng_state = seed;
  uint32_t u = q->units, in = q->input_size, o = q->output_size, b = q->batches;
  for (uint32_t k = 0; k < b * in; ++k) q->x[k] = (int8_t)rnd(-128, 127);
  for (uint32_t k = 0; k < b * o; ++k) q->h[k] = (int8_t)rnd(-128, 127);
  for (uint32_t k = 0; k < b * u; ++k) q->c[k] = (int16_t)rnd(-9000, 9000);
  for (int g = 0; g < 4; ++g) {
    q->w_in_scale[g] = 0.00784314f / (float)(1 + g % 2);
    q->w_rec_scale[g] = 0.0039f * (float)(1 + g % 3);
    q->ln_scale[g] = 3.05182e-05f;
    q->intermediate[g] = 0.007f + 0.0005f * (float)g;
    for (uint32_t k = 0; k < u * in; ++k) q->w_in[g][k] = (int8_t)rnd(-127, 127);
    for (uint32_t k = 0; k < u * o; ++k) q->w_rec[g][k] = (int8_t)rnd(-127, 127);
    for (uint32_t k = 0; k < u; ++k) {
      q->ln[g][k] = (int16_t)rnd(3000, 26000);
      q->bias[g][k] = rnd(-5000000, 5000000);
      if (g < 3) q->peep[g][k] = (int16_t)rnd(-2000, 2000);
    }
  }
  for (int p = 0; p < 3; ++p) q->peep_scale[p] = 0.01f;
  for (uint32_t k = 0; k < o * u; ++k) q->proj[k] = (int8_t)rnd(-127, 127);
  for (uint32_t k = 0; k < o; ++k) q->proj_bias[k] = rnd(-3000, 3000);
}

static uint32_t scalar_f32(model_builder *b, float v) {
  return mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &v, sizeof(v));
}

static uint32_t no_value(model_builder *b) {
  uint32_t i = mb_temporary(b, I32, NULL, 0);
  b->operands[i].lifetime = VKNN_LIFETIME_NO_VALUE;
  return i;
}

/* The operation's operands: weights constants; input, output state and
 * cell state model inputs (in that order); omitted ones are none. */
static void ql_operands(model_builder *b, const ql_case *q, uint32_t none, uint32_t *in,
                        uint32_t *out) {
  uint32_t u = q->units, o = q->output_size;
  in[0] = q_input(b, Q8S, q->batches, q->input_size, q->x_scale, q->x_zp);
  for (int g = 0; g < 4; ++g) {
    bool input_gate = g == 0 && q->cifg;
    in[1 + g] = input_gate ? none
                           : q_const(b, Q8SYMM, u, q->input_size, q->w_in[g], q->w_in_scale[g], 0);
    in[5 + g] = input_gate ? none : q_const(b, Q8SYMM, u, o, q->w_rec[g], q->w_rec_scale[g], 0);
    in[12 + g] = input_gate ? none : q_const(b, I32, u, 0, q->bias[g], 0.f, 0);
    in[20 + g] = !q->layer_norm || input_gate ? none
                                              : q_const(b, Q16, u, 0, q->ln[g], q->ln_scale[g], 0);
    in[26 + g] = scalar_f32(b, q->intermediate[g]);
  }
  for (int p = 0; p < 3; ++p)
    in[9 + p] = !q->peephole || (p == 0 && q->cifg)
                    ? none
                    : q_const(b, Q16, u, 0, q->peep[p], q->peep_scale[p], 0);
  in[16] = q->projection ? q_const(b, Q8SYMM, o, u, q->proj, q->proj_scale, 0) : none;
  in[17] = q->projection ? q_const(b, I32, o, 0, q->proj_bias, 0.f, 0) : none;
  in[18] = q_input(b, Q8S, q->batches, o, q->h_scale, q->h_zp);
  in[19] = q_input(b, Q16, q->batches, u, q->c_scale, 0);
  in[24] = q->clips_omitted ? none : scalar_f32(b, q->cell_clip);
  in[25] = q->clips_omitted ? none : scalar_f32(b, q->proj_clip);
  in[30] = mb_const_i32(b, q->hidden_zp);
  in[31] = scalar_f32(b, q->hidden_scale);
  out[0] = q_output(b, Q8S, q->batches, o, q->h_scale, q->h_zp);
  out[1] = q_output(b, Q16, q->batches, u, q->c_scale, 0);
  out[2] = q_output(b, Q8S, q->batches, o, q->h_scale, q->h_zp);
}

static void ql_build(model_builder *b, const ql_case *q) {
  uint32_t in[32], out[3];
  mb_init(b);
  ql_operands(b, q, no_value(b), in, out);
  mb_operation(b, OP(QUANTIZED_LSTM), in, 32, out, 3);
}

/* Runs a case; counts of cell states and outputs at their clips. */
static void ql_run(const ql_case *q, uint32_t *clipped_cells, uint32_t *clipped_outputs) {
  runner_fixture *f = runner_group_fixture;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  ql_build(b, q);
  static int16_t c_out[MAX_B * MAX_U], want_c[MAX_B * MAX_U];
  static int8_t state[MAX_B * MAX_O], out[MAX_B * MAX_O], want[MAX_B * MAX_O];
  size_t nc = q->batches * q->units, no = q->batches * q->output_size;
  buffer_arg inputs[3] = {{q->x, NULL, q->batches * q->input_size}, {q->h, NULL, no},
                          {q->c, NULL, nc * sizeof(int16_t)}};
  buffer_arg outputs[3] = {{NULL, state, no}, {NULL, c_out, nc * sizeof(int16_t)}, {NULL, out, no}};
  model_runner_run(f->device, &f->log, b, inputs, outputs, NULL);
  free(b);
  ql_reference(q, want_c, want);
  *clipped_cells = *clipped_outputs = 0;
  int32_t cell_clip = (int32_t)(q->cell_clip / q->c_scale);
  int32_t proj_clip = q->projection ? (int32_t)(q->proj_clip / q->proj_scale) : 0;
  for (size_t k = 0; k < nc; ++k) {
    if (c_out[k] != want_c[k]) fail_msg("cell state %zu: %d, expected %d", k, c_out[k], want_c[k]);
    *clipped_cells += cell_clip > 0 && abs(want_c[k]) == cell_clip;
  }
  for (size_t k = 0; k < no; ++k) {
    if (out[k] != want[k]) fail_msg("output %zu: %d, expected %d", k, out[k], want[k]);
    if (state[k] != want[k]) fail_msg("output state %zu: %d, expected %d", k, state[k], want[k]);
    *clipped_outputs += proj_clip > 0 && abs(want[k]) == proj_clip;
  }
}

/* Peepholes, layer normalization, projection, both clips, a hidden zero
 * point, 70 units (more than the 64 lanes of a row's workgroup), cell
 * state scale 2^-12. */
static void test_qlstm_peephole_projection(void **state) {
  (void)state;
  ql_case *q = calloc(1, sizeof(*q));
  assert_non_null(q);
  *q = (ql_case){.batches = 2, .input_size = 8, .units = 70, .output_size = 16,
                 .peephole = true, .layer_norm = true, .projection = true,
                 .x_scale = 0.0078125f, .x_zp = 5, .h_scale = 0.0078125f, .h_zp = 2,
                 .c_scale = 1.f / 4096.f, .proj_scale = 0.004f, .hidden_scale = 0.007f,
                 .hidden_zp = -3, .cell_clip = 1.5f, .proj_clip = 0.25f};
  ql_fill(q, 3);
  uint32_t clipped_cells, clipped_outputs;
  ql_run(q, &clipped_cells, &clipped_outputs);
  /* The clips must bind somewhere, or the test would not see them. */
  assert_true(clipped_cells > 0 && clipped_outputs > 0);
  free(q);
}

/* CIFG with peepholes, no layer normalization (the biases take no part, as
 * in the reference), no projection (the hidden state is the output), cell
 * state scale 2^-9 (tanh of 6 integer bits). */
static void test_qlstm_cifg_no_norm(void **state) {
  (void)state;
  ql_case *q = calloc(1, sizeof(*q));
  assert_non_null(q);
  *q = (ql_case){.batches = 3, .input_size = 3, .units = 5, .output_size = 5, .cifg = true,
                 .peephole = true, .x_scale = 0.0078125f, .x_zp = -7, .h_scale = 0.0078125f,
                 .h_zp = 1, .c_scale = 1.f / 512.f, .hidden_scale = 0.007f, .hidden_zp = 4,
                 .cell_clip = 10.f};
  ql_fill(q, 5);
  uint32_t clipped_cells, clipped_outputs;
  ql_run(q, &clipped_cells, &clipped_outputs);
  assert_true(clipped_cells > 0);
  free(q);
}

/* Cell states past 16 at scale 2^-9: the hidden state's tanh (6 integer
 * bits) takes exp of values below -32, which the reference's exp clamps to
 * 0. Layer normalization without peepholes, no projection; both clips
 * omitted (optional inputs: no clipping). */
static void test_qlstm_large_cells(void **state) {
  (void)state;
  ql_case *q = calloc(1, sizeof(*q));
  assert_non_null(q);
  *q = (ql_case){.batches = 2, .input_size = 4, .units = 8, .output_size = 8, .layer_norm = true,
                 .x_scale = 0.0078125f, .h_scale = 0.0078125f, .c_scale = 1.f / 512.f,
                 .hidden_scale = 0.007f, .clips_omitted = true};
  ql_fill(q, 9);
  for (uint32_t k = 0; k < q->batches * q->units; ++k) q->c[k] = (int16_t)(k % 2 ? 30000 : -30000);
  uint32_t clipped_cells, clipped_outputs;
  ql_run(q, &clipped_cells, &clipped_outputs);
  free(q);
}

/* The cell clip given by the executions (a model input: the model is
 * compiled per execution with its value): 1.5 gives the reference's cell
 * states, -1 fails that execution with INVALID_ARGUMENT and the rule's log
 * line, and 1.5 runs again on the same prepared model. */
static void test_qlstm_clip_at_execution(void **state) {
  (void)state;
  runner_fixture *f = runner_group_fixture;
  ql_case *q = calloc(1, sizeof(*q));
  model_builder *b = calloc(1, sizeof(*b));
  assert_true(q != NULL && b != NULL);
  *q = (ql_case){.batches = 2, .input_size = 3, .units = 4, .output_size = 4, .layer_norm = true,
                 .x_scale = 0.0078125f, .h_scale = 0.0078125f, .c_scale = 1.f / 4096.f,
                 .hidden_scale = 0.007f, .cell_clip = 1.5f};
  ql_fill(q, 11);
  uint32_t in[32], out[3];
  mb_init(b);
  ql_operands(b, q, no_value(b), in, out);
  in[24] = mb_input(b, VKNN_OPERAND_FLOAT32, NULL, 0);
  mb_operation(b, OP(QUANTIZED_LSTM), in, 32, out, 3);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  static int16_t c_out[MAX_B * MAX_U], want_c[MAX_B * MAX_U];
  static int8_t state_out[MAX_B * MAX_O], out_values[MAX_B * MAX_O], want[MAX_B * MAX_O];
  ql_reference(q, want_c, want);
  size_t nc = q->batches * q->units, no = q->batches * q->output_size, clipped = 0;
  for (size_t k = 0; k < nc; ++k) clipped += abs(want_c[k]) == 6144; /* 1.5 at scale 2^-12 */
  assert_true(clipped > 0); /* the clip binds, so a run that ignored it would differ */
  const float clips[3] = {1.5f, -1.f, 1.5f};
  for (int i = 0; i < 3; ++i) {
    buffer_arg inputs[4] = {{q->x, NULL, q->batches * q->input_size}, {q->h, NULL, no},
                            {q->c, NULL, nc * sizeof(int16_t)}, {&clips[i], NULL, sizeof(float)}};
    buffer_arg outputs[3] = {{NULL, state_out, no}, {NULL, c_out, nc * sizeof(int16_t)}, {NULL, out_values, no}};
    memset(c_out, 0, sizeof(c_out));
    f->log.last[0] = '\0';
    vknn_status s = model_runner_execute(pm, b, inputs, outputs, NULL);
    if (s != (clips[i] < 0.f ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE))
      fail_msg("clip %g: %s (%s)", clips[i], vknn_status_name(s), f->log.last);
    if (s != VKNN_STATUS_NONE) {
      if (strstr(f->log.last, "the cell clip -1 and") == NULL) fail_msg("logged \"%s\"", f->log.last);
      continue;
    }
    for (size_t k = 0; k < nc; ++k)
      if (c_out[k] != want_c[k]) fail_msg("clip %g, cell state %zu: %d, expected %d", clips[i], k, c_out[k], want_c[k]);
    assert_memory_equal(out_values, want, no);
  }
  vknn_prepared_model_release(pm);
  free(b);
  free(q);
}

/* ---- signature rules ---------------------------------------------------------- */

typedef struct ctx {
  model_builder b;
  int32_t op_type;
  uint32_t in[32], in_count, out[3], out_count;
  uint32_t none;     /* a NO_VALUE operand */
  union {            /* the case the operands were made from (all zeros) */
    ql_case ql;
    q16_case q16;
  };
} ctx;

typedef struct row {
  const char *name;
  void (*build)(ctx *c);
  void (*mutate)(ctx *c);   /* NULL: the base model */
  const char *expected_log; /* NULL: accepted */
} row;

/* QUANTIZED_LSTM with every optional input: 2 batches, input 3, 4 units,
 * projection to 3. */
static void build_ql(ctx *c) {
  ql_case *q = &c->ql;
  *q = (ql_case){.batches = 2, .input_size = 3, .units = 4, .output_size = 3, .peephole = true,
                 .layer_norm = true, .projection = true, .x_scale = 0.0078125f,
                 .h_scale = 0.0078125f, .c_scale = 1.f / 32768.f, .proj_scale = 0.004f,
                 .hidden_scale = 0.007f};
  for (int g = 0; g < 4; ++g) {
    q->w_in_scale[g] = q->w_rec_scale[g] = 0.0078f;
    q->ln_scale[g] = 3.05182e-05f;
    q->intermediate[g] = 0.007f;
  }
  for (int p = 0; p < 3; ++p) q->peep_scale[p] = 0.01f;
  c->op_type = OP(QUANTIZED_LSTM);
  c->none = no_value(&c->b);
  ql_operands(&c->b, q, c->none, c->in, c->out);
  c->in_count = 32, c->out_count = 3;
}

/* QUANTIZED_16BIT_LSTM: 2 batches, input 2, output 4. */
static void build_q16(ctx *c) {
  c->q16 = (q16_case){.batches = 2, .input_size = 2, .units = 4, .weight_scale = 0.004f,
                      .weight_zp = 100};
  c->op_type = OP(QUANTIZED_16BIT_LSTM);
  c->none = no_value(&c->b);
  q16_operands(&c->b, &c->q16, c->in, c->out);
  c->in_count = 15, c->out_count = 2;
}

static void omit(ctx *c, uint32_t k) { c->in[k] = c->none; }
static void set_scale(ctx *c, uint32_t k, float scale) { c->b.operands[c->in[k]].scale = scale; }
static uint32_t tensor(ctx *c, int32_t type, uint32_t d0, uint32_t d1) {
  static const int32_t zeros[64] = {0};
  return q_const(&c->b, type, d0, d1, zeros, type == I32 ? 0.f : 0.0078f, 0);
}
static uint32_t tensor_rank3(ctx *c, int32_t type) {
  static const int32_t zeros[64] = {0};
  const uint32_t dims[3] = {2, 1, 3};
  return quant_operand(&c->b, mb_const_tensor(&c->b, type, dims, 3, zeros, 6), 0.0078f, 0);
}
static void ql_accepted_cifg(ctx *c) {
  mb_init(&c->b);
  c->ql.cifg = true, c->ql.peephole = false, c->ql.layer_norm = false, c->ql.projection = false;
  c->ql.output_size = 4;
  c->none = no_value(&c->b);
  ql_operands(&c->b, &c->ql, c->none, c->in, c->out);
}
static void ql_accepted_cifg_peephole(ctx *c) {
  omit(c, 1), omit(c, 5), omit(c, 9), omit(c, 12), omit(c, 20);
}
static void ql_31_inputs(ctx *c) { c->in_count = 31; }
/* The dropped output becomes an (unused) model input: nothing writes it. */
static void ql_2_outputs(ctx *c) {
  c->out_count = 2;
  c->b.output_count--;
  c->b.operands[c->out[2]].lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
  c->b.inputs[c->b.input_count++] = c->out[2];
}
static void ql_omit_input(ctx *c) { omit(c, 0); }
static void ql_omit_forget_weights(ctx *c) { omit(c, 2); }
static void ql_omit_state(ctx *c) { omit(c, 18); }
static void ql_omit_hidden_scale(ctx *c) { omit(c, 31); }
static void ql_omit_clips(ctx *c) { omit(c, 24), omit(c, 25); }
static void ql_unsigned_input(ctx *c) { c->in[0] = q_input(&c->b, Q8, 2, 3, 0.0078125f, 128); }
static void ql_signed_weights(ctx *c) { c->in[3] = tensor(c, Q8S, 4, 3); }
static void ql_peephole_int32(ctx *c) { c->in[10] = tensor(c, I32, 4, 0); }
static void ql_bias_float(ctx *c) {
  static const float zeros[4] = {0};
  const uint32_t n = 4;
  c->in[13] = mb_const_tensor(&c->b, VKNN_OPERAND_TENSOR_FLOAT32, &n, 1, zeros, sizeof(zeros));
}
static void ql_projection_int32(ctx *c) { c->in[16] = tensor(c, I32, 3, 4); }
static void ql_cell_asymm(ctx *c) {
  c->in[19] = q_input(&c->b, VKNN_OPERAND_TENSOR_QUANT16_ASYMM, 2, 4, 1.f / 32768.f, 0);
}
static void ql_norm_int32(ctx *c) { c->in[21] = tensor(c, I32, 4, 0); }
static void ql_cell_clip_int(ctx *c) { c->in[24] = mb_const_i32(&c->b, 0); }
static void ql_intermediate_int(ctx *c) { c->in[27] = mb_const_i32(&c->b, 1); }
static void ql_hidden_zp_float(ctx *c) { c->in[30] = scalar_f32(&c->b, 0.f); }
static void ql_input_rank_3(ctx *c) { c->in[0] = tensor_rank3(c, Q8S); }
static void ql_weights_rank_1(ctx *c) { c->in[6] = tensor(c, Q8SYMM, 4, 0); }
static void ql_bias_rank_2(ctx *c) { c->in[14] = tensor(c, I32, 4, 1); }
static void ql_state_out_unsigned(ctx *c) { c->b.operands[c->out[0]].type = Q8; }
static void ql_cell_out_int32(ctx *c) { c->b.operands[c->out[1]].type = I32; }
static void ql_output_rank_3(ctx *c) {
  c->b.operands[c->out[2]].dimension_count = 3;
  c->b.dims[c->out[2]][2] = 1;
}
static void ql_cifg_partial(ctx *c) { omit(c, 1); }
static void ql_cifg_with_input_bias(ctx *c) {
  omit(c, 1), omit(c, 5), omit(c, 9), omit(c, 20);
}
static void ql_input_bias_omitted(ctx *c) { omit(c, 12); }
static void ql_peephole_partial(ctx *c) { omit(c, 11); }
static void ql_cell_to_input_alone(ctx *c) { omit(c, 10), omit(c, 11); }
static void ql_peephole_without_cell_to_input(ctx *c) { omit(c, 9); }
static void ql_norm_partial(ctx *c) { omit(c, 22); }
static void ql_cifg_with_input_norm(ctx *c) {
  omit(c, 1), omit(c, 5), omit(c, 9), omit(c, 12);
}
static void ql_norm_without_input(ctx *c) { omit(c, 20); }
static void ql_cell_scale_not_pot(ctx *c) { set_scale(c, 19, 3e-5f); }
static void ql_cell_scale_2_8(ctx *c) { set_scale(c, 19, 1.f / 256.f); }
static void ql_forget_weights_shape(ctx *c) { c->in[2] = tensor(c, Q8SYMM, 4, 4); }
static void ql_no_projection_narrow(ctx *c) { omit(c, 16), omit(c, 17); }
static void ql_intermediate_zero(ctx *c) { c->in[28] = scalar_f32(&c->b, 0.f); }
static void ql_hidden_scale_zero(ctx *c) { c->in[31] = scalar_f32(&c->b, 0.f); }
static void ql_output_dims(ctx *c) { c->b.dims[c->out[2]][1] = 5; }
/* The hidden state's zero point is an int8 tensor's; the clips are LSTM's
 * thresholds (0: no clipping). */
static void ql_hidden_zp(ctx *c, int32_t zp) { c->in[30] = mb_const_i32(&c->b, zp); }
static void ql_hidden_zp_300(ctx *c) { ql_hidden_zp(c, 300); }
static void ql_hidden_zp_minus_129(ctx *c) { ql_hidden_zp(c, -129); }
static void ql_hidden_zp_minus_128(ctx *c) { ql_hidden_zp(c, -128); }
static void ql_hidden_zp_127(ctx *c) { ql_hidden_zp(c, 127); }
static void ql_cell_clip_negative(ctx *c) { c->in[24] = scalar_f32(&c->b, -1.f); }
static void ql_cell_clip_nan(ctx *c) { c->in[24] = scalar_f32(&c->b, NAN); }
static void ql_proj_clip_negative(ctx *c) { c->in[25] = scalar_f32(&c->b, -0.5f); }
/* Without a projection the projection clip is unused, but still LSTM's threshold. */
static void ql_no_projection_clip_negative(ctx *c) { ql_accepted_cifg(c), ql_proj_clip_negative(c); }
static void ql_clips_positive(ctx *c) {
  c->in[24] = scalar_f32(&c->b, 2.f);
  c->in[25] = scalar_f32(&c->b, INFINITY);
}

static void q16_14_inputs(ctx *c) { c->in_count = 14; }
static void q16_3_outputs(ctx *c) {
  c->out[2] = q_output(&c->b, Q8, 2, 4, 1.f / 128.f, 128);
  c->out_count = 3;
}
static void q16_omit_weights(ctx *c) { omit(c, 3); }
static void q16_signed_input(ctx *c) { c->in[0] = q_input(&c->b, Q8S, 2, 2, 1.f / 128.f, 0); }
static void q16_bias_float(ctx *c) {
  static const float zeros[4] = {0};
  const uint32_t n = 4;
  c->in[10] = mb_const_tensor(&c->b, VKNN_OPERAND_TENSOR_FLOAT32, &n, 1, zeros, sizeof(zeros));
}
static void q16_cell_asymm(ctx *c) {
  c->in[13] = q_input(&c->b, VKNN_OPERAND_TENSOR_QUANT16_ASYMM, 2, 4, 1.f / 2048.f, 0);
}
static void q16_weights_rank_1(ctx *c) {
  static const uint8_t w[4] = {100, 100, 100, 100};
  c->in[4] = q_const(&c->b, Q8, 4, 0, w, 0.004f, 100);
}
static void q16_bias_rank_2(ctx *c) {
  static const int32_t zeros[4] = {0};
  c->in[9] = q_const(&c->b, I32, 4, 1, zeros, 0.004f / 128.f, 0);
}
static void q16_cell_out_asymm(ctx *c) {
  c->b.operands[c->out[0]].type = VKNN_OPERAND_TENSOR_QUANT16_ASYMM;
}
static void q16_output_signed(ctx *c) {
  c->b.operands[c->out[1]].type = Q8S;
  c->b.operands[c->out[1]].zero_point = 0;
}
static void q16_output_rank_1(ctx *c) { c->b.operands[c->out[1]].dimension_count = 1; }
static void q16_input_scale(ctx *c) { set_scale(c, 0, 1.f / 64.f); }
static void q16_state_zero_point(ctx *c) { c->b.operands[c->in[14]].zero_point = 127; }
static void q16_output_zero_point(ctx *c) { c->b.operands[c->out[1]].zero_point = 0; }
static void q16_cell_scale(ctx *c) { set_scale(c, 13, 1.f / 1024.f); }
static void q16_cell_out_scale(ctx *c) { c->b.operands[c->out[0]].scale = 1.f / 4096.f; }
static void q16_weight_scales(ctx *c) { set_scale(c, 6, 0.008f); }
static void q16_weight_zero_points(ctx *c) { c->b.operands[c->in[7]].zero_point = 99; }
static void q16_bias_scale(ctx *c) { set_scale(c, 11, 0.004f); }
static void q16_recurrent_shape(ctx *c) {
  static const uint8_t w[20] = {0};
  c->in[8] = q_const(&c->b, Q8, 4, 5, w, 0.004f, 100);
}
static void q16_cell_shape(ctx *c) { c->b.dims[c->in[13]][0] = 3; }
static void q16_output_dims(ctx *c) { c->b.dims[c->out[1]][1] = 5; }

/* The batch left to the execution: the operation waits for it, and its
 * parameters and the shapes known already are still checked at prepare. */
static void batch_unknown(ctx *c) { c->b.dims[c->in[0]][0] = 0; }
static void ql_unknown_intermediate_zero(ctx *c) { batch_unknown(c), ql_intermediate_zero(c); }
static void ql_unknown_hidden_scale_zero(ctx *c) { batch_unknown(c), ql_hidden_scale_zero(c); }
static void ql_unknown_forget_weights_shape(ctx *c) { batch_unknown(c), ql_forget_weights_shape(c); }
static void ql_unknown_hidden_zp_300(ctx *c) { batch_unknown(c), ql_hidden_zp_300(c); }
static void ql_unknown_cell_clip_negative(ctx *c) { batch_unknown(c), ql_cell_clip_negative(c); }
static void q16_unknown_recurrent_shape(ctx *c) { batch_unknown(c), q16_recurrent_shape(c); }
/* A projection bias without projection weights (output size = units). */
static void ql_projection_bias_alone(ctx *c) {
  ql_accepted_cifg(c);
  static const int32_t zeros[4] = {0};
  c->in[17] = q_const(&c->b, I32, 4, 0, zeros, 0.f, 0);
}

static const row rows[] = {
    {"QUANTIZED_LSTM accepted (every optional input)", build_ql, NULL, NULL},
    {"QUANTIZED_LSTM accepted (CIFG, no peephole, normalization or projection)", build_ql, ql_accepted_cifg, NULL},
    {"QUANTIZED_LSTM accepted (CIFG with peepholes and normalization)", build_ql, ql_accepted_cifg_peephole, NULL},
    {"QUANTIZED_LSTM: 31 inputs", build_ql, ql_31_inputs, "takes 32 inputs and 3 outputs"},
    {"QUANTIZED_LSTM: 2 outputs", build_ql, ql_2_outputs, "takes 32 inputs and 3 outputs"},
    {"QUANTIZED_LSTM: input omitted", build_ql, ql_omit_input, "input 0 is omitted but not optional"},
    {"QUANTIZED_LSTM: input-to-forget weights omitted", build_ql, ql_omit_forget_weights, "input 2 is omitted but not optional"},
    {"QUANTIZED_LSTM: output state omitted", build_ql, ql_omit_state, "input 18 is omitted but not optional"},
    {"QUANTIZED_LSTM accepted (clips omitted)", build_ql, ql_omit_clips, NULL},
    {"QUANTIZED_LSTM: hidden state scale omitted", build_ql, ql_omit_hidden_scale, "input 31 is omitted but not optional"},
    {"QUANTIZED_LSTM: unsigned input", build_ql, ql_unsigned_input, "input 0 must be TENSOR_QUANT8_ASYMM_SIGNED"},
    {"QUANTIZED_LSTM: signed asymmetric weights", build_ql, ql_signed_weights, "input 3 must be TENSOR_QUANT8_SYMM"},
    {"QUANTIZED_LSTM: int32 peephole", build_ql, ql_peephole_int32, "input 10 must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_LSTM: float bias", build_ql, ql_bias_float, "input 13 must be TENSOR_INT32"},
    {"QUANTIZED_LSTM: int32 projection", build_ql, ql_projection_int32, "input 16 must be TENSOR_QUANT8_SYMM"},
    {"QUANTIZED_LSTM: asymmetric cell state", build_ql, ql_cell_asymm, "input 19 must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_LSTM: int32 normalization weights", build_ql, ql_norm_int32, "input 21 must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_LSTM: int32 cell clip", build_ql, ql_cell_clip_int, "input 24 must be FLOAT32"},
    {"QUANTIZED_LSTM: int32 intermediate scale", build_ql, ql_intermediate_int, "input 27 must be FLOAT32"},
    {"QUANTIZED_LSTM: float hidden zero point", build_ql, ql_hidden_zp_float, "input 30 must be INT32"},
    {"QUANTIZED_LSTM: input of rank 3", build_ql, ql_input_rank_3, "input 0 must have rank 2"},
    {"QUANTIZED_LSTM: weights of rank 1", build_ql, ql_weights_rank_1, "input 6 must have rank 2"},
    {"QUANTIZED_LSTM: bias of rank 2", build_ql, ql_bias_rank_2, "input 14 must have rank 1"},
    {"QUANTIZED_LSTM: unsigned output state", build_ql, ql_state_out_unsigned, "output state must be TENSOR_QUANT8_ASYMM_SIGNED"},
    {"QUANTIZED_LSTM: int32 cell state output", build_ql, ql_cell_out_int32, "cell state must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_LSTM: output of rank 3", build_ql, ql_output_rank_3, "output must have rank 2"},
    {"QUANTIZED_LSTM: CIFG partial", build_ql, ql_cifg_partial, "input-to-input and recurrent-to-input weights must be both"},
    {"QUANTIZED_LSTM: CIFG with an input gate bias", build_ql, ql_cifg_with_input_bias, "the input gate bias must be omitted with CIFG"},
    {"QUANTIZED_LSTM: input gate bias omitted", build_ql, ql_input_bias_omitted, "the input gate bias must be given without CIFG"},
    {"QUANTIZED_LSTM: peephole partial", build_ql, ql_peephole_partial, "cell-to-forget and cell-to-output weights must be both"},
    {"QUANTIZED_LSTM: cell-to-input weights alone", build_ql, ql_cell_to_input_alone, "cell-to-input weights need cell-to-forget"},
    {"QUANTIZED_LSTM: peephole without cell-to-input", build_ql, ql_peephole_without_cell_to_input, "cell-to-input weights must be given"},
    {"QUANTIZED_LSTM: normalization partial", build_ql, ql_norm_partial, "layer normalization weights must be all given or all omitted"},
    {"QUANTIZED_LSTM: CIFG with input normalization", build_ql, ql_cifg_with_input_norm, "input layer normalization weights must be omitted with CIFG"},
    {"QUANTIZED_LSTM: normalization without input", build_ql, ql_norm_without_input, "input layer normalization weights must be given"},
    {"QUANTIZED_LSTM: cell scale not a power of two", build_ql, ql_cell_scale_not_pot, "must be 2^n with n in [-15, -9]"},
    {"QUANTIZED_LSTM: cell scale 2^-8", build_ql, ql_cell_scale_2_8, "must be 2^n with n in [-15, -9]"},
    {"QUANTIZED_LSTM: input-to-forget shape", build_ql, ql_forget_weights_shape, "do not agree"},
    {"QUANTIZED_LSTM: no projection, output size not units", build_ql, ql_no_projection_narrow, "do not agree"},
    {"QUANTIZED_LSTM: intermediate scale 0", build_ql, ql_intermediate_zero, "cell gate's input scale ratio"},
    {"QUANTIZED_LSTM: hidden state scale 0", build_ql, ql_hidden_scale_zero, "hidden state scale ratio"},
    {"QUANTIZED_LSTM: output dims", build_ql, ql_output_dims, "output dimension 1 is 5, expected 3"},
    {"QUANTIZED_LSTM: projection bias without projection weights", build_ql, ql_projection_bias_alone, "a projection bias needs projection weights"},
    {"QUANTIZED_LSTM: hidden zero point 300", build_ql, ql_hidden_zp_300, "the hidden state's zero point 300 is outside [-128, 127]"},
    {"QUANTIZED_LSTM: hidden zero point -129", build_ql, ql_hidden_zp_minus_129, "the hidden state's zero point -129 is outside [-128, 127]"},
    {"QUANTIZED_LSTM accepted (hidden zero point -128)", build_ql, ql_hidden_zp_minus_128, NULL},
    {"QUANTIZED_LSTM accepted (hidden zero point 127)", build_ql, ql_hidden_zp_127, NULL},
    {"QUANTIZED_LSTM: cell clip -1", build_ql, ql_cell_clip_negative, "the cell clip -1 and the projection clip 0 must be >= 0"},
    {"QUANTIZED_LSTM: cell clip NaN", build_ql, ql_cell_clip_nan, "the cell clip nan and the projection clip 0 must be >= 0"},
    {"QUANTIZED_LSTM: projection clip -0.5", build_ql, ql_proj_clip_negative, "the cell clip 0 and the projection clip -0.5 must be >= 0"},
    {"QUANTIZED_LSTM: no projection, projection clip -0.5", build_ql, ql_no_projection_clip_negative, "the projection clip -0.5 must be >= 0"},
    {"QUANTIZED_LSTM accepted (clips 2 and infinity)", build_ql, ql_clips_positive, NULL},
    {"QUANTIZED_LSTM accepted (batch unknown)", build_ql, batch_unknown, NULL},
    {"QUANTIZED_LSTM: batch unknown, intermediate scale 0", build_ql, ql_unknown_intermediate_zero, "cell gate's input scale ratio"},
    {"QUANTIZED_LSTM: batch unknown, hidden state scale 0", build_ql, ql_unknown_hidden_scale_zero, "hidden state scale ratio"},
    {"QUANTIZED_LSTM: batch unknown, input-to-forget shape", build_ql, ql_unknown_forget_weights_shape, "do not agree"},
    {"QUANTIZED_LSTM: batch unknown, hidden zero point 300", build_ql, ql_unknown_hidden_zp_300, "zero point 300 is outside"},
    {"QUANTIZED_LSTM: batch unknown, cell clip -1", build_ql, ql_unknown_cell_clip_negative, "the cell clip -1 and"},
    {"QUANTIZED_16BIT_LSTM accepted", build_q16, NULL, NULL},
    {"QUANTIZED_16BIT_LSTM: 14 inputs", build_q16, q16_14_inputs, "takes 15 inputs and 2 outputs"},
    {"QUANTIZED_16BIT_LSTM: 3 outputs", build_q16, q16_3_outputs, "takes 15 inputs and 2 outputs"},
    {"QUANTIZED_16BIT_LSTM: weights omitted", build_q16, q16_omit_weights, "input 3 is omitted but not optional"},
    {"QUANTIZED_16BIT_LSTM: signed input", build_q16, q16_signed_input, "input 0 must be TENSOR_QUANT8_ASYMM"},
    {"QUANTIZED_16BIT_LSTM: float bias", build_q16, q16_bias_float, "input 10 must be TENSOR_INT32"},
    {"QUANTIZED_16BIT_LSTM: asymmetric cell state", build_q16, q16_cell_asymm, "input 13 must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_16BIT_LSTM: weights of rank 1", build_q16, q16_weights_rank_1, "input 4 must have rank 2"},
    {"QUANTIZED_16BIT_LSTM: bias of rank 2", build_q16, q16_bias_rank_2, "input 9 must have rank 1"},
    {"QUANTIZED_16BIT_LSTM: asymmetric cell state output", build_q16, q16_cell_out_asymm, "cell state output must be TENSOR_QUANT16_SYMM"},
    {"QUANTIZED_16BIT_LSTM: signed output", build_q16, q16_output_signed, "output must be TENSOR_QUANT8_ASYMM"},
    {"QUANTIZED_16BIT_LSTM: output of rank 1", build_q16, q16_output_rank_1, "output must have rank 2"},
    {"QUANTIZED_16BIT_LSTM: input scale 1/64", build_q16, q16_input_scale, "scale 1/128 and zero point 128"},
    {"QUANTIZED_16BIT_LSTM: output state zero point 127", build_q16, q16_state_zero_point, "scale 1/128 and zero point 128"},
    {"QUANTIZED_16BIT_LSTM: output zero point 0", build_q16, q16_output_zero_point, "scale 1/128 and zero point 128"},
    {"QUANTIZED_16BIT_LSTM: cell state scale 2^-10", build_q16, q16_cell_scale, "the cell states must have scale 2^-11"},
    {"QUANTIZED_16BIT_LSTM: cell state output scale 2^-12", build_q16, q16_cell_out_scale, "the cell states must have scale 2^-11"},
    {"QUANTIZED_16BIT_LSTM: weight scales differ", build_q16, q16_weight_scales, "all weights must have the same scale and zero point"},
    {"QUANTIZED_16BIT_LSTM: weight zero points differ", build_q16, q16_weight_zero_points, "all weights must have the same scale and zero point"},
    {"QUANTIZED_16BIT_LSTM: bias scale", build_q16, q16_bias_scale, "the biases must have the weights' scale / 128"},
    {"QUANTIZED_16BIT_LSTM: recurrent weights shape", build_q16, q16_recurrent_shape, "do not agree"},
    {"QUANTIZED_16BIT_LSTM: cell state shape", build_q16, q16_cell_shape, "do not agree"},
    {"QUANTIZED_16BIT_LSTM: output dims", build_q16, q16_output_dims, "output dimension 1 is 5, expected 4"},
    {"QUANTIZED_16BIT_LSTM accepted (batch unknown)", build_q16, batch_unknown, NULL},
    {"QUANTIZED_16BIT_LSTM: batch unknown, recurrent weights shape", build_q16, q16_unknown_recurrent_shape, "do not agree"},
};

/* ---- running ---------------------------------------------------------------- */

static void test_row(void **state) {
  const row *r = *state;
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  r->build(c);
  if (r->mutate) r->mutate(c);
  mb_operation(&c->b, c->op_type, c->in, c->in_count, c->out, c->out_count);
  model_runner_expect_rule(runner_group_fixture, mb_finish(&c->b), r->name, r->expected_log);
  free(c);
}


#define ROW_COUNT (sizeof(rows) / sizeof(rows[0]))

int main(void) {
  static const struct CMUnitTest values[] = {
      {"QUANTIZED_16BIT_LSTM published example", test_q16_published_example, NULL, NULL, NULL},
      {"QUANTIZED_16BIT_LSTM 4-wide products", test_q16_vec4, NULL, NULL, NULL},
      {"QUANTIZED_16BIT_LSTM 1-wide products", test_q16_scalar, NULL, NULL, NULL},
      {"QUANTIZED_LSTM peepholes, projection, clips", test_qlstm_peephole_projection, NULL, NULL,
       NULL},
      {"QUANTIZED_LSTM CIFG without normalization", test_qlstm_cifg_no_norm, NULL, NULL, NULL},
      {"QUANTIZED_LSTM cell states past 16", test_qlstm_large_cells, NULL, NULL, NULL},
      {"QUANTIZED_LSTM cell clip given at execution", test_qlstm_clip_at_execution, NULL, NULL, NULL},
  };
  enum { VALUES = sizeof(values) / sizeof(values[0]) };
  static struct CMUnitTest tests[ROW_COUNT + VALUES];
  for (size_t i = 0; i < VALUES; ++i) tests[i] = values[i];
  for (size_t i = 0; i < ROW_COUNT; ++i)
    tests[VALUES + i] = (struct CMUnitTest){.name = rows[i].name, .test_func = test_row,
                                            .initial_state = (void *)&rows[i]};
  return _cmocka_run_group_tests("quantized_lstm", tests, ROW_COUNT + VALUES, runner_group_setup,
                                 runner_group_teardown);
}
