/* Watchdog: releases idle cached resources of prepared models, so that what
 * a burst of overlapping executions or a passing memory layout made is not
 * held forever. */
#include "watchdog.h"

#include <errno.h>
#include <time.h>

#include "prepared_model_internal.h"

void vknn_watchdog_init(vknn_watchdog *w, uint64_t idle_ns) {
  *w = (vknn_watchdog){.idle_ns = idle_ns};
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->wake, &attr);
  pthread_condattr_destroy(&attr);
}

static struct timespec after(uint64_t ns) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  uint64_t total = (uint64_t)t.tv_nsec + ns % 1000000000ull;
  t.tv_sec += (time_t)(ns / 1000000000ull + total / 1000000000ull);
  t.tv_nsec = (long)(total % 1000000000ull);
  return t;
}

static void *watch(void *arg) {
  vknn_watchdog *w = arg;
  pthread_mutex_lock(&w->lock);
  while (!w->worker.stopping) {
    struct timespec until = after(w->idle_ns / 2);
    int r = 0;
    while (!w->worker.stopping && r != ETIMEDOUT)
      r = pthread_cond_timedwait(&w->wake, &w->lock, &until);
    if (w->worker.stopping) break;
    uint64_t now = vknn_now_boottime_ns();
    for (vknn_prepared_model *pm = w->models; pm != NULL; pm = pm->watch_next)
      vknn_prepared_model_trim(pm, now, w->idle_ns);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

vknn_status vknn_watchdog_watch(vknn_watchdog *w, vknn_prepared_model *pm) {
  pthread_mutex_lock(&w->lock);
  vknn_status s = vknn_lazy_thread_start(&w->worker, watch, w);
  if (s == VKNN_STATUS_NONE) {
    pm->watch_prev = NULL;
    pm->watch_next = w->models;
    if (w->models != NULL) w->models->watch_prev = pm;
    w->models = pm;
  }
  pthread_mutex_unlock(&w->lock);
  return s;
}

void vknn_watchdog_unwatch(vknn_watchdog *w, vknn_prepared_model *pm) {
  pthread_mutex_lock(&w->lock);
  if (pm->watch_prev != NULL) pm->watch_prev->watch_next = pm->watch_next;
  else if (w->models == pm) w->models = pm->watch_next;
  if (pm->watch_next != NULL) pm->watch_next->watch_prev = pm->watch_prev;
  pm->watch_next = pm->watch_prev = NULL;
  pthread_mutex_unlock(&w->lock);
}

void vknn_watchdog_destroy(vknn_watchdog *w) {
  pthread_mutex_lock(&w->lock);
  bool started = vknn_lazy_thread_stop(&w->worker);
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->lock);
  if (started) pthread_join(w->worker.thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->lock);
}
