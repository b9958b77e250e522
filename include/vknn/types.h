/*
 * vknn public types: the Neural Networks HAL 1.3 data model in C.
 *
 * Every structure here is owned by the caller. The driver reads it during the
 * call it is passed to and keeps no pointer into it afterwards.
 */
#ifndef VKNN_TYPES_H
#define VKNN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest tensor rank the driver accepts. */
#define VKNN_MAX_RANK 8

/* Error status of every call (HAL ErrorStatus). */
typedef enum vknn_status {
  VKNN_STATUS_NONE = 0,
  VKNN_STATUS_DEVICE_UNAVAILABLE = 1,
  VKNN_STATUS_GENERAL_FAILURE = 2,
  VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE = 3,
  VKNN_STATUS_INVALID_ARGUMENT = 4,
  VKNN_STATUS_MISSED_DEADLINE_TRANSIENT = 5,
  VKNN_STATUS_MISSED_DEADLINE_PERSISTENT = 6,
  VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT = 7,
  VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT = 8,
} vknn_status;

/* Operand types (HAL OperandType). Values with a non-zero high 16 bits are
 * extension types: high bits = the model's prefix of the extension, low bits =
 * the type within it. */
typedef enum vknn_operand_type {
  VKNN_OPERAND_FLOAT32 = 0,
  VKNN_OPERAND_INT32 = 1,
  VKNN_OPERAND_UINT32 = 2,
  VKNN_OPERAND_TENSOR_FLOAT32 = 3,
  VKNN_OPERAND_TENSOR_INT32 = 4,
  VKNN_OPERAND_TENSOR_QUANT8_ASYMM = 5,
  VKNN_OPERAND_BOOL = 6,
  VKNN_OPERAND_TENSOR_QUANT16_SYMM = 7,
  VKNN_OPERAND_TENSOR_FLOAT16 = 8,
  VKNN_OPERAND_TENSOR_BOOL8 = 9,
  VKNN_OPERAND_FLOAT16 = 10,
  VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  VKNN_OPERAND_TENSOR_QUANT16_ASYMM = 12,
  VKNN_OPERAND_TENSOR_QUANT8_SYMM = 13,
  VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED = 14,
  VKNN_OPERAND_SUBGRAPH = 15,
  VKNN_OPERAND_OEM = 10000,             /* valid; no operation takes it */
  VKNN_OPERAND_TENSOR_OEM_BYTE = 10001, /* valid; no operation takes it */
} vknn_operand_type;

/* Extension type encoding (HAL ExtensionTypeEncoding). */
#define VKNN_EXTENSION_TYPE_LOW_BITS 16
#define VKNN_EXTENSION_PREFIX(type) ((uint32_t)(type) >> VKNN_EXTENSION_TYPE_LOW_BITS)
#define VKNN_EXTENSION_CODE(type) ((uint32_t)(type) & 0xffffu)
/* A model's type of an extension: its prefix in the model's
 * extensionNameToPrefix table, and the code within the extension. */
#define VKNN_EXTENSION_TYPE(prefix, code) \
  ((int32_t)(((uint32_t)(prefix) << VKNN_EXTENSION_TYPE_LOW_BITS) | ((uint32_t)(code) & 0xffffu)))

/* An operand type an extension defines (HAL Extension::OperandTypeInformation). */
typedef struct vknn_extension_operand_type {
  uint16_t type;      /* the code within the extension */
  bool is_tensor;
  uint32_t byte_size; /* of the scalar, or of one tensor element */
} vknn_extension_operand_type;

/* A vendor extension a device supports (HAL Extension). */
typedef struct vknn_extension {
  const char *name;
  const vknn_extension_operand_type *operand_types;
  uint32_t operand_type_count;
} vknn_extension;

