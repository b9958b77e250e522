/* IF and WHILE: programs of segments (see control_flow.h).
 *
 * Prepare: every subgraph the main one reaches becomes a program; its runs
 * of operations between IF and WHILE become segments
 * (compiler/control_flow_split.c), each a prepared model recorded now, or,
 * when its shapes depend on its inputs, per input shapes the first time they
 * occur and then kept (specialization.c: 8 per segment, least recently used
 * evicted). A loop whose values change shape thus records once per shape.
 *
 * Execute: each program's values live in host memory (a frame, one value
 * per operand); a segment runs as an execution of its prepared model on
 * them, submitting its recorded command buffers. IF reads its condition,
 * one byte, and runs a branch; WHILE runs its condition and reads one byte
 * per iteration, then its body, whose outputs become the next iteration's
 * inputs (swapped, not copied). The host moves values and reads booleans; it
 * never computes the graph. */
#include "runtime/control_flow.h"

#include <stdlib.h>
#include <string.h>

#include "compiler/control_flow_split.h"
#include "model/extension.h"
#include "model/operand_type.h"
#include "runtime/buffer.h"
#include "runtime/buffer_arguments.h"
#include "runtime/recorded_graph.h"
#include "util/clock.h"
#include "util/fault_injection.h"

#define TAG "execution"

typedef enum step_kind { STEP_SEGMENT, STEP_IF, STEP_WHILE } step_kind;

typedef struct cf_step {
  step_kind kind;
  vknn_prepared_model *segment;
  uint32_t *inputs; /* operands of the program: the segment's inputs, or the IF's/WHILE's */
  uint32_t input_count;
  uint32_t *outputs;
  uint32_t output_count;
  uint32_t programs[2]; /* IF: then, else; WHILE: cond, body (program = subgraph index + 1) */
  vknn_segment_origin origin; /* the segment's operations in the caller's model */
  /* WHILE whose cond and body hold no IF or WHILE: the body and the next
   * condition as one segment (compiler/control_flow_split.c), so that an
   * iteration is one submission and one boolean read. NULL: run cond and
   * body apart. */
  vknn_prepared_model *loop;
  vknn_segment_origin loop_origin;
} cf_step;

typedef struct cf_operand {
  int32_t type;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  bool omitted;             /* NO_VALUE */
  const uint8_t *constant;  /* a constant's bytes (owned by the program) */
  uint64_t constant_size;
} cf_operand;

typedef struct cf_program {
  bool built;
  cf_operand *operands;
  uint32_t operand_count;
  uint32_t *inputs; /* the subgraph's input and output operands */
  uint32_t input_count;
  uint32_t *outputs;
  uint32_t output_count;
  cf_step *steps;
  uint32_t step_count;
} cf_program;

struct vknn_control_flow {
  vknn_prepared_model *owner;
  cf_program *programs; /* 0: main; i + 1: referenced[i] */
  uint32_t program_count;
};

/* One operand's value during an execution. A constant's value borrows the
 * program's bytes (capacity 0); other values own theirs. */
typedef struct cf_value {
  uint8_t *data;
  uint64_t size;
  uint64_t capacity;
  bool omitted;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
} cf_value;

typedef struct cf_frame {
  cf_value *values;
  uint32_t count;
} cf_frame;

/* What one execution carries through the programs. */
typedef struct cf_run {
  vknn_control_flow *cf;
  const vknn_execution_options *options;
  uint64_t device_us; /* UINT64_MAX until a segment reports a time */
} cf_run;

static const vknn_logger *log_of(const vknn_control_flow *cf) { return &cf->owner->device->log; }

/* ---- Prepare --------------------------------------------------------- */

static vknn_status copy_constant(const vknn_control_flow *cf, const vknn_model *model,
                                 const vknn_operand *o, cf_operand *out) {
  const uint8_t *src = NULL;
  vknn_mapped_pool pool = {0};
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY) {
    src = model->operand_values + o->location.offset;
  } else {
    vknn_status s = vknn_memory_map(log_of(cf), &model->pools[o->location.pool_index], &pool);
    if (s != VKNN_STATUS_NONE) return s;
    src = pool.data + o->location.offset;
  }
  uint8_t *bytes = vknn_malloc(o->location.length ? o->location.length : 1);
  if (bytes != NULL && o->location.length > 0) memcpy(bytes, src, o->location.length);
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE) vknn_memory_unmap(&pool);
  if (bytes == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  out->constant = bytes;
  out->constant_size = o->location.length;
  return VKNN_STATUS_NONE;
}

/* Marks the operands an IF or WHILE of sg reads (its condition, its inputs):
 * the only constants the host needs, as a segment's constants are compiled
 * into the segment's own model. */
static uint8_t *read_by_control_flow(const vknn_subgraph *sg) {
  uint8_t *read = vknn_calloc(sg->operand_count ? sg->operand_count : 1, 1);
  for (uint32_t k = 0; read != NULL && k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    if (!vknn_is_control_flow(op->type)) continue;
    for (uint32_t i = 0; i < op->input_count; ++i) read[op->inputs[i]] = 1;
  }
  return read;
}

