/* The device object shared by the driver's modules. */
#pragma once
#include <stdatomic.h>

#include "buffer_table.h"
#include "executor.h"
#include "fence_waiter.h"
#include "log.h"
#include "vk_context.h"
#include "watchdog.h"

struct vknn_device {
  vknn_logger log;
  vknn_vk vk;
  char version[320];
  bool profile_dispatches;
  vknn_executor executor; /* asynchronous and fenced executions */
  vknn_fence_waiter fence_waiter; /* fenced executions until their fences signal */
  vknn_buffer_table buffers; /* driver-managed buffers by token (buffer.c) */
  vknn_watchdog watchdog; /* releases idle cached resources */
  /* Prepared models are named by a number never reused, not by their
   * address, which a later prepared model may get (buffer roles). */
  atomic_uint_fast64_t last_model_id;
};

/* Current CLOCK_BOOTTIME in nanoseconds (the clock of HAL deadlines). */
uint64_t vknn_now_boottime_ns(void);

/* MISSED_DEADLINE_PERSISTENT when an optional deadline has already passed. */
vknn_status vknn_check_deadline(const vknn_logger *log, const char *tag,
                                const vknn_deadline *deadline);