/* Operation types (HAL OperationType): X(name, value). */
#define VKNN_OPERATION_LIST(X)                                                   \
  X(ADD, 0) X(AVERAGE_POOL_2D, 1) X(CONCATENATION, 2) X(CONV_2D, 3)              \
  X(DEPTHWISE_CONV_2D, 4) X(DEPTH_TO_SPACE, 5) X(DEQUANTIZE, 6)                  \
  X(EMBEDDING_LOOKUP, 7) X(FLOOR, 8) X(FULLY_CONNECTED, 9)                       \
  X(HASHTABLE_LOOKUP, 10) X(L2_NORMALIZATION, 11) X(L2_POOL_2D, 12)             \
  X(LOCAL_RESPONSE_NORMALIZATION, 13) X(LOGISTIC, 14) X(LSH_PROJECTION, 15)     \
  X(LSTM, 16) X(MAX_POOL_2D, 17) X(MUL, 18) X(RELU, 19) X(RELU1, 20)             \
  X(RELU6, 21) X(RESHAPE, 22) X(RESIZE_BILINEAR, 23) X(RNN, 24) X(SOFTMAX, 25)   \
  X(SPACE_TO_DEPTH, 26) X(SVDF, 27) X(TANH, 28) X(BATCH_TO_SPACE_ND, 29)         \
  X(DIV, 30) X(MEAN, 31) X(PAD, 32) X(SPACE_TO_BATCH_ND, 33) X(SQUEEZE, 34)      \
  X(STRIDED_SLICE, 35) X(SUB, 36) X(TRANSPOSE, 37) X(ABS, 38) X(ARGMAX, 39)      \
  X(ARGMIN, 40) X(AXIS_ALIGNED_BBOX_TRANSFORM, 41)                               \
  X(BIDIRECTIONAL_SEQUENCE_LSTM, 42) X(BIDIRECTIONAL_SEQUENCE_RNN, 43)           \
  X(BOX_WITH_NMS_LIMIT, 44) X(CAST, 45) X(CHANNEL_SHUFFLE, 46)                   \
  X(DETECTION_POSTPROCESSING, 47) X(EQUAL, 48) X(EXP, 49) X(EXPAND_DIMS, 50)     \
  X(GATHER, 51) X(GENERATE_PROPOSALS, 52) X(GREATER, 53) X(GREATER_EQUAL, 54)    \
  X(GROUPED_CONV_2D, 55) X(HEATMAP_MAX_KEYPOINT, 56)                             \
  X(INSTANCE_NORMALIZATION, 57) X(LESS, 58) X(LESS_EQUAL, 59) X(LOG, 60)         \
  X(LOGICAL_AND, 61) X(LOGICAL_NOT, 62) X(LOGICAL_OR, 63) X(LOG_SOFTMAX, 64)     \
  X(MAXIMUM, 65) X(MINIMUM, 66) X(NEG, 67) X(NOT_EQUAL, 68) X(PAD_V2, 69)        \
  X(POW, 70) X(PRELU, 71) X(QUANTIZE, 72) X(QUANTIZED_16BIT_LSTM, 73)            \
  X(RANDOM_MULTINOMIAL, 74) X(REDUCE_ALL, 75) X(REDUCE_ANY, 76)                  \
  X(REDUCE_MAX, 77) X(REDUCE_MIN, 78) X(REDUCE_PROD, 79) X(REDUCE_SUM, 80)       \
  X(ROI_ALIGN, 81) X(ROI_POOLING, 82) X(RSQRT, 83) X(SELECT, 84) X(SIN, 85)      \
  X(SLICE, 86) X(SPLIT, 87) X(SQRT, 88) X(TILE, 89) X(TOPK_V2, 90)               \
  X(TRANSPOSE_CONV_2D, 91) X(UNIDIRECTIONAL_SEQUENCE_LSTM, 92)                   \
  X(UNIDIRECTIONAL_SEQUENCE_RNN, 93) X(RESIZE_NEAREST_NEIGHBOR, 94)              \
  X(QUANTIZED_LSTM, 95) X(IF, 96) X(WHILE, 97) X(ELU, 98) X(HARD_SWISH, 99)      \
  X(FILL, 100) X(RANK, 101)

typedef enum vknn_operation_type {
#define VKNN_OPERATION_ENUM_(name, value) VKNN_OPERATION_##name = value,
  VKNN_OPERATION_LIST(VKNN_OPERATION_ENUM_)
#undef VKNN_OPERATION_ENUM_
  VKNN_OPERATION_OEM = 10000, /* valid; never supported */
} vknn_operation_type;

