/* Differential random-graph test of the quantized paths: from a seed, a
 * small random TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED model
 * (CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D with per-tensor and
 * per-channel filters, constant or given as model inputs, PAD before a
 * convolution, FULLY_CONNECTED, ADD and MUL with broadcast and their own
 * encodings, AVERAGE_POOL_2D and MAX_POOL_2D (global ones too),
 * CONCATENATION of inputs of other encodings, RELU / RELU1 / RELU6,
 * RESHAPE, QUANTIZE first and DEQUANTIZE last now and then) is prepared on
 * devices opened with different option sets and executed twice (on two
 * sets of input values); every result is compared with a model of the
 * NNAPI reference's integer arithmetic computed here (int32 sums of
 * (x - zx)(w - zw), the bias, the fixed-point multiplier with its rounding,
 * the output zero point, the activation's clamp in the quantized domain;
 * tests/support/quant_reference.c).
 *
 * Seeds stress the arithmetic: long reductions (1x1 convolutions and
 * FULLY_CONNECTED over 512-2048 channels, 3x3 windows over 60-300),
 * constant inputs and filters at the ends of their range, zero points at
 * the ends of theirs, multipliers chosen from the data (outputs spread
 * over the range), exactly 1, above 1, tiny (below 2^-31 too) and powers of
 * two (the rounding shift meets ties).
 *
 * The driver documents its quantized arithmetic as the reference's bit for
 * bit (docs/architecture.md, "Numerics"), so every difference from the
 * reference is listed (DIFF) and fails the seed; VKNN_QDIFF_STRICT=0 makes
 * differences of one step notes only (the conformance criterion), to
 * survey them. CONCATENATION's requantization is modelled as the
 * reference's ConcatenationWithScaling computes it, in single precision.
 * Every option set must give the bits of the plain device (the options are
 * documented to give the same results on quantized models). Prepare must
 * succeed or fail alike on every device, and the validation layer must
 * report nothing.
 *
 * Environment (tests/support/random_graph.h): VKNN_QDIFF_SEED (first seed,
 * 1), VKNN_QDIFF_SEEDS (how many, 30), VKNN_QDIFF_SETS ("all", or names
 * separated by commas; default: the plain device, integer-dot-on and a
 * rotating three of the others per seed), VKNN_QDIFF_VERBOSE=1 (each seed's
 * model and outcome), VKNN_QDIFF_STEPS (the most steps a model takes, 6),
 * VKNN_QDIFF_STRICT (1), VKNN_QDIFF_LOG=1 (print the driver's log lines). */
#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/model_builder.h"
#include "support/model_runner.h"
#include "support/quant_reference.h"
#include "support/random_graph.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define PER_CHANNEL VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL
#define I32 VKNN_OPERAND_TENSOR_INT32
#define OP(name) VKNN_OPERATION_##name
#define MAX_TENSORS 40
#define MAX_FILTERS 8         /* filters given as model inputs; per-channel filters */
#define MAX_OUTPUTS MB_MAX_IO /* model outputs (past this, tensors others read stay temporaries) */
#define MAX_CHANNELS 64       /* a convolution's output channels */
#define MAX_WEIGHTS 65536     /* a filter's elements (lavapipe's time) */
#define VALUE_RESERVE 512u    /* builder bytes kept for the scalars */
#define TEXT 96               /* a tensor's shape and encoding as text */

/* ---- the graph and its reference ----------------------------------------------- */

typedef struct tensor {
  uint32_t rank, dims[4];
  uint32_t operand;
  bool is_float; /* QUANTIZE's input, DEQUANTIZE's output */
  float scale;
  int32_t zp;
  int32_t *q[2]; /* reference codes of both executions */
  float *f[2];   /* DEQUANTIZE's reference values */
  uint32_t readers;
  bool output;
} tensor;

/* A filter given as a model input: its operand and bytes. */
typedef struct filter_input {
  uint32_t operand;
  uint8_t *bytes;
  size_t size;
} filter_input;

typedef struct graph {
  rg_model m;
  int32_t type; /* Q8 or Q8S */
  int32_t lo, hi;
  tensor t[MAX_TENSORS];
  uint32_t count;
  filter_input filters[MAX_FILTERS];
  uint32_t filter_count;
  float *channel_scales[MAX_FILTERS]; /* per-channel scales (the model points at them) */
  uint32_t channel_scale_count;
  uint32_t steps;
  uint32_t force_k; /* conv_step's window (0: random) */
} graph;

static size_t elements(const tensor *t) { return rg_elements(t->rank, t->dims); }

/* "[dims] scale:zero_point", or "[dims] float32". */
static const char *tensor_str(const tensor *t, char *buf) {
  char shape[RG_SHAPE_TEXT];
  rg_shape_str(t->rank, t->dims, shape);
  if (t->is_float) snprintf(buf, TEXT, "%s float32", shape);
  else snprintf(buf, TEXT, "%s %.9g:%d", shape, (double)t->scale, t->zp);
  return buf;
}

static const char *type_name(int32_t type) { return type == Q8 ? "Q8" : type == Q8S ? "Q8S" : "per-channel"; }

static int32_t clampi(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

/* A tensor's place, its reference arrays allocated (q for quantized ones, f for float ones). */
static uint32_t add_tensor(graph *g, uint32_t rank, const uint32_t *dims, bool is_float) {
  assert_true(g->count < MAX_TENSORS);
  tensor *t = &g->t[g->count];
  memset(t, 0, sizeof(*t));
  t->rank = rank;
  memcpy(t->dims, dims, rank * sizeof(uint32_t));
  t->is_float = is_float;
  size_t n = elements(t);
  for (int v = 0; v < 2; ++v) {
    if (is_float) t->f[v] = malloc((n ? n : 1) * sizeof(float));
    else t->q[v] = calloc(n ? n : 1, sizeof(int32_t));
    assert_true(is_float ? t->f[v] != NULL : t->q[v] != NULL);
  }
  return g->count++;
}

/* A new quantized temporary of the graph's type and the given encoding. */
static uint32_t new_tensor(graph *g, uint32_t rank, const uint32_t *dims, float scale, int32_t zp) {
  uint32_t i = add_tensor(g, rank, dims, false);
  tensor *t = &g->t[i];
  t->scale = scale, t->zp = zp;
  t->operand = mb_temporary(&g->m.b, g->type, dims, rank);
  mb_set_quant(&g->m.b, t->operand, scale, zp);
  return i;
}

/* Operands, operations and tensors still free for a step that needs so
 * many (and a DEQUANTIZE at the end). */
static bool room(const graph *g, uint32_t operands, uint32_t operations) {
  return rg_room(&g->m, operands, operations) && g->count + operations + 1 <= MAX_TENSORS;
}

static void operation(graph *g, int32_t type, const uint32_t *inputs, uint32_t count, uint32_t out) {
  mb_operation(&g->m.b, type, inputs, count, &g->t[out].operand, 1);
}

static int32_t random_act(graph *g) {
  static const int32_t acts[] = {VKNN_FUSED_NONE, VKNN_FUSED_NONE, VKNN_FUSED_RELU, VKNN_FUSED_RELU6,
                                 VKNN_FUSED_RELU1};
  return acts[rg_below(&g->m.r, 5)];
}

/* The reference's CalculateActivationRange{Uint8,Int8}: the real bounds
 * quantized in single precision, rounded half away from zero. */
static void act_range(const graph *g, int32_t act, float scale, int32_t zp, int32_t *amin, int32_t *amax) {
#define QZ(f) (zp + (int32_t)roundf((float)(f) / scale))
  *amin = g->lo, *amax = g->hi;
  if (act == VKNN_FUSED_RELU) {
    *amin = QZ(0) > g->lo ? QZ(0) : g->lo;
  } else if (act == VKNN_FUSED_RELU6) {
    *amin = QZ(0) > g->lo ? QZ(0) : g->lo;
    *amax = QZ(6) < g->hi ? QZ(6) : g->hi;
  } else if (act == VKNN_FUSED_RELU1) {
    *amin = QZ(-1) > g->lo ? QZ(-1) : g->lo;
    *amax = QZ(1) < g->hi ? QZ(1) : g->hi;
  }
#undef QZ
}

/* A random encoding for a tensor of the graph's type. */
static float random_scale(graph *g) {
  uint32_t k = rg_below(&g->m.r, 8);
  if (k == 0) return ldexpf(1.f, -(int)rg_below(&g->m.r, 12)); /* powers of two */
  if (k == 1) return 1.f / 255.f;
  return (float)exp(log(1e-3) + rg_uniform(&g->m.r) * (log(2.0) - log(1e-3)));
}

static int32_t random_zp(graph *g) {
  uint32_t k = rg_below(&g->m.r, 8);
  if (k == 0) return g->lo;
  if (k == 1) return g->hi;
  if (k == 2) return g->type == Q8 ? 128 : 0;
  return rg_range(&g->m.r, g->lo, g->hi);
}

/* Bytes of codes as the type stores them. */
static uint8_t *pack_codes(int32_t type, const int32_t *codes, size_t n) {
  uint8_t *out = malloc(n ? n : 1);
  assert_non_null(out);
  for (size_t i = 0; i < n; ++i) out[i] = type == Q8 ? (uint8_t)codes[i] : (uint8_t)(int8_t)codes[i];
  return out;
}

/* Values of an 8-bit filter or input by pattern, into codes. */
enum { P_RANDOM, P_LOW, P_HIGH, P_EXTREMES, P_NEAR_ZP };
static const char *p_names[] = {"random", "low", "high", "extremes", "near-zp"};

static void fill_codes(rg_rng *r, int pattern, int32_t lo, int32_t hi, int32_t zp, int32_t *out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case P_LOW: out[i] = lo; break;
      case P_HIGH: out[i] = hi; break;
      case P_EXTREMES: out[i] = rg_chance(r, 0.5) ? lo : hi; break;
      case P_NEAR_ZP: out[i] = clampi((int64_t)zp + rg_range(r, -3, 3), lo, hi); break;
      default: out[i] = rg_range(r, lo, hi); break;
    }
  }
}

