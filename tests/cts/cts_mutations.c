/* The model mutations of the NN HAL validation tests, over the main
 * subgraph: operand type, rank, scale, zero point, lifetime, model input or
 * output, number of consumers, an extra writer; operation type, operand
 * types seen by operations, input and output indexes; removing operands,
 * operations, operation inputs and outputs, and writes; adding operation
 * inputs and outputs; execution order; preference and priority. Where the
 * NNAPI lets an operation take the mutated form (optional parameters,
 * operands of any type), the mutation is not made. */
#include "cts_mutations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts_case.h"
#include "vknn/extensions/fibonacci.h"

/* ---- the mutant ---------------------------------------------------------- */

static void *own(cts_mutant *m, size_t size) {
  void **blocks = realloc(m->blocks, (m->block_count + 1) * sizeof(void *));
  void *p = blocks ? calloc(1, size ? size : 1) : NULL;
  if (blocks != NULL) m->blocks = blocks;
  if (p == NULL) {
    m->failed = true;
    return NULL;
  }
  m->blocks[m->block_count++] = p;
  return p;
}

static uint32_t *own_list(cts_mutant *m, const uint32_t *src, uint32_t count, uint32_t room) {
  uint32_t *list = own(m, (count + room) * sizeof(uint32_t));
  if (list != NULL && count > 0) memcpy(list, src, count * sizeof(uint32_t));
  return list;
}

static void mutant_free(cts_mutant *m) {
  for (uint32_t i = 0; i < m->block_count; ++i) free(m->blocks[i]);
  free(m->blocks);
  memset(m, 0, sizeof(*m));
}

static bool mutant_init(cts_mutant *m, const vknn_model *model) {
  memset(m, 0, sizeof(*m));
  m->model = *model;
  m->preference = VKNN_PREFER_FAST_SINGLE_ANSWER;
  m->priority = VKNN_PRIORITY_MEDIUM;
  const vknn_subgraph *sg = &model->main;
  uint32_t room = 2; /* new operands: two, or the outputs of a duplicated operation */
  for (uint32_t k = 0; k < sg->operation_count; ++k)
    if (sg->operations[k].output_count + 2 > room) room = sg->operations[k].output_count + 2;
  m->operands = own(m, (sg->operand_count + room) * sizeof(vknn_operand));
  m->operations = own(m, (sg->operation_count + 1) * sizeof(vknn_operation));
  m->inputs = own_list(m, sg->input_indexes, sg->input_count, 2);
  m->outputs = own_list(m, sg->output_indexes, sg->output_count, 2);
  if (m->failed) return false;
  memcpy(m->operands, sg->operands, sg->operand_count * sizeof(vknn_operand));
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    vknn_operation *op = &m->operations[k];
    *op = sg->operations[k];
    op->inputs = own_list(m, op->inputs, op->input_count, 1);
    op->outputs = own_list(m, op->outputs, op->output_count, 1);
  }
  m->model.main.operands = m->operands;
  m->model.main.operations = m->operations;
  m->model.main.input_indexes = m->inputs;
  m->model.main.output_indexes = m->outputs;
  return !m->failed;
}

/* Writable views of the arrays the mutant owns. */
static uint32_t *op_inputs(cts_mutant *m, uint32_t k) { return (uint32_t *)m->operations[k].inputs; }
static uint32_t *op_outputs(cts_mutant *m, uint32_t k) { return (uint32_t *)m->operations[k].outputs; }

typedef struct walk {
  const vknn_model *model;
  cts_mutant_visitor visit;
  void *context;
  bool stopped;
} walk;

typedef void (*mutation)(cts_mutant *m, const void *args);

/* Builds a fresh mutant, applies the mutation, shows it to the visitor. */
static void try_mutation(walk *w, mutation apply, const void *args, const char *what) {
  if (w->stopped) return;
  cts_mutant m;
  if (mutant_init(&m, w->model)) apply(&m, args);
  if (m.failed || !w->visit(w->context, &m, what)) w->stopped = true;
  mutant_free(&m);
}

