/* MEAN, REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY and
 * REDUCE_ALL: one result per combination of the kept axes, over the axes an
 * INT32 tensor lists (negative ones count from the end, a repeated one counts
 * once), the reduced axes kept as 1 when keep_dims says so. Kernel:
 * shaders/reduce.comp. Also the rows and passes every reduction shares
 * (ops/reduce.h; ARGMAX and ARGMIN in arg_minmax.c use them). */
#include "ops/reduce.h"

#include <string.h>

#include "model/operand_type.h"

/* NNAPI: "Supported tensor rank: up to 4" for all seven. */
#define REDUCE_MAX_RANK 4

/* Codes of reduce.comp's OP. */
enum { OP_SUM = 0, OP_PROD, OP_MAX, OP_MIN, OP_MEAN, OP_ANY, OP_ALL, OP_POOL_AVERAGE, OP_POOL_L2, OP_POOL_MAX };

/* Quantized MEAN sums codes in int32: at most 255 per element. */
#define QUANT_MEAN_MAX_ROW (1u << 23)

/* ---- rows and passes (ops/reduce.h) ------------------------------------- */

/* Invocations per workgroup: within the 128 every Vulkan device supports. */
#define REDUCE_GROUP 64
/* Elements one lane reduces in a pass: at most MAX_PER_LANE (a longer row
 * is split across workgroups); split rows are cut finer, down to
 * MIN_PER_LANE, while fewer than MIN_GROUPS workgroups would run. */
#define MAX_PER_LANE 32
#define MIN_PER_LANE 8
#define MIN_GROUPS 64

typedef struct run {
  uint64_t extent;
  bool reduced;
} run;

bool vknn_reduce_rows_of(const uint32_t *dims, uint32_t rank, const bool *reduced,
                         vknn_reduce_rows *out) {
  run runs[VKNN_MAX_RANK];
  uint32_t count = 0;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] == 1) continue;
    if (count > 0 && runs[count - 1].reduced == reduced[d]) runs[count - 1].extent *= dims[d];
    else runs[count++] = (run){dims[d], reduced[d]};
  }
  /* Right-aligned in [outer, row_outer, middle, row_inner, inner]: kept runs
   * in the even slots, reduced ones in the odd, the last axes innermost. */
  uint64_t slots[5] = {1, 1, 1, 1, 1};
  int slot = count > 0 && runs[count - 1].reduced ? 3 : 4;
  for (uint32_t i = count; i-- > 0; --slot) {
    if (slot < 0) return false;
    slots[slot] = runs[i].extent;
  }
  for (int s = 0; s < 5; ++s)
    if (slots[s] > UINT32_MAX) return false;
  *out = (vknn_reduce_rows){(uint32_t)slots[0], (uint32_t)slots[1], (uint32_t)slots[2],
                            (uint32_t)slots[3], (uint32_t)slots[4]};
  return true;
}

bool vknn_reduce_fits(const vknn_graph *graph, const vknn_operation *op) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (vknn_shape_element_count(in->dims, in->rank) <= UINT32_MAX) return true;
  VKNN_LOG_E(graph->log, "compilation", "%s: an input of more than 2^32 elements is not supported",
             vknn_operation_type_name(op->type));
  return false;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The smallest power of two >= n, at most cap (a power of two). */
