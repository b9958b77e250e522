/* Watchdog: releases idle cached resources of prepared models, so that what
 * a burst of overlapping executions or a passing memory layout made is not
 * held forever. */
#include "runtime/watchdog.h"

#include <errno.h>
#include <time.h>

#include "util/clock.h"

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
    for (vknn_watched *item = w->watched; item != NULL; item = item->next)
      item->trim(item, now, w->idle_ns);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

vknn_status vknn_watchdog_watch(vknn_watchdog *w, vknn_watched *item) {
  pthread_mutex_lock(&w->lock);
  vknn_status s = vknn_lazy_thread_start(&w->worker, watch, w);
  if (s == VKNN_STATUS_NONE) {
    item->prev = NULL;
    item->next = w->watched;
    if (w->watched != NULL) w->watched->prev = item;
    w->watched = item;
  }
  pthread_mutex_unlock(&w->lock);
  return s;
}

void vknn_watchdog_unwatch(vknn_watchdog *w, vknn_watched *item) {
  pthread_mutex_lock(&w->lock);
  if (item->prev != NULL) item->prev->next = item->next;
  else if (w->watched == item) w->watched = item->next;
  if (item->next != NULL) item->next->prev = item->prev;
  item->next = item->prev = NULL;
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