static int random_pattern(graph *g) {
  uint32_t k = rg_below(&g->m.r, 14);
  return k < 8 ? P_RANDOM : k < 10 ? P_HIGH : k < 11 ? P_LOW : k < 13 ? P_EXTREMES : P_NEAR_ZP;
}

/* ---- the requantization multiplier ------------------------------------------------ */

enum { M_DATA, M_ONE, M_ABOVE_ONE, M_TINY, M_ZERO, M_POW2 };
static const char *m_names[] = {"data", "one", "above-one", "tiny", "zero", "pow2"};

static int random_regime(graph *g) {
  uint32_t k = rg_below(&g->m.r, 20);
  return k < 10 ? M_DATA : k < 12 ? M_ONE : k < 14 ? M_ABOVE_ONE : k < 15 ? M_TINY : k < 16 ? M_ZERO : M_POW2;
}

/* A power of two near data_m as multiplier: p / out == 2^e exactly. */
static float pow2_scale(float p, double data_m, double bound) {
  int e = (int)floor(log2(data_m));
  if (e > 8) e = 8;
  while (e > 0 && ldexp(bound, e) > 1073741824.0) e--;
  /* scales below 1e-7 put RELU6's bound 6 / scale past int32 (undefined in the reference) */
  while (ldexpf(p, -e) < 1e-7f) e--;
  return ldexpf(p, -e);
}

/* The output scale for a product scale p (input x filter) that gives a
 * multiplier of the regime; max_acc: the largest |sum| of execution 1;
 * bound: the largest |sum| any data could give. */
static float output_scale_for(graph *g, float p, int regime, double max_acc, double bound) {
  double spread = rg_pick(&g->m.r, (const uint32_t[]){20, 60, 120, 127, 200, 400}, 6);
  double data_m = spread / fmax(max_acc, 1.0), target = data_m;
  if (regime == M_ONE) return p >= 1e-7f ? p : 1e-7f;
  if (regime == M_POW2) return pow2_scale(p, data_m, bound);
  if (regime == M_ABOVE_ONE) {
    target = 1.0 + rg_uniform(&g->m.r) * 15.0;
    if (target * max_acc > 1e9) target = 1e9 / max_acc;
    if (target < 1.0) target = data_m;
  } else if (regime == M_TINY) {
    target = data_m * (1e-3 + rg_uniform(&g->m.r) * 1e-2);
  } else if (regime == M_ZERO) {
    target = ldexp(1.0, -33 - (int)rg_below(&g->m.r, 4));
  }
  if (target > 1e6) target = 1e6;
  /* no sum of any data may pass int32 when shifted left (the reference's overflow is undefined) */
  if (target > 1.0 && target * bound > 1073741824.0) target = fmax(1.0, 1073741824.0 / bound);
  float out = (float)((double)p / target);
  return !(out > 1e-7f) ? 1e-7f : out > 1e6f ? 1e6f : out;
}

/* ---- weights: convolution filters and FULLY_CONNECTED's --------------------------- */

/* Weights, their bias and how they were drawn. */
typedef struct weights {
  int32_t type; /* the graph's, or PER_CHANNEL */
  int32_t zw;
  int pattern;
  float scale;
  float *channel_scales; /* PER_CHANNEL (the graph's channel_scales own them) */
  int32_t *codes;
  size_t count;
  int32_t *bias;
  int32_t bias_range;
} weights;

/* count codes of type with a zero point often at an end of the range. */
static void draw_weights(graph *g, int32_t type, size_t count, weights *w) {
  rg_rng *r = &g->m.r;
  int32_t lo = type == Q8 ? 0 : -128, hi = type == Q8 ? 255 : 127;
  w->type = type, w->count = count;
  w->zw = type == PER_CHANNEL ? 0 : rg_chance(r, 0.3) ? (rg_chance(r, 0.5) ? lo : hi) : rg_range(r, lo, hi);
  w->pattern = random_pattern(g);
  w->codes = malloc((count ? count : 1) * sizeof(int32_t));
  assert_non_null(w->codes);
  fill_codes(r, w->pattern, lo, hi, w->zw, w->codes, count);
  w->scale = random_scale(g) * 0.1f;
}

/* n biases within one of ranges[kinds], drawn. */
static void draw_bias(graph *g, weights *w, uint32_t n, const int32_t *ranges, uint32_t kinds) {
  w->bias = malloc(n * sizeof(int32_t));
  assert_non_null(w->bias);
  w->bias_range = ranges[rg_below(&g->m.r, kinds)];
  for (uint32_t c = 0; c < n; ++c) w->bias[c] = rg_range(&g->m.r, -w->bias_range, w->bias_range);
}

static void free_weights(weights *w) {
  free(w->codes);
  free(w->bias);
}

/* The weights operand: constant when it fits the builder's values (and now
 * and then a model input anyway), else a model input. */
static uint32_t weights_operand(graph *g, const weights *w, const uint32_t *dims, uint32_t rank, bool *given) {
  uint8_t *bytes = pack_codes(w->type == PER_CHANNEL ? Q8S : w->type, w->codes, w->count);
  *given = w->count > rg_values_left(&g->m) || rg_chance(&g->m.r, 0.1);
  if (!*given) {
    uint32_t operand = mb_const_tensor(&g->m.b, w->type, dims, rank, bytes, w->count);
    free(bytes);
    return operand;
  }
  assert_true(g->filter_count < MAX_FILTERS);
  uint32_t operand = mb_input(&g->m.b, w->type, dims, rank);
  g->filters[g->filter_count++] = (filter_input){operand, bytes, w->count};
  return operand;
}

/* Tensor y from the sums of both executions: per-channel multipliers (one
 * when channels is 1), the zero point, the activation's clamp. m0: the
 * first channel's multiplier. */
static void requantize(graph *g, uint32_t y, int32_t *const acc[2], const float *products, uint32_t channels,
                       int32_t act, ref_multiplier *m0) {
  tensor *o = &g->t[y];
  int32_t amin, amax;
  act_range(g, act, o->scale, o->zp, &amin, &amax);
  for (uint32_t c = 0; c < channels; ++c) {
    ref_multiplier m = ref_quantize_multiplier((double)products[c] / o->scale);
    if (c == 0) *m0 = m;
    for (int v = 0; v < 2; ++v)
      for (size_t e = c; e < elements(o); e += channels)
        o->q[v][e] = clampi((int64_t)ref_multiply(acc[v][e], m) + o->zp, amin, amax);
  }
}

/* The output of sums of products of scale p (channel 0's): its encoding
 * from the regime, the sums of execution 1 (largest max_acc) and the
 * largest any data could give (bound). */
static uint32_t sums_output(graph *g, uint32_t rank, const uint32_t *dims, float p, double max_acc, double bound,
                            int *regime) {
  *regime = random_regime(g);
  float out_scale = output_scale_for(g, p, *regime, max_acc, bound);
  return new_tensor(g, rank, dims, out_scale, random_zp(g));
}

static int32_t *new_sums(size_t n) {
  int32_t *acc = malloc((n ? n : 1) * sizeof(int32_t));
  assert_non_null(acc);
  return acc;
}

/* A sum with its bias, which the reference keeps in int32; the largest |sum| of execution 1 into *max_acc. */
static int32_t keep_sum(int64_t sum, int v, double *max_acc) {
  assert_true(sum >= INT32_MIN && sum <= INT32_MAX);
  if (v == 0 && fabs((double)sum) > *max_acc) *max_acc = fabs((double)sum);
  return (int32_t)sum;
}

/* ---- convolutions ---------------------------------------------------------------- */

