/* The NNAPI reference's box arithmetic, for tests of the detection kernels. */
#pragma once

/* Intersection over union of two corner boxes [x1, y1, x2, y2], in the
 * reference's order of operations. */
float box_reference_iou(const float *a, const float *b);
