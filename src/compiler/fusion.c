/* Fusion: a RELU, RELU1 or RELU6 whose input is a temporary that only it
 * reads, produced by an operation that applies a fused activation, becomes
 * part of that producer: the producer clamps to both activations and writes
 * the activation's output directly. No dispatch is left for the activation.
 * Likewise unary chains into elementwise kernels, PADs into convolutions,
 * ADDs of a residual into the convolutions that produce their other input,
 * and convolutions write their slice of a CONCATENATION directly. */
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/operation_registry.h"
#include "ops/conv2d.h"
#include "ops/op_common.h"

static int32_t activation_code(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_RELU: return VKNN_FUSED_RELU;
    case VKNN_OPERATION_RELU1: return VKNN_FUSED_RELU1;
    case VKNN_OPERATION_RELU6: return VKNN_FUSED_RELU6;
    default: return -1;
  }
}

static int32_t producer_of(const vknn_graph *graph, uint32_t tensor, uint32_t before) {
  for (uint32_t k = 0; k < before; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    for (uint32_t i = 0; i < op->output_count; ++i)
      if (op->outputs[i] == tensor) return (int32_t)k;
  }
  return -1;
}

static bool same_encoding(const vknn_tensor *a, const vknn_tensor *b) {
  return a->type == b->type && a->scale == b->scale && a->zero_point == b->zero_point;
}

static bool can_fuse(const vknn_graph *graph, const vknn_operation *act, int32_t producer) {
  if (producer < 0) return false;
  const vknn_operation *p = &graph->sg->operations[producer];
  const vknn_op_def *def = vknn_op_find_in(graph->model, p->type);
  const vknn_op_fusion *f = &graph->fusion[producer];
  uint32_t middle = act->inputs[0];
  return def != NULL && def->applies_activation && p->output_count == 1 &&
         f->output_override == UINT32_MAX && !f->fused_away &&
         graph->tensors[middle].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE &&
         graph->sg->operands[middle].number_of_consumers == 1 &&
         same_encoding(&graph->tensors[middle], &graph->tensors[act->outputs[0]]);
}

void vknn_fuse_activations(vknn_graph *graph) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *act = &graph->sg->operations[k];
    int32_t code = activation_code(act->type);
    if (code < 0 || act->input_count != 1 || act->output_count != 1) continue;
    int32_t producer = producer_of(graph, act->inputs[0], k);
    if (!can_fuse(graph, act, producer)) continue;
    graph->fusion[producer].extra_activation = code;
    graph->fusion[producer].output_override = act->outputs[0];
    graph->fusion[k].fused_away = true;
    VKNN_LOG_V(graph->log, "compilation", "operation %u (%s) fused into operation %d", k,
               vknn_operation_type_name(act->type), producer);
  }
}

/* The operation, not fused away, whose kernel writes tensor; -1 if none
 * before operation `before`. */
static int32_t writer_of(const vknn_graph *graph, uint32_t tensor, uint32_t before) {
  for (uint32_t k = 0; k < before; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    if (!graph->fusion[k].fused_away && op->output_count == 1 &&
        vknn_graph_op_output(graph, op, 0) == tensor)
      return (int32_t)k;
  }
  return -1;
}

static bool hosts_post_ops(const vknn_graph *graph, const vknn_operation *op) {
  return vknn_binary_hosts_post_ops(graph, op) || vknn_unary_hosts_post_ops(graph, op);
}

/* The unary operation reads a temporary only it reads, of the same type,
 * written by an elementwise kernel with room for one more step. */
static bool can_chain(const vknn_graph *graph, const vknn_operation *unary, int32_t host) {
  if (host < 0) return false;
  const vknn_operation *h = &graph->sg->operations[host];
  uint32_t middle = unary->inputs[0];
  return hosts_post_ops(graph, h) && graph->fusion[host].post_count < VKNN_MAX_POST_OPS &&
         graph->tensors[middle].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE &&
         middle < graph->sg->operand_count &&
         graph->sg->operands[middle].number_of_consumers == 1 &&
         graph->tensors[middle].type == graph->tensors[unary->outputs[0]].type;
}

void vknn_fuse_elementwise_chains(vknn_graph *graph) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    uint32_t code;
    float alpha;
    if (graph->fusion[k].fused_away || op->input_count < 1 || op->output_count != 1 ||
        !vknn_unary_as_post_op(graph, op, &code, &alpha))
      continue;
    int32_t host = writer_of(graph, op->inputs[0], k);
    if (!can_chain(graph, op, host)) continue;
    vknn_op_fusion *f = &graph->fusion[host];
    f->post_codes[f->post_count] = code;
    f->post_alpha[f->post_count] = alpha;
    f->post_count++;
    f->output_override = op->outputs[0];
    graph->fusion[k].fused_away = true;
    VKNN_LOG_V(graph->log, "compilation", "operation %u (%s) chained into operation %d", k,
               vknn_operation_type_name(op->type), host);
  }
}

