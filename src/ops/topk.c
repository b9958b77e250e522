/* TOPK_V2: the k largest entries of every row (the last axis), sorted
 * descending, with their indices; equal values rank the larger index first
 * (NNAPI's rule, the reference's order). Kernel: shaders/topk.comp, a
 * workgroup per row sorting in shared memory. A row longer than one sort
 * (TOPK_SORT_MAX) is cut into chunks whose k best candidates are sorted
 * again, pass after pass, until one sort holds a row's candidates: each pass
 * at least halves them while k <= TOPK_SORT_MAX / 2. Longer rows with a
 * larger k are reported unsupported. */
#include <string.h>

#include "ops/op_common.h"
#include "model/operand_type.h"

/* Entries one workgroup sorts: two arrays of 32-bit words in 16 KiB, the
 * shared memory every Vulkan device has. */
#define TOPK_SORT_MAX 2048u
#define TOPK_LANES_MAX 256u

static bool topk_type_allowed(int32_t type) {
  return vknn_variant_of(type) >= 0 || type == VKNN_OPERAND_TENSOR_INT32;
}

static vknn_status validate_topk(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 2, 2, 2)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *in = &sg->operands[op->inputs[0]];
  if (!topk_type_allowed(in->type)) {
    VKNN_LOG_E(log, "model", "TOPK_V2: input type %s is not allowed", vknn_operand_type_name(in->type));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  const vknn_operand *values = &sg->operands[op->outputs[0]];
  const vknn_operand *indices = &sg->operands[op->outputs[1]];
  bool ok = vknn_op_check_type(log, op, "k", &sg->operands[op->inputs[1]], VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the values (output 0)", values, in->type) &&
            vknn_op_check_type(log, op, "the indices (output 1)", indices, VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_same_quant(log, sg, op, 0);
  if (ok && in->dimension_count != 0 &&
      ((values->dimension_count != 0 && values->dimension_count != in->dimension_count) ||
       (indices->dimension_count != 0 && indices->dimension_count != in->dimension_count))) {
    VKNN_LOG_E(log, "model", "TOPK_V2: outputs must have the input's rank %u", in->dimension_count);
    ok = false;
  }
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct topk_geometry {
  uint32_t rows, length, k;
} topk_geometry;

/* k in [1, the last dimension]; a last dimension of 0 is not known yet
 * (ops/known_dims.h). */
static vknn_status check_k(const vknn_graph *graph, int32_t k, uint32_t length) {
  if (k >= 1 && (length == 0 || (uint32_t)k <= length)) return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model", "TOPK_V2: k %d is not in [1, %u] (the last dimension)", k, length);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* Both outputs: the input's shape with the last dimension k, the others 0
 * where not known yet (ops/known_dims.h). */
static void topk_shape(const vknn_tensor *in, uint32_t k, uint32_t *dims) {
  memcpy(dims, in->dims, in->rank * sizeof(uint32_t));
  if (in->rank != 0) dims[in->rank - 1] = k;
}

/* Both declared outputs against the dimensions known (none while the rank
 * is not). */
static vknn_status check_known_outputs(const vknn_graph *graph, const vknn_operation *op, uint32_t k) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK];
  topk_shape(in, k, dims);
  vknn_status s = vknn_op_check_known_output_at(graph, op, 0, dims, in->rank);
  return s == VKNN_STATUS_NONE ? vknn_op_check_known_output_at(graph, op, 1, dims, in->rank) : s;
}

/* k is read and checked before the input's shape, against the last
 * dimension where the model gives it (exact once the shape is known), and
 * so are the declared outputs against the known dimensions: a model whose
 * shape waits for an execution still has them checked at prepare (k given
 * as a model input is compiled per execution with its value). */
static vknn_status read_geometry(vknn_graph *graph, const vknn_operation *op, topk_geometry *g) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t k;
  vknn_status s = vknn_op_require_constant_params(graph, op, 1, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, 1, 1, &k)) return VKNN_STATUS_GENERAL_FAILURE;
  s = check_k(graph, k, in->rank != 0 ? in->dims[in->rank - 1] : 0);
  if (s == VKNN_STATUS_NONE) s = check_known_outputs(graph, op, (uint32_t)k);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  g->length = in->dims[in->rank - 1];
  uint64_t rows = vknn_shape_element_count(in->dims, in->rank) / g->length;
  g->k = (uint32_t)k;
  uint64_t first_pass_groups = rows * ((g->length + TOPK_SORT_MAX - 1) / TOPK_SORT_MAX);
  if (first_pass_groups > UINT32_MAX || (g->length > TOPK_SORT_MAX && g->k > TOPK_SORT_MAX / 2)) {
    VKNN_LOG_E(graph->log, "compilation",
               "TOPK_V2: rows of %u with k %u: rows longer than %u run with k up to %u only",
               g->length, g->k, TOPK_SORT_MAX, TOPK_SORT_MAX / 2);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  g->rows = (uint32_t)rows;
  return VKNN_STATUS_NONE;
}

static vknn_status infer_topk(vknn_graph *graph, const vknn_operation *op) {
  topk_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  uint32_t dims[VKNN_MAX_RANK];
  topk_shape(in, g.k, dims);
  s = vknn_op_set_output_shape(graph, op, 0, dims, in->rank);
  if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, 1, dims, in->rank);
  return s;
}

