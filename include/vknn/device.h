/*
 * vknn device: one Vulkan device opened as an NNAPI driver (HAL IDevice).
 */
#ifndef VKNN_DEVICE_H
#define VKNN_DEVICE_H

#include "vknn/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vknn_device vknn_device;
typedef struct vknn_prepared_model vknn_prepared_model;

typedef enum vknn_log_level {
  VKNN_LOG_ERROR = 0,
  VKNN_LOG_WARNING = 1,
  VKNN_LOG_INFO = 2,
  VKNN_LOG_VERBOSE = 3,
} vknn_log_level;

/* Receives every log line of a device. tag is one of "driver", "model",
 * "compilation", "execution", "vulkan", "validation-layer". */
typedef void (*vknn_log_callback)(void *user_data, vknn_log_level level, const char *tag,
                                  const char *message);

/* How the float convolution kernels read their input and filter. */
typedef enum vknn_operand_reads {
  VKNN_OPERAND_READS_AUTO = 0, /* the way measured faster on this kind of device (docs/perf.md) */
  VKNN_OPERAND_READS_STORAGE,  /* storage buffers */
  VKNN_OPERAND_READS_TEXEL,    /* storage texel buffers, where the device can read them */
} vknn_operand_reads;

/* Whether the quantized matrix kernels use packed 8-bit dot products
 * (VK_KHR_shader_integer_dot_product). Results are the same either way. */
typedef enum vknn_integer_dot {
  VKNN_INTEGER_DOT_AUTO = 0, /* where the device reports them accelerated */
  VKNN_INTEGER_DOT_OFF,      /* never */
  VKNN_INTEGER_DOT_ON,       /* wherever the device has them (tests, benchmarks) */
} vknn_integer_dot;

/* Whether model inputs and outputs are copied between the request's memory
 * and device-local memory in the execution's own submission, so that the
 * kernels never read or write host memory (across the bus on a discrete
 * GPU). Results are the same either way. */
typedef enum vknn_io_copies {
  VKNN_IO_COPIES_AUTO = 0, /* on discrete GPUs */
  VKNN_IO_COPIES_OFF,      /* kernels bind the request's memory (or the staging buffer) */
  VKNN_IO_COPIES_ON,       /* on any device (tests, benchmarks) */
} vknn_io_copies;
/* Whether float 3x3 stride-1 convolutions with constant filters run as
 * Winograd convolutions (transforms around batched matrix products:
 * src/ops/conv2d_winograd.c) rather than as implicit matrix products.
 * Results agree within float rounding, not bit for bit. */
typedef enum vknn_winograd {
  VKNN_WINOGRAD_AUTO = 0, /* where measured faster on this kind of device (docs/perf.md); */
                          /* OFF on devices not measured */
  VKNN_WINOGRAD_OFF,      /* never */
  VKNN_WINOGRAD_ON,       /* every such convolution, on the tile size AUTO would pick */
  VKNN_WINOGRAD_F2X3,     /* every such convolution, 2x2 output tiles (tests) */
  VKNN_WINOGRAD_F4X3,     /* every such convolution, 4x4 output tiles (tests) */
} vknn_winograd;

/* Whether relaxed models (relaxComputationFloat32toFloat16) keep their
 * convolutional part in float16 tensors and weights (docs/architecture.md,
 * "Numerics"): half the bytes, results within the relaxed tolerance. */
typedef enum vknn_relaxed_float16 {
  VKNN_RELAXED_FLOAT16_AUTO = 0, /* except where measured slower (docs/perf.md): lavapipe */
  VKNN_RELAXED_FLOAT16_OFF,      /* relaxed models compute in float32 */
  VKNN_RELAXED_FLOAT16_ON,       /* on any device (tests, benchmarks) */
} vknn_relaxed_float16;

/* Whether the float16 convolution, depthwise and matrix-vector kernels
 * compute their products and short sums in float16 (shaderFloat16), adding
 * those sums in float32 (docs/architecture.md, "Numerics"); otherwise they
 * convert float16 elements to float32 and compute in float32. Applies to
 * float16 models and to relaxed models kept in float16. Results agree
 * within the float16 tolerance, not bit for bit. */
