/* A worker thread that its owner (executor, watchdog, fence waiter) starts
 * with its first piece of work and stops at close. The owner's lock guards
 * every field. */
#pragma once
#include <pthread.h>
#include <stdbool.h>

#include "vknn/types.h"

typedef struct vknn_lazy_thread {
  pthread_t thread;
  bool started;
  bool stopping; /* the thread's loop ends once set */
} vknn_lazy_thread;

/* Starts the thread unless it runs already; the caller holds its lock. */
static inline vknn_status vknn_lazy_thread_start(vknn_lazy_thread *t, void *(*run)(void *),
                                                 void *arg) {
  if (t->started) return VKNN_STATUS_NONE;
  if (pthread_create(&t->thread, NULL, run, arg) != 0) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  t->started = true;
  return VKNN_STATUS_NONE;
}

/* Marks the thread stopping (the caller holds its lock and then wakes it);
 * true when there is a thread to join once the lock is dropped. */
static inline bool vknn_lazy_thread_stop(vknn_lazy_thread *t) {
  t->stopping = true;
  return t->started;
}
