/* Differential random-graph test of the device options: from a seed, a
 * small random float32 CNN-like model (CONV_2D, DEPTHWISE_CONV_2D,
 * GROUPED_CONV_2D, PAD before a convolution, residual and broadcast ADDs,
 * CONCATENATION of branches, pools including global ones, RELU / RELU6
 * after a convolution, RESHAPE, FULLY_CONNECTED, SOFTMAX; intermediate
 * tensors that are also model outputs, outputs of unknown shape, an input
 * whose batch only the execution gives) is prepared on devices opened with
 * different option sets (every kernel-selection option forced on and off,
 * their combinations, a device that says it is wide, kernel tuning on
 * every fourth seed, relaxed float16) and executed twice (the second time
 * on other input values, and another batch where the model leaves it
 * open); every result is compared with a double-precision reference
 * computed here. The error allowed grows with each layer's fan-in and is relative
 * to the magnitude of the terms (sum |w| |x|, propagated), so that the
 * order of a sum never matters and a wrong index always does. Options
 * documented to give the same bits (packed layout, operand reads, io
 * copies, a relaxed model with relaxed_float16 off) are compared bit for
 * bit with the plain device. Prepare must succeed or fail alike on every
 * device, and the validation layer must report nothing.
 *
 * Environment: VKNN_DIFF_SEED (first seed, 1), VKNN_DIFF_SEEDS (how many,
 * 50), VKNN_DIFF_SETS ("all", or names separated by commas; default: the
 * plain device and a rotating few of the others per seed),
 * VKNN_DIFF_VERBOSE=1 (each seed's model and outcome),
 * VKNN_DIFF_STEPS (the most steps a model takes, 8), VKNN_DIFF_TOLERANCE
 * (scales every allowance, 1), VKNN_DIFF_LOG=1 (print the driver's log
 * lines; with VKNN_LOG=compilation, its fusions and packing). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/device_internal.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define OP(name) VKNN_OPERATION_##name
#define MAX_TENSORS 48
#define MAX_DESC 8192
/* Constants take model_builder's values; keep room for the scalars. */
#define VALUE_RESERVE 640u

/* ---- random numbers ------------------------------------------------------------ */

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next64(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t below(rng *r, uint32_t n) { return n == 0 ? 0 : (uint32_t)(next64(r) % n); }
static double uniform(rng *r) { return (double)(next64(r) >> 11) / 9007199254740992.0; }
static bool chance(rng *r, double p) { return uniform(r) < p; }
static uint32_t pick(rng *r, const uint32_t *values, uint32_t count) { return values[below(r, count)]; }

/* ---- the graph and its reference ----------------------------------------------- */

typedef struct tensor {
  uint32_t rank, dims[4];
  uint32_t operand;
  double *val, *mag; /* reference values; sum of |terms| (error scale) */
  double rt, rt16;   /* error allowed, relative to mag: float32 paths, float16 paths */
  uint32_t readers;
  bool output;    /* also a model output */
  bool input;
} tensor;

typedef struct graph {
  rng r;
  model_builder b;
  tensor t[MAX_TENSORS];
  uint32_t count;
  int32_t scalar_values[64];
  uint32_t scalar_operands[64], scalar_count;
  uint32_t bool_false;
  char desc[MAX_DESC];
  size_t desc_len;
  uint32_t steps;
  bool unknown_input; /* the first input's batch is left to the execution */
  bool hide_temporaries; /* temporaries declared with unknown dimensions */
  uint32_t force_k;      /* conv_step's window (0: random) */
} graph;

static void say(graph *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(g->desc + g->desc_len, MAX_DESC - g->desc_len, fmt, ap);
  va_end(ap);
  if (n > 0) g->desc_len = g->desc_len + (size_t)n < MAX_DESC ? g->desc_len + (size_t)n : MAX_DESC - 1;
}

static size_t elements(const tensor *t) {
  size_t n = 1;
  for (uint32_t d = 0; d < t->rank; ++d) n *= t->dims[d];
  return n;
}

static const char *shape_str(const tensor *t, char *buf) {
  int n = sprintf(buf, "[");
  for (uint32_t d = 0; d < t->rank; ++d) n += sprintf(buf + n, d ? ",%u" : "%u", t->dims[d]);
  sprintf(buf + n, "]");
  return buf;
}

/* A new tensor (a temporary of the model; outputs are chosen at the end). */
static uint32_t new_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  assert_true(g->count < MAX_TENSORS);
  uint32_t i = g->count++;
  tensor *t = &g->t[i];
  memset(t, 0, sizeof(*t));
  t->rank = rank;
  memcpy(t->dims, dims, rank * sizeof(uint32_t));
  size_t n = elements(t);
  t->val = calloc(n, sizeof(double));
  t->mag = calloc(n, sizeof(double));
  assert_true(t->val != NULL && t->mag != NULL);
  t->operand = mb_temporary(&g->b, F32, dims, rank);
  return i;
}

static uint32_t scalar(graph *g, int32_t v) {
  for (uint32_t i = 0; i < g->scalar_count; ++i)
    if (g->scalar_values[i] == v) return g->scalar_operands[i];
  assert_true(g->scalar_count < 64);
  g->scalar_values[g->scalar_count] = v;
  return g->scalar_operands[g->scalar_count++] = mb_const_i32(&g->b, v);
}

static uint32_t layout_false(graph *g) {
  if (g->bool_false == UINT32_MAX) {
    uint8_t v = 0;
    g->bool_false = mb_const_tensor(&g->b, VKNN_OPERAND_BOOL, NULL, 0, &v, 1);
  }
  return g->bool_false;
}

static size_t values_left(const graph *g) {
  size_t used = g->b.values_size + VALUE_RESERVE;
  return used >= sizeof(g->b.values) ? 0 : sizeof(g->b.values) - used;
}

/* Operands and operations still free for a step that needs so many. */
static bool room(const graph *g, uint32_t operands, uint32_t operations) {
  return g->b.operand_count + operands + 8 <= MB_MAX_OPERANDS &&
         g->b.operation_count + operations <= MB_MAX_OPERATIONS && g->count + operations <= MAX_TENSORS;
}

/* A constant float32 tensor of uniform values in [-scale, scale]; into *host. */
static uint32_t random_const(graph *g, const uint32_t *dims, uint32_t rank, double scale, float **host) {
  size_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= dims[d];
  float *v = malloc(n * sizeof(float));
  assert_non_null(v);
  for (size_t i = 0; i < n; ++i) v[i] = (float)((uniform(&g->r) * 2.0 - 1.0) * scale);
  uint32_t c = mb_const_tensor(&g->b, F32, dims, rank, v, n * sizeof(float));
  *host = v;
  return c;
}

static void operation(graph *g, int32_t type, const uint32_t *inputs, uint32_t count, uint32_t out) {
  mb_operation(&g->b, type, inputs, count, &g->t[out].operand, 1);
}

static double clamp_act(double v, int32_t act) {
  if (act == VKNN_FUSED_RELU) return v < 0 ? 0 : v;
  if (act == VKNN_FUSED_RELU1) return v < -1 ? -1 : v > 1 ? 1 : v;
  if (act == VKNN_FUSED_RELU6) return v < 0 ? 0 : v > 6 ? 6 : v;
  return v;
}

static const char *act_name(int32_t act) {
  static const char *names[] = {"NONE", "RELU", "RELU1", "RELU6"};
  return names[act];
}

/* Error allowed per layer, relative to the terms' magnitude. */
static double layer_rt(uint32_t fan_in) { return 1e-5 * sqrt((double)fan_in) + 2e-6; }
static double layer_rt16(uint32_t fan_in) { return 4e-3 + 1.5e-3 * sqrt((double)fan_in); }

static int32_t random_act(graph *g) {
  static const int32_t acts[] = {VKNN_FUSED_NONE, VKNN_FUSED_NONE, VKNN_FUSED_RELU, VKNN_FUSED_RELU6,
                                 VKNN_FUSED_RELU1};
  return acts[below(&g->r, chance(&g->r, 0.1) ? 5 : 4)];
}

/* ---- convolutions ---------------------------------------------------------------- */

enum { CONV, DEPTHWISE, GROUPED };
static const char *conv_names[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "GROUPED_CONV_2D"};

typedef struct conv_params {
  int kind;
  uint32_t kh, kw, sh, sw, dh, dw;
  int implicit; /* 0 explicit, 1 SAME, 2 VALID */
  uint32_t pl, pr, pt, pb; /* explicit, or what the implicit scheme gives */
  uint32_t out_c, groups, mult;
  int32_t act;
  int form; /* 0 plain, 1 with the layout, 2 with layout and dilations */
} conv_params;

/* NNAPI's implicit padding: head and tail of one dimension; output size. */
static uint32_t implicit_pad(uint32_t in, uint32_t k, uint32_t s, uint32_t d, int scheme, uint32_t *head,
                             uint32_t *tail) {
  uint32_t eff = (k - 1) * d + 1;
  if (scheme == 2) {
    *head = *tail = 0;
    return in >= eff ? (in - eff) / s + 1 : 0;
  }
  uint32_t out = (in + s - 1) / s;
  int64_t total = (int64_t)(out - 1) * s + eff - in;
  if (total < 0) total = 0;
  *head = (uint32_t)total / 2;
  *tail = (uint32_t)total - *head;
  return out;
}

static uint32_t explicit_out(uint32_t in, uint32_t k, uint32_t s, uint32_t d, uint32_t a, uint32_t b) {
  uint32_t eff = (k - 1) * d + 1;
  return in + a + b >= eff ? (in + a + b - eff) / s + 1 : 0;
}