/* The PAD taking p's share of the padding of tensor x: the padded tensor. */
static uint32_t pad_step(graph *g, uint32_t x, const rg_conv *p) {
  uint32_t pd[4] = {g->t[x].dims[0], p->h2, p->w2, g->t[x].dims[3]};
  uint32_t padded = new_tensor(g, 4, pd, g->t[x].scale, g->t[x].zp);
  tensor *pt = &g->t[padded];
  const tensor *xi = &g->t[x];
  for (int v = 0; v < 2; ++v) {
    for (size_t i = 0; i < elements(pt); ++i) pt->q[v][i] = xi->zp;
    for (size_t i = 0; i < elements(xi); ++i) pt->q[v][rg_pad_index(p, xi->dims, i)] = xi->q[v][i];
  }
  g->t[x].readers++;
  char s1[TEXT], s2[TEXT];
  pt->output = rg_pad_operation(&g->m, p, xi->operand, pt->operand, x, padded, tensor_str(xi, s1),
                                tensor_str(pt, s2));
  return padded;
}

/* The sums (bias included) of convolution p of tensor src for both executions. */
static double conv_sums(const graph *g, const rg_conv *p, uint32_t src, const weights *w, int32_t *acc[2]) {
  const tensor *in = &g->t[src];
  size_t n = (size_t)in->dims[0] * p->oh * p->ow * p->out_c;
  rg_term *terms = malloc(rg_conv_fan(p, in->dims[3]) * sizeof(*terms));
  assert_non_null(terms);
  double max_acc = 0;
  for (int v = 0; v < 2; ++v) {
    acc[v] = new_sums(n);
    for (size_t o = 0; o < n; ++o) {
      uint32_t count = rg_conv_terms(p, in->dims, o, terms);
      int64_t sum = w->bias[o % p->out_c];
      for (uint32_t k = 0; k < count; ++k)
        sum += (int64_t)(in->q[v][terms[k].in] - in->zp) * (w->codes[terms[k].w] - w->zw);
      acc[v][o] = keep_sum(sum, v, &max_acc);
    }
  }
  free(terms);
  return max_acc;
}

/* A filter for convolution p on input channels C: per-channel (symmetric
 * int8, zero point 0) or of the graph's type; its bias. */
static void draw_filter(graph *g, const rg_conv *p, uint32_t C, weights *w) {
  bool per_channel = rg_chance(&g->m.r, 0.4);
  draw_weights(g, per_channel ? PER_CHANNEL : g->type, (size_t)p->out_c * rg_conv_fan(p, C), w);
  w->channel_scales = NULL;
  if (per_channel) {
    assert_true(g->channel_scale_count < MAX_FILTERS);
    w->channel_scales = malloc(p->out_c * sizeof(float));
    assert_non_null(w->channel_scales);
    g->channel_scales[g->channel_scale_count++] = w->channel_scales;
    bool same_scales = rg_chance(&g->m.r, 0.2);
    for (uint32_t c = 0; c < p->out_c; ++c) w->channel_scales[c] = same_scales ? w->scale : random_scale(g) * 0.1f;
  }
  static const int32_t ranges[] = {0, 100, 20000, 20000, 2000000, 60000000};
  draw_bias(g, w, p->out_c, ranges, 6);
}

/* The filter and bias operands of convolution p (input scale in_scale). */
static uint32_t filter_operands(graph *g, const rg_conv *p, uint32_t C, const weights *w, float in_scale,
                                bool *given, uint32_t *bias) {
  bool depthwise = p->kind == RG_DEPTHWISE;
  uint32_t cg = rg_conv_group_channels(p, C);
  const uint32_t fd[4] = {depthwise ? 1 : p->out_c, p->kh, p->kw, depthwise ? p->out_c : cg};
  uint32_t filter = weights_operand(g, w, fd, 4, given);
  vknn_operand *fo = &g->m.b.operands[filter];
  if (w->channel_scales != NULL) {
    fo->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
    fo->extra_params.channel_quant.channel_dim = depthwise ? 3 : 0;
    fo->extra_params.channel_quant.scale_count = p->out_c;
    fo->extra_params.channel_quant.scales = w->channel_scales;
  } else {
    mb_set_quant(&g->m.b, filter, w->scale, w->zw);
  }
  const uint32_t bd[1] = {p->out_c};
  *bias = mb_const_tensor(&g->m.b, I32, bd, 1, w->bias, p->out_c * sizeof(int32_t));
  mb_set_quant(&g->m.b, *bias, w->channel_scales != NULL ? 0.f : in_scale * w->scale, 0);
  return filter;
}

/* The convolution p of tensor src with random weights: its output tensor. */
static uint32_t conv_layer(graph *g, const rg_conv *p, uint32_t src) {
  uint32_t C = g->t[src].dims[3];
  float in_scale = g->t[src].scale;
  weights w;
  draw_filter(g, p, C, &w);
  int32_t *acc[2];
  double max_acc = conv_sums(g, p, src, &w, acc);
  float products[MAX_CHANNELS];
  for (uint32_t c = 0; c < p->out_c; ++c) products[c] = in_scale * (w.channel_scales ? w.channel_scales[c] : w.scale);
  const uint32_t od[4] = {g->t[src].dims[0], p->oh, p->ow, p->out_c};
  int regime;
  double bound = (double)rg_conv_fan(p, C) * 65536.0 + w.bias_range;
  uint32_t y = sums_output(g, 4, od, products[0], max_acc, bound, &regime);
  ref_multiplier m0;
  requantize(g, y, acc, products, w.channel_scales ? p->out_c : 1, p->act, &m0);
  free(acc[0]);
  free(acc[1]);
  bool given;
  uint32_t bias, filter = filter_operands(g, p, C, &w, in_scale, &given, &bias);
  rg_conv_operation(&g->m, p, g->t[src].operand, filter, bias, g->t[y].operand);
  g->t[src].readers++;
  char s1[TEXT], s2[TEXT];
  rg_say_conv(&g->m, p, src, y, tensor_str(&g->t[src], s1), tensor_str(&g->t[y], s2));
  rg_say(&g->m, "\n      filter %s%s %s zp %d scale %.9g%s bias +-%d; multiplier %s (ch0 %d*2^%d) max|acc| %.0f\n",
         type_name(w.type), given ? " (input)" : "", p_names[w.pattern], w.zw,
         (double)(w.channel_scales ? w.channel_scales[0] : w.scale), w.channel_scales ? " (ch0)" : "",
         w.bias_range, m_names[regime], m0.mantissa, m0.exponent, max_acc);
  free_weights(&w);
  return y;
}

/* Builds a convolution of kind on tensor x. same: stride 1, output of x's
 * height and width. out_c: the output channels wanted (0: any). pad_first:
 * a PAD operation first takes some of the padding (pad fusion). Returns the
 * output tensor, or -1 when nothing fits. */
static int conv_step(void *state, uint32_t x, int kind, bool same, uint32_t out_c, bool pad_first) {
  graph *g = state;
  const tensor *in = &g->t[x];
  if (in->rank != 4 || in->is_float) return -1;
  static const uint32_t ks[] = {1, 3, 3, 3, 5, 2};
  static const uint32_t chans[] = {1, 3, 4, 8, 8, 12, 16, 16, 24, 32, 5, 20};
  rg_conv p = {.kind = kind, .pad_first = pad_first};
  rg_conv_window(&g->m.r, &p, ks, 6, g->force_k, same);
  p.act = random_act(g);
  if (!rg_conv_channels(&g->m.r, &p, in->dims[3], out_c, chans, 12, 3) || p.out_c > MAX_CHANNELS) return -1;
  /* smaller windows for filters past MAX_WEIGHTS */
  while ((size_t)p.out_c * rg_conv_fan(&p, in->dims[3]) > MAX_WEIGHTS && (p.kh > 1 || p.kw > 1)) {
    p.kh = p.kh > 1 ? p.kh - 1 : 1, p.kw = p.kw > 1 ? p.kw - 1 : 1;
    if (p.kh == 1 && p.kw == 1) p.dh = p.dw = 1;
  }
  if ((size_t)p.out_c * rg_conv_fan(&p, in->dims[3]) > MAX_WEIGHTS || g->filter_count == MAX_FILTERS ||
      g->channel_scale_count == MAX_FILTERS)
    return -1;
  if (!rg_conv_padding(&g->m.r, &p, in->dims[1], in->dims[2], same) || !room(g, 8, 2)) return -1;
  rg_conv_form(&g->m.r, &p);
  uint32_t src = p.pad_first ? pad_step(g, x, &p) : x;
  return (int)conv_layer(g, &p, src);
}

/* ---- other operations ------------------------------------------------------------ */

/* The sums (bias included) of FULLY_CONNECTED's rows of x for both executions. */
static double fc_sums(const graph *g, uint32_t x, uint32_t batch, uint32_t size, uint32_t units, const weights *w,
                      int32_t *acc[2]) {
  const tensor *in = &g->t[x];
  double max_acc = 0;
  for (int v = 0; v < 2; ++v) {
    acc[v] = new_sums((size_t)batch * units);
    for (size_t o = 0; o < (size_t)batch * units; ++o) {
      const int32_t *row = &in->q[v][o / units * size], *wr = &w->codes[o % units * size];
      int64_t sum = w->bias[o % units];
      for (uint32_t i = 0; i < size; ++i) sum += (int64_t)(row[i] - in->zp) * (wr[i] - w->zw);
      acc[v][o] = keep_sum(sum, v, &max_acc);
    }
  }
  return max_acc;
}

