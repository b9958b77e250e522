/* Relaxed models kept in float16 (compiler/relaxed_float16.h). */
#include "compiler/relaxed_float16.h"

#include <string.h>

#include "compiler/operation_registry.h"
#include "util/fault_injection.h"
#include "util/float16.h"

#define NONE UINT32_MAX

/* The operations that run in float16: those of the convolutional models
 * whose float16 kernels are the float32 ones with float16 storage (float32
 * arithmetic), so that only the tensors and weights are rounded. */
static bool runs_in_float16(int32_t type) {
  switch (type) {
    case VKNN_OPERATION_ADD:
    case VKNN_OPERATION_AVERAGE_POOL_2D:
    case VKNN_OPERATION_CONCATENATION:
    case VKNN_OPERATION_CONV_2D:
    case VKNN_OPERATION_DEPTHWISE_CONV_2D:
    case VKNN_OPERATION_FULLY_CONNECTED:
    case VKNN_OPERATION_MAX_POOL_2D:
    case VKNN_OPERATION_MUL:
    case VKNN_OPERATION_PAD:
    case VKNN_OPERATION_RELU:
    case VKNN_OPERATION_RELU1:
    case VKNN_OPERATION_RELU6:
    case VKNN_OPERATION_RESHAPE:
    case VKNN_OPERATION_SUB:
      return true;
    default:
      return false;
  }
}

static bool is_float32(const vknn_operand *o) {
  return o->type == VKNN_OPERAND_TENSOR_FLOAT32 || o->type == VKNN_OPERAND_FLOAT32;
}

static bool is_constant(const vknn_operand *o) {
  return o->lifetime == VKNN_LIFETIME_CONSTANT_COPY || o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE;
}

/* Every float operand float32, a float32 tensor among the outputs, float
 * scalars constant (they become float16 constants), none omitted. */
static bool can_run_in_float16(const vknn_subgraph *sg, const vknn_operation *op) {
  if (!runs_in_float16(op->type) || op->output_count == 0 ||
      sg->operands[op->outputs[0]].type != VKNN_OPERAND_TENSOR_FLOAT32)
    return false;
  for (uint32_t i = 0; i < op->input_count; ++i) {
    const vknn_operand *o = &sg->operands[op->inputs[i]];
    if (o->type == VKNN_OPERAND_TENSOR_FLOAT16 || o->type == VKNN_OPERAND_FLOAT16) return false;
    if (is_float32(o) && o->lifetime == VKNN_LIFETIME_NO_VALUE) return false;
    if (o->type == VKNN_OPERAND_FLOAT32 && !is_constant(o)) return false;
  }
  for (uint32_t i = 0; i < op->output_count; ++i)
    if (sg->operands[op->outputs[i]].type != VKNN_OPERAND_TENSOR_FLOAT32) return false;
  return true;
}

bool vknn_relaxed_float16_applies(const vknn_model *model) {
  if (!model->relax_computation_float32_to_float16 || model->referenced_count > 0) return false;
  for (uint32_t k = 0; k < model->main.operation_count; ++k)
    if (can_run_in_float16(&model->main, &model->main.operations[k])) return true;
  return false;
}

/* The copy being built: operands (the model's, then added ones), the
 * operations in order with the CASTs placed among them, the constant bytes
 * (the model's, then the converted ones). */
typedef struct relax_builder {
  const vknn_subgraph *sg;
  const vknn_graph *graph; /* the model's constants, mapped */
  vknn_model_copy *copy;
  vknn_operand *operands;
  uint32_t operand_count;
  vknn_operation *ops;
  uint32_t *op_sources; /* per operation of the copy: the model's operation, or UINT32_MAX */
  uint32_t op_count;
  uint8_t *values;
  size_t values_size;
  bool *half_op;              /* per operation of the model */
  bool *read_half, *read_full; /* per operand: read by a float16 / float32 operation */
  uint32_t *half_of, *full_of; /* per operand: its float16 / float32 version, or NONE */
  bool ok;
} relax_builder;