static uint32_t pow2_at_least(uint64_t n, uint32_t cap) {
  uint32_t p = 1;
  while (p < n && p < cap) p *= 2;
  return p;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* How one pass covers its rows. */
typedef struct pass_plan {
  uint32_t out_lanes, row_lanes;
  uint64_t tiles, splits, chunk;
} pass_plan;

/* Lanes across outputs where neighbouring outputs read neighbouring
 * elements (a long inner run: lanes walk it together), else 8 lanes along
 * each row (its elements are contiguous), more when fewer than 8 outputs
 * leave the workgroup room; then rows are split so that no lane reduces
 * more than MAX_PER_LANE elements. On lavapipe 8 lanes a row (one SIMD
 * vector of lanes, 3 tree steps, more elements a lane) summed 1024 rows of
 * 1024 floats in 1.2 ms where 64 lanes took 4.8 ms. */
static pass_plan plan_pass(uint64_t outputs, uint32_t inner, uint64_t row) {
  pass_plan q;
  if (inner >= 8) {
    q.out_lanes = pow2_at_least(min_u64(outputs, 16), 16);
    q.row_lanes = pow2_at_least(row, REDUCE_GROUP / q.out_lanes);
  } else {
    q.out_lanes = pow2_at_least(outputs, REDUCE_GROUP / 8);
    q.row_lanes = pow2_at_least(row, REDUCE_GROUP / q.out_lanes);
  }
  q.tiles = ceil_div(outputs, q.out_lanes);
  q.splits = ceil_div(row, (uint64_t)q.row_lanes * MAX_PER_LANE);
  /* Rows split anyway (a combining pass follows): split them further when
   * too few workgroups would run. */
  if (q.splits > 1 && q.tiles * q.splits < MIN_GROUPS) {
    uint64_t most = ceil_div(row, (uint64_t)q.row_lanes * MIN_PER_LANE);
    q.splits = max_u64(q.splits, min_u64(ceil_div(MIN_GROUPS, q.tiles), most));
  }
  q.chunk = ceil_div(row, q.splits);
  q.splits = ceil_div(row, q.chunk); /* no empty split */
  return q;
}

/* Appends one pass reading source and writing target. */
static vknn_status add_pass(const vknn_reduce_lowering *r, const vknn_reduce_rows *rows,
                            const pass_plan *q, const vknn_reduce_pass *pass, uint32_t source,
                            uint32_t target, vknn_dispatch_list *out_list) {
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  r->set_kernel(r->context, pass, d);
  d->local_size = q->out_lanes * q->row_lanes;
  vknn_reduce_params p = {rows->outer * rows->middle * rows->inner,
                          rows->inner,
                          rows->middle,
                          rows->row_outer,
                          rows->row_inner,
                          rows->row_outer * rows->row_inner,
                          (uint32_t)q->chunk,
                          (uint32_t)q->splits,
                          r->count,
                          r->act_min,
                          r->act_max};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  vknn_dispatch_bind(d, source, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, target, VKNN_ACCESS_WRITE);
  d->invocations = q->tiles * q->splits * d->local_size;
  return VKNN_STATUS_NONE;
}

/* Reading 4 elements at a time where they are neighbours: a row of
 * contiguous elements a multiple of 4 long, or inner runs of a multiple of
 * 4 (4 outputs at once); rows then count vectors. Partials are read one at
 * a time. */
static vknn_reduce_vectors choose_vectors(vknn_reduce_rows *rows, bool reads_partials) {
  if (reads_partials) return VKNN_REDUCE_SCALARS;
  if (rows->inner == 1 && rows->row_outer == 1 && rows->row_inner % 4 == 0) {
    rows->row_inner /= 4;
    return VKNN_REDUCE_ROW_VECTORS;
  }
  if (rows->inner % 4 == 0) {
    rows->inner /= 4;
    return VKNN_REDUCE_OUTPUT_VECTORS;
  }
  return VKNN_REDUCE_SCALARS;
}

vknn_status vknn_lower_reduce(vknn_graph *graph, const vknn_reduce_lowering *r,
                              vknn_dispatch_list *out_list) {
  vknn_reduce_rows rows = r->rows;
  uint32_t source = r->input;
  bool reads_partials = false;
  for (;;) {
    vknn_reduce_vectors vectors = choose_vectors(&rows, reads_partials);
    uint64_t outputs = (uint64_t)rows.outer * rows.middle * rows.inner;
    pass_plan q = plan_pass(outputs, rows.inner, (uint64_t)rows.row_outer * rows.row_inner);
    vknn_reduce_pass pass = {reads_partials, q.splits > 1, q.out_lanes, vectors};
    if (vectors == VKNN_REDUCE_OUTPUT_VECTORS) outputs *= 4;
    uint32_t target = r->output;
    if (pass.writes_partials) {
      uint32_t words = (uint32_t)(outputs * q.splits * r->partial_words);
      target = vknn_graph_add_temporary(graph, r->partial_type, &words, 1);
      if (target == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    }
    vknn_status s = add_pass(r, &rows, &q, &pass, source, target, out_list);
    if (s != VKNN_STATUS_NONE || !pass.writes_partials) return s;
    /* The partials: a row of `splits` per output. */
    rows = (vknn_reduce_rows){(uint32_t)outputs, (uint32_t)q.splits, 1, 1, 1};
    source = target;
    reads_partials = true;
  }
}

/* ---- the operations ------------------------------------------------------ */

typedef struct reduce_kind {
  int32_t op_type;
  uint32_t code; /* reduce.comp's OP */
  int32_t keep_dims_type;
  int32_t types[4]; /* input (and output) types, 0-terminated */
} reduce_kind;

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED

static const reduce_kind kinds[] = {
    {VKNN_OPERATION_REDUCE_SUM, OP_SUM, VKNN_OPERAND_BOOL, {F32, F16}},
    {VKNN_OPERATION_REDUCE_PROD, OP_PROD, VKNN_OPERAND_BOOL, {F32, F16}},
    {VKNN_OPERATION_REDUCE_MAX, OP_MAX, VKNN_OPERAND_BOOL, {F32, F16, Q8, Q8S}},
    {VKNN_OPERATION_REDUCE_MIN, OP_MIN, VKNN_OPERAND_BOOL, {F32, F16, Q8, Q8S}},
    {VKNN_OPERATION_REDUCE_ANY, OP_ANY, VKNN_OPERAND_BOOL, {VKNN_OPERAND_TENSOR_BOOL8}},
    {VKNN_OPERATION_REDUCE_ALL, OP_ALL, VKNN_OPERAND_BOOL, {VKNN_OPERAND_TENSOR_BOOL8}},
    /* MEAN's keep_dims is an INT32: positive keeps the reduced axes. */
    {VKNN_OPERATION_MEAN, OP_MEAN, VKNN_OPERAND_INT32, {F32, F16, Q8, Q8S}},
};

static const reduce_kind *kind_of(int32_t op_type) {
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
    if (kinds[i].op_type == op_type) return &kinds[i];
  return NULL;
}

static bool type_allowed(const reduce_kind *k, int32_t type) {
  for (int i = 0; i < 4 && k->types[i] != 0; ++i)
    if (k->types[i] == type) return true;
  return false;
}

static const char *op_name(const vknn_operation *op) { return vknn_operation_type_name(op->type); }

static vknn_status validate_reduction(const vknn_logger *log, const vknn_model *model,
                                      const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  const reduce_kind *k = kind_of(op->type);
  if (!vknn_op_check_counts(log, sg, op, 3, 3, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  const vknn_operand *axes = &sg->operands[op->inputs[1]];
  if (!type_allowed(k, in->type) || in->dimension_count > REDUCE_MAX_RANK) {
    VKNN_LOG_E(log, "model", "%s: input %s of rank %u is not allowed", op_name(op),
               vknn_operand_type_name(in->type), in->dimension_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]], in->type) &&
            vknn_op_check_type(log, op, "axes", axes, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "axes", axes, 1) &&
            vknn_op_check_type(log, op, "keep_dims", &sg->operands[op->inputs[2]], k->keep_dims_type) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

/* Operation input i when the execution gives it: a model input that is an
 * integer tensor of at most 64 elements, or a scalar, is known then
 * (docs/architecture.md, "Shapes known only at execution time"); a longer one,
 * or a value computed in the graph, never is. */
static vknn_status defer_parameter(vknn_graph *graph, const vknn_operation *op, uint32_t i) {
  const vknn_tensor *t = &graph->tensors[op->inputs[i]];
  if (t->type == VKNN_OPERAND_TENSOR_INT32 && t->shape_known &&
      vknn_shape_element_count(t->dims, t->rank) > 64) {
    VKNN_LOG_E(graph->log, "compilation", "%s: more than 64 axes given at run time are not supported",
               op_name(op));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return vknn_op_require_constant_params(graph, op, i, 1);
}

/* The axes listed (each in [-rank, rank)), marked in reduced. */
static vknn_status mark_axes(const vknn_graph *graph, const vknn_operation *op, int32_t rank,
                             bool reduced[VKNN_MAX_RANK]) {
  const vknn_tensor *axes = &graph->tensors[op->inputs[1]];
  uint64_t count = vknn_shape_element_count(axes->dims, axes->rank);
  memset(reduced, 0, VKNN_MAX_RANK * sizeof(bool));
  for (uint64_t i = 0; i < count; ++i) {
    int32_t axis;
    uint32_t at;
    memcpy(&axis, axes->constant_data + i * sizeof(axis), sizeof(axis));
    vknn_status s = vknn_op_axis(graph, op, axis, (uint32_t)rank, &at);
    if (s != VKNN_STATUS_NONE) return s;
    reduced[at] = true;
  }
  return VKNN_STATUS_NONE;
}

/* keep_dims: a BOOL, or MEAN's INT32 (positive keeps the reduced axes). */
static bool keep_dims_of(const vknn_tensor *keep) {
  if (keep->type == VKNN_OPERAND_BOOL) return keep->constant_data[0] != 0;
  int32_t value;
  memcpy(&value, keep->constant_data, sizeof(value));
  return value > 0;
}

uint32_t vknn_reduced_shape(const vknn_tensor *in, const bool *reduced, bool keep_dims, uint32_t *dims) {
  uint32_t rank = 0;
  for (uint32_t d = 0; d < in->rank; ++d) {
    if (!reduced[d]) dims[rank++] = in->dims[d];
    else if (keep_dims) dims[rank++] = 1;
  }
  if (rank == 0) dims[rank++] = 1;
  return rank;
}

/* The axes to reduce and keep_dims, read and checked before the input's
 * shape: a model whose shape waits for an execution still has them checked
 * at prepare. The model gives the rank with its dimensions, even those an
 * execution gives; a rank it leaves unknown waits. */
static vknn_status read_axes(vknn_graph *graph, const vknn_operation *op,
                             bool reduced[VKNN_MAX_RANK], bool *keep_dims) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  const vknn_tensor *keep = &graph->tensors[op->inputs[2]];
  if (graph->tensors[op->inputs[1]].constant_data == NULL) return defer_parameter(graph, op, 1);
  vknn_status s = in->rank == 0 ? vknn_op_require_input_shape(graph, op, 0) : VKNN_STATUS_NONE;
  /* The rank limit again: a rank the model leaves unknown passed its checks. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, REDUCE_MAX_RANK);
  /* The axes' rank again: one the model leaves unknown passed validation. */
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 1, 1, 1);
  if (s == VKNN_STATUS_NONE) s = mark_axes(graph, op, (int32_t)in->rank, reduced);
  if (s == VKNN_STATUS_NONE && keep->constant_data == NULL) s = defer_parameter(graph, op, 2);
  if (s != VKNN_STATUS_NONE) return s;
  *keep_dims = keep_dims_of(keep);
  if (!in->shape_known && in->lifetime != VKNN_LIFETIME_NO_VALUE) {
    uint32_t dims[VKNN_MAX_RANK];
    s = vknn_op_check_known_output(graph, op, dims, vknn_reduced_shape(in, reduced, *keep_dims, dims));
  }
  return s == VKNN_STATUS_NONE ? vknn_op_require_input_shape(graph, op, 0) : s;
}

/* Elements reduced into each output. */
static uint64_t row_length(const vknn_tensor *in, const bool *reduced) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < in->rank; ++d)
    if (reduced[d]) n *= in->dims[d];
  return n;
}

static vknn_status infer_reduction(vknn_graph *graph, const vknn_operation *op) {
  bool reduced[VKNN_MAX_RANK], keep_dims;
  vknn_status s = read_axes(graph, op, reduced, &keep_dims);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_reduce_fits(graph, op)) return VKNN_STATUS_GENERAL_FAILURE;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  if (op->type == VKNN_OPERATION_MEAN && vknn_is_quant8(in->type) &&
      row_length(in, reduced) > QUANT_MEAN_MAX_ROW) {
    VKNN_LOG_E(graph->log, "compilation", "MEAN: a quantized mean of more than %u elements is not supported",
               QUANT_MEAN_MAX_ROW);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint32_t dims[VKNN_MAX_RANK];
  return vknn_op_set_output_shape(graph, op, 0, dims, vknn_reduced_shape(in, reduced, keep_dims, dims));
}

/* The kernel of one reduction: its variant, operation code and whether it
 * clamps its results (a pooling's activation). */
typedef struct reduce_kernel {
  vknn_shader_id shader;
  uint32_t code;
  bool clamp;
} reduce_kernel;

static void set_reduce_kernel(const void *context, const vknn_reduce_pass *pass, vknn_dispatch *d) {
  const reduce_kernel *k = context;
  d->shader = k->shader;
  d->spec[VKNN_SPEC_REDUCE_OP] = k->code;
  d->spec[VKNN_SPEC_REDUCE_CLAMP] = k->clamp;
  d->spec[VKNN_SPEC_REDUCE_OUT_LANES] = pass->out_lanes;
  d->spec[VKNN_SPEC_REDUCE_READS_PARTIALS] = pass->reads_partials;
  d->spec[VKNN_SPEC_REDUCE_WRITES_PARTIALS] = pass->writes_partials;
  d->spec[VKNN_SPEC_REDUCE_VECTORS] = pass->vectors;
  d->spec_count = VKNN_SPEC_COUNT_REDUCE;
}

/* By element storage: float32, float16, uint8 (QUANT8_ASYMM and BOOL8), int8. */
static vknn_shader_id reduce_shader(int32_t type) {
  switch (type) {
    case F32: return VKNN_SHADER_REDUCE_F32;
    case F16: return VKNN_SHADER_REDUCE_F16;
    case Q8S: return VKNN_SHADER_REDUCE_Q8S;
    default: return VKNN_SHADER_REDUCE_Q8;
  }
}

VKNN_PUSH_LAYOUT(reduce, vknn_reduce_params);

/* The reduce.comp passes of input's `reduced` axes into output, with the
 * operation code; clamped to [act_min, act_max] when clamp. */
static vknn_status lower_axes(vknn_graph *graph, uint32_t input, uint32_t output, const bool *reduced,
                              uint32_t code, bool clamp, float act_min, float act_max,
                              vknn_dispatch_list *out_list) {
  const vknn_tensor *in = &graph->tensors[input];
  reduce_kernel kernel = {reduce_shader(in->type), code, clamp};
  vknn_reduce_lowering r = {.input = input,
                            .output = output,
                            .partial_type = vknn_is_float_tensor(in->type) ? F32 : VKNN_OPERAND_TENSOR_INT32,
                            .partial_words = 1,
                            .count = (uint32_t)row_length(in, reduced),
                            .act_min = act_min,
                            .act_max = act_max,
                            .set_kernel = set_reduce_kernel,
                            .context = &kernel};
  if (!vknn_reduce_rows_of(in->dims, in->rank, reduced, &r.rows)) return VKNN_STATUS_GENERAL_FAILURE;
  return vknn_lower_reduce(graph, &r, out_list);
}

static vknn_status lower_reduction(vknn_graph *graph, const vknn_operation *op,
                                   vknn_dispatch_list *out_list) {
  bool reduced[VKNN_MAX_RANK], keep_dims;
  vknn_status s = read_axes(graph, op, reduced, &keep_dims);
  if (s != VKNN_STATUS_NONE) return s;
  return lower_axes(graph, op->inputs[0], vknn_graph_op_output(graph, op, 0), reduced, kind_of(op->type)->code,
                    false, 0.f, 0.f, out_list);
}

vknn_status vknn_lower_pooling_reduction(vknn_graph *graph, uint32_t input, uint32_t output,
                                         const bool *reduced, vknn_reduce_pooling pooling,
                                         float act_min, float act_max, vknn_dispatch_list *out_list) {
  static const uint32_t codes[] = {[VKNN_REDUCE_POOL_AVERAGE] = OP_POOL_AVERAGE,
                                   [VKNN_REDUCE_POOL_MAX] = OP_POOL_MAX,
                                   [VKNN_REDUCE_POOL_L2] = OP_POOL_L2};
  return lower_axes(graph, input, output, reduced, codes[pooling], true, act_min, act_max, out_list);
}

#define REDUCE_OP_DEF(name, TYPE)                                                         \
  const vknn_op_def vknn_op_##name = {VKNN_OPERATION_##TYPE, false, validate_reduction,   \
                                      infer_reduction, lower_reduction}

REDUCE_OP_DEF(mean, MEAN);
REDUCE_OP_DEF(reduce_sum, REDUCE_SUM);
REDUCE_OP_DEF(reduce_prod, REDUCE_PROD);
REDUCE_OP_DEF(reduce_max, REDUCE_MAX);
REDUCE_OP_DEF(reduce_min, REDUCE_MIN);
REDUCE_OP_DEF(reduce_any, REDUCE_ANY);
REDUCE_OP_DEF(reduce_all, REDUCE_ALL);