static const vknn_subgraph *main_of(const walk *w) { return &w->model->main; }

/* ---- operand helpers ----------------------------------------------------- */

static bool is_scalar_type(int32_t type) {
  return type == VKNN_OPERAND_FLOAT32 || type == VKNN_OPERAND_INT32 ||
         type == VKNN_OPERAND_UINT32 || type == VKNN_OPERAND_BOOL || type == VKNN_OPERAND_FLOAT16;
}


/* Bytes of the operand's value; 0 when its shape is not fully known. */
static size_t data_size(const vknn_operand *o) {
  if (is_scalar_type(o->type)) return cts_element_size(o->type);
  if (o->dimension_count == 0) return 0;
  size_t size = cts_element_size(o->type);
  for (uint32_t i = 0; i < o->dimension_count; ++i) size *= o->dimensions[i];
  return size;
}

/* Gives the operand a CONSTANT_COPY value (zeros) at the end of operandValues. */
static void become_constant_copy(cts_mutant *m, vknn_operand *o) {
  size_t offset = (m->model.operand_values_size + 7) & ~(size_t)7, size = data_size(o);
  uint8_t *values = own(m, offset + size);
  if (values == NULL) return;
  if (m->model.operand_values_size > 0)
    memcpy(values, m->model.operand_values, m->model.operand_values_size);
  m->model.operand_values = values;
  m->model.operand_values_size = offset + size;
  o->lifetime = VKNN_LIFETIME_CONSTANT_COPY;
  o->location = (vknn_data_location){0, (uint32_t)offset, (uint32_t)size};
}

static void remove_value(uint32_t *list, uint32_t *count, uint32_t value, bool renumber) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < *count; ++i) {
    if (list[i] == value) continue;
    list[n++] = renumber && list[i] > value ? list[i] - 1 : list[i];
  }
  *count = n;
}

static void remove_at(uint32_t *list, uint32_t *count, uint32_t at) {
  memmove(list + at, list + at + 1, (*count - at - 1) * sizeof(uint32_t));
  (*count)--;
}

/* A new INT32 scalar operand (HAL tests' choice) with the given lifetime. */
static uint32_t add_operand(cts_mutant *m, vknn_operand_lifetime lifetime, uint32_t consumers) {
  uint32_t index = m->model.main.operand_count++;
  m->operands[index] = (vknn_operand){.type = VKNN_OPERAND_INT32,
                                      .number_of_consumers = consumers,
                                      .lifetime = lifetime};
  return index;
}

/* ---- operand mutations --------------------------------------------------- */

typedef struct operand_value {
  uint32_t operand;
  int64_t value;
} operand_value;

static void set_type(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  m->operands[v->operand].type = (int32_t)v->value;
}

static void set_rank_one(cts_mutant *m, const void *a) {
  static const uint32_t one_unknown[1] = {0};
  const operand_value *v = a;
  m->operands[v->operand].dimensions = one_unknown;
  m->operands[v->operand].dimension_count = 1;
}

static void set_scale(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  m->operands[v->operand].scale = (float)v->value;
}

static void set_zero_point(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  m->operands[v->operand].zero_point = (int32_t)v->value;
}

static void set_consumers(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  m->operands[v->operand].number_of_consumers = (uint32_t)v->value;
}

/* Only the lifetime changes, not the model's input and output lists. */
static void set_lifetime_only(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  vknn_operand *o = &m->operands[v->operand];
  o->lifetime = (vknn_operand_lifetime)v->value;
  o->location = (vknn_data_location){0, 0, 0};
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY) become_constant_copy(m, o);
}

/* A lifetime that breaks whether the operand should have a writer (or
 * whether it is a model input or output): the model's lists follow. */
