/* The push constants of vknn-bench's kernels (the .comp files beside it), checked
 * against the kernels' blocks in bench_shaders.c (VKNN_PUSH_LAYOUT). */
#pragma once
#include <stdint.h>

typedef struct bench_fma_push {
  uint32_t iterations;
  float mul, add, never;
} bench_fma_push;

typedef struct bench_copy_push {
  uint32_t count; /* vec4 elements */
} bench_copy_push;
