#include "support/reads_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/prepared_model_internal.h"
#include "runtime/recorded_graph.h"

int reads_fixture_setup(void **state, size_t pool_bytes) {
  static const vknn_operand_reads reads[2] = {VKNN_OPERAND_READS_STORAGE, VKNN_OPERAND_READS_TEXEL};
  reads_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  for (int d = 0; d < READS_FIXTURE_DEVICES; ++d) {
    /* float32 arithmetic and the device's rules everywhere: the kernels the
     * tests name. */
    vknn_device_options options = {.enable_validation = true, .operand_reads = reads[d % 2],
                                   .float16_arithmetic = VKNN_FLOAT16_ARITHMETIC_OFF,
                                   .kernel_tuning = VKNN_KERNEL_TUNING_OFF,
                                   .subgroup_filter = d < 2 ? VKNN_SUBGROUP_FILTER_OFF
                                                            : VKNN_SUBGROUP_FILTER_ON};
    if (vknn_device_open(&options, &f->devices[d]) != VKNN_STATUS_NONE) return -1;
  }
  return shared_memory_create(&f->pool, pool_bytes);
}

int reads_fixture_teardown(void **state) {
  reads_fixture *f = *state;
  uint64_t messages = 0;
  for (int d = 0; d < READS_FIXTURE_DEVICES; ++d) {
    messages += vknn_device_get_validation_message_count(f->devices[d]);
    vknn_device_close(f->devices[d]);
  }
  shared_memory_destroy(&f->pool);
  free(f);
  return messages == 0 ? 0 : -1;
}

bool reads_fixture_shares_filter_loads(const char *kernel, uint32_t out_c, uint32_t groups) {
  return strncmp(kernel, "conv2d_gemm_", 12) == 0 && out_c >= 8 && (groups <= 1 || (out_c / groups) % 8 == 0);
}

/* Specialization constant index of dispatch i where it runs conv2d_gemm,
 * else 0. */
static uint32_t gemm_constant(const vknn_prepared_model *pm, uint32_t i, uint32_t index) {
  const vknn_dispatch_list *list = &pm->recorded->dispatches;
  if (i >= list->count) return 0;
  const vknn_dispatch *d = &list->items[i];
  if (strncmp(vknn_embedded_shaders[d->shader].name, "conv2d_gemm", 11) != 0) return 0;
  return d->spec[index];
}

bool reads_fixture_filter_packed(const vknn_prepared_model *pm, uint32_t i) {
  return gemm_constant(pm, i, VKNN_SPEC_CONV2D_GEMM_PACKED_FILTER) == 1;
}

bool reads_fixture_taps_unrolled(const vknn_prepared_model *pm, uint32_t i) {
  return gemm_constant(pm, i, VKNN_SPEC_CONV2D_GEMM_UNROLL_TAPS) == 1;
}