/* Fused activation codes (FuseCode). */
typedef enum vknn_fused_activation {
  VKNN_FUSED_NONE = 0,
  VKNN_FUSED_RELU = 1,
  VKNN_FUSED_RELU1 = 2,
  VKNN_FUSED_RELU6 = 3,
} vknn_fused_activation;

/* Where an operand's value comes from (HAL OperandLifeTime). */
typedef enum vknn_operand_lifetime {
  VKNN_LIFETIME_TEMPORARY_VARIABLE = 0,
  VKNN_LIFETIME_SUBGRAPH_INPUT = 1,
  VKNN_LIFETIME_SUBGRAPH_OUTPUT = 2,
  VKNN_LIFETIME_CONSTANT_COPY = 3,
  VKNN_LIFETIME_CONSTANT_REFERENCE = 4,
  VKNN_LIFETIME_NO_VALUE = 5,
  VKNN_LIFETIME_SUBGRAPH = 6,
} vknn_operand_lifetime;

/* A byte range: in operandValues (pool_index ignored) for CONSTANT_COPY, in
 * pools[pool_index] for CONSTANT_REFERENCE and request arguments, and
 * offset = subgraph index for SUBGRAPH operands. */
typedef struct vknn_data_location {
  uint32_t pool_index;
  uint32_t offset;
  uint32_t length;
} vknn_data_location;

typedef enum vknn_extra_params_kind {
  VKNN_EXTRA_PARAMS_NONE = 0,
  VKNN_EXTRA_PARAMS_CHANNEL_QUANT = 1, /* TENSOR_QUANT8_SYMM_PER_CHANNEL */
  VKNN_EXTRA_PARAMS_EXTENSION = 2,     /* opaque bytes of an extension type */
} vknn_extra_params_kind;

typedef struct vknn_operand_extra_params {
  vknn_extra_params_kind kind;
  struct {
    const float *scales;
    uint32_t scale_count;
    uint32_t channel_dim;
  } channel_quant;
  struct {
    const uint8_t *data;
    size_t size;
  } extension;
} vknn_operand_extra_params;

typedef struct vknn_operand {
  int32_t type;                 /* vknn_operand_type or an extension type */
  uint32_t dimension_count;     /* 0: scalar, or a tensor of unknown rank */
  const uint32_t *dimensions;   /* a 0 entry is an unknown dimension */
  uint32_t number_of_consumers; /* operations that read this operand */
  float scale;
  int32_t zero_point;
  vknn_operand_lifetime lifetime;
  vknn_data_location location;
  vknn_operand_extra_params extra_params;
} vknn_operand;

typedef struct vknn_operation {
  int32_t type; /* vknn_operation_type or an extension operation type */
  const uint32_t *inputs;
  uint32_t input_count;
  const uint32_t *outputs;
  uint32_t output_count;
} vknn_operation;

typedef struct vknn_subgraph {
  const vknn_operand *operands;
  uint32_t operand_count;
  const vknn_operation *operations; /* in execution order */
  uint32_t operation_count;
  const uint32_t *input_indexes;
  uint32_t input_count;
  const uint32_t *output_indexes;
  uint32_t output_count;
} vknn_subgraph;

/* Shared memory (hidl_memory). Kinds by name:
 *  "ashmem"  fds[0] is an ashmem region, or a memfd on Linux; size is its size.
 *  "mmap_fd" fds[0] is a mappable file; ints = {protection (PROT_*), offset low
 *            32 bits, offset high 32 bits}; size is the length of the mapping.
 *  "hardware_buffer_blob", "hardware_buffer": an AHardwareBuffer handle. */
typedef struct vknn_memory {
  const char *name;
  const int *fds;
  uint32_t fd_count;
  const int32_t *ints;
  uint32_t int_count;
  uint64_t size;
} vknn_memory;

typedef struct vknn_extension_prefix {
  const char *name;
  uint16_t prefix;
} vknn_extension_prefix;

typedef struct vknn_model {
  vknn_subgraph main;
  const vknn_subgraph *referenced;
  uint32_t referenced_count;
  const uint8_t *operand_values; /* CONSTANT_COPY bytes */
  size_t operand_values_size;
  const vknn_memory *pools; /* CONSTANT_REFERENCE pools */
  uint32_t pool_count;
  bool relax_computation_float32_to_float16;
  const vknn_extension_prefix *extension_name_to_prefix;
  uint32_t extension_name_to_prefix_count;
} vknn_model;