static void set_lifetime(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  vknn_operand *o = &m->operands[v->operand];
  vknn_subgraph *sg = &m->model.main;
  if (o->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT) remove_value(m->inputs, &sg->input_count, v->operand, false);
  if (o->lifetime == VKNN_LIFETIME_SUBGRAPH_OUTPUT) remove_value(m->outputs, &sg->output_count, v->operand, false);
  set_lifetime_only(m, a);
  if (o->lifetime == VKNN_LIFETIME_SUBGRAPH_INPUT) m->inputs[sg->input_count++] = v->operand;
  if (o->lifetime == VKNN_LIFETIME_SUBGRAPH_OUTPUT) m->outputs[sg->output_count++] = v->operand;
}

static bool has_writer(vknn_operand_lifetime l) {
  return l == VKNN_LIFETIME_TEMPORARY_VARIABLE || l == VKNN_LIFETIME_SUBGRAPH_OUTPUT;
}

static void visit_operand(walk *w, uint32_t i, mutation apply, int64_t value, const char *kind) {
  char what[160];
  snprintf(what, sizeof(what), "%s: operand %u -> %lld", kind, i, (long long)value);
  operand_value args = {i, value};
  try_mutation(w, apply, &args, what);
}

static void mutate_lifetimes(walk *w, uint32_t i, const vknn_operand *o) {
  bool constant_ok = data_size(o) > 0;
  vknn_operand_lifetime l = o->lifetime;
  if (has_writer(l)) {
    visit_operand(w, i, set_lifetime, VKNN_LIFETIME_SUBGRAPH_INPUT, "lifetime");
    if (constant_ok) visit_operand(w, i, set_lifetime, VKNN_LIFETIME_CONSTANT_COPY, "lifetime");
    visit_operand(w, i, set_lifetime_only,
                  l == VKNN_LIFETIME_SUBGRAPH_OUTPUT ? VKNN_LIFETIME_TEMPORARY_VARIABLE
                                                     : VKNN_LIFETIME_SUBGRAPH_OUTPUT,
                  "input or output");
  } else if (l == VKNN_LIFETIME_CONSTANT_COPY || l == VKNN_LIFETIME_CONSTANT_REFERENCE ||
             l == VKNN_LIFETIME_SUBGRAPH_INPUT) {
    visit_operand(w, i, set_lifetime, VKNN_LIFETIME_TEMPORARY_VARIABLE, "lifetime");
    visit_operand(w, i, set_lifetime, VKNN_LIFETIME_SUBGRAPH_OUTPUT, "lifetime");
    if (l != VKNN_LIFETIME_SUBGRAPH_INPUT)
      visit_operand(w, i, set_lifetime_only, VKNN_LIFETIME_SUBGRAPH_INPUT, "input or output");
    else if (constant_ok)
      visit_operand(w, i, set_lifetime_only, VKNN_LIFETIME_CONSTANT_COPY, "input or output");
  }
}

static float invalid_scale(int32_t type) {
  switch (type) {
    case VKNN_OPERAND_TENSOR_INT32: return -1.f;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM: case VKNN_OPERAND_TENSOR_QUANT16_ASYMM:
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: return 0.f;
    default: return 1.f;
  }
}

static uint32_t invalid_zero_points(int32_t type, int32_t out[4]) {
  static const int32_t q8a[] = {-1, 256}, q8s[] = {-129, -1, 1, 128}, q16a[] = {-1, 65536},
                       q16s[] = {-32769, -1, 1, 32768}, q8as[] = {-129, 128}, other[] = {1};
  const int32_t *list = other;
  uint32_t n = 1;
  switch (type) {
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: list = q8a, n = 2; break;
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM: list = q8s, n = 4; break;
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: list = q16a, n = 2; break;
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: list = q16s, n = 4; break;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED: list = q8as, n = 2; break;
    default: break;
  }
  memcpy(out, list, n * sizeof(int32_t));
  return n;
}