/* FULLY_CONNECTED of x (rank 2-4, flattened after the batch, or rows of the
 * last dimension). */
static int fc_step(graph *g, uint32_t x) {
  const tensor *in = &g->t[x];
  if (in->is_float || !room(g, 6, 1) || g->filter_count == MAX_FILTERS) return -1;
  uint32_t batch = in->dims[0], size = (uint32_t)(elements(in) / batch);
  if (in->rank > 2 && rg_chance(&g->m.r, 0.35)) /* rows of the last dimension: [N * H * W, units] */
    size = in->dims[in->rank - 1], batch = (uint32_t)(elements(in) / size);
  uint32_t units = rg_pick(&g->m.r, (const uint32_t[]){1, 3, 4, 8, 10, 16, 5}, 7);
  while (units > 1 && (size_t)units * size > MAX_WEIGHTS) units /= 2;
  if ((size_t)units * size > MAX_WEIGHTS) return -1;
  weights w;
  draw_weights(g, g->type, (size_t)units * size, &w);
  static const int32_t ranges[] = {0, 100, 30000, 30000, 30000000};
  draw_bias(g, &w, units, ranges, 5);
  int32_t act = random_act(g);
  int32_t *acc[2];
  double max_acc = fc_sums(g, x, batch, size, units, &w, acc);
  float product = in->scale * w.scale;
  const uint32_t od[2] = {batch, units}, wd[2] = {units, size}, bd[1] = {units};
  int regime;
  uint32_t y = sums_output(g, 2, od, product, max_acc, (double)size * 65536.0 + w.bias_range, &regime);
  ref_multiplier m;
  requantize(g, y, acc, &product, 1, act, &m);
  free(acc[0]);
  free(acc[1]);
  bool given;
  uint32_t wc = weights_operand(g, &w, wd, 2, &given);
  mb_set_quant(&g->m.b, wc, w.scale, w.zw);
  uint32_t bc = mb_const_tensor(&g->m.b, I32, bd, 1, w.bias, units * sizeof(int32_t));
  mb_set_quant(&g->m.b, bc, product, 0);
  uint32_t inputs[4] = {in->operand, wc, bc, rg_scalar(&g->m, act)};
  operation(g, OP(FULLY_CONNECTED), inputs, 4, y);
  g->t[x].readers++;
  char s1[TEXT], s2[TEXT];
  rg_say(&g->m, "  t%u = FULLY_CONNECTED(t%u) %s -> %s act %s weights%s %s zp %d scale %.9g bias +-%d; "
         "multiplier %s (%d*2^%d) max|acc| %.0f\n", y, x, tensor_str(in, s1), tensor_str(&g->t[y], s2),
         rg_act_name(act), given ? " (input)" : "", p_names[w.pattern], w.zw, (double)w.scale, w.bias_range,
         m_names[regime], m.mantissa, m.exponent, max_acc);
  free_weights(&w);
  return (int)y;
}

/* RELU, RELU1 or RELU6 of x (fused into its producer where it can be). */
static int relu_step(void *state, uint32_t x) {
  graph *g = state;
  if (g->t[x].is_float || !room(g, 1, 1)) return -1;
  static const int32_t types[] = {OP(RELU), OP(RELU6), OP(RELU1)};
  static const int32_t acts[] = {VKNN_FUSED_RELU, VKNN_FUSED_RELU6, VKNN_FUSED_RELU1};
  static const char *names[] = {"RELU", "RELU6", "RELU1"};
  uint32_t k = rg_below(&g->m.r, 3);
  uint32_t y = new_tensor(g, g->t[x].rank, g->t[x].dims, g->t[x].scale, g->t[x].zp);
  tensor *o = &g->t[y];
  const tensor *in = &g->t[x];
  int32_t amin, amax;
  act_range(g, acts[k], in->scale, in->zp, &amin, &amax);
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < elements(o); ++i) o->q[v][i] = clampi(in->q[v][i], amin, amax);
  uint32_t inputs[1] = {in->operand};
  operation(g, types[k], inputs, 1, y);
  g->t[x].readers++;
  char s1[TEXT];
  rg_say(&g->m, "  t%u = %s(t%u) %s [%d,%d]\n", y, names[k], x, tensor_str(o, s1), amin, amax);
  return (int)y;
}

/* An output scale for ADD or MUL of a and b (n elements, broadcast to
 * rank / dims): the first input's, or from the range of execution 1's
 * real results; within what the reference's multipliers allow. */
static float binary_scale(graph *g, const tensor *ta, const tensor *tb, uint32_t rank, const uint32_t *dims,
                          bool mul, uint32_t k) {
  double max_real = 0;
  for (size_t i = 0; i < rg_elements(rank, dims); ++i) {
    size_t ia = rg_broadcast_index(ta->rank, ta->dims, rank, dims, i);
    size_t ib = rg_broadcast_index(tb->rank, tb->dims, rank, dims, i);
    double ra = (double)ta->scale * (ta->q[0][ia] - ta->zp), rb = (double)tb->scale * (tb->q[0][ib] - tb->zp);
    max_real = fmax(max_real, fabs(mul ? ra * rb : ra + rb));
  }
  if (max_real == 0) max_real = ta->scale + tb->scale;
  float out_scale = k == 0   ? ta->scale
                    : k == 1 ? (float)(max_real / 20.0)
                             : (float)(max_real / rg_pick(&g->m.r, (const uint32_t[]){100, 127, 200, 255, 400}, 5));
  if (mul) { /* MUL's multiplier stays below 1 */
    float p = ta->scale * tb->scale;
    if (!((double)p / out_scale < 1.0)) out_scale = nextafterf(p, INFINITY) * (1.f + (float)rg_below(&g->m.r, 3));
  } else { /* ADD's output multiplier too */
    float twice_max = 2.f * fmaxf(ta->scale, tb->scale);
    if (!((double)twice_max / ((float)(1 << 20) * out_scale) < 1.0)) out_scale = twice_max / (float)(1 << 19);
  }
  return out_scale < 1e-7f ? 1e-7f : out_scale;
}

/* ADD or MUL of a and b (broadcast) into a new encoding, with activation. */
static int binary_step(graph *g, uint32_t a, uint32_t b, bool mul, int32_t act) {
  uint32_t rank, dims[4];
  const tensor *ta = &g->t[a], *tb = &g->t[b];
  if (ta->is_float || tb->is_float || !rg_broadcast_dims(ta->rank, ta->dims, tb->rank, tb->dims, &rank, dims) ||
      !room(g, 2, 1))
    return -1;
  uint32_t k = rg_below(&g->m.r, 6);
  float out_scale = binary_scale(g, ta, tb, rank, dims, mul, k);
  uint32_t y = new_tensor(g, rank, dims, out_scale, k == 0 ? ta->zp : random_zp(g));
  tensor *o = &g->t[y];
  int32_t amin, amax;
  act_range(g, act, o->scale, o->zp, &amin, &amax);
  ref_encoding ea = {ta->scale, ta->zp}, eb = {tb->scale, tb->zp}, eo = {o->scale, o->zp};
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < elements(o); ++i) {
      int32_t qa = ta->q[v][rg_broadcast_index(ta->rank, ta->dims, rank, dims, i)];
      int32_t qb = tb->q[v][rg_broadcast_index(tb->rank, tb->dims, rank, dims, i)];
      o->q[v][i] = mul ? ref_mul(qa, qb, ea, eb, eo, amin, amax) : ref_add(qa, qb, ea, eb, eo, false, amin, amax);
    }
  uint32_t inputs[3] = {ta->operand, tb->operand, rg_scalar(&g->m, act)};
  operation(g, mul ? OP(MUL) : OP(ADD), inputs, 3, y);
  g->t[a].readers++;
  g->t[b].readers++;
  char s1[TEXT], s2[TEXT], s3[TEXT];
  rg_say(&g->m, "  t%u = %s(t%u %s, t%u %s) -> %s act %s\n", y, mul ? "MUL" : "ADD", a, tensor_str(ta, s1), b,
         tensor_str(tb, s2), tensor_str(o, s3), rg_act_name(act));
  return (int)y;
}

/* A constant quantized tensor (a binary operation's broadcast operand). */
static int const_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  size_t n = rg_elements(rank, dims);
  if (n > rg_values_left(&g->m) || !room(g, 1, 0)) return -1;
  uint32_t i = add_tensor(g, rank, dims, false);
  tensor *t = &g->t[i];
  t->scale = random_scale(g), t->zp = random_zp(g);
  fill_codes(&g->m.r, random_pattern(g), g->lo, g->hi, t->zp, t->q[0], n);
  memcpy(t->q[1], t->q[0], n * sizeof(int32_t));
  uint8_t *bytes = pack_codes(g->type, t->q[0], n);
  t->operand = mb_const_tensor(&g->m.b, g->type, dims, rank, bytes, n);
  mb_set_quant(&g->m.b, t->operand, t->scale, t->zp);
  free(bytes);
  char s1[TEXT];
  rg_say(&g->m, "  t%u = constant %s\n", i, tensor_str(t, s1));
  return (int)i;
}

