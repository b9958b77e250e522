#include "util/clock.h"

#include <time.h>

#include "util/fault_injection.h"

uint64_t vknn_now_boottime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + vknn_fault_clock_jump_ns();
}

vknn_status vknn_check_deadline(const vknn_logger *log, const char *tag,
                                const vknn_deadline *deadline) {
  if (deadline == NULL || !deadline->has_value) return VKNN_STATUS_NONE;
  if (vknn_now_boottime_ns() < deadline->nanoseconds_since_boot) return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, tag, "the deadline has already passed");
  return VKNN_STATUS_MISSED_DEADLINE_PERSISTENT;
}

vknn_status vknn_check_deadline_after(const vknn_logger *log, const char *tag,
                                      const vknn_deadline *deadline, const char *what) {
  if (deadline == NULL || !deadline->has_value) return VKNN_STATUS_NONE;
  if (vknn_now_boottime_ns() < deadline->nanoseconds_since_boot) return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, tag, "the deadline passed during %s", what);
  return VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
}
