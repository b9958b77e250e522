/* Fault injection (fault_injection.c): a switch that fails the Nth host
 * allocation or the Nth Vulkan allocation of the driver, for tests that walk
 * N across a whole prepare and execution. Every host allocation of the
 * driver goes through vknn_malloc / vknn_calloc / vknn_realloc; Vulkan memory,
 * command buffer and descriptor set allocations ask vknn_fault_next first.
 * Queue submissions and fence waits ask too: the one chosen reports
 * VK_ERROR_DEVICE_LOST, as a device that stopped responding does (a wait
 * reports it after the work is really done, so that tests may destroy what
 * it used). Process-wide; off unless armed. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum vknn_fault_kind {
  VKNN_FAULT_HOST_ALLOCATION = 0,
  VKNN_FAULT_VULKAN_ALLOCATION = 1,
  VKNN_FAULT_QUEUE_SUBMIT = 2, /* vkQueueSubmit reports VK_ERROR_DEVICE_LOST */
  VKNN_FAULT_FENCE_WAIT = 3,   /* vkWaitForFences reports VK_ERROR_DEVICE_LOST */
  /* The nth reading of the deadline clock and every later one, until armed
   * again, come an hour late: work that outlasts its deadline, on demand. */
  VKNN_FAULT_CLOCK_JUMP = 4,
  /* The nth sync fence found signaled (vknn_sync_fence_wait) reads as
   * signaled with an error, as the fence of another driver's failed work. */
  VKNN_FAULT_SYNC_FENCE_ERROR = 5,
  VKNN_FAULT_KIND_COUNT
} vknn_fault_kind;

/* Restarts the count of events (allocations, submissions, waits) of this
 * kind; the nth from now (1: the next) fails, once. nth 0: count only. */
void vknn_fault_arm(vknn_fault_kind kind, uint64_t nth);
/* Allocations of this kind since it was last armed. */
uint64_t vknn_fault_count(vknn_fault_kind kind);
/* Counts one allocation; true when it is the one to fail. */
bool vknn_fault_next(vknn_fault_kind kind);

/* What vknn_now_boottime_ns adds: 0, or an hour once VKNN_FAULT_CLOCK_JUMP's
 * reading has come (each call counts one reading while the kind is armed;
 * readings of every thread count). */
uint64_t vknn_fault_clock_jump_ns(void);

void *vknn_malloc(size_t size);
void *vknn_calloc(size_t count, size_t size);
void *vknn_realloc(void *pointer, size_t size);