static void *take(relax_builder *b, size_t size) {
  void *p = vknn_model_copy_own(b->copy, size);
  if (p == NULL) b->ok = false;
  return p;
}

/* A new operand like operand `like` of the model, typed `type`. */
static uint32_t add_operand(relax_builder *b, uint32_t like, int32_t type, vknn_operand_lifetime lifetime) {
  vknn_operand *o = &b->operands[b->operand_count];
  *o = b->sg->operands[like];
  o->type = type;
  o->scale = 0.f;
  o->zero_point = 0;
  o->lifetime = lifetime;
  o->location = (vknn_data_location){0, 0, 0};
  o->extra_params = (vknn_operand_extra_params){.kind = VKNN_EXTRA_PARAMS_NONE};
  return b->operand_count++;
}

static void add_operation(relax_builder *b, int32_t type, const uint32_t *inputs, uint32_t input_count,
                          const uint32_t *outputs, uint32_t output_count) {
  uint32_t *in = take(b, (input_count + output_count) * sizeof(uint32_t));
  if (in == NULL) return;
  memcpy(in, inputs, input_count * sizeof(uint32_t));
  memcpy(in + input_count, outputs, output_count * sizeof(uint32_t));
  b->op_sources[b->op_count] = UINT32_MAX; /* an added operation (the CASTs) */
  b->ops[b->op_count++] = (vknn_operation){type, in, input_count, in + input_count, output_count};
}

static void add_cast(relax_builder *b, uint32_t from, uint32_t to) { add_operation(b, VKNN_OPERATION_CAST, &from, 1, &to, 1); }

/* A float32 constant as a float16 one, converted into the copy's bytes. */
static uint32_t convert_constant(relax_builder *b, uint32_t i) {
  const vknn_operand *o = &b->sg->operands[i];
  const uint8_t *data = b->graph->tensors[i].constant_data;
  bool tensor = o->type == VKNN_OPERAND_TENSOR_FLOAT32;
  uint32_t n = o->location.length / sizeof(float);
  uint32_t id = add_operand(b, i, tensor ? VKNN_OPERAND_TENSOR_FLOAT16 : VKNN_OPERAND_FLOAT16,
                            VKNN_LIFETIME_CONSTANT_COPY);
  uint16_t *half = (uint16_t *)(b->values + b->values_size);
  for (uint32_t e = 0; e < n; ++e) {
    float v;
    memcpy(&v, data + e * sizeof(float), sizeof(v));
    half[e] = vknn_float16_bits(v);
  }
  b->operands[id].location = (vknn_data_location){0, (uint32_t)b->values_size, n * 2u};
  b->values_size += (n * 2u + 7u) & ~(size_t)7;
  return id;
}

/* Operand i in float16 for an operation that runs in float16: the
 * producer's conversion made it; a constant is converted on first use. */
static uint32_t half_version(relax_builder *b, uint32_t i) {
  if (b->half_of[i] == NONE && is_constant(&b->sg->operands[i])) b->half_of[i] = convert_constant(b, i);
  if (b->half_of[i] == NONE) b->ok = false; /* not reached: every producer made it */
  return b->half_of[i];
}

/* A model input read in float16: converted before the first operation. */
static void convert_inputs(relax_builder *b) {
  for (uint32_t n = 0; n < b->sg->input_count; ++n) {
    uint32_t i = b->sg->input_indexes[n];
    if (b->sg->operands[i].type != VKNN_OPERAND_TENSOR_FLOAT32 || !b->read_half[i] || b->half_of[i] != NONE)
      continue;
    b->half_of[i] = add_operand(b, i, VKNN_OPERAND_TENSOR_FLOAT16, VKNN_LIFETIME_TEMPORARY_VARIABLE);
    add_cast(b, i, b->half_of[i]);
  }
}

