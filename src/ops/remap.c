#include "ops/remap.h"

#include <stdlib.h>
#include <string.h>

#include "graph/runtime_check.h"
#include "model/operand_type.h"
#include "util/fault_injection.h"

void vknn_remap_set_axes(vknn_remap *r, const vknn_tensor *t) {
  int64_t stride = 1;
  r->axis_count = t->rank;
  for (int32_t a = (int32_t)t->rank - 1; a >= 0; --a) {
    r->axes[a].extent = t->dims[a];
    r->axes[a].stride = stride;
    r->axes[a].start = 0;
    r->axes[a].modulo = false;
    stride *= t->dims[a];
  }
  if (t->rank == 0) { /* a scalar: one axis of one element */
    r->axis_count = 1;
    r->axes[0].extent = 1;
    r->axes[0].stride = 1;
  }
}

int32_t vknn_remap_axis(const vknn_graph *graph, const vknn_operation *op, int32_t given) {
  return given < 0 ? given + (int32_t)graph->tensors[op->inputs[0]].rank : given;
}

bool vknn_remap_axis_parts_fit(const vknn_graph *graph, const vknn_operation *op, int32_t given, int32_t parts) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  int32_t axis = vknn_remap_axis(graph, op, given);
  if (parts <= 0) return false;
  return in->rank == 0 || (axis >= 0 && axis < (int32_t)in->rank && in->dims[axis] % (uint32_t)parts == 0);
}

vknn_status vknn_remap_image_shape(const vknn_graph *graph, const vknn_operation *op, bool nchw,
                                   vknn_image_shape *out) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  *out = (vknn_image_shape){0, 0, 0, 0};
  if (in->rank == 0) return VKNN_STATUS_NONE;
  vknn_status s = vknn_op_check_known_rank(graph, op, 0, 4, 4);
  if (s == VKNN_STATUS_NONE) *out = vknn_image_shape_of(in, nchw);
  return s;
}

void vknn_remap_add_view(vknn_remap *r, uint32_t size, uint32_t axis, int32_t mul) {
  r->view[r->view_rank].size = size;
  r->view[r->view_rank].axis = axis;
  r->view[r->view_rank].mul = mul;
  r->view_rank++;
}

uint32_t vknn_zero_pad_bits(const vknn_tensor *t) {
  return vknn_is_quant8(t->type) ? (uint32_t)t->zero_point & 0xffu : 0;
}

static vknn_shader_id shader_for(int32_t type) {
  switch (vknn_operand_type_element_size(type)) {
    case 1: return VKNN_SHADER_REMAP_B8;
    case 2: return VKNN_SHADER_REMAP_B16;
    default: return VKNN_SHADER_REMAP_B32;
  }
}

/* The map as the kernel reads it: a constant of int32 words. */
static uint32_t add_map_constant(vknn_graph *graph, const vknn_remap *r, uint64_t count) {
  enum { AXES = 4, VIEW = 4 + VKNN_REMAP_MAX * 4, WORDS = VIEW + VKNN_REMAP_MAX * 3 };
  int32_t *m = vknn_calloc(WORDS, sizeof(int32_t));
  if (m == NULL) return UINT32_MAX;
  m[0] = (int32_t)count;
  m[1] = (int32_t)r->view_rank;
  m[2] = (int32_t)r->axis_count;
  m[3] = (int32_t)r->pad_bits;
  for (uint32_t a = 0; a < r->axis_count; ++a) {
    m[AXES + a * 4] = (int32_t)r->axes[a].extent;
    m[AXES + a * 4 + 1] = (int32_t)r->axes[a].stride;
    m[AXES + a * 4 + 2] = r->axes[a].start;
    m[AXES + a * 4 + 3] = r->axes[a].modulo;
  }
  for (uint32_t d = 0; d < r->view_rank; ++d) {
    m[VIEW + d * 3] = (int32_t)r->view[d].size;
    m[VIEW + d * 3 + 1] = (int32_t)r->view[d].axis;
    m[VIEW + d * 3 + 2] = r->view[d].mul;
  }
  uint32_t words = WORDS;
  return vknn_graph_add_constant(graph, VKNN_OPERAND_TENSOR_INT32, &words, 1, m);
}

bool vknn_remap_param_ok(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                         uint32_t count) {
  const vknn_tensor *t = &graph->tensors[op->inputs[input]];
  if (t->shape_known && vknn_shape_element_count(t->dims, t->rank) == count) return true;
  if (!t->shape_known && t->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT) {
    vknn_graph_defer(graph, op, "a parameter's length is unknown at prepare time");
    return false;
  }
  VKNN_LOG_E(graph->log, "compilation", "%s: run-time parameter %u must have %u known elements",
             vknn_operation_type_name(op->type), input, count);
  return false;
}