/* The reference of pool w of tensor x into tensor y (same encoding). */
static void pool_reference(graph *g, const rg_pool *w, bool avg, int32_t act, uint32_t x, uint32_t y) {
  const tensor *in = &g->t[x];
  tensor *o = &g->t[y];
  int32_t amin, amax;
  act_range(g, act, in->scale, in->zp, &amin, &amax);
  rg_term *terms = malloc(w->fh * w->fw * sizeof(*terms));
  assert_non_null(terms);
  for (size_t e = 0; e < elements(o); ++e) {
    int32_t count = (int32_t)rg_pool_terms(w, in->dims, e, terms);
    for (int v = 0; v < 2; ++v) {
      int32_t acc = avg ? 0 : INT32_MIN;
      for (int32_t k = 0; k < count; ++k) {
        int32_t q = in->q[v][terms[k].in];
        acc = avg ? acc + q : q > acc ? q : acc;
      }
      /* the reference's integer average: halves away from zero */
      if (avg) acc = acc >= 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
      o->q[v][e] = clampi(acc, amin, amax);
    }
  }
  free(terms);
}

/* AVERAGE_POOL_2D or MAX_POOL_2D; global: the window covers the image. */
static int pool_step(void *state, uint32_t x, bool global, bool same) {
  graph *g = state;
  const tensor *in = &g->t[x];
  if (in->rank != 4 || in->is_float || !room(g, 2, 1)) return -1;
  bool avg = rg_chance(&g->m.r, 0.6);
  int32_t act = rg_chance(&g->m.r, 0.6) ? VKNN_FUSED_NONE : random_act(g);
  rg_pool w;
  if (!rg_pool_window(&g->m.r, &w, in->dims[1], in->dims[2], global, same)) return -1;
  uint32_t od[4] = {in->dims[0], w.oh, w.ow, in->dims[3]};
  uint32_t y = new_tensor(g, 4, od, in->scale, in->zp);
  pool_reference(g, &w, avg, act, x, y);
  rg_pool_operation(&g->m, &w, avg, act, g->t[x].operand, g->t[y].operand);
  g->t[x].readers++;
  char s1[TEXT], s2[RG_SHAPE_TEXT];
  rg_say_pool(&g->m, &w, avg, act, global, x, y, tensor_str(&g->t[x], s1),
              rg_shape_str(g->t[y].rank, g->t[y].dims, s2));
  return (int)y;
}

/* The reference's ConcatenationWithScaling: a copy where the encodings
 * agree, else round(q * scale + bias) + zero point in single precision. */
static int32_t concat_requantize(int32_t q, const tensor *in, const tensor *out, int32_t lo, int32_t hi) {
  if (in->zp == out->zp && in->scale == out->scale) return q;
  volatile float inverse = 1.f / out->scale;
  volatile float scale = in->scale * inverse;
  volatile float bias = (float)-in->zp * scale;
  volatile float prod = (float)q * scale;
  volatile float sum = prod + bias;
  /* the float-to-int conversion saturating, as on ARM (the reference's is
   * undefined out of range; quotients past int32 come from extreme ratios) */
  float r = roundf(sum);
  int64_t whole = r >= 2147483647.f ? INT32_MAX : r <= -2147483648.f ? INT32_MIN : (int64_t)r;
  return clampi(whole + out->zp, lo, hi);
}

/* CONCATENATION's output encoding: the first input's, one holding every
 * input's range, or a random one. */
static void concat_encoding(graph *g, const uint32_t *parts, uint32_t count, float *scale, int32_t *zp) {
  const tensor *first = &g->t[parts[0]];
  *scale = first->scale, *zp = first->zp;
  uint32_t k = rg_below(&g->m.r, 3);
  if (k == 2) {
    *scale = random_scale(g), *zp = random_zp(g);
  } else if (k == 1) {
    double lo = 0, hi = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const tensor *p = &g->t[parts[i]];
      lo = fmin(lo, (double)p->scale * (g->lo - p->zp));
      hi = fmax(hi, (double)p->scale * (g->hi - p->zp));
    }
    *scale = (float)((hi - lo) / 255.0);
    *zp = clampi(g->lo + (int64_t)llround(-lo / *scale), g->lo, g->hi);
  }
}

/* CONCATENATION of tensors (of one rank, alike but along axis) along axis. */
static int concat_step(graph *g, const uint32_t *parts, uint32_t count, uint32_t axis) {
  const tensor *first = &g->t[parts[0]];
  uint32_t dims[4];
  memcpy(dims, first->dims, sizeof(dims));
  for (uint32_t i = 1; i < count; ++i) {
    const tensor *p = &g->t[parts[i]];
    for (uint32_t d = 0; d < first->rank; ++d)
      if (p->rank != first->rank || (d != axis && p->dims[d] != first->dims[d])) return -1;
    dims[axis] += p->dims[axis];
  }
  if (!room(g, 2, 1)) return -1;
  float scale;
  int32_t zp;
  concat_encoding(g, parts, count, &scale, &zp);
  uint32_t y = new_tensor(g, first->rank, dims, scale, zp);
  tensor *o = &g->t[y];
  uint32_t offset = 0, inputs[5];
  for (uint32_t i = 0; i < count; ++i) {
    tensor *p = &g->t[parts[i]];
    for (int v = 0; v < 2; ++v)
      for (size_t e = 0; e < elements(p); ++e)
        o->q[v][rg_concat_index(o->rank, dims, axis, p->dims, offset, e)] =
            concat_requantize(p->q[v][e], p, o, g->lo, g->hi);
    offset += p->dims[axis];
    inputs[i] = p->operand, p->readers++;
  }
  inputs[count] = rg_scalar(&g->m, (int32_t)axis);
  operation(g, OP(CONCATENATION), inputs, count + 1, y);
  char s1[TEXT];
  rg_say(&g->m, "  t%u = CONCATENATION(", y);
  for (uint32_t i = 0; i < count; ++i)
    rg_say(&g->m, i ? ", t%u %s" : "t%u %s", parts[i], tensor_str(&g->t[parts[i]], s1));
  rg_say(&g->m, ") axis %u -> %s\n", axis, tensor_str(o, s1));
  return (int)y;
}

/* RESHAPE of x to rank / dims (the shape constant may hold one -1). */
static int reshape_step(graph *g, uint32_t x, uint32_t rank, const uint32_t *dims) {
  if (g->t[x].is_float || !room(g, 2, 1)) return -1;
  uint32_t y = new_tensor(g, rank, dims, g->t[x].scale, g->t[x].zp);
  tensor *o = &g->t[y];
  const tensor *in = &g->t[x];
  assert_int_equal(elements(o), elements(in));
  for (int v = 0; v < 2; ++v) memcpy(o->q[v], in->q[v], elements(o) * sizeof(int32_t));
  int32_t shape[4];
  for (uint32_t d = 0; d < rank; ++d) shape[d] = (int32_t)dims[d];
  if (rg_chance(&g->m.r, 0.3)) shape[rg_below(&g->m.r, rank)] = -1;
  const uint32_t sd[1] = {rank};
  uint32_t inputs[2] = {in->operand, mb_const_tensor(&g->m.b, I32, sd, 1, shape, rank * sizeof(int32_t))};
  operation(g, OP(RESHAPE), inputs, 2, y);
  g->t[x].readers++;
  char s1[TEXT], s2[RG_SHAPE_TEXT];
  rg_say(&g->m, "  t%u = RESHAPE(t%u) %s -> %s\n", y, x, tensor_str(in, s1), rg_shape_str(rank, dims, s2));
  return (int)y;
}

/* DEQUANTIZE of x into a float32 tensor (a model output). */
static int dequantize_step(graph *g, uint32_t x) {
  if (g->t[x].is_float || !room(g, 1, 1)) return -1;
  uint32_t i = add_tensor(g, g->t[x].rank, g->t[x].dims, true);
  tensor *t = &g->t[i];
  const tensor *in = &g->t[x];
  for (int v = 0; v < 2; ++v)
    for (size_t e = 0; e < elements(t); ++e) {
      volatile float r = in->scale * (float)(in->q[v][e] - in->zp); /* rounded to float, as the reference */
      t->f[v][e] = r;
    }
  t->operand = mb_temporary(&g->m.b, F32, t->dims, t->rank);
  uint32_t inputs[1] = {in->operand};
  operation(g, OP(DEQUANTIZE), inputs, 1, i);
  g->t[x].readers++;
  char s1[TEXT];
  rg_say(&g->m, "  t%u = DEQUANTIZE(t%u) %s\n", i, x, tensor_str(t, s1));
  return (int)i;
}

/* ---- steps: the random model ---------------------------------------------------- */

static int step(void *state, uint32_t cur);
static void undo_of(void *state, const void *snapshot);
static const rg_steps steps = {step, undo_of, conv_step, pool_step, relu_step};