/* The PAD writes a temporary only op reads, as its input 0, and op takes
 * the PAD's padding into its own. */
static bool can_absorb_pad(const vknn_graph *graph, const vknn_operation *op, int32_t pad,
                           uint32_t amounts[4]) {
  bool nchw;
  if (pad < 0 || graph->fusion[pad].fused_away || !vknn_conv_absorbs_pad(graph, op, &nchw)) return false;
  const vknn_operation *p = &graph->sg->operations[pad];
  uint32_t middle = op->inputs[0];
  return p->output_count == 1 && p->outputs[0] == middle &&
         graph->fusion[pad].output_override == UINT32_MAX &&
         graph->tensors[middle].lifetime == VKNN_LIFETIME_TEMPORARY_VARIABLE &&
         graph->sg->operands[middle].number_of_consumers == 1 &&
         vknn_pad_spatial_amounts(graph, p, nchw, amounts);
}

void vknn_fuse_pads(vknn_graph *graph) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    if (graph->fusion[k].fused_away || op->input_count < 1) continue;
    int32_t pad = producer_of(graph, op->inputs[0], k);
    uint32_t amounts[4];
    if (!can_absorb_pad(graph, op, pad, amounts)) continue;
    vknn_op_fusion *f = &graph->fusion[k];
    f->input_override = graph->sg->operations[pad].inputs[0];
    memcpy(f->pad, amounts, sizeof(f->pad));
    graph->fusion[pad].fused_away = true;
    VKNN_LOG_V(graph->log, "compilation", "operation %d (PAD) fused into operation %u (%s)", pad, k,
               vknn_operation_type_name(op->type));
  }
}

/* Input i of the CONCATENATION (operation k) is a temporary that only the
 * CONCATENATION reads, once, encoded as its output, and a convolution-family
 * kernel writes it: that kernel can write the output's slice instead. */
static int32_t slice_writer(const vknn_graph *graph, const vknn_operation *concat, uint32_t k,
                            uint32_t i, uint32_t out) {
  uint32_t in = concat->inputs[i];
  if (in >= graph->sg->operand_count || graph->sg->operands[in].number_of_consumers != 1 ||
      graph->tensors[in].lifetime != VKNN_LIFETIME_TEMPORARY_VARIABLE ||
      graph->tensors[in].alias_of != UINT32_MAX ||
      !same_encoding(&graph->tensors[in], &graph->tensors[out]))
    return -1;
  for (uint32_t j = 0; j + 1 < concat->input_count; ++j)
    if (j != i && concat->inputs[j] == in) return -1;
  int32_t w = writer_of(graph, in, k);
  if (w < 0 || !vknn_conv_writes_slices(graph->sg->operations[w].type) ||
      graph->fusion[w].out_slice.row != 0)
    return -1;
  return w;
}

/* The CONCATENATION's axis and the output's elements per axis step
 * (inner); false when not known here. */
static bool concat_axis(const vknn_graph *graph, const vknn_operation *concat, uint32_t *axis,
                        uint32_t *inner) {
  const vknn_tensor *out = &graph->tensors[vknn_graph_op_output(graph, concat, 0)];
  int32_t value;
  if (!out->shape_known || !vknn_graph_const_i32(graph, concat->inputs[concat->input_count - 1], &value) ||
      value < -(int32_t)out->rank || value >= (int32_t)out->rank)
    return false;
  *axis = (uint32_t)(value < 0 ? value + (int32_t)out->rank : value);
  /* Along rows the data decide, the slices' places are known only on the GPU. */
  if (*axis == 0 && out->count_slot != 0) return false;
  uint64_t elements = 1;
  for (uint32_t d = *axis + 1; d < out->rank; ++d) elements *= out->dims[d];
  if (elements * out->dims[*axis] > UINT32_MAX) return false;
  *inner = (uint32_t)elements;
  return true;
}