typedef enum vknn_float16_arithmetic {
  VKNN_FLOAT16_ARITHMETIC_AUTO = 0, /* where the device has it, except where measured */
                                    /* slower (docs/perf.md): lavapipe */
  VKNN_FLOAT16_ARITHMETIC_OFF,      /* float32 arithmetic */
  VKNN_FLOAT16_ARITHMETIC_ON,       /* wherever the device has it (tests, benchmarks) */
} vknn_float16_arithmetic;

/* Whether prepare measures, for each float convolution of a model (CONV_2D,
 * DEPTHWISE_CONV_2D, GROUPED_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED)
 * whose shapes it knows, the kernel variants that the options above leave
 * to AUTO (operand reads, Winograd tiles, float16 arithmetic), running the
 * layer alone on the device, and keeps the fastest for that layer
 * (docs/architecture.md, "Kernel tuning"). A layer of a shape already
 * measured on the device takes the choice made then. Results agree within
 * the variants' own precision. */
typedef enum vknn_kernel_tuning {
  VKNN_KERNEL_TUNING_AUTO = 0, /* models prepared for sustained speed, on devices */
                               /* without measured kernel rules (all but lavapipe) */
  VKNN_KERNEL_TUNING_OFF,      /* the device's rules only */
  VKNN_KERNEL_TUNING_ON,       /* every model (tests, benchmarks) */
} vknn_kernel_tuning;

/* Whether the float matrix product kernel (conv2d_gemm: CONV_2D, GROUPED_CONV_2D,
 * TRANSPOSE_CONV_2D, FULLY_CONNECTED of several rows, float and quantized)
 * shares its filter loads across 8 lanes of a subgroup: each lane loads one
 * output channel's values of a step and hands them to the others by
 * subgroup shuffles, where a device would otherwise load every lane's copy
 * (docs/perf.md, "Filter loads shared across a subgroup"). Needs shuffles in
 * compute shaders and a subgroup of a multiple of 8 invocations. The same
 * values, added in the same order: the same results. */
typedef enum vknn_subgroup_filter {
  VKNN_SUBGROUP_FILTER_AUTO = 0, /* where measured faster (docs/perf.md): lavapipe; and kernel tuning's choice */
  VKNN_SUBGROUP_FILTER_OFF,      /* every lane loads the filter values itself */
  VKNN_SUBGROUP_FILTER_ON,       /* wherever the device can (tests, benchmarks) */
} vknn_subgroup_filter;

/* Whether float pointwise convolutions (CONV_2D, TRANSPOSE_CONV_2D) and
 * FULLY_CONNECTED of several rows run on gemm_shared_64x64, whose
 * workgroups stage 64 x 64 tiles of their operands in shared memory, instead
 * of conv2d_gemm's register blocks that read their operands directly. No
 * device is known to run it faster by rule: AUTO leaves it to kernel tuning,
 * which measures both per layer (docs/architecture.md, "Shared-memory
 * tiles"). Results agree within float32 rounding, not bit for bit (the
 * sums run in another order). */
typedef enum vknn_gemm_shared_tiles {
  VKNN_GEMM_SHARED_TILES_AUTO = 0, /* where kernel tuning measures them faster */
  VKNN_GEMM_SHARED_TILES_OFF,      /* never */
  VKNN_GEMM_SHARED_TILES_ON,       /* every such layer (tests, benchmarks) */
} vknn_gemm_shared_tiles;

/* Whether AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D whose window covers
 * the whole image (a global pooling) run as workgroup reductions (the lanes
 * of a workgroup share each image's pixels, on the reduction kernel of MEAN
 * and the REDUCE_ operations) instead of one invocation walking every pixel
 * of its output. lavapipe runs them slower (docs/perf.md, "Global pooling
 * as a reduction"): AUTO leaves it to kernel tuning, which measures both
 * per float layer. Float results agree within float rounding, not bit for
 * bit (the sums run in another order); 8-bit results are the same. */
typedef enum vknn_global_pool_reduction {
  VKNN_GLOBAL_POOL_REDUCTION_AUTO = 0, /* where kernel tuning measures it faster */
  VKNN_GLOBAL_POOL_REDUCTION_OFF,      /* never */
  VKNN_GLOBAL_POOL_REDUCTION_ON,       /* every global pooling, 8-bit ones too (tests, benchmarks) */
} vknn_global_pool_reduction;