/* A step from a rank-2 tensor (after FULLY_CONNECTED or a flattening RESHAPE). */
static int matrix_step(graph *g, uint32_t cur) {
  rg_rng *r = &g->m.r;
  uint32_t k = rg_below(r, 5);
  if (k == 4) { /* CONCATENATION of FULLY_CONNECTED branches, or of the tensor itself */
    if (!room(g, 14, 4)) return -1;
    uint32_t parts[3], count = 2 + rg_below(r, 2);
    for (uint32_t i = 0; i < count; ++i) {
      int p = rg_chance(r, 0.2) ? (int)cur : fc_step(g, cur);
      if (p < 0) return -1;
      parts[i] = (uint32_t)p;
    }
    bool rows = true; /* along axis 0 where every part has the units */
    for (uint32_t i = 1; i < count; ++i) rows = rows && g->t[parts[i]].dims[1] == g->t[parts[0]].dims[1];
    return concat_step(g, parts, count, rows && rg_chance(r, 0.3) ? 0 : 1);
  }
  if (k <= 1) return fc_step(g, cur);
  if (k == 2) return relu_step(g, cur);
  const uint32_t d[1] = {g->t[cur].dims[1]};
  int b = const_tensor(g, 1, d);
  if (b < 0) return -1;
  bool mul = rg_chance(r, 0.4);
  return binary_step(g, cur, (uint32_t)b, mul, random_act(g));
}

/* ADD (or MUL) of a convolution's result and a tensor of its shape. */
static int residual_step(graph *g, uint32_t cur) {
  rg_rng *r = &g->m.r;
  uint32_t res = cur;
  for (uint32_t i = 0; i < g->count; ++i) /* another tensor of the same shape, written earlier */
    if (i != cur && g->t[i].rank == 4 && !g->t[i].is_float && !memcmp(g->t[i].dims, g->t[cur].dims, 16) &&
        rg_chance(r, 0.3))
      res = i;
  int kind = rg_chance(r, 0.7) ? RG_CONV : rg_chance(r, 0.5) ? RG_DEPTHWISE : RG_GROUPED;
  int y = conv_step(g, cur, kind, true, g->t[res].dims[3], rg_chance(r, 0.15));
  if (y >= 0 && rg_chance(r, 0.15)) y = relu_step(g, (uint32_t)y);
  if (y < 0) return -1;
  bool swap = rg_chance(r, 0.5), mul = rg_chance(r, 0.2);
  return binary_step(g, swap ? res : (uint32_t)y, swap ? (uint32_t)y : res, mul, random_act(g));
}

/* Broadcast ADD or MUL: a constant, or a global pool of the tensor itself. */
static int broadcast_step(graph *g, uint32_t cur) {
  rg_rng *r = &g->m.r;
  const tensor *c = &g->t[cur];
  uint32_t shape_kind = rg_below(r, 5);
  bool mul = rg_chance(r, 0.4);
  int b;
  if (shape_kind == 4) { /* squeeze-and-excite like */
    b = pool_step(g, cur, true, false);
    if (b < 0 || g->t[b].dims[1] != 1 || g->t[b].dims[2] != 1) return b;
  } else {
    uint32_t H = c->dims[1], W = c->dims[2], C = c->dims[3];
    const uint32_t shapes[4][4] = {{C}, {1, 1, 1, C}, {1, H, W, 1}, {W, 1}};
    const uint32_t ranks[4] = {1, 4, 4, 2};
    b = const_tensor(g, ranks[shape_kind], shapes[shape_kind]);
    if (b < 0) return -1;
  }
  bool swap = rg_chance(r, shape_kind == 4 ? 0.5 : 0.3);
  return binary_step(g, swap ? (uint32_t)b : cur, swap ? cur : (uint32_t)b, mul, random_act(g));
}

/* CONCATENATION of 2-3 branches of the tensor: along the channels, the
 * height or width (convolutions of one channel count), or the batch. */
static int concat_branches(graph *g, uint32_t cur) {
  rg_rng *r = &g->m.r;
  if (!room(g, 16, 6)) return -1;
  uint32_t parts[3], count = 2 + rg_below(r, 2), axis_pick = rg_below(r, 12);
  uint32_t axis = axis_pick == 0 ? 1 : axis_pick == 1 ? 2 : axis_pick == 2 ? 0 : 3;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t kind;
    int p;
    if (axis == 0 && rg_chance(r, 0.5)) { /* rows: the tensor itself or a pooling of it */
      p = rg_chance(r, 0.5) ? (int)cur : pool_step(g, cur, false, true);
      kind = 1;
    } else if (axis != 3) {
      p = conv_step(g, cur, RG_CONV, true, i == 0 ? 0 : g->t[parts[0]].dims[3], false);
      kind = 2;
    } else {
      p = rg_branch(&steps, g, r, cur, &kind);
    }
    if (p < 0) return -1;
    parts[i] = (uint32_t)p;
    if (kind >= 2 && rg_chance(r, 0.1)) g->t[p].output = true; /* keeps its copy */
  }
  return concat_step(g, parts, count, axis);
}

/* One step of the model from the current tensor; the new current one, or -1. */
static int step(void *state, uint32_t cur) {
  graph *g = state;
  rg_rng *r = &g->m.r;
  const tensor *c = &g->t[cur];
  if (c->rank == 2) return matrix_step(g, cur);
  uint32_t k = rg_below(r, 100);
  if (k < 30) { /* a convolution, sometimes after a PAD, sometimes a RELU after it */
    int kind = rg_conv_kind(r);
    int y = conv_step(g, cur, kind, false, 0, rg_chance(r, 0.2));
    if (y >= 0 && rg_chance(r, 0.2)) y = relu_step(g, (uint32_t)y);
    return y;
  }
  if (k < 42) return residual_step(g, cur);
  if (k < 52) return broadcast_step(g, cur);
  if (k < 66) return concat_branches(g, cur);
  if (k < 78) return pool_step(g, cur, rg_chance(r, 0.4), false);
  if (k < 80) { /* ADD(x, x), MUL(x, x) */
    bool mul = rg_chance(r, 0.5);
    return binary_step(g, cur, cur, mul, random_act(g));
  }
  if (k < 84) {
    uint32_t N = c->dims[0], H = c->dims[1], W = c->dims[2], C = c->dims[3];
    const uint32_t shapes[5][4] = {{N, H * W, 1, C}, {N, 1, H * W, C}, {N, W, H, C}, {N * H, W, 1, C}, {N, H * W * C}};
    uint32_t s = rg_below(r, 5);
    return reshape_step(g, cur, s == 4 ? 2 : 4, shapes[s]);
  }
  if (k < 92) return fc_step(g, cur);
  return relu_step(g, cur);
}

/* ---- the model of a seed -------------------------------------------------------------- */

/* The input's shape: ordinary, a long reduction (many channels), a mid one,
 * or a large image (global pools over many pixels). */
enum { SHAPE_LONG, SHAPE_MID, SHAPE_PLAIN, SHAPE_LARGE };

static int input_shape(graph *g, uint32_t *dims) {
  rg_rng *r = &g->m.r;
  uint32_t k = rg_below(r, 10);
  static const uint32_t chans[] = {1, 3, 4, 8, 12, 16, 24, 32, 5, 7};
  dims[0] = 1 + rg_below(r, 2), dims[1] = 1 + rg_below(r, 12), dims[2] = 1 + rg_below(r, 12);
  dims[3] = rg_pick(r, chans, 10);
  if (k < 2) {
    dims[1] = 1 + rg_below(r, 3), dims[2] = 1 + rg_below(r, 3);
    dims[3] = rg_pick(r, (const uint32_t[]){512, 1024, 2048, 515, 1000}, 5);
    return SHAPE_LONG;
  }
  if (k == 9) {
    dims[1] = 16 + rg_below(r, 80), dims[2] = 16 + rg_below(r, 80);
    dims[3] = rg_pick(r, (const uint32_t[]){1, 3, 4, 8}, 4);
    return SHAPE_LARGE;
  }
  if (k < 4) {
    dims[1] = 2 + rg_below(r, 5), dims[2] = 2 + rg_below(r, 5);
    dims[3] = rg_pick(r, (const uint32_t[]){60, 64, 100, 129, 200, 255, 256, 257, 300}, 9);
    return SHAPE_MID;
  }
  return SHAPE_PLAIN;
}

/* Tensor 0: a float32 model input that QUANTIZE turns into tensor 1 of the
 * encoding; the values of both executions, ties now and then. Returns 1. */
