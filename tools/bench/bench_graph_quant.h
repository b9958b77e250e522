/* vknn-bench's quantized models: a float32 bench_graph of convolutions and
 * fully connected layers turned QUANT8_ASYMM (bench_graph_quant.c). */
#pragma once
#include "bench_graph.h"

/* Retypes g's tensors and quantizes its weights into a new pool of bytes
 * (*out_pool, freed by the caller; *out_size used). 0, or -1 with a message
 * when g holds other operations or memory runs out. */
int bench_graph_quantize(bench_graph *g, uint8_t **out_pool, size_t *out_size);
