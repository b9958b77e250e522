#include "ops/op_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "ops/known_dims.h"

/* The name of an operation in logs written without its model: an extension
 * operation is only "an extension operation" there. */
static const char *op_name(const vknn_operation *op) {
  const char *name = vknn_operation_type_name(op->type);
  return name ? name : "operation";
}

/* With the graph's model: an extension operation by its extension and name
 * ("org.vknn.transformer:GELU"). */
static const char *graph_op_name(const vknn_graph *graph, const vknn_operation *op) {
  return vknn_model_operation_name(graph->model, op->type);
}

static bool may_be_omitted(const vknn_operation *op, uint32_t input) {
  if (op->type == VKNN_OPERATION_LSH_PROJECTION) return input == 2; /* its weights */
  return input == 1 && (op->type == VKNN_OPERATION_TRANSPOSE || op->type == VKNN_OPERATION_SQUEEZE);
}

static bool required_inputs_present(const vknn_logger *log, const vknn_subgraph *sg,
                                    const vknn_operation *op) {
  for (uint32_t i = 0; i < op->input_count; ++i) {
    if (sg->operands[op->inputs[i]].lifetime == VKNN_LIFETIME_NO_VALUE && !may_be_omitted(op, i)) {
      VKNN_LOG_E(log, "model", "%s: input %u is omitted but not optional", op_name(op), i);
      return false;
    }
  }
  return true;
}

bool vknn_op_check_counts(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                          uint32_t min_inputs, uint32_t max_inputs, uint32_t outputs) {
  if (op->input_count >= min_inputs && op->input_count <= max_inputs &&
      op->output_count == outputs)
    return required_inputs_present(log, sg, op);
  if (min_inputs == max_inputs)
    VKNN_LOG_E(log, "model", "%s takes %u inputs and %u outputs, got %u and %u", op_name(op),
               min_inputs, outputs, op->input_count, op->output_count);
  else
    VKNN_LOG_E(log, "model", "%s takes %u to %u inputs and %u outputs, got %u and %u", op_name(op),
               min_inputs, max_inputs, outputs, op->input_count, op->output_count);
  return false;
}

bool vknn_op_check_counts_optional(const vknn_logger *log, const vknn_subgraph *sg,
                                   const vknn_operation *op, uint32_t inputs, uint32_t outputs,
                                   uint32_t optional) {
  if (op->input_count != inputs || op->output_count != outputs) {
    VKNN_LOG_E(log, "model", "%s takes %u inputs and %u outputs, got %u and %u", op_name(op),
               inputs, outputs, op->input_count, op->output_count);
    return false;
  }
  for (uint32_t i = 0; i < op->input_count; ++i) {
    if (sg->operands[op->inputs[i]].lifetime == VKNN_LIFETIME_NO_VALUE &&
        (i >= 32 || !(optional & (1u << i)))) {
      VKNN_LOG_E(log, "model", "%s: input %u is omitted but not optional", op_name(op), i);
      return false;
    }
  }
  return true;
}

bool vknn_op_check_type(const vknn_logger *log, const vknn_operation *op, const char *what,
                        const vknn_operand *operand, int32_t type) {
  if (operand->type == type) return true;
  VKNN_LOG_E(log, "model", "%s: %s must be %s, not %s", op_name(op), what,
             vknn_operand_type_name(type), vknn_operand_type_name(operand->type));
  return false;
}

bool vknn_op_check_rank(const vknn_logger *log, const vknn_operation *op, const char *what,
                        const vknn_operand *operand, uint32_t rank) {
  if (operand->dimension_count == 0 || operand->dimension_count == rank) return true;
  VKNN_LOG_E(log, "model", "%s: %s must have rank %u, not %u", op_name(op), what, rank,
             operand->dimension_count);
  return false;
}

bool vknn_op_check_output_rows_agree(const vknn_logger *log, const vknn_subgraph *sg,
                                     const vknn_operation *op) {
  uint32_t rows = 0, first = 0;
  for (uint32_t i = 0; i < op->output_count; ++i) {
    const vknn_operand *out = &sg->operands[op->outputs[i]];
    uint32_t n = out->dimension_count > 0 ? out->dimensions[0] : 0;
    if (n == 0) continue;
    if (rows != 0 && n != rows) {
      VKNN_LOG_E(log, "model", "%s: output %u has %u rows, output %u has %u: they must agree",
                 op_name(op), first, rows, i, n);
      return false;
    }
    rows = n, first = i;
  }
  return true;
}

