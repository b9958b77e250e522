/* The device object shared by the driver's modules. */
#pragma once
#include <stdatomic.h>

#include "runtime/buffer_table.h"
#include "runtime/executor.h"
#include "runtime/fence_waiter.h"
#include "util/clock.h"
#include "util/log.h"
#include "vk/vk_context.h"
#include "runtime/watchdog.h"

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
