/* SVDF: a rank-limited dense layer over a sequence of frames. The feature
 * filters (weights_feature [filters, input_size], filters = units * rank)
 * run as one matrix product on the matrix kernels; shaders/svdf.comp
 * shifts the state's memory ([batch, filters, memory_size]) by one frame,
 * appends the new activations, and filters it in time (weights_time
 * [filters, memory_size]), summing each unit's rank filters. */
#include <math.h>
#include <string.h>

#include "ops/rnn.h"
#include "ops/known_dims.h"
#include "ops/conv2d.h"
#include "model/operand_type.h"
#include "util/fault_injection.h"

enum {
  IN_INPUT, IN_FEATURE, IN_TIME, IN_BIAS, IN_STATE, IN_RANK, IN_ACTIVATION, INPUT_COUNT,
};

static bool check_tensors(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op) {
  static const char *names[] = {"the input", "weights_feature", "weights_time", "the bias",
                                "the state"};
  static const uint32_t ranks[] = {2, 2, 2, 1, 2};
  int32_t type = sg->operands[op->inputs[IN_INPUT]].type;
  for (uint32_t i = 0; i <= IN_STATE; ++i) {
    const vknn_operand *operand = &sg->operands[op->inputs[i]];
    if (i == IN_BIAS && operand->lifetime == VKNN_LIFETIME_NO_VALUE) continue;
    /* The bias may be a model input declared [0], to be omitted. */
    uint32_t rank = i == IN_BIAS ? 0 : ranks[i];
    if (!vknn_rnn_check_float(log, op, names[i], operand, type) ||
        (rank != 0 && !vknn_op_check_rank(log, op, names[i], operand, rank)))
      return false;
  }
  for (uint32_t o = 0; o < 2; ++o)
    if (!vknn_rnn_check_tensor(log, op, o == 0 ? "the state output" : "the output",
                               &sg->operands[op->outputs[o]], type, 2))
      return false;
  return true;
}

static vknn_status validate_svdf(const vknn_logger *log, const vknn_model *model,
                                 const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (op->input_count != INPUT_COUNT || op->output_count != 2) {
    VKNN_LOG_E(log, "model", "SVDF takes 7 inputs and 2 outputs, got %u and %u", op->input_count,
               op->output_count);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < INPUT_COUNT; ++i) {
    if (i == IN_BIAS || sg->operands[op->inputs[i]].lifetime != VKNN_LIFETIME_NO_VALUE) continue;
    VKNN_LOG_E(log, "model", "SVDF: input %u is omitted but not optional", i);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ok = check_tensors(log, sg, op) &&
            vknn_op_check_type(log, op, "the rank", &sg->operands[op->inputs[IN_RANK]],
                               VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the activation", &sg->operands[op->inputs[IN_ACTIVATION]],
                               VKNN_OPERAND_INT32);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

typedef struct svdf_shape {
  int32_t type;
  uint32_t batch, input_size, filters, memory, rank, units;
  bool has_bias;
  float act_min, act_max;
} svdf_shape;

/* The given inputs' shapes known, else the operation waits for an execution. */
static vknn_status require_shapes(vknn_graph *graph, const vknn_operation *op, bool has_bias) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i <= IN_STATE && s == VKNN_STATUS_NONE; ++i)
    if (i != IN_BIAS || has_bias) s = vknn_op_require_input_shape(graph, op, i);
  return s;
}

/* The extents as far as the operands give them (0: not known yet), each
 * from the first operand that gives it. */
static void read_known_extents(const vknn_graph *graph, const vknn_operation *op, uint32_t rank,
                               svdf_shape *s) {
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *in = &t[op->inputs[IN_INPUT]], *state = &t[op->inputs[IN_STATE]];
  const vknn_tensor *feature = &t[op->inputs[IN_FEATURE]], *time = &t[op->inputs[IN_TIME]];
  const uint32_t batch[] = {vknn_known_dim(in, 2, 0), vknn_known_dim(state, 2, 0)};
  const uint32_t input_size[] = {vknn_known_dim(in, 2, 1), vknn_known_dim(feature, 2, 1)};
  const uint32_t filters[] = {vknn_known_dim(feature, 2, 0), vknn_known_dim(time, 2, 0)};
  s->type = in->type;
  s->batch = vknn_first_known_dim(batch, 2);
  s->input_size = vknn_first_known_dim(input_size, 2);
  s->filters = vknn_first_known_dim(filters, 2);
  s->memory = vknn_known_dim(time, 2, 1);
  s->rank = rank;
  s->units = s->filters / rank;
}

/* The state holds memory x filters values a batch: a known width is their
 * product, or where one of them is not known yet a multiple of the other. */
static bool state_width_fits(uint32_t width, uint32_t memory, uint32_t filters) {
  if (width == 0) return true;
  if (memory != 0 && filters != 0) return width == (uint64_t)memory * filters;
  uint32_t known = memory != 0 ? memory : filters;
  return known == 0 || width % known == 0;
}

/* The shapes as far as their dimensions are known (ops/known_dims.h), the
 * bias's where it is given (bias: vknn_known_presence); exact once every
 * shape is known. */
static bool shapes_agree(const vknn_graph *graph, const vknn_operation *op, const svdf_shape *s,
                         int bias) {
  const vknn_tensor *t = graph->tensors;
  const vknn_tensor *state = &t[op->inputs[IN_STATE]];
  return s->filters % s->rank == 0 &&
         vknn_dims_fit(&t[op->inputs[IN_INPUT]], 2, s->batch, s->input_size) &&
         vknn_dims_fit(&t[op->inputs[IN_FEATURE]], 2, s->filters, s->input_size) &&
         vknn_dims_fit(&t[op->inputs[IN_TIME]], 2, s->filters, s->memory) &&
         vknn_dims_fit(state, 2, s->batch, 0) &&
         state_width_fits(vknn_known_dim(state, 2, 1), s->memory, s->filters) &&
         (bias != 1 || vknn_dims_fit(&t[op->inputs[IN_BIAS]], 1, s->units, 0));
}

