/* Convolution geometry and lowering shared by CONV_2D, GROUPED_CONV_2D,
 * DEPTHWISE_CONV_2D, TRANSPOSE_CONV_2D and FULLY_CONNECTED. Kernels:
 * shaders/conv2d.comp (direct: NCHW, and what the tiled kernels do not
 * cover), and for NHWC tensors conv2d_gemm.comp and conv2d_depthwise.comp
 * (float and quantized) and gemv_splitk.comp (float), chosen in
 * src/ops/conv2d_select.c. */
#pragma once
#include "ops/op_common.h"

typedef struct vknn_conv_geometry {
  uint32_t batches, in_h, in_w, in_c;
  uint32_t out_h, out_w, out_c;
  uint32_t k_w, k_h, stride_x, stride_y, dilation_x, dilation_y;
  int32_t pad_left, pad_top;
  uint32_t cin_per_group, cout_per_group;
  bool nchw, depthwise;
  /* TRANSPOSE_CONV_2D: out_h, out_w, pads and strides as the operation gives
   * them; the kernels gather (output row oy, tap ky reads input row
   * (oy + pad_top - ky) / stride_y where that divides evenly). */
  bool transposed;
  int32_t activation;
  /* Where the result goes when it is a slice of a larger tensor (row 0:
   * the output tensor whole). */
  vknn_out_slice out_slice;
  /* Input and output are the operation's own NHWC tensors seen with this
   * geometry's shapes (CONV_2D, DEPTHWISE_CONV_2D): the tiled kernels may
   * then read and write them in the packed arena layout. */
  bool packable;
} vknn_conv_geometry;

/* The kernels a convolution may run on (src/ops/conv2d_select.c). */
typedef enum vknn_conv_kernel {
  VKNN_CONV_KERNEL_DIRECT,    /* conv2d.comp: one output (or 4 channels) per invocation */
  VKNN_CONV_KERNEL_GEMM,      /* conv2d_gemm.comp: tiled (implicit) matrix product */
  VKNN_CONV_KERNEL_DEPTHWISE, /* conv2d_depthwise.comp: a row of outputs x 4 channels */
  VKNN_CONV_KERNEL_GEMV,      /* gemv_splitk.comp: one row, the reduction split */
  /* gemm_shared_64x64.comp: 64 x 64 output tiles staged in shared memory
   * (float pointwise, no groups; where kernel tuning measured it faster) */
  VKNN_CONV_KERNEL_GEMM_SHARED,
  /* conv2d_winograd.comp around conv2d_gemm.comp: 2x2 / 4x4 output tiles
   * (src/ops/conv2d_winograd.c) */
  VKNN_CONV_KERNEL_WINOGRAD_F2X3,
  VKNN_CONV_KERNEL_WINOGRAD_F4X3,
} vknn_conv_kernel;

typedef struct vknn_conv_choice {
  vknn_conv_kernel kernel;
  uint32_t ch_block;  /* output channels per invocation */
  uint32_t pix_block; /* output pixels per invocation */
  uint32_t group;     /* invocations per workgroup */
  /* GEMM: slices of the reduction per register block (conv2d_gemm's
   * K_SPLIT; 0 or 1: none); the workgroup holds group / k_split lanes of
   * each slice. */
  uint32_t k_split;
} vknn_conv_choice;

/* The kernel for a convolution of the given geometry and tensor type on a
 * device (target: its subgroup size bounds the workgroup from below; NULL:
 * 8 lanes). */
vknn_conv_choice vknn_conv_select(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                                  int32_t type);

/* Whether a convolution runs as a Winograd convolution on this device
 * (the device option winograd, and where AUTO, the measured rule), and
 * on which tile: *out the choice when true (conv2d_winograd.c). */
bool vknn_winograd_select(const vknn_kernel_target *target, const vknn_conv_geometry *g,
                          int32_t type, vknn_conv_choice *out);

/* The tensors a convolution's dispatch binds (graph tensor indices) and the
 * bounds its result is clamped to. multipliers: a quantized convolution's
 * per-channel requantization constant (vknn_conv_add_multipliers); unused
 * otherwise. */
