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
 * Environment (tests/support/random_graph.h): VKNN_DIFF_SEED (first seed,
 * 1), VKNN_DIFF_SEEDS (how many, 50), VKNN_DIFF_SETS ("all", or names
 * separated by commas; default: the plain device and a rotating few of the
 * others per seed),
 * VKNN_DIFF_VERBOSE=1 (each seed's model and outcome),
 * VKNN_DIFF_STEPS (the most steps a model takes, 8), VKNN_DIFF_TOLERANCE
 * (scales every allowance, 1), VKNN_DIFF_LOG=1 (print the driver's log
 * lines; with VKNN_LOG=compilation, its fusions and packing). */
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
#include "support/random_graph.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define OP(name) VKNN_OPERATION_##name
#define MAX_TENSORS 48
/* Constants take model_builder's values; keep room for the scalars. */
#define VALUE_RESERVE 640u

/* ---- the graph and its reference ----------------------------------------------- */

typedef struct tensor {
  uint32_t rank, dims[4];
  uint32_t operand;
  double *val, *mag; /* reference values; sum of |terms| (error scale) */
  double rt, rt16;   /* error allowed, relative to mag: float32 paths, float16 paths */
  uint32_t readers;
  bool output;    /* also a model output */
} tensor;

typedef struct graph {
  rg_model m;
  tensor t[MAX_TENSORS];
  uint32_t count;
  uint32_t steps;
  bool unknown_input; /* the first input's batch is left to the execution */
  bool hide_temporaries; /* temporaries declared with unknown dimensions */
  uint32_t force_k;      /* conv_step's window (0: random) */
} graph;

static size_t elements(const tensor *t) { return rg_elements(t->rank, t->dims); }
static const char *shape_str(const tensor *t, char *buf) { return rg_shape_str(t->rank, t->dims, buf); }

/* A tensor's place, its reference arrays allocated. */
static uint32_t add_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  assert_true(g->count < MAX_TENSORS);
  uint32_t i = g->count++;
  tensor *t = &g->t[i];
  memset(t, 0, sizeof(*t));
  t->rank = rank;
  memcpy(t->dims, dims, rank * sizeof(uint32_t));
  t->val = calloc(elements(t), sizeof(double));
  t->mag = calloc(elements(t), sizeof(double));
  assert_true(t->val != NULL && t->mag != NULL);
  return i;
}

/* A new tensor (a temporary of the model; outputs are chosen at the end). */
static uint32_t new_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  uint32_t i = add_tensor(g, rank, dims);
  g->t[i].operand = mb_temporary(&g->m.b, F32, dims, rank);
  return i;
}

/* Operands, operations and tensors still free for a step that needs so many. */
static bool room(const graph *g, uint32_t operands, uint32_t operations) {
  return rg_room(&g->m, operands, operations) && g->count + operations <= MAX_TENSORS;
}

/* A constant float32 tensor of uniform values in [-scale, scale]; into *host. */
static uint32_t random_const(graph *g, const uint32_t *dims, uint32_t rank, double scale, float **host) {
  size_t n = rg_elements(rank, dims);
  float *v = malloc(n * sizeof(float));
  assert_non_null(v);
  for (size_t i = 0; i < n; ++i) v[i] = (float)((rg_uniform(&g->m.r) * 2.0 - 1.0) * scale);
  uint32_t c = mb_const_tensor(&g->m.b, F32, dims, rank, v, n * sizeof(float));
  *host = v;
  return c;
}

static void operation(graph *g, int32_t type, const uint32_t *inputs, uint32_t count, uint32_t out) {
  mb_operation(&g->m.b, type, inputs, count, &g->t[out].operand, 1);
}

static double clamp_act(double v, int32_t act) {
  if (act == VKNN_FUSED_RELU) return v < 0 ? 0 : v;
  if (act == VKNN_FUSED_RELU1) return v < -1 ? -1 : v > 1 ? 1 : v;
  if (act == VKNN_FUSED_RELU6) return v < 0 ? 0 : v > 6 ? 6 : v;
  return v;
}

/* Error allowed per layer, relative to the terms' magnitude. */
static double layer_rt(uint32_t fan_in) { return 1e-5 * sqrt((double)fan_in) + 2e-6; }
static double layer_rt16(uint32_t fan_in) { return 4e-3 + 1.5e-3 * sqrt((double)fan_in); }

static int32_t random_act(graph *g) {
  static const int32_t acts[] = {VKNN_FUSED_NONE, VKNN_FUSED_NONE, VKNN_FUSED_RELU, VKNN_FUSED_RELU6,
                                 VKNN_FUSED_RELU1};
  return acts[rg_below(&g->m.r, rg_chance(&g->m.r, 0.1) ? 5 : 4)];
}

/* ---- convolutions ---------------------------------------------------------------- */

/* The reference of a convolution of tensor x into tensor y. */
static void conv_reference(graph *g, const rg_conv *p, uint32_t x, uint32_t y, const float *w,
                           const float *bias) {
  const tensor *in = &g->t[x];
  tensor *out = &g->t[y];
  uint32_t fan = rg_conv_fan(p, in->dims[3]);
  rg_term *terms = malloc(fan * sizeof(*terms));
  assert_non_null(terms);
  for (size_t o = 0; o < elements(out); ++o) {
    uint32_t oc = (uint32_t)(o % p->out_c), count = rg_conv_terms(p, in->dims, o, terms);
    double sum = bias[oc], mag = fabs(bias[oc]);
    for (uint32_t k = 0; k < count; ++k) {
      double wv = w[terms[k].w];
      sum += wv * in->val[terms[k].in];
      mag += fabs(wv) * in->mag[terms[k].in];
    }
    out->val[o] = clamp_act(sum, p->act);
    out->mag[o] = mag;
  }
  free(terms);
  out->rt = in->rt + layer_rt(fan);
  out->rt16 = in->rt16 + layer_rt16(fan);
}

