/* The compiler's view of one subgraph: a tensor per operand with its shape
 * after inference, its constant bytes, and where it lives once planned. */
#pragma once
#include "util/log.h"
#include "memory/memory_pool.h"

typedef enum vknn_region {
  VKNN_REGION_NONE = 0,  /* not needed on the GPU (scalars, unused values) */
  VKNN_REGION_CONSTANT,  /* device-local buffer filled once at prepare */
  VKNN_REGION_ARENA,     /* device-local intermediate tensors, shared by lifetime */
  VKNN_REGION_INPUT,     /* the request's inputs */
  VKNN_REGION_OUTPUT,    /* the request's outputs */
  VKNN_REGION_POOL,      /* a constant read in place from its model pool, imported */
  VKNN_REGION_COUNT,
} vknn_region;

typedef struct vknn_tensor {
  int32_t type;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  bool shape_known; /* rank known and every dimension > 0 */
  float scale;
  int32_t zero_point;
  vknn_operand_lifetime lifetime;
  const uint8_t *constant_data; /* constants: their bytes (valid while compiling) */
  uint32_t io_index;            /* inputs and outputs: position in the model's list */
  /* Planning. */
  vknn_region region;
  uint32_t pool_index; /* VKNN_REGION_POOL: the model pool */
  uint64_t offset;     /* in the region; VKNN_REGION_POOL: from the pool mapping's first page */
  uint64_t byte_size;
  int32_t first_dispatch; /* -1 when no dispatch touches it */
  int32_t last_dispatch;
  /* A view of another tensor's bytes (a reshape that moves nothing): placed
   * where that tensor is; UINT32_MAX when the tensor has bytes of its own. */
  uint32_t alias_of;
  /* Rows the data decide (docs/architecture.md, "Outputs whose size the data
   * decide"): 0 for none; else the word of the graph instance's status
   * buffer where the producing kernel writes the real first dimension, dims[0]
   * being the most it can be; declared_rows: the model's first dimension (0:
   * unknown), which the real one must then equal; rows_per_count: rows per
   * counted item (FULLY_CONNECTED may split one into several). */
  uint32_t count_slot;
  uint32_t declared_rows;
  uint32_t rows_per_count;
} vknn_tensor;

/* Where a kernel stores its output when that output is a slice of a larger
 * tensor (a CONCATENATION written in place): element o of its own flat
 * output goes to (o / row) * stride + offset of the larger one. row 0: the
 * kernel writes a tensor of its own. */
typedef struct vknn_out_slice {
  uint32_t row, stride, offset;
} vknn_out_slice;

/* Unary operations one elementwise kernel may run after its own. */
#define VKNN_MAX_POST_OPS 3

/* Per operation: what the fusion pass decided (see fusion.c). */
typedef struct vknn_op_fusion {
  bool fused_away;          /* merged into the operation producing its input */
  int32_t extra_activation; /* producer: activation of a fused consumer, or -1 */
  uint32_t output_override; /* producer: tensor written instead of its output, or UINT32_MAX */
  /* Producer: a fused chain of unary operations (codes of unary_math.glsl,
   * ELU's alpha), applied in order after its own result. */
  uint32_t post_count;
  uint32_t post_codes[VKNN_MAX_POST_OPS];
  float post_alpha[VKNN_MAX_POST_OPS];
  /* Consumer: a PAD fused into it (vknn_fuse_pads): input 0 is read from
   * input_override (the PAD's input) with pad (left, right, top, bottom)
   * more padding around it; UINT32_MAX when none. */
  uint32_t input_override;
  uint32_t pad[4];
  /* Producer: writes output_override as this slice (vknn_fuse_concat_slices). */
  vknn_out_slice out_slice;
  /* CONCATENATION: the inputs (bit i: input i) whose producers write them in
   * place; no copy is left for them. */
  uint64_t inputs_in_place;
  /* Producer: an ADD fused into it (vknn_fuse_residual_adds): the tensor
   * residual is added to its result after its own activation, the sum
   * clamped to [residual_min, residual_max] (the ADD's activation), written
   * to output_override; UINT32_MAX when none. */
  uint32_t residual;
  float residual_min, residual_max;
} vknn_op_fusion;