/* Whether intermediate tensors of rank 4 (channels a multiple of 4) are
 * stored as planes of 4 channels, [batch][channel / 4][row][column][4],
 * where every kernel that reads or writes one can do so (the tiled
 * convolution and depthwise kernels), as ncnn and MNN store theirs: a
 * group of lanes then loads neighbouring vec4s of one plane. Model inputs,
 * outputs and constants stay as NNAPI lays them out. No device is known to
 * run faster with it by rule (lavapipe: within its noise; docs/perf.md,
 * "Packed arena layout"): AUTO leaves it to kernel tuning, which times the
 * whole model both ways. Results are the same bits either way. */
typedef enum vknn_packed_layout {
  VKNN_PACKED_LAYOUT_AUTO = 0, /* where kernel tuning measures the model faster with it */
  VKNN_PACKED_LAYOUT_OFF,      /* never */
  VKNN_PACKED_LAYOUT_ON,       /* wherever the kernels allow (tests, benchmarks) */
} vknn_packed_layout;

typedef struct vknn_device_options {
  /* Log sink; NULL logs to stderr (errors always, verbose lines for the tags
   * named in the VKNN_LOG environment variable, in the syntax of Android's
   * debug.nn.vlog: "1" or "all", or tags separated by spaces, commas or
   * colons; lines of other tags are not even formatted). */
  vknn_log_callback log_callback;
  void *log_user_data;
  /* Enable VK_LAYER_KHRONOS_validation; its messages are logged with the tag
   * "validation-layer" and counted (vknn_device_get_validation_message_count).
   * Also enabled by the environment variable VKNN_VALIDATION=1. */
  bool enable_validation;
  /* Record a GPU timestamp after every dispatch, for per-dispatch times
   * (vknn_prepared_model_get_dispatch_times). For benchmarks. */
  bool profile_dispatches;
  /* Cached resources that prepared models have not used for this long are
   * released by the device's watchdog: graph instances made for overlapping
   * executions, zero-copy imports of request memory, recordings for input
   * shapes no longer seen. 0: 5000 ms. */
  uint32_t idle_release_ms;
  /* Threads that run asynchronous and fenced executions, so that one waiting
   * for its GPU work does not hold up the others. 0: 2; at most 8. Jobs
   * start highest priority first; with several threads they may finish in
   * another order. */
  uint32_t executor_threads;
  /* Results are the same either way; for benchmarks and tests of both. */
  vknn_operand_reads operand_reads;
  vknn_integer_dot integer_dot;
  vknn_io_copies io_copies;
  vknn_winograd winograd;
  vknn_relaxed_float16 relaxed_float16;
  vknn_float16_arithmetic float16_arithmetic;
  vknn_kernel_tuning kernel_tuning;
  vknn_subgroup_filter subgroup_filter;
  vknn_gemm_shared_tiles gemm_shared_tiles;
  vknn_global_pool_reduction global_pool_reduction;
  vknn_packed_layout packed_layout;
  /* Chrome trace-event JSON written here (prepare and execution phases,
   * each dispatch's GPU span); NULL: the environment variable VKNN_TRACE,
   * if set. Tracing records a timestamp after every dispatch. */
  const char *trace_path;
  /* The key that seals compilation caches (VKNN_CACHE_KEY_SIZE bytes; the
   * model cache carries an HMAC-SHA256 under it): a cache restores only on
   * a device with the key that wrote it, so a client that can rewrite its
   * cache files cannot forge one (HAL: the model cache is security
   * sensitive). A service keeps the key where only the driver reads it.
   * NULL: the key in the file cache_key_file names, else the one the
   * environment variable VKNN_CACHE_KEY_FILE names (made with random bytes,
   * mode 0600, if absent; one another user owns, or others may read or
   * write, is not taken), else one drawn at random once per process, so
   * that caches restore only in the process that wrote them. */
  const uint8_t *cache_key;
  const char *cache_key_file;
} vknn_device_options;

/* Bytes of the device option cache_key. */
#define VKNN_CACHE_KEY_SIZE 32

/* Counts of Vulkan work the device has done since it was opened. Executions
 * must leave the first two unchanged: they only submit. */