/* The reference of a convolution of tensor x into tensor y. */
static void conv_reference(graph *g, const conv_params *p, uint32_t x, uint32_t y, const float *w,
                           const float *bias) {
  const tensor *in = &g->t[x];
  tensor *out = &g->t[y];
  uint32_t N = in->dims[0], H = in->dims[1], W = in->dims[2], C = in->dims[3];
  uint32_t OH = out->dims[1], OW = out->dims[2], OC = out->dims[3];
  uint32_t cg = p->kind == GROUPED ? C / p->groups : C, ocg = p->kind == GROUPED ? OC / p->groups : OC;
  uint32_t fan = p->kind == DEPTHWISE ? p->kh * p->kw : p->kh * p->kw * cg;
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t oy = 0; oy < OH; ++oy)
      for (uint32_t ox = 0; ox < OW; ++ox)
        for (uint32_t oc = 0; oc < OC; ++oc) {
          double sum = bias[oc], mag = fabs(bias[oc]);
          for (uint32_t ky = 0; ky < p->kh; ++ky) {
            int64_t iy = (int64_t)oy * p->sh - p->pt + (int64_t)ky * p->dh;
            if (iy < 0 || iy >= H) continue;
            for (uint32_t kx = 0; kx < p->kw; ++kx) {
              int64_t ix = (int64_t)ox * p->sw - p->pl + (int64_t)kx * p->dw;
              if (ix < 0 || ix >= W) continue;
              size_t base = (((size_t)n * H + (size_t)iy) * W + (size_t)ix) * C;
              if (p->kind == DEPTHWISE) {
                uint32_t ic = oc / p->mult;
                double wv = w[((size_t)ky * p->kw + kx) * OC + oc];
                sum += wv * in->val[base + ic];
                mag += fabs(wv) * in->mag[base + ic];
              } else {
                uint32_t first = p->kind == GROUPED ? (oc / ocg) * cg : 0;
                for (uint32_t c = 0; c < cg; ++c) {
                  double wv = w[(((size_t)oc * p->kh + ky) * p->kw + kx) * cg + c];
                  sum += wv * in->val[base + first + c];
                  mag += fabs(wv) * in->mag[base + first + c];
                }
              }
            }
          }
          size_t o = (((size_t)n * OH + oy) * OW + ox) * OC + oc;
          out->val[o] = clamp_act(sum, p->act);
          out->mag[o] = mag;
        }
  out->rt = in->rt + layer_rt(fan);
  out->rt16 = in->rt16 + layer_rt16(fan);
}

/* Builds a convolution of kind on tensor x. same: stride 1, output of x's
 * height and width. out_c: the output channels wanted (0: any). pad_first:
 * a PAD operation first takes some of the padding (pad fusion), with
 * pad_output making its result a model output too (which keeps it apart).
 * Returns the output tensor, or -1 when nothing fits. */
static int conv_step(graph *g, uint32_t x, int kind, bool same, uint32_t out_c, bool pad_first) {
  const tensor *in = &g->t[x];
  if (in->rank != 4) return -1;
  uint32_t H = in->dims[1], W = in->dims[2], C = in->dims[3];
  conv_params p = {.kind = kind, .dh = 1, .dw = 1, .sh = 1, .sw = 1, .groups = 1, .mult = 1};
  static const uint32_t ks[] = {1, 3, 3, 3, 5};
  p.kh = p.kw = pick(&g->r, ks, 5);
  if (chance(&g->r, 0.15)) p.kw = pick(&g->r, ks, 5); /* non-square now and then */
  if (g->force_k) p.kh = p.kw = g->force_k;
  if (!same && chance(&g->r, 0.4)) p.sh = p.sw = 2;
  if (!same && chance(&g->r, 0.1)) p.sw = p.sh == 1 ? 2 : 1; /* mixed strides */
  if (kind != GROUPED && p.kh > 1 && chance(&g->r, 0.2)) p.dh = p.dw = 2;
  p.act = random_act(g);
  /* channels */
  static const uint32_t chans[] = {1, 3, 4, 8, 8, 12, 16, 16, 24, 32};
  if (kind == DEPTHWISE) {
    p.mult = out_c ? (out_c % C == 0 ? out_c / C : 0) : (chance(&g->r, 0.25) ? 2 : 1);
    if (p.mult == 0 || p.mult > 2 || C * p.mult > 64) return -1;
    p.out_c = C * p.mult;
  } else if (kind == GROUPED) {
    uint32_t options[8], n = 0;
    for (uint32_t gr = 2; gr <= C && n < 8; ++gr)
      if (C % gr == 0 && (out_c == 0 || out_c % gr == 0)) options[n++] = gr;
    if (n == 0) return -1;
    p.groups = options[below(&g->r, n)];
    if (out_c) p.out_c = out_c;
    else {
      uint32_t per = pick(&g->r, (const uint32_t[]){1, 2, 4, 8}, 4);
      p.out_c = p.groups * per;
      if (p.out_c > 48) p.out_c = p.groups;
    }
  } else {
    p.out_c = out_c ? out_c : pick(&g->r, chans, 10);
  }
  /* weights must fit the builder's values: smaller windows, fewer channels */
  uint32_t cg = kind == GROUPED ? C / p.groups : kind == DEPTHWISE ? 1 : C;
  for (;;) {
    size_t bytes = ((size_t)p.out_c * p.kh * p.kw * cg + p.out_c) * 4;
    if (bytes <= values_left(g)) break;
    if (p.kh > 1 || p.kw > 1) {
      p.kh = p.kh > 1 ? p.kh - 2 : 1;
      p.kw = p.kw > 1 ? p.kw - 2 : 1;
      if (p.kh == 1 && p.kw == 1) p.dh = p.dw = 1;
      continue;
    }
    if (out_c || kind == DEPTHWISE || p.out_c <= (kind == GROUPED ? p.groups : 1)) return -1;
    p.out_c = kind == GROUPED ? p.groups : p.out_c / 2;
  }
  uint32_t effh = (p.kh - 1) * p.dh + 1, effw = (p.kw - 1) * p.dw + 1;
  /* padding: PAD's share first (explicit amounts), then the convolution's */
  uint32_t ppt = 0, ppb = 0, ppl = 0, ppr = 0;
  if (same) {
    uint32_t th = effh - 1, tw = effw - 1;
    if (pad_first) {
      ppt = below(&g->r, th + 1), ppb = below(&g->r, th - ppt + 1);
      ppl = below(&g->r, tw + 1), ppr = below(&g->r, tw - ppl + 1);
      if (ppt + ppb + ppl + ppr == 0) pad_first = false;
    }
    th -= ppt + ppb, tw -= ppl + ppr;
    if (!pad_first && chance(&g->r, 0.5)) {
      p.implicit = 1;
      implicit_pad(H, p.kh, 1, p.dh, 1, &p.pt, &p.pb);
      implicit_pad(W, p.kw, 1, p.dw, 1, &p.pl, &p.pr);
    } else if (th == 0 && tw == 0 && chance(&g->r, 0.5)) {
      p.implicit = 2;
    } else {
      p.pt = below(&g->r, th + 1), p.pb = th - p.pt;
      p.pl = below(&g->r, tw + 1), p.pr = tw - p.pl;
    }
  } else {
    if (pad_first) {
      ppt = below(&g->r, 3), ppb = below(&g->r, 3), ppl = below(&g->r, 3), ppr = below(&g->r, 3);
      if (ppt + ppb + ppl + ppr == 0) ppb = 1;
    }
    int scheme = below(&g->r, 3);
    uint32_t h2 = H + ppt + ppb, w2 = W + ppl + ppr;
    if (scheme == 2 && (h2 < effh || w2 < effw)) scheme = 1;
    if (scheme != 0) {
      p.implicit = scheme;
      implicit_pad(h2, p.kh, p.sh, p.dh, scheme, &p.pt, &p.pb);
      implicit_pad(w2, p.kw, p.sw, p.dw, scheme, &p.pl, &p.pr);
    } else {
      p.pt = below(&g->r, effh), p.pb = below(&g->r, effh);
      p.pl = below(&g->r, effw), p.pr = below(&g->r, effw);
      if (h2 + p.pt + p.pb < effh) p.pb = effh - h2 - p.pt;
      if (w2 + p.pl + p.pr < effw) p.pr = effw - w2 - p.pl;
    }
  }
  uint32_t h2 = H + ppt + ppb, w2 = W + ppl + ppr;
  uint32_t OH = explicit_out(h2, p.kh, p.sh, p.dh, p.pt, p.pb);
  uint32_t OW = explicit_out(w2, p.kw, p.sw, p.dw, p.pl, p.pr);
  if (OH == 0 || OW == 0) return -1;
  if (!room(g, 6, 2)) return -1;
  p.form = kind == GROUPED ? 1 : p.dh > 1 ? 2 : below(&g->r, 5) == 0 ? 1 + (int)below(&g->r, 2) : 0;

  char s1[64], s2[64];
  uint32_t src = x;
  if (pad_first) {
    uint32_t pd[4] = {in->dims[0], h2, w2, C};
    uint32_t padded = new_tensor(g, 4, pd);
    tensor *pt = &g->t[padded];
    const tensor *xi = &g->t[x];
    for (uint32_t n = 0; n < pd[0]; ++n)
      for (uint32_t y = 0; y < H; ++y)
        for (uint32_t xx = 0; xx < W; ++xx)
          for (uint32_t c = 0; c < C; ++c) {
            size_t from = (((size_t)n * H + y) * W + xx) * C + c;
            size_t to = (((size_t)n * h2 + y + ppt) * w2 + xx + ppl) * C + c;
            pt->val[to] = xi->val[from];
            pt->mag[to] = xi->mag[from];
          }
    pt->rt = xi->rt, pt->rt16 = xi->rt16;
    const int32_t amounts[8] = {0, 0, (int32_t)ppt, (int32_t)ppb, (int32_t)ppl, (int32_t)ppr, 0, 0};
    const uint32_t adims[2] = {4, 2};
    uint32_t a = mb_const_tensor(&g->b, VKNN_OPERAND_TENSOR_INT32, adims, 2, amounts, sizeof(amounts));
    uint32_t inputs[2] = {g->t[x].operand, a};
    operation(g, OP(PAD), inputs, 2, padded);
    g->t[x].readers++;
    say(g, "  t%u = PAD(t%u) %s -> %s  pads h(%u,%u) w(%u,%u)\n", padded, x, shape_str(&g->t[x], s1),
        shape_str(pt, s2), ppt, ppb, ppl, ppr);
    src = padded;
    if (chance(&g->r, 0.15)) g->t[padded].output = true;
  }
  uint32_t od[4] = {g->t[src].dims[0], OH, OW, p.out_c};
  uint32_t y = new_tensor(g, 4, od);
  float *w, *bias;
  uint32_t fan = p.kh * p.kw * cg;
  double scale = 1.0 / sqrt((double)fan);
  uint32_t filter;
  if (kind == DEPTHWISE) {
    const uint32_t fd[4] = {1, p.kh, p.kw, p.out_c};
    filter = random_const(g, fd, 4, scale, &w);
  } else {
    const uint32_t fd[4] = {p.out_c, p.kh, p.kw, cg};
    filter = random_const(g, fd, 4, scale, &w);
  }
  const uint32_t bd[1] = {p.out_c};
  uint32_t b = random_const(g, bd, 1, 0.5, &bias);
  uint32_t inputs[14], n = 0;
  inputs[n++] = g->t[src].operand, inputs[n++] = filter, inputs[n++] = b;
  if (p.implicit) {
    inputs[n++] = scalar(g, p.implicit);
  } else {
    inputs[n++] = scalar(g, (int32_t)p.pl), inputs[n++] = scalar(g, (int32_t)p.pr);
    inputs[n++] = scalar(g, (int32_t)p.pt), inputs[n++] = scalar(g, (int32_t)p.pb);
  }
  inputs[n++] = scalar(g, (int32_t)p.sw), inputs[n++] = scalar(g, (int32_t)p.sh);
  if (kind == DEPTHWISE) inputs[n++] = scalar(g, (int32_t)p.mult);
  if (kind == GROUPED) inputs[n++] = scalar(g, (int32_t)p.groups);
  inputs[n++] = scalar(g, p.act);
  if (p.form >= 1) inputs[n++] = layout_false(g);
  if (p.form == 2) inputs[n++] = scalar(g, (int32_t)p.dw), inputs[n++] = scalar(g, (int32_t)p.dh);
  operation(g, kind == CONV ? OP(CONV_2D) : kind == DEPTHWISE ? OP(DEPTHWISE_CONV_2D) : OP(GROUPED_CONV_2D),
            inputs, n, y);
  g->t[src].readers++;
  conv_reference(g, &p, src, y, w, bias);
  static const char *schemes[] = {"explicit", "SAME", "VALID"};
  say(g, "  t%u = %s(t%u) %s -> %s  k%ux%u s%u,%u d%u,%u %s pads(l%u r%u t%u b%u)", y, conv_names[kind], src,
      shape_str(&g->t[src], s1), shape_str(&g->t[y], s2), p.kh, p.kw, p.sh, p.sw, p.dh, p.dw,
      schemes[p.implicit], p.pl, p.pr, p.pt, p.pb);
  if (kind == DEPTHWISE) say(g, " mult%u", p.mult);
  if (kind == GROUPED) say(g, " groups%u", p.groups);
  say(g, " act %s form%d\n", act_name(p.act), p.form);
  free(w);
  free(bias);
  return (int)y;
}