static uint32_t quantized_input(graph *g, const uint32_t *dims, float scale, int32_t zp, rg_rng *data) {
  tensor *t = &g->t[add_tensor(g, 4, dims, true)];
  t->operand = mb_input(&g->m.b, F32, dims, 4);
  size_t n = elements(t);
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < n; ++i) {
      t->f[v][i] = (float)((rg_uniform(&data[v]) * 2.0 - 1.0) * ((double)scale * 300.0));
      if (rg_chance(&data[v], 0.1)) t->f[v][i] = scale * ((float)rg_range(&data[v], -300, 300) + 0.5f);
    }
  uint32_t qi = new_tensor(g, 4, dims, scale, zp);
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < n; ++i) {
      volatile float quotient = t->f[v][i] / scale; /* single precision, as the reference */
      float q = fmaxf((float)g->lo, fminf((float)g->hi, (float)zp + roundf(quotient)));
      g->t[qi].q[v][i] = (int32_t)q;
    }
  uint32_t inputs[1] = {t->operand};
  operation(g, OP(QUANTIZE), inputs, 1, qi);
  t->readers++;
  char s1[TEXT], s2[TEXT];
  rg_say(&g->m, "  t0 = input %s; t%u = QUANTIZE(t0) %s %s\n", tensor_str(t, s1), qi, type_name(g->type),
         tensor_str(&g->t[qi], s2));
  return qi;
}

/* Tensor 0: a model input of the graph's type, its codes by pattern. */
static uint32_t direct_input(graph *g, const uint32_t *dims, float scale, int32_t zp, const int *pattern,
                             rg_rng *data) {
  tensor *t = &g->t[add_tensor(g, 4, dims, false)];
  t->scale = scale, t->zp = zp;
  t->operand = mb_input(&g->m.b, g->type, dims, 4);
  mb_set_quant(&g->m.b, t->operand, scale, zp);
  for (int v = 0; v < 2; ++v) fill_codes(&data[v], pattern[v], g->lo, g->hi, zp, t->q[v], elements(t));
  char s1[TEXT];
  rg_say(&g->m, "  t0 = input %s %s, data %s / %s\n", tensor_str(t, s1), type_name(g->type), p_names[pattern[0]],
         p_names[pattern[1]]);
  return 0;
}

/* The input's bytes for execution v. */
static uint8_t *input_bytes(const graph *g, int v, size_t *size) {
  const tensor *t = &g->t[0];
  *size = elements(t) * (t->is_float ? sizeof(float) : 1);
  if (!t->is_float) return pack_codes(g->type, t->q[v], elements(t));
  uint8_t *bytes = malloc(*size);
  assert_non_null(bytes);
  memcpy(bytes, t->f[v], *size);
  return bytes;
}

/* A long or mid input: its reduction first; a large one: a pool. */
static uint32_t first_step(graph *g, uint32_t x, int shape) {
  int y = -1;
  if (shape == SHAPE_LARGE) {
    y = pool_step(g, x, rg_chance(&g->m.r, 0.7), false);
  } else if (shape == SHAPE_LONG && rg_chance(&g->m.r, 0.4)) {
    y = fc_step(g, x);
  } else if (shape != SHAPE_PLAIN) {
    g->force_k = shape == SHAPE_LONG ? 1 : 3;
    int kind = rg_chance(&g->m.r, 0.8) ? RG_CONV : RG_GROUPED;
    y = conv_step(g, x, kind, rg_chance(&g->m.r, 0.5), 0, false);
    g->force_k = 0;
  }
  if (y < 0) return x;
  g->steps++;
  return (uint32_t)y;
}

/* Frees the tensors, filter inputs and channel scales from the given counts on. */
static void release(graph *g, uint32_t tensors, uint32_t filters, uint32_t scales) {
  for (uint32_t i = tensors; i < g->count; ++i)
    for (int v = 0; v < 2; ++v) free(g->t[i].q[v]), free(g->t[i].f[v]);
  for (uint32_t i = filters; i < g->filter_count; ++i) free(g->filters[i].bytes);
  for (uint32_t i = scales; i < g->channel_scale_count; ++i) free(g->channel_scales[i]);
}

static void undo_of(void *state, const void *snapshot) {
  const graph *before = snapshot;
  release(state, before->count, before->filter_count, before->channel_scale_count);
}

/* The model outputs: the last tensor, every tensor nothing reads, now and
 * then an intermediate one. */
static void choose_outputs(graph *g, uint32_t last) {
  rg_role roles[MAX_TENSORS];
  for (uint32_t i = 0; i < g->count; ++i) roles[i] = (rg_role){g->t[i].operand, g->t[i].readers, g->t[i].output};
  rg_choose_outputs(&g->m, roles, g->count, last, 0.1, MAX_OUTPUTS);
  for (uint32_t i = 0; i < g->count; ++i) g->t[i].output = roles[i].output;
}

/* The model of seed, and both executions' reference. */
static void build_graph(graph *g, uint64_t seed, uint32_t max_steps) {
  memset(g, 0, sizeof(*g));
  rg_model_init(&g->m, seed, VALUE_RESERVE);
  rg_rng *r = &g->m.r, data[2] = {rg_data_rng(seed, 0), rg_data_rng(seed, 1)};
  g->type = rg_chance(r, 0.5) ? Q8 : Q8S;
  g->lo = g->type == Q8 ? 0 : -128, g->hi = g->type == Q8 ? 255 : 127;
  uint32_t dims[4];
  int shape = input_shape(g, dims);
  bool quantize_first = rg_chance(r, 0.2);
  int pattern[2] = {random_pattern(g), random_pattern(g)};
  float scale = random_scale(g);
  int32_t zp = random_zp(g);
  uint32_t x = quantize_first ? quantized_input(g, dims, scale, zp, data)
                              : direct_input(g, dims, scale, zp, pattern, data);
  uint32_t count = 2 + rg_below(r, max_steps > 1 ? max_steps - 1 : 1);
  uint32_t cur = first_step(g, x, shape);
  cur = rg_grow(&steps, g, sizeof(*g), r, cur, count, &g->steps);
  if (cur == x) { /* nothing took: one convolution */
    int y = conv_step(g, x, RG_CONV, false, 4, false);
    assert_true(y >= 0);
    cur = (uint32_t)y;
  }
  if (rg_chance(r, 0.2)) {
    int y = dequantize_step(g, cur);
    if (y >= 0) cur = (uint32_t)y;
  }
  choose_outputs(g, cur);
  mb_finish(&g->m.b);
}

static void free_graph(graph *g) { release(g, 0, 0, 0); }

/* ---- option sets ------------------------------------------------------------------ */

static void o_idot_on(vknn_device_options *o) { o->integer_dot = VKNN_INTEGER_DOT_ON; }
static void o_idot_off(vknn_device_options *o) { o->integer_dot = VKNN_INTEGER_DOT_OFF; }
static void o_texel_subgroup_off(vknn_device_options *o) {
  o->operand_reads = VKNN_OPERAND_READS_TEXEL;
  o->subgroup_filter = VKNN_SUBGROUP_FILTER_OFF;
}

/* Sets: name, apply, also, wide, rotating. The packed dot products
 * (integer-dot-on) run on every seed: lavapipe has them but does not call
 * them accelerated, so the device leaves them off by itself. */
static const rg_set sets[] = {
    {"plain", rg_options_plain, NULL, false, false},
    {"integer-dot-on", o_idot_on, NULL, false, false},
    {"integer-dot-off", o_idot_off, NULL, false, true},
    {"all-off", rg_options_all_off, NULL, false, true},
    {"reads-storage", rg_options_storage, NULL, false, true},
    {"reads-texel", rg_options_texel, NULL, false, true},
    {"subgroup-on", rg_options_subgroup_on, NULL, false, true},
    {"subgroup-off", rg_options_subgroup_off, NULL, false, true},
    {"shared-tiles", rg_options_shared_tiles, NULL, false, true},
    {"global-pool-reduction", rg_options_global_pool, NULL, false, true},
    {"packed", rg_options_packed, NULL, false, true},
    {"io-copies", rg_options_io_copies, NULL, false, true},
    {"combo", rg_options_combo, o_idot_on, false, true},
    {"combo-storage", rg_options_combo_storage, o_idot_on, false, true},
    {"idot-texel", o_idot_on, o_texel_subgroup_off, false, true},
    {"tuning", rg_options_tuning, NULL, false, true},
    {"tuning-idot", rg_options_tuning, o_idot_on, false, true},
    {"wide", rg_options_plain, NULL, true, true},
    {"wide-idot", o_idot_on, NULL, true, true},
    {"wide-combo", rg_options_combo, o_idot_on, true, true},
    {"wide-packed", rg_options_packed, NULL, true, true},
};
#define SET_COUNT (sizeof(sets) / sizeof(sets[0]))

typedef rg_fixture fixture;

static const rg_set *set_of(uint32_t s) { return &sets[s]; }

static int setup(void **state) { return rg_fixture_setup(state, "QDIFF", 30, 6, set_of, SET_COUNT); }

/* ---- running and comparing -------------------------------------------------------- */

typedef struct stats {
  uint32_t seeds, runs, failures, notes;
  uint64_t one_step, elements; /* elements one step off, of all compared */
} stats;

typedef struct run_result {
  vknn_status execute[2];
  uint8_t *out[2][MB_MAX_IO];
  vknn_output_shape shapes[2][MB_MAX_IO];
  char log[RG_LOG_TEXT];
  uint32_t dispatches;
} run_result;

/* A seed's model, its input for both executions and what every set gave. */
typedef struct seed_run {
  rg_seed runs;
  fixture *f;
  stats *st;
  graph *g;
  uint8_t *input[2];
  size_t input_size;
  run_result results[SET_COUNT];
} seed_run;

