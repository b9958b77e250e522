#include "support/box_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

float box_reference_iou(const float *a, const float *b) {
  float area_a = (a[2] - a[0]) * (a[3] - a[1]), area_b = (b[2] - b[0]) * (b[3] - b[1]);
  float w = fmaxf(fminf(a[2], b[2]) - fmaxf(a[0], b[0]), 0.f);
  float h = fmaxf(fminf(a[3], b[3]) - fmaxf(a[1], b[1]), 0.f);
  float inter = w * h;
  float uni = area_a + area_b - inter;
  return inter / uni;
}

uint32_t box_reference_hard_nms(uint32_t *select, uint32_t length, const float *scores, uint32_t score_stride,
                                const float *boxes, float iou_threshold, uint32_t limit) {
  uint32_t start = 0, end = length;
  while (start < end && start < limit) {
    uint32_t best = start;
    for (uint32_t i = start + 1; i < end; ++i)
      if (scores[select[best] * score_stride] < scores[select[i] * score_stride]) best = i;
    uint32_t t = select[start];
    select[start] = select[best];
    select[best] = t;
    for (uint32_t i = start + 1; i < end; ++i) {
      if (box_reference_iou(&boxes[4 * select[i]], &boxes[4 * select[start]]) >= iou_threshold) {
        t = select[i];
        select[i--] = select[--end];
        select[end] = t;
      }
    }
    start++;
  }
  return start;
}

/* A position and its score, for the sort before NMS. */
typedef struct scored_position {
  float score;
  uint32_t position;
} scored_position;

/* Higher scores first, then lower positions: a stable sort's order. */
static int by_score_then_position(const void *a, const void *b) {
  const scored_position *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return x->position < y->position ? -1 : x->position > y->position;
}

static bool passes_filter(const box_reference_proposals *p, const float *b) {
  float w = b[2] - b[0], h = b[3] - b[1];
  return w > p->min_size && h > p->min_size && b[0] + w / 2.f < p->image_width && b[1] + h / 2.f < p->image_height;
}

/* The candidates: those that pass the filter among the best pre_nms
 * positions (the reference sorts only then), or among all in position
 * order; their number, or UINT32_MAX when out of memory. */
static uint32_t select_candidates(const box_reference_proposals *p, uint32_t *select) {
  scored_position *order = malloc(p->positions * sizeof(*order));
  if (order == NULL) return UINT32_MAX;
  for (uint32_t k = 0; k < p->positions; ++k) order[k] = (scored_position){p->scores[k], k};
  bool sorted = p->pre_nms > 0 && (uint32_t)p->pre_nms < p->positions;
  if (sorted) qsort(order, p->positions, sizeof(*order), by_score_then_position);
  uint32_t limit = sorted ? (uint32_t)p->pre_nms : p->positions;
  uint32_t n = 0;
  for (uint32_t i = 0; i < limit; ++i)
    if (passes_filter(p, &p->boxes[4 * order[i].position])) select[n++] = order[i].position;
  free(order);
  return n;
}

uint32_t box_reference_generate_proposals(const box_reference_proposals *p, uint32_t *kept) {
  uint32_t n = select_candidates(p, kept);
  if (n == UINT32_MAX) return n;
  uint32_t limit = p->post_nms > 0 ? (uint32_t)p->post_nms : n;
  return box_reference_hard_nms(kept, n, p->scores, 1, p->boxes, p->iou_threshold, limit);
}

/* The anchors [ctr_y, ctr_x, h, w] moved by their deltas, as corners. */
static void decode(const box_postprocess_params *p, const float *deltas, const float *anchors, float *boxes) {
  for (uint32_t a = 0; a < p->anchors; ++a) {
    const float *anchor = &anchors[4 * a], *d = &deltas[a * p->box_length];
    float y = anchor[0] + anchor[2] * d[0] / p->scales[0];
    float x = anchor[1] + anchor[3] * d[1] / p->scales[1];
    float half_h = anchor[2] * expf(d[2] / p->scales[2]) * 0.5f;
    float half_w = anchor[3] * expf(d[3] / p->scales[3]) * 0.5f;
    const float corners[4] = {y - half_h, x - half_w, y + half_h, x + half_w};
    memcpy(&boxes[4 * a], corners, sizeof(corners));
  }
}

/* A detection: anchor, class and score, and its place before the sort. */
typedef struct detection {
  uint32_t anchor, cls, place;
  float score;
} detection;

/* By score, highest first; ties keep their places (a stable sort). */
static int by_score(const void *a, const void *b) {
  const detection *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return x->place < y->place ? -1 : 1;
}

static void write_row(const box_postprocess_params *p, const float *boxes, const detection *d, uint32_t row,
                      float *out_scores, float *out_boxes, int32_t *out_classes) {
  out_scores[row] = d->score;
  memcpy(&out_boxes[4 * row], &boxes[4 * d->anchor], 4 * sizeof(float));
  out_classes[row] = (int32_t)d->cls - (p->background_label ? 0 : 1);
}

/* Regular: NMS per class other than 0, then the best of all classes.
 * Returns the rows written, or UINT32_MAX when memory runs out. */
