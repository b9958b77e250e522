/* ANeuralNetworksBurst: a vknn burst of one compilation. Its executions share
 * one pool for pointer arguments, and every memory keeps its slot, so the
 * burst maps each memory once. */
#include "ndk.h"

/* The live bursts: a freed memory leaves every burst that may have mapped
 * it (the NNAPI runtime tracks which did; the list is short). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static ANeuralNetworksBurst **live;
static uint32_t live_count, live_capacity;

static int register_burst(ANeuralNetworksBurst *b) {
  pthread_mutex_lock(&live_lock);
  int r = ndk_reserve((void **)&live, &live_capacity, live_count + 1, sizeof(*live));
  if (r == 0) live[live_count++] = b;
  pthread_mutex_unlock(&live_lock);
  return r;
}

static void unregister_burst(ANeuralNetworksBurst *b) {
  pthread_mutex_lock(&live_lock);
  for (uint32_t i = 0; i < live_count; ++i)
    if (live[i] == b) {
      live[i] = live[--live_count];
      break;
    }
  pthread_mutex_unlock(&live_lock);
}

void ndk_burst_forget_slot(int32_t slot) {
  pthread_mutex_lock(&live_lock);
  for (uint32_t i = 0; i < live_count; ++i) vknn_burst_free_memory(live[i]->vk, slot);
  pthread_mutex_unlock(&live_lock);
}

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
  if (register_burst(b) != 0) {
    vknn_burst_release(b->vk);
    ndk_free(b);
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  *burst = b;
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksBurst_free(ANeuralNetworksBurst *burst) {
  if (burst == NULL) return;
  unregister_burst(burst);
  vknn_burst_release(burst->vk);
  ndk_scratch_release(&burst->scratch);
  ndk_free(burst);
}
