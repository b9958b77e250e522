/* The SPIR-V of vknn-bench's own kernels (the .comp files in tools/bench). */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* The words of the kernel named name ("peak_fma"), *out_size their size in
 * bytes; NULL when there is no such kernel. */
const uint32_t *bench_shader_code(const char *name, size_t *out_size);
