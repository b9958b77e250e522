/* The Vulkan side of a device: instance, physical device, compute queue,
 * memory types, pipeline cache, shared layouts, validation-layer hook. */
#pragma once
#include <pthread.h>
#include <stdatomic.h>
#include <volk.h>

#include "util/log.h"
#include "vk/vk_layouts.h"
#include "shaders_embedded.h"

typedef struct vknn_pipeline_entry vknn_pipeline_entry;

typedef struct vknn_vk_counters {
  atomic_uint_fast64_t pipelines_created;
  atomic_uint_fast64_t command_buffers_recorded;
  atomic_uint_fast64_t memory_allocations;
  atomic_uint_fast64_t submissions;
  atomic_uint_fast64_t host_imports;         /* request pools imported (zero copy) */
  atomic_uint_fast64_t zero_copy_executions; /* shaders used the caller's memory */
  atomic_uint_fast64_t staged_executions;    /* request data went through staging */
  atomic_uint_fast64_t graph_instances;      /* live per-execution resource sets */
  atomic_uint_fast64_t idle_releases;        /* cached resources the watchdog released */
  atomic_uint_fast64_t deadline_cancellations; /* executions stopped between segments */
  atomic_uint_fast64_t kernel_tunings;        /* layers measured at prepare */
  atomic_uint_fast64_t kernel_tunings_reused; /* layers given a choice measured before */
} vknn_vk_counters;

typedef struct vknn_vk {
  const vknn_logger *log;
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  /* This instance's own: volk's global pointer follows the last instance
   * loaded, which may lack the debug-utils extension. */
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
  VkPhysicalDevice physical_device;
  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory_properties;
  VkDevice device;
  uint32_t queue_family;
  VkQueue queue;
  pthread_mutex_t queue_lock; /* vkQueueSubmit needs external synchronisation */
  uint32_t timestamp_valid_bits; /* 0: the compute queue has no timestamps */
  /* VK_EXT_external_memory_host: host pointers import at this alignment;
   * 0 when the device cannot import. */
  VkDeviceSize host_import_alignment;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties;
  uint32_t shader_features; /* VKNN_SHADER_NEEDS_* the device has enabled */
  uint32_t subgroup_size;   /* VkPhysicalDeviceSubgroupProperties::subgroupSize */
  /* Invocations the device runs at once where it says (0: unknown). */
  uint32_t parallel_invocations;
  /* VK_KHR_shader_integer_dot_product: dot products of four packed 8-bit
   * values that the device runs faster than the plain multiply-adds (its
   * properties' ...4x8BitPacked...Accelerated), by signedness of the two
   * operands: unsigned x unsigned, signed x signed, signed x unsigned. */
  bool dot4x8_accelerated[3];
  /* Quantized matrix kernels use packed dot products (set when the device
   * opens: the device option integer_dot). */
  bool integer_dot;
  /* The device option winograd (set when the device opens). */
  vknn_winograd winograd;
  VkPipelineCache pipeline_cache;
  /* Pipeline creation reads the cache (shared); merging saved data into it
   * and reading its data out need it alone (exclusive). */
  pthread_rwlock_t pipeline_cache_lock;
  VkShaderModule shader_modules[VKNN_SHADER_COUNT];
  vknn_vk_layout_table layouts;
  /* Storage texel buffers of the formats kernels read (R32, R32G32B32A32,
   * R16 and R16G16B16A16 SFLOAT; R8 and R8G8B8A8 UINT and SINT) work on this
   * device, one-channel formats included (shaderStorageImageExtendedFormats);
   * texel_reads: kernels read their hot operands through them (set when the
   * device opens). */
  bool texel_reads_possible;
  bool texel_reads;
  /* Model inputs and outputs live in device-local memory during an
   * execution, copied from and to the request's memory in its submission
   * (the device option io_copies). */
  bool io_copies;
  /* Relaxed models keep float16 tensors (the device option relaxed_float16). */
  bool relaxed_float16;
  /* Float16 kernels compute in float16 (the device option float16_arithmetic). */
  bool float16_arithmetic;
  /* Subgroup shuffles in compute shaders (VkPhysicalDeviceSubgroupProperties). */
  bool subgroup_shuffle;
  /* conv2d_gemm shares filter loads across a subgroup (the device option
   * subgroup_filter, subgroup_filter_option; AUTO: the measured rule, and
   * kernel tuning's choice where the device can share them at all,
   * subgroup_filter_possible). */
  bool subgroup_filter;
  bool subgroup_filter_possible;
  vknn_subgroup_filter subgroup_filter_option;
  /* Float pointwise layers on gemm_shared_64x64 (the device option
   * gemm_shared_tiles: ON only; AUTO leaves it to kernel tuning). */
  bool gemm_shared_tiles;
  /* Global poolings as workgroup reductions (the device option
   * global_pool_reduction: ON only; AUTO leaves it to kernel tuning). */
  bool global_pool_reduction;
  /* Arena tensors in the packed layout where their kernels allow (the
   * device option packed_layout: ON only; AUTO leaves it to kernel tuning). */
  bool packed_layout;
  /* The options as given, for what kernel tuning may choose (AUTO only). */
  vknn_operand_reads operand_reads_option;
  vknn_gemm_shared_tiles gemm_shared_tiles_option;
  vknn_global_pool_reduction global_pool_reduction_option;
  vknn_packed_layout packed_layout_option;
  vknn_winograd winograd_option;
  vknn_float16_arithmetic float16_arithmetic_option;
  vknn_kernel_tuning kernel_tuning;
  pthread_mutex_t pipeline_lock;
  vknn_pipeline_entry *pipelines;
  atomic_uint_fast64_t validation_messages;
  vknn_vk_counters counters;
} vknn_vk;

