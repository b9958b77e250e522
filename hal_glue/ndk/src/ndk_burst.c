/* ANeuralNetworksBurst: a vknn burst of one compilation. Its executions share
 * one pool for pointer arguments, and every memory keeps its slot, so the
 * burst maps each memory once. */
#include "ndk.h"

int ANeuralNetworksBurst_create(ANeuralNetworksCompilation *compilation, ANeuralNetworksBurst **burst) {
  NDK_NOT_NULL(burst);
  *burst = NULL;
  NDK_NOT_NULL(compilation);
  NDK_REQUIRE(compilation->finished && compilation->prepared != NULL, ANEURALNETWORKS_BAD_STATE,
              "the compilation is not finished successfully");
  ANeuralNetworksBurst *b = ndk_alloc(sizeof(*b));
  if (b == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  b->compilation = compilation;
  b->scratch.fd = -1;
  vknn_status s = vknn_burst_create(compilation->prepared, &b->vk);
  if (s != VKNN_STATUS_NONE) {
    ndk_free(b);
    ndk_log_error(__func__, "vknn cannot create the burst: %s", vknn_status_name(s));
    return ndk_result_of(s);
  }
  *burst = b;
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksBurst_free(ANeuralNetworksBurst *burst) {
  if (burst == NULL) return;
  vknn_burst_release(burst->vk);
  ndk_scratch_release(&burst->scratch);
  ndk_free(burst);
}
