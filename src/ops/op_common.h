/* Helpers shared by the operation families in src/ops/. */
#pragma once
#include "graph/operation.h"
#include "model/operand_type.h"

/* Signature checks: log (tag "model") and return false when broken. */
/* Input and output counts, and every input present: only the inputs NNAPI
 * calls optional tensors (TRANSPOSE's perm, SQUEEZE's axes, LSH_PROJECTION's
 * weights) may be omitted (lifetime NO_VALUE). */
bool vknn_op_check_counts(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                          uint32_t min_inputs, uint32_t max_inputs, uint32_t outputs);
/* Exactly inputs and outputs; input i may be omitted where bit i of
 * optional is set (operations that name their optional inputs: the
 * extensions'). */
bool vknn_op_check_counts_optional(const vknn_logger *log, const vknn_subgraph *sg,
                                   const vknn_operation *op, uint32_t inputs, uint32_t outputs,
                                   uint32_t optional);
bool vknn_op_check_type(const vknn_logger *log, const vknn_operation *op, const char *what,
                        const vknn_operand *operand, int32_t type);
/* Rank must be exactly rank (when known: 0 means unknown). */
bool vknn_op_check_rank(const vknn_logger *log, const vknn_operation *op, const char *what,
                        const vknn_operand *operand, uint32_t rank);
/* Every output has as many rows (its first dimension) as the others, where
 * the model gives them: for outputs that are rows of one result. */
bool vknn_op_check_output_rows_agree(const vknn_logger *log, const vknn_subgraph *sg,
                                     const vknn_operation *op);

/* A constant scalar parameter's value (INT32, BOOL, FLOAT32/FLOAT16 as float). */
bool vknn_graph_const_bool(const vknn_graph *graph, uint32_t operand, bool *out_value);
bool vknn_graph_const_float(const vknn_graph *graph, uint32_t operand, float *out_value);
/* An IEEE binary16 value (its bits) as float. */
float vknn_half_to_float(uint16_t h);
/* Reads every INT32 parameter in inputs[first..first+count); logs which is not
 * a constant (tag "compilation"). */
bool vknn_graph_const_i32_list(const vknn_graph *graph, const vknn_operation *op, uint32_t first,
                               uint32_t count, int32_t *out_values);

/* Parameters inputs[first..first+count) known now: VKNN_STATUS_NONE when each
 * is a constant. A model input defers the operation: executions give its
 * value, and the model is compiled with it known (docs/architecture.md,
 * "Shapes known only at execution time"). A value computed in the graph is
 * unsupported (logged, tag "compilation"); an omitted one (in the model, or
 * by the request of such an execution) is INVALID_ARGUMENT. */
vknn_status vknn_op_require_constant_params(vknn_graph *graph, const vknn_operation *op,
                                            uint32_t first, uint32_t count);

/* A constant TENSOR_INT32's values (at most max); false when not a constant. */
bool vknn_graph_const_i32_tensor(const vknn_graph *graph, uint32_t operand, int32_t *out_values,
                                 uint32_t max, uint32_t *out_count);
/* True when an optional input was omitted. */
bool vknn_graph_omitted(const vknn_graph *graph, uint32_t operand);

/* Signature of the data-movement operations: input 0 of an allowed type
 * (float32, float16, quant8 asymm and signed, and int32 when allow_int32),
 * rank up to max_rank, every output of the same type. */
bool vknn_op_check_data_types(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, uint32_t max_rank, bool allow_int32);
/* Quantized data movement and clamps keep the encoding: NNAPI requires
 * output i of a quant8 input 0 to have its scale and zero point (logged). */
bool vknn_op_check_same_quant(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, uint32_t output);
/* Every output of op keeps input 0's quantization (vknn_op_check_same_quant). */
bool vknn_op_check_outputs_same_quant(const vknn_logger *log, const vknn_subgraph *sg,
                                      const vknn_operation *op);
