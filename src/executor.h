/* The device's executor: one worker thread running queued jobs, higher
 * priority first and in submission order within a priority. Asynchronous
 * and fenced executions run here. */
#pragma once
#include <pthread.h>
#include <stdbool.h>

#include "lazy_thread.h"
#include "vknn/types.h"

typedef struct vknn_job vknn_job;

typedef struct vknn_executor {
  vknn_lazy_thread worker;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  vknn_job *head[VKNN_PRIORITY_HIGH + 1];
  vknn_job *tail[VKNN_PRIORITY_HIGH + 1];
} vknn_executor;

void vknn_executor_init(vknn_executor *executor);
/* Runs every queued job, then stops the thread. */
void vknn_executor_destroy(vknn_executor *executor);
/* Queues run(context); the thread starts on first use. */
vknn_status vknn_executor_submit(vknn_executor *executor, vknn_priority priority,
                                 void (*run)(void *context), void *context);
