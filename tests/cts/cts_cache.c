/* Mode cache: the case is prepared with compilation-cache files, then
 * prepared from those files on another device instance of the worker (the
 * restore device: opened once per worker, so no in-memory state of the
 * device that saved is shared), and the restored model is run and judged
 * like a sync result. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cts_modes.h"

typedef struct cache_files {
  int fds[2]; /* model cache, data cache */
  vknn_cache_handle handles[2];
  uint8_t token[VKNN_CACHE_TOKEN_SIZE];
  vknn_cache_files files;
} cache_files;

static bool create_files(const cts_case *c, cache_files *f) {
  f->fds[0] = memfd_create("cts-model-cache", 0);
  f->fds[1] = memfd_create("cts-data-cache", 0);
  /* A token per case, as an application derives one per model. */
  memset(f->token, 0, sizeof(f->token));
  for (size_t i = 0; c->name[i] != '\0'; ++i) f->token[i % sizeof(f->token)] ^= (uint8_t)c->name[i];
  for (int i = 0; i < 2; ++i) f->handles[i] = (vknn_cache_handle){.fds = &f->fds[i], .fd_count = 1};
  f->files = (vknn_cache_files){.model_cache = &f->handles[0], .model_cache_count = 1,
                                .data_cache = &f->handles[1], .data_cache_count = 1,
                                .token = f->token};
  return f->fds[0] >= 0 && f->fds[1] >= 0;
}

static void close_files(cache_files *f) {
  for (int i = 0; i < 2; ++i)
    if (f->fds[i] >= 0) close(f->fds[i]);
}

static void fail(cts_judgement *j, const char *reason) {
  j->status = CTS_FAILED;
  snprintf(j->reason, sizeof(j->reason), "%s", reason);
}

static void run_restored(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing;
  cts_case_reset_outputs(c);
  vknn_status s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(),
                                              shapes, CTS_MAX_OUTPUTS, &timing);
  cts_judge(w, c, "execute restored", s, c->output_pool.data, shapes, &timing, j);
}

void cts_run_cache(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  (void)pm;
  cache_files f;
  if (!create_files(c, &f)) {
    close_files(&f);
    fail(j, "cannot create the cache files");
    return;
  }
  vknn_prepared_model *saved = NULL, *restored = NULL;
  vknn_status s = vknn_device_prepare_model_with_cache(w->device, &c->model,
                                                       VKNN_PREFER_FAST_SINGLE_ANSWER,
                                                       VKNN_PRIORITY_MEDIUM, NULL, &f.files, &saved);
  vknn_prepared_model_release(saved);
  if (s != VKNN_STATUS_NONE) {
    cts_judge(w, c, "prepare with cache", s, NULL, NULL, NULL, j);
  } else if (cts_worker_restore_device(w) == NULL) {
    fail(j, "cannot open the restore device");
  } else {
    uint64_t messages = vknn_device_get_validation_message_count(w->restore_device);
    s = vknn_device_prepare_model_from_cache(w->restore_device, NULL, &f.files, &restored);
    if (s != VKNN_STATUS_NONE) cts_judge(w, c, "prepare from cache", s, NULL, NULL, NULL, j);
    else run_restored(w, c, restored, j);
    vknn_prepared_model_release(restored);
    if (vknn_device_get_validation_message_count(w->restore_device) != messages)
      fail(j, "Vulkan validation layer message on the restore device");
  }
  close_files(&f);
}