/* ---- other operations ------------------------------------------------------------ */

/* RELU, RELU1 or RELU6 of x (after a convolution: activation fusion). */
static int relu_step(graph *g, uint32_t x) {
  if (!room(g, 1, 1)) return -1;
  static const int32_t types[] = {OP(RELU), OP(RELU6), OP(RELU1)};
  static const int32_t acts[] = {VKNN_FUSED_RELU, VKNN_FUSED_RELU6, VKNN_FUSED_RELU1};
  static const char *names[] = {"RELU", "RELU6", "RELU1"};
  uint32_t k = below(&g->r, chance(&g->r, 0.2) ? 3 : 2);
  uint32_t y = new_tensor(g, g->t[x].rank, g->t[x].dims);
  tensor *o = &g->t[y];
  const tensor *in = &g->t[x];
  for (size_t i = 0; i < elements(o); ++i) o->val[i] = clamp_act(in->val[i], acts[k]), o->mag[i] = in->mag[i];
  o->rt = in->rt, o->rt16 = in->rt16;
  uint32_t inputs[1] = {in->operand};
  operation(g, types[k], inputs, 1, y);
  g->t[x].readers++;
  char s1[64];
  say(g, "  t%u = %s(t%u) %s\n", y, names[k], x, shape_str(o, s1));
  return (int)y;
}

/* The broadcast of two shapes, right-aligned (rank 4 at most). */
static bool broadcast_dims(const tensor *a, const tensor *b, uint32_t *rank, uint32_t *dims) {
  *rank = a->rank > b->rank ? a->rank : b->rank;
  for (uint32_t i = 0; i < *rank; ++i) {
    uint32_t da = i < a->rank ? a->dims[a->rank - 1 - i] : 1, db = i < b->rank ? b->dims[b->rank - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[*rank - 1 - i] = da > db ? da : db;
  }
  return true;
}

static size_t broadcast_index(const tensor *t, uint32_t rank, const uint32_t *dims, size_t flat) {
  uint32_t idx[4];
  for (int d = (int)rank - 1; d >= 0; --d) idx[d] = (uint32_t)(flat % dims[d]), flat /= dims[d];
  size_t off = 0;
  for (uint32_t d = 0; d < t->rank; ++d) {
    uint32_t od = rank - t->rank + d;
    off = off * t->dims[d] + (t->dims[d] == 1 ? 0 : idx[od]);
  }
  return off;
}

/* ADD(a, b) with activation; a and b broadcast. */
static int add_step(graph *g, uint32_t a, uint32_t b, int32_t act) {
  uint32_t rank, dims[4];
  if (!broadcast_dims(&g->t[a], &g->t[b], &rank, dims) || !room(g, 2, 1)) return -1;
  uint32_t y = new_tensor(g, rank, dims);
  tensor *o = &g->t[y];
  const tensor *ta = &g->t[a], *tb = &g->t[b];
  for (size_t i = 0; i < elements(o); ++i) {
    size_t ia = broadcast_index(ta, rank, dims, i), ib = broadcast_index(tb, rank, dims, i);
    o->val[i] = clamp_act(ta->val[ia] + tb->val[ib], act);
    o->mag[i] = ta->mag[ia] + tb->mag[ib];
  }
  o->rt = fmax(ta->rt, tb->rt) + 3e-7;
  o->rt16 = fmax(ta->rt16, tb->rt16) + 1e-3;
  uint32_t inputs[3] = {ta->operand, tb->operand, scalar(g, act)};
  operation(g, OP(ADD), inputs, 3, y);
  g->t[a].readers++;
  g->t[b].readers++;
  char s1[64], s2[64], s3[64];
  say(g, "  t%u = ADD(t%u %s, t%u %s) -> %s act %s\n", y, a, shape_str(ta, s1), b, shape_str(tb, s2),
      shape_str(o, s3), act_name(act));
  return (int)y;
}

/* A constant tensor of random values (an ADD's broadcast operand). */
static int const_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  size_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= dims[d];
  if (n * 4 > values_left(g) || !room(g, 1, 0)) return -1;
  assert_true(g->count < MAX_TENSORS);
  uint32_t i = g->count++;
  tensor *t = &g->t[i];
  memset(t, 0, sizeof(*t));
  t->rank = rank;
  memcpy(t->dims, dims, rank * sizeof(uint32_t));
  t->val = calloc(n, sizeof(double));
  t->mag = calloc(n, sizeof(double));
  float *v;
  t->operand = random_const(g, dims, rank, 1.0, &v);
  t->rt16 = 1e-3; /* rounded to float16 in a relaxed model */
  for (size_t k = 0; k < n; ++k) t->val[k] = v[k], t->mag[k] = fabs(v[k]);
  free(v);
  char s1[64];
  say(g, "  t%u = constant %s\n", i, shape_str(t, s1));
  return (int)i;
}

