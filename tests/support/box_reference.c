#include "support/box_reference.h"

#include <math.h>

float box_reference_iou(const float *a, const float *b) {
  float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  float w = fmaxf(fminf(a[2], b[2]) - fmaxf(a[0], b[0]), 0.f);
  float h = fmaxf(fminf(a[3], b[3]) - fmaxf(a[1], b[1]), 0.f);
  float inter = w * h;
  float uni = area_a + area_b - inter;
  return inter / uni;
}