/* What kernel selection knows of the device (the compiler copies it from
 * its target). All zero, as in a graph built without a device, selects
 * storage-buffer reads everywhere. */
typedef struct vknn_kernel_target {
  bool texel_reads;            /* read hot operands through storage texel buffers */
  bool integer_dot;            /* quantized matrix products as packed 8-bit dot products */
  bool float16_arithmetic;     /* float16 kernels compute in float16 (their _f16_arith variants) */
  bool int64_float64;          /* 64-bit integer and float arithmetic (shaderInt64, Float64) */
  uint64_t max_texel_elements; /* texels one texel-buffer view may hold */
  uint32_t subgroup_size;      /* the compute stage's subgroup (0: unknown) */
  /* conv2d_gemm shares filter loads across 8 lanes of a subgroup (its
   * _subgroup variants; the device option subgroup_filter). */
  bool subgroup_filter;
  /* Float pointwise convolutions and matrix products of several rows run on
   * gemm_shared_64x64 (tiles staged in shared memory) instead of
   * conv2d_gemm (the device option gemm_shared_tiles). */
  bool gemm_shared_tiles;
  /* Float AVERAGE_, MAX_ and L2_POOL_2D whose window covers the image run
   * as workgroup reductions on reduce.comp (the device option
   * global_pool_reduction; src/ops/pool2d.c). */
  bool global_pool_reduction;
  /* Temporaries that every kernel binding them can read and write in the
   * packed layout are stored so (the device option packed_layout;
   * src/compiler/packed_layout.c). A choice for the whole model: kernel
   * tuning's choices per operation leave it as the device's. */
  bool packed_layout;
  /* Invocations the device runs at once (0: unknown): kernels split
   * reductions across a workgroup where a layer has far fewer outputs'
   * worth of invocations (conv2d_gemm's K_SPLIT). */
  uint32_t parallel_invocations;
  vknn_winograd winograd;      /* the device option (src/ops/conv2d_winograd.c) */
  /* Loop iterations one invocation may take (0: unlimited); see
   * VKNN_LOOP_LIMITER_BUDGET and vknn_op_within_loop_budget. */
  uint32_t loop_budget;
} vknn_kernel_target;

/* lavapipe's shader compiler (gallivm, Mesa 22.3) leaves a loop once a group
 * of 8 invocations has taken 65535 loop iterations in all, over every loop
 * of the shader, and nothing reports it (docs/architecture.md, "Loop budget
 * on lavapipe"). Kernels on such a device keep below this, with a margin. */
#define VKNN_LOOP_LIMITER_BUDGET 60000u

typedef struct vknn_graph {
  const vknn_logger *log;
  /* What kernel selection knows of the device, for the operation being
   * compiled: device_kernels, or that operation's entry of op_kernels
   * (vknn_graph_use_kernels_of). */
  vknn_kernel_target kernels;
  vknn_kernel_target device_kernels;
  /* One per operation of sg, chosen by measurement at prepare
   * (runtime/kernel_tuning.c); NULL: every operation has device_kernels. */
  const vknn_kernel_target *op_kernels;
  /* One per operation of sg: the index of the operation it stands for in
   * the model the caller gave (a relaxed model's float16 copy adds CASTs:
   * compiler/relaxed_float16.h), for run-time checks that name it; NULL:
   * the same indexes. */
  const uint32_t *op_sources;
  const vknn_model *model;
  const vknn_subgraph *sg;
  vknn_tensor *tensors; /* operands first, then constants the compiler adds */
  uint32_t tensor_count;
  uint32_t tensor_capacity;
  vknn_mapped_pool *pools; /* the model's CONSTANT_REFERENCE pools, mapped */
  uint32_t pool_count;
  vknn_op_fusion *fusion; /* one per operation of sg */
  void **owned;           /* bytes of added constants */
  uint32_t owned_count;
  /* Inferences that stopped for want of something only an execution knows
   * (an input's shape or value): see vknn_graph_defer. */
  uint32_t deferrals;
  /* Built for one execution (overrides given): a model input is omitted
   * exactly when its tensor's lifetime is NO_VALUE. */
  bool input_presence_known;
  /* Count words handed out to tensors whose rows the data decide. */
  uint32_t count_slots;
} vknn_graph;