/* AVERAGE_POOL_2D or MAX_POOL_2D; global: the window covers the image. */
static int pool_step(graph *g, uint32_t x, bool global, bool same) {
  const tensor *in = &g->t[x];
  if (in->rank != 4 || !room(g, 2, 1)) return -1;
  uint32_t H = in->dims[1], W = in->dims[2], C = in->dims[3];
  bool avg = chance(&g->r, 0.5);
  uint32_t fh, fw, sh = 1, sw = 1, pl = 0, pr = 0, pt = 0, pb = 0;
  int scheme = 0;
  int32_t act = chance(&g->r, 0.7) ? VKNN_FUSED_NONE : random_act(g);
  if (global) {
    fh = H, fw = W;
    if (chance(&g->r, 0.3)) { /* a window past the image, its leading padding inside it */
      pt = below(&g->r, 2), pl = below(&g->r, 2);
      fh = H + pt + below(&g->r, 2), fw = W + pl + below(&g->r, 2);
      if (pt >= fh) pt = 0;
      if (pl >= fw) pl = 0;
      pb = fh > H + pt ? fh - H - pt : 0, pr = fw > W + pl ? fw - W - pl : 0;
      if (pb >= fh) pb = 0;
      if (pr >= fw) pr = 0;
    } else if (chance(&g->r, 0.5)) {
      scheme = 2;
    }
    if (chance(&g->r, 0.3)) sh = sw = 1 + below(&g->r, 3);
  } else {
    fh = 1 + below(&g->r, 3), fw = chance(&g->r, 0.8) ? fh : 1 + below(&g->r, 3);
    if (same) {
      scheme = 1;
    } else {
      sh = 1 + below(&g->r, 2), sw = chance(&g->r, 0.8) ? sh : 1 + below(&g->r, 3);
      scheme = below(&g->r, 3);
      if (scheme == 2 && (H < fh || W < fw)) scheme = 1;
      if (scheme == 0) {
        pt = below(&g->r, fh), pb = below(&g->r, fh), pl = below(&g->r, fw), pr = below(&g->r, fw);
        if (H + pt + pb < fh || W + pl + pr < fw) scheme = 1;
      }
    }
  }
  if (scheme) {
    implicit_pad(H, fh, sh, 1, scheme, &pt, &pb);
    implicit_pad(W, fw, sw, 1, scheme, &pl, &pr);
  }
  uint32_t OH = explicit_out(H, fh, sh, 1, pt, pb), OW = explicit_out(W, fw, sw, 1, pl, pr);
  if (OH == 0 || OW == 0) return -1;
  uint32_t od[4] = {in->dims[0], OH, OW, C};
  uint32_t y = new_tensor(g, 4, od);
  in = &g->t[x];
  tensor *o = &g->t[y];
  for (uint32_t n = 0; n < od[0]; ++n)
    for (uint32_t oy = 0; oy < OH; ++oy)
      for (uint32_t ox = 0; ox < OW; ++ox)
        for (uint32_t c = 0; c < C; ++c) {
          double acc = avg ? 0 : -INFINITY, mag = 0;
          uint32_t count = 0;
          for (uint32_t ky = 0; ky < fh; ++ky) {
            int64_t iy = (int64_t)oy * sh - pt + ky;
            if (iy < 0 || iy >= H) continue;
            for (uint32_t kx = 0; kx < fw; ++kx) {
              int64_t ix = (int64_t)ox * sw - pl + kx;
              if (ix < 0 || ix >= W) continue;
              size_t i = (((size_t)n * H + (size_t)iy) * W + (size_t)ix) * C + c;
              if (avg) acc += in->val[i], mag += in->mag[i];
              else acc = fmax(acc, in->val[i]), mag = fmax(mag, in->mag[i]);
              count++;
            }
          }
          assert_true(count > 0);
          if (avg) acc /= count, mag /= count;
          size_t i = (((size_t)n * OH + oy) * OW + ox) * C + c;
          o->val[i] = clamp_act(acc, act);
          o->mag[i] = mag;
        }
  o->rt = in->rt + (avg ? layer_rt(fh * fw) : 0);
  o->rt16 = in->rt16 + (avg ? layer_rt16(fh * fw) : 1e-3);
  uint32_t inputs[11], k = 0;
  inputs[k++] = in->operand;
  if (scheme) {
    inputs[k++] = scalar(g, scheme);
    inputs[k++] = scalar(g, (int32_t)sw), inputs[k++] = scalar(g, (int32_t)sh);
  } else {
    inputs[k++] = scalar(g, (int32_t)pl), inputs[k++] = scalar(g, (int32_t)pr);
    inputs[k++] = scalar(g, (int32_t)pt), inputs[k++] = scalar(g, (int32_t)pb);
    inputs[k++] = scalar(g, (int32_t)sw), inputs[k++] = scalar(g, (int32_t)sh);
  }
  inputs[k++] = scalar(g, (int32_t)fw), inputs[k++] = scalar(g, (int32_t)fh);
  inputs[k++] = scalar(g, act);
  if (chance(&g->r, 0.2)) inputs[k++] = layout_false(g);
  operation(g, avg ? OP(AVERAGE_POOL_2D) : OP(MAX_POOL_2D), inputs, k, y);
  g->t[x].readers++;
  static const char *schemes[] = {"explicit", "SAME", "VALID"};
  char s1[64], s2[64];
  say(g, "  t%u = %s(t%u) %s -> %s  f%ux%u s%u,%u %s pads(l%u r%u t%u b%u) act %s%s\n", y,
      avg ? "AVERAGE_POOL_2D" : "MAX_POOL_2D", x, shape_str(in, s1), shape_str(o, s2), fh, fw, sh, sw,
      schemes[scheme], pl, pr, pt, pb, act_name(act), global ? " (global)" : "");
  return (int)y;
}

/* CONCATENATION of tensors along axis. */
static int concat_step(graph *g, const uint32_t *parts, uint32_t count, uint32_t axis) {
  if (!room(g, 2, 1)) return -1;
  const tensor *first = &g->t[parts[0]];
  uint32_t dims[4];
  memcpy(dims, first->dims, sizeof(dims));
  dims[axis] = 0;
  for (uint32_t i = 0; i < count; ++i) dims[axis] += g->t[parts[i]].dims[axis];
  uint32_t y = new_tensor(g, first->rank, dims);
  tensor *o = &g->t[y];
  size_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= dims[d];
  for (uint32_t d = axis + 1; d < o->rank; ++d) inner *= dims[d];
  size_t at = 0;
  o->rt = 0, o->rt16 = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const tensor *p = &g->t[parts[i]];
    size_t row = p->dims[axis] * inner;
    for (size_t q = 0; q < outer; ++q)
      for (size_t k = 0; k < row; ++k) {
        o->val[q * dims[axis] * inner + at + k] = p->val[q * row + k];
        o->mag[q * dims[axis] * inner + at + k] = p->mag[q * row + k];
      }
    at += row;
    o->rt = fmax(o->rt, p->rt), o->rt16 = fmax(o->rt16, p->rt16);
  }
  uint32_t inputs[5];
  for (uint32_t i = 0; i < count; ++i) inputs[i] = g->t[parts[i]].operand, g->t[parts[i]].readers++;
  inputs[count] = scalar(g, (int32_t)axis);
  operation(g, OP(CONCATENATION), inputs, count + 1, y);
  char s1[64];
  say(g, "  t%u = CONCATENATION(", y);
  for (uint32_t i = 0; i < count; ++i) say(g, i ? ", t%u" : "t%u", parts[i]);
  say(g, ") axis %u -> %s\n", axis, shape_str(o, s1));
  return (int)y;
}

/* RESHAPE of x to rank/dims (the shape constant may hold one -1). */
static int reshape_step(graph *g, uint32_t x, uint32_t rank, const uint32_t *dims) {
  if (!room(g, 2, 1)) return -1;
  uint32_t y = new_tensor(g, rank, dims);
  tensor *o = &g->t[y];
  const tensor *in = &g->t[x];
  assert_int_equal(elements(o), elements(in));
  memcpy(o->val, in->val, elements(o) * sizeof(double));
  memcpy(o->mag, in->mag, elements(o) * sizeof(double));
  o->rt = in->rt, o->rt16 = in->rt16;
  int32_t shape[4];
  for (uint32_t d = 0; d < rank; ++d) shape[d] = (int32_t)dims[d];
  uint32_t minus = below(&g->r, rank);
  if (chance(&g->r, 0.3) || g->hide_temporaries) shape[g->hide_temporaries ? 0 : minus] = -1;
  const uint32_t sd[1] = {rank};
  uint32_t s = mb_const_tensor(&g->b, VKNN_OPERAND_TENSOR_INT32, sd, 1, shape, rank * sizeof(int32_t));
  uint32_t inputs[2] = {in->operand, s};
  operation(g, OP(RESHAPE), inputs, 2, y);
  g->t[x].readers++;
  char s1[64], s2[64];
  say(g, "  t%u = RESHAPE(t%u) %s -> %s\n", y, x, shape_str(in, s1), shape_str(o, s2));
  return (int)y;
}