static void mutate_operand_fields(walk *w) {
  static const int64_t invalid_types[] = {-1, VKNN_OPERAND_SUBGRAPH + 1, VKNN_OPERAND_OEM - 1,
                                          VKNN_OPERAND_TENSOR_OEM_BYTE + 1};
  const vknn_subgraph *sg = main_of(w);
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    const vknn_operand *o = &sg->operands[i];
    for (uint32_t t = 0; t < 4; ++t) visit_operand(w, i, set_type, invalid_types[t], "operand type");
    if (is_scalar_type(o->type)) visit_operand(w, i, set_rank_one, 1, "rank");
    visit_operand(w, i, set_scale, (int64_t)invalid_scale(o->type), "scale");
    int32_t zero_points[4];
    uint32_t n = invalid_zero_points(o->type, zero_points);
    for (uint32_t z = 0; z < n; ++z) visit_operand(w, i, set_zero_point, zero_points[z], "zero point");
    mutate_lifetimes(w, i, o);
    visit_operand(w, i, set_consumers, o->number_of_consumers + 1, "number of consumers");
    if (o->number_of_consumers > 0)
      visit_operand(w, i, set_consumers, o->number_of_consumers - 1, "number of consumers");
  }
}

/* ---- operand types as operations see them -------------------------------- */

/* The operand takes a valid type with the fields that type needs. */
static void retype(cts_mutant *m, const void *a) {
  static const uint32_t one[1] = {1};
  const operand_value *v = a;
  vknn_operand *o = &m->operands[v->operand];
  int32_t type = (int32_t)v->value;
  bool scalar = is_scalar_type(type);
  o->type = type;
  if (scalar) o->dimension_count = 0;
  else if (o->dimension_count == 0) o->dimensions = one, o->dimension_count = 1;
  switch (type) {
    case VKNN_OPERAND_TENSOR_INT32: o->zero_point = 0; break;
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM: case VKNN_OPERAND_TENSOR_QUANT8_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: case VKNN_OPERAND_TENSOR_QUANT16_SYMM:
    case VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED:
      if (o->scale == 0.f) o->scale = 1.f;
      break;
    case VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      uint32_t channels = o->dimensions[0];
      float *scales = own(m, (channels ? channels : 1) * sizeof(float));
      for (uint32_t c = 0; scales != NULL && c < channels; ++c) scales[c] = 1.f;
      o->scale = 0.f;
      o->zero_point = 0;
      o->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
      o->extra_params.channel_quant.scales = scales;
      o->extra_params.channel_quant.scale_count = channels;
      o->extra_params.channel_quant.channel_dim = 0;
      break;
    }
    case VKNN_OPERAND_SUBGRAPH: break;
    default: o->scale = 0.f, o->zero_point = 0; break;
  }
}

static bool type_in(int32_t type, const int32_t *set, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (set[i] == type) return true;
  return false;
}

static bool op_input_is(const vknn_operation *op, uint32_t at, uint32_t operand) {
  return op->input_count > at && op->inputs[at] == operand;
}

static bool op_output_is(const vknn_operation *op, uint32_t at, uint32_t operand) {
  return op->output_count > at && op->outputs[at] == operand;
}

/* Whether a model's operation type is code of the named extension (decoded
 * through the model's extensionNameToPrefix). */
static bool is_extension_operation(const vknn_model *model, int32_t type, const char *name,
                                   uint32_t code) {
  if (VKNN_EXTENSION_PREFIX(type) == 0 || VKNN_EXTENSION_CODE(type) != code) return false;
  for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i)
    if (model->extension_name_to_prefix[i].prefix == VKNN_EXTENSION_PREFIX(type))
      return strcmp(model->extension_name_to_prefix[i].name, name) == 0;
  return false;
}

/* EXAMPLE_FIBONACCI takes n as TENSOR_FLOAT32 too and writes TENSOR_FLOAT32
 * too (include/vknn/extensions/fibonacci.h). */
static bool extension_type_change_allowed(const vknn_model *model, const vknn_operation *op,
                                          uint32_t operand, int32_t type) {
  return is_extension_operation(model, op->type, VKNN_FIBONACCI_EXTENSION_NAME,
                                VKNN_EXAMPLE_FIBONACCI) &&
         type == VKNN_OPERAND_TENSOR_FLOAT32 &&
         (op_input_is(op, 0, operand) || op_output_is(op, 0, operand));
}