bool vknn_op_check_box_quant16(const vknn_logger *log, const vknn_operation *op, const char *what,
                               const vknn_operand *operand) {
  if (operand->type != VKNN_OPERAND_TENSOR_QUANT16_ASYMM || (operand->scale == 0.125f && operand->zero_point == 0))
    return true;
  VKNN_LOG_E(log, "model", "%s: quant16 %s must have scale 0.125 and zero point 0, not %g and %d", op_name(op),
             what, operand->scale, operand->zero_point);
  return false;
}

bool vknn_graph_const_bool(const vknn_graph *graph, uint32_t operand, bool *out_value) {
  const vknn_tensor *t = &graph->tensors[operand];
  if (t->constant_data == NULL || t->type != VKNN_OPERAND_BOOL) return false;
  *out_value = t->constant_data[0] != 0;
  return true;
}

float vknn_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15), exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  float value;
  if (exponent == 0) value = ldexpf((float)mantissa, -24);
  else if (exponent == 31) value = mantissa ? NAN : INFINITY;
  else value = ldexpf((float)(mantissa | 0x400u), (int)exponent - 25);
  return sign ? -value : value;
}

bool vknn_graph_const_float(const vknn_graph *graph, uint32_t operand, float *out_value) {
  const vknn_tensor *t = &graph->tensors[operand];
  if (t->constant_data == NULL) return false;
  if (t->type == VKNN_OPERAND_FLOAT32) {
    memcpy(out_value, t->constant_data, sizeof(float));
    return true;
  }
  if (t->type == VKNN_OPERAND_FLOAT16) {
    uint16_t h;
    memcpy(&h, t->constant_data, sizeof(h));
    *out_value = vknn_half_to_float(h);
    return true;
  }
  return false;
}

bool vknn_graph_const_i32_list(const vknn_graph *graph, const vknn_operation *op, uint32_t first,
                               uint32_t count, int32_t *out_values) {
  for (uint32_t i = 0; i < count; ++i) {
    if (!vknn_graph_const_i32(graph, op->inputs[first + i], &out_values[i])) {
      VKNN_LOG_E(graph->log, "compilation", "%s: parameter %u must be a constant", graph_op_name(graph, op),
                 first + i);
      return false;
    }
  }
  return true;
}

/* A required input without a value: omitted in the model, or a model input
 * the request omits (then the model is compiled for that request). */
