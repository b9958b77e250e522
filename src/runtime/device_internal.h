/* The device object shared by the driver's modules. */
#pragma once
#include <stdatomic.h>

#include "runtime/buffer_table.h"
#include "runtime/executor.h"
#include "runtime/fence_waiter.h"
#include "runtime/tuning_table.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/trace.h"
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
  /* Set when Vulkan reports the device lost, or a wait for its work fails
   * (device_state.c): executions, prepare and allocation fail from then on;
   * releases and close still work. */
  atomic_bool lost;
  vknn_trace trace; /* VKNN_TRACE: off unless a file was given */
  /* VKNN_GRAPH_DUMP: the folder prepare writes .dot files in; "" when off. */
  char graph_dump_dir[1024];
  vknn_tuning_table tuning; /* kernel variants measured at prepare, by layer shape */
  uint8_t cache_key[VKNN_CACHE_KEY_SIZE]; /* seals compilation caches (runtime/cache_key.h) */
};

/* Marks the device lost; the first mark logs it. */
void vknn_device_mark_lost(vknn_device *device);
/* DEVICE_UNAVAILABLE (HAL: "the driver is offline") once the device is lost. */
vknn_status vknn_device_check_lost(vknn_device *device, const char *tag);
/* vknn_vk_submit_and_wait, marking the device lost when that reports it. */
vknn_status vknn_device_submit_and_wait(vknn_device *device, const VkCommandBuffer *cmds,
                                        uint32_t count, VkFence fence);