static size_t tensor_bytes(const tensor *t) { return elements(t) * (t->is_float ? sizeof(float) : 1); }

/* Execution v of the prepared model: the data input, then the filters given
 * as inputs, in the model's order of inputs. */
static vknn_status execute_on(vknn_prepared_model *pm, const seed_run *sr, int v, run_result *res) {
  const graph *g = sr->g;
  buffer_arg inputs[MB_MAX_IO] = {{0}}, outputs[MB_MAX_IO] = {{0}};
  for (uint32_t k = 0; k < g->m.b.input_count; ++k) {
    if (g->m.b.inputs[k] == g->t[0].operand) inputs[k] = (buffer_arg){sr->input[v], NULL, sr->input_size, NULL, 0};
    for (uint32_t i = 0; i < g->filter_count; ++i)
      if (g->m.b.inputs[k] == g->filters[i].operand)
        inputs[k] = (buffer_arg){g->filters[i].bytes, NULL, g->filters[i].size, NULL, 0};
    assert_non_null(inputs[k].data);
  }
  uint32_t k = 0;
  for (uint32_t i = 1; i < g->count; ++i) {
    if (!g->t[i].output) continue;
    res->out[v][k] = malloc(tensor_bytes(&g->t[i]));
    assert_non_null(res->out[v][k]);
    outputs[k] = (buffer_arg){NULL, res->out[v][k], tensor_bytes(&g->t[i]), NULL, 0};
    k++;
  }
  return model_runner_execute(pm, &g->m.b, inputs, outputs, res->shapes[v]);
}

/* Prepares the seed's model on set s's device and executes it twice. */
static vknn_status run_model(void *ctx, uint32_t s, char *log) {
  seed_run *sr = ctx;
  run_result *res = &sr->results[s];
  vknn_prepared_model *pm = NULL;
  vknn_prepared_model_info info;
  vknn_status prepare = rg_prepare(&sr->f->devices, s, &sr->g->m.b, &pm, &info, log, RG_LOG_TEXT);
  if (prepare != VKNN_STATUS_NONE) return prepare;
  res->dispatches = info.dispatch_count;
  for (int v = 0; v < 2; ++v) {
    res->execute[v] = execute_on(pm, sr, v, res);
    if (res->execute[v] != VKNN_STATUS_NONE)
      snprintf(res->log, sizeof(res->log), "%s", sr->f->devices.log[s].last);
  }
  vknn_prepared_model_release(pm);
  return prepare;
}

static void free_result(run_result *res) {
  for (int v = 0; v < 2; ++v)
    for (uint32_t k = 0; k < MB_MAX_IO; ++k) free(res->out[v][k]);
}

/* VKNN_QDIFF_STRICT=0: differences of one step are notes. */
static bool strict = true;

static int32_t code_at(const graph *g, const uint8_t *bytes, size_t e) {
  return g->type == Q8 ? (int32_t)bytes[e] : (int32_t)(int8_t)bytes[e];
}

/* Output k (tensor i, execution v) against the reference: the elements off
 * by one step into *one, by more into *big. */
static void count_diffs(const graph *g, const char *head, uint32_t k, uint32_t i, int v, const uint8_t *out,
                        uint32_t *one, uint32_t *big) {
  const tensor *t = &g->t[i];
  uint32_t shown = 0;
  for (size_t e = 0; e < elements(t); ++e) {
    if (t->is_float) {
      float got;
      memcpy(&got, out + e * sizeof(float), sizeof(float));
      float want = t->f[v][e];
      if (fabsf(got - want) <= 1e-5f + 5.96e-7f * fabsf(want)) continue;
      ++*big;
      if (shown++ < 6) printf("DIFF %s: output %u (t%u) element %zu: got %.9g want %.9g\n", head, k, i, e, got, want);
      continue;
    }
    int32_t got = code_at(g, out, e), want = t->q[v][e];
    if (got == want) continue;
    ++*(abs(got - want) == 1 ? one : big);
    if (shown++ < 6) printf("DIFF %s: output %u (t%u) element %zu: got %d want %d\n", head, k, i, e, got, want);
  }
}

/* Output k (n bytes, tensor i) against the plain device's. */
static bool check_plain(const char *head, uint32_t k, uint32_t i, const tensor *t, const uint8_t *out,
                        const uint8_t *plain) {
  if (memcmp(out, plain, tensor_bytes(t)) == 0) return true;
  size_t differ = 0, first = SIZE_MAX, width = t->is_float ? sizeof(float) : 1;
  for (size_t e = 0; e < elements(t); ++e)
    if (memcmp(out + e * width, plain + e * width, width) != 0) {
      differ++;
      if (first == SIZE_MAX) first = e;
    }
  printf("MISMATCH %s: output %u (t%u) not the bits of set plain: %zu of %zu elements differ, first %zu\n", head, k,
         i, differ, elements(t), first);
  return false;
}

/* Execution v of set s against the reference and the plain device's bits. */
static bool check_run(const seed_run *sr, uint32_t s, int v) {
  const graph *g = sr->g;
  const run_result *res = &sr->results[s], *plain = &sr->results[RG_SET_PLAIN];
  stats *st = sr->st;
  char head[160];
  snprintf(head, sizeof(head), "seed %llu, set %s, execution %d", (unsigned long long)sr->runs.seed, sets[s].name,
           v + 1);
  if (res->execute[v] != VKNN_STATUS_NONE) {
    printf("MISMATCH %s: execute %s (%s)\n", head, vknn_status_name(res->execute[v]), res->log);
    return false;
  }
  bool ok = true;
  bool compare = s != RG_SET_PLAIN && sr->runs.prepare[RG_SET_PLAIN] == VKNN_STATUS_NONE &&
                 plain->execute[v] == VKNN_STATUS_NONE;
  uint32_t k = 0;
  for (uint32_t i = 1; i < g->count; ++i) {
    const tensor *t = &g->t[i];
    if (!t->output) continue;
    ok = rg_check_shape(head, k, i, &res->shapes[v][k], t->rank, t->dims) && ok;
    uint32_t one = 0, big = 0;
    count_diffs(g, head, k, i, v, res->out[v][k], &one, &big);
    st->elements += elements(t), st->one_step += one;
    if (one || big) {
      printf("DIFF %s: output %u (t%u): %u of %zu elements one step off, %u more\n", head, k, i, one, elements(t),
             big);
      if (big || strict) ok = false;
      else st->notes++;
    }
    if (compare) ok = check_plain(head, k, i, t, res->out[v][k], plain->out[v][k]) && ok;
    k++;
  }
  return ok;
}

/* Set s's two executions: the reference's results, the plain device's bits. */
static bool check_set(void *ctx, uint32_t s) {
  const seed_run *sr = ctx;
  bool ok = check_run(sr, s, 0);
  ok = check_run(sr, s, 1) && ok;
  if (sr->f->config.verbose)
    printf("  set %-22s dispatches %u (%.0f ms)\n", sets[s].name, sr->results[s].dispatches, sr->runs.ms[s]);
  return ok;
}

/* Builds, runs and checks one seed's model; false when anything disagrees. */
static bool test_seed(seed_run *sr) {
  static const rg_runner runner = {run_model, check_set};
  fixture *f = sr->f;
  graph *g = sr->g;
  uint64_t seed = sr->runs.seed;
  build_graph(g, seed, f->config.max_steps);
  for (int v = 0; v < 2; ++v) sr->input[v] = input_bytes(g, v, &sr->input_size);
  bool ok = rg_run_seed(&f->devices, &f->config, &sr->runs, &runner, sr, &g->m, g->steps, &sr->st->runs);
  for (uint32_t s = 0; s < SET_COUNT; ++s) free_result(&sr->results[s]);
  free(sr->input[0]);
  free(sr->input[1]);
  free_graph(g);
  return ok;
}

static void test_random_graphs(void **state) {
  fixture *f = *state;
  strict = atoi(rg_getenv("QDIFF", "STRICT", "1")) != 0;
  stats *st = calloc(1, sizeof(*st));
  graph *g = malloc(sizeof(*g));
  seed_run *sr = malloc(sizeof(*sr));
  assert_true(st != NULL && g != NULL && sr != NULL);
  for (uint64_t seed = f->config.first; seed < f->config.first + f->config.count; ++seed) {
    memset(sr, 0, sizeof(*sr));
    sr->runs.seed = seed, sr->f = f, sr->st = st, sr->g = g;
    if (!test_seed(sr)) st->failures++;
    st->seeds++;
  }
  printf("seeds %u, runs %u, failing seeds %u, one-step notes %u (%llu of %llu elements one step off)\n", st->seeds,
         st->runs, st->failures, st->notes, (unsigned long long)st->one_step, (unsigned long long)st->elements);
  uint32_t failures = st->failures;
  free(g);
  free(sr);
  free(st);
  if (failures) fail_msg("%u seeds disagree", failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_graphs)};
  return cmocka_run_group_tests(tests, setup, rg_fixture_teardown);
}
