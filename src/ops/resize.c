/* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: signature validation, shape
 * inference and lowering to shaders/resize.comp. The output size comes as
 * INT32 width and height or as FLOAT32/FLOAT16 scales; optional BOOLs select
 * NCHW, align_corners and half_pixel_centers. Source coordinates are computed
 * as the NNAPI reference computes them, in single precision from scales the
 * host divides (a GPU division need not be correctly rounded). */
#include <math.h>
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"

enum { RESIZE_MODE_BILINEAR = 0, RESIZE_MODE_NEAREST = 1 };

/* Optional BOOL inputs by position. */
enum { INPUT_LAYOUT = 3, INPUT_ALIGN_CORNERS = 4, INPUT_HALF_PIXEL = 5 };

/* One invocation writes one output pixel's group of 4 channels; a workgroup
 * covers a tile of one output row (RESIZE_LANES_LOG2 lanes). */
#define RESIZE_LANES 64u
#define RESIZE_LANES_LOG2 6u

typedef struct resize_geometry {
  vknn_image_shape in, out;
  bool nchw, align_corners, half_pixel;
} resize_geometry;

static bool is_bilinear(const vknn_operation *op) {
  return op->type == VKNN_OPERATION_RESIZE_BILINEAR;
}

/* The width and height parameters: both INT32 (an output size), or both a
 * scale of the float type NNAPI pairs with the input type. */
static bool check_size_types(const vknn_logger *log, const vknn_subgraph *sg,
                             const vknn_operation *op) {
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  int32_t size_type = sg->operands[op->inputs[2]].type;
  const char *name = vknn_operation_type_name(op->type);
  if (size_type != VKNN_OPERAND_INT32) {
    int32_t scale_type = in->type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
    if (size_type != scale_type) {
      VKNN_LOG_E(log, "model", "%s: the height must be INT32 or a %s scale for a %s input, not %s",
                 name, vknn_operand_type_name(scale_type), vknn_operand_type_name(in->type),
                 vknn_operand_type_name(size_type));
      return false;
    }
  }
  return vknn_op_check_type(log, op, "the width (of the height's type)", &sg->operands[op->inputs[1]],
                            size_type);
}

