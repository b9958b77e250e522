#include "support/random_graph.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/device_internal.h"

/* ---- random numbers ---------------------------------------------------------------- */

static uint64_t next64(rg_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint32_t rg_below(rg_rng *r, uint32_t n) { return n == 0 ? 0 : (uint32_t)(next64(r) % n); }
double rg_uniform(rg_rng *r) { return (double)(next64(r) >> 11) / 9007199254740992.0; }
bool rg_chance(rg_rng *r, double p) { return rg_uniform(r) < p; }
uint32_t rg_pick(rg_rng *r, const uint32_t *values, uint32_t count) { return values[rg_below(r, count)]; }
int32_t rg_range(rg_rng *r, int32_t lo, int32_t hi) { return lo + (int32_t)rg_below(r, (uint32_t)(hi - lo + 1)); }

/* ---- shapes -------------------------------------------------------------------------- */

size_t rg_elements(uint32_t rank, const uint32_t *dims) {
  size_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

const char *rg_shape_str(uint32_t rank, const uint32_t *dims, char *buf) {
  int n = sprintf(buf, "[");
  for (uint32_t d = 0; d < rank; ++d) n += sprintf(buf + n, d ? ",%u" : "%u", dims[d]);
  sprintf(buf + n, "]");
  return buf;
}

bool rg_broadcast_dims(uint32_t rank_a, const uint32_t *a, uint32_t rank_b, const uint32_t *b, uint32_t *rank,
                       uint32_t *dims) {
  *rank = rank_a > rank_b ? rank_a : rank_b;
  for (uint32_t i = 0; i < *rank; ++i) {
    uint32_t da = i < rank_a ? a[rank_a - 1 - i] : 1, db = i < rank_b ? b[rank_b - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[*rank - 1 - i] = da > db ? da : db;
  }
  return true;
}

size_t rg_broadcast_index(uint32_t rank_t, const uint32_t *dims_t, uint32_t rank, const uint32_t *dims, size_t flat) {
  uint32_t idx[RG_MAX_RANK];
  for (int d = (int)rank - 1; d >= 0; --d) idx[d] = (uint32_t)(flat % dims[d]), flat /= dims[d];
  size_t off = 0;
  for (uint32_t d = 0; d < rank_t; ++d) off = off * dims_t[d] + (dims_t[d] == 1 ? 0 : idx[rank - rank_t + d]);
  return off;
}

/* ---- the model under construction ------------------------------------------------------ */

void rg_model_init(rg_model *m, uint64_t seed, size_t value_reserve) {
  memset(m, 0, sizeof(*m));
  m->r.s = seed * 0x2545f4914f6cdd1dull + 12345;
  m->bool_false = UINT32_MAX;
  m->value_reserve = value_reserve;
  mb_init(&m->b);
}

rg_rng rg_data_rng(uint64_t seed, int variant) {
  return (rg_rng){seed * 0x9e3779b97f4a7c15ull + 777 + (uint64_t)variant * 1000003};
}

void rg_say(rg_model *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(m->desc + m->desc_len, RG_MAX_DESC - m->desc_len, fmt, ap);
  va_end(ap);
  if (n > 0) m->desc_len = m->desc_len + (size_t)n < RG_MAX_DESC ? m->desc_len + (size_t)n : RG_MAX_DESC - 1;
}

uint32_t rg_scalar(rg_model *m, int32_t v) {
  for (uint32_t i = 0; i < m->scalar_count; ++i)
    if (m->scalar_values[i] == v) return m->scalar_operands[i];
  assert_true(m->scalar_count < RG_MAX_SCALARS);
  m->scalar_values[m->scalar_count] = v;
  return m->scalar_operands[m->scalar_count++] = mb_const_i32(&m->b, v);
}

static uint32_t layout_false(rg_model *m) {
  if (m->bool_false == UINT32_MAX) {
    uint8_t v = 0;
    m->bool_false = mb_const_tensor(&m->b, VKNN_OPERAND_BOOL, NULL, 0, &v, 1);
  }
  return m->bool_false;
}

size_t rg_values_left(const rg_model *m) {
  size_t used = m->b.values_size + m->value_reserve;
  return used >= sizeof(m->b.values) ? 0 : sizeof(m->b.values) - used;
}

/* Eight operands spare for the scalars a step adds. */
bool rg_room(const rg_model *m, uint32_t operands, uint32_t operations) {
  return m->b.operand_count + operands + 8 <= MB_MAX_OPERANDS &&
         m->b.operation_count + operations <= MB_MAX_OPERATIONS;
}

/* ---- windows -------------------------------------------------------------------------- */

const char *rg_act_name(int32_t act) {
  static const char *names[] = {"NONE", "RELU", "RELU1", "RELU6"};
  return names[act];
}

static uint32_t implicit_pad(uint32_t in, uint32_t k, uint32_t s, uint32_t d, int scheme, uint32_t *head,
                         uint32_t *tail) {
  uint32_t eff = (k - 1) * d + 1;
  if (scheme == RG_VALID) {
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

static uint32_t explicit_out(uint32_t in, uint32_t k, uint32_t s, uint32_t d, uint32_t head, uint32_t tail) {
  uint32_t eff = (k - 1) * d + 1;
  return in + head + tail >= eff ? (in + head + tail - eff) / s + 1 : 0;
}

/* The input row (or column) that output o reads at tap k, or -1 in the padding. */
static int64_t input_at(uint32_t o, uint32_t stride, uint32_t head, uint32_t k, uint32_t dilation, uint32_t extent) {
  int64_t i = (int64_t)o * stride - head + (int64_t)k * dilation;
  return i < 0 || i >= extent ? -1 : i;
}

/* An NHWC element's place: batch, row, column, channel. */
typedef struct nhwc {
  size_t n;
  uint32_t y, x, c;
} nhwc;

static nhwc nhwc_of(size_t o, uint32_t H, uint32_t W, uint32_t C) {
  nhwc at;
  at.c = (uint32_t)(o % C), o /= C;
  at.x = (uint32_t)(o % W), o /= W;
  at.y = (uint32_t)(o % H), at.n = o / H;
  return at;
}

static size_t nhwc_index(size_t n, int64_t y, int64_t x, uint32_t c, const uint32_t *dims) {
  return ((n * dims[1] + (size_t)y) * dims[2] + (size_t)x) * dims[3] + c;
}

void rg_conv_window(rg_rng *r, rg_conv *p, const uint32_t *ks, uint32_t ks_count, uint32_t force_k, bool same) {
  p->dh = p->dw = p->sh = p->sw = p->groups = p->mult = 1;
  p->kh = p->kw = rg_pick(r, ks, ks_count);
  if (rg_chance(r, 0.15)) p->kw = rg_pick(r, ks, ks_count); /* non-square now and then */
  if (force_k) p->kh = p->kw = force_k;
  if (!same && rg_chance(r, 0.4)) p->sh = p->sw = 2;
  if (!same && rg_chance(r, 0.1)) p->sw = p->sh == 1 ? 2 : 1; /* mixed strides */
  if (p->kind != RG_GROUPED && p->kh > 1 && rg_chance(r, 0.2)) p->dh = p->dw = 2;
}

static bool grouped_channels(rg_rng *r, rg_conv *p, uint32_t C, uint32_t out_c) {
  uint32_t options[8], n = 0;
  for (uint32_t gr = 2; gr <= C && n < 8; ++gr)
    if (C % gr == 0 && (out_c == 0 || out_c % gr == 0)) options[n++] = gr;
  if (n == 0) return false;
  p->groups = options[rg_below(r, n)];
  if (out_c) {
    p->out_c = out_c;
  } else {
    p->out_c = p->groups * rg_pick(r, (const uint32_t[]){1, 2, 4, 8}, 4);
    if (p->out_c > 48) p->out_c = p->groups;
  }
  return true;
}

bool rg_conv_channels(rg_rng *r, rg_conv *p, uint32_t C, uint32_t out_c, const uint32_t *chans,
                      uint32_t chans_count, uint32_t max_mult) {
  if (p->kind == RG_GROUPED) return grouped_channels(r, p, C, out_c);
  if (p->kind == RG_CONV) {
    p->out_c = out_c ? out_c : rg_pick(r, chans, chans_count);
    return true;
  }
  p->mult = out_c ? (out_c % C == 0 ? out_c / C : 0) : (rg_chance(r, 0.25) ? 2 : 1);
  if (p->mult == 0 || p->mult > max_mult || C * p->mult > 64) return false;
  p->out_c = C * p->mult;
  return true;
}

uint32_t rg_conv_group_channels(const rg_conv *p, uint32_t C) {
  return p->kind == RG_GROUPED ? C / p->groups : p->kind == RG_DEPTHWISE ? 1 : C;
}

uint32_t rg_conv_fan(const rg_conv *p, uint32_t C) { return p->kh * p->kw * rg_conv_group_channels(p, C); }

uint32_t rg_conv_terms(const rg_conv *p, const uint32_t *in_dims, size_t o, rg_term *terms) {
  nhwc at = nhwc_of(o, p->oh, p->ow, p->out_c);
  uint32_t cg = rg_conv_group_channels(p, in_dims[3]);
  uint32_t ocg = p->kind == RG_GROUPED ? p->out_c / p->groups : p->out_c;
  uint32_t first = p->kind == RG_DEPTHWISE ? at.c / p->mult : p->kind == RG_GROUPED ? (at.c / ocg) * cg : 0;
  uint32_t count = 0;
  for (uint32_t ky = 0; ky < p->kh; ++ky) {
    int64_t iy = input_at(at.y, p->sh, p->pt, ky, p->dh, in_dims[1]);
    for (uint32_t kx = 0; iy >= 0 && kx < p->kw; ++kx) {
      int64_t ix = input_at(at.x, p->sw, p->pl, kx, p->dw, in_dims[2]);
      if (ix < 0) continue;
      size_t base = nhwc_index(at.n, iy, ix, first, in_dims);
      size_t tap = (size_t)ky * p->kw + kx;
      if (p->kind == RG_DEPTHWISE) terms[count++] = (rg_term){base, tap * p->out_c + at.c};
      for (uint32_t c = 0; p->kind != RG_DEPTHWISE && c < cg; ++c)
        terms[count++] = (rg_term){base + c, ((size_t)at.c * p->kh * p->kw + tap) * cg + c};
    }
  }
  return count;
}

size_t rg_pad_index(const rg_conv *p, const uint32_t *in_dims, size_t i) {
  nhwc at = nhwc_of(i, in_dims[1], in_dims[2], in_dims[3]);
  const uint32_t dims[4] = {in_dims[0], p->h2, p->w2, in_dims[3]};
  return nhwc_index(at.n, at.y + p->ppt, at.x + p->ppl, at.c, dims);
}

/* Same size: the window's overhang split between PAD (its share drawn
 * first) and the convolution (explicit, or SAME, or VALID when nothing is
 * left). */
static void same_padding(rg_rng *r, rg_conv *p, uint32_t H, uint32_t W, uint32_t effh, uint32_t effw) {
  uint32_t th = effh - 1, tw = effw - 1;
  if (p->pad_first) {
    p->ppt = rg_below(r, th + 1), p->ppb = rg_below(r, th - p->ppt + 1);
    p->ppl = rg_below(r, tw + 1), p->ppr = rg_below(r, tw - p->ppl + 1);
    if (p->ppt + p->ppb + p->ppl + p->ppr == 0) p->pad_first = false;
  }
  th -= p->ppt + p->ppb, tw -= p->ppl + p->ppr;
  if (!p->pad_first && rg_chance(r, 0.5)) {
    p->implicit = RG_SAME;
    implicit_pad(H, p->kh, 1, p->dh, RG_SAME, &p->pt, &p->pb);
    implicit_pad(W, p->kw, 1, p->dw, RG_SAME, &p->pl, &p->pr);
  } else if (th == 0 && tw == 0 && rg_chance(r, 0.5)) {
    p->implicit = RG_VALID;
  } else {
    p->pt = rg_below(r, th + 1), p->pb = th - p->pt;
    p->pl = rg_below(r, tw + 1), p->pr = tw - p->pl;
  }
}

/* Any size: PAD's amounts up to 2, then a scheme, or explicit amounts below
 * the window (enough for one output). */
static void free_padding(rg_rng *r, rg_conv *p, uint32_t H, uint32_t W, uint32_t effh, uint32_t effw) {
  if (p->pad_first) {
    p->ppt = rg_below(r, 3), p->ppb = rg_below(r, 3), p->ppl = rg_below(r, 3), p->ppr = rg_below(r, 3);
    if (p->ppt + p->ppb + p->ppl + p->ppr == 0) p->ppb = 1;
  }
  int scheme = (int)rg_below(r, 3);
  uint32_t h2 = H + p->ppt + p->ppb, w2 = W + p->ppl + p->ppr;
  if (scheme == RG_VALID && (h2 < effh || w2 < effw)) scheme = RG_SAME;
  if (scheme != RG_EXPLICIT) {
    p->implicit = scheme;
    implicit_pad(h2, p->kh, p->sh, p->dh, scheme, &p->pt, &p->pb);
    implicit_pad(w2, p->kw, p->sw, p->dw, scheme, &p->pl, &p->pr);
    return;
  }
  p->pt = rg_below(r, effh), p->pb = rg_below(r, effh);
  p->pl = rg_below(r, effw), p->pr = rg_below(r, effw);
  if (h2 + p->pt + p->pb < effh) p->pb = effh - h2 - p->pt;
  if (w2 + p->pl + p->pr < effw) p->pr = effw - w2 - p->pl;
}

bool rg_conv_padding(rg_rng *r, rg_conv *p, uint32_t H, uint32_t W, bool same) {
  uint32_t effh = (p->kh - 1) * p->dh + 1, effw = (p->kw - 1) * p->dw + 1;
  p->ppt = p->ppb = p->ppl = p->ppr = 0;
  if (same) same_padding(r, p, H, W, effh, effw);
  else free_padding(r, p, H, W, effh, effw);
  p->h2 = H + p->ppt + p->ppb, p->w2 = W + p->ppl + p->ppr;
  p->oh = explicit_out(p->h2, p->kh, p->sh, p->dh, p->pt, p->pb);
  p->ow = explicit_out(p->w2, p->kw, p->sw, p->dw, p->pl, p->pr);
  return p->oh != 0 && p->ow != 0;
}

void rg_conv_form(rg_rng *r, rg_conv *p) {
  p->form = p->kind == RG_GROUPED ? 1 : p->dh > 1 ? 2 : rg_below(r, 5) == 0 ? 1 + (int)rg_below(r, 2) : 0;
}

bool rg_pad_operation(rg_model *m, const rg_conv *p, uint32_t in, uint32_t out, uint32_t x, uint32_t y,
                      const char *from, const char *to) {
  const int32_t amounts[8] = {0, 0, (int32_t)p->ppt, (int32_t)p->ppb, (int32_t)p->ppl, (int32_t)p->ppr, 0, 0};
  const uint32_t adims[2] = {4, 2};
  uint32_t inputs[2] = {in, mb_const_tensor(&m->b, VKNN_OPERAND_TENSOR_INT32, adims, 2, amounts, sizeof(amounts))};
  mb_operation(&m->b, VKNN_OPERATION_PAD, inputs, 2, &out, 1);
  rg_say(m, "  t%u = PAD(t%u) %s -> %s  pads h(%u,%u) w(%u,%u)\n", y, x, from, to, p->ppt, p->ppb, p->ppl, p->ppr);
  return rg_chance(&m->r, 0.15);
}

/* The padding and stride inputs convolutions and pools share: the scheme,
 * or the explicit amounts (left, right, top, bottom); the strides (width,
 * height). Appends them at inputs[*n]. */
static void window_inputs(rg_model *m, int scheme, const uint32_t pads[4], uint32_t sw, uint32_t sh,
                          uint32_t *inputs, uint32_t *n) {
  if (scheme) {
    inputs[(*n)++] = rg_scalar(m, scheme);
  } else {
    for (int i = 0; i < 4; ++i) inputs[(*n)++] = rg_scalar(m, (int32_t)pads[i]);
  }
  inputs[(*n)++] = rg_scalar(m, (int32_t)sw);
  inputs[(*n)++] = rg_scalar(m, (int32_t)sh);
}

void rg_conv_operation(rg_model *m, const rg_conv *p, uint32_t in, uint32_t filter, uint32_t bias, uint32_t out) {
  uint32_t inputs[14] = {in, filter, bias}, n = 3;
  window_inputs(m, p->implicit, (const uint32_t[]){p->pl, p->pr, p->pt, p->pb}, p->sw, p->sh, inputs, &n);
  if (p->kind == RG_DEPTHWISE) inputs[n++] = rg_scalar(m, (int32_t)p->mult);
  if (p->kind == RG_GROUPED) inputs[n++] = rg_scalar(m, (int32_t)p->groups);
  inputs[n++] = rg_scalar(m, p->act);
  if (p->form >= 1) inputs[n++] = layout_false(m);
  if (p->form == 2) inputs[n++] = rg_scalar(m, (int32_t)p->dw), inputs[n++] = rg_scalar(m, (int32_t)p->dh);
  static const int32_t types[] = {VKNN_OPERATION_CONV_2D, VKNN_OPERATION_DEPTHWISE_CONV_2D,
                                  VKNN_OPERATION_GROUPED_CONV_2D};
  mb_operation(&m->b, types[p->kind], inputs, n, &out, 1);
}

static const char *scheme_names[] = {"explicit", "SAME", "VALID"};

void rg_say_conv(rg_model *m, const rg_conv *p, uint32_t x, uint32_t y, const char *from, const char *to) {
  static const char *names[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "GROUPED_CONV_2D"};
  rg_say(m, "  t%u = %s(t%u) %s -> %s  k%ux%u s%u,%u d%u,%u %s pads(l%u r%u t%u b%u)", y, names[p->kind], x, from,
         to, p->kh, p->kw, p->sh, p->sw, p->dh, p->dw, scheme_names[p->implicit], p->pl, p->pr, p->pt, p->pb);
  if (p->kind == RG_DEPTHWISE) rg_say(m, " mult%u", p->mult);
  if (p->kind == RG_GROUPED) rg_say(m, " groups%u", p->groups);
  rg_say(m, " act %s form%d", rg_act_name(p->act), p->form);
}

/* A global pool's window: the image, now and then past it (its leading
 * padding inside the window), or VALID; strides that do not matter. */
static void global_window(rg_rng *r, rg_pool *w, uint32_t H, uint32_t W) {
  w->fh = H, w->fw = W;
  if (rg_chance(r, 0.3)) {
    w->pt = rg_below(r, 2), w->pl = rg_below(r, 2);
    w->fh = H + w->pt + rg_below(r, 2), w->fw = W + w->pl + rg_below(r, 2);
    if (w->pt >= w->fh) w->pt = 0;
    if (w->pl >= w->fw) w->pl = 0;
    w->pb = w->fh > H + w->pt ? w->fh - H - w->pt : 0, w->pr = w->fw > W + w->pl ? w->fw - W - w->pl : 0;
    if (w->pb >= w->fh) w->pb = 0;
    if (w->pr >= w->fw) w->pr = 0;
  } else if (rg_chance(r, 0.5)) {
    w->scheme = RG_VALID;
  }
  if (rg_chance(r, 0.3)) w->sh = w->sw = 1 + rg_below(r, 3);
}

static void local_window(rg_rng *r, rg_pool *w, uint32_t H, uint32_t W, bool same) {
  w->fh = 1 + rg_below(r, 3), w->fw = rg_chance(r, 0.8) ? w->fh : 1 + rg_below(r, 3);
  if (same) {
    w->scheme = RG_SAME;
    return;
  }
  w->sh = 1 + rg_below(r, 2), w->sw = rg_chance(r, 0.8) ? w->sh : 1 + rg_below(r, 3);
  w->scheme = (int)rg_below(r, 3);
  if (w->scheme == RG_VALID && (H < w->fh || W < w->fw)) w->scheme = RG_SAME;
  if (w->scheme == RG_EXPLICIT) {
    w->pt = rg_below(r, w->fh), w->pb = rg_below(r, w->fh), w->pl = rg_below(r, w->fw), w->pr = rg_below(r, w->fw);
    if (H + w->pt + w->pb < w->fh || W + w->pl + w->pr < w->fw) w->scheme = RG_SAME;
  }
}

bool rg_pool_window(rg_rng *r, rg_pool *w, uint32_t H, uint32_t W, bool global, bool same) {
  memset(w, 0, sizeof(*w));
  w->sh = w->sw = 1;
  if (global) global_window(r, w, H, W);
  else local_window(r, w, H, W, same);
  if (w->scheme) {
    implicit_pad(H, w->fh, w->sh, 1, w->scheme, &w->pt, &w->pb);
    implicit_pad(W, w->fw, w->sw, 1, w->scheme, &w->pl, &w->pr);
  }
  w->oh = explicit_out(H, w->fh, w->sh, 1, w->pt, w->pb);
  w->ow = explicit_out(W, w->fw, w->sw, 1, w->pl, w->pr);
  return w->oh != 0 && w->ow != 0;
}

/* A pool's window is a depthwise convolution's, one filter per channel. */
uint32_t rg_pool_terms(const rg_pool *w, const uint32_t *in_dims, size_t o, rg_term *terms) {
  rg_conv p = {.kind = RG_DEPTHWISE, .kh = w->fh, .kw = w->fw, .sh = w->sh, .sw = w->sw, .dh = 1, .dw = 1,
               .pt = w->pt, .pl = w->pl, .out_c = in_dims[3], .mult = 1, .oh = w->oh, .ow = w->ow};
  uint32_t count = rg_conv_terms(&p, in_dims, o, terms);
  assert_true(count > 0);
  return count;
}

void rg_pool_operation(rg_model *m, const rg_pool *w, bool avg, int32_t act, uint32_t in, uint32_t out) {
  uint32_t inputs[11] = {in}, k = 1;
  window_inputs(m, w->scheme, (const uint32_t[]){w->pl, w->pr, w->pt, w->pb}, w->sw, w->sh, inputs, &k);
  inputs[k++] = rg_scalar(m, (int32_t)w->fw), inputs[k++] = rg_scalar(m, (int32_t)w->fh);
  inputs[k++] = rg_scalar(m, act);
  if (rg_chance(&m->r, 0.2)) inputs[k++] = layout_false(m);
  mb_operation(&m->b, avg ? VKNN_OPERATION_AVERAGE_POOL_2D : VKNN_OPERATION_MAX_POOL_2D, inputs, k, &out, 1);
}

void rg_say_pool(rg_model *m, const rg_pool *w, bool avg, int32_t act, bool global, uint32_t x, uint32_t y,
                 const char *from, const char *to) {
  rg_say(m, "  t%u = %s(t%u) %s -> %s  f%ux%u s%u,%u %s pads(l%u r%u t%u b%u) act %s%s\n", y,
         avg ? "AVERAGE_POOL_2D" : "MAX_POOL_2D", x, from, to, w->fh, w->fw, w->sh, w->sw, scheme_names[w->scheme],
         w->pl, w->pr, w->pt, w->pb, rg_act_name(act), global ? " (global)" : "");
}

size_t rg_concat_index(uint32_t rank, const uint32_t *dims, uint32_t axis, const uint32_t *part, uint32_t offset,
                       size_t e) {
  size_t inner = rg_elements(rank - axis - 1, dims + axis + 1), row = part[axis] * inner;
  return e / row * dims[axis] * inner + offset * inner + e % row;
}

/* ---- device option sets ------------------------------------------------------------------ */

void rg_options_plain(vknn_device_options *o) { (void)o; }
void rg_options_all_off(vknn_device_options *o) {
  o->operand_reads = VKNN_OPERAND_READS_STORAGE;
  o->winograd = VKNN_WINOGRAD_OFF;
  o->subgroup_filter = VKNN_SUBGROUP_FILTER_OFF;
  o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_OFF;
  o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_OFF;
  o->packed_layout = VKNN_PACKED_LAYOUT_OFF;
  o->io_copies = VKNN_IO_COPIES_OFF;
  o->integer_dot = VKNN_INTEGER_DOT_OFF;
}
void rg_options_storage(vknn_device_options *o) { o->operand_reads = VKNN_OPERAND_READS_STORAGE; }
void rg_options_texel(vknn_device_options *o) { o->operand_reads = VKNN_OPERAND_READS_TEXEL; }
void rg_options_subgroup_on(vknn_device_options *o) { o->subgroup_filter = VKNN_SUBGROUP_FILTER_ON; }
void rg_options_subgroup_off(vknn_device_options *o) { o->subgroup_filter = VKNN_SUBGROUP_FILTER_OFF; }
void rg_options_shared_tiles(vknn_device_options *o) { o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON; }
void rg_options_global_pool(vknn_device_options *o) { o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_ON; }
void rg_options_packed(vknn_device_options *o) { o->packed_layout = VKNN_PACKED_LAYOUT_ON; }
void rg_options_io_copies(vknn_device_options *o) { o->io_copies = VKNN_IO_COPIES_ON; }
void rg_options_tuning(vknn_device_options *o) { o->kernel_tuning = VKNN_KERNEL_TUNING_ON; }
void rg_options_combo(vknn_device_options *o) {
  o->packed_layout = VKNN_PACKED_LAYOUT_ON;
  o->subgroup_filter = VKNN_SUBGROUP_FILTER_ON;
  o->gemm_shared_tiles = VKNN_GEMM_SHARED_TILES_ON;
  o->global_pool_reduction = VKNN_GLOBAL_POOL_REDUCTION_ON;
}
void rg_options_combo_storage(vknn_device_options *o) {
  rg_options_combo(o);
  o->operand_reads = VKNN_OPERAND_READS_STORAGE;
  o->io_copies = VKNN_IO_COPIES_ON;
}

/* ---- the environment ---------------------------------------------------------------------- */

const char *rg_getenv(const char *prefix, const char *name, const char *fallback) {
  char full[64];
  snprintf(full, sizeof(full), "VKNN_%s_%s", prefix, name);
  const char *v = getenv(full);
  return v != NULL && v[0] != '\0' ? v : fallback;
}

static void config_read(rg_config *c, const char *prefix, uint64_t seeds, uint32_t steps) {
  char fallback[24];
  c->first = strtoull(rg_getenv(prefix, "SEED", "1"), NULL, 10);
  snprintf(fallback, sizeof(fallback), "%llu", (unsigned long long)seeds);
  c->count = strtoull(rg_getenv(prefix, "SEEDS", fallback), NULL, 10);
  snprintf(fallback, sizeof(fallback), "%u", steps);
  c->max_steps = (uint32_t)strtoul(rg_getenv(prefix, "STEPS", fallback), NULL, 10);
  c->verbose = atoi(rg_getenv(prefix, "VERBOSE", "0")) != 0;
  c->print_log = atoi(rg_getenv(prefix, "LOG", "0")) != 0;
  c->which = rg_getenv(prefix, "SETS", "");
}

/* Whether a comma-separated list names the set. */
static bool names(const char *which, const char *name) {
  size_t len = strlen(name);
  for (const char *p = which; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0')) return true;
  return false;
}

/* ---- devices ---------------------------------------------------------------------------------- */

static void devices_init(rg_devices *d, const rg_config *c) {
  bool all = strcmp(c->which, "all") == 0;
  for (uint32_t s = 0; s < d->count; ++s)
    d->enabled[s] = c->which[0] == '\0' || all || names(c->which, d->sets[s]->name);
  d->enabled[RG_SET_PLAIN] = true;
  d->print_log = c->print_log;
}

/* test_log_callback, and every line printed with VKNN_<prefix>_LOG=1 (the
 * driver's verbose lines where VKNN_LOG names their tags). */
static bool print_log;
static void log_line(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  if (print_log) printf("    [%s] %s\n", tag, message);
  test_log_callback(user_data, level, tag, message);
}

static vknn_device *device_of(rg_devices *d, uint32_t s) {
  if (d->device[s] != NULL) return d->device[s];
  print_log = d->print_log;
  vknn_device_options o = {.log_callback = log_line, .log_user_data = &d->log[s], .enable_validation = true,
                           .kernel_tuning = VKNN_KERNEL_TUNING_OFF};
  d->sets[s]->apply(&o);
  if (d->sets[s]->also != NULL) d->sets[s]->also(&o);
  assert_int_equal(vknn_device_open(&o, &d->device[s]), VKNN_STATUS_NONE);
  if (d->sets[s]->wide) d->device[s]->vk.parallel_invocations = 1u << 20;
  return d->device[s];
}

static uint64_t devices_close(rg_devices *d) {
  uint64_t messages = 0;
  for (uint32_t s = 0; s < d->count; ++s) {
    if (d->device[s] == NULL) continue;
    messages += vknn_device_get_validation_message_count(d->device[s]);
    vknn_device_close(d->device[s]);
    d->device[s] = NULL;
  }
  return messages;
}

/* ---- running and checking ------------------------------------------------------------------- */

vknn_status rg_prepare(rg_devices *d, uint32_t s, model_builder *b, vknn_prepared_model **pm,
                       vknn_prepared_model_info *info, char *log, size_t log_size) {
  vknn_device *device = device_of(d, s);
  d->log[s].last[0] = '\0';
  *pm = NULL;
  vknn_status status = vknn_device_prepare_model(device, mb_finish(b), VKNN_PREFER_FAST_SINGLE_ANSWER,
                                                 VKNN_PRIORITY_MEDIUM, NULL, pm);
  if (status != VKNN_STATUS_NONE) {
    snprintf(log, log_size, "%s", d->log[s].last);
    return status;
  }
  if (vknn_prepared_model_get_info(*pm, info) != VKNN_STATUS_NONE) memset(info, 0, sizeof(*info));
  return status;
}

bool rg_check_shape(const char *head, uint32_t k, uint32_t tensor, const vknn_output_shape *shape,
                    uint32_t rank, const uint32_t *dims) {
  bool ok = shape->is_sufficient && shape->rank == rank;
  for (uint32_t d = 0; ok && d < rank; ++d) ok = shape->dimensions[d] == dims[d];
  if (ok) return true;
  char want[RG_SHAPE_TEXT];
  printf("MISMATCH %s: output %u (t%u) shape rank %u [%u,%u,%u,%u] sufficient %d, want %s\n", head, k, tensor,
         shape->rank, shape->dimensions[0], shape->dimensions[1], shape->dimensions[2], shape->dimensions[3],
         shape->is_sufficient, rg_shape_str(rank, dims, want));
  return false;
}

int rg_fixture_setup(void **state, const char *prefix, uint64_t seeds, uint32_t steps,
                     const rg_set *(*set_of)(uint32_t s), uint32_t count) {
  rg_fixture *f = count <= RG_MAX_SETS ? calloc(1, sizeof(*f)) : NULL;
  if (f == NULL) return -1;
  config_read(&f->config, prefix, seeds, steps);
  for (uint32_t s = 0; s < count; ++s) f->devices.sets[s] = set_of(s);
  f->devices.count = count;
  devices_init(&f->devices, &f->config);
  *state = f;
  return 0;
}

int rg_fixture_teardown(void **state) {
  rg_fixture *f = *state;
  uint64_t messages = devices_close(&f->devices);
  free(f);
  return messages == 0 ? 0 : -1;
}

/* ---- a seed on the sets ----------------------------------------------------------------------- */

/* Whether set s runs on seed: enabled; by default each seed runs three
 * rotating sets, the next three on the next seed. */
static bool runs_on(const rg_devices *d, const rg_config *c, uint32_t s, uint64_t seed) {
  const rg_set *set = d->sets[s];
  if (!d->enabled[s]) return false;
  if (set->every_fourth && seed % 4 != 0 && !names(c->which, set->name)) return false;
  if (c->which[0] != '\0' || !set->rotating) return true;
  uint32_t rank = 0, rotating = 0;
  for (uint32_t q = 0; q < d->count; ++q) {
    if (q < s) rank += d->sets[q]->rotating;
    rotating += d->sets[q]->rotating;
  }
  uint32_t slot = (uint32_t)((seed * 3) % rotating);
  return rank == slot || rank == (slot + 1) % rotating || rank == (slot + 2) % rotating;
}

/* Set s's run of the seed, timed, the validation layer's messages counted:
 * false when there were any. */
static bool run_set(rg_devices *d, rg_seed *seed, uint32_t s, const rg_runner *runner, void *ctx) {
  uint64_t before = vknn_device_get_validation_message_count(device_of(d, s));
  uint64_t t0 = test_boottime_ns();
  seed->prepare[s] = runner->run(ctx, s, seed->log[s]);
  seed->ms[s] = (double)(test_boottime_ns() - t0) / 1e6;
  seed->ran[s] = true;
  uint64_t after = vknn_device_get_validation_message_count(d->device[s]);
  if (after == before) return true;
  printf("MISMATCH seed %llu, set %s: %llu validation-layer messages (%s)\n", (unsigned long long)seed->seed,
         d->sets[s]->name, (unsigned long long)(after - before), d->log[s].last);
  return false;
}

/* Whether set s prepared as the plain device did (prints a mismatch when
 * not, a note when neither prepared). */
static bool same_prepare(const rg_devices *d, const rg_seed *seed, uint32_t s) {
  vknn_status status = seed->prepare[s], plain = seed->prepare[RG_SET_PLAIN];
  if (status != plain) {
    printf("MISMATCH seed %llu: prepare %s on set %s (%s), %s on set plain (%s)\n", (unsigned long long)seed->seed,
           vknn_status_name(status), d->sets[s]->name, seed->log[s], vknn_status_name(plain),
           seed->log[RG_SET_PLAIN]);
    return false;
  }
  if (status != VKNN_STATUS_NONE && s == RG_SET_PLAIN)
    printf("NOTE seed %llu: prepare %s on every device (%s)\n", (unsigned long long)seed->seed,
           vknn_status_name(status), seed->log[s]);
  return true;
}

bool rg_run_seed(rg_devices *d, const rg_config *c, rg_seed *seed, const rg_runner *runner, void *ctx,
                 const rg_model *m, uint32_t steps, uint32_t *runs) {
  if (c->verbose) {
    printf("seed %llu (%u steps):\n%s", (unsigned long long)seed->seed, steps, m->desc);
    fflush(stdout);
  }
  bool ok = true;
  for (uint32_t s = 0; s < d->count; ++s) {
    if (!runs_on(d, c, s, seed->seed)) continue;
    ok = run_set(d, seed, s, runner, ctx) && ok;
    ++*runs;
  }
  for (uint32_t s = 0; s < d->count; ++s) {
    if (!seed->ran[s]) continue;
    ok = same_prepare(d, seed, s) && ok;
    if (seed->prepare[s] == VKNN_STATUS_NONE) ok = runner->check(ctx, s) && ok;
  }
  if (!ok) printf("MODEL of seed %llu:\n%s", (unsigned long long)seed->seed, m->desc);
  fflush(stdout);
  return ok;
}

/* ---- the model's outputs --------------------------------------------------------------------- */

static bool temporary(const rg_model *m, const rg_role *role) {
  return m->b.operands[role->operand].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE;
}

void rg_choose_outputs(rg_model *m, rg_role *roles, uint32_t count, uint32_t last, double p, uint32_t max) {
  roles[last].output = true;
  for (uint32_t i = 1; i < count; ++i)
    if (roles[i].readers == 0 && temporary(m, &roles[i])) roles[i].output = true;
  for (uint32_t i = 1; i < count; ++i)
    if (temporary(m, &roles[i]) && rg_chance(&m->r, p)) roles[i].output = true;
  uint32_t outputs = 0;
  for (uint32_t i = count; i-- > 1;) {
    if (!roles[i].output) continue;
    if (outputs == max && roles[i].readers > 0) { /* too many: keep it a temporary */
      roles[i].output = false;
      continue;
    }
    assert_true(outputs < max);
    outputs++;
  }
  for (uint32_t i = 1; i < count; ++i) {
    if (!roles[i].output) continue;
    m->b.operands[roles[i].operand].lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
    m->b.outputs[m->b.output_count++] = roles[i].operand;
  }
}

/* ---- growing a model ------------------------------------------------------------------------ */

int rg_conv_kind(rg_rng *r) {
  uint32_t k = rg_below(r, 10);
  return k < 5 ? RG_CONV : k < 8 ? RG_DEPTHWISE : RG_GROUPED;
}

int rg_branch(const rg_steps *steps, void *graph, rg_rng *r, uint32_t x, uint32_t *kind) {
  uint32_t k = rg_below(r, 8);
  *kind = k;
  if (k == 0) return (int)x;
  if (k == 1) return steps->pool(graph, x, false, true);
  int y = steps->conv(graph, x, k <= 4 ? RG_CONV : k <= 6 ? RG_DEPTHWISE : RG_GROUPED, true, 0, rg_chance(r, 0.15));
  if (y >= 0 && rg_chance(r, 0.2)) y = steps->relu(graph, (uint32_t)y);
  return y;
}

/* One step, tried again where it fails: the new tensor, or -1. */
static int try_step(const rg_steps *steps, void *graph, void *snapshot, size_t size, rg_rng *r, uint32_t cur) {
  int y = -1;
  for (int attempt = 0; attempt < 6 && y < 0; ++attempt) {
    memcpy(snapshot, graph, size);
    y = steps->step(graph, cur);
    if (y >= 0) break;
    rg_rng kept = *r;
    steps->undo(graph, snapshot);
    memcpy(graph, snapshot, size);
    *r = kept;
  }
  return y;
}

uint32_t rg_grow(const rg_steps *steps, void *graph, size_t size, rg_rng *r, uint32_t cur, uint32_t count,
                 uint32_t *taken) {
  void *snapshot = malloc(size);
  assert_non_null(snapshot);
  for (uint32_t s = 0; s < count; ++s) {
    int y = try_step(steps, graph, snapshot, size, r, cur);
    if (y < 0) break;
    /* a step may return its own input (a branch of itself); go on from what it made */
    if ((uint32_t)y == cur) continue;
    cur = (uint32_t)y;
    ++*taken;
  }
  free(snapshot);
  return cur;
}