/* Operations that accept the operand with this type too (the NNAPI allows
 * several types there), so the mutation would leave the model valid. */
static bool type_change_allowed(const vknn_model *model, uint32_t operand, int32_t type) {
  const vknn_subgraph *sg = &model->main;
  static const int32_t cast_types[] = {
      VKNN_OPERAND_TENSOR_FLOAT16, VKNN_OPERAND_TENSOR_FLOAT32, VKNN_OPERAND_TENSOR_INT32,
      VKNN_OPERAND_TENSOR_QUANT8_ASYMM, VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED};
  static const int32_t floats[] = {VKNN_OPERAND_TENSOR_FLOAT16, VKNN_OPERAND_TENSOR_FLOAT32};
  static const int32_t quant_inputs[] = {
      VKNN_OPERAND_TENSOR_QUANT8_ASYMM, VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED,
      VKNN_OPERAND_TENSOR_QUANT8_SYMM, VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL};
  static const int32_t quant8[] = {VKNN_OPERAND_TENSOR_QUANT8_ASYMM,
                                   VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED};
  static const int32_t filters[] = {VKNN_OPERAND_TENSOR_QUANT8_ASYMM,
                                    VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL};
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    if (extension_type_change_allowed(model, op, operand, type)) return true;
    switch (op->type) {
      case VKNN_OPERATION_LSH_PROJECTION:
        if (op_input_is(op, 1, operand)) return true;
        break;
      case VKNN_OPERATION_CAST: case VKNN_OPERATION_ARGMAX: case VKNN_OPERATION_ARGMIN:
        if (type_in(type, cast_types, 5)) return true;
        break;
      case VKNN_OPERATION_QUANTIZE:
        if (op_input_is(op, 0, operand) && type_in(type, floats, 2)) return true;
        if (op_output_is(op, 0, operand) && type_in(type, quant8, 2)) return true;
        break;
      case VKNN_OPERATION_RANDOM_MULTINOMIAL:
        if (op_input_is(op, 0, operand) && type_in(type, floats, 2)) return true;
        break;
      case VKNN_OPERATION_DEQUANTIZE:
        if (op_input_is(op, 0, operand) && type_in(type, quant_inputs, 4)) return true;
        if (op_output_is(op, 0, operand) && type_in(type, floats, 2)) return true;
        break;
      case VKNN_OPERATION_CONV_2D: case VKNN_OPERATION_DEPTHWISE_CONV_2D:
      case VKNN_OPERATION_GROUPED_CONV_2D: case VKNN_OPERATION_TRANSPOSE_CONV_2D:
        if (op_input_is(op, 1, operand) && type_in(type, filters, 2)) return true;
        break;
      case VKNN_OPERATION_AXIS_ALIGNED_BBOX_TRANSFORM:
        if (op_input_is(op, 1, operand) && type_in(type, quant8, 2)) return true;
        break;
      case VKNN_OPERATION_RANK:
        if (op_input_is(op, 0, operand) && !is_scalar_type(type) && type != VKNN_OPERAND_SUBGRAPH)
          return true;
        break;
      default: break;
    }
  }
  return false;
}

static void mutate_operation_operand_types(walk *w) {
  const vknn_subgraph *sg = main_of(w);
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    for (int32_t type = 0; type <= VKNN_OPERAND_SUBGRAPH; ++type)
      if (type != sg->operands[i].type && !type_change_allowed(w->model, i, type))
        visit_operand(w, i, retype, type, "operand type seen by operations");
}

/* ---- operation mutations ------------------------------------------------- */

typedef struct operation_slot {
  uint32_t operation;
  uint32_t slot; /* an input or output position, or a value */
} operation_slot;

static void set_operation_type(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  m->operations[s->operation].type = (int32_t)s->slot;
}

static void set_input_index(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  op_inputs(m, s->operation)[s->slot] = m->model.main.operand_count;
}