/* The rank and the activation, read and checked before the shapes: a model
 * whose shapes wait for an execution still has them checked at prepare. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, int32_t params[2]) {
  vknn_status s = vknn_op_require_constant_params(graph, op, IN_RANK, 2);
  if (s == VKNN_STATUS_NONE && !vknn_graph_const_i32_list(graph, op, IN_RANK, 2, params))
    s = VKNN_STATUS_GENERAL_FAILURE;
  if (s != VKNN_STATUS_NONE) return s;
  if (params[0] <= 0) {
    VKNN_LOG_E(graph->log, "model", "SVDF: rank %d must be above 0", params[0]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!vknn_activation_valid(params[1])) {
    VKNN_LOG_E(graph->log, "model", "SVDF: activation %d is not a fused activation code", params[1]);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The parameters, then the shapes against each other as far as they are
 * known, then the operation waits for what it does not know: whether an
 * execution gives the bias, and the shapes. */
static vknn_status read_svdf(vknn_graph *graph, const vknn_operation *op, svdf_shape *s) {
  int32_t params[2]; /* rank, activation */
  vknn_status st = read_params(graph, op, params);
  if (st != VKNN_STATUS_NONE) return st;
  read_known_extents(graph, op, (uint32_t)params[0], s);
  int bias = vknn_known_presence(graph, op->inputs[IN_BIAS]);
  if (!shapes_agree(graph, op, s, bias)) {
    VKNN_LOG_E(graph->log, "model",
               "SVDF: rank %d and the shapes of the input, weights_feature, weights_time, bias "
               "and state do not agree (batch %u, input %u, filters %u, memory %u; 0: not known "
               "yet)", params[0], s->batch, s->input_size, s->filters, s->memory);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (bias < 0)
    return vknn_graph_defer(graph, op, "whether the bias is omitted is known at execution");
  s->has_bias = bias == 1;
  st = require_shapes(graph, op, s->has_bias);
  if (st != VKNN_STATUS_NONE) return st;
  const vknn_tensor *in = &graph->tensors[op->inputs[IN_INPUT]];
  vknn_activation_bounds(params[1], in, &s->act_min, &s->act_max);
  if ((uint64_t)s->batch * s->filters * s->memory > INT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation", "SVDF: a state of %u x %u x %u is too large", s->batch,
               s->filters, s->memory);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status infer_svdf(vknn_graph *graph, const vknn_operation *op) {
  svdf_shape s;
  vknn_status st = read_svdf(graph, op, &s);
  if (st != VKNN_STATUS_NONE) return st;
  uint32_t state[2] = {s.batch, s.memory * s.filters}, out[2] = {s.batch, s.units};
  st = vknn_op_set_output_shape(graph, op, 0, state, 2);
  return st == VKNN_STATUS_NONE ? vknn_op_set_output_shape(graph, op, 1, out, 2) : st;
}

typedef struct svdf_params {
  uint32_t batch, units, rank, memory;
  uint32_t has_bias;
  float act_min, act_max;
} svdf_params;
VKNN_PUSH_LAYOUT(svdf, svdf_params);

/* act[b, f] = input[b] . weights_feature[f], into a temporary. */
static vknn_status add_features(vknn_graph *graph, const vknn_operation *op, const svdf_shape *s,
                                uint32_t *out_act, vknn_dispatch_list *out_list) {
  uint32_t dims[2] = {s->batch, s->filters};
  void *zeros = vknn_calloc(s->filters, s->type == VKNN_OPERAND_TENSOR_FLOAT16 ? 2 : 4);
  uint32_t bias = zeros != NULL ? vknn_graph_add_constant(graph, s->type, &s->filters, 1, zeros)
                                : UINT32_MAX;
  *out_act = vknn_graph_add_temporary(graph, s->type, dims, 2);
  if (bias == UINT32_MAX || *out_act == UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_matmul m = {.t = {.input = op->inputs[IN_INPUT], .filter = op->inputs[IN_FEATURE], .bias = bias,
                         .output = *out_act, .act_min = -INFINITY, .act_max = INFINITY},
                   .rows = s->batch, .k = s->input_size, .n = s->filters};
  return vknn_lower_matmul(graph, &m, out_list);
}

static vknn_status lower_svdf(vknn_graph *graph, const vknn_operation *op,
                              vknn_dispatch_list *out_list) {
  svdf_shape s;
  uint32_t act;
  vknn_status st = read_svdf(graph, op, &s);
  if (st == VKNN_STATUS_NONE) st = add_features(graph, op, &s, &act, out_list);
  if (st != VKNN_STATUS_NONE) return st;
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  d->shader = s.type == VKNN_OPERAND_TENSOR_FLOAT16 ? VKNN_SHADER_SVDF_F16 : VKNN_SHADER_SVDF_F32;
  d->local_size = 64;
  vknn_dispatch_bind(d, act, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[IN_STATE], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[IN_TIME], VKNN_ACCESS_READ);
  /* Without a bias the kernel reads none: the activations stand in. */
  vknn_dispatch_bind(d, s.has_bias ? op->inputs[IN_BIAS] : act, VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  vknn_dispatch_bind(d, op->outputs[1], VKNN_ACCESS_WRITE);
  svdf_params p = {s.batch, s.units, s.rank, s.memory, s.has_bias, s.act_min, s.act_max};
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)s.batch * s.units;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_svdf = {VKNN_OPERATION_SVDF, false, validate_svdf, infer_svdf,
                                  lower_svdf};