void vknn_fuse_concat_slices(vknn_graph *graph) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *op = &graph->sg->operations[k];
    uint32_t axis, inner;
    if (op->type != VKNN_OPERATION_CONCATENATION || graph->fusion[k].fused_away ||
        !concat_axis(graph, op, &axis, &inner))
      continue;
    uint32_t out = vknn_graph_op_output(graph, op, 0);
    uint32_t out_axis = graph->tensors[out].dims[axis], along = 0;
    for (uint32_t i = 0; i + 1 < op->input_count && i < 64; ++i) {
      uint32_t in_axis = graph->tensors[op->inputs[i]].dims[axis];
      int32_t w = slice_writer(graph, op, k, i, out);
      if (w >= 0) {
        graph->fusion[w].output_override = out;
        graph->fusion[w].out_slice = (vknn_out_slice){inner * in_axis, inner * out_axis, inner * along};
        graph->fusion[k].inputs_in_place |= 1ull << i;
        VKNN_LOG_V(graph->log, "compilation", "operation %d (%s) writes input %u of operation %u "
                   "(CONCATENATION) in place", w, vknn_operation_type_name(graph->sg->operations[w].type),
                   i, k);
      }
      along += in_axis;
    }
  }
}

/* An ADD nothing else was merged into: it alone writes its output. */
static bool plain_add(const vknn_graph *graph, const vknn_operation *add, uint32_t k) {
  const vknn_op_fusion *f = &graph->fusion[k];
  return add->type == VKNN_OPERATION_ADD && add->input_count == 3 && add->output_count == 1 &&
         !f->fused_away && f->extra_activation < 0 && f->post_count == 0 &&
         f->output_override == UINT32_MAX && f->out_slice.row == 0;
}

static bool same_shape(const vknn_tensor *a, const vknn_tensor *b) {
  return a->shape_known && b->shape_known && a->rank == b->rank &&
         memcmp(a->dims, b->dims, a->rank * sizeof(a->dims[0])) == 0;
}

/* Both addends and the sum: one float type, one shape (no broadcast). */
static bool residual_operands(const vknn_graph *graph, uint32_t mid, uint32_t residual, uint32_t sum) {
  const vknn_tensor *m = &graph->tensors[mid], *r = &graph->tensors[residual], *s = &graph->tensors[sum];
  return mid != residual && vknn_is_float_tensor(m->type) && r->type == m->type && s->type == m->type &&
         same_shape(m, s) && same_shape(r, s);
}

/* The convolution now runs where it stands: a residual that an operation
 * writes (a temporary or a model output) must be written before it (w);
 * model inputs and constants are there from the start. */
static bool ready_before(const vknn_graph *graph, uint32_t residual, uint32_t k, int32_t w) {
  return writer_of(graph, residual, k) < 0 || writer_of(graph, residual, (uint32_t)w) >= 0;
}

/* The convolution writing input mid of the ADD (operation k), when it can
 * take the ADD's other input as its residual; -1 otherwise. */
static int32_t residual_host(vknn_graph *graph, const vknn_operation *add, uint32_t k, uint32_t mid,
                             uint32_t residual) {
  if (mid >= graph->sg->operand_count || graph->sg->operands[mid].number_of_consumers != 1 ||
      graph->tensors[mid].lifetime != VKNN_LIFETIME_TEMPORARY_VARIABLE ||
      graph->tensors[mid].alias_of != UINT32_MAX || !residual_operands(graph, mid, residual, add->outputs[0]))
    return -1;
  int32_t w = writer_of(graph, mid, k);
  if (w < 0) return -1;
  const vknn_op_fusion *f = &graph->fusion[w];
  if (f->out_slice.row != 0 || f->post_count != 0 || f->residual != UINT32_MAX ||
      !ready_before(graph, residual, k, w))
    return -1;
  /* Whether it can depends on its kernel, which may be its own (tuned). */
  vknn_graph_use_kernels_of(graph, (uint32_t)w);
  bool takes = vknn_conv_takes_residual(graph, &graph->sg->operations[w]);
  vknn_graph_use_kernels_of(graph, UINT32_MAX);
  return takes ? w : -1;
}

void vknn_fuse_residual_adds(vknn_graph *graph) {
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    const vknn_operation *add = &graph->sg->operations[k];
    int32_t code;
    if (!plain_add(graph, add, k) || !vknn_graph_const_i32(graph, add->inputs[2], &code)) continue;
    for (uint32_t side = 0; side < 2; ++side) {
      uint32_t mid = add->inputs[side], residual = add->inputs[1 - side];
      int32_t w = residual_host(graph, add, k, mid, residual);
      if (w < 0) continue;
      vknn_op_fusion *f = &graph->fusion[w];
      f->residual = residual;
      vknn_op_activation_bounds(graph, add, code, &f->residual_min, &f->residual_max);
      f->output_override = add->outputs[0];
      graph->fusion[k].fused_away = true;
      VKNN_LOG_V(graph->log, "compilation", "operation %u (ADD) fused into operation %d (%s)", k, w,
                 vknn_operation_type_name(graph->sg->operations[w].type));
      break;
    }
  }
}