static uint32_t regular(const box_postprocess_params *p, const float *scores, const float *boxes, uint32_t *select,
                        float *out_scores, float *out_boxes, int32_t *out_classes) {
  uint32_t per_class = p->per_class < p->anchors ? p->per_class : p->anchors, count = 0;
  detection *all = malloc((size_t)(p->classes - 1) * per_class * sizeof(*all));
  if (all == NULL) return UINT32_MAX;
  for (uint32_t c = 1; c < p->classes; ++c) {
    uint32_t n = 0;
    for (uint32_t a = 0; a < p->anchors; ++a)
      if (scores[a * p->classes + c] > p->score_threshold) select[n++] = a;
    uint32_t chosen = box_reference_hard_nms(select, n, scores + c, p->classes, boxes, p->iou_threshold, per_class);
    for (uint32_t i = 0; i < chosen; ++i, ++count)
      all[count] = (detection){select[i], c, count, scores[select[i] * p->classes + c]};
  }
  qsort(all, count, sizeof(*all), by_score);
  if (count > p->max_detections) count = p->max_detections;
  for (uint32_t i = 0; i < count; ++i) write_row(p, boxes, &all[i], i, out_scores, out_boxes, out_classes);
  free(all);
  return count;
}

/* Fast: NMS once over each anchor's best score of a class other than 0,
 * each chosen anchor giving its best classes. */
static uint32_t fast(const box_postprocess_params *p, const float *scores, const float *boxes, uint32_t *select,
                     float *out_scores, float *out_boxes, int32_t *out_classes) {
  float *best = malloc(p->anchors * sizeof(float));
  detection *classes = malloc((p->classes - 1) * sizeof(*classes));
  if (best == NULL || classes == NULL) {
    free(best);
    free(classes);
    return UINT32_MAX;
  }
  uint32_t n = 0;
  for (uint32_t a = 0; a < p->anchors; ++a) {
    best[a] = scores[a * p->classes + 1];
    for (uint32_t c = 2; c < p->classes; ++c) best[a] = fmaxf(best[a], scores[a * p->classes + c]);
    if (best[a] > p->score_threshold) select[n++] = a;
  }
  uint32_t chosen = box_reference_hard_nms(select, n, best, 1, boxes, p->iou_threshold, p->max_detections);
  uint32_t per_anchor = p->classes - 1 < p->classes_per_detection ? p->classes - 1 : p->classes_per_detection;
  for (uint32_t k = 0; k < chosen; ++k) {
    for (uint32_t c = 1; c < p->classes; ++c)
      classes[c - 1] = (detection){select[k], c, c, scores[select[k] * p->classes + c]};
    qsort(classes, p->classes - 1, sizeof(*classes), by_score);
    for (uint32_t i = 0; i < per_anchor; ++i)
      write_row(p, boxes, &classes[i], k * per_anchor + i, out_scores, out_boxes, out_classes);
  }
  free(classes);
  free(best);
  return chosen * per_anchor;
}

uint32_t box_reference_postprocess(const box_postprocess_params *p, const float *scores, const float *deltas,
                                   const float *anchors, float *out_scores, float *out_boxes, int32_t *out_classes) {
  uint32_t rows = p->max_detections * (p->regular ? 1 : p->classes_per_detection);
  float *boxes = malloc((size_t)p->anchors * 4 * sizeof(float));
  uint32_t *select = malloc(p->anchors * sizeof(uint32_t));
  uint32_t count = UINT32_MAX;
  if (boxes != NULL && select != NULL) {
    memset(out_scores, 0, rows * sizeof(float));
    memset(out_boxes, 0, rows * 4 * sizeof(float));
    memset(out_classes, 0, rows * sizeof(int32_t));
    decode(p, deltas, anchors, boxes);
    count = (p->regular ? regular : fast)(p, scores, boxes, select, out_scores, out_boxes, out_classes);
  }
  free(select);
  free(boxes);
  return count == UINT32_MAX ? 0 : count;
}

/* Score, higher first, then class, then step: the batch's ranking. */
static int by_score_then_class(const void *a, const void *b) {
  const box_reference_nms_row *x = a, *y = b;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
  return x->step < y->step ? -1 : x->step > y->step;
}

/* Class, then score, higher first, then step: the order of the outputs. */
static int by_class_then_score(const void *a, const void *b) {
  const box_reference_nms_row *x = a, *y = b;
  if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
  if (x->score != y->score) return x->score > y->score ? -1 : 1;
  return x->step < y->step ? -1 : x->step > y->step;
}

uint32_t box_reference_box_nms_hard(const float *scores, const float *boxes, uint32_t first, uint32_t count,
                                    uint32_t classes, float score_threshold, float iou_threshold,
                                    int32_t max_detections, box_reference_nms_row *rows) {
  uint32_t *select = malloc((count > 0 ? count : 1u) * sizeof(*select));
  if (select == NULL) return UINT32_MAX;
  uint32_t limit = max_detections < 0 ? UINT32_MAX : (uint32_t)max_detections, total = 0;
  for (uint32_t cls = 1; cls < classes; ++cls) {
    uint32_t length = 0;
    for (uint32_t b = first; b < first + count; ++b)
      if (scores[b * classes + cls] > score_threshold) select[length++] = b * classes + cls;
    uint32_t chosen = box_reference_hard_nms(select, length, scores, 1, boxes, iou_threshold, limit);
    for (uint32_t k = 0; k < chosen; ++k)
      rows[total++] = (box_reference_nms_row){select[k] / classes, cls, k, scores[select[k]]};
  }
  free(select);
  qsort(rows, total, sizeof(*rows), by_score_then_class);
  if (total > limit) total = limit;
  qsort(rows, total, sizeof(*rows), by_class_then_score);
  return total;
}
