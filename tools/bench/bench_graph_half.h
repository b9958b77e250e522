/* vknn-bench's float16 models: a finished float32 bench_graph with every
 * float tensor and scalar as float16 (vknn-bench kernel --float16), so the
 * kernels' float16 variants can be timed against the float32 ones. */
#pragma once
#include "bench_graph.h"

/* Retypes g's float operands and converts its weights into a new pool of
 * half floats (*out_pool, freed by the caller; *out_size used). 0, or -1
 * with a message when memory runs out. */
int bench_graph_to_float16(bench_graph *g, uint8_t **out_pool, size_t *out_size);
