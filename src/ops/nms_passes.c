/* How a long non-maximum suppression is cut into passes (ops/nms_passes.h). */
#include "ops/nms_passes.h"

/* Loop iterations of one step of nms_steps.glsl by a lane that holds
 * `per_lane` places of the list: best_place, the includer's nms_mark and
 * nms_compact's three walks over its places (4 per place), plus the
 * reductions and prefix sums over the lanes and the mark words (a constant
 * bound that covers 128 lanes and 16 mark words). */
static uint32_t iterations_per_step(uint32_t per_lane) { return 4u * per_lane + 48u; }

uint32_t vknn_nms_steps_per_pass(uint32_t capacity, uint32_t lanes) {
  uint32_t per_lane = (capacity + lanes - 1u) / lanes;
  /* The first pass also gathers the list: two walks over the lane's items. */
  uint32_t budget = VKNN_NMS_PASS_ITERATIONS - 2u * per_lane - 64u;
  uint32_t steps = budget / iterations_per_step(per_lane);
  return steps > 0 ? steps : 1u;
}

uint32_t vknn_nms_pass_count(uint32_t steps, uint32_t per_pass) {
  uint32_t passes = (steps + per_pass - 1u) / per_pass;
  return passes > 0 ? passes : 1u;
}
