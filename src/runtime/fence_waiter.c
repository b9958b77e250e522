#include "runtime/fence_waiter.h"

#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/fault_injection.h"
#include "vknn/prepared_model.h"

/* Sentinel of check(): still waiting. */
#define PENDING ((vknn_status)-1)

vknn_status vknn_fence_waiter_init(vknn_fence_waiter *w) {
  *w = (vknn_fence_waiter){.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
  if (w->wake_fd < 0) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  pthread_mutex_init(&w->lock, NULL);
  return VKNN_STATUS_NONE;
}

static void wake(vknn_fence_waiter *w) {
  uint64_t one = 1;
  ssize_t written = write(w->wake_fd, &one, sizeof(one));
  (void)written; /* a full counter wakes the thread as well */
}

/* Advances past the fences that have signaled. */
static vknn_status check(vknn_fence_wait *wait, uint64_t now_ns) {
  while (wait->signaled < wait->count) {
    vknn_sync_fence_state state = vknn_sync_fence_wait(wait->fds[wait->signaled], 0);
    if (state == VKNN_SYNC_FENCE_ERROR) return VKNN_STATUS_GENERAL_FAILURE;
    if (state == VKNN_SYNC_FENCE_ACTIVE) break;
    wait->signaled++;
  }
  if (wait->signaled == wait->count) return VKNN_STATUS_NONE;
  if (wait->deadline != NULL && wait->deadline->has_value &&
      now_ns >= wait->deadline->nanoseconds_since_boot)
    return VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
  return PENDING;
}

/* Milliseconds until the nearest deadline of a pending wait; -1: none. */
static int poll_timeout_ms(const vknn_fence_waiter *w, uint64_t now_ns) {
  uint64_t nearest = UINT64_MAX;
  for (const vknn_fence_wait *wait = w->waits; wait != NULL; wait = wait->next)
    if (wait->deadline != NULL && wait->deadline->has_value &&
        wait->deadline->nanoseconds_since_boot < nearest)
      nearest = wait->deadline->nanoseconds_since_boot;
  if (nearest == UINT64_MAX) return -1;
  uint64_t ms = nearest > now_ns ? (nearest - now_ns) / 1000000 + 1 : 0;
  return ms > 60000 ? 60000 : (int)ms;
}

/* Hands on every wait that is over; the caller holds the lock, which is
 * dropped around each ready() call. */
static void finish_ready(vknn_fence_waiter *w) {
  uint64_t now = vknn_now_boottime_ns();
  for (vknn_fence_wait **link = &w->waits; *link != NULL;) {
    vknn_fence_wait *wait = *link;
    vknn_status s = check(wait, now);
    if (s == PENDING) {
      link = &wait->next;
      continue;
    }
    *link = wait->next;
    pthread_mutex_unlock(&w->lock);
    wait->ready(wait->context, s);
    pthread_mutex_lock(&w->lock);
    link = &w->waits; /* the list may have changed meanwhile */
  }
}

/* The descriptors to poll: the wake-up eventfd, then each wait's next fence.
 * Without memory for the array, only the eventfd, with a short timeout. */
static uint32_t gather(vknn_fence_waiter *w, struct pollfd **fds, uint32_t *capacity) {
  uint32_t n = 1;
  for (const vknn_fence_wait *wait = w->waits; wait != NULL; wait = wait->next) n++;
  if (n > *capacity) {
    struct pollfd *grown = vknn_realloc(*fds, n * sizeof(**fds));
    if (grown == NULL) return 0;
    *fds = grown;
    *capacity = n;
  }
  (*fds)[0] = (struct pollfd){.fd = w->wake_fd, .events = POLLIN};
  uint32_t i = 1;
  for (const vknn_fence_wait *wait = w->waits; wait != NULL; wait = wait->next)
    (*fds)[i++] = (struct pollfd){.fd = wait->fds[wait->signaled], .events = POLLIN};
  return n;
}

static void *wait_loop(void *arg) {
  vknn_fence_waiter *w = arg;
  struct pollfd *fds = NULL, fallback = {.fd = w->wake_fd, .events = POLLIN};
  uint32_t capacity = 0;
  pthread_mutex_lock(&w->lock);
  while (!w->worker.stopping) {
    finish_ready(w);
    if (w->worker.stopping) break;
    uint32_t n = gather(w, &fds, &capacity);
    int timeout = n == 0 ? 10 : poll_timeout_ms(w, vknn_now_boottime_ns());
    pthread_mutex_unlock(&w->lock);
    poll(n == 0 ? &fallback : fds, n == 0 ? 1 : n, timeout);
    uint64_t drained;
    ssize_t got = read(w->wake_fd, &drained, sizeof(drained));
    (void)got;
    pthread_mutex_lock(&w->lock);
  }
  pthread_mutex_unlock(&w->lock);
  free(fds);
  return NULL;
}

vknn_status vknn_fence_waiter_add(vknn_fence_waiter *w, vknn_fence_wait *wait) {
  wait->signaled = 0;
  vknn_status s = check(wait, vknn_now_boottime_ns());
  if (s != PENDING) {
    wait->ready(wait->context, s);
    return VKNN_STATUS_NONE;
  }
  pthread_mutex_lock(&w->lock);
  s = vknn_lazy_thread_start(&w->worker, wait_loop, w);
  if (s == VKNN_STATUS_NONE) {
    wait->next = w->waits;
    w->waits = wait;
    wake(w);
  }
  pthread_mutex_unlock(&w->lock);
  return s;
}

void vknn_fence_waiter_destroy(vknn_fence_waiter *w) {
  if (w->wake_fd < 0) return;
  pthread_mutex_lock(&w->lock);
  bool started = vknn_lazy_thread_stop(&w->worker);
  wake(w);
  pthread_mutex_unlock(&w->lock);
  if (started) pthread_join(w->worker.thread, NULL);
  pthread_mutex_destroy(&w->lock);
  close(w->wake_fd);
  w->wake_fd = -1;
}