/* The offset alignment of every tensor the driver binds: a storage buffer's
 * and, where kernels may read through texel buffers, a texel buffer's. */
VkDeviceSize vknn_vk_binding_alignment(const vknn_vk *vk);

/* Whether this kind of device was measured faster reading operands
 * through texel buffers (a table in vk_context.c). */
bool vknn_vk_texel_reads_measured_faster(const vknn_vk *vk);

/* Whether the Winograd convolution's selection rule was measured on this
 * kind of device (a table in vk_context.c). */
bool vknn_vk_winograd_measured(const vknn_vk *vk);

/* Whether this kind of device's shader compiler leaves loops after a fixed
 * count of iterations (a table in vk_context.c: lavapipe). */
bool vknn_vk_has_loop_limiter(const vknn_vk *vk);

/* Whether relaxed models in float16 were measured slower than in float32 on
 * this kind of device (a table in vk_context.c). */
bool vknn_vk_relaxed_float16_measured_slower(const vknn_vk *vk);
bool vknn_vk_float16_arithmetic_measured_slower(const vknn_vk *vk);
bool vknn_vk_subgroup_filter_measured_faster(const vknn_vk *vk);
/* Whether the device's kernel rules (texel reads, Winograd) were measured
 * on its kind: kernel tuning's AUTO leaves such devices to them. */
bool vknn_vk_kernel_rules_measured(const vknn_vk *vk);

/* Brings up Vulkan (see vknn_device_open for the device choice). */
vknn_status vknn_vk_init(vknn_vk *vk, const vknn_logger *log, bool enable_validation);
void vknn_vk_destroy(vknn_vk *vk);

/* Index of a memory type allowed by type_bits with all the required flags,
 * preferring one that also has the preferred flags; UINT32_MAX when none. */
/* Asked before every Vulkan memory, command buffer and descriptor set
 * allocation: VK_ERROR_OUT_OF_DEVICE_MEMORY when fault injection fails this
 * one (fault_injection.h), else VK_SUCCESS. */
VkResult vknn_vk_injected_fault(void);

uint32_t vknn_vk_find_memory_type(const vknn_vk *vk, uint32_t type_bits,
                                  VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred);

/* Submits command buffers, in order, as one batch on the queue (serialised)
 * and waits for the fence, which it leaves unsignaled. DEVICE_UNAVAILABLE
 * when the device is lost: the submission reported VK_ERROR_DEVICE_LOST, or
 * the wait failed. After any failure but an out-of-memory submission the
 * fence may be signaled or pending: not reusable. */
vknn_status vknn_vk_submit_and_wait(vknn_vk *vk, const VkCommandBuffer *cmds, uint32_t count,
                                    VkFence fence);

/* Maps a Vulkan error to a driver status (out of memory -> RESOURCE_EXHAUSTED). */
vknn_status vknn_vk_status(VkResult result);

/* A kernel's pipeline and the layout it binds with. */
typedef struct vknn_vk_pipeline {
  VkPipeline pipeline;
  const vknn_vk_layout *layout; /* the kernel's texel buffers (reflected), binding_count */
} vknn_vk_pipeline;

/* The compute pipeline of one shader with its specialization constants
 * (constant_id i+1 = spec[i]; constant_id 0 = local size) and binding_count
 * bindings. Created once per device and key, at prepare time; owned by the
 * device. GENERAL_FAILURE for a variant that needs a feature the device
 * lacks (see vknn_vk_has_shader). */
vknn_status vknn_vk_get_pipeline(vknn_vk *vk, vknn_shader_id shader, uint32_t binding_count,
                                 uint32_t local_size, const uint32_t *spec, uint32_t spec_count,
                                 vknn_vk_pipeline *out);
/* What identifies a pipeline (vknn_vk_get_pipeline's arguments). */
typedef struct vknn_pipeline_key {
  vknn_shader_id shader;
  uint32_t binding_count;
  uint32_t local_size;
  const uint32_t *spec;
  uint32_t spec_count;
} vknn_pipeline_key;

/* Creates the pipelines of keys the device lacks, several at once (a thread
 * per core): a prepare's compilation, before recording asks for them one by
 * one. Failures are left for vknn_vk_get_pipeline to report. */
void vknn_vk_create_pipelines(vknn_vk *vk, const vknn_pipeline_key *keys, uint32_t count);

/* The data of the device's pipeline cache (vkGetPipelineCacheData), for
 * the compilation cache; *out_data is malloc'd. */
vknn_status vknn_vk_pipeline_cache_data(vknn_vk *vk, uint8_t **out_data, size_t *out_size);

/* Merges pipeline-cache data saved on a device into this device's cache.
 * The data's header must name this device (vendor, device, cache UUID):
 * GENERAL_FAILURE (logged) otherwise, and nothing is merged. */
vknn_status vknn_vk_pipeline_cache_merge(vknn_vk *vk, const uint8_t *data, size_t size);

/* Whether the device has every optional feature a kernel variant needs. */
bool vknn_vk_has_shader(const vknn_vk *vk, vknn_shader_id shader);
/* Destroys every pipeline of the device (at close). */
void vknn_vk_destroy_pipelines(vknn_vk *vk);
