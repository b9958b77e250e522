/* Non-maximum suppression in passes (shaders/nms_steps.glsl). lavapipe's
 * shader compiler (gallivm) gives every invocation group a loop limiter: once
 * it has taken 65535 loop iterations in all, counted over every loop of the
 * shader, it leaves the loop it is in after that iteration, whatever the
 * condition says. A long NMS (thousands of candidates, hundreds of steps)
 * reaches that count, and the loop it cuts short leaves the list half
 * compacted. So the steps run in passes of a bounded number each, the list
 * and its (start, stop) kept in buffers between them: every pass stays well
 * inside the count on lavapipe, and a GPU pays a few more dispatches only
 * for lists that long. */
#pragma once
#include <stdint.h>

/* Loop iterations one pass may spend, at most: half of lavapipe's limiter,
 * the rest a margin for the passes' other loops. */
#define VKNN_NMS_PASS_ITERATIONS 32768u

/* Steps one pass takes on lists of up to `capacity` candidates held by
 * workgroups of `lanes` invocations (at least 1). */
uint32_t vknn_nms_steps_per_pass(uint32_t capacity, uint32_t lanes);

/* Passes for up to `steps` steps (at least 1: the first also gathers). */
uint32_t vknn_nms_pass_count(uint32_t steps, uint32_t per_pass);