static vknn_status describe_operands(vknn_control_flow *cf, const vknn_model *model,
                                     const vknn_subgraph *sg, cf_program *p) {
  p->operand_count = sg->operand_count;
  p->operands = vknn_calloc(sg->operand_count ? sg->operand_count : 1, sizeof(cf_operand));
  p->inputs = vknn_calloc(sg->input_count ? sg->input_count : 1, sizeof(uint32_t));
  p->outputs = vknn_calloc(sg->output_count ? sg->output_count : 1, sizeof(uint32_t));
  if (p->operands == NULL || p->inputs == NULL || p->outputs == NULL)
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  p->input_count = sg->input_count;
  p->output_count = sg->output_count;
  if (sg->input_count) memcpy(p->inputs, sg->input_indexes, sg->input_count * sizeof(uint32_t));
  memcpy(p->outputs, sg->output_indexes, sg->output_count * sizeof(uint32_t));
  uint8_t *read = read_by_control_flow(sg);
  if (read == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < sg->operand_count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_operand *o = &sg->operands[i];
    cf_operand *d = &p->operands[i];
    d->type = vknn_model_operand_type(model, o->type);
    d->rank = o->dimension_count;
    if (o->dimension_count > 0) memcpy(d->dims, o->dimensions, o->dimension_count * sizeof(uint32_t));
    d->omitted = o->lifetime == VKNN_LIFETIME_NO_VALUE;
    bool constant = o->lifetime == VKNN_LIFETIME_CONSTANT_COPY ||
                    o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE;
    if (constant && read[i]) s = copy_constant(cf, model, o, d);
  }
  free(read);
  return s;
}

static uint32_t *copy_list(const uint32_t *list, uint32_t count) {
  uint32_t *copy = vknn_calloc(count ? count : 1, sizeof(uint32_t));
  if (copy != NULL && count > 0) memcpy(copy, list, count * sizeof(uint32_t));
  return copy;
}

static vknn_status prepare_model(vknn_control_flow *cf, const vknn_model *model,
                                 vknn_prepared_model **out) {
  vknn_prepared_model *owner = cf->owner;
  vknn_plan plan;
  vknn_plan_target target = vknn_recorded_graph_target(owner->device);
  vknn_status s = vknn_compile(log_of(cf), model, NULL, &target, &plan);
  if (s != VKNN_STATUS_NONE) return s;
  s = vknn_prepared_model_create(owner->device, &plan, owner->priority, owner->preference, out);
  vknn_plan_release(&plan);
  return s;
}

static vknn_status prepare_segment(vknn_control_flow *cf, const vknn_segment *seg, cf_step *step) {
  return prepare_model(cf, &seg->model, &step->segment);
}

/* The fused loop is an optimization: where it does not compile, the loop
 * runs cond and body apart (running out of memory still fails). */
static vknn_status prepare_loop(vknn_control_flow *cf, const vknn_model *model,
                                const vknn_operation *op, const vknn_subgraph *sg,
                                cf_step *step) {
  const vknn_subgraph *cond = vknn_referenced_subgraph(model, &sg->operands[op->inputs[0]]);
  const vknn_subgraph *body = vknn_referenced_subgraph(model, &sg->operands[op->inputs[1]]);
  if (vknn_subgraph_has_control_flow(cond) || vknn_subgraph_has_control_flow(body))
    return VKNN_STATUS_NONE;
  step->loop_origin = (vknn_segment_origin){
      {{step->programs[1], 0, body->operation_count}, {step->programs[0], 0, cond->operation_count}}, 2};
  vknn_segment seg;
  vknn_status s = vknn_segment_make_loop(model, cond, body, &seg);
  if (s == VKNN_STATUS_NONE) s = prepare_model(cf, &seg.model, &step->loop);
  vknn_segment_free(&seg);
  if (s == VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT || s == VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT)
    return s;
  if (s != VKNN_STATUS_NONE)
    VKNN_LOG_V(log_of(cf), "compilation", "WHILE: body and condition run apart (%s)",
               vknn_status_name(s));
  return VKNN_STATUS_NONE;
}

static vknn_status build_program(vknn_control_flow *cf, const vknn_model *model, uint32_t index);

static vknn_status add_control_flow_step(vknn_control_flow *cf, const vknn_model *model,
                                         const vknn_subgraph *sg, const vknn_operation *op,
                                         cf_step *step) {
  step->kind = op->type == VKNN_OPERATION_IF ? STEP_IF : STEP_WHILE;
  uint32_t first = step->kind == STEP_IF ? 1 : 0; /* the two SUBGRAPH operands */
  step->inputs = copy_list(op->inputs, op->input_count);
  step->outputs = copy_list(op->outputs, op->output_count);
  if (step->inputs == NULL || step->outputs == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  step->input_count = op->input_count;
  step->output_count = op->output_count;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < 2 && s == VKNN_STATUS_NONE; ++i) {
    step->programs[i] = sg->operands[op->inputs[first + i]].location.offset + 1;
    s = build_program(cf, model, step->programs[i]);
  }
  if (s == VKNN_STATUS_NONE && step->kind == STEP_WHILE) s = prepare_loop(cf, model, op, sg, step);
  return s;
}

