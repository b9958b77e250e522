#include "capabilities_host.h"

#include <math.h>

/* Plain loops, no intrinsics or threads: the CPU reference the HAL's ratios
 * are relative to. */
/* The 3x3 window's taps inside the input at output (oy, ox) (SAME
 * padding): dy in [w->y0, w->y1], dx in [w->x0, w->x1], each -1..1. */
typedef struct taps {
  int y0, y1, x0, x1;
} taps;

static taps window(const host_conv *p, uint32_t oy, uint32_t ox) {
  return (taps){oy == 0 ? 0 : -1, oy + 1 == p->h ? 0 : 1, ox == 0 ? 0 : -1, ox + 1 == p->w ? 0 : 1};
}

/* Offsets of tap (dy, dx): in the input, and in one filter. */
static size_t input_at(const host_conv *p, uint32_t oy, uint32_t ox, int dy, int dx) {
  return ((size_t)((int)oy + dy) * p->w + (size_t)((int)ox + dx)) * p->c;
}

static size_t filter_at(const host_conv *p, int dy, int dx) {
  return ((size_t)(dy + 1) * 3 + (size_t)(dx + 1)) * p->c;
}

static float conv_at_f32(const host_conv *p, const float *x, const float *f, uint32_t oy,
                         uint32_t ox) {
  float sum = 0.f;
  taps t = window(p, oy, ox);
  for (int dy = t.y0; dy <= t.y1; ++dy)
    for (int dx = t.x0; dx <= t.x1; ++dx) {
      const float *xv = x + input_at(p, oy, ox, dy, dx), *fv = f + filter_at(p, dy, dx);
      for (uint32_t c = 0; c < p->c; ++c) sum += xv[c] * fv[c];
    }
  return sum;
}

void host_conv_f32(const host_conv *p, const float *x, const float *filter, const float *bias,
                   float *y) {
  for (uint32_t oy = 0; oy < p->h; ++oy)
    for (uint32_t ox = 0; ox < p->w; ++ox)
      for (uint32_t k = 0; k < p->k; ++k) {
        float v = bias[k] + conv_at_f32(p, x, filter + (size_t)k * 9 * p->c, oy, ox);
        y[((size_t)oy * p->w + ox) * p->k + k] = fminf(fmaxf(v, 0.f), 6.f);
      }
}

static int32_t conv_at_q8(const host_conv *p, const host_quant *q, const uint8_t *x,
                          const uint8_t *f, uint32_t oy, uint32_t ox) {
  int32_t sum = 0;
  taps t = window(p, oy, ox);
  for (int dy = t.y0; dy <= t.y1; ++dy)
    for (int dx = t.x0; dx <= t.x1; ++dx) {
      const uint8_t *xv = x + input_at(p, oy, ox, dy, dx), *fv = f + filter_at(p, dy, dx);
      for (uint32_t c = 0; c < p->c; ++c) sum += (xv[c] - q->x_zero) * (fv[c] - q->f_zero);
    }
  return sum;
}

void host_conv_q8(const host_conv *p, const host_quant *q, const uint8_t *x,
                  const uint8_t *filter, const int32_t *bias, uint8_t *y) {
  for (uint32_t oy = 0; oy < p->h; ++oy)
    for (uint32_t ox = 0; ox < p->w; ++ox)
      for (uint32_t k = 0; k < p->k; ++k) {
        int32_t acc = bias[k] + conv_at_q8(p, q, x, filter + (size_t)k * 9 * p->c, oy, ox);
        int32_t v = q->y_zero + (int32_t)lrintf((float)acc * q->multiplier);
        v = v < q->low ? q->low : v > q->high ? q->high : v;
        y[((size_t)oy * p->w + ox) * p->k + k] = (uint8_t)v;
      }
}

void host_add_i32(const int32_t *a, const int32_t *b, int32_t *y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
}

void host_and_b8(const uint8_t *a, const uint8_t *b, uint8_t *y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] && b[i];
}
