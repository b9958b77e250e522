#include "runtime/executor.h"
#include "util/fault_injection.h"

#include <stdlib.h>

struct vknn_job {
  vknn_job *next;
  void (*run)(void *context);
  void *context;
};

void vknn_executor_init(vknn_executor *e, uint32_t worker_count) {
  *e = (vknn_executor){0};
  if (worker_count == 0) worker_count = VKNN_DEFAULT_EXECUTOR_WORKERS;
  e->worker_count = worker_count < VKNN_MAX_EXECUTOR_WORKERS ? worker_count : VKNN_MAX_EXECUTOR_WORKERS;
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->wake, NULL);
}

/* The next job, highest priority first; NULL when stopping with none left. */
static vknn_job *next_job(vknn_executor *e) {
  pthread_mutex_lock(&e->lock);
  vknn_job *job = NULL;
  for (;;) {
    for (int p = VKNN_PRIORITY_HIGH; p >= VKNN_PRIORITY_LOW && job == NULL; --p) {
      job = e->head[p];
      if (job != NULL && (e->head[p] = job->next) == NULL) e->tail[p] = NULL;
    }
    if (job != NULL || e->stopping) break;
    pthread_cond_wait(&e->wake, &e->lock);
  }
  pthread_mutex_unlock(&e->lock);
  return job;
}

static void *worker(void *arg) {
  vknn_executor *e = arg;
  vknn_job *job;
  while ((job = next_job(e)) != NULL) {
    job->run(job->context);
    free(job);
  }
  return NULL;
}

vknn_status vknn_executor_submit(vknn_executor *e, vknn_priority priority,
                                 void (*run)(void *context), void *context) {
  vknn_job *job = vknn_malloc(sizeof(*job));
  if (job == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  *job = (vknn_job){NULL, run, context};
  pthread_mutex_lock(&e->lock);
  /* Every worker starts with the first job; one that cannot start leaves
   * the others to run the queue. */
  vknn_status status = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < e->worker_count; ++i)
    if (vknn_lazy_thread_start(&e->workers[i], worker, e) == VKNN_STATUS_NONE) status = VKNN_STATUS_NONE;
  if (status == VKNN_STATUS_NONE) {
    if (e->tail[priority] != NULL) e->tail[priority]->next = job;
    else e->head[priority] = job;
    e->tail[priority] = job;
    pthread_cond_signal(&e->wake);
  }
  pthread_mutex_unlock(&e->lock);
  if (status != VKNN_STATUS_NONE) free(job);
  return status;
}

void vknn_executor_destroy(vknn_executor *e) {
  bool started[VKNN_MAX_EXECUTOR_WORKERS];
  pthread_mutex_lock(&e->lock);
  e->stopping = true;
  for (uint32_t i = 0; i < e->worker_count; ++i) started[i] = vknn_lazy_thread_stop(&e->workers[i]);
  pthread_cond_broadcast(&e->wake);
  pthread_mutex_unlock(&e->lock);
  for (uint32_t i = 0; i < e->worker_count; ++i)
    if (started[i]) pthread_join(e->workers[i].thread, NULL);
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
}