static vknn_status add_segment_step(vknn_control_flow *cf, const vknn_model *model,
                                    const vknn_subgraph *sg, uint32_t index, uint32_t first,
                                    uint32_t end, cf_program *p) {
  vknn_segment seg;
  vknn_status s = vknn_segment_make(model, sg, first, end, &seg);
  if (s != VKNN_STATUS_NONE) return s;
  if (seg.output_count > 0) { /* else nothing reads what it computes */
    cf_step *step = &p->steps[p->step_count++];
    step->kind = STEP_SEGMENT;
    step->origin = (vknn_segment_origin){{{index, first, end - first}}, 1};
    step->inputs = copy_list(seg.inputs, seg.input_count);
    step->outputs = copy_list(seg.outputs, seg.output_count);
    step->input_count = seg.input_count;
    step->output_count = seg.output_count;
    s = step->inputs == NULL || step->outputs == NULL ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                                                      : prepare_segment(cf, &seg, step);
  }
  vknn_segment_free(&seg);
  return s;
}

/* index: the subgraph's (0: main; i + 1: referenced[i]). */
static vknn_status build_steps(vknn_control_flow *cf, const vknn_model *model,
                               const vknn_subgraph *sg, uint32_t index, cf_program *p) {
  p->steps = vknn_calloc(sg->operation_count ? sg->operation_count : 1, sizeof(cf_step));
  if (p->steps == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t k = 0; k < sg->operation_count && s == VKNN_STATUS_NONE;) {
    if (vknn_is_control_flow(sg->operations[k].type)) {
      s = add_control_flow_step(cf, model, sg, &sg->operations[k], &p->steps[p->step_count++]);
      ++k;
      continue;
    }
    uint32_t end = vknn_segment_end(sg, k);
    s = add_segment_step(cf, model, sg, index, k, end, p);
    k = end;
  }
  return s;
}

/* Programs are built once each, as the main subgraph reaches them (model
 * validation ruled out cycles). */
static vknn_status build_program(vknn_control_flow *cf, const vknn_model *model, uint32_t index) {
  cf_program *p = &cf->programs[index];
  if (p->built) return VKNN_STATUS_NONE;
  p->built = true;
  const vknn_subgraph *sg = index == 0 ? &model->main : &model->referenced[index - 1];
  vknn_status s = describe_operands(cf, model, sg, p);
  if (s == VKNN_STATUS_NONE) s = build_steps(cf, model, sg, index, p);
  return s;
}

vknn_status vknn_control_flow_create(vknn_prepared_model *pm, const vknn_model *model,
                                     vknn_control_flow **out) {
  vknn_control_flow *cf = vknn_calloc(1, sizeof(*cf));
  if (cf == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  cf->owner = pm;
  cf->program_count = model->referenced_count + 1;
  cf->programs = vknn_calloc(cf->program_count, sizeof(cf_program));
  vknn_status s = cf->programs != NULL ? build_program(cf, model, 0)
                                       : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (s != VKNN_STATUS_NONE) {
    vknn_control_flow_destroy(cf);
    return s;
  }
  *out = cf;
  return VKNN_STATUS_NONE;
}

static void free_program(cf_program *p) {
  for (uint32_t i = 0; i < p->step_count; ++i) {
    vknn_prepared_model_release(p->steps[i].segment);
    vknn_prepared_model_release(p->steps[i].loop);
    free(p->steps[i].inputs);
    free(p->steps[i].outputs);
  }
  for (uint32_t i = 0; i < p->operand_count && p->operands != NULL; ++i)
    free((void *)p->operands[i].constant);
  free(p->steps);
  free(p->operands);
  free(p->inputs);
  free(p->outputs);
}

void vknn_control_flow_destroy(vknn_control_flow *cf) {
  if (cf == NULL) return;
  for (uint32_t i = 0; i < cf->program_count && cf->programs != NULL; ++i)
    free_program(&cf->programs[i]);
  free(cf->programs);
  free(cf);
}

uint64_t vknn_control_flow_host_constant_bytes(const vknn_control_flow *cf) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < cf->program_count; ++i)
    for (uint32_t j = 0; j < cf->programs[i].operand_count; ++j)
      if (cf->programs[i].operands[j].constant != NULL) bytes += cf->programs[i].operands[j].constant_size;
  return bytes;
}

/* ---- Values ------------------------------------------------------------ */