typedef struct vknn_conv_tensors {
  uint32_t input, filter, bias, output, multipliers;
  float act_min, act_max;
  /* has_residual: a tensor of the output's shape added to the result after
   * the activation, the sum clamped to [residual_min, residual_max] (a
   * fused ADD: vknn_fuse_residual_adds; float tiled matrix kernel only). */
  bool has_residual;
  uint32_t residual;
  float residual_min, residual_max;
} vknn_conv_tensors;

/* Appends the dispatch of a convolution on a kernel other than DIRECT. */
vknn_status vknn_lower_conv_tiled(vknn_graph *graph, const vknn_conv_tensors *t,
                                  const vknn_conv_geometry *g, vknn_conv_choice c,
                                  vknn_dispatch_list *out_list);

/* Appends the dispatches of a Winograd convolution (c.kernel
 * VKNN_CONV_KERNEL_WINOGRAD_*): input transform, matrix products, output
 * transform. A filter that is no constant gets the implicit matrix product
 * instead (the filter transform runs at prepare). */
vknn_status vknn_lower_conv_winograd(vknn_graph *graph, const vknn_conv_tensors *t,
                                     const vknn_conv_geometry *g, vknn_conv_choice c,
                                     vknn_dispatch_list *out_list);

/* A copy of the constant filter tensor (out_c rows of tap_size elements)
 * packed for conv2d_gemm's PACKED_FILTER: [out_c / 8][tap_size / unit][8]
 * [unit], rows padded with zeros to a multiple of 8, so that the units of 8
 * neighbouring channels lie side by side. *out_tensor: the new constant. */
vknn_status vknn_conv_pack_filter_by_8(vknn_graph *graph, uint32_t filter, uint32_t out_c,
                                       uint32_t tap_size, uint32_t unit, uint32_t *out_tensor);

/* Appends the dispatch of a convolution of explicit tensors, on the kernel
 * vknn_conv_select chooses. */
vknn_status vknn_lower_conv_tensors(vknn_graph *graph, const vknn_conv_tensors *t,
                                    const vknn_conv_geometry *g, vknn_dispatch_list *out_list);

/* Appends the dispatch of a convolution: input, filter and bias operands of
 * op (inputs 0, 1, 2), written to op's (possibly fused) output. */
vknn_status vknn_lower_conv(vknn_graph *graph, const vknn_operation *op,
                            const vknn_conv_geometry *g, vknn_dispatch_list *out_list);

/* Adds the per-output-channel requantization multipliers of a quantized
 * convolution or matrix product: input_scale * filter_scale[c] /
 * output_scale (filter_scale per channel when the filter is
 * TENSOR_QUANT8_SYMM_PER_CHANNEL). *out_constant: the added constant. */
vknn_status vknn_conv_add_multipliers(vknn_graph *graph, const vknn_conv_tensors *t, uint32_t out_c,
                                      const char *what, uint32_t *out_constant);

/* A matrix product of explicit tensors, for operations built of them
 * (recurrent cells, FULLY_CONNECTED): out[r, n] = clamp(sum_k in[r, k] *
 * weights[n, k] + bias[n], act_min, act_max), row-major, on the matrix
 * kernels (conv2d_gemm for several rows, gemv_splitk for one long row).
 * in, weights, bias and out are graph tensors holding at least rows x k,
 * n x k, n and rows x n elements of one type (float32 or float16; quantized
 * products need t.multipliers, see vknn_conv_add_multipliers). */
typedef struct vknn_matmul {
  vknn_conv_tensors t;
  uint32_t rows, k, n;
} vknn_matmul;
vknn_status vknn_lower_matmul(vknn_graph *graph, const vknn_matmul *m, vknn_dispatch_list *out_list);

/* Whether the convolution op runs on a kernel that can add a residual
 * tensor to its result (fusion.c): a float CONV_2D on the tiled matrix
 * kernel. */
bool vknn_conv_takes_residual(vknn_graph *graph, const vknn_operation *op);

/* The operations lowered through vknn_lower_conv, whose kernels can store
 * their output as a slice of a larger tensor (fusion.c). */
bool vknn_conv_writes_slices(int32_t operation_type);

/* Type rules of input, filter, bias and output shared by the three operations
 * (per_channel_dim: the channel dimension a per-channel filter must use, or
 * -1 when per-channel filters are not allowed). */
bool vknn_conv_check_types(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op, int32_t per_channel_dim);
/* vknn_conv_check_types, and input, filter and output of rank 4. */
bool vknn_conv_check_operands(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, int32_t per_channel_dim);
