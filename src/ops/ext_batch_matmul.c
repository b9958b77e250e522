/* BATCH_MATMUL of the extension org.vknn.transformer
 * (include/vknn/extensions/transformer.h), and the batched products
 * ATTENTION shares (ext_batch_matmul.h). A product whose right operand has
 * no batch of its own and is given transposed ([N, K], adj_y) is one matrix
 * product of every row of the batch: it runs on the convolution matrix
 * kernels (vknn_lower_matmul). Every other form runs on the tiled batched
 * kernel shaders/batch_matmul.comp. */
#include <math.h>
#include <string.h>

#include "model/extension.h"
#include "model/operand_type.h"
#include "ops/conv2d.h"
#include "ops/ext_batch_matmul.h"
#include "ops/known_dims.h"
#include "ops/remap.h"
#include "util/fault_injection.h"

#define LANES 64u
#define ROWS 4u /* batch_matmul.comp: output rows per invocation */

enum { IN_X = 0, IN_Y = 1, IN_ADJ_X = 2, IN_ADJ_Y = 3 };

/* Extent of batch slot s (0 outer, 1 inner) of a shape: its dimension
 * rank - 4 + s, or 1 where the shape has none. */
static uint32_t batch_extent(const uint32_t *dims, uint32_t rank, uint32_t s) {
  int32_t d = (int32_t)rank - 4 + (int32_t)s;
  return d >= 0 ? dims[d] : 1;
}

bool vknn_batch_broadcast(const uint32_t *x, uint32_t x_rank, const uint32_t *y, uint32_t y_rank,
                          uint32_t out_batch[2]) {
  for (uint32_t s = 0; s < 2; ++s) {
    uint32_t ex = batch_extent(x, x_rank, s), ey = batch_extent(y, y_rank, s);
    if (ex != ey && ex != 1 && ey != 1 && ex != 0 && ey != 0) return false;
    /* Either may be 0 (not known yet): the other, when above 1, is the extent. */
    out_batch[s] = ex == 1 ? ey : ey == 1 ? ex : (ex > ey ? ex : ey);
  }
  return true;
}

void vknn_batch_strides(const uint32_t *dims, uint32_t rank, uint32_t out_strides[2]) {
  uint32_t matrix = dims[rank - 2] * dims[rank - 1];
  uint32_t inner = batch_extent(dims, rank, 1);
  out_strides[1] = inner == 1 ? 0 : matrix;
  out_strides[0] = batch_extent(dims, rank, 0) == 1 ? 0 : matrix * inner;
}

vknn_batch_matmul vknn_batch_matmul_of(const vknn_graph *graph, uint32_t a, uint32_t b, uint32_t c,
                                       const uint32_t batch[2]) {
  const vknn_tensor *ta = &graph->tensors[a], *tb = &graph->tensors[b];
  uint32_t as[2], bs[2];
  vknn_batch_strides(ta->dims, ta->rank, as);
  vknn_batch_strides(tb->dims, tb->rank, bs);
  return (vknn_batch_matmul){.a = a, .b = b, .mask = UINT32_MAX, .c = c,
                             .batches = batch[0] * batch[1], .batch_inner = batch[1],
                             .a_outer = as[0], .a_inner = as[1], .b_outer = bs[0], .b_inner = bs[1],
                             .alpha = 1.f};
}

typedef struct ext_batch_matmul_params {
  uint32_t m, n, k;
  uint32_t a_row, a_col, b_row, b_col;
  uint32_t batches, batch_inner;
  uint32_t a_outer, a_inner, b_outer, b_inner;
  uint32_t mask_outer, mask_inner, mask_row, mask_col;
  uint32_t has_mask;
  uint32_t row_groups, col_blocks;
  float alpha;
} ext_batch_matmul_params;
VKNN_PUSH_LAYOUT(batch_matmul, ext_batch_matmul_params);

/* A copy of a tensor with its last two dimensions swapped (remap.comp);
 * UINT32_MAX when out of memory. */
