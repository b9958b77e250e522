#include "bench_shaders.h"

#include <string.h>

#include "bench_push.h"
#include "shaders_embedded.h" /* generated in this folder of the build tree */
#include "shaders_layout.h"

VKNN_PUSH_LAYOUT(peak_fma, bench_fma_push);
VKNN_PUSH_LAYOUT(peak_copy, bench_copy_push);

const uint32_t *bench_shader_code(const char *name, size_t *out_size) {
  for (int i = 0; i < VKNN_SHADER_COUNT; ++i) {
    if (strcmp(vknn_embedded_shaders[i].name, name) != 0) continue;
    *out_size = vknn_embedded_shaders[i].size_bytes;
    return vknn_embedded_shaders[i].words;
  }
  return NULL;
}
