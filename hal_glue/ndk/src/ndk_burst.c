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

/* Each burst is only told (its own lock, held briefly): vknn's would wait
 * for the computation it may be running. A slot that finds no room stays
 * mapped until the burst is freed. */
void ndk_burst_forget_slot(int32_t slot) {
  pthread_mutex_lock(&live_lock);
  for (uint32_t i = 0; i < live_count; ++i) {
    ANeuralNetworksBurst *b = live[i];
    pthread_mutex_lock(&b->forget_lock);
    if (ndk_reserve((void **)&b->forget, &b->forget_capacity, b->forget_count + 1, sizeof(int32_t)) == 0)
      b->forget[b->forget_count++] = slot;
    pthread_mutex_unlock(&b->forget_lock);
  }
  pthread_mutex_unlock(&live_lock);
}

void ndk_burst_drop_forgotten(ANeuralNetworksBurst *burst) {
  pthread_mutex_lock(&burst->forget_lock);
  for (uint32_t i = 0; i < burst->forget_count; ++i) vknn_burst_free_memory(burst->vk, burst->forget[i]);
  burst->forget_count = 0;
  pthread_mutex_unlock(&burst->forget_lock);
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
  pthread_mutex_init(&b->forget_lock, NULL);
  vknn_status s = vknn_burst_create(compilation->prepared, &b->vk);
  if (s != VKNN_STATUS_NONE) {
    pthread_mutex_destroy(&b->forget_lock);
    ndk_free(b);
    ndk_log_error(__func__, "vknn cannot create the burst: %s", vknn_status_name(s));
    return ndk_result_of(s);
  }
  if (register_burst(b) != 0) {
    vknn_burst_release(b->vk);
    pthread_mutex_destroy(&b->forget_lock);
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
  pthread_mutex_destroy(&burst->forget_lock);
  ndk_free(burst->forget);
  ndk_scratch_release(&burst->scratch);
  ndk_free(burst);
}