/* Shrinks the window, then the channels (unless fixed), until the weights
 * fit the builder's values; false when they cannot. */
static bool fit_weights(const graph *g, rg_conv *p, uint32_t cg, bool fixed_channels) {
  for (;;) {
    size_t bytes = ((size_t)p->out_c * p->kh * p->kw * cg + p->out_c) * 4;
    if (bytes <= rg_values_left(&g->m)) return true;
    if (p->kh > 1 || p->kw > 1) {
      p->kh = p->kh > 1 ? p->kh - 2 : 1;
      p->kw = p->kw > 1 ? p->kw - 2 : 1;
      if (p->kh == 1 && p->kw == 1) p->dh = p->dw = 1;
      continue;
    }
    if (fixed_channels || p->kind == RG_DEPTHWISE || p->out_c <= (p->kind == RG_GROUPED ? p->groups : 1))
      return false;
    p->out_c = p->kind == RG_GROUPED ? p->groups : p->out_c / 2;
  }
}

/* The PAD taking p's share of the padding of tensor x: the padded tensor. */
static uint32_t pad_step(graph *g, uint32_t x, const rg_conv *p) {
  uint32_t pd[4] = {g->t[x].dims[0], p->h2, p->w2, g->t[x].dims[3]};
  uint32_t padded = new_tensor(g, 4, pd);
  tensor *pt = &g->t[padded];
  const tensor *xi = &g->t[x];
  for (size_t i = 0; i < elements(xi); ++i) {
    size_t to = rg_pad_index(p, xi->dims, i);
    pt->val[to] = xi->val[i];
    pt->mag[to] = xi->mag[i];
  }
  pt->rt = xi->rt, pt->rt16 = xi->rt16;
  g->t[x].readers++;
  char s1[RG_SHAPE_TEXT], s2[RG_SHAPE_TEXT];
  pt->output = rg_pad_operation(&g->m, p, xi->operand, pt->operand, x, padded, shape_str(xi, s1),
                                shape_str(pt, s2));
  return padded;
}

/* The convolution p of tensor src with random weights: its output tensor. */
static uint32_t conv_layer(graph *g, const rg_conv *p, uint32_t src) {
  uint32_t cg = rg_conv_group_channels(p, g->t[src].dims[3]);
  uint32_t od[4] = {g->t[src].dims[0], p->oh, p->ow, p->out_c};
  uint32_t y = new_tensor(g, 4, od);
  bool depthwise = p->kind == RG_DEPTHWISE;
  const uint32_t fd[4] = {depthwise ? 1 : p->out_c, p->kh, p->kw, depthwise ? p->out_c : cg};
  const uint32_t bd[1] = {p->out_c};
  float *w, *bias;
  uint32_t filter = random_const(g, fd, 4, 1.0 / sqrt((double)(p->kh * p->kw * cg)), &w);
  uint32_t b = random_const(g, bd, 1, 0.5, &bias);
  rg_conv_operation(&g->m, p, g->t[src].operand, filter, b, g->t[y].operand);
  g->t[src].readers++;
  conv_reference(g, p, src, y, w, bias);
  char s1[RG_SHAPE_TEXT], s2[RG_SHAPE_TEXT];
  rg_say_conv(&g->m, p, src, y, shape_str(&g->t[src], s1), shape_str(&g->t[y], s2));
  rg_say(&g->m, "\n");
  free(w);
  free(bias);
  return y;
}

/* Builds a convolution of kind on tensor x. same: stride 1, output of x's
 * height and width. out_c: the output channels wanted (0: any). pad_first:
 * a PAD operation first takes some of the padding (pad fusion). Returns the
 * output tensor, or -1 when nothing fits. */
static int conv_step(void *state, uint32_t x, int kind, bool same, uint32_t out_c, bool pad_first) {
  graph *g = state;
  const tensor *in = &g->t[x];
  if (in->rank != 4) return -1;
  static const uint32_t ks[] = {1, 3, 3, 3, 5};
  static const uint32_t chans[] = {1, 3, 4, 8, 8, 12, 16, 16, 24, 32};
  rg_conv p = {.kind = kind, .pad_first = pad_first};
  rg_conv_window(&g->m.r, &p, ks, 5, g->force_k, same);
  p.act = random_act(g);
  if (!rg_conv_channels(&g->m.r, &p, in->dims[3], out_c, chans, 10, 2) ||
      !fit_weights(g, &p, rg_conv_group_channels(&p, in->dims[3]), out_c != 0) ||
      !rg_conv_padding(&g->m.r, &p, in->dims[1], in->dims[2], same) || !room(g, 6, 2))
    return -1;
  rg_conv_form(&g->m.r, &p);
  uint32_t src = p.pad_first ? pad_step(g, x, &p) : x;
  return (int)conv_layer(g, &p, src);
}

/* ---- other operations ------------------------------------------------------------ */

/* RELU, RELU1 or RELU6 of x (after a convolution: activation fusion). */
static int relu_step(void *state, uint32_t x) {
  graph *g = state;
  if (!room(g, 1, 1)) return -1;
  static const int32_t types[] = {OP(RELU), OP(RELU6), OP(RELU1)};
  static const int32_t acts[] = {VKNN_FUSED_RELU, VKNN_FUSED_RELU6, VKNN_FUSED_RELU1};
  static const char *names[] = {"RELU", "RELU6", "RELU1"};
  uint32_t k = rg_below(&g->m.r, rg_chance(&g->m.r, 0.2) ? 3 : 2);
  uint32_t y = new_tensor(g, g->t[x].rank, g->t[x].dims);
  tensor *o = &g->t[y];
  const tensor *in = &g->t[x];
  for (size_t i = 0; i < elements(o); ++i) o->val[i] = clamp_act(in->val[i], acts[k]), o->mag[i] = in->mag[i];
  o->rt = in->rt, o->rt16 = in->rt16;
  uint32_t inputs[1] = {in->operand};
  operation(g, types[k], inputs, 1, y);
  g->t[x].readers++;
  char s1[64];
  rg_say(&g->m, "  t%u = %s(t%u) %s\n", y, names[k], x, shape_str(o, s1));
  return (int)y;
}

