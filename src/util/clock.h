/* The clock of HAL deadlines (CLOCK_BOOTTIME) and the deadline check every
 * entry point that takes one starts with. */
#pragma once
#include <stdint.h>

#include "util/log.h"
#include "vknn/types.h"

/* Current CLOCK_BOOTTIME in nanoseconds. */
uint64_t vknn_now_boottime_ns(void);

/* MISSED_DEADLINE_PERSISTENT when an optional deadline has already passed. */
vknn_status vknn_check_deadline(const vknn_logger *log, const char *tag,
                                const vknn_deadline *deadline);

/* MISSED_DEADLINE_TRANSIENT when an optional deadline passed during work
 * that began before it (what: that work, for the log): its result must not
 * be returned (HAL: the work is aborted). */
vknn_status vknn_check_deadline_after(const vknn_logger *log, const char *tag,
                                      const vknn_deadline *deadline, const char *what);