static vknn_status omitted_input(vknn_graph *graph, const vknn_operation *op, uint32_t input) {
  VKNN_LOG_E(graph->log, "model", "%s: input %u is omitted, and it is not optional", graph_op_name(graph, op), input);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

vknn_status vknn_op_require_constant_params(vknn_graph *graph, const vknn_operation *op,
                                            uint32_t first, uint32_t count) {
  for (uint32_t i = first; i < first + count; ++i) {
    const vknn_tensor *t = &graph->tensors[op->inputs[i]];
    if (t->constant_data != NULL) continue;
    if (t->lifetime == VKNN_LIFETIME_NO_VALUE) return omitted_input(graph, op, i);
    if (t->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT)
      return vknn_graph_defer(graph, op, "a parameter is a model input");
    VKNN_LOG_E(graph->log, "compilation", "%s: parameter %u must be a constant or a model input",
               graph_op_name(graph, op), i);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

bool vknn_is_quant8(int32_t type) {
  return type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM ||
         type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED;
}

int32_t vknn_quant_min(int32_t type) {
  return type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0;
}

int32_t vknn_quant_max(int32_t type) {
  return type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED ? 127 : 255;
}

bool vknn_activation_valid(int32_t activation) {
  return activation >= VKNN_FUSED_NONE && activation <= VKNN_FUSED_RELU6;
}

/* Clamped before the conversion: a tiny scale puts the bound far outside
 * int32 (and the quantized range, to which callers clamp it anyway). */
static int32_t quantize_bound(float value, const vknn_tensor *t) {
  float steps = roundf(value / t->scale);
  if (!(steps > -1e9f)) steps = -1e9f;
  if (steps > 1e9f) steps = 1e9f;
  return t->zero_point + (int32_t)steps;
}

void vknn_activation_bounds(int32_t activation, const vknn_tensor *out, float *lo, float *hi) {
  static const float real_lo[] = {-INFINITY, 0.f, -1.f, 0.f};
  static const float real_hi[] = {INFINITY, INFINITY, 1.f, 6.f};
  if (!vknn_is_quant8(out->type)) {
    *lo = real_lo[activation];
    *hi = real_hi[activation];
    return;
  }
  int32_t qmin = vknn_quant_min(out->type), qmax = vknn_quant_max(out->type);
  int32_t l = activation == VKNN_FUSED_NONE ? qmin : quantize_bound(real_lo[activation], out);
  int32_t h = activation <= VKNN_FUSED_RELU ? qmax : quantize_bound(real_hi[activation], out);
  *lo = (float)(l > qmin ? l : qmin);
  *hi = (float)(h < qmax ? h : qmax);
}

void vknn_op_activation_bounds(const vknn_graph *graph, const vknn_operation *op,
                               int32_t declared, float *lo, float *hi) {
  const vknn_tensor *out = &graph->tensors[vknn_graph_op_output(graph, op, 0)];
  vknn_activation_bounds(declared, out, lo, hi);
  int32_t extra = graph->fusion[vknn_graph_op_index(graph, op)].extra_activation;
  if (extra < 0) return;
  float extra_lo, extra_hi;
  vknn_activation_bounds(extra, out, &extra_lo, &extra_hi);
  if (extra_lo > *lo) *lo = extra_lo;
  if (extra_hi < *hi) *hi = extra_hi;
}

bool vknn_implicit_padding(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                           int32_t scheme, uint32_t *out_size, uint32_t *pad_before) {
  if (stride == 0 || dilation == 0 || kernel == 0) return false;
  uint64_t effective = (uint64_t)(kernel - 1) * dilation + 1;
  if (scheme == VKNN_PADDING_SAME) {
    *out_size = (in + stride - 1) / stride;
    int64_t total = ((int64_t)*out_size - 1) * stride + (int64_t)effective - in;
    *pad_before = total > 0 ? (uint32_t)(total / 2) : 0;
    return *out_size > 0;
  }
  if (scheme == VKNN_PADDING_VALID || scheme == VKNN_PADDING_NONE) {
    if (effective > in) return false;
    *out_size = (uint32_t)((in - effective + stride) / stride);
    *pad_before = 0;
    return true;
  }
  return false;
}

bool vknn_explicit_output(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation,
                          uint32_t pad_before, uint32_t pad_after, uint32_t *out_size) {
  if (stride == 0 || dilation == 0 || kernel == 0) return false;
  uint64_t effective = (uint64_t)(kernel - 1) * dilation + 1;
  uint64_t padded = (uint64_t)in + pad_before + pad_after;
  if (effective > padded) return false;
  *out_size = (uint32_t)((padded - effective) / stride + 1);
  return true;
}

bool vknn_window_extent(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation, int32_t scheme,
                        uint32_t pad_before, uint32_t pad_after, uint32_t *out_size, uint32_t *pad_before_out) {
  *out_size = 0;
  *pad_before_out = pad_before;
  if (in == 0 || kernel == 0) return true;
  if (scheme < 0) return vknn_explicit_output(in, kernel, stride, dilation, pad_before, pad_after, out_size);
  return vknn_implicit_padding(in, kernel, stride, dilation, scheme, out_size, pad_before_out);
}

/* An inferred shape past what a tensor may hold (VKNN_MAX_TENSOR_BYTES):
 * unsupported, where its byte count would not fit the kernels' counts. */
static vknn_status check_output_size(const vknn_graph *graph, const vknn_operation *op,
                                     const vknn_tensor *out) {
  if (!out->shape_known || vknn_tensor_byte_size(out) <= VKNN_MAX_TENSOR_BYTES) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "compilation", "%s: an output of more than 4 GiB is unsupported", graph_op_name(graph, op));
  return VKNN_STATUS_GENERAL_FAILURE;
}

/* Output `output`'s declared shape agrees with dims (rank `rank`): a
 * declared rank or dimension not known yet (0) agrees; a 0 in dims agrees
 * too where dims_partial (dimensions not known yet, not an inferred empty
 * axis). Logged where not. */
static vknn_status check_declared_output(const vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                         const uint32_t *dims, uint32_t rank, bool dims_partial) {
  const vknn_tensor *out = &graph->tensors[op->outputs[output]];
  /* Which output, where there are several. */
  char which[32] = "";
  if (op->output_count > 1) snprintf(which, sizeof(which), " (output %u of %u)", output, op->output_count);
  if (out->rank != 0 && out->rank != rank) {
    VKNN_LOG_E(graph->log, "model", "%s: output rank %u, expected %u%s", graph_op_name(graph, op), out->rank, rank,
               which);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < out->rank; ++i) {
    if (out->dims[i] == 0 || out->dims[i] == dims[i] || (dims_partial && dims[i] == 0)) continue;
    VKNN_LOG_E(graph->log, "model", "%s: output dimension %u is %u, expected %u%s", graph_op_name(graph, op), i,
               out->dims[i], dims[i], which);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_op_set_output_shape(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                     const uint32_t *dims, uint32_t rank) {
  vknn_status s = check_declared_output(graph, op, output, dims, rank, false);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_tensor *out = &graph->tensors[op->outputs[output]];
  vknn_tensor_set_shape(out, dims, rank);
  return check_output_size(graph, op, out);
}

vknn_image_shape vknn_image_shape_of(const vknn_tensor *t, bool nchw) {
  if (nchw) return (vknn_image_shape){t->dims[0], t->dims[2], t->dims[3], t->dims[1]};
  return (vknn_image_shape){t->dims[0], t->dims[1], t->dims[2], t->dims[3]};
}

vknn_image_axes vknn_image_axes_of(bool nchw) {
  return nchw ? (vknn_image_axes){0, 2, 3, 1} : (vknn_image_axes){0, 1, 2, 3};
}

void vknn_image_dims(vknn_image_shape shape, bool nchw, uint32_t dims[4]) {
  vknn_image_axes a = vknn_image_axes_of(nchw);
  dims[a.n] = shape.batches;
  dims[a.h] = shape.height;
  dims[a.w] = shape.width;
  dims[a.c] = shape.channels;
}

vknn_status vknn_op_set_image_output(vknn_graph *graph, const vknn_operation *op,
                                     vknn_image_shape shape, bool nchw) {
  uint32_t dims[4];
  vknn_image_dims(shape, nchw, dims);
  return vknn_op_set_output_shape(graph, op, 0, dims, 4);
}

vknn_image_shape vknn_known_image_shape(const vknn_tensor *t, bool nchw) {
  vknn_image_axes a = vknn_image_axes_of(nchw);
  return (vknn_image_shape){vknn_known_dim(t, 4, a.n), vknn_known_dim(t, 4, a.h), vknn_known_dim(t, 4, a.w),
                            vknn_known_dim(t, 4, a.c)};
}

vknn_status vknn_op_check_known_output(const vknn_graph *graph, const vknn_operation *op, const uint32_t *dims,
                                       uint32_t rank) {
  return vknn_op_check_known_output_at(graph, op, 0, dims, rank);
}

vknn_status vknn_op_check_known_output_at(const vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                          const uint32_t *dims, uint32_t rank) {
  /* A rank not known yet (0) agrees with any declared one. */
  return rank == 0 ? VKNN_STATUS_NONE : check_declared_output(graph, op, output, dims, rank, true);
}

vknn_status vknn_op_require_output_like_input(vknn_graph *graph, const vknn_operation *op, uint32_t input) {
  const vknn_tensor *in = &graph->tensors[op->inputs[input]];
  if (!in->shape_known && in->lifetime != VKNN_LIFETIME_NO_VALUE) {
    vknn_status s = vknn_op_check_known_output(graph, op, in->dims, in->rank);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return vknn_op_require_input_shape(graph, op, input);
}

vknn_status vknn_op_check_known_image_output(const vknn_graph *graph, const vknn_operation *op,
                                             vknn_image_shape known, bool nchw) {
  uint32_t dims[4];
  vknn_image_dims(known, nchw, dims);
  return vknn_op_check_known_output(graph, op, dims, 4);
}

int vknn_variant_of(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return 0;
    case VKNN_OPERAND_TENSOR_FLOAT16: return 1;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: return 2;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: return 3;
    default: return -1;
  }
}

bool vknn_graph_const_i32_tensor(const vknn_graph *graph, uint32_t operand, int32_t *out_values,
                                 uint32_t max, uint32_t *out_count) {
  const vknn_tensor *t = &graph->tensors[operand];
  if (t->constant_data == NULL || t->type != VKNN_OPERAND_TENSOR_INT32 || !t->shape_known)
    return false;
  uint64_t count = vknn_shape_element_count(t->dims, t->rank);
  if (count > max) return false;
  memcpy(out_values, t->constant_data, count * sizeof(int32_t));
  *out_count = (uint32_t)count;
  return true;
}

bool vknn_graph_omitted(const vknn_graph *graph, uint32_t operand) {
  return graph->tensors[operand].lifetime == VKNN_LIFETIME_NO_VALUE;
}

bool vknn_op_check_data_types(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, uint32_t max_rank, bool allow_int32) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  bool type_ok = vknn_variant_of(in->type) >= 0 ||
                 (allow_int32 && in->type == VKNN_OPERAND_TENSOR_INT32);
  if (!type_ok || in->dimension_count > max_rank) {
    VKNN_LOG_E(log, "model", "%s: input %s of rank %u is not allowed", op_name(op),
               vknn_operand_type_name(in->type), in->dimension_count);
    return false;
  }
  for (uint32_t i = 0; i < op->output_count; ++i)
    if (!vknn_op_check_type(log, op, "every output", &sg->operands[op->outputs[i]], in->type))
      return false;
  return true;
}

bool vknn_op_check_same_quant(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op, uint32_t output) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[output]];
  if (!vknn_is_quant8(in->type) || (out->scale == in->scale && out->zero_point == in->zero_point))
    return true;
  VKNN_LOG_E(log, "model", "%s: output %u must keep input 0's scale %g and zero point %d, not %g, %d",
             op_name(op), output, in->scale, in->zero_point, out->scale, out->zero_point);
  return false;
}

bool vknn_op_check_table(const vknn_logger *log, const vknn_operation *op,
                         const vknn_operand *values, const vknn_operand *out) {
  if (values->dimension_count == 1) {
    VKNN_LOG_E(log, "model", "%s: values must have rank 2 or more, not 1", op_name(op));
    return false;
  }
  if (!vknn_op_check_type(log, op, "the output", out, values->type)) return false;
  if (!vknn_is_quant8(values->type) ||
      (out->scale == values->scale && out->zero_point == values->zero_point))
    return true;
  VKNN_LOG_E(log, "model",
             "%s: the output must keep the values' scale %g and zero point %d, not %g, %d", op_name(op), values->scale, values->zero_point, out->scale, out->zero_point);
  return false;
}

uint32_t vknn_op_lookup_shape(const vknn_tensor *lookups, const vknn_tensor *values, uint32_t *dims) {
  if (values->rank < 2) return 0;
  memcpy(dims, values->dims, values->rank * sizeof(uint32_t));
  dims[0] = vknn_known_dim(lookups, 1, 0);
  return values->rank;
}

bool vknn_op_check_outputs_same_quant(const vknn_logger *log, const vknn_subgraph *sg,
                                      const vknn_operation *op) {
  for (uint32_t i = 0; i < op->output_count; ++i)
    if (!vknn_op_check_same_quant(log, sg, op, i)) return false;
  return true;
}

/* The reference compares the single-precision product with the bias scale
 * within 1e-6 of the smaller of the two. */
bool vknn_op_check_bias_scale(const vknn_logger *log, const vknn_subgraph *sg,
                              const vknn_operation *op) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *filter = &sg->operands[op->inputs[1]];
  const vknn_operand *bias = &sg->operands[op->inputs[2]];
  if (!vknn_is_quant8(in->type)) return true;
  if (filter->type == VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    if (bias->scale == 0.f) return true;
    VKNN_LOG_E(log, "model", "%s: with a per-channel filter the bias scale must be 0, not %g",
               op_name(op), bias->scale);
    return false;
  }
  float product = in->scale * filter->scale;
  double smaller = product < bias->scale ? product : bias->scale;
  if (fabs((double)product - bias->scale) <= 1e-6 * smaller) return true;
  VKNN_LOG_E(log, "model", "%s: bias scale %g must be input scale * filter scale (%g)", op_name(op),
             bias->scale, product);
  return false;
}