static void set_output_index(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  op_outputs(m, s->operation)[s->slot] = m->model.main.operand_count;
}

/* A copy of the output operand, as a temporary; returns its index. */
static uint32_t clone_as_temporary(cts_mutant *m, uint32_t operand) {
  uint32_t index = m->model.main.operand_count++;
  m->operands[index] = m->operands[operand];
  m->operands[index].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  m->operands[index].number_of_consumers = 0;
  return index;
}

/* The operation writes a fresh operand instead: the old one loses its writer. */
static void remove_write(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  uint32_t *outputs = op_outputs(m, s->operation);
  outputs[s->slot] = clone_as_temporary(m, outputs[s->slot]);
}

/* A second operation writes the same output (its other outputs are new). */
static void add_writer(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  const vknn_operation *original = &m->operations[s->operation];
  vknn_operation *copy = &m->operations[m->model.main.operation_count++];
  *copy = *original;
  uint32_t *outputs = own_list(m, original->outputs, original->output_count, 0);
  if (outputs == NULL) return;
  for (uint32_t o = 0; o < copy->output_count; ++o)
    if (o != s->slot) outputs[o] = clone_as_temporary(m, outputs[o]);
  copy->outputs = outputs;
  for (uint32_t i = 0; i < copy->input_count; ++i) m->operands[copy->inputs[i]].number_of_consumers++;
}

static void remove_operation(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  vknn_subgraph *sg = &m->model.main;
  for (uint32_t i = 0; i < m->operations[s->operation].input_count; ++i)
    m->operands[m->operations[s->operation].inputs[i]].number_of_consumers--;
  memmove(&m->operations[s->operation], &m->operations[s->operation + 1],
          (sg->operation_count - s->operation - 1) * sizeof(vknn_operation));
  sg->operation_count--;
}

static void remove_operation_input(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  vknn_operation *op = &m->operations[s->operation];
  m->operands[op->inputs[s->slot]].number_of_consumers--;
  remove_at(op_inputs(m, s->operation), &op->input_count, s->slot);
}

static void remove_operation_output(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  vknn_operation *op = &m->operations[s->operation];
  remove_at(op_outputs(m, s->operation), &op->output_count, s->slot);
}

/* A new operand the operation reads (a model input) or writes (a model output). */
static void add_operation_operand(cts_mutant *m, const operation_slot *s, bool output) {
  uint32_t index = add_operand(m, output ? VKNN_LIFETIME_SUBGRAPH_OUTPUT
                                         : VKNN_LIFETIME_SUBGRAPH_INPUT, output ? 0 : 1);
  vknn_operation *op = &m->operations[s->operation];
  if (output) op_outputs(m, s->operation)[op->output_count++] = index;
  else op_inputs(m, s->operation)[op->input_count++] = index;
  vknn_subgraph *sg = &m->model.main;
  if (output) m->outputs[sg->output_count++] = index;
  else m->inputs[sg->input_count++] = index;
}

static void add_operation_input(cts_mutant *m, const void *a) { add_operation_operand(m, a, false); }
static void add_operation_output(cts_mutant *m, const void *a) { add_operation_operand(m, a, true); }

/* slot 0: the operation moves first (before the writer of what it reads);
 * slot 1: it moves last (after the readers of what it writes). */
static void reorder(cts_mutant *m, const void *a) {
  const operation_slot *s = a;
  uint32_t n = m->model.main.operation_count, k = s->operation;
  vknn_operation moved = m->operations[k];
  if (s->slot == 0) {
    memmove(&m->operations[1], &m->operations[0], k * sizeof(vknn_operation));
    m->operations[0] = moved;
  } else {
    memmove(&m->operations[k], &m->operations[k + 1], (n - k - 1) * sizeof(vknn_operation));
    m->operations[n - 1] = moved;
  }
}

static void visit_operation(walk *w, uint32_t k, uint32_t slot, mutation apply, const char *kind) {
  char what[160];
  snprintf(what, sizeof(what), "%s: operation %u, %u", kind, k, slot);
  operation_slot args = {k, slot};
  try_mutation(w, apply, &args, what);
}