/* ADD(a, b) with activation; a and b broadcast. */
static int add_step(graph *g, uint32_t a, uint32_t b, int32_t act) {
  uint32_t rank, dims[4];
  const tensor *ta = &g->t[a], *tb = &g->t[b];
  if (!rg_broadcast_dims(ta->rank, ta->dims, tb->rank, tb->dims, &rank, dims) || !room(g, 2, 1)) return -1;
  uint32_t y = new_tensor(g, rank, dims);
  tensor *o = &g->t[y];
  for (size_t i = 0; i < elements(o); ++i) {
    size_t ia = rg_broadcast_index(ta->rank, ta->dims, rank, dims, i);
    size_t ib = rg_broadcast_index(tb->rank, tb->dims, rank, dims, i);
    o->val[i] = clamp_act(ta->val[ia] + tb->val[ib], act);
    o->mag[i] = ta->mag[ia] + tb->mag[ib];
  }
  o->rt = fmax(ta->rt, tb->rt) + 3e-7;
  o->rt16 = fmax(ta->rt16, tb->rt16) + 1e-3;
  uint32_t inputs[3] = {ta->operand, tb->operand, rg_scalar(&g->m, act)};
  operation(g, OP(ADD), inputs, 3, y);
  g->t[a].readers++;
  g->t[b].readers++;
  char s1[64], s2[64], s3[64];
  rg_say(&g->m, "  t%u = ADD(t%u %s, t%u %s) -> %s act %s\n", y, a, shape_str(ta, s1), b, shape_str(tb, s2),
      shape_str(o, s3), rg_act_name(act));
  return (int)y;
}

/* A constant tensor of random values (an ADD's broadcast operand). */
static int const_tensor(graph *g, uint32_t rank, const uint32_t *dims) {
  size_t n = rg_elements(rank, dims);
  if (n * 4 > rg_values_left(&g->m) || !room(g, 1, 0)) return -1;
  uint32_t i = add_tensor(g, rank, dims);
  tensor *t = &g->t[i];
  float *v;
  t->operand = random_const(g, dims, rank, 1.0, &v);
  t->rt16 = 1e-3; /* rounded to float16 in a relaxed model */
  for (size_t k = 0; k < n; ++k) t->val[k] = v[k], t->mag[k] = fabs(v[k]);
  free(v);
  char s1[64];
  rg_say(&g->m, "  t%u = constant %s\n", i, shape_str(t, s1));
  return (int)i;
}

/* The reference of pool w of tensor x into tensor y. */
static void pool_reference(graph *g, const rg_pool *w, bool avg, int32_t act, uint32_t x, uint32_t y) {
  const tensor *in = &g->t[x];
  tensor *o = &g->t[y];
  rg_term *terms = malloc(w->fh * w->fw * sizeof(*terms));
  assert_non_null(terms);
  for (size_t e = 0; e < elements(o); ++e) {
    uint32_t count = rg_pool_terms(w, in->dims, e, terms);
    double acc = avg ? 0 : -INFINITY, mag = 0;
    for (uint32_t k = 0; k < count; ++k) {
      size_t i = terms[k].in;
      if (avg) acc += in->val[i], mag += in->mag[i];
      else acc = fmax(acc, in->val[i]), mag = fmax(mag, in->mag[i]);
    }
    if (avg) acc /= count, mag /= count;
    o->val[e] = clamp_act(acc, act);
    o->mag[e] = mag;
  }
  free(terms);
  o->rt = in->rt + (avg ? layer_rt(w->fh * w->fw) : 0);
  o->rt16 = in->rt16 + (avg ? layer_rt16(w->fh * w->fw) : 1e-3);
}

/* AVERAGE_POOL_2D or MAX_POOL_2D; global: the window covers the image. */
static int pool_step(void *state, uint32_t x, bool global, bool same) {
  graph *g = state;
  const tensor *in = &g->t[x];
  if (in->rank != 4 || !room(g, 2, 1)) return -1;
  bool avg = rg_chance(&g->m.r, 0.5);
  int32_t act = rg_chance(&g->m.r, 0.7) ? VKNN_FUSED_NONE : random_act(g);
  rg_pool w;
  if (!rg_pool_window(&g->m.r, &w, in->dims[1], in->dims[2], global, same)) return -1;
  uint32_t od[4] = {in->dims[0], w.oh, w.ow, in->dims[3]};
  uint32_t y = new_tensor(g, 4, od);
  pool_reference(g, &w, avg, act, x, y);
  rg_pool_operation(&g->m, &w, avg, act, g->t[x].operand, g->t[y].operand);
  g->t[x].readers++;
  char s1[RG_SHAPE_TEXT], s2[RG_SHAPE_TEXT];
  rg_say_pool(&g->m, &w, avg, act, global, x, y, shape_str(&g->t[x], s1), shape_str(&g->t[y], s2));
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
  uint32_t offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const tensor *p = &g->t[parts[i]];
    for (size_t e = 0; e < elements(p); ++e) {
      size_t to = rg_concat_index(o->rank, dims, axis, p->dims, offset, e);
      o->val[to] = p->val[e];
      o->mag[to] = p->mag[e];
    }
    offset += p->dims[axis];
    o->rt = fmax(o->rt, p->rt), o->rt16 = fmax(o->rt16, p->rt16);
  }
  uint32_t inputs[5];
  for (uint32_t i = 0; i < count; ++i) inputs[i] = g->t[parts[i]].operand, g->t[parts[i]].readers++;
  inputs[count] = rg_scalar(&g->m, (int32_t)axis);
  operation(g, OP(CONCATENATION), inputs, count + 1, y);
  char s1[64];
  rg_say(&g->m, "  t%u = CONCATENATION(", y);
  for (uint32_t i = 0; i < count; ++i) rg_say(&g->m, i ? ", t%u" : "t%u", parts[i]);
  rg_say(&g->m, ") axis %u -> %s\n", axis, shape_str(o, s1));
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
  uint32_t minus = rg_below(&g->m.r, rank);
  if (rg_chance(&g->m.r, 0.3) || g->hide_temporaries) shape[g->hide_temporaries ? 0 : minus] = -1;
  const uint32_t sd[1] = {rank};
  uint32_t s = mb_const_tensor(&g->m.b, VKNN_OPERAND_TENSOR_INT32, sd, 1, shape, rank * sizeof(int32_t));
  uint32_t inputs[2] = {in->operand, s};
  operation(g, OP(RESHAPE), inputs, 2, y);
  g->t[x].readers++;
  char s1[64], s2[64];
  rg_say(&g->m, "  t%u = RESHAPE(t%u) %s -> %s\n", y, x, shape_str(in, s1), shape_str(o, s2));
  return (int)y;
}