static vknn_status frame_make(const cf_program *p, cf_frame *out) {
  out->count = p->operand_count;
  out->values = vknn_calloc(p->operand_count ? p->operand_count : 1, sizeof(cf_value));
  if (out->values == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < p->operand_count; ++i) {
    const cf_operand *o = &p->operands[i];
    cf_value *v = &out->values[i];
    v->omitted = o->omitted;
    if (o->constant == NULL) continue;
    v->data = (uint8_t *)o->constant;
    v->size = o->constant_size;
    v->rank = o->rank;
    memcpy(v->dims, o->dims, sizeof(v->dims));
  }
  return VKNN_STATUS_NONE;
}

static void frame_free(cf_frame *f) {
  for (uint32_t i = 0; i < f->count && f->values != NULL; ++i)
    if (f->values[i].capacity > 0) free(f->values[i].data);
  free(f->values);
  f->values = NULL;
}

static vknn_status value_reserve(cf_value *v, uint64_t size) {
  if (size <= v->capacity) return VKNN_STATUS_NONE;
  uint8_t *data = vknn_realloc(v->data, size);
  if (data == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  v->data = data;
  v->capacity = size;
  return VKNN_STATUS_NONE;
}

static vknn_status value_copy(cf_value *dst, const cf_value *src) {
  vknn_status s = value_reserve(dst, src->size ? src->size : 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (src->size > 0) memcpy(dst->data, src->data, src->size);
  dst->size = src->size;
  dst->omitted = src->omitted;
  dst->rank = src->rank;
  memcpy(dst->dims, src->dims, sizeof(dst->dims));
  return VKNN_STATUS_NONE;
}

static void value_swap(cf_value *a, cf_value *b) {
  cf_value t = *a;
  *a = *b;
  *b = t;
}

static uint64_t value_bytes(int32_t type, uint32_t rank, const uint32_t *dims) {
  uint32_t element = vknn_operand_type_element_size(type);
  if (vknn_operand_type_is_scalar(type)) return element;
  return vknn_saturating_bytes(vknn_shape_element_count(dims, rank), element);
}

/* Whether a value agrees with an operand's declaration (a rank or a
 * dimension of 0 is unknown and takes any): a value leaving an IF or WHILE,
 * or entering a branch, condition or body, must (the reference fails the
 * execution otherwise). */
static bool value_fits(const cf_operand *declared, const cf_value *v) {
  if (v->omitted || declared->rank == 0) return true;
  if (declared->rank != v->rank) return false;
  for (uint32_t d = 0; d < v->rank; ++d)
    if (declared->dims[d] != 0 && declared->dims[d] != v->dims[d]) return false;
  return true;
}

/* value_copy into an operand of declaration `declared`: GENERAL_FAILURE
 * (logged) for a value of another shape; INVALID_ARGUMENT for no value
 * (IF and WHILE take no omitted operand). */
static vknn_status value_move_in(const vknn_control_flow *cf, const char *where, const cf_operand *declared,
                                 cf_value *dst, const cf_value *src) {
  if (src->omitted) {
    VKNN_LOG_E(log_of(cf), TAG, "%s: a value IF and WHILE need was omitted", where);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (!value_fits(declared, src)) {
    VKNN_LOG_E(log_of(cf), TAG, "%s: a value of rank %u does not agree with its operand's declared shape",
               where, src->rank);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return value_copy(dst, src);
}

/* ---- Execute ----------------------------------------------------------- */

static vknn_status run_program(cf_run *run, uint32_t index, cf_frame *frame);

/* One execution of a segment's prepared model: its arguments are values of
 * a frame (outputs with their declarations, for their types and sizes). */
typedef struct segment_call {
  vknn_prepared_model *pm;
  const vknn_segment_origin *origin;
  uint32_t input_count, output_count;
  cf_value **inputs;
  cf_value **outputs;
  const cf_operand **declared; /* of each output */
  vknn_request_argument *args;
  vknn_request_pool *request_pools;
  vknn_mapped_pool *pools;
  vknn_output_shape *shapes;
} segment_call;

static vknn_status call_make(vknn_prepared_model *pm, const vknn_segment_origin *origin,
                             uint32_t input_count, uint32_t output_count, segment_call *c) {
  uint32_t n = input_count + output_count;
  *c = (segment_call){
      .pm = pm, .origin = origin, .input_count = input_count, .output_count = output_count};
  c->inputs = vknn_calloc(n, sizeof(*c->inputs));
  c->outputs = c->inputs != NULL ? c->inputs + input_count : NULL;
  c->declared = vknn_calloc(output_count, sizeof(*c->declared));
  c->args = vknn_calloc(n, sizeof(*c->args));
  c->request_pools = vknn_calloc(n, sizeof(*c->request_pools));
  c->pools = vknn_calloc(n, sizeof(*c->pools));
  c->shapes = vknn_calloc(output_count, sizeof(*c->shapes));
  bool ok = c->inputs != NULL && c->declared != NULL && c->args != NULL &&
            c->request_pools != NULL && c->pools != NULL && c->shapes != NULL;
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
}

static void call_free(segment_call *c) {
  free(c->inputs);
  free(c->declared);
  free(c->args);
  free(c->request_pools);
  free(c->pools);
  free(c->shapes);
}

/* Argument i in pool i: the value's own bytes. The pools are not shared
 * memory (no zero-copy import is tried), only mapped bytes. */
static void bind_argument(segment_call *c, uint32_t i, cf_value *v, uint64_t length) {
  c->request_pools[i].kind = VKNN_REQUEST_POOL_TOKEN;
  c->pools[i] = (vknn_mapped_pool){.data = v->data, .size = length, .writable = true};
  c->args[i].has_no_value = v->omitted;
  c->args[i].location = (vknn_data_location){i, 0, (uint32_t)length};
}

/* Outputs get the room they last needed (or their declared size) and grow
 * when the segment says they need more. */
static vknn_status bind_call(segment_call *c, vknn_request *req) {
  for (uint32_t i = 0; i < c->input_count; ++i) {
    cf_value *v = c->inputs[i];
    bind_argument(c, i, v, v->size);
    c->args[i].dimension_count = v->rank;
    c->args[i].dimensions = v->dims;
  }
  for (uint32_t j = 0; j < c->output_count; ++j) {
    cf_value *v = c->outputs[j];
    const cf_operand *o = c->declared[j];
    uint64_t declared = o->rank > 0 || vknn_operand_type_is_scalar(o->type)
                            ? value_bytes(o->type, o->rank, o->dims)
                            : 0;
    uint64_t room = v->capacity > 0 ? v->capacity : 64;
    vknn_status s = value_reserve(v, declared > room ? declared : room);
    if (s != VKNN_STATUS_NONE) return s;
    v->omitted = false;
    bind_argument(c, c->input_count + j, v, v->capacity);
  }
  *req = (vknn_request){c->args, c->input_count, c->args + c->input_count, c->output_count,
                        c->request_pools, c->input_count + c->output_count};
  return VKNN_STATUS_NONE;
}

static vknn_status grow_outputs(const segment_call *c) {
  for (uint32_t j = 0; j < c->output_count; ++j) {
    const vknn_output_shape *shape = &c->shapes[j];
    uint64_t need = value_bytes(c->declared[j]->type, shape->rank, shape->dimensions);
    if (need > UINT32_MAX) return VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT;
    vknn_status s = value_reserve(c->outputs[j], need);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

static void take_shapes(const segment_call *c) {
  for (uint32_t j = 0; j < c->output_count; ++j) {
    cf_value *v = c->outputs[j];
    v->rank = c->shapes[j].rank;
    memcpy(v->dims, c->shapes[j].dimensions, sizeof(v->dims));
    v->size = value_bytes(c->declared[j]->type, v->rank, v->dims);
  }
}

static void add_device_time(cf_run *run, const vknn_timing *t) {
  if (t->time_on_device == UINT64_MAX) return;
  run->device_us = (run->device_us == UINT64_MAX ? 0 : run->device_us) + t->time_on_device;
}

/* Submits the segment's recording (or, for input shapes it has not seen,
 * records it first). An output larger than its room (a shape seen for the
 * first time) is grown and the segment run again; the size check comes
 * before any GPU work. */
static vknn_status call_run(cf_run *run, segment_call *c) {
  vknn_execution_options o = *run->options;
  o.queued = true; /* a deadline passing now is the driver's: TRANSIENT */
  o.segment = true;
  o.origin = c->origin;
  vknn_timing timing;
  vknn_status s = VKNN_STATUS_NONE, ran = VKNN_STATUS_NONE;
  for (uint32_t attempt = 0; s == VKNN_STATUS_NONE && attempt < 8; ++attempt) {
    vknn_request req;
    s = bind_call(c, &req);
    if (s == VKNN_STATUS_NONE)
      s = ran = vknn_execution_run(c->pm, &req, c->pools, &o, c->shapes, c->output_count, &timing);
    if (s != VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE) break;
    s = grow_outputs(c);
  }
  /* Grown every time and still too small: the outputs were never written. */
  if (s == VKNN_STATUS_NONE && ran == VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE) {
    VKNN_LOG_E(log_of(run->cf), TAG, "a segment's outputs outgrew their room eight times");
    s = VKNN_STATUS_GENERAL_FAILURE;
  }
  if (s == VKNN_STATUS_NONE) {
    take_shapes(c);
    add_device_time(run, &timing);
  }
  return s;
}

static vknn_status run_segment(cf_run *run, const cf_program *p, const cf_step *step,
                               cf_frame *frame) {
  segment_call c;
  vknn_status s = call_make(step->segment, &step->origin, step->input_count, step->output_count, &c);
  for (uint32_t i = 0; s == VKNN_STATUS_NONE && i < step->input_count; ++i)
    c.inputs[i] = &frame->values[step->inputs[i]];
  for (uint32_t j = 0; s == VKNN_STATUS_NONE && j < step->output_count; ++j) {
    c.outputs[j] = &frame->values[step->outputs[j]];
    c.declared[j] = &p->operands[step->outputs[j]];
  }
  if (s == VKNN_STATUS_NONE) s = call_run(run, &c);
  call_free(&c);
  return s;
}

static vknn_status pass_inputs(const cf_run *run, const cf_program *callee, cf_frame *inner,
                               const cf_frame *outer, const uint32_t *list) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < callee->input_count && s == VKNN_STATUS_NONE; ++i) {
    uint32_t to = callee->inputs[i];
    s = value_move_in(run->cf, "a branch, condition or body input", &callee->operands[to],
                      &inner->values[to], &outer->values[list[i]]);
  }
  return s;
}

/* The results of an IF or WHILE into the caller's operands. */
static vknn_status pass_outputs(const cf_run *run, const cf_program *caller, const cf_step *step,
                                cf_frame *frame, const cf_frame *inner, const uint32_t *from) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t j = 0; j < step->output_count && s == VKNN_STATUS_NONE; ++j) {
    uint32_t to = step->outputs[j];
    s = value_move_in(run->cf, step->kind == STEP_IF ? "IF output" : "WHILE output", &caller->operands[to],
                      &frame->values[to], &inner->values[from[j]]);
  }
  return s;
}

/* The one value the host reads: a condition's single boolean. */
static bool condition_value(const cf_value *v) { return v->size > 0 && v->data[0] != 0; }

static vknn_status run_if(cf_run *run, const cf_program *p, const cf_step *step, cf_frame *frame) {
  const cf_value *cond = &frame->values[step->inputs[0]];
  if (cond->omitted || cond->size == 0) {
    VKNN_LOG_E(log_of(run->cf), TAG, "IF: the condition has no value");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint32_t index = step->programs[condition_value(cond) ? 0 : 1];
  const cf_program *branch = &run->cf->programs[index];
  cf_frame inner;
  vknn_status s = frame_make(branch, &inner);
  if (s == VKNN_STATUS_NONE) s = pass_inputs(run, branch, &inner, frame, step->inputs + 3);
  if (s == VKNN_STATUS_NONE) s = run_program(run, index, &inner);
  if (s == VKNN_STATUS_NONE) s = pass_outputs(run, p, step, frame, &inner, branch->outputs);
  frame_free(&inner);
  return s;
}

/* Between iterations: the loop's own timeout, then the execution's deadline. */
static vknn_status check_loop_time(const cf_run *run, uint64_t start_ns, uint64_t iterations) {
  const vknn_logger *log = log_of(run->cf);
  uint64_t now = vknn_now_boottime_ns();
  if (now - start_ns > run->options->loop_timeout_ns) {
    VKNN_LOG_E(log, TAG, "WHILE: still looping after %llu iterations and %llu ns, past the "
               "loop timeout of %llu ns", (unsigned long long)iterations,
               (unsigned long long)(now - start_ns), (unsigned long long)run->options->loop_timeout_ns);
    return VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
  }
  const vknn_deadline *d = &run->options->deadline;
  if (d->has_value && now >= d->nanoseconds_since_boot) {
    VKNN_LOG_E(log, TAG, "WHILE: the deadline passed after %llu iterations",
               (unsigned long long)iterations);
    atomic_fetch_add(&run->cf->owner->device->vk.counters.deadline_cancellations, 1);
    return VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
  }
  return VKNN_STATUS_NONE;
}

typedef struct loop_frames {
  const cf_program *cond, *body;
  cf_frame cond_frame, body_frame;
} loop_frames;

/* The condition on the loop's current values (the body frame's inputs). */
static vknn_status evaluate_condition(cf_run *run, const cf_step *step, loop_frames *l,
                                      bool *out) {
  vknn_status s = pass_inputs(run, l->cond, &l->cond_frame, &l->body_frame, l->body->inputs);
  if (s == VKNN_STATUS_NONE) s = run_program(run, step->programs[0], &l->cond_frame);
  *out = s == VKNN_STATUS_NONE && condition_value(&l->cond_frame.values[l->cond->outputs[0]]);
  return s;
}

/* The fused loop: one execution runs the body and tests the condition on
 * its results. The first test runs the condition program alone. */
static vknn_status make_loop_call(const cf_step *step, loop_frames *l, cf_value *condition,
                                  segment_call *c) {
  const cf_program *body = l->body;
  vknn_status s = call_make(step->loop, &step->loop_origin, body->input_count, body->output_count + 1, c);
  if (s != VKNN_STATUS_NONE) return s;
  for (uint32_t i = 0; i < body->input_count; ++i) c->inputs[i] = &l->body_frame.values[body->inputs[i]];
  for (uint32_t j = 0; j < body->output_count; ++j) {
    c->outputs[j] = &l->body_frame.values[body->outputs[j]];
    c->declared[j] = &body->operands[body->outputs[j]];
  }
  c->outputs[body->output_count] = condition;
  c->declared[body->output_count] = &l->cond->operands[l->cond->outputs[0]];
  return VKNN_STATUS_NONE;
}

/* Body output i is the next iteration's input i, which must agree with the
 * body's input i and the condition's (the fused loop tests the condition on
 * the GPU, so the host checks here): GENERAL_FAILURE otherwise. */
static vknn_status carry_values(const cf_run *run, loop_frames *l) {
  for (uint32_t i = 0; i < l->body->output_count; ++i) {
    cf_value *next = &l->body_frame.values[l->body->inputs[i]];
    value_swap(next, &l->body_frame.values[l->body->outputs[i]]);
    if (!value_fits(&l->body->operands[l->body->inputs[i]], next) ||
        !value_fits(&l->cond->operands[l->cond->inputs[i]], next)) {
      VKNN_LOG_E(log_of(run->cf), TAG, "WHILE: body output %u does not agree with the loop's input %u", i, i);
      return VKNN_STATUS_GENERAL_FAILURE;
    }
  }
  return VKNN_STATUS_NONE;
}

/* The loop's time is checked each time the condition says to go on (HAL:
 * the loop is aborted when its condition does not give false in time; a
 * condition false at once never times out). */
static vknn_status iterate_fused(cf_run *run, const cf_step *step, loop_frames *l) {
  uint64_t start = vknn_now_boottime_ns();
  bool again = false;
  vknn_status s = evaluate_condition(run, step, l, &again);
  if (s == VKNN_STATUS_NONE && again) s = check_loop_time(run, start, 0);
  if (s != VKNN_STATUS_NONE || !again) return s;
  cf_value condition = {0};
  segment_call c;
  s = make_loop_call(step, l, &condition, &c);
  for (uint64_t iterations = 1; s == VKNN_STATUS_NONE; ++iterations) {
    s = call_run(run, &c);
    if (s == VKNN_STATUS_NONE) s = carry_values(run, l);
    if (s != VKNN_STATUS_NONE || !condition_value(&condition)) break;
    s = check_loop_time(run, start, iterations);
  }
  call_free(&c);
  free(condition.data);
  return s;
}

static vknn_status iterate(cf_run *run, const cf_step *step, loop_frames *l) {
  if (step->loop != NULL) return iterate_fused(run, step, l);
  uint64_t start = vknn_now_boottime_ns();
  for (uint64_t iterations = 0;; ++iterations) {
    bool again = false;
    vknn_status s = evaluate_condition(run, step, l, &again);
    if (s == VKNN_STATUS_NONE && again) s = check_loop_time(run, start, iterations);
    if (s != VKNN_STATUS_NONE || !again) return s;
    s = run_program(run, step->programs[1], &l->body_frame);
    if (s == VKNN_STATUS_NONE) s = carry_values(run, l);
    if (s != VKNN_STATUS_NONE) return s;
  }
}

static vknn_status run_while(cf_run *run, const cf_program *p, const cf_step *step, cf_frame *frame) {
  loop_frames l = {.cond = &run->cf->programs[step->programs[0]],
                   .body = &run->cf->programs[step->programs[1]]};
  vknn_status s = frame_make(l.cond, &l.cond_frame);
  if (s == VKNN_STATUS_NONE) s = frame_make(l.body, &l.body_frame);
  if (s == VKNN_STATUS_NONE) s = pass_inputs(run, l.body, &l.body_frame, frame, step->inputs + 2);
  if (s == VKNN_STATUS_NONE) s = iterate(run, step, &l);
  if (s == VKNN_STATUS_NONE) s = pass_outputs(run, p, step, frame, &l.body_frame, l.body->inputs);
  frame_free(&l.cond_frame);
  frame_free(&l.body_frame);
  return s;
}

static vknn_status run_program(cf_run *run, uint32_t index, cf_frame *frame) {
  const cf_program *p = &run->cf->programs[index];
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < p->step_count && s == VKNN_STATUS_NONE; ++i) {
    const cf_step *step = &p->steps[i];
    if (step->kind == STEP_SEGMENT) s = run_segment(run, p, step, frame);
    else if (step->kind == STEP_IF) s = run_if(run, p, step, frame);
    else s = run_while(run, p, step, frame);
  }
  return s;
}

/* ---- The request ------------------------------------------------------- */

static vknn_status read_input(const vknn_control_flow *cf, uint32_t i,
                              const vknn_request_argument *arg, const vknn_mapped_pool *pool,
                              const cf_operand *o, cf_value *v) {
  v->omitted = arg->has_no_value;
  if (arg->has_no_value) return VKNN_STATUS_NONE;
  v->rank = arg->dimension_count > 0 ? arg->dimension_count : o->rank;
  memcpy(v->dims, arg->dimension_count > 0 ? arg->dimensions : o->dims, v->rank * sizeof(uint32_t));
  v->size = value_bytes(o->type, v->rank, v->dims);
  if (v->size > VKNN_MAX_TENSOR_BYTES) {
    VKNN_LOG_E(log_of(cf), TAG, "input %u: a value of more than 4 GiB", i);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (v->size > arg->location.length) {
    VKNN_LOG_E(log_of(cf), TAG, "input %u has %u bytes, its value needs %llu", i,
               arg->location.length, (unsigned long long)v->size);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  vknn_status s = value_reserve(v, v->size ? v->size : 1);
  if (s != VKNN_STATUS_NONE || v->size == 0) return s;
  if (pool->buffer != NULL) return vknn_buffer_read(pool->buffer, v->data, v->size);
  memcpy(v->data, pool->data + arg->location.offset, v->size);
  return VKNN_STATUS_NONE;
}

static vknn_status read_inputs(const vknn_control_flow *cf, const vknn_request *request,
                               const vknn_mapped_pool *pools, cf_frame *frame) {
  const cf_program *p = &cf->programs[0];
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t i = 0; i < p->input_count && s == VKNN_STATUS_NONE; ++i) {
    const vknn_request_argument *arg = &request->inputs[i];
    const vknn_mapped_pool *pool = arg->has_no_value ? NULL : &pools[arg->location.pool_index];
    s = read_input(cf, i, arg, pool, &p->operands[p->inputs[i]], &frame->values[p->inputs[i]]);
  }
  return s;
}

/* Shapes first (every output), then INVALID_ARGUMENT for dimensions the
 * request fixed otherwise, OUTPUT_INSUFFICIENT_SIZE for too little room. */
static vknn_status report_shapes(const vknn_control_flow *cf, const vknn_request *request,
                                 const cf_frame *frame, vknn_output_shape *shapes,
                                 uint32_t shape_count) {
  const cf_program *p = &cf->programs[0];
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t j = 0; j < p->output_count; ++j) {
    const cf_value *v = &frame->values[p->outputs[j]];
    const vknn_request_argument *arg = &request->outputs[j];
    bool sufficient = arg->has_no_value || arg->location.length >= v->size;
    if (shapes != NULL && j < shape_count) {
      shapes[j] = (vknn_output_shape){.rank = v->rank, .is_sufficient = sufficient};
      memcpy(shapes[j].dimensions, v->dims, v->rank * sizeof(uint32_t));
    }
    bool dims_ok = arg->has_no_value || arg->dimension_count == 0 || arg->dimension_count == v->rank;
    for (uint32_t d = 0; dims_ok && d < arg->dimension_count; ++d)
      dims_ok = arg->dimensions[d] == 0 || arg->dimensions[d] == v->dims[d];
    if (!dims_ok) {
      VKNN_LOG_E(log_of(cf), TAG, "output %u: the request's dimensions are not those of the value", j);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    if (!sufficient) {
      VKNN_LOG_E(log_of(cf), TAG, "output %u needs %llu bytes, its location has %u", j,
                 (unsigned long long)v->size, arg->location.length);
      s = VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE;
    }
  }
  return s;
}

static vknn_status write_outputs(const vknn_control_flow *cf, const vknn_request *request,
                                 const vknn_mapped_pool *pools, const cf_frame *frame) {
  const cf_program *p = &cf->programs[0];
  for (uint32_t j = 0; j < p->output_count; ++j) {
    const cf_value *v = &frame->values[p->outputs[j]];
    const vknn_request_argument *arg = &request->outputs[j];
    if (arg->has_no_value || v->size == 0) continue;
    const vknn_mapped_pool *pool = &pools[arg->location.pool_index];
    if (pool->buffer != NULL) {
      vknn_status s = vknn_buffer_write(pool->buffer, v->data, v->size, v->dims, v->rank);
      if (s != VKNN_STATUS_NONE) return s;
      continue;
    }
    if (!pool->writable) {
      VKNN_LOG_E(log_of(cf), TAG, "output %u lies in a read-only pool", j);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
    memcpy(pool->data + arg->location.offset, v->data, v->size);
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_control_flow_run(vknn_control_flow *cf, const vknn_request *request,
                                  const vknn_mapped_pool *pools,
                                  const vknn_execution_options *options,
                                  vknn_output_shape *shapes, uint32_t shape_count,
                                  uint64_t *device_us) {
  vknn_resolved_request resolved;
  vknn_status s = vknn_resolve_buffer_arguments(log_of(cf), request, pools, &resolved);
  cf_run run = {cf, options, UINT64_MAX};
  cf_frame frame = {0};
  if (s == VKNN_STATUS_NONE) s = frame_make(&cf->programs[0], &frame);
  if (s == VKNN_STATUS_NONE) s = read_inputs(cf, &resolved.request, pools, &frame);
  if (s == VKNN_STATUS_NONE) s = run_program(&run, 0, &frame);
  if (s == VKNN_STATUS_NONE) s = report_shapes(cf, &resolved.request, &frame, shapes, shape_count);
  if (s == VKNN_STATUS_NONE) s = write_outputs(cf, &resolved.request, pools, &frame);
  if (s == VKNN_STATUS_NONE) *device_us = run.device_us;
  frame_free(&frame);
  vknn_resolved_request_free(&resolved);
  return s;
}