/* FULLY_CONNECTED of x (rank 2-4, flattened after the batch). */
static int fc_step(graph *g, uint32_t x) {
  const tensor *in = &g->t[x];
  uint32_t batch = in->dims[0];
  uint32_t size = (uint32_t)(elements(in) / batch);
  static const uint32_t unit_choices[] = {1, 3, 4, 8, 10, 16};
  uint32_t units = pick(&g->r, unit_choices, 6);
  while (units > 1 && ((size_t)units * size + units) * 4 > values_left(g)) units /= 2;
  if (((size_t)units * size + units) * 4 > values_left(g) || !room(g, 4, 1)) return -1;
  const uint32_t wd[2] = {units, size}, bd[1] = {units}, od[2] = {batch, units};
  float *w, *bias;
  uint32_t wc = random_const(g, wd, 2, 1.0 / sqrt((double)size), &w);
  uint32_t bc = random_const(g, bd, 1, 0.5, &bias);
  int32_t act = random_act(g);
  uint32_t y = new_tensor(g, 2, od);
  tensor *o = &g->t[y];
  in = &g->t[x];
  for (uint32_t b = 0; b < batch; ++b)
    for (uint32_t u = 0; u < units; ++u) {
      double sum = bias[u], mag = fabs(bias[u]);
      for (uint32_t i = 0; i < size; ++i) {
        sum += (double)w[(size_t)u * size + i] * in->val[(size_t)b * size + i];
        mag += fabs(w[(size_t)u * size + i]) * in->mag[(size_t)b * size + i];
      }
      o->val[b * units + u] = clamp_act(sum, act);
      o->mag[b * units + u] = mag;
    }
  o->rt = in->rt + layer_rt(size), o->rt16 = in->rt16 + layer_rt16(size);
  uint32_t inputs[4] = {in->operand, wc, bc, scalar(g, act)};
  operation(g, OP(FULLY_CONNECTED), inputs, 4, y);
  g->t[x].readers++;
  free(w);
  free(bias);
  char s1[64], s2[64];
  say(g, "  t%u = FULLY_CONNECTED(t%u) %s -> %s act %s\n", y, x, shape_str(in, s1), shape_str(o, s2),
      act_name(act));
  return (int)y;
}

/* SOFTMAX of x along axis (given as an input or not), beta. */
static int softmax_step(graph *g, uint32_t x) {
  if (!room(g, 3, 1)) return -1;
  const tensor *in = &g->t[x];
  int32_t axis = -1;
  bool axis_input = chance(&g->r, 0.3);
  if (axis_input && chance(&g->r, 0.5)) axis = (int32_t)below(&g->r, in->rank);
  uint32_t ax = axis < 0 ? in->rank - 1 : (uint32_t)axis;
  float beta = (float)(0.25 + uniform(&g->r) * 1.75);
  uint32_t y = new_tensor(g, in->rank, in->dims);
  in = &g->t[x];
  tensor *o = &g->t[y];
  size_t outer = 1, inner = 1, len = in->dims[ax];
  for (uint32_t d = 0; d < ax; ++d) outer *= in->dims[d];
  for (uint32_t d = ax + 1; d < in->rank; ++d) inner *= in->dims[d];
  for (size_t q = 0; q < outer; ++q)
    for (size_t k = 0; k < inner; ++k) {
      double mx = -INFINITY, mm = 0, sum = 0;
      for (size_t i = 0; i < len; ++i) {
        size_t at = (q * len + i) * inner + k;
        mx = fmax(mx, in->val[at]), mm = fmax(mm, in->mag[at]);
      }
      for (size_t i = 0; i < len; ++i) sum += exp(beta * (in->val[(q * len + i) * inner + k] - mx));
      for (size_t i = 0; i < len; ++i) {
        size_t at = (q * len + i) * inner + k;
        double s = exp(beta * (in->val[at] - mx)) / sum;
        o->val[at] = s;
        o->mag[at] = s * (2.0 * beta * mm + 1.0) + 1e-7;
      }
    }
  o->rt = in->rt + 2e-5, o->rt16 = in->rt16 + 4e-3;
  uint32_t inputs[3] = {in->operand, mb_const_tensor(&g->b, VKNN_OPERAND_FLOAT32, NULL, 0, &beta, 4), 0};
  uint32_t n = 2;
  if (axis_input) inputs[n++] = scalar(g, axis);
  operation(g, OP(SOFTMAX), inputs, n, y);
  g->t[x].readers++;
  char s1[64];
  say(g, "  t%u = SOFTMAX(t%u) %s beta %g axis %d%s\n", y, x, shape_str(o, s1), beta, axis,
      axis_input ? " (given)" : "");
  return (int)y;
}

/* ---- steps: the random model ---------------------------------------------------- */

static int random_conv_kind(graph *g) {
  uint32_t k = below(&g->r, 10);
  return k < 5 ? CONV : k < 8 ? DEPTHWISE : GROUPED;
}

/* A branch of x keeping its height and width (for a CONCATENATION). */
static int branch(graph *g, uint32_t x, uint32_t *kind_out) {
  uint32_t k = below(&g->r, 8);
  *kind_out = k;
  if (k == 0) return (int)x; /* x itself */
  if (k == 1) return pool_step(g, x, false, true);
  int y = conv_step(g, x, k <= 4 ? CONV : k <= 6 ? DEPTHWISE : GROUPED, true, 0, chance(&g->r, 0.15));
  if (y >= 0 && chance(&g->r, 0.2)) y = relu_step(g, (uint32_t)y);
  return y;
}

/* One step of the model from the current tensor; the new current one, or -1. */
static int step(graph *g, uint32_t cur) {
  tensor *c = &g->t[cur];
  if (c->rank == 2) { /* after FULLY_CONNECTED or a flattening RESHAPE */
    uint32_t k = below(&g->r, 5);
    if (k == 4) { /* CONCATENATION of FULLY_CONNECTED branches (in place), or of the tensor itself */
      if (!room(g, 14, 4)) return -1;
      uint32_t parts[3], count = 2 + below(&g->r, 2);
      for (uint32_t i = 0; i < count; ++i) {
        int p = chance(&g->r, 0.2) ? (int)cur : fc_step(g, cur);
        if (p < 0) return -1;
        parts[i] = (uint32_t)p;
      }
      return concat_step(g, parts, count, 1);
    }
    if (k == 0) return fc_step(g, cur);
    if (k == 1) return softmax_step(g, cur);
    if (k == 2) return relu_step(g, cur);
    const uint32_t d[1] = {c->dims[1]};
    int b = const_tensor(g, 1, d);
    return b < 0 ? -1 : add_step(g, cur, (uint32_t)b, random_act(g));
  }
  uint32_t k = below(&g->r, 100);
  if (chance(&g->r, 0.15)) { /* MobileNet's block: expand, depthwise, project (packed chains) */
    static const uint32_t wide_c[] = {4, 8, 12, 16, 24, 32};
    uint32_t C = c->dims[3], E = pick(&g->r, wide_c, 6);
    g->force_k = chance(&g->r, 0.8) ? 1 : 0;
    int e = conv_step(g, cur, CONV, true, E, false);
    g->force_k = 0;
    if (e < 0) return -1;
    if (chance(&g->r, 0.3)) e = relu_step(g, (uint32_t)e);
    if (e < 0) return -1;
    bool residual = chance(&g->r, 0.5);
    g->force_k = chance(&g->r, 0.8) ? 3 : 0;
    int d = conv_step(g, (uint32_t)e, DEPTHWISE, residual || chance(&g->r, 0.5), E, chance(&g->r, 0.2));
    if (d < 0) return -1;
    uint32_t P = residual && g->t[d].dims[1] == c->dims[1] && g->t[d].dims[2] == c->dims[2] ? C : pick(&g->r, wide_c, 6);
    g->force_k = chance(&g->r, 0.8) ? 1 : 0;
    int q = conv_step(g, (uint32_t)d, CONV, true, P, false);
    g->force_k = 0;
    if (q < 0) return -1;
    if (P == C && g->t[q].dims[1] == c->dims[1] && g->t[q].dims[2] == c->dims[2] && residual) {
      bool swap = chance(&g->r, 0.5);
      return add_step(g, swap ? cur : (uint32_t)q, swap ? (uint32_t)q : cur, random_act(g));
    }
    return q;
  }
  if (k < 28) { /* a convolution, sometimes after a PAD, sometimes a RELU after it */
    int y = conv_step(g, cur, random_conv_kind(g), false, 0, chance(&g->r, 0.2));
    if (y >= 0 && chance(&g->r, 0.2)) y = relu_step(g, (uint32_t)y);
    return y;
  }
  if (k < 42) { /* residual: ADD of a convolution's result and a tensor of its shape */
    uint32_t r = cur;
    /* another tensor of the same shape, written earlier */
    for (uint32_t i = 0; i < g->count; ++i)
      if (i != cur && g->t[i].rank == 4 && !memcmp(g->t[i].dims, c->dims, sizeof(c->dims)) && chance(&g->r, 0.3))
        r = i;
    bool late = chance(&g->r, 0.2); /* the residual written after the convolution */
    int kind = chance(&g->r, 0.8) ? CONV : chance(&g->r, 0.5) ? DEPTHWISE : GROUPED;
    int y = conv_step(g, cur, kind, true, g->t[r].dims[3], chance(&g->r, 0.15));
    if (y < 0) return -1;
    if (chance(&g->r, 0.15)) y = relu_step(g, (uint32_t)y);
    if (y < 0) return -1;
    if (late) {
      uint32_t how = below(&g->r, 3);
      int r2 = how == 0   ? relu_step(g, r)
               : how == 1 ? conv_step(g, r, DEPTHWISE, true, g->t[r].dims[3], false)
                          : conv_step(g, r, CONV, true, g->t[r].dims[3], chance(&g->r, 0.2));
      if (r2 >= 0) r = (uint32_t)r2;
    }
    bool swap = chance(&g->r, 0.5);
    int s = add_step(g, swap ? r : (uint32_t)y, swap ? (uint32_t)y : r, random_act(g));
    if (s >= 0 && chance(&g->r, 0.15)) s = relu_step(g, (uint32_t)s);
    return s;
  }
  if (k < 50) { /* broadcast ADD: a constant, or a pooled tensor of the same channels */
    uint32_t C = c->dims[3];
    uint32_t shape_kind = below(&g->r, 5);
    if (shape_kind == 4) { /* squeeze-and-excite like: global pool of cur, added back */
      int p = pool_step(g, cur, true, false);
      if (p < 0 || g->t[p].dims[1] != 1 || g->t[p].dims[2] != 1) return p;
      bool swap = chance(&g->r, 0.5);
      return add_step(g, swap ? (uint32_t)p : cur, swap ? cur : (uint32_t)p, random_act(g));
    }
    const uint32_t shapes[4][4] = {{C}, {1, 1, 1, C}, {1, c->dims[1], c->dims[2], 1}, {c->dims[2], 1}};
    const uint32_t ranks[4] = {1, 4, 4, 2};
    int b = const_tensor(g, ranks[shape_kind], shapes[shape_kind]);
    if (b < 0) return -1;
    bool swap = chance(&g->r, 0.3);
    return add_step(g, swap ? (uint32_t)b : cur, swap ? cur : (uint32_t)b, random_act(g));
  }
  if (k < 64) { /* CONCATENATION of 2-3 branches */
    if (!room(g, 16, 6)) return -1;
    uint32_t parts[3], count = 2 + below(&g->r, 2), axis = 3;
    uint32_t axis_pick = below(&g->r, 10);
    if (axis_pick == 0) axis = 1;
    if (axis_pick == 1) axis = 2;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t kind;
      int p;
      if (axis != 3) { /* branches of one channel count */
        p = conv_step(g, cur, CONV, true, i == 0 ? 0 : g->t[parts[0]].dims[3], false);
        kind = 2;
      } else {
        p = branch(g, cur, &kind);
      }
      if (p < 0) return -1;
      parts[i] = (uint32_t)p;
      if (kind >= 2 && chance(&g->r, 0.1)) g->t[p].output = true; /* keeps its copy */
    }
    return concat_step(g, parts, count, axis);
  }
  if (k < 76) return pool_step(g, cur, chance(&g->r, 0.35), false);
  if (k < 82) { /* RESHAPE */
    uint32_t N = c->dims[0], H = c->dims[1], W = c->dims[2], C = c->dims[3];
    uint32_t shapes[5][4] = {{N, H * W, 1, C}, {N, 1, H * W, C}, {N, W, H, C}, {N * H, W, 1, C}, {N, H * W * C}};
    uint32_t s = below(&g->r, 5);
    if (g->hide_temporaries && s == 3) s = 0; /* the batch changes between executions */
    return reshape_step(g, cur, s == 4 ? 2 : 4, shapes[s]);
  }
  if (k < 88) return fc_step(g, cur);
  if (k < 92) return softmax_step(g, cur);
  return relu_step(g, cur);
}