typedef struct vknn_device_statistics {
  uint64_t command_buffers_recorded;
  uint64_t pipelines_created;
  uint64_t memory_allocations;
  uint64_t submissions;
  /* Request memory: pools imported as Vulkan memory (VK_EXT_external_memory_host),
   * executions whose shaders used the caller's memory directly, executions
   * that copied through the driver's staging buffer. */
  uint64_t host_imports;
  uint64_t zero_copy_executions;
  uint64_t staged_executions;
  /* Live sets of per-execution resources (one per recorded graph, more
   * while executions of one prepared model overlap). */
  uint64_t graph_instances;
  /* Cached resources released by the watchdog after an idle period. */
  uint64_t idle_releases;
  /* Executions stopped between two command-buffer segments because their
   * deadline passed (MISSED_DEADLINE_TRANSIENT). */
  uint64_t deadline_cancellations;
  /* Kernel tuning (the option kernel_tuning): layers whose variants prepare
   * measured, and layers that took a choice measured before for their shape. */
  uint64_t kernel_tunings;
  uint64_t kernel_tunings_reused;
} vknn_device_statistics;

vknn_status vknn_device_get_statistics(const vknn_device *device,
                                       vknn_device_statistics *out_statistics);

/* Opens the Vulkan device named by the environment variable VKNN_DEVICE (an
 * index among the physical devices, or a substring of the device name); by
 * default the first GPU, else the first device (lavapipe on a desktop without
 * a GPU). options may be NULL. Returns DEVICE_UNAVAILABLE when no Vulkan device
 * with a compute queue and the features the driver needs exists. */
vknn_status vknn_device_open(const vknn_device_options *options, vknn_device **out_device);

/* Releases the device. Every prepared model of the device must be released first. */
void vknn_device_close(vknn_device *device);

/* The performance figures of the device (HAL getCapabilities_1_3). */
vknn_status vknn_device_get_capabilities(const vknn_device *device,
                                         vknn_capabilities *out_capabilities);

/* The kind of device (HAL getType), from the Vulkan device's type: CPU for
 * a CPU implementation such as lavapipe, GPU for an integrated, discrete or
 * virtual GPU, OTHER otherwise. */
vknn_status vknn_device_get_type(const vknn_device *device, vknn_device_type *out_type);

/* "vknn-<version> (<Vulkan device name>)" (HAL getVersionString). The string
 * lives as long as the device. */
vknn_status vknn_device_get_version_string(const vknn_device *device, const char **out_version);

/* The physical device's name, for tools. Lives as long as the device. */
vknn_status vknn_device_get_name(const vknn_device *device, const char **out_name);

/* Number of model-cache and data-cache files prepare wants (HAL
 * getNumberOfCacheFilesNeeded): 1 and 1. */
vknn_status vknn_device_get_number_of_cache_files_needed(const vknn_device *device,
                                                         uint32_t *out_model_cache,
                                                         uint32_t *out_data_cache);

/* The vendor extensions the device supports, with their operand types (HAL
 * getSupportedExtensions): com.example.fibonacci (vknn/extensions/fibonacci.h)
 * where the device has 64-bit integer and float arithmetic, and
 * org.vknn.transformer (vknn/extensions/transformer.h). The array lives as
 * long as the device. */
vknn_status vknn_device_get_supported_extensions(const vknn_device *device,
                                                 const vknn_extension **out_extensions,
                                                 uint32_t *out_count);

/* Bytes of a compilation-cache token (HAL Constant::BYTE_SIZE_OF_CACHE_TOKEN). */
#define VKNN_CACHE_TOKEN_SIZE 32

/* One cache file (HAL: a handle, which must hold exactly one file descriptor,
 * opened for reading and writing). */
typedef struct vknn_cache_handle {
  const int *fds;
  uint32_t fd_count;
} vknn_cache_handle;

/* The compilation cache of a prepare (HAL modelCache, dataCache, token). The
 * model cache holds what must not be tampered with (the token, the device's
 * identity, the Vulkan pipeline cache, a seal over both files under the
 * device's cache key); the data cache holds the model itself. Counts must be those of
 * vknn_device_get_number_of_cache_files_needed (or both 0: no caching). */
typedef struct vknn_cache_files {
  const vknn_cache_handle *model_cache;
  uint32_t model_cache_count;
  const vknn_cache_handle *data_cache;
  uint32_t data_cache_count;
  const uint8_t *token; /* VKNN_CACHE_TOKEN_SIZE bytes */
} vknn_cache_files;