/* Optional trailing parameters the NNAPI lets an operation leave out. */
static bool input_optional(const vknn_operation *op, uint32_t input) {
  uint32_t n = op->input_count;
  switch (op->type) {
    case VKNN_OPERATION_CONCATENATION: return n > 2 && input != n - 1;
    case VKNN_OPERATION_DEPTHWISE_CONV_2D: return (n == 12 && input == 11) || (n == 9 && input == 8);
    case VKNN_OPERATION_CONV_2D: case VKNN_OPERATION_AVERAGE_POOL_2D:
    case VKNN_OPERATION_MAX_POOL_2D: case VKNN_OPERATION_L2_POOL_2D:
      return (n == 11 && input == 10) || (n == 8 && input == 7);
    case VKNN_OPERATION_RESIZE_BILINEAR: return n >= 4 && input >= 3;
    case VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR: return n >= 5 && input >= 3;
    case VKNN_OPERATION_SPACE_TO_DEPTH: case VKNN_OPERATION_DEPTH_TO_SPACE:
    case VKNN_OPERATION_BATCH_TO_SPACE_ND: return n == 3 && input == 2;
    case VKNN_OPERATION_SPACE_TO_BATCH_ND: return n == 4 && input == 3;
    case VKNN_OPERATION_L2_NORMALIZATION: return n == 2 && input == 1;
    case VKNN_OPERATION_LOCAL_RESPONSE_NORMALIZATION: return n == 6 && input == 5;
    case VKNN_OPERATION_SOFTMAX: return n == 3 && input == 2;
    default: return false;
  }
}

/* Operations that take one more INT32 parameter validly. */
static bool takes_another_input(const vknn_operation *op) {
  uint32_t n = op->input_count;
  return (op->type == VKNN_OPERATION_L2_NORMALIZATION && n == 1) ||
         (op->type == VKNN_OPERATION_LOCAL_RESPONSE_NORMALIZATION && n == 5) ||
         (op->type == VKNN_OPERATION_SOFTMAX && n == 2) ||
         (op->type == VKNN_OPERATION_RESIZE_BILINEAR && n < 6) ||
         (op->type == VKNN_OPERATION_RESIZE_NEAREST_NEIGHBOR && n < 6);
}

static void mutate_operation_fields(walk *w) {
  static const int32_t invalid_types[] = {-1, VKNN_OPERATION_RANK + 1, VKNN_OPERATION_OEM - 1,
                                          VKNN_OPERATION_OEM + 1};
  const vknn_subgraph *sg = main_of(w);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    for (uint32_t t = 0; t < 4; ++t)
      visit_operation(w, k, (uint32_t)invalid_types[t], set_operation_type, "operation type");
    for (uint32_t i = 0; i < op->input_count; ++i) {
      visit_operation(w, k, i, set_input_index, "input index");
      if (!input_optional(op, i)) visit_operation(w, k, i, remove_operation_input, "remove input");
    }
    for (uint32_t o = 0; o < op->output_count; ++o) {
      visit_operation(w, k, o, set_output_index, "output index");
      visit_operation(w, k, o, remove_operation_output, "remove output");
      visit_operation(w, k, o, add_writer, "extra writer");
      if (sg->operands[op->outputs[o]].number_of_consumers > 0)
        visit_operation(w, k, o, remove_write, "remove write");
    }
    visit_operation(w, k, 0, remove_operation, "remove operation");
    if (!takes_another_input(op)) visit_operation(w, k, 0, add_operation_input, "add input");
    visit_operation(w, k, 0, add_operation_output, "add output");
  }
}

static bool reads_written_value(const vknn_subgraph *sg, const vknn_operation *op) {
  for (uint32_t i = 0; i < op->input_count; ++i)
    if (has_writer(sg->operands[op->inputs[i]].lifetime)) return true;
  return false;
}