/* A quantized bias's scale: input_scale * filter_scale (NNAPI's relative
 * tolerance), or 0 with a per-channel filter (logged when not). */
bool vknn_op_check_bias_scale(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op);
/* An implicit padding code: one of NNAPI's PaddingCode values, 1 (SAME) or
 * 2 (VALID); logged (tag "model") when not. */
bool vknn_op_check_padding_code(const vknn_logger *log, const vknn_operation *op, int32_t code);
/* Quantized boxes (TENSOR_QUANT16_ASYMM) are in 1/8 pixel: scale 0.125 and
 * zero point 0 (logged when not; other types pass). */
bool vknn_op_check_box_quant16(const vknn_logger *log, const vknn_operation *op, const char *what,
                               const vknn_operand *operand);
/* Lookup tables (EMBEDDING_LOOKUP, HASHTABLE_LOOKUP): values of rank 2 or
 * more (when known), copied into an output of their type and encoding. */
bool vknn_op_check_table(const vknn_logger *log, const vknn_operation *op,
                         const vknn_operand *values, const vknn_operand *out);
/* Their output's shape: the values' with the lookup count (of 1-D lookups)
 * first, 0 where one is not known yet (ops/known_dims.h). Its rank: the
 * values', 0 while that is not known (or below 2, which the caller
 * refuses). */
uint32_t vknn_op_lookup_shape(const vknn_tensor *lookups, const vknn_tensor *values, uint32_t *dims);
/* Data movement copies bits: the input and output i must share their encoding. */
vknn_status vknn_op_check_same_encoding(const vknn_graph *graph, const vknn_operation *op,
                                        uint32_t output);
/* Input shape known at prepare time; otherwise the operation is deferred to
 * execution time (vknn_graph_defer). An omitted input (in the model, or by
 * the request of an execution compiled for it) is INVALID_ARGUMENT: callers
 * ask only for required inputs. */
vknn_status vknn_op_require_input_shape(vknn_graph *graph, const vknn_operation *op,
                                        uint32_t input);

/* Quantized range of a tensor type ([0,255] for QUANT8_ASYMM ...). */
bool vknn_is_quant8(int32_t type);
int32_t vknn_quant_min(int32_t type);
int32_t vknn_quant_max(int32_t type);

/* Clamp bounds of a fused activation in a tensor's own domain: real values
 * for float tensors, codes for quantized ones (NNAPI reference rounding). */
void vknn_activation_bounds(int32_t activation, const vknn_tensor *out, float *lo, float *hi);
bool vknn_activation_valid(int32_t activation);
/* Bounds of an operation's declared activation intersected with one fused
 * into it, in the domain of the tensor it writes. */
void vknn_op_activation_bounds(const vknn_graph *graph, const vknn_operation *op,
                               int32_t declared, float *lo, float *hi);

/* Output extent and leading padding of one spatial dimension. The HAL's
 * implicit padding codes: NONE (0) pads nothing, as VALID does. */
typedef enum { VKNN_PADDING_NONE = 0, VKNN_PADDING_SAME = 1, VKNN_PADDING_VALID = 2 } vknn_padding_scheme;
bool vknn_implicit_padding(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                           int32_t scheme, uint32_t *out_size, uint32_t *pad_before);
bool vknn_explicit_output(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                          uint32_t pad_before, uint32_t pad_after, uint32_t *out_size);
/* Either of the two: explicit paddings where scheme < 0 (*pad_before_out is
 * then pad_before), else the scheme's. Where the input's or the window's
 * extent is not known yet (0), *out_size is 0 (not known either) and the
 * window is taken to fit. False where it cannot fit. */
bool vknn_window_extent(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation, int32_t scheme,
                        uint32_t pad_before, uint32_t pad_after, uint32_t *out_size, uint32_t *pad_before_out);

/* Sets an output's shape, checking it against what the model declares
 * (INVALID_ARGUMENT, logged, on a conflict). */