/* One input or output of a request (HAL RequestArgument). */
typedef struct vknn_request_argument {
  bool has_no_value;
  vknn_data_location location;
  uint32_t dimension_count; /* 0: use the model's dimensions */
  const uint32_t *dimensions;
} vknn_request_argument;

typedef enum vknn_request_pool_kind {
  VKNN_REQUEST_POOL_MEMORY = 0, /* shared memory */
  VKNN_REQUEST_POOL_TOKEN = 1,  /* a driver-allocated buffer (memory domains) */
} vknn_request_pool_kind;

typedef struct vknn_request_pool {
  vknn_request_pool_kind kind;
  vknn_memory memory;
  uint32_t token;
} vknn_request_pool;

typedef struct vknn_request {
  const vknn_request_argument *inputs;
  uint32_t input_count;
  const vknn_request_argument *outputs;
  uint32_t output_count;
  const vknn_request_pool *pools;
  uint32_t pool_count;
} vknn_request;

/* The shape of one output after an execution (HAL OutputShape). */
typedef struct vknn_output_shape {
  uint32_t rank;
  uint32_t dimensions[VKNN_MAX_RANK];
  bool is_sufficient;
} vknn_output_shape;

/* Durations in microseconds; UINT64_MAX when not measured. */
typedef struct vknn_timing {
  uint64_t time_on_device;
  uint64_t time_in_driver;
} vknn_timing;

typedef enum vknn_measure_timing {
  VKNN_MEASURE_TIMING_NO = 0,
  VKNN_MEASURE_TIMING_YES = 1,
} vknn_measure_timing;

typedef enum vknn_priority {
  VKNN_PRIORITY_LOW = 0,
  VKNN_PRIORITY_MEDIUM = 1,
  VKNN_PRIORITY_HIGH = 2,
} vknn_priority;

typedef enum vknn_execution_preference {
  VKNN_PREFER_LOW_POWER = 0,
  VKNN_PREFER_FAST_SINGLE_ANSWER = 1,
  VKNN_PREFER_SUSTAINED_SPEED = 2,
} vknn_execution_preference;

/* An optional point in time, nanoseconds of CLOCK_BOOTTIME (HAL OptionalTimePoint). */
typedef struct vknn_deadline {
  bool has_value;
  uint64_t nanoseconds_since_boot;
} vknn_deadline;

/* An optional duration in nanoseconds (HAL OptionalTimeoutDuration). */
typedef struct vknn_duration {
  bool has_value;
  uint64_t nanoseconds;
} vknn_duration;

/* The time a WHILE operation may loop in one execution (HAL
 * LoopTimeoutDurationNs): DEFAULT when an execution gives none; a longer one
 * is taken as MAXIMUM. */
#define VKNN_LOOP_TIMEOUT_DEFAULT_NS 2000000000ull
#define VKNN_LOOP_TIMEOUT_MAXIMUM_NS 15000000000ull

/* Performance relative to the CPU: lower is better (HAL PerformanceInfo). */
typedef struct vknn_performance_info {
  float exec_time;
  float power_usage;
} vknn_performance_info;

typedef struct vknn_operand_performance {
  int32_t type;
  vknn_performance_info info;
} vknn_operand_performance;

#define VKNN_OPERAND_PERFORMANCE_MAX 16

typedef struct vknn_capabilities {
  vknn_performance_info relaxed_float32_to_float16_performance_scalar;
  vknn_performance_info relaxed_float32_to_float16_performance_tensor;
  vknn_operand_performance operand_performance[VKNN_OPERAND_PERFORMANCE_MAX];
  uint32_t operand_performance_count; /* sorted by type */
  vknn_performance_info if_performance;
  vknn_performance_info while_performance;
} vknn_capabilities;

typedef enum vknn_device_type {
  VKNN_DEVICE_TYPE_OTHER = 1,
  VKNN_DEVICE_TYPE_CPU = 2,
  VKNN_DEVICE_TYPE_GPU = 3,
  VKNN_DEVICE_TYPE_ACCELERATOR = 4,
} vknn_device_type;

#ifdef __cplusplus
}
#endif
#endif /* VKNN_TYPES_H */
