/* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D: signature validation, shape
 * inference and lowering to shaders/pool2d.comp, or, for a window covering
 * the whole image where the kernel target says so, to a workgroup
 * reduction (shaders/reduce.comp, ops/reduce.h). */
#include <string.h>

#include "ops/op_common.h"
#include "ops/reduce.h"

enum { POOL_AVERAGE = 0, POOL_MAX = 1, POOL_L2 = 2 };

typedef struct pool_geometry {
  uint32_t batches, in_h, in_w, channels, out_h, out_w;
  uint32_t k_w, k_h, stride_x, stride_y;
  uint32_t pad_left, pad_top;
  int32_t activation;
  bool nchw;
} pool_geometry;

static int pool_kind(int32_t type) {
  return type == VKNN_OPERATION_AVERAGE_POOL_2D ? POOL_AVERAGE
         : type == VKNN_OPERATION_MAX_POOL_2D   ? POOL_MAX
                                                : POOL_L2;
}

/* Explicit padding has 10 or 11 inputs, implicit 7 or 8. */
static bool is_explicit(const vknn_operation *op) { return op->input_count >= 10; }

static vknn_status validate_pool(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 7, 11, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  if (op->input_count == 9) {
    VKNN_LOG_E(log, "model", "%s: 9 inputs (7 or 8 implicit, 10 or 11 explicit)",
               vknn_operation_type_name(op->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *out = &sg->operands[op->outputs[0]];
  const char *name = vknn_operation_type_name(op->type);
  bool type_ok = vknn_variant_of(in->type) >= 0 && out->type == in->type &&
                 (pool_kind(op->type) != POOL_L2 || !vknn_is_quant8(in->type));
  if (!type_ok) {
    VKNN_LOG_E(log, "model", "%s: types %s -> %s are not allowed", name,
               vknn_operand_type_name(in->type), vknn_operand_type_name(out->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!vknn_op_check_same_quant(log, sg, op, 0)) return VKNN_STATUS_INVALID_ARGUMENT;
  uint32_t layout = is_explicit(op) ? 10 : 7;
  for (uint32_t i = 1; i < op->input_count; ++i) {
    int32_t want = i == layout ? VKNN_OPERAND_BOOL : VKNN_OPERAND_INT32;
    if (!vknn_op_check_type(log, op, "a scalar parameter", &sg->operands[op->inputs[i]], want))
      return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_op_check_rank(log, op, "input", in, 4) && vknn_op_check_rank(log, op, "output", out, 4);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The scalar parameters' ranges, each with a log line of its own: strides
 * and filter > 0, the activation a FuseCode, explicit paddings >= 0 and, as
 * the NNAPI reference requires, smaller than the filter (a wider one leaves
 * windows wholly in the padding, with no pixel to pool). v: the paddings
 * (explicit); s: strides, filter and activation. */
static vknn_status check_parameters(const vknn_logger *log, const char *name, bool explicit_padding,
                                    const int32_t *v, const int32_t *s) {
  const char *why = NULL;
  if (s[0] <= 0 || s[1] <= 0) why = "strides must be positive";
  else if (s[2] <= 0 || s[3] <= 0) why = "the filter's width and height must be positive";
  else if (!vknn_activation_valid(s[4])) why = "the activation is no FuseCode";
  else if (explicit_padding && (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0)) why = "a negative padding";
  else if (explicit_padding && (v[0] >= s[2] || v[1] >= s[2] || v[2] >= s[3] || v[3] >= s[3]))
    why = "explicit padding must be smaller than the filter";
  if (why == NULL) return VKNN_STATUS_NONE;
  VKNN_LOG_E(log, "model", "%s: %s", name, why);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, pool_geometry *g) {
  const char *name = vknn_operation_type_name(op->type);
  /* The parameters first: their rules need no shape, so they are checked
   * at prepare even where the input's shape waits for the execution. */
  bool explicit_padding = is_explicit(op);
  int32_t v[9] = {0}; /* explicit: l r t b sx sy fw fh act; implicit: scheme sx sy fw fh act */
  uint32_t count = explicit_padding ? 9 : 6;
  bool nchw = false;
  vknn_status cs = vknn_op_require_constant_params(graph, op, 1, op->input_count - 1);
  if (cs != VKNN_STATUS_NONE) return cs;
  if (!vknn_graph_const_i32_list(graph, op, 1, count, v) ||
      (op->input_count > count + 1 && !vknn_graph_const_bool(graph, op->inputs[count + 1], &nchw)))
    return VKNN_STATUS_GENERAL_FAILURE;
  if (!explicit_padding && !vknn_op_check_padding_code(graph->log, op, v[0]))
    return VKNN_STATUS_INVALID_ARGUMENT;
  const int32_t *s = explicit_padding ? v + 4 : v + 1;
  vknn_status ps = check_parameters(graph->log, name, explicit_padding, v, s);
  if (ps != VKNN_STATUS_NONE) return ps;
  /* The window against the input's known extents (0: not known yet, as
   * the output's then), so that one that cannot fit, or a declared output
   * of other dimensions, is refused before an execution gives the shape. */
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_image_shape image = vknn_known_image_shape(in, nchw);
  g->nchw = nchw;
  g->batches = image.batches;
  g->channels = image.channels;
  g->in_h = image.height;
  g->in_w = image.width;
  g->activation = s[4];
  g->stride_x = (uint32_t)s[0];
  g->stride_y = (uint32_t)s[1];
  g->k_w = (uint32_t)s[2];
  g->k_h = (uint32_t)s[3];
  /* Explicit: paddings l r t b in v[0..3] (not negative); implicit: the scheme in v[0]. */
  int32_t scheme = explicit_padding ? -1 : v[0];
  uint32_t pads[4] = {0, 0, 0, 0};
  for (uint32_t k = 0; k < 4 && explicit_padding; ++k) pads[k] = (uint32_t)v[k];
  bool ok = vknn_window_extent(g->in_w, g->k_w, g->stride_x, 1, scheme, pads[0], pads[1], &g->out_w, &g->pad_left) &&
            vknn_window_extent(g->in_h, g->k_h, g->stride_y, 1, scheme, pads[2], pads[3], &g->out_h, &g->pad_top);
  if (!ok) {
    VKNN_LOG_E(graph->log, "model", "%s: the window does not fit the input", name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_image_shape out = {g->batches, g->out_h, g->out_w, g->channels};
  if (!in->shape_known) {
    vknn_status ks = vknn_op_check_known_image_output(graph, op, out, nchw);
    return ks != VKNN_STATUS_NONE ? ks : vknn_graph_defer(graph, op, "input shape unknown at prepare time");
  }
  /* The rank again: a rank the model leaves unknown passed its checks. */
  return vknn_op_check_known_rank(graph, op, 0, 4, 4);
}

static vknn_status infer_pool(vknn_graph *graph, const vknn_operation *op) {
  pool_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_image_shape out = {g.batches, g.out_h, g.out_w, g.channels};
  return vknn_op_set_image_output(graph, op, out, g.nchw);
}

/* Loop iterations of one output of pool2d.comp: the window's rows inside
 * the input, and its columns inside the input on each of them. */
static uint64_t window_iterations(const pool_geometry *g) {
  uint64_t rows = g->k_h < g->in_h ? g->k_h : g->in_h;
  uint64_t cols = g->k_w < g->in_w ? g->k_w : g->in_w;
  return rows + rows * cols;
}

/* Push constants of pool2d.comp, std430 layout. */
typedef struct pool_params {
  uint32_t in_h, in_w, channels;
  uint32_t batches, out_h, out_w;
  uint32_t k_w, k_h, stride_x, stride_y;
  int32_t pad_left, pad_top;
  float act_min, act_max;
} pool_params;
VKNN_PUSH_LAYOUT(pool2d, pool_params);

/* One output pixel whose window covers the whole image: every output is
 * the pooling of all its image's pixels (padding adds none). */
static bool global_window(const pool_geometry *g) {
  return g->out_h == 1 && g->out_w == 1 && (uint64_t)g->k_h >= (uint64_t)g->in_h + g->pad_top &&
         (uint64_t)g->k_w >= (uint64_t)g->in_w + g->pad_left;
}

/* A global pooling as a workgroup reduction over each image's pixels
 * (reduce.comp): lanes share a row instead of one invocation walking it. */
static vknn_status lower_global_pool(vknn_graph *graph, const vknn_operation *op, const pool_geometry *g,
                                     vknn_dispatch_list *out_list) {
  static const vknn_reduce_pooling poolings[] = {[POOL_AVERAGE] = VKNN_REDUCE_POOL_AVERAGE,
                                                 [POOL_MAX] = VKNN_REDUCE_POOL_MAX,
                                                 [POOL_L2] = VKNN_REDUCE_POOL_L2};
  const bool reduced[4] = {false, !g->nchw, true, g->nchw};
  float act_min = 0.f, act_max = 0.f;
  vknn_op_activation_bounds(graph, op, g->activation, &act_min, &act_max);
  return vknn_lower_pooling_reduction(graph, op->inputs[0], vknn_graph_op_output(graph, op, 0), reduced,
                                      poolings[pool_kind(op->type)], act_min, act_max, out_list);
}

static vknn_status lower_pool(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  pool_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  if (graph->kernels.global_pool_reduction && global_window(&g) && vknn_reduce_fits(graph, op))
    return lower_global_pool(graph, op, &g, out_list);
  if (!vknn_op_within_loop_budget(graph, vknn_operation_type_name(op->type), window_iterations(&g),
                                  "the window's rows and columns"))
    return VKNN_STATUS_GENERAL_FAILURE;
  static const vknn_shader_id shaders[] = {VKNN_SHADER_POOL2D_F32, VKNN_SHADER_POOL2D_F16,
                                           VKNN_SHADER_POOL2D_Q8, VKNN_SHADER_POOL2D_Q8S};
  uint32_t out_index = vknn_graph_op_output(graph, op, 0);
  pool_params p = {g.in_h, g.in_w, g.channels, g.batches, g.out_h, g.out_w, g.k_w, g.k_h,
                   g.stride_x, g.stride_y, (int32_t)g.pad_left, (int32_t)g.pad_top, 0.f, 0.f};
  vknn_op_activation_bounds(graph, op, g.activation, &p.act_min, &p.act_max);
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shaders[vknn_variant_of(graph->tensors[op->inputs[0]].type)];
  d->spec[VKNN_SPEC_POOL2D_NCHW] = g.nchw;
  d->spec[VKNN_SPEC_POOL2D_OP] = (uint32_t)pool_kind(op->type);
  d->spec_count = VKNN_SPEC_COUNT_POOL2D;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, out_index, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)g.batches * g.out_h * g.out_w * g.channels;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_average_pool_2d = {VKNN_OPERATION_AVERAGE_POOL_2D, true, validate_pool,
                                             infer_pool, lower_pool};
const vknn_op_def vknn_op_max_pool_2d = {VKNN_OPERATION_MAX_POOL_2D, true, validate_pool,
                                         infer_pool, lower_pool};
const vknn_op_def vknn_op_l2_pool_2d = {VKNN_OPERATION_L2_POOL_2D, true, validate_pool, infer_pool,
                                        lower_pool};