/* What an execution tells about one model input that the model may leave
 * open: its shape, whether it was omitted, and, for inputs that can decide
 * shapes (small integer tensors and scalars), its value. Compiling with these
 * specializes a model whose shapes depend on its inputs (prepared_model.c). */
typedef struct vknn_input_override {
  bool omitted;
  uint32_t rank; /* 0: as the model declares */
  uint32_t dims[VKNN_MAX_RANK];
  const uint8_t *value; /* NULL: not taken as known */
} vknn_input_override;

/* Builds the tensors of the main subgraph of a valid model; maps its pools.
 * overrides: NULL, or one entry per model input. */
vknn_status vknn_graph_init(vknn_graph *graph, const vknn_logger *log, const vknn_model *model,
                            const vknn_input_override *overrides);

/* Stops an operation's inference because it needs an input's shape or value
 * that only an execution knows: counts a deferral, logs (verbose) why, and
 * returns GENERAL_FAILURE. */
vknn_status vknn_graph_defer(vknn_graph *graph, const vknn_operation *op, const char *why);
void vknn_graph_release(vknn_graph *graph);

/* A constant INT32 scalar's value; false when the operand is not a constant. */
bool vknn_graph_const_i32(const vknn_graph *graph, uint32_t operand, int32_t *out_value);

/* Adds a constant tensor the compiler made (for example per-channel
 * requantization factors). Takes ownership of data (malloc'ed). Returns the
 * tensor index, or UINT32_MAX when out of memory (data is freed). Tensor
 * pointers taken before the call are invalid after it. */
uint32_t vknn_graph_add_constant(vknn_graph *graph, int32_t type, const uint32_t *dims,
                                 uint32_t rank, void *data);

/* Adds an intermediate tensor the compiler needs (lives in the arena).
 * Returns its index, or UINT32_MAX when out of memory. */
uint32_t vknn_graph_add_temporary(vknn_graph *graph, int32_t type, const uint32_t *dims,
                                  uint32_t rank);

/* Makes view a view of source's bytes, with no dispatch to copy them: for a
 * reshape whose result is a temporary (a model output must be written where
 * the request says). False when view is not a temporary. */
bool vknn_graph_alias(vknn_graph *graph, uint32_t view, uint32_t source);

/* Index of an operation within the graph's subgraph. */
uint32_t vknn_graph_op_index(const vknn_graph *graph, const vknn_operation *op);

/* graph->kernels becomes operation k's kernel target (device_kernels when
 * op_kernels is NULL or k names no operation). */
void vknn_graph_use_kernels_of(vknn_graph *graph, uint32_t k);

/* The index in the caller's model of operation k of the graph (op_sources;
 * UINT32_MAX for one the compiler added). */
uint32_t vknn_graph_op_source(const vknn_graph *graph, uint32_t k);

/* The run-time check code of an operation (graph/runtime_check.h), naming
 * it by its index in the caller's model (op_sources); the kernel adds the
 * rule it breaks. */
uint32_t vknn_graph_check_code(const vknn_graph *graph, const vknn_operation *op);

/* The tensor an operation's input i is read from (after fusion). */
uint32_t vknn_graph_op_input(const vknn_graph *graph, const vknn_operation *op, uint32_t i);
/* The tensor an operation's output i is written to (after fusion). */
uint32_t vknn_graph_op_output(const vknn_graph *graph, const vknn_operation *op, uint32_t i);

/* Sets a tensor's shape; true when every dimension is known. */
void vknn_tensor_set_shape(vknn_tensor *tensor, const uint32_t *dims, uint32_t rank);

/* Bytes of a tensor of known shape. */
uint64_t vknn_tensor_byte_size(const vknn_tensor *tensor);