/* The model of seed: g->b built, every tensor's reference computed.
 * variant 1: the same model (structure, weights) for other input values,
 * and, where the model leaves the batch to the execution, another batch
 * (the second execution of a prepared model). */
static void build_graph(graph *g, uint64_t seed, uint32_t max_steps, float **input_data, int variant) {
  memset(g, 0, sizeof(*g));
  g->r.s = seed * 0x2545f4914f6cdd1dull + 12345;
  rng data = {seed * 0x9e3779b97f4a7c15ull + 777 + (uint64_t)variant * 1000003};
  g->bool_false = UINT32_MAX;
  mb_init(&g->b);
  /* decided first, so that every later draw is the same in both variants */
  g->unknown_input = chance(&g->r, 0.1);
  g->hide_temporaries = g->unknown_input && chance(&g->r, 0.6);
  static const uint32_t chans[] = {1, 3, 4, 8, 12, 16, 24, 32};
  uint32_t dims[4] = {1 + below(&g->r, 2), 1 + below(&g->r, 20), 1 + below(&g->r, 20), pick(&g->r, chans, 8)};
  if (chance(&g->r, 0.5)) dims[1] = 1 + below(&g->r, 10), dims[2] = 1 + below(&g->r, 10); /* small ones often */
  if (variant == 1 && g->hide_temporaries) dims[0] = 3 - dims[0];
  assert_true(g->count == 0);
  uint32_t x = g->count++;
  tensor *t = &g->t[x];
  t->rank = 4;
  memcpy(t->dims, dims, sizeof(dims));
  t->input = true;
  t->rt16 = 1e-3; /* rounded to float16 where a relaxed model keeps float16 */
  size_t n = elements(t);
  t->val = calloc(n, sizeof(double));
  t->mag = calloc(n, sizeof(double));
  float *values = malloc(n * sizeof(float));
  assert_true(t->val && t->mag && values);
  for (size_t i = 0; i < n; ++i) {
    values[i] = (float)(uniform(&data) * 2.0 - 1.0);
    t->val[i] = values[i], t->mag[i] = fabs(values[i]);
  }
  t->operand = mb_input(&g->b, F32, dims, 4);
  *input_data = values;
  char s1[64];
  say(g, "  t0 = input %s\n", shape_str(t, s1));
  uint32_t steps = 2 + below(&g->r, max_steps > 1 ? max_steps - 1 : 1);
  uint32_t cur = x;
  graph *snapshot = malloc(sizeof(*g));
  assert_non_null(snapshot);
  for (uint32_t s = 0; s < steps; ++s) {
    int y = -1;
    for (int attempt = 0; attempt < 6 && y < 0; ++attempt) {
      /* a step that fails part way is undone (its operands, operations and
       * tensors), keeping the random numbers drawn: try again */
      memcpy(snapshot, g, sizeof(*g));
      y = step(g, cur);
      if (y < 0) {
        rng r = g->r;
        for (uint32_t i = snapshot->count; i < g->count; ++i) free(g->t[i].val), free(g->t[i].mag);
        memcpy(g, snapshot, sizeof(*g));
        g->r = r;
      }
    }
    if (y < 0) break;
    /* a step may return its own input (a branch of itself); go on from what it made */
    if ((uint32_t)y == cur) continue;
    cur = (uint32_t)y;
    g->steps++;
  }
  free(snapshot);
  if (cur == x) { /* nothing took: one convolution */
    int y = conv_step(g, x, CONV, false, 4, false);
    assert_true(y >= 0);
    cur = (uint32_t)y;
  }
  g->t[cur].output = true;
  /* every tensor nothing reads becomes an output too */
  for (uint32_t i = 1; i < g->count; ++i)
    if (g->t[i].readers == 0 && g->b.operands[g->t[i].operand].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE)
      g->t[i].output = true;
  /* now and then an intermediate tensor is an output too */
  for (uint32_t i = 1; i < g->count; ++i)
    if (g->b.operands[g->t[i].operand].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE && chance(&g->r, 0.08))
      g->t[i].output = true;
  uint32_t outputs = 0;
  for (uint32_t i = g->count; i-- > 1;) {
    tensor *o = &g->t[i];
    if (!o->output) continue;
    if (outputs == MODEL_RUNNER_MAX_ARGS && o->readers > 0) { /* too many: keep it a temporary */
      o->output = false;
      continue;
    }
    assert_true(outputs < MODEL_RUNNER_MAX_ARGS);
    outputs++;
  }
  /* outputs in tensor order (the model's order of outputs) */
  for (uint32_t i = 1; i < g->count; ++i) {
    tensor *o = &g->t[i];
    if (!o->output) continue;
    vknn_operand *op = &g->b.operands[o->operand];
    op->lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
    g->b.outputs[g->b.output_count++] = o->operand;
    uint32_t how = below(&g->r, 8);
    if (how == 0) { /* unknown dimensions */
      memset(g->b.dims[o->operand], 0, sizeof(g->b.dims[o->operand]));
      say(g, "  output t%u declared with dimensions 0\n", i);
    } else if (how == 2 && !g->hide_temporaries) { /* unknown rank */
      op->dimension_count = 0;
      say(g, "  output t%u declared with rank 0\n", i);
    } else if (how == 1 || g->hide_temporaries) {
      g->b.dims[o->operand][0] = 0;
      say(g, "  output t%u declared with batch 0\n", i);
    }
  }
  if (g->unknown_input) { /* the input's batch only the execution gives */
    g->b.dims[g->t[0].operand][0] = 0;
    say(g, "  input declared with batch 0\n");
  }
  if (g->hide_temporaries) {
    for (uint32_t i = 1; i < g->count; ++i)
      if (g->b.operands[g->t[i].operand].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE)
        memset(g->b.dims[g->t[i].operand], 0, sizeof(g->b.dims[g->t[i].operand]));
    say(g, "  temporaries declared with dimensions 0\n");
  }
  mb_finish(&g->b);
}

static void free_graph(graph *g) {
  for (uint32_t i = 0; i < g->count; ++i) free(g->t[i].val), free(g->t[i].mag);
}

/* ---- option sets ------------------------------------------------------------------ */

typedef struct option_set {
  const char *name;
  void (*apply)(vknn_device_options *o);
  bool wide;      /* the device says it runs 2^20 invocations at once */
  bool relaxed;   /* the model is relaxed (relaxComputationFloat32toFloat16) */
  bool fp16;      /* results within float16's tolerance */
  int same_bits;  /* index of a set whose results must be the same bits, or -1 */
  bool rotating;  /* by default run on some seeds only */
} option_set;