/* INVALID_ARGUMENT (logged) unless the model is valid: the HAL's model
 * rules and the signature of every operation the driver implements (what
 * the support query and prepare check first). For an NNAPI front end that
 * validates a model when it is finished, without a support query. */
vknn_status vknn_device_validate_model(vknn_device *device, const vknn_model *model);

/* One boolean per operation of model->main (HAL getSupportedOperations_1_3):
 * true when the driver runs that operation on the GPU with those exact operand
 * types, shapes and parameters, within the device's limits (each operation
 * with known shapes is lowered to its dispatches for the answer; OEM_OPERATION
 * is never supported). supported_count must equal the operation count of the
 * main subgraph. INVALID_ARGUMENT for an invalid model; DEVICE_UNAVAILABLE
 * once the device is lost; RESOURCE_EXHAUSTED_* when memory runs out while
 * answering. IF and WHILE nested more than 32 deep are unsupported. */
vknn_status vknn_device_get_supported_operations(vknn_device *device, const vknn_model *model,
                                                 bool *out_supported, uint32_t supported_count);

/* Validates and compiles a model (HAL prepareModel_1_3): lowers every
 * operation to compute dispatches, plans memory, uploads constants and records
 * the command buffers. The model may be released once this returns. deadline
 * may be NULL (none). The preference is kept with the prepared model.
 * INVALID_ARGUMENT for an invalid model, preference or priority;
 * GENERAL_FAILURE when an operation is not supported; DEVICE_UNAVAILABLE once
 * the device is lost. */
vknn_status vknn_device_prepare_model(vknn_device *device, const vknn_model *model,
                                      vknn_execution_preference preference,
                                      vknn_priority priority, const vknn_deadline *deadline,
                                      vknn_prepared_model **out_prepared_model);

/* vknn_device_prepare_model, then saves the prepared model into the cache
 * files (HAL prepareModel_1_3 with cache handles): each file truncated and
 * written from offset 0. Saving never changes the result of the prepare: a
 * cache that cannot be written (wrong counts, a handle without exactly one
 * descriptor, a file not open for reading and writing, a failed write) is
 * logged and left unwritten or invalid. cache may be NULL or empty: no
 * caching. */
vknn_status vknn_device_prepare_model_with_cache(vknn_device *device, const vknn_model *model,
                                                 vknn_execution_preference preference,
                                                 vknn_priority priority,
                                                 const vknn_deadline *deadline,
                                                 const vknn_cache_files *cache,
                                                 vknn_prepared_model **out_prepared_model);

/* A prepared model from cache files written by
 * vknn_device_prepare_model_with_cache (HAL prepareModelFromCache_1_3). Each
 * file is read once into memory and checked there: INVALID_ARGUMENT for
 * wrong file counts or a handle without exactly one descriptor;
 * GENERAL_FAILURE for a file that cannot be read (write-only), a token other
 * than the one saved, a cache written for another device, Vulkan driver,
 * vknn version or cache key, or any byte of the model cache (or the data
 * cache it seals) changed, added or missing. The model file is checked
 * before the data file is read. The model read back is validated
 * like a new one and compiled again; the pipelines come from the saved
 * Vulkan pipeline cache where the Vulkan driver keeps them. The prepared
 * model gets the preference and priority it was saved with. */
vknn_status vknn_device_prepare_model_from_cache(vknn_device *device,
                                                 const vknn_deadline *deadline,
                                                 const vknn_cache_files *cache,
                                                 vknn_prepared_model **out_prepared_model);

/* How many messages the Vulkan validation layer has reported on this device.
 * Tests require it to stay 0. */
uint64_t vknn_device_get_validation_message_count(const vknn_device *device);

/* Human-readable name of a status, for logs and tools. */
const char *vknn_status_name(vknn_status status);

/* Name of an operation type ("ADD"); "an extension operation" for any type
 * with an extension prefix; NULL when the type is unknown. */
const char *vknn_operation_type_name(int32_t type);

/* Name of an operand type ("TENSOR_FLOAT32"); "an extension type" for any
 * type with an extension prefix; NULL when the type is unknown. */
const char *vknn_operand_type_name(int32_t type);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_DEVICE_H */