static uint32_t transposed_copy(vknn_graph *graph, uint32_t tensor, vknn_dispatch_list *out_list) {
  const vknn_tensor *t = &graph->tensors[tensor];
  uint32_t rank = t->rank, dims[VKNN_MAX_RANK];
  memcpy(dims, t->dims, rank * sizeof(uint32_t));
  dims[rank - 2] = t->dims[rank - 1];
  dims[rank - 1] = t->dims[rank - 2];
  vknn_remap r = {0};
  vknn_remap_set_axes(&r, t);
  for (uint32_t d = 0; d + 2 < rank; ++d) vknn_remap_add_view(&r, dims[d], d, 1);
  vknn_remap_add_view(&r, dims[rank - 2], rank - 1, 1);
  vknn_remap_add_view(&r, dims[rank - 1], rank - 2, 1);
  uint32_t copy = vknn_graph_add_temporary(graph, t->type, dims, rank);
  if (copy == UINT32_MAX || vknn_lower_remap(graph, tensor, copy, &r, out_list) != VKNN_STATUS_NONE)
    return UINT32_MAX;
  return copy;
}

/* Operands not contiguous along k are copied transposed, so that the kernel
 * loads four k at a time (VEC_K): a copy costs one pass over the operand,
 * the product reads it m or n times. */
