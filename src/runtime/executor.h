/* The device's executor: a few worker threads running queued jobs, the
 * highest priority first and in submission order within a priority.
 * Asynchronous and fenced executions run here; with several workers, one
 * execution waiting for its GPU work does not hold up the others. */
#pragma once
#include <pthread.h>
#include <stdbool.h>

#include "util/lazy_thread.h"
#include "vknn/types.h"

#define VKNN_MAX_EXECUTOR_WORKERS 8
#define VKNN_DEFAULT_EXECUTOR_WORKERS 2

typedef struct vknn_job vknn_job;

typedef struct vknn_executor {
  vknn_lazy_thread workers[VKNN_MAX_EXECUTOR_WORKERS];
  uint32_t worker_count;
  bool stopping; /* the workers end once the queue is empty */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  vknn_job *head[VKNN_PRIORITY_HIGH + 1];
  vknn_job *tail[VKNN_PRIORITY_HIGH + 1];
} vknn_executor;

/* worker_count: 1 to VKNN_MAX_EXECUTOR_WORKERS (0: the default). */
void vknn_executor_init(vknn_executor *executor, uint32_t worker_count);
/* Runs every queued job, then stops the threads. */
void vknn_executor_destroy(vknn_executor *executor);
/* Queues run(context); the threads start on first use. */
vknn_status vknn_executor_submit(vknn_executor *executor, vknn_priority priority,
                                 void (*run)(void *context), void *context);