/* FULLY_CONNECTED of x (rank 2-4, flattened after the batch). */
static int fc_step(graph *g, uint32_t x) {
  const tensor *in = &g->t[x];
  uint32_t batch = in->dims[0];
  uint32_t size = (uint32_t)(elements(in) / batch);
  static const uint32_t unit_choices[] = {1, 3, 4, 8, 10, 16};
  uint32_t units = rg_pick(&g->m.r, unit_choices, 6);
  while (units > 1 && ((size_t)units * size + units) * 4 > rg_values_left(&g->m)) units /= 2;
  if (((size_t)units * size + units) * 4 > rg_values_left(&g->m) || !room(g, 4, 1)) return -1;
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
  uint32_t inputs[4] = {in->operand, wc, bc, rg_scalar(&g->m, act)};
  operation(g, OP(FULLY_CONNECTED), inputs, 4, y);
  g->t[x].readers++;
  free(w);
  free(bias);
  char s1[64], s2[64];
  rg_say(&g->m, "  t%u = FULLY_CONNECTED(t%u) %s -> %s act %s\n", y, x, shape_str(in, s1), shape_str(o, s2),
      rg_act_name(act));
  return (int)y;
}

/* SOFTMAX of x along axis (given as an input or not), beta. */
static int softmax_step(graph *g, uint32_t x) {
  if (!room(g, 3, 1)) return -1;
  const tensor *in = &g->t[x];
  int32_t axis = -1;
  bool axis_input = rg_chance(&g->m.r, 0.3);
  if (axis_input && rg_chance(&g->m.r, 0.5)) axis = (int32_t)rg_below(&g->m.r, in->rank);
  uint32_t ax = axis < 0 ? in->rank - 1 : (uint32_t)axis;
  float beta = (float)(0.25 + rg_uniform(&g->m.r) * 1.75);
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
  uint32_t inputs[3] = {in->operand, mb_const_tensor(&g->m.b, VKNN_OPERAND_FLOAT32, NULL, 0, &beta, 4), 0};
  uint32_t n = 2;
  if (axis_input) inputs[n++] = rg_scalar(&g->m, axis);
  operation(g, OP(SOFTMAX), inputs, n, y);
  g->t[x].readers++;
  char s1[64];
  rg_say(&g->m, "  t%u = SOFTMAX(t%u) %s beta %g axis %d%s\n", y, x, shape_str(o, s1), beta, axis,
      axis_input ? " (given)" : "");
  return (int)y;
}

/* ---- steps: the random model ---------------------------------------------------- */

static int step(void *state, uint32_t cur);
static void undo_of(void *state, const void *snapshot);
static const rg_steps steps = {step, undo_of, conv_step, pool_step, relu_step};