static bool is_model_output(const vknn_subgraph *sg, uint32_t i) {
  for (uint32_t n = 0; n < sg->output_count; ++n)
    if (sg->output_indexes[n] == i) return true;
  return false;
}

/* Where a float16 operation writes float output o: o itself, retyped (a
 * temporary), or a new float16 temporary converted into o (a model
 * output). */
static uint32_t half_output(relax_builder *b, uint32_t o) {
  if (is_model_output(b->sg, o)) {
    b->half_of[o] = add_operand(b, o, VKNN_OPERAND_TENSOR_FLOAT16, VKNN_LIFETIME_TEMPORARY_VARIABLE);
    b->full_of[o] = o;
  } else {
    b->operands[o].type = VKNN_OPERAND_TENSOR_FLOAT16;
    b->half_of[o] = o;
    b->full_of[o] = NONE; /* made next if a float32 operation reads it */
  }
  return b->half_of[o];
}

/* After operation k: the conversions its outputs need, for the model's
 * outputs and for readers of the other precision. */
static void convert_outputs(relax_builder *b, const vknn_operation *op, bool half) {
  for (uint32_t n = 0; n < op->output_count; ++n) {
    uint32_t o = op->outputs[n];
    if (!is_float32(&b->sg->operands[o])) continue;
    if (half && b->half_of[o] != o) { /* a model output */
      add_cast(b, b->half_of[o], o);
    } else if (half && b->read_full[o]) {
      b->full_of[o] = add_operand(b, o, VKNN_OPERAND_TENSOR_FLOAT32, VKNN_LIFETIME_TEMPORARY_VARIABLE);
      add_cast(b, o, b->full_of[o]);
    } else if (!half && b->read_half[o]) {
      b->half_of[o] = add_operand(b, o, VKNN_OPERAND_TENSOR_FLOAT16, VKNN_LIFETIME_TEMPORARY_VARIABLE);
      add_cast(b, o, b->half_of[o]);
    }
  }
}

/* Operation k with its float operands in its precision, then the
 * conversions of its outputs. */
static void rewrite_operation(relax_builder *b, uint32_t k) {
  const vknn_operation *op = &b->sg->operations[k];
  bool half = b->half_op[k];
  uint32_t *io = take(b, (op->input_count + op->output_count) * sizeof(uint32_t));
  if (io == NULL) return;
  for (uint32_t n = 0; n < op->input_count; ++n) {
    uint32_t i = op->inputs[n];
    io[n] = !is_float32(&b->sg->operands[i]) ? i : half ? half_version(b, i) : b->full_of[i];
  }
  for (uint32_t n = 0; n < op->output_count; ++n) {
    uint32_t o = op->outputs[n];
    io[op->input_count + n] = half && is_float32(&b->sg->operands[o]) ? half_output(b, o) : o;
  }
  b->op_sources[b->op_count] = k;
  b->ops[b->op_count++] =
      (vknn_operation){op->type, io, op->input_count, io + op->input_count, op->output_count};
  convert_outputs(b, op, half);
}

/* Which operations run in float16; who reads each operand in which
 * precision; the float32 version of every operand to start with (itself:
 * the model's inputs, constants and float32 results stay as they are). */
static void classify(relax_builder *b) {
  const vknn_subgraph *sg = b->sg;
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    b->half_of[i] = NONE;
    b->full_of[i] = i;
  }
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    b->half_op[k] = can_run_in_float16(sg, op);
    for (uint32_t n = 0; n < op->input_count; ++n) {
      if (b->half_op[k]) b->read_half[op->inputs[n]] = true;
      else b->read_full[op->inputs[n]] = true;
    }
  }
  for (uint32_t n = 0; n < sg->output_count; ++n) b->read_full[sg->output_indexes[n]] = true;
}