vknn_status vknn_op_set_output_shape(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                     const uint32_t *dims, uint32_t rank);

/* An image tensor's batches, height, width and channels, by data layout. */
typedef struct vknn_image_shape {
  uint32_t batches, height, width, channels;
} vknn_image_shape;
vknn_image_shape vknn_image_shape_of(const vknn_tensor *t, bool nchw);
/* Positions of the batch, height, width and channel axes in a layout. */
typedef struct vknn_image_axes {
  uint32_t n, h, w, c;
} vknn_image_axes;
vknn_image_axes vknn_image_axes_of(bool nchw);
/* The 4 dimensions of an image shape in a layout. */
void vknn_image_dims(vknn_image_shape shape, bool nchw, uint32_t dims[4]);
/* Sets output i of op to an image shape in the given layout. */
vknn_status vknn_op_set_image_output(vknn_graph *graph, const vknn_operation *op,
                                     vknn_image_shape shape, bool nchw);
/* Op's declared output 0 agrees with a shape of rank `rank` whose 0
 * dimensions are not known yet (a rank 0 or a declared rank not known yet
 * agrees with any); INVALID_ARGUMENT (logged) where a known one differs.
 * For the checks made before an execution gives every shape. */
vknn_status vknn_op_check_known_output(const vknn_graph *graph, const vknn_operation *op, const uint32_t *dims,
                                       uint32_t rank);
/* The same for output `output` of op (operations of several outputs). */
vknn_status vknn_op_check_known_output_at(const vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                          const uint32_t *dims, uint32_t rank);
/* vknn_op_require_input_shape for an input whose shape output 0 takes:
 * while it waits for an execution, the declared output agrees with its
 * known rank and dimensions. */
vknn_status vknn_op_require_output_like_input(vknn_graph *graph, const vknn_operation *op, uint32_t input);
/* The image shape of a tensor as far as it is known: 0 for a dimension not
 * known yet, all 0 while its rank is not 4 (ops/known_dims.h). */
vknn_image_shape vknn_known_image_shape(const vknn_tensor *t, bool nchw);
/* Op's declared output 0 agrees with an image shape whose 0 dimensions are
 * not known yet; INVALID_ARGUMENT (logged) where a known one differs. For
 * the checks made before an execution gives every shape. */
vknn_status vknn_op_check_known_image_output(const vknn_graph *graph, const vknn_operation *op,
                                             vknn_image_shape known, bool nchw);

/* Operands read through storage texel buffers (shaders/operand_reads.glsl):
 * whether a tensor fits one view of the device (whole texels of four
 * elements when vec4, no more than a view may hold), and the view format of
 * a tensor type (four elements a texel when vec4). */
bool vknn_fits_texels(const vknn_graph *graph, uint32_t tensor, bool vec4);
/* The same for a tensor of `elements` elements not made yet. */
bool vknn_fits_texel_count(const vknn_graph *graph, uint64_t elements, bool vec4);
vknn_texel_format vknn_texel_format_of(int32_t type, bool vec4);
/* Element-type kernel variant index: 0 f32, 1 f16, 2 q8, 3 q8s (-1 otherwise). */
int vknn_variant_of(int32_t type);

/* Elementwise chains (fusion.c). A float unary operation that can run at the
 * end of another elementwise kernel: its code in unary_math.glsl and ELU's
 * alpha (activation.c). */
bool vknn_unary_as_post_op(const vknn_graph *graph, const vknn_operation *op, uint32_t *out_code,
                           float *out_alpha);
