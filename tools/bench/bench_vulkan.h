/* A small Vulkan kit for the peak verb: the driver's own Vulkan bring-up
 * (vknn_vk_init: VKNN_DEVICE, VKNN_VALIDATION and the validation-layer hook
 * are the driver's), plus buffers, pipelines of vknn-bench's own kernels and
 * timed submissions. */
#pragma once
#include <stdbool.h>

#include "vk/vk_context.h"

typedef struct bench_vk {
  vknn_logger log;
  vknn_vk vk;
  bool open;
  VkCommandPool command_pool;
  VkCommandBuffer cmd;
  VkFence fence;
  VkQueryPool queries; /* two timestamps around the recorded work */
  VkDescriptorPool descriptor_pool;
} bench_vk;

typedef struct bench_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
} bench_buffer;

typedef struct bench_pipeline {
  VkShaderModule module;
  VkPipeline pipeline;
  VkPipelineLayout layout; /* the driver's, for this many storage buffers */
  VkDescriptorSet set;
} bench_pipeline;

/* Records work into a command buffer. */
typedef void (*bench_record_fn)(VkCommandBuffer cmd, const void *context);

/* 0, or -1 with a message. */
int bench_vk_open(bench_vk *b);
void bench_vk_close(bench_vk *b);
/* Messages the validation layer reported (0 when it is off). */
uint64_t bench_vk_validation_messages(const bench_vk *b);
bool bench_vk_has_timestamps(const bench_vk *b);

/* A device-local storage buffer (its contents undefined until written). 0, or
 * -1 with a message. */
int bench_vk_buffer(bench_vk *b, VkDeviceSize size, bench_buffer *out);
void bench_vk_buffer_free(bench_vk *b, bench_buffer *buffer);

/* The pipeline of kernel shader (tools/bench/<shader>.comp) with buffers bound
 * at bindings 0.., in order. 0, or -1 with a message. */
int bench_vk_pipeline(bench_vk *b, const char *shader, const bench_buffer *buffers,
                      uint32_t buffer_count, bench_pipeline *out);
void bench_vk_pipeline_free(bench_vk *b, bench_pipeline *pipeline);
/* Binds pipeline and its buffers, and pushes push_size bytes of constants. */
void bench_vk_bind(VkCommandBuffer cmd, const bench_pipeline *pipeline, const void *push,
                   uint32_t push_size);

/* Records the work between two timestamps, submits it, waits, and gives the
 * GPU time between them in ms (the submission's wall time when the queue has
 * no timestamps). 0, or -1 with a message. */
int bench_vk_time(bench_vk *b, bench_record_fn record, const void *context, double *out_ms);
