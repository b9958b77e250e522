/* Waiting for the sync fences of fenced executions (fence_waiter.c), off the
 * executor: one thread polls every pending execution's fences and hands an
 * execution on once all of its fences have signaled, its deadline has
 * passed, or a fence failed. An execution waiting for a fence thus never
 * holds up others, whatever their priorities (a HIGH execution waiting for
 * the fence of a LOW one included). */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/lazy_thread.h"
#include "vknn/types.h"

/* Called once per wait, from the waiter's thread or from the adding one:
 * status NONE (every fence signaled), MISSED_DEADLINE_TRANSIENT or
 * GENERAL_FAILURE (a fence in error). */
typedef void (*vknn_fences_ready_fn)(void *context, vknn_status status);

/* Owned by the caller until ready is called. */
typedef struct vknn_fence_wait {
  const int *fds;
  uint32_t count;
  uint32_t signaled; /* fds[0 .. signaled) have signaled */
  const vknn_deadline *deadline; /* may be NULL */
  vknn_fences_ready_fn ready;
  void *context;
  struct vknn_fence_wait *next;
} vknn_fence_wait;

typedef struct vknn_fence_waiter {
  pthread_mutex_t lock;
  vknn_lazy_thread worker;
  int wake_fd; /* eventfd: a new wait or stopping */
  vknn_fence_wait *waits;
} vknn_fence_waiter;

vknn_status vknn_fence_waiter_init(vknn_fence_waiter *w);
/* Stops the thread; no wait may be pending. */
void vknn_fence_waiter_destroy(vknn_fence_waiter *w);

/* Calls ready at once when the fences have signaled already; else queues
 * the wait (starting the thread the first time). */
vknn_status vknn_fence_waiter_add(vknn_fence_waiter *w, vknn_fence_wait *wait);