static void o_plain(vknn_device_options *o) { (void)o; }
static void o_all_off(vknn_device_options *o) {
  o->operand_reads = VKNN_OPERAND_READS_STORAGE;
  o->winograd = VKNN_WINOGRAD_OFF;
  o->subgroup_filter = VKNN_SUBGROUP_FILTER_OFF;
  o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_OFF;
  o->packed_layout = VKNN_PACKED_LAYOUT_OFF;
  o->io_copies = VKNN_IO_COPIES_OFF;
  o->integer_dot = VKNN_INTEGER_DOT_OFF;
}
static void o_storage(vknn_device_options *o) { o->operand_reads = VKNN_OPERAND_READS_STORAGE; }
static void o_texel(vknn_device_options *o) { o->operand_reads = VKNN_OPERAND_READS_TEXEL; }
static void o_winograd(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_ON; }
static void o_f2x3(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_F2X3; }
static void o_f4x3(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_F4X3; }
static void o_subgroup_on(vknn_device_options *o) { o->subgroup_filter = VKNN_SUBGROUP_FILTER_ON; }
static void o_subgroup_off(vknn_device_options *o) { o->subgroup_filter = VKNN_SUBGROUP_FILTER_OFF; }
static void o_shared(vknn_device_options *o) { o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON; }
static void o_gpool(vknn_device_options *o) { o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_ON; }
static void o_packed(vknn_device_options *o) { o->packed_layout = VKNN_PACKED_LAYOUT_ON; }
static void o_io(vknn_device_options *o) { o->io_copies = VKNN_IO_COPIES_ON; }
static void o_combo(vknn_device_options *o) {
  o->packed_layout = VKNN_PACKED_LAYOUT_ON;
  o->winograd = VKNN_WINOGRAD_ON;
  o->subgroup_filter = VKNN_SUBGROUP_FILTER_ON;
  o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON;
  o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_ON;
}
static void o_combo_storage(vknn_device_options *o) {
  o_combo(o);
  o->operand_reads = VKNN_OPERAND_READS_STORAGE;
  o->winograd = VKNN_WINOGRAD_F4X3;
  o->io_copies = VKNN_IO_COPIES_ON;
}
static void o_tuning(vknn_device_options *o) { o->kernel_tuning = VKNN_KERNEL_TUNING_ON; }
static void o_relaxed_off(vknn_device_options *o) { o->relaxed_float16 = VKNN_RELAXED_FLOAT16_OFF; }
static void o_relaxed_on(vknn_device_options *o) {
  o->relaxed_float16 = VKNN_RELAXED_FLOAT16_ON;
  o->float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_OFF;
}
static void o_relaxed_arith(vknn_device_options *o) {
  o->relaxed_float16 = VKNN_RELAXED_FLOAT16_ON;
  o->float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_ON;
}
static void o_relaxed_combo(vknn_device_options *o) {
  o_combo(o);
  o_relaxed_arith(o);
}

enum { SET_PLAIN = 0, SET_WIDE = 16 };
static const option_set sets[] = {
    {"plain", o_plain, false, false, false, -1, false},
    {"all-off", o_all_off, false, false, false, -1, true},
    {"reads-storage", o_storage, false, false, false, SET_PLAIN, true},
    {"reads-texel", o_texel, false, false, false, SET_PLAIN, true},
    {"winograd-on", o_winograd, false, false, false, -1, true},
    {"winograd-f2x3", o_f2x3, false, false, false, -1, true},
    {"winograd-f4x3", o_f4x3, false, false, false, -1, true},
    {"subgroup-on", o_subgroup_on, false, false, false, -1, true},
    {"subgroup-off", o_subgroup_off, false, false, false, -1, true},
    {"shared-tiles", o_shared, false, false, false, -1, true},
    {"global-pool-reduction", o_gpool, false, false, false, -1, true},
    {"packed", o_packed, false, false, false, SET_PLAIN, true},
    {"io-copies", o_io, false, false, false, SET_PLAIN, true},
    {"combo", o_combo, false, false, false, -1, true},
    {"combo-storage", o_combo_storage, false, false, false, -1, true},
    {"tuning", o_tuning, false, false, false, -1, true},
    {"wide", o_plain, true, false, false, -1, true},
    {"wide-packed", o_packed, true, false, false, SET_WIDE, true},
    {"wide-combo", o_combo, true, false, false, -1, true},
    {"relaxed-off", o_relaxed_off, false, true, false, SET_PLAIN, true},
    {"relaxed-f16", o_relaxed_on, false, true, true, -1, true},
    {"relaxed-f16-arith", o_relaxed_arith, false, true, true, -1, true},
    {"relaxed-combo", o_relaxed_combo, false, true, true, -1, true},
};
#define SET_COUNT (sizeof(sets) / sizeof(sets[0]))

typedef struct fixture {
  vknn_device *devices[SET_COUNT];
  test_log logs[SET_COUNT];
  uint64_t validation_seen[SET_COUNT];
  bool enabled[SET_COUNT];
  bool all;
} fixture;

/* test_log_callback, and every line printed with VKNN_DIFF_LOG=1 (the
 * driver's verbose lines where VKNN_LOG names their tags). */
static bool print_log;
static void log_line(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  if (print_log) printf("    [%s] %s\n", tag, message);
  test_log_callback(user_data, level, tag, message);
}

