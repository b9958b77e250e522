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
