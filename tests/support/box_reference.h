/* The NNAPI reference's box arithmetic, for tests of the detection kernels. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

/* Intersection over union of two corner boxes [x1, y1, x2, y2], in the
 * reference's order of operations. */
float box_reference_iou(const float *a, const float *b);

/* The reference's greedy hard NMS in place over select[0, length) (indexes
 * of boxes, box i at boxes[4 * i], score at scores[i * score_stride]): the
 * first highest score of the range is swapped to its front, every later
 * entry whose IoU with it reaches iou_threshold is swapped with the range's
 * end (the swapped-in entry tested in its turn), up to limit choices.
 * Returns how many were chosen, at select[0, count) in the order chosen. */
uint32_t box_reference_hard_nms(uint32_t *select, uint32_t length, const float *scores, uint32_t score_stride,
                                const float *boxes, float iou_threshold, uint32_t limit);

/* One image of GENERATE_PROPOSALS after the bounding-box transform, as the
 * reference takes its steps: the best pre_nms positions by score (a stable
 * sort: ties keep the position order), or every position in order when
 * pre_nms is non-positive or not below the positions; those
 * wider and higher than min_size with their centre inside the image, then
 * box_reference_hard_nms up to post_nms (non-positive: no limit). */
typedef struct box_reference_proposals {
  const float *scores, *boxes; /* per position; boxes [x1, y1, x2, y2] */
  uint32_t positions;
  int32_t pre_nms, post_nms;
  float iou_threshold, min_size, image_height, image_width;
} box_reference_proposals;

/* The kept positions in the order chosen into kept (room for every
 * position); returns their number, or UINT32_MAX when out of memory. */
uint32_t box_reference_generate_proposals(const box_reference_proposals *p, uint32_t *kept);

/* DETECTION_POSTPROCESSING's parameters (scales: y, x, h, w). */
typedef struct box_postprocess_params {
  uint32_t anchors, classes, box_length;
  float scales[4];
  bool regular, background_label;
  uint32_t max_detections, classes_per_detection, per_class;
  float score_threshold, iou_threshold;
} box_postprocess_params;

/* One batch of DETECTION_POSTPROCESSING as the reference computes it, into
 * rows of (score, box, class): max_detections rows, times the classes per
 * detection for fast NMS, those past the detections zero. The reference's
 * final sorts are not stable; here ties keep their order (regular: class,
 * then NMS step; fast: class), as the kernels do. Returns the number of
 * detections; 0 with nothing written when memory runs out. */
uint32_t box_reference_postprocess(const box_postprocess_params *p, const float *scores, const float *deltas,
                                   const float *anchors, float *out_scores, float *out_boxes, int32_t *out_classes);

/* A row of BOX_WITH_NMS_LIMIT: the box, its class, its score and the NMS
 * step of its class that chose it. */
typedef struct box_reference_nms_row {
  uint32_t box, cls, step;
  float score;
} box_reference_nms_row;

/* One batch (boxes [first, first + count)) of BOX_WITH_NMS_LIMIT with hard
 * NMS, scores [boxes, classes] and boxes [boxes, 4 x classes]: per class
 * other than 0, the boxes scoring above score_threshold in box order,
 * box_reference_hard_nms up to max_detections (negative: no limit); then
 * the best max_detections of the batch by score (then class, then step),
 * ordered by class, then score, then step (the NMS score threshold taken
 * as positive and not above score_threshold: a dropped box's score of 0 is
 * below it, no candidate's is). Rows into rows (room for count x
 * (classes - 1)); returns their number, or UINT32_MAX when out of memory. */
uint32_t box_reference_box_nms_hard(const float *scores, const float *boxes, uint32_t first, uint32_t count,
                                    uint32_t classes, float score_threshold, float iou_threshold,
                                    int32_t max_detections, box_reference_nms_row *rows);