void vknn_remap_set_dynamic(vknn_remap *r, uint32_t kind, uint32_t a, uint32_t b, uint32_t c) {
  r->dynamic.active = true;
  r->dynamic.kind = kind;
  r->dynamic.params[0] = a;
  r->dynamic.params[1] = b;
  r->dynamic.params[2] = c;
}

vknn_status vknn_remap_declared_output(vknn_graph *graph, const vknn_operation *op,
                                       uint32_t output, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *out = &graph->tensors[op->outputs[output]];
  if (!out->shape_known)
    return vknn_graph_defer(graph, op, "parameters known at run time decide the output shape");
  memcpy(dims, out->dims, out->rank * sizeof(uint32_t));
  *rank = out->rank;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_remap_declared_identity(vknn_graph *graph, const vknn_operation *op,
                                         vknn_remap *r, uint32_t *dims, uint32_t *rank) {
  const vknn_tensor *in = &graph->tensors[op->inputs[0]];
  vknn_status s = vknn_remap_declared_output(graph, op, 0, dims, rank);
  if (s != VKNN_STATUS_NONE) return s;
  if (*rank != in->rank) {
    VKNN_LOG_E(graph->log, "model", "%s: output rank %u, input rank %u",
               vknn_operation_type_name(op->type), *rank, in->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_remap_set_axes(r, in);
  for (uint32_t d = 0; d < *rank; ++d) vknn_remap_add_view(r, dims[d], d, 1);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_remap_dynamic_identity(vknn_graph *graph, const vknn_operation *op,
                                        uint32_t count, uint32_t kind, vknn_remap *r,
                                        uint32_t *dims, uint32_t *rank) {
  if (!vknn_remap_param_ok(graph, op, 1, count)) return VKNN_STATUS_GENERAL_FAILURE;
  vknn_status s = vknn_remap_declared_identity(graph, op, r, dims, rank);
  if (s == VKNN_STATUS_NONE) vknn_remap_set_dynamic(r, kind, op->inputs[1], UINT32_MAX, UINT32_MAX);
  return s;
}

VKNN_PUSH_LAYOUT(remap_params, vknn_remap_params_push);

/* The dispatch completing a map template into a map tensor on the GPU. */
static uint32_t lower_map_completion(vknn_graph *graph, const vknn_remap *r, uint32_t template_map,
                                     vknn_dispatch_list *out_list) {
  uint32_t words = graph->tensors[template_map].dims[0];
  uint32_t map = vknn_graph_add_temporary(graph, VKNN_OPERAND_TENSOR_INT32, &words, 1);
  vknn_dispatch *d = map == UINT32_MAX ? NULL : vknn_dispatch_list_add(out_list);
  if (d == NULL) return UINT32_MAX;
  d->shader = VKNN_SHADER_REMAP_PARAMS;
  d->spec[VKNN_SPEC_REMAP_PARAMS_OP] = r->dynamic.kind;
  d->spec_count = VKNN_SPEC_COUNT_REMAP_PARAMS;
  vknn_dispatch_bind(d, template_map, VKNN_ACCESS_READ);
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t param = r->dynamic.params[i];
    vknn_dispatch_bind(d, param == UINT32_MAX ? template_map : param, VKNN_ACCESS_READ);
  }
  vknn_dispatch_bind(d, map, VKNN_ACCESS_WRITE);
  vknn_remap_params_push push = r->dynamic.push;
  push.words = words;
  memcpy(d->push, &push, sizeof(push));
  d->push_size = sizeof(push);
  d->invocations = 1;
  return map;
}

/* remap.comp addresses in int32: every source extent and stride, and so
 * the source's element count, must fit (a larger source is unsupported). */
static bool source_fits_int32(const vknn_graph *graph, uint32_t src, const vknn_remap *r) {
  if (vknn_shape_element_count(graph->tensors[src].dims, graph->tensors[src].rank) > INT32_MAX) return false;
  for (uint32_t a = 0; a < r->axis_count; ++a)
    if (r->axes[a].extent > INT32_MAX || r->axes[a].stride > INT32_MAX) return false;
  return true;
}

vknn_status vknn_lower_remap(vknn_graph *graph, uint32_t src, uint32_t dst, const vknn_remap *r,
                             vknn_dispatch_list *out_list) {
  uint64_t count = 1;
  for (uint32_t d = 0; d < r->view_rank; ++d) count *= r->view[d].size;
  if (count > INT32_MAX || !source_fits_int32(graph, src, r)) {
    VKNN_LOG_E(graph->log, "compilation", "a copy of more than 2^31 - 1 elements is unsupported");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  /* The kernel writes every element of the map once; a map of another size
   * than its output would write past it or leave some of it unwritten. */
  const vknn_tensor *out = &graph->tensors[dst];
  if (count != vknn_shape_element_count(out->dims, out->rank) && !(out->rank == 0 && count == 1)) {
    VKNN_LOG_E(graph->log, "compilation", "a copy of %llu elements into an output of %llu",
               (unsigned long long)count,
               (unsigned long long)vknn_shape_element_count(out->dims, out->rank));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (count == 0) return VKNN_STATUS_NONE;
  uint32_t map = add_map_constant(graph, r, count);
  if (map != UINT32_MAX && r->dynamic.active) map = lower_map_completion(graph, r, map, out_list);
  if (map == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = shader_for(graph->tensors[src].type);
  vknn_dispatch_bind(d, src, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, dst, VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, map, VKNN_ACCESS_READ);
  d->invocations = count;
  return VKNN_STATUS_NONE;
}

/* The input rank NNAPI allows an operation on the copy kernel: up to 4 for
 * those whose documentation says so (validated on the model's declared
 * ranks; checked again here, where a rank the model left unknown is known). */
static uint32_t nnapi_max_rank(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_TRANSPOSE:
    case VKNN_OPERATION_STRIDED_SLICE:
    case VKNN_OPERATION_PAD:
    case VKNN_OPERATION_PAD_V2:
    case VKNN_OPERATION_CHANNEL_SHUFFLE:
    case VKNN_OPERATION_SPACE_TO_DEPTH:
    case VKNN_OPERATION_DEPTH_TO_SPACE:
    case VKNN_OPERATION_SPACE_TO_BATCH_ND:
    case VKNN_OPERATION_BATCH_TO_SPACE_ND: return 4;
    default: return VKNN_MAX_RANK;
  }
}

/* Whether every parameter (inputs 1 on) of op is a constant or omitted
 * (TRANSPOSE's perm, the one a remap operation may omit). */
static bool params_constant(const vknn_graph *graph, const vknn_operation *op) {
  for (uint32_t i = 1; i < op->input_count; ++i)
    if (graph->tensors[op->inputs[i]].constant_data == NULL && !vknn_graph_omitted(graph, op->inputs[i]))
      return false;
  return true;
}

/* The parameters' checks, then every declared output against the shape
 * they give as far as the known dimensions decide it. */
static vknn_status check_params(vknn_graph *graph, const vknn_operation *op, vknn_remap_checker check) {
  uint32_t dims[VKNN_MAX_RANK] = {0}, rank = 0;
  vknn_status s = check(graph, op, dims, &rank);
  for (uint32_t i = 0; i < op->output_count && s == VKNN_STATUS_NONE; ++i)
    s = vknn_op_check_known_output_at(graph, op, i, dims, rank);
  return s;
}

vknn_status vknn_remap_infer(vknn_graph *graph, const vknn_operation *op, vknn_remap_checker check,
                             vknn_remap_builder build) {
  vknn_status s = params_constant(graph, op) ? check_params(graph, op, check) : VKNN_STATUS_NONE;
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s == VKNN_STATUS_NONE) s = vknn_op_check_known_rank(graph, op, 0, 0, nnapi_max_rank(op->type));
  if (s == VKNN_STATUS_NONE && graph->tensors[op->inputs[0]].rank > VKNN_REMAP_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "%s: the copy kernel walks at most %d axes",
               vknn_operation_type_name(op->type), VKNN_REMAP_MAX);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  for (uint32_t i = 0; i < op->output_count && s == VKNN_STATUS_NONE; ++i) {
    vknn_remap r = {0};
    uint32_t dims[VKNN_MAX_RANK], rank = 0;
    s = build(graph, op, i, &r, dims, &rank);
    if (s == VKNN_STATUS_NONE) s = vknn_op_check_same_encoding(graph, op, i);
    if (s == VKNN_STATUS_NONE) s = vknn_op_set_output_shape(graph, op, i, dims, rank);
  }
  return s;
}

vknn_status vknn_remap_lower(vknn_graph *graph, const vknn_operation *op, vknn_remap_builder build,
                             vknn_dispatch_list *out_list) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < op->output_count && s == VKNN_STATUS_NONE; ++i) {
    vknn_remap r = {0};
    uint32_t dims[VKNN_MAX_RANK], rank = 0;
    s = build(graph, op, i, &r, dims, &rank);
    r.dynamic.push.check_code = vknn_graph_check_code(graph, op);
    if (s == VKNN_STATUS_NONE) s = vknn_lower_remap(graph, op->inputs[0], op->outputs[i], &r, out_list);
  }
  return s;
}
