/* Sync fences of other drivers and the completion fences of this one
 * (vknn_sync_fence_wait, include/vknn/prepared_model.h). */
#include <errno.h>
#include <linux/sync_file.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <time.h>

#include "util/fault_injection.h"
#include "vknn/prepared_model.h"

/* A sync_file reads as signaled when its fence signaled with an error too:
 * only its status tells the two apart. A descriptor that is no sync_file
 * (an eventfd) refuses the request and has no error state. */
static bool signaled_with_error(int fd) {
  if (vknn_fault_next(VKNN_FAULT_SYNC_FENCE_ERROR)) return true;
  struct sync_file_info info = {0};
  if (ioctl(fd, SYNC_IOC_FILE_INFO, &info) != 0) return false;
  return info.status < 0;
}

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Milliseconds left of a wait of timeout_ms begun at start_ns (a poll
 * interrupted by a signal goes on with the rest). */
static int remaining_ms(int timeout_ms, uint64_t start_ns) {
  if (timeout_ms <= 0) return timeout_ms;
  uint64_t spent = (monotonic_ns() - start_ns) / 1000000;
  return spent >= (uint64_t)timeout_ms ? 0 : timeout_ms - (int)spent;
}

vknn_sync_fence_state vknn_sync_fence_wait(int fd, int timeout_ms) {
  uint64_t start_ns = monotonic_ns();
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int r;
  while ((r = poll(&p, 1, remaining_ms(timeout_ms, start_ns))) < 0 && errno == EINTR) continue;
  if (r < 0 || (r > 0 && (p.revents & (POLLERR | POLLNVAL)))) return VKNN_SYNC_FENCE_ERROR;
  if (r == 0) return VKNN_SYNC_FENCE_ACTIVE;
  /* A hang-up without data: a pipe whose writer left without signaling,
   * as this driver's completion fence of a failed execution does. */
  if (!(p.revents & POLLIN)) return VKNN_SYNC_FENCE_ERROR;
  return signaled_with_error(fd) ? VKNN_SYNC_FENCE_ERROR : VKNN_SYNC_FENCE_SIGNALED;
}