static bool writes_read_value(const vknn_subgraph *sg, const vknn_operation *op) {
  for (uint32_t o = 0; o < op->output_count; ++o)
    if (sg->operands[op->outputs[o]].number_of_consumers > 0) return true;
  return false;
}

static void mutate_execution_order(walk *w) {
  const vknn_subgraph *sg = main_of(w);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    if (reads_written_value(sg, &sg->operations[k]))
      visit_operation(w, k, 0, reorder, "execution order (reader first)");
    if (writes_read_value(sg, &sg->operations[k]))
      visit_operation(w, k, 1, reorder, "execution order (writer last)");
  }
}

/* ---- removing operands --------------------------------------------------- */

static void remove_operand(cts_mutant *m, const void *a) {
  const operand_value *v = a;
  uint32_t index = v->operand;
  vknn_subgraph *sg = &m->model.main;
  memmove(&m->operands[index], &m->operands[index + 1],
          (sg->operand_count - index - 1) * sizeof(vknn_operand));
  sg->operand_count--;
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    remove_value(op_inputs(m, k), &m->operations[k].input_count, index, true);
    remove_value(op_outputs(m, k), &m->operations[k].output_count, index, true);
  }
  remove_value(m->inputs, &sg->input_count, index, true);
  remove_value(m->outputs, &sg->output_count, index, true);
}

/* Removing an unread operand changes nothing, nor does removing one that
 * every reader takes as an optional trailing parameter; the outputs of SPLIT
 * and of the sequence operations vary in number. */
static bool removal_allowed(const vknn_subgraph *sg, uint32_t operand) {
  if (sg->operands[operand].number_of_consumers == 0) return true;
  bool only_optional = true;
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    bool variable_outputs = op->type == VKNN_OPERATION_SPLIT ||
                            op->type == VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_LSTM ||
                            op->type == VKNN_OPERATION_UNIDIRECTIONAL_SEQUENCE_RNN ||
                            op->type == VKNN_OPERATION_BIDIRECTIONAL_SEQUENCE_LSTM ||
                            op->type == VKNN_OPERATION_BIDIRECTIONAL_SEQUENCE_RNN;
    for (uint32_t o = 0; variable_outputs && o < op->output_count; ++o)
      if (op->outputs[o] == operand) return true;
    for (uint32_t i = 0; i < op->input_count; ++i)
      if (op->inputs[i] == operand && !input_optional(op, i)) only_optional = false;
  }
  return only_optional;
}

static void mutate_operand_removal(walk *w) {
  const vknn_subgraph *sg = main_of(w);
  for (uint32_t i = 0; i < sg->operand_count; ++i)
    if (!removal_allowed(sg, i)) visit_operand(w, i, remove_operand, 0, "remove operand");
}

/* ---- preference and priority --------------------------------------------- */

static void set_preference(cts_mutant *m, const void *a) { m->preference = *(const int32_t *)a; }
static void set_priority(cts_mutant *m, const void *a) { m->priority = *(const int32_t *)a; }

static void mutate_arguments(walk *w) {
  static const int32_t preferences[] = {VKNN_PREFER_LOW_POWER - 1, VKNN_PREFER_SUSTAINED_SPEED + 1};
  static const int32_t priorities[] = {VKNN_PRIORITY_LOW - 1, VKNN_PRIORITY_HIGH + 1};
  for (int i = 0; i < 2; ++i) {
    char what[64];
    snprintf(what, sizeof(what), "preference %d", preferences[i]);
    try_mutation(w, set_preference, &preferences[i], what);
    snprintf(what, sizeof(what), "priority %d", priorities[i]);
    try_mutation(w, set_priority, &priorities[i], what);
  }
}

bool cts_for_each_model_mutation(const vknn_model *model, cts_mutant_visitor visit, void *context) {
  walk w = {model, visit, context, false};
  mutate_operand_fields(&w);
  mutate_operation_operand_types(&w);
  mutate_operation_fields(&w);
  mutate_execution_order(&w);
  mutate_operand_removal(&w);
  mutate_arguments(&w);
  return !w.stopped;
}