static vknn_status make_contiguous_along_k(vknn_graph *graph, vknn_batch_matmul *bm,
                                           vknn_dispatch_list *out_list) {
  uint32_t strides[2];
  if (bm->k % 4 != 0) return VKNN_STATUS_NONE;
  if (bm->a_col != 1) {
    bm->a = transposed_copy(graph, bm->a, out_list);
    if (bm->a == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_batch_strides(graph->tensors[bm->a].dims, graph->tensors[bm->a].rank, strides);
    bm->a_row = bm->k;
    bm->a_col = 1;
    bm->a_outer = strides[0];
    bm->a_inner = strides[1];
  }
  if (bm->b_row != 1) {
    bm->b = transposed_copy(graph, bm->b, out_list);
    if (bm->b == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_batch_strides(graph->tensors[bm->b].dims, graph->tensors[bm->b].rank, strides);
    bm->b_row = 1;
    bm->b_col = bm->k;
    bm->b_outer = strides[0];
    bm->b_inner = strides[1];
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_lower_batch_matmul(vknn_graph *graph, const vknn_batch_matmul *product,
                                    vknn_dispatch_list *out_list) {
  vknn_batch_matmul contiguous = *product;
  const vknn_batch_matmul *bm = &contiguous;
  vknn_status s = make_contiguous_along_k(graph, &contiguous, out_list);
  if (s != VKNN_STATUS_NONE) return s;
  /* 8 columns per workgroup where the rows are many enough to keep the
   * device busy with fewer workgroups. */
  uint32_t cols = bm->n >= 32 ? 8 : 4;
  uint32_t row_groups = (bm->m + LANES * ROWS - 1) / (LANES * ROWS);
  uint32_t col_blocks = (bm->n + cols - 1) / cols;
  ext_batch_matmul_params p = {bm->m, bm->n, bm->k, bm->a_row, bm->a_col, bm->b_row, bm->b_col,
                               bm->batches, bm->batch_inner, bm->a_outer, bm->a_inner,
                               bm->b_outer, bm->b_inner, bm->mask_outer, bm->mask_inner,
                               bm->mask_row, bm->mask_col, bm->mask != UINT32_MAX, row_groups,
                               col_blocks, bm->alpha};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  /* Both operands contiguous along k, every row starting at a multiple of 4
   * elements (the batch strides are multiples of the rows'). */
  bool vec_k = bm->a_col == 1 && bm->b_row == 1 && bm->k % 4 == 0;
  if (!vknn_op_within_loop_budget(graph, "BATCH_MATMUL", vec_k ? bm->k / 4 : bm->k, "the products along K"))
    return VKNN_STATUS_GENERAL_FAILURE;
  /* Texel reads where the device prefers them (operand_reads.glsl). */
  bool texel = graph->kernels.texel_reads && vknn_fits_texels(graph, bm->a, vec_k) &&
               vknn_fits_texels(graph, bm->b, vec_k);
  int32_t type = graph->tensors[bm->c].type;
  static const vknn_shader_id shaders[2][2] = {
      {VKNN_SHADER_BATCH_MATMUL_F32, VKNN_SHADER_BATCH_MATMUL_F32_TEXEL},
      {VKNN_SHADER_BATCH_MATMUL_F16, VKNN_SHADER_BATCH_MATMUL_F16_TEXEL}};
  d->shader = shaders[type == VKNN_OPERAND_TENSOR_FLOAT16][texel];
  d->local_size = LANES;
  d->spec[VKNN_SPEC_BATCH_MATMUL_COLS] = cols;
  d->spec[VKNN_SPEC_BATCH_MATMUL_VEC_K] = vec_k;
  d->spec_count = VKNN_SPEC_COUNT_BATCH_MATMUL;
  if (texel) {
    vknn_dispatch_bind_texel(d, bm->a, vknn_texel_format_of(type, vec_k));
    vknn_dispatch_bind_texel(d, bm->b, vknn_texel_format_of(type, vec_k));
  } else {
    vknn_dispatch_bind(d, bm->a, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, bm->b, VKNN_ACCESS_READ);
  }
  /* Without a mask the kernel reads none: a stands in. */
  vknn_dispatch_bind(d, bm->mask != UINT32_MAX ? bm->mask : bm->a, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, bm->c, VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)bm->batches * row_groups * col_blocks * LANES;
  return VKNN_STATUS_NONE;
}

static vknn_status validate_batch_matmul(const vknn_logger *log, const vknn_model *model,
                                         const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts_optional(log, sg, op, 4, 1, 0)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *x = &sg->operands[op->inputs[IN_X]];
  const vknn_operand *y = &sg->operands[op->inputs[IN_Y]];
  if (!vknn_is_float_tensor(x->type) || x->dimension_count == 1 ||
      x->dimension_count > VKNN_BATCH_MATMUL_MAX_RANK || y->dimension_count == 1 ||
      y->dimension_count > VKNN_BATCH_MATMUL_MAX_RANK) {
    VKNN_LOG_E(log, "model", "BATCH_MATMUL: %s operands of rank %u and %u are not allowed "
               "(float32 or float16, rank 2 to %d)", vknn_operand_type_name(x->type),
               x->dimension_count, y->dimension_count, VKNN_BATCH_MATMUL_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_op_check_type(log, op, "y", y, x->type) &&
            vknn_op_check_type(log, op, "adj_x", &sg->operands[op->inputs[IN_ADJ_X]], VKNN_OPERAND_BOOL) &&
            vknn_op_check_type(log, op, "adj_y", &sg->operands[op->inputs[IN_ADJ_Y]], VKNN_OPERAND_BOOL) &&
            vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], x->type);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* The product's shapes, from known input shapes and constant flags. */
typedef struct matmul_shape {
  bool adj_x, adj_y;
  uint32_t m, n, k;
  uint32_t batch[2];
  uint32_t out_dims[VKNN_BATCH_MATMUL_MAX_RANK];
  uint32_t out_rank;
} matmul_shape;

/* The flags; given as model inputs, they are compiled per execution with
 * their values. */
static vknn_status read_flags(vknn_graph *graph, const vknn_operation *op, matmul_shape *s) {
  vknn_status st = vknn_op_require_constant_params(graph, op, IN_ADJ_X, 2);
  if (st != VKNN_STATUS_NONE) return st;
  if (!vknn_graph_const_bool(graph, op->inputs[IN_ADJ_X], &s->adj_x) ||
      !vknn_graph_const_bool(graph, op->inputs[IN_ADJ_Y], &s->adj_y))
    return VKNN_STATUS_GENERAL_FAILURE;
  return VKNN_STATUS_NONE;
}

/* Ranks 2 to 4, K of x and y and their batches, as far as the dimensions
 * are known (ops/known_dims.h: 0 not known yet); exact once the shapes are. */
static vknn_status check_operands(vknn_graph *graph, const vknn_operation *op, matmul_shape *s) {
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_X]];
  const vknn_tensor *y = &graph->tensors[op->inputs[IN_Y]];
  if (x->rank < 2 || x->rank > VKNN_BATCH_MATMUL_MAX_RANK || y->rank < 2 ||
      y->rank > VKNN_BATCH_MATMUL_MAX_RANK) {
    VKNN_LOG_E(graph->log, "model", "BATCH_MATMUL: ranks %u and %u (2 to %d)", x->rank, y->rank,
               VKNN_BATCH_MATMUL_MAX_RANK);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const uint32_t *xd = x->dims + x->rank - 2, *yd = y->dims + y->rank - 2;
  s->m = s->adj_x ? xd[1] : xd[0];
  s->k = s->adj_x ? xd[0] : xd[1];
  s->n = s->adj_y ? yd[0] : yd[1];
  uint32_t k_y = s->adj_y ? yd[1] : yd[0];
  if (vknn_dims_agree(s->k, k_y) && vknn_batch_broadcast(x->dims, x->rank, y->dims, y->rank, s->batch))
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "BATCH_MATMUL: the operands' shapes do not match "
             "(K %u and %u, or batches that do not broadcast)", s->k, k_y);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* The flags and the operands' shapes known so far are checked before the
 * operation waits for the rest: a model whose shapes an execution gives
 * still has them checked at prepare. The model gives a rank with its
 * dimensions, even those an execution gives; a rank it leaves unknown
 * waits. */
static vknn_status read_shape(vknn_graph *graph, const vknn_operation *op, matmul_shape *s) {
  vknn_status st = read_flags(graph, op, s);
  for (uint32_t i = IN_X; i <= IN_Y && st == VKNN_STATUS_NONE; ++i)
    if (graph->tensors[op->inputs[i]].rank == 0) st = vknn_op_require_input_shape(graph, op, i);
  if (st == VKNN_STATUS_NONE) st = check_operands(graph, op, s);
  if (st == VKNN_STATUS_NONE) st = vknn_op_require_input_shapes(graph, op, IN_Y + 1);
  if (st != VKNN_STATUS_NONE) return st;
  const vknn_tensor *x = &graph->tensors[op->inputs[IN_X]];
  const vknn_tensor *y = &graph->tensors[op->inputs[IN_Y]];
  s->out_rank = x->rank > y->rank ? x->rank : y->rank;
  for (uint32_t d = 0; d + 2 < s->out_rank; ++d) s->out_dims[d] = s->batch[4 - s->out_rank + d];
  s->out_dims[s->out_rank - 2] = s->m;
  s->out_dims[s->out_rank - 1] = s->n;
  return VKNN_STATUS_NONE;
}

static vknn_status infer_batch_matmul(vknn_graph *graph, const vknn_operation *op) {
  matmul_shape s;
  vknn_status st = read_shape(graph, op, &s);
  if (st != VKNN_STATUS_NONE) return st;
  return vknn_op_set_output_shape(graph, op, 0, s.out_dims, s.out_rank);
}

/* y [N, K] without a batch: every row of x's batch times the same matrix. */
static bool is_rows_product(const vknn_graph *graph, const vknn_operation *op,
                            const matmul_shape *s) {
  const vknn_tensor *y = &graph->tensors[op->inputs[IN_Y]];
  uint32_t y_strides[2];
  vknn_batch_strides(y->dims, y->rank, y_strides);
  return !s->adj_x && s->adj_y && y_strides[0] == 0 && y_strides[1] == 0;
}

static vknn_status lower_rows_product(vknn_graph *graph, const vknn_operation *op,
                                      const matmul_shape *s, vknn_dispatch_list *out_list) {
  int32_t type = graph->tensors[op->outputs[0]].type;
  uint32_t n = s->n;
  void *zeros = vknn_calloc(n, type == VKNN_OPERAND_TENSOR_FLOAT16 ? 2 : 4);
  if (zeros == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint32_t bias = vknn_graph_add_constant(graph, type, &n, 1, zeros);
  if (bias == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_matmul m = {.t = {.input = op->inputs[IN_X], .filter = op->inputs[IN_Y], .bias = bias,
                         .output = op->outputs[0], .multipliers = UINT32_MAX, .act_min = -INFINITY,
                         .act_max = INFINITY},
                   .rows = s->batch[0] * s->batch[1] * s->m, .k = s->k, .n = s->n};
  return vknn_lower_matmul(graph, &m, out_list);
}

static vknn_status lower_batch_matmul(vknn_graph *graph, const vknn_operation *op,
                                      vknn_dispatch_list *out_list) {
  matmul_shape s;
  vknn_status st = read_shape(graph, op, &s);
  if (st != VKNN_STATUS_NONE) return st;
  if (is_rows_product(graph, op, &s)) return lower_rows_product(graph, op, &s, out_list);
  vknn_batch_matmul bm =
      vknn_batch_matmul_of(graph, op->inputs[IN_X], op->inputs[IN_Y], op->outputs[0], s.batch);
  bm.m = s.m;
  bm.n = s.n;
  bm.k = s.k;
  /* x [.., M, K] or adjoint [.., K, M]; y [.., K, N] or adjoint [.., N, K]. */
  bm.a_row = s.adj_x ? 1 : s.k;
  bm.a_col = s.adj_x ? s.m : 1;
  bm.b_row = s.adj_y ? 1 : s.n;
  bm.b_col = s.adj_y ? s.k : 1;
  return vknn_lower_batch_matmul(graph, &bm, out_list);
}

const vknn_op_def vknn_op_transformer_batch_matmul = {VKNN_OPERATION_TRANSFORMER_BATCH_MATMUL,
                                                      false, validate_batch_matmul,
                                                      infer_batch_matmul, lower_batch_matmul};