/* Push constants of topk.comp, std430 layout. */
typedef struct topk_params {
  uint32_t entries, chunks, keep, groups, row_length;
} topk_params;
VKNN_PUSH_LAYOUT(topk, topk_params);

/* Element kinds of topk.comp's KIND. */
static uint32_t topk_kind(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_FLOAT32: return 0;
    case VKNN_OPERAND_TENSOR_FLOAT16: return 1;
    case VKNN_OPERAND_TENSOR_INT32: return 2;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: return 3;
    default: return 4; /* TENSOR_QUANT8_ASYMM_SIGNED */
  }
}

static uint32_t sort_size_for(uint32_t entries) {
  uint32_t size = 2;
  while (size < entries) size <<= 1;
  return size;
}

/* One sorting pass over `length` entries per row, in workgroups of one sort
 * each; the caller binds its tensors. */
static vknn_dispatch *add_pass(vknn_dispatch_list *out_list, vknn_shader_id shader, uint32_t kind,
                               const topk_geometry *g, uint32_t length) {
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return NULL;
  uint32_t sort_size = sort_size_for(length < TOPK_SORT_MAX ? length : TOPK_SORT_MAX);
  uint32_t chunks = (length + sort_size - 1) / sort_size;
  topk_params p = {length, chunks, g->k, g->rows * chunks, g->length};
  d->shader = shader;
  d->spec[VKNN_SPEC_TOPK_KIND] = kind;
  d->spec[VKNN_SPEC_TOPK_SORT_SIZE] = sort_size;
  d->spec_count = VKNN_SPEC_COUNT_TOPK;
  d->local_size = sort_size / 2 < TOPK_LANES_MAX ? sort_size / 2 : TOPK_LANES_MAX;
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.groups * d->local_size;
  return d;
}

/* A row's candidates after a chunked pass over `length` entries. */
static uint32_t candidates_after(const topk_geometry *g, uint32_t length) {
  return (length + TOPK_SORT_MAX - 1) / TOPK_SORT_MAX * g->k;
}

static uint32_t add_candidates(vknn_graph *graph, const topk_geometry *g, uint32_t count) {
  const uint32_t dims[3] = {g->rows, count, 2}; /* (key, index + 1) pairs */
  return vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_INT32, dims, 3);
}

/* Long rows: chunks to candidates, candidates to fewer candidates until
 * one sort holds them; returns the last candidates' tensor. */
static vknn_status lower_candidates(vknn_graph *graph, const vknn_operation *op, const topk_geometry *g,
                                    uint32_t kind, vknn_dispatch_list *out_list, uint32_t *out_tensor,
                                    uint32_t *out_count) {
  uint32_t length = g->length, source = op->inputs[0];
  vknn_shader_id shader = VKNN_SHADER_TOPK_CHUNK;
  while (length > TOPK_SORT_MAX) {
    uint32_t count = candidates_after(g, length);
    uint32_t target = add_candidates(graph, g, count);
    vknn_dispatch *d = target == UINT32_MAX ? NULL : add_pass(out_list, shader, kind, g, length);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_dispatch_bind(d, source, VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, target, VKNN_ACCESS_WRITE);
    source = target;
    length = count;
    shader = VKNN_SHADER_TOPK_MERGE;
  }
  *out_tensor = source;
  *out_count = length;
  return VKNN_STATUS_NONE;
}

static vknn_status lower_topk(vknn_graph *graph, const vknn_operation *op, vknn_dispatch_list *out_list) {
  topk_geometry g;
  vknn_status s = read_geometry(graph, op, &g);
  if (s != VKNN_STATUS_NONE) return s;
  uint32_t kind = topk_kind(graph->tensors[op->inputs[0]].type);
  uint32_t values = vknn_graph_op_output(graph, op, 0), indices = vknn_graph_op_output(graph, op, 1);
  if (g.length <= TOPK_SORT_MAX) {
    vknn_dispatch *d = add_pass(out_list, VKNN_SHADER_TOPK_ROW, kind, &g, g.length);
    if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
    vknn_dispatch_bind(d, values, VKNN_ACCESS_WRITE);
    vknn_dispatch_bind(d, indices, VKNN_ACCESS_WRITE);
    return VKNN_STATUS_NONE;
  }
  uint32_t candidates, count;
  s = lower_candidates(graph, op, &g, kind, out_list, &candidates, &count);
  vknn_dispatch *d = s == VKNN_STATUS_NONE ? add_pass(out_list, VKNN_SHADER_TOPK_FINAL, kind, &g, count) : NULL;
  if (d == NULL) return s != VKNN_STATUS_NONE ? s : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, values, VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, candidates, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, indices, VKNN_ACCESS_WRITE);
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_topk_v2 = {VKNN_OPERATION_TOPK_V2, false, validate_topk, infer_topk, lower_topk};