/* Operations whose kernel can run such a chain after its own result. */
bool vknn_unary_hosts_post_ops(const vknn_graph *graph, const vknn_operation *op);
bool vknn_binary_hosts_post_ops(const vknn_graph *graph, const vknn_operation *op);
/* Padding fused into convolutions (fusion.c): a PAD of a rank-4 tensor by
 * constant amounts on height and width only (dims 1 and 2, or NCHW 2 and
 * 3), as left, right, top, bottom (pad.c); whether a convolution reads its
 * input with zero padding of its own, and in which layout (conv2d.c). The
 * padding a PAD adds (0, or the zero point) is what a convolution's own
 * padding contributes, so the pair is one convolution with more padding. */
bool vknn_pad_spatial_amounts(const vknn_graph *graph, const vknn_operation *op, bool nchw,
                              uint32_t out_pad[4]);
bool vknn_conv_absorbs_pad(const vknn_graph *graph, const vknn_operation *op, bool *out_nchw);
/* Puts op's fused chain on its dispatch: the codes + 1 as constant_id 2-4 (0
 * for none), ELU's alphas into the kernel's push constants. */
void vknn_op_set_post_ops(const vknn_graph *graph, const vknn_operation *op, vknn_dispatch *d,
                          float alphas[VKNN_MAX_POST_OPS]);

/* Output `output` of op, whose rows the data decide, planned at its largest:
 * rows rows of row (the rank - 1 dimensions after the first), its rows told
 * by count word count_slot (docs/architecture.md, "Outputs whose size the
 * data decide"). The model's first dimension, when it gives one, is what
 * the run must produce; other declared dimensions must agree
 * (INVALID_ARGUMENT, logged). */
vknn_status vknn_op_set_dynamic_output(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                       uint32_t rows, const uint32_t *row, uint32_t rank, uint32_t count_slot);
/* Appends a dispatch of shader with its push constants (push_size bytes),
 * workgroup size and invocations; NULL when out of memory. */
vknn_dispatch *vknn_op_add_pass(vknn_dispatch_list *list, vknn_shader_id shader, const void *push, uint32_t push_size,
                                uint32_t local_size, uint64_t invocations);
/* Input `input` of op, whose shape is known, has a rank in [min_rank,
 * max_rank]; INVALID_ARGUMENT (logged) otherwise. For shapes an execution
 * gives: the model's checks pass a rank the model leaves unknown. */
vknn_status vknn_op_check_known_rank(const vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                     uint32_t min_rank, uint32_t max_rank);

/* An axis parameter in [-rank, rank) of a tensor of rank `rank`, turned
 * non-negative; INVALID_ARGUMENT (logged with the operation's name) out of
 * that range. */
vknn_status vknn_op_axis(const vknn_graph *graph, const vknn_operation *op, int32_t axis, uint32_t rank,
                         uint32_t *out_axis);

/* Inputs [0, count) of op have known shapes (vknn_op_require_input_shape). */
vknn_status vknn_op_require_input_shapes(vknn_graph *graph, const vknn_operation *op, uint32_t count);
/* The detection operations' input 0 (scores): float32 or float16, or with
 * quant8 allowed, quant8 asymm or signed (logged when not); its type and the
 * type of its real scalar parameters (FLOAT16 for float16, FLOAT32 else). */
bool vknn_op_check_score_type(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                              bool quant8, int32_t *out_type, int32_t *out_real);
/* The scratch tensors of a lowering: tensor i of words[i] 32-bit elements
 * (each below 2^32: the operation checks its sizes before lowering), float32
 * for the first `floats` of them, int32 for the rest, its index into ids[i].
 * False when the graph cannot take them. */
bool vknn_op_add_scratch(vknn_graph *graph, const uint64_t *words, uint32_t count, uint32_t floats,
                         uint32_t *ids);
/* Whether an invocation taking `iterations` loop iterations in all keeps
 * within the device's loop budget (graph->kernels.loop_budget: lavapipe's
 * loop limiter); logs, naming op and `what` loops, and returns false when
 * not, so that the operation is unsupported rather than silently wrong. */
bool vknn_op_within_loop_budget(const vknn_graph *graph, const char *op, uint64_t iterations,
                                const char *what);