/* One step of the model from the current tensor; the new current one, or -1. */
static int step(void *state, uint32_t cur) {
  graph *g = state;
  tensor *c = &g->t[cur];
  if (c->rank == 2) { /* after FULLY_CONNECTED or a flattening RESHAPE */
    uint32_t k = rg_below(&g->m.r, 5);
    if (k == 4) { /* CONCATENATION of FULLY_CONNECTED branches (in place), or of the tensor itself */
      if (!room(g, 14, 4)) return -1;
      uint32_t parts[3], count = 2 + rg_below(&g->m.r, 2);
      for (uint32_t i = 0; i < count; ++i) {
        int p = rg_chance(&g->m.r, 0.2) ? (int)cur : fc_step(g, cur);
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
  uint32_t k = rg_below(&g->m.r, 100);
  if (rg_chance(&g->m.r, 0.15)) { /* MobileNet's block: expand, depthwise, project (packed chains) */
    static const uint32_t wide_c[] = {4, 8, 12, 16, 24, 32};
    uint32_t C = c->dims[3], E = rg_pick(&g->m.r, wide_c, 6);
    g->force_k = rg_chance(&g->m.r, 0.8) ? 1 : 0;
    int e = conv_step(g, cur, RG_CONV, true, E, false);
    g->force_k = 0;
    if (e < 0) return -1;
    if (rg_chance(&g->m.r, 0.3)) e = relu_step(g, (uint32_t)e);
    if (e < 0) return -1;
    bool residual = rg_chance(&g->m.r, 0.5);
    g->force_k = rg_chance(&g->m.r, 0.8) ? 3 : 0;
    int d = conv_step(g, (uint32_t)e, RG_DEPTHWISE, residual || rg_chance(&g->m.r, 0.5), E, rg_chance(&g->m.r, 0.2));
    if (d < 0) return -1;
    bool keeps = residual && g->t[d].dims[1] == c->dims[1] && g->t[d].dims[2] == c->dims[2];
    uint32_t P = keeps ? C : rg_pick(&g->m.r, wide_c, 6);
    g->force_k = rg_chance(&g->m.r, 0.8) ? 1 : 0;
    int q = conv_step(g, (uint32_t)d, RG_CONV, true, P, false);
    g->force_k = 0;
    if (q < 0) return -1;
    if (P == C && g->t[q].dims[1] == c->dims[1] && g->t[q].dims[2] == c->dims[2] && residual) {
      bool swap = rg_chance(&g->m.r, 0.5);
      return add_step(g, swap ? cur : (uint32_t)q, swap ? (uint32_t)q : cur, random_act(g));
    }
    return q;
  }
  if (k < 28) { /* a convolution, sometimes after a PAD, sometimes a RELU after it */
    int y = conv_step(g, cur, rg_conv_kind(&g->m.r), false, 0, rg_chance(&g->m.r, 0.2));
    if (y >= 0 && rg_chance(&g->m.r, 0.2)) y = relu_step(g, (uint32_t)y);
    return y;
  }
  if (k < 42) { /* residual: ADD of a convolution's result and a tensor of its shape */
    uint32_t r = cur;
    /* another tensor of the same shape, written earlier */
    for (uint32_t i = 0; i < g->count; ++i)
      if (i != cur && g->t[i].rank == 4 && !memcmp(g->t[i].dims, c->dims, sizeof(c->dims)) && rg_chance(&g->m.r, 0.3))
        r = i;
    bool late = rg_chance(&g->m.r, 0.2); /* the residual written after the convolution */
    int kind = rg_chance(&g->m.r, 0.8) ? RG_CONV : rg_chance(&g->m.r, 0.5) ? RG_DEPTHWISE : RG_GROUPED;
    int y = conv_step(g, cur, kind, true, g->t[r].dims[3], rg_chance(&g->m.r, 0.15));
    if (y < 0) return -1;
    if (rg_chance(&g->m.r, 0.15)) y = relu_step(g, (uint32_t)y);
    if (y < 0) return -1;
    if (late) {
      uint32_t how = rg_below(&g->m.r, 3);
      int r2 = how == 0   ? relu_step(g, r)
               : how == 1 ? conv_step(g, r, RG_DEPTHWISE, true, g->t[r].dims[3], false)
                          : conv_step(g, r, RG_CONV, true, g->t[r].dims[3], rg_chance(&g->m.r, 0.2));
      if (r2 >= 0) r = (uint32_t)r2;
    }
    bool swap = rg_chance(&g->m.r, 0.5);
    int s = add_step(g, swap ? r : (uint32_t)y, swap ? (uint32_t)y : r, random_act(g));
    if (s >= 0 && rg_chance(&g->m.r, 0.15)) s = relu_step(g, (uint32_t)s);
    return s;
  }
  if (k < 50) { /* broadcast ADD: a constant, or a pooled tensor of the same channels */
    uint32_t C = c->dims[3];
    uint32_t shape_kind = rg_below(&g->m.r, 5);
    if (shape_kind == 4) { /* squeeze-and-excite like: global pool of cur, added back */
      int p = pool_step(g, cur, true, false);
      if (p < 0 || g->t[p].dims[1] != 1 || g->t[p].dims[2] != 1) return p;
      bool swap = rg_chance(&g->m.r, 0.5);
      return add_step(g, swap ? (uint32_t)p : cur, swap ? cur : (uint32_t)p, random_act(g));
    }
    const uint32_t shapes[4][4] = {{C}, {1, 1, 1, C}, {1, c->dims[1], c->dims[2], 1}, {c->dims[2], 1}};
    const uint32_t ranks[4] = {1, 4, 4, 2};
    int b = const_tensor(g, ranks[shape_kind], shapes[shape_kind]);
    if (b < 0) return -1;
    bool swap = rg_chance(&g->m.r, 0.3);
    return add_step(g, swap ? (uint32_t)b : cur, swap ? cur : (uint32_t)b, random_act(g));
  }
  if (k < 64) { /* CONCATENATION of 2-3 branches */
    if (!room(g, 16, 6)) return -1;
    uint32_t parts[3], count = 2 + rg_below(&g->m.r, 2), axis = 3;
    uint32_t axis_pick = rg_below(&g->m.r, 10);
    if (axis_pick == 0) axis = 1;
    if (axis_pick == 1) axis = 2;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t kind;
      int p;
      if (axis != 3) { /* branches of one channel count */
        p = conv_step(g, cur, RG_CONV, true, i == 0 ? 0 : g->t[parts[0]].dims[3], false);
        kind = 2;
      } else {
        p = rg_branch(&steps, g, &g->m.r, cur, &kind);
      }
      if (p < 0) return -1;
      parts[i] = (uint32_t)p;
      if (kind >= 2 && rg_chance(&g->m.r, 0.1)) g->t[p].output = true; /* keeps its copy */
    }
    return concat_step(g, parts, count, axis);
  }
  if (k < 76) return pool_step(g, cur, rg_chance(&g->m.r, 0.35), false);
  if (k < 82) { /* RESHAPE */
    uint32_t N = c->dims[0], H = c->dims[1], W = c->dims[2], C = c->dims[3];
    uint32_t shapes[5][4] = {{N, H * W, 1, C}, {N, 1, H * W, C}, {N, W, H, C}, {N * H, W, 1, C}, {N, H * W * C}};
    uint32_t s = rg_below(&g->m.r, 5);
    if (g->hide_temporaries && s == 3) s = 0; /* the batch changes between executions */
    return reshape_step(g, cur, s == 4 ? 2 : 4, shapes[s]);
  }
  if (k < 88) return fc_step(g, cur);
  if (k < 92) return softmax_step(g, cur);
  return relu_step(g, cur);
}

/* Tensor 0: the model input of the given shape, its values from data. */
static float *input_tensor(graph *g, const uint32_t *dims, rg_rng *data) {
  tensor *t = &g->t[add_tensor(g, 4, dims)];
  t->rt16 = 1e-3; /* rounded to float16 where a relaxed model keeps float16 */
  size_t n = elements(t);
  float *values = malloc(n * sizeof(float));
  assert_non_null(values);
  for (size_t i = 0; i < n; ++i) {
    values[i] = (float)(rg_uniform(data) * 2.0 - 1.0);
    t->val[i] = values[i], t->mag[i] = fabs(values[i]);
  }
  t->operand = mb_input(&g->m.b, F32, dims, 4);
  char s1[RG_SHAPE_TEXT];
  rg_say(&g->m, "  t0 = input %s\n", shape_str(t, s1));
  return values;
}

static void undo_of(void *state, const void *snapshot) {
  graph *g = state;
  const graph *before = snapshot;
  for (uint32_t i = before->count; i < g->count; ++i) free(g->t[i].val), free(g->t[i].mag);
}

static bool temporary(const graph *g, uint32_t i) {
  return g->m.b.operands[g->t[i].operand].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE;
}

/* The model outputs: the last tensor, every tensor nothing reads, now and
 * then an intermediate one; as many as the runner takes. In tensor order
 * (the model's order of outputs), some declared with unknown dimensions,
 * rank or batch. */
static void choose_outputs(graph *g, uint32_t last) {
  rg_role roles[MAX_TENSORS];
  for (uint32_t i = 0; i < g->count; ++i) roles[i] = (rg_role){g->t[i].operand, g->t[i].readers, g->t[i].output};
  rg_choose_outputs(&g->m, roles, g->count, last, 0.08, MODEL_RUNNER_MAX_ARGS);
  for (uint32_t i = 1; i < g->count; ++i) {
    tensor *o = &g->t[i];
    o->output = roles[i].output;
    if (!o->output) continue;
    uint32_t how = rg_below(&g->m.r, 8);
    if (how == 0) { /* unknown dimensions */
      memset(g->m.b.dims[o->operand], 0, sizeof(g->m.b.dims[o->operand]));
      rg_say(&g->m, "  output t%u declared with dimensions 0\n", i);
    } else if (how == 2 && !g->hide_temporaries) { /* unknown rank */
      g->m.b.operands[o->operand].dimension_count = 0;
      rg_say(&g->m, "  output t%u declared with rank 0\n", i);
    } else if (how == 1 || g->hide_temporaries) {
      g->m.b.dims[o->operand][0] = 0;
      rg_say(&g->m, "  output t%u declared with batch 0\n", i);
    }
  }
}

/* The input's batch, and every temporary's dimensions, left to the execution. */
static void hide_dimensions(graph *g) {
  if (g->unknown_input) {
    g->m.b.dims[g->t[0].operand][0] = 0;
    rg_say(&g->m, "  input declared with batch 0\n");
  }
  if (g->hide_temporaries) {
    for (uint32_t i = 1; i < g->count; ++i)
      if (temporary(g, i)) memset(g->m.b.dims[g->t[i].operand], 0, sizeof(g->m.b.dims[g->t[i].operand]));
    rg_say(&g->m, "  temporaries declared with dimensions 0\n");
  }
}

/* The model of seed: g->m.b built, every tensor's reference computed.
 * variant 1: the same model (structure, weights) for other input values,
 * and, where the model leaves the batch to the execution, another batch
 * (the second execution of a prepared model). */
static void build_graph(graph *g, uint64_t seed, uint32_t max_steps, float **input_data, int variant) {
  memset(g, 0, sizeof(*g));
  rg_model_init(&g->m, seed, VALUE_RESERVE);
  rg_rng data = rg_data_rng(seed, variant);
  rg_rng *r = &g->m.r;
  /* decided first, so that every later draw is the same in both variants */
  g->unknown_input = rg_chance(r, 0.1);
  g->hide_temporaries = g->unknown_input && rg_chance(r, 0.6);
  static const uint32_t chans[] = {1, 3, 4, 8, 12, 16, 24, 32};
  /* One draw a statement: an initializer list's order of evaluation is unspecified. */
  uint32_t dims[4];
  dims[0] = 1 + rg_below(r, 2);
  dims[1] = 1 + rg_below(r, 20);
  dims[2] = 1 + rg_below(r, 20);
  dims[3] = rg_pick(r, chans, 8);
  if (rg_chance(r, 0.5)) dims[1] = 1 + rg_below(r, 10), dims[2] = 1 + rg_below(r, 10); /* small ones often */
  if (variant == 1 && g->hide_temporaries) dims[0] = 3 - dims[0];
  *input_data = input_tensor(g, dims, &data);
  uint32_t count = 2 + rg_below(r, max_steps > 1 ? max_steps - 1 : 1);
  uint32_t cur = rg_grow(&steps, g, sizeof(*g), r, 0, count, &g->steps);
  if (cur == 0) { /* nothing took: one convolution */
    int y = conv_step(g, 0, RG_CONV, false, 4, false);
    assert_true(y >= 0);
    cur = (uint32_t)y;
  }
  choose_outputs(g, cur);
  hide_dimensions(g);
  mb_finish(&g->m.b);
}

static void free_graph(graph *g) {
  for (uint32_t i = 0; i < g->count; ++i) free(g->t[i].val), free(g->t[i].mag);
}

/* ---- option sets ------------------------------------------------------------------ */

typedef struct option_set {
  rg_set base;
  bool relaxed;  /* the model is relaxed (relaxComputationFloat32toFloat16) */
  bool fp16;     /* results within float16's tolerance */
  int same_bits; /* index of a set whose results must be the same bits, or -1 */
} option_set;

static void o_winograd(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_ON; }
static void o_f2x3(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_F2X3; }
static void o_f4x3(vknn_device_options *o) { o->winograd = VKNN_WINOGRAD_F4X3; }
static void o_combo(vknn_device_options *o) {
  rg_options_combo(o);
  o->winograd = VKNN_WINOGRAD_ON;
}
static void o_relaxed_off(vknn_device_options *o) { o->relaxed_float16 = VKNN_RELAXED_FLOAT16_OFF; }
static void o_relaxed_on(vknn_device_options *o) {
  o->relaxed_float16 = VKNN_RELAXED_FLOAT16_ON;
  o->float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_OFF;
}
static void o_relaxed_arith(vknn_device_options *o) {
  o_relaxed_on(o);
  o->float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_ON;
}

/* Sets: {name, apply, also, wide, rotating, every fourth seed}, relaxed, fp16, same bits as. */
enum { SET_PLAIN = RG_SET_PLAIN, SET_WIDE = 16 };
static const option_set sets[] = {
    {{"plain", rg_options_plain, NULL, false, false}, false, false, -1},
    {{"all-off", rg_options_all_off, NULL, false, true}, false, false, -1},
    {{"reads-storage", rg_options_storage, NULL, false, true}, false, false, SET_PLAIN},
    {{"reads-texel", rg_options_texel, NULL, false, true}, false, false, SET_PLAIN},
    {{"winograd-on", o_winograd, NULL, false, true}, false, false, -1},
    {{"winograd-f2x3", o_f2x3, NULL, false, true}, false, false, -1},
    {{"winograd-f4x3", o_f4x3, NULL, false, true}, false, false, -1},
    {{"subgroup-on", rg_options_subgroup_on, NULL, false, true}, false, false, -1},
    {{"subgroup-off", rg_options_subgroup_off, NULL, false, true}, false, false, -1},
    {{"shared-tiles", rg_options_shared_tiles, NULL, false, true}, false, false, -1},
    {{"global-pool-reduction", rg_options_global_pool, NULL, false, true}, false, false, -1},
    {{"packed", rg_options_packed, NULL, false, true}, false, false, SET_PLAIN},
    {{"io-copies", rg_options_io_copies, NULL, false, true}, false, false, SET_PLAIN},
    {{"combo", o_combo, NULL, false, true}, false, false, -1},
    {{"combo-storage", rg_options_combo_storage, o_f4x3, false, true}, false, false, -1},
    {{"tuning", rg_options_tuning, NULL, false, true, true}, false, false, -1},
    {{"wide", rg_options_plain, NULL, true, true}, false, false, -1},
    {{"wide-packed", rg_options_packed, NULL, true, true}, false, false, SET_WIDE},
    {{"wide-combo", o_combo, NULL, true, true}, false, false, -1},
    {{"relaxed-off", o_relaxed_off, NULL, false, true}, true, false, SET_PLAIN},
    {{"relaxed-f16", o_relaxed_on, NULL, false, true}, true, true, -1},
    {{"relaxed-f16-arith", o_relaxed_arith, NULL, false, true}, true, true, -1},
    {{"relaxed-combo", o_combo, o_relaxed_arith, false, true}, true, true, -1},
};
#define SET_COUNT (sizeof(sets) / sizeof(sets[0]))

typedef rg_fixture fixture;

static const rg_set *set_of(uint32_t s) { return &sets[s].base; }

static int setup(void **state) {
  assert_string_equal(sets[SET_WIDE].base.name, "wide"); /* the index other sets compare with */
  return rg_fixture_setup(state, "DIFF", 50, 8, set_of, SET_COUNT);
}

/* ---- running and comparing -------------------------------------------------------- */

typedef struct stats {
  uint32_t seeds, runs, failures;
  double worst_ratio[SET_COUNT]; /* largest error / allowed over every run */
  double last_worst;             /* of the last run checked */
} stats;

typedef struct run_result {
  vknn_status execute;
  float *out[MODEL_RUNNER_MAX_ARGS];
  vknn_output_shape shapes[MODEL_RUNNER_MAX_ARGS];
  char log[RG_LOG_TEXT];
  uint32_t packed, dispatches;
} run_result;

/* A seed's models (the second for the second execution), their inputs,
 * and what every set gave. */
typedef struct seed_run {
  rg_seed runs;
  fixture *f;
  stats *st;
  graph *g, *g2;
  float *input, *input2;
  run_result results[SET_COUNT], results2[SET_COUNT];
} seed_run;

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
  res->execute = model_runner_execute(pm, &g->m.b, inputs, outputs, res->shapes);
  if (res->execute != VKNN_STATUS_NONE) snprintf(res->log, sizeof(res->log), "%s", f->devices.log[s].last);
}

/* Prepares the seed's model on set s's device and executes it twice: on g's
 * input, then on g2's (other values, maybe another batch). */
static vknn_status run_model(void *ctx, uint32_t s, char *log) {
  seed_run *sr = ctx;
  run_result *res = &sr->results[s];
  sr->g->m.b.relaxed = sets[s].relaxed;
  vknn_prepared_model *pm = NULL;
  vknn_prepared_model_info info;
  vknn_status prepare = rg_prepare(&sr->f->devices, s, &sr->g->m.b, &pm, &info, log, RG_LOG_TEXT);
  sr->g->m.b.relaxed = false;
  if (prepare != VKNN_STATUS_NONE) return prepare;
  res->packed = info.packed_tensors, res->dispatches = info.dispatch_count;
  execute_on(sr->f, s, pm, sr->g, sr->input, res);
  execute_on(sr->f, s, pm, sr->g2, sr->input2, &sr->results2[s]);
  vknn_prepared_model_release(pm);
  return prepare;
}

static void free_result(run_result *res) {
  for (uint32_t k = 0; k < MODEL_RUNNER_MAX_ARGS; ++k) free(res->out[k]);
}


/* VKNN_DIFF_TOLERANCE scales every allowance (to look at the largest errors). */
static double tolerance_scale = 1.0;

/* Output k (tensor t) against the reference; prints what is off. */
static bool check_values(const char *head, uint32_t s, uint32_t k, uint32_t i, const tensor *t, const float *out,
                         stats *st) {
  size_t n = elements(t);
  uint32_t shown = 0, bad = 0;
  double worst = 0;
  for (size_t e = 0; e < n; ++e) {
    double got = out[e], want = t->val[e];
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
  if (worst > st->worst_ratio[s]) st->worst_ratio[s] = worst;
  if (worst > st->last_worst) st->last_worst = worst;
  if (bad == 0) return true;
  printf("MISMATCH %s: output %u (t%u): %u of %zu elements off, worst %.3g times the allowance\n", head, k, i, bad,
         n, worst);
  return false;
}

/* Output k (n elements) against the same output of the set that must give its bits. */
static bool check_bits(const char *head, uint32_t s, uint32_t k, uint32_t i, size_t n, const float *out,
                       const float *other) {
  if (memcmp(out, other, n * sizeof(float)) == 0) return true;
  size_t e = 0;
  while (e < n && memcmp(&out[e], &other[e], sizeof(float)) == 0) e++;
  uint32_t differ = 0;
  for (size_t q = 0; q < n; ++q) differ += memcmp(&out[q], &other[q], sizeof(float)) != 0;
  printf("MISMATCH %s: output %u (t%u) not the bits of set %s: %u of %zu elements differ, first %zu: %.9g vs %.9g\n",
         head, k, i, sets[sets[s].same_bits].base.name, differ, n, e, out[e], other[e]);
  return false;
}

/* Compares one run with the reference (and with the run of the set that
 * must give its bits, when other is not NULL); prints what disagrees. */
static bool check_run(const graph *g, uint64_t seed, uint32_t s, const char *execution, const run_result *res,
                      const run_result *other, stats *st) {
  st->last_worst = 0;
  char head[160];
  snprintf(head, sizeof(head), "seed %llu, set %s, %s", (unsigned long long)seed, sets[s].base.name, execution);
  if (res->execute != VKNN_STATUS_NONE) {
    printf("MISMATCH %s: execute %s (%s)\n", head, vknn_status_name(res->execute), res->log);
    return false;
  }
  bool ok = true;
  uint32_t k = 0;
  for (uint32_t i = 1; i < g->count; ++i) {
    const tensor *t = &g->t[i];
    if (!t->output) continue;
    ok = rg_check_shape(head, k, i, &res->shapes[k], t->rank, t->dims) && ok;
    ok = check_values(head, s, k, i, t, res->out[k], st) && ok;
    if (other != NULL && other->execute == VKNN_STATUS_NONE)
      ok = check_bits(head, s, k, i, elements(t), res->out[k], other->out[k]) && ok;
    k++;
  }
  return ok;
}

/* Set s's two executions: within the allowance, the same bits as the set
 * it must match. */
static bool check_set(void *ctx, uint32_t s) {
  seed_run *sr = ctx;
  stats *st = sr->st;
  int same = sets[s].same_bits;
  bool compare = same >= 0 && sr->runs.ran[same] && sr->runs.prepare[same] == VKNN_STATUS_NONE;
  uint64_t seed = sr->runs.seed;
  bool ok = check_run(sr->g, seed, s, "first execution", &sr->results[s], compare ? &sr->results[same] : NULL, st);
  double worst = st->last_worst;
  ok = check_run(sr->g2, seed, s, "second execution", &sr->results2[s], compare ? &sr->results2[same] : NULL, st) &&
       ok;
  st->last_worst = fmax(worst, st->last_worst);
  if (sr->f->config.verbose)
    printf("  set %-22s dispatches %u packed %u worst %.3g (%.0f ms)\n", sets[s].base.name, sr->results[s].dispatches,
           sr->results[s].packed, st->last_worst, sr->runs.ms[s]);
  return ok;
}

/* Builds, runs and checks one seed's model; false when anything disagrees. */
static bool test_seed(seed_run *sr) {
  static const rg_runner runner = {run_model, check_set};
  fixture *f = sr->f;
  graph *g = sr->g, *g2 = sr->g2;
  uint64_t seed = sr->runs.seed;
  build_graph(g, seed, f->config.max_steps, &sr->input, 0);
  build_graph(g2, seed, f->config.max_steps, &sr->input2, 1);
  assert_int_equal(g->m.b.operation_count, g2->m.b.operation_count);
  bool ok = rg_run_seed(&f->devices, &f->config, &sr->runs, &runner, sr, &g->m, g->steps, &sr->st->runs);
  for (uint32_t s = 0; s < SET_COUNT; ++s) free_result(&sr->results[s]), free_result(&sr->results2[s]);
  free(sr->input);
  free(sr->input2);
  free_graph(g);
  free_graph(g2);
  return ok;
}

static void test_random_graphs(void **state) {
  fixture *f = *state;
  tolerance_scale = strtod(rg_getenv("DIFF", "TOLERANCE", "1"), NULL);
  stats *st = calloc(1, sizeof(*st));
  graph *g = malloc(sizeof(*g)), *g2 = malloc(sizeof(*g2));
  seed_run *sr = malloc(sizeof(*sr));
  assert_true(st != NULL && g != NULL && g2 != NULL && sr != NULL);
  for (uint64_t seed = f->config.first; seed < f->config.first + f->config.count; ++seed) {
    memset(sr, 0, sizeof(*sr));
    sr->runs.seed = seed, sr->f = f, sr->st = st, sr->g = g, sr->g2 = g2;
    if (!test_seed(sr)) st->failures++;
    st->seeds++;
  }
  printf("seeds %u, runs %u, failing seeds %u\n", st->seeds, st->runs, st->failures);
  for (uint32_t s = 0; s < SET_COUNT; ++s)
    if (st->worst_ratio[s] > 0)
      printf("  %-22s worst error %.3g of the allowance\n", sets[s].base.name, st->worst_ratio[s]);
  uint32_t failures = st->failures;
  free(st);
  free(sr);
  free(g);
  free(g2);
  if (failures) fail_msg("%u seeds disagree", failures);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_graphs)};
  return cmocka_run_group_tests(tests, setup, rg_fixture_teardown);
}