bool vknn_op_check_padding_code(const vknn_logger *log, const vknn_operation *op, int32_t code) {
  if (code == VKNN_PADDING_NONE || code == VKNN_PADDING_SAME || code == VKNN_PADDING_VALID) return true;
  VKNN_LOG_E(log, "model", "%s: padding code %d is not 0 (none), 1 (same) or 2 (valid)", op_name(op), code);
  return false;
}

vknn_status vknn_op_check_same_encoding(const vknn_graph *graph, const vknn_operation *op,
                                        uint32_t output) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *out = &graph->tensors[op->outputs[output]];
  if (in->scale == out->scale && in->zero_point == out->zero_point) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "compilation", "%s: input and output quantization differ", graph_op_name(graph, op));
  return VKNN_STATUS_GENERAL_FAILURE;
}

vknn_status vknn_op_require_input_shape(vknn_graph *graph, const vknn_operation *op,
                                        uint32_t input) {
  const vknn_tensor *t = &graph->tensors[op->inputs[input]];
  if (t->shape_known) return VKNN_STATUS_NONE;
  if (t->lifetime == VKNN_LIFETIME_NO_VALUE) return omitted_input(graph, op, input);
  return vknn_graph_defer(graph, op, "an input's shape is unknown at prepare time");
}

vknn_status vknn_op_axis(const vknn_graph *graph, const vknn_operation *op, int32_t axis, uint32_t rank,
                         uint32_t *out_axis) {
  if (axis < -(int32_t)rank || axis >= (int32_t)rank) {
    VKNN_LOG_E(graph->log, "model", "%s: axis %d is not in [-%u, %u)", graph_op_name(graph, op), axis, rank, rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  *out_axis = (uint32_t)(axis < 0 ? axis + (int32_t)rank : axis);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_op_check_known_rank(const vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                     uint32_t min_rank, uint32_t max_rank) {
  uint32_t rank = graph->tensors[op->inputs[input]].rank;
  if (rank >= min_rank && rank <= max_rank) return VKNN_STATUS_NONE;
  if (min_rank == max_rank)
    VKNN_LOG_E(graph->log, "model", "%s: input %u has rank %u, not %u", vknn_operation_type_name(op->type), input,
               rank, min_rank);
  else
    VKNN_LOG_E(graph->log, "model", "%s: input %u has rank %u, outside [%u, %u]",
               vknn_operation_type_name(op->type), input, rank, min_rank, max_rank);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

void vknn_op_set_post_ops(const vknn_graph *graph, const vknn_operation *op, vknn_dispatch *d,
                          float alphas[VKNN_MAX_POST_OPS]) {
  const vknn_op_fusion *f = &graph->fusion[vknn_graph_op_index(graph, op)];
  for (uint32_t i = 0; i < VKNN_MAX_POST_OPS; ++i) {
    bool used = i < f->post_count;
    d->spec[1 + i] = used ? f->post_codes[i] + 1 : 0;
    alphas[i] = used ? f->post_alpha[i] : 0.f;
  }
  d->spec_count = 1 + VKNN_MAX_POST_OPS;
}

vknn_status vknn_op_set_dynamic_output(vknn_graph *graph, const vknn_operation *op, uint32_t output,
                                       uint32_t rows, const uint32_t *row, uint32_t rank, uint32_t count_slot) {
  vknn_tensor *out = &graph->tensors[op->outputs[output]];
  if (out->rank != 0 && out->rank != rank) {
    VKNN_LOG_E(graph->log, "model", "%s: output %u has rank %u, expected %u", graph_op_name(graph, op), output, out->rank, rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint32_t declared = out->rank == rank ? out->dims[0] : 0;
  uint32_t dims[VKNN_MAX_RANK] = {rows};
  for (uint32_t d = 1; d < rank; ++d) dims[d] = row[d - 1];
  for (uint32_t d = 1; d < rank && out->rank == rank; ++d) {
    if (out->dims[d] != 0 && out->dims[d] != dims[d]) {
      VKNN_LOG_E(graph->log, "model", "%s: output %u's dimension %u is %u, expected %u", graph_op_name(graph, op), output, d,
                 out->dims[d], dims[d]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  vknn_tensor_set_shape(out, dims, rank);
  out->count_slot = count_slot;
  out->declared_rows = declared;
  out->rows_per_count = 1;
  return check_output_size(graph, op, out);
}

vknn_dispatch *vknn_op_add_pass(vknn_dispatch_list *list, vknn_shader_id shader, const void *push, uint32_t push_size,
                                uint32_t local_size, uint64_t invocations) {
  vknn_dispatch *d = vknn_dispatch_list_add(list);
  if (d == NULL) return NULL;
  d->shader = shader;
  d->local_size = local_size;
  d->invocations = invocations;
  memcpy(d->push, push, push_size);
  d->push_size = push_size;
  return d;
}

vknn_status vknn_op_require_input_shapes(vknn_graph *graph, const vknn_operation *op, uint32_t count) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < count && s == VKNN_STATUS_NONE; ++i) s = vknn_op_require_input_shape(graph, op, i);
  return s;
}

bool vknn_op_check_score_type(const vknn_logger *log, const vknn_subgraph *sg, const vknn_operation *op,
                              bool quant8, int32_t *out_type, int32_t *out_real) {
  int32_t type = sg->operands[op->inputs[0]].type;
  if (!vknn_is_float_tensor(type) && !(quant8 && vknn_is_quant8(type))) {
    VKNN_LOG_E(log, "model", "%s: score type %s is not allowed", op_name(op), vknn_operand_type_name(type));
    return false;
  }
  *out_type = type;
  *out_real = type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  return true;
}

bool vknn_fits_texels(const vknn_graph *graph, uint32_t tensor, bool vec4) {
  const vknn_tensor *t = &graph->tensors[tensor];
  return vknn_fits_texel_count(graph, vknn_shape_element_count(t->dims, t->rank), vec4);
}

bool vknn_fits_texel_count(const vknn_graph *graph, uint64_t elements, bool vec4) {
  uint32_t per_texel = vec4 ? 4 : 1;
  return elements % per_texel == 0 && elements / per_texel <= graph->kernels.max_texel_elements;
}

vknn_texel_format vknn_texel_format_of(int32_t type, bool vec4) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT16: return vec4 ? VKNN_TEXEL_F16X4 : VKNN_TEXEL_F16;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: return vec4 ? VKNN_TEXEL_U8X4 : VKNN_TEXEL_U8;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL: return vec4 ? VKNN_TEXEL_I8X4 : VKNN_TEXEL_I8;
    default: return vec4 ? VKNN_TEXEL_F32X4 : VKNN_TEXEL_F32;
  }
}

bool vknn_op_add_scratch(vknn_graph *graph, const uint64_t *words, uint32_t count, uint32_t floats,
                         uint32_t *ids) {
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t dims = (uint32_t)words[i];
    int32_t type = i < floats ? VKNN_OPERAND_TENSOR_FLOAT32 : VKNN_OPERAND_TENSOR_INT32;
    ids[i] = vknn_graph_add_temporary(graph, type, &dims, 1);
    if (ids[i] == UINT32_MAX) return false;
  }
  return true;
}

bool vknn_op_within_loop_budget(const vknn_graph *graph, const char *op, uint64_t iterations,
                                const char *what) {
  uint32_t budget = graph->kernels.loop_budget;
  if (budget == 0 || iterations <= budget) return true;
  VKNN_LOG_E(graph->log, "compilation",
             "%s: %s take %llu loop iterations an invocation, more than the %u this device's loop "
             "limiter allows",
             op, what, (unsigned long long)iterations, budget);
  return false;
}