/* Room for the worst case: each operand converted once (one operand and
 * one CAST more each), each float32 constant once in float16. */
static bool allocate(relax_builder *b, const vknn_model *model) {
  const vknn_subgraph *sg = b->sg;
  size_t half_bytes = 0;
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    if (is_constant(&sg->operands[i]) && is_float32(&sg->operands[i]))
      half_bytes += (sg->operands[i].location.length / 2u + 7u) & ~(size_t)7;
  size_t own_bytes = (model->operand_values_size + 7u) & ~(size_t)7;
  b->operands = take(b, 2u * sg->operand_count * sizeof(vknn_operand) + sizeof(vknn_operand));
  b->ops = take(b, (sg->operation_count + sg->operand_count) * sizeof(vknn_operation) + sizeof(vknn_operation));
  b->op_sources = take(b, (sg->operation_count + sg->operand_count + 1u) * sizeof(uint32_t));
  b->values = take(b, own_bytes + half_bytes);
  b->half_op = take(b, sg->operation_count + 1u);
  b->read_half = take(b, sg->operand_count + 1u);
  b->read_full = take(b, sg->operand_count + 1u);
  b->half_of = take(b, (sg->operand_count + 1u) * sizeof(uint32_t));
  b->full_of = take(b, (sg->operand_count + 1u) * sizeof(uint32_t));
  if (!b->ok) return false;
  memcpy(b->operands, sg->operands, sg->operand_count * sizeof(vknn_operand));
  b->operand_count = sg->operand_count;
  if (model->operand_values_size > 0) memcpy(b->values, model->operand_values, model->operand_values_size);
  b->values_size = own_bytes;
  return true;
}

/* Readers counted again over the copy's operations. */
static void count_consumers(relax_builder *b) {
  for (uint32_t i = 0; i < b->operand_count; ++i) b->operands[i].number_of_consumers = 0;
  for (uint32_t k = 0; k < b->op_count; ++k)
    for (uint32_t n = 0; n < b->ops[k].input_count; ++n) b->operands[b->ops[k].inputs[n]].number_of_consumers++;
}

static void finish(relax_builder *b, const vknn_model *model) {
  vknn_model *m = &b->copy->model;
  *m = *model;
  m->main.operands = b->operands;
  m->main.operand_count = b->operand_count;
  m->main.operations = b->ops;
  m->main.operation_count = b->op_count;
  m->operand_values = b->values;
  m->operand_values_size = b->values_size;
  m->relax_computation_float32_to_float16 = false; /* what is left runs in float32 */
  b->copy->op_sources = b->op_sources;
}

static vknn_status build(relax_builder *b, const vknn_model *model) {
  if (!allocate(b, model)) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  classify(b);
  convert_inputs(b);
  for (uint32_t k = 0; k < b->sg->operation_count && b->ok; ++k) rewrite_operation(b, k);
  if (!b->ok) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  count_consumers(b);
  finish(b, model);
  return VKNN_STATUS_NONE;
}

vknn_status vknn_relaxed_float16_make(const vknn_logger *log, const vknn_model *model,
                                      vknn_model_copy *out) {
  memset(out, 0, sizeof(*out));
  vknn_graph graph;
  vknn_status s = vknn_graph_init(&graph, log, model, NULL);
  if (s != VKNN_STATUS_NONE) return s;
  relax_builder b = {.sg = &model->main, .graph = &graph, .copy = out, .ok = true};
  s = build(&b, model);
  vknn_graph_release(&graph);
  /* The copy must be a model like any other; one that is not is a bug
   * here, reported as a failure of this path (the caller compiles the
   * model as it came). */
  if (s == VKNN_STATUS_NONE && vknn_compiler_validate_model(log, &out->model) != VKNN_STATUS_NONE)
    s = VKNN_STATUS_GENERAL_FAILURE;
  if (s != VKNN_STATUS_NONE) vknn_model_copy_free(out);
  return s;
}