static vknn_device *device_of(fixture *f, uint32_t s) {
  if (f->devices[s] == NULL) {
    print_log = getenv("VKNN_DIFF_LOG") != NULL && atoi(getenv("VKNN_DIFF_LOG")) != 0;
    vknn_device_options o = {.log_callback = log_line, .log_user_data = &f->logs[s],
                             .enable_validation = true, .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
    sets[s].apply(&o);
    assert_int_equal(vknn_device_open(&o, &f->devices[s]), VKNN_STATUS_NONE);
    if (sets[s].wide) f->devices[s]->vk.parallel_invocations = 1u << 20;
  }
  return f->devices[s];
}

static const char *getenv_or(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' ? v : fallback;
}

/* Whether the comma-separated list names the set. */
static bool which_has(const char *which, const char *name) {
  size_t len = strlen(name);
  for (const char *p = which; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0')) return true;
  return false;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  const char *which = getenv_or("VKNN_DIFF_SETS", "");
  f->all = strcmp(which, "all") == 0;
  assert_string_equal(sets[SET_WIDE].name, "wide"); /* the index other sets compare with */
  for (uint32_t s = 0; s < SET_COUNT; ++s)
    f->enabled[s] = which[0] == '\0' || f->all || which_has(which, sets[s].name);
  f->enabled[SET_PLAIN] = true;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  uint64_t messages = 0;
  for (uint32_t s = 0; s < SET_COUNT; ++s) {
    if (f->devices[s] == NULL) continue;
    messages += vknn_device_get_validation_message_count(f->devices[s]);
    vknn_device_close(f->devices[s]);
  }
  free(f);
  return messages == 0 ? 0 : -1;
}

/* ---- running and comparing -------------------------------------------------------- */

typedef struct run_result {
  double ms; /* prepare and execute */
  vknn_status prepare, execute;
  float *out[MODEL_RUNNER_MAX_ARGS];
  vknn_output_shape shapes[MODEL_RUNNER_MAX_ARGS];
  char log[512];
  uint32_t packed, dispatches;
} run_result;

/* Executes the prepared model on graph g's input: outputs into res. */
static void execute_on(fixture *f, uint32_t s, vknn_prepared_model *pm, const graph *g, const float *input,
                       run_result *res) {
  const tensor *in = &g->t[0];
  buffer_arg inputs[1] = {{input, NULL, elements(in) * sizeof(float), g->unknown_input ? in->dims : NULL,
                           g->unknown_input ? 4u : 0u}};
  buffer_arg outputs[MODEL_RUNNER_MAX_ARGS];
  uint32_t k = 0;
  for (uint32_t i = 1; i < g->count; ++i) {
    if (!g->t[i].output) continue;
    res->out[k] = calloc(elements(&g->t[i]), sizeof(float));
    assert_non_null(res->out[k]);
    outputs[k] = (buffer_arg){NULL, res->out[k], elements(&g->t[i]) * sizeof(float), NULL, 0};
    k++;
  }
  res->execute = model_runner_execute(pm, &g->b, inputs, outputs, res->shapes);
  if (res->execute != VKNN_STATUS_NONE) snprintf(res->log, sizeof(res->log), "%s", f->logs[s].last);
}

/* Prepares g's model on set s's device and executes it twice: on g's input
 * (res), then on g2's (res2: other values, maybe another batch). */
static void run_model(fixture *f, uint32_t s, graph *g, const float *input, const graph *g2,
                      const float *input2, run_result *res, run_result *res2) {
  vknn_device *device = device_of(f, s);
  memset(res, 0, sizeof(*res));
  memset(res2, 0, sizeof(*res2));
  f->logs[s].last[0] = '\0';
  g->b.relaxed = sets[s].relaxed;
  vknn_prepared_model *pm = NULL;
  res->prepare = vknn_device_prepare_model(device, mb_finish(&g->b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                           VKNN_PRIORITY_MEDIUM, NULL, &pm);
  g->b.relaxed = false;
  res2->prepare = res->prepare;
  if (res->prepare != VKNN_STATUS_NONE) {
    snprintf(res->log, sizeof(res->log), "%s", f->logs[s].last);
    return;
  }
  vknn_prepared_model_info info;
  if (vknn_prepared_model_get_info(pm, &info) == VKNN_STATUS_NONE)
    res->packed = info.packed_tensors, res->dispatches = info.dispatch_count;
  execute_on(f, s, pm, g, input, res);
  execute_on(f, s, pm, g2, input2, res2);
  vknn_prepared_model_release(pm);
}

static void free_result(run_result *res) {
  for (uint32_t k = 0; k < MODEL_RUNNER_MAX_ARGS; ++k) free(res->out[k]);
}

typedef struct stats {
  uint32_t seeds, runs, failures;
  double worst_ratio[SET_COUNT]; /* largest error / allowed over every run */
  double last_worst;             /* of the last run checked */
} stats;

/* VKNN_DIFF_TOLERANCE scales every allowance (to look at the largest errors). */
static double tolerance_scale = 1.0;

/* Compares one run with the reference; prints and counts what disagrees. */
static bool check_run(const graph *g, uint64_t seed, uint32_t s, const char *execution, const run_result *res,
                      const run_result *plain, stats *st) {
  bool ok = true;
  st->last_worst = 0;
  char head[160];
  snprintf(head, sizeof(head), "seed %llu, set %s, %s", (unsigned long long)seed, sets[s].name, execution);
  if (res->execute != VKNN_STATUS_NONE) {
    printf("MISMATCH %s: execute %s (%s)\n", head, vknn_status_name(res->execute), res->log);
    return false;
  }
  uint32_t k = 0;
  for (uint32_t i = 1; i < g->count; ++i) {
    const tensor *t = &g->t[i];
    if (!t->output) continue;
    const vknn_output_shape *sh = &res->shapes[k];
    bool shape_ok = sh->is_sufficient && sh->rank == t->rank;
    for (uint32_t d = 0; shape_ok && d < t->rank; ++d) shape_ok = sh->dimensions[d] == t->dims[d];
    if (!shape_ok) {
      char s1[64];
      printf("MISMATCH %s: output %u (t%u) shape rank %u [%u,%u,%u,%u] sufficient %d, want %s\n", head, k, i,
             sh->rank, sh->dimensions[0], sh->dimensions[1], sh->dimensions[2], sh->dimensions[3],
             sh->is_sufficient, shape_str(t, s1));
      ok = false;
    }
    size_t n = elements(t);
    uint32_t shown = 0, bad = 0;
    double worst = 0;
    for (size_t e = 0; e < n; ++e) {
      double got = res->out[k][e], want = t->val[e];
      double allowed = ((sets[s].fp16 ? t->rt16 : t->rt) * t->mag[e] + (sets[s].fp16 ? 1e-4 : 1e-9)) * tolerance_scale;
      double err = fabs(got - want);
      double ratio = isfinite(got) ? err / allowed : INFINITY;
      if (ratio > worst) worst = ratio;
      if (ratio > 1.0) {
        bad++;
        if (shown++ < 6)
          printf("MISMATCH %s: output %u (t%u) element %zu: got %.9g want %.9g (|err| %.3g, allowed %.3g, mag %.3g)\n",
                 head, k, i, e, got, want, err, allowed, t->mag[e]);
      }
    }
    if (bad) {
      printf("MISMATCH %s: output %u (t%u): %u of %zu elements off, worst %.3g times the allowance\n", head, k, i,
             bad, n, worst);
      ok = false;
    }
    if (worst > st->worst_ratio[s]) st->worst_ratio[s] = worst;
    if (worst > st->last_worst) st->last_worst = worst;
    if (sets[s].same_bits >= 0 && plain != NULL && plain->execute == VKNN_STATUS_NONE &&
        memcmp(res->out[k], plain->out[k], n * sizeof(float)) != 0) {
      size_t e = 0;
      while (e < n && memcmp(&res->out[k][e], &plain->out[k][e], sizeof(float)) == 0) e++;
      uint32_t differ = 0;
      for (size_t q = 0; q < n; ++q) differ += memcmp(&res->out[k][q], &plain->out[k][q], sizeof(float)) != 0;
      printf("MISMATCH %s: output %u (t%u) not the bits of set %s: %u of %zu elements differ, first %zu: %.9g vs %.9g\n",
             head, k, i, sets[sets[s].same_bits].name, differ, n, e, res->out[k][e], plain->out[k][e]);
      ok = false;
    }
    k++;
  }
  return ok;
}

static void test_random_graphs(void **state) {
  fixture *f = *state;
  uint64_t first = strtoull(getenv_or("VKNN_DIFF_SEED", "1"), NULL, 10);
  uint64_t count = strtoull(getenv_or("VKNN_DIFF_SEEDS", "50"), NULL, 10);
  uint32_t max_steps = (uint32_t)strtoul(getenv_or("VKNN_DIFF_STEPS", "8"), NULL, 10);
  bool verbose = atoi(getenv_or("VKNN_DIFF_VERBOSE", "0")) != 0;
  const char *which = getenv_or("VKNN_DIFF_SETS", "");
  bool rotate = which[0] == '\0';
  tolerance_scale = strtod(getenv_or("VKNN_DIFF_TOLERANCE", "1"), NULL);
  stats *st = calloc(1, sizeof(*st));
  graph *g = malloc(sizeof(*g)), *g2 = malloc(sizeof(*g2));
  assert_true(st != NULL && g != NULL && g2 != NULL);
  for (uint64_t seed = first; seed < first + count; ++seed) {
    float *input = NULL, *input2 = NULL;
    build_graph(g, seed, max_steps, &input, 0);
    build_graph(g2, seed, max_steps, &input2, 1);
    assert_int_equal(g->b.operation_count, g2->b.operation_count);
    if (verbose) {
      printf("seed %llu (%u steps):\n%s", (unsigned long long)seed, g->steps, g->desc);
      fflush(stdout);
    }
    run_result *results = calloc(SET_COUNT, sizeof(run_result));
    run_result *results2 = calloc(SET_COUNT, sizeof(run_result));
    assert_true(results != NULL && results2 != NULL);
    bool ran[SET_COUNT] = {false};
    bool seed_ok = true;
    /* the sets this seed runs: all enabled ones, or (by default) the plain
     * device, the sets whose bits are compared with it, and three others in turn */
    for (uint32_t s = 0; s < SET_COUNT; ++s) {
      if (!f->enabled[s]) continue;
      if (rotate && sets[s].rotating) {
        uint32_t slot = (uint32_t)((seed * 3) % (SET_COUNT - 1)), s1 = s - 1;
        bool chosen = s1 == slot || s1 == (slot + 1) % (SET_COUNT - 1) || s1 == (slot + 2) % (SET_COUNT - 1);
        if (!chosen) continue;
      }
      /* kernel tuning measures every layer: only every fourth seed unless asked */
      if (strcmp(sets[s].name, "tuning") == 0 && seed % 4 != 0 && !which_has(which, "tuning")) continue;
      uint64_t before = vknn_device_get_validation_message_count(device_of(f, s));
      uint64_t t0 = test_boottime_ns();
      run_model(f, s, g, input, g2, input2, &results[s], &results2[s]);
      results[s].ms = (double)(test_boottime_ns() - t0) / 1e6;
      ran[s] = true;
      st->runs++;
      uint64_t after = vknn_device_get_validation_message_count(device_of(f, s));
      if (after != before) {
        printf("MISMATCH seed %llu, set %s: %llu validation-layer messages (%s)\n", (unsigned long long)seed,
               sets[s].name, (unsigned long long)(after - before), f->logs[s].last);
        seed_ok = false;
      }
    }
    /* prepare: the same outcome everywhere */
    for (uint32_t s = 0; s < SET_COUNT; ++s) {
      if (!ran[s]) continue;
      if (results[s].prepare != results[SET_PLAIN].prepare) {
        printf("MISMATCH seed %llu: prepare %s on set %s (%s), %s on set plain (%s)\n", (unsigned long long)seed,
               vknn_status_name(results[s].prepare), sets[s].name, results[s].log,
               vknn_status_name(results[SET_PLAIN].prepare), results[SET_PLAIN].log);
        seed_ok = false;
      } else if (results[s].prepare != VKNN_STATUS_NONE && s == SET_PLAIN) {
        printf("NOTE seed %llu: prepare %s on every device (%s)\n", (unsigned long long)seed,
               vknn_status_name(results[s].prepare), results[s].log);
      }
      if (results[s].prepare != VKNN_STATUS_NONE) continue;
      const run_result *other = sets[s].same_bits >= 0 && ran[sets[s].same_bits] ? &results[sets[s].same_bits] : NULL;
      if (!check_run(g, seed, s, "first execution", &results[s], other, st)) seed_ok = false;
      double worst = st->last_worst;
      const run_result *other2 = other != NULL ? &results2[sets[s].same_bits] : NULL;
      if (!check_run(g2, seed, s, "second execution", &results2[s], other2, st)) seed_ok = false;
      st->last_worst = fmax(worst, st->last_worst);
      if (verbose)
        printf("  set %-22s dispatches %u packed %u worst %.3g (%.0f ms)\n", sets[s].name, results[s].dispatches,
               results[s].packed, st->last_worst, results[s].ms);
    }
    if (!seed_ok) {
      st->failures++;
      printf("MODEL of seed %llu:\n%s", (unsigned long long)seed, g->desc);
    }
    fflush(stdout);
    for (uint32_t s = 0; s < SET_COUNT; ++s) free_result(&results[s]), free_result(&results2[s]);
    free(results);
    free(results2);
    free(input);
    free(input2);
    free_graph(g);
    free_graph(g2);
    st->seeds++;
  }
  printf("seeds %u, runs %u, failing seeds %u\n", st->seeds, st->runs, st->failures);
  for (uint32_t s = 0; s < SET_COUNT; ++s)
    if (st->worst_ratio[s] > 0) printf("  %-22s worst error %.3g of the allowance\n", sets[s].name, st->worst_ratio[s]);
  uint32_t failures = st->failures;
  free(st);
  free(g);
  free(g2);
  if (failures) fail_msg("%u seeds disagree", failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_graphs)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