static vknn_status validate_resize(const vknn_logger *log, const vknn_model *model,
                                   const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  /* RESIZE_BILINEAR's layout flag is optional; RESIZE_NEAREST_NEIGHBOR's is not. */
  if (!vknn_op_check_counts(log, sg, op, is_bilinear(op) ? 3 : 4, 6, 1))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  if (vknn_variant_of(in->type) < 0 || out->type != in->type) {
    VKNN_LOG_E(log, "model", "%s: types %s -> %s are not allowed", vknn_operation_type_name(op->type),
               vknn_operand_type_name(in->type), vknn_operand_type_name(out->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!check_size_types(log, sg, op)) return VKNN_STATUS_INVALID_ARGUMENT;
  for (uint32_t i = INPUT_LAYOUT; i < op->input_count; ++i)
    if (!vknn_op_check_type(log, op, "a flag (layout, align_corners, half_pixel_centers)",
                            &sg->operands[op->inputs[i]], VKNN_OPERAND_BOOL))
      return VKNN_STATUS_INVALID_ARGUMENT;
  bool ok = vknn_op_check_rank(log, op, "input", in, 4) && vknn_op_check_rank(log, op, "output", out, 4) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* An optional flag: false when the operation has no such input. */
static bool read_flag(const vknn_graph *graph, const vknn_operation *op, uint32_t input, bool *value) {
  *value = false;
  if (op->input_count <= input) return true;
  if (vknn_graph_const_bool(graph, op->inputs[input], value)) return true;
  VKNN_LOG_E(graph->log, "compilation", "%s: parameter %u must be a constant",
             vknn_operation_type_name(op->type), input);
  return false;
}

/* new_size = floor(size * scale), in single precision as the reference
 * computes it; false when that is not a positive int32. A size of 0 is not
 * known yet: false only for a scale that fails every size (not positive, or
 * 2^31 already at size 1). */
static bool scaled_size(uint32_t size, float scale, uint32_t *out) {
  float scaled = floorf((float)(size != 0 ? size : 1) * scale);
  bool fits = scaled < 2147483648.f && (size != 0 ? scaled >= 1.f : scale > 0.f);
  *out = fits && size != 0 ? (uint32_t)scaled : 0;
  return fits;
}

/* The output width and height, from sizes or scales (of g->in: dimensions
 * of 0 not known yet, ops/known_dims.h). */
static vknn_status read_output_size(vknn_graph *graph, const vknn_operation *op, resize_geometry *g) {
  const char *name = vknn_operation_type_name(op->type);
  bool ok;
  if (graph->tensors[op->inputs[2]].type == VKNN_OPERAND_INT32) {
    int32_t size[2]; /* width, height */
    if (!vknn_graph_const_i32_list(graph, op, 1, 2, size)) return VKNN_STATUS_GENERAL_FAILURE;
    ok = size[0] > 0 && size[1] > 0;
    g->out.width = (uint32_t)size[0];
    g->out.height = (uint32_t)size[1];
  } else {
    float scale[2];
    if (!vknn_graph_const_float(graph, op->inputs[1], &scale[0]) ||
        !vknn_graph_const_float(graph, op->inputs[2], &scale[1])) {
      VKNN_LOG_E(graph->log, "compilation", "%s: the scales must be constants", name);
      return VKNN_STATUS_GENERAL_FAILURE;
    }
    ok = scaled_size(g->in.width, scale[0], &g->out.width) &&
         scaled_size(g->in.height, scale[1], &g->out.height);
  }
  if (!ok) {
    VKNN_LOG_E(graph->log, "model", "%s: the output width and height must be positive", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The flags, then the output size (scales against the dimensions the model
 * gives), read and checked before the input's shape: a model whose shape
 * waits for an execution still has them checked at prepare (given as model
 * inputs, they are compiled per execution with their values). */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, resize_geometry *g) {
  vknn_status s = vknn_op_require_constant_params(graph, op, INPUT_LAYOUT, op->input_count - INPUT_LAYOUT);
  if (s != VKNN_STATUS_NONE) return s;
  if (!read_flag(graph, op, INPUT_LAYOUT, &g->nchw) ||
      !read_flag(graph, op, INPUT_ALIGN_CORNERS, &g->align_corners) ||
      !read_flag(graph, op, INPUT_HALF_PIXEL, &g->half_pixel))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (g->align_corners && g->half_pixel) {
    VKNN_LOG_E(graph->log, "model", "%s: half_pixel_centers requires align_corners false",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  s = vknn_op_require_constant_params(graph, op, 1, 2);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  g->in = in->rank == 4 ? vknn_image_shape_of(in, g->nchw) : (vknn_image_shape){0, 0, 0, 0};
  g->out = g->in;
  return read_output_size(graph, op, g);
}

/* The parameters, and the declared output against the image shape they
 * give from the dimensions known (the batch and channels, and the width and
 * height of sizes or of scales on known ones), before the operation waits
 * for the input's shape. */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, resize_geometry *g) {
  vknn_status s = read_params(graph, op, g);
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_image_output(graph, op, g->out, g->nchw);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (in->rank != 4) {
    VKNN_LOG_E(graph->log, "model", "%s: input must have rank 4, not %u",
               vknn_operation_type_name(op->type), in->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* The shape was known to read_params too: g->in and g->out are whole. */
  /* The kernel clamps source pixels to [0, size - 1]: no empty image. */
  if (g->in.batches == 0 || g->in.height == 0 || g->in.width == 0 || g->in.channels == 0) {
    VKNN_LOG_E(graph->log, "model", "%s: the input's dimensions must be positive",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_resize(vknn_graph *graph, const vknn_operation *op) {
  resize_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  return vknn_op_set_image_output(graph, op, g.out, g.nchw);
}

/* Push constants of resize.comp, std430 layout. */
typedef struct resize_params {
  uint32_t in_h, in_w, channels, out_h, out_w;
  uint32_t tiles_x, tiles_c, groups;
  float scale_y, scale_x;
} resize_params;
VKNN_PUSH_LAYOUT(resize, resize_params);

/* Input pixels per output pixel along one axis: the reference's
 * calculateResizeScale, divided in single precision on the host. */
static float axis_scale(uint32_t in, uint32_t out, bool align_corners) {
  if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

static uint32_t ceil_div(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

/* log2 of the lanes a workgroup gives the channel axis: enough for every
 * group of 4 channels (up to the whole workgroup); the rest walk the width. */
static uint32_t channel_lanes_log2(uint32_t channels) {
  uint32_t quads = ceil_div(channels, 4), log2 = 0;
  while (log2 < RESIZE_LANES_LOG2 && (1u << log2) < quads) ++log2;
  return log2;
}

static vknn_status lower_resize(vknn_graph *graph, const vknn_operation *op,
                                vknn_dispatch_list *out_list) {
  resize_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t c_log2 = channel_lanes_log2(g.in.channels);
  resize_params p = {g.in.height, g.in.width, g.in.channels, g.out.height, g.out.width, 0, 0, 0,
                     axis_scale(g.in.height, g.out.height, g.align_corners),
                     axis_scale(g.in.width, g.out.width, g.align_corners)};
  p.tiles_x = ceil_div(g.out.width, RESIZE_LANES >> c_log2);
  p.tiles_c = ceil_div(ceil_div(g.in.channels, 4), 1u << c_log2);
  uint64_t groups = (uint64_t)g.in.batches * g.out.height * p.tiles_x * p.tiles_c;
  if (groups > UINT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the output is too large for one dispatch",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  p.groups = (uint32_t)groups;
  static const vknn_shader_id shaders[] = {VKNN_SHADER_RESIZE_F32, VKNN_SHADER_RESIZE_F16,
                                           VKNN_SHADER_RESIZE_Q8, VKNN_SHADER_RESIZE_Q8S};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(graph->tensors[op->inputs[0]].type)];
  d->spec[VKNN_SPEC_RESIZE_NCHW] = g.nchw;
  d->spec[VKNN_SPEC_RESIZE_MODE] = is_bilinear(op) ? RESIZE_MODE_BILINEAR : RESIZE_MODE_NEAREST;
  d->spec[VKNN_SPEC_RESIZE_ALIGN_CORNERS] = g.align_corners;
  d->spec[VKNN_SPEC_RESIZE_HALF_PIXEL] = g.half_pixel;
  d->spec[VKNN_SPEC_RESIZE_C_LANES_LOG2] = c_log2;
  d->spec[VKNN_SPEC_RESIZE_VEC4] = !g.nchw && g.in.channels % 4 == 0;
  d->spec_count = VKNN_SPEC_COUNT_RESIZE;
  d->local_size = RESIZE_LANES;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, vknn_graph_op_output(graph, op, 0), VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = groups * RESIZE_LANES;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_resize_bilinear = {VKNN_OPERATION_RESIZE_BILINEAR, false, validate_resize,
                                             infer_resize, lower_resize};
const vknn_op_def vknn_op_resize_nearest_neighbor = {VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR, false,
                                                     validate_resize, infer_resize, lower_resize};
