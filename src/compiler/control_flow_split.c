/* A subgraph that holds IF or WHILE, split into segments: each run of other
 * operations between them becomes a model of its own, compiled (and, with
 * its shapes known, recorded) like any model. Its inputs are the values it
 * reads and does not write (the subgraph's inputs, values an IF or WHILE
 * wrote); its outputs the values it writes that a later step reads or that
 * the subgraph returns. */
#include <stdlib.h>
#include <string.h>

#include "compiler/control_flow_split.h"
#include "compiler/operation_registry.h"
#include "util/fault_injection.h"

enum {
  READ_INSIDE = 1,
  WRITTEN_INSIDE = 2,
  READ_OUTSIDE = 4,
};

uint32_t vknn_segment_end(const vknn_subgraph *sg, uint32_t first) {
  uint32_t k = first;
  while (k < sg->operation_count && !vknn_is_control_flow(sg->operations[k].type)) ++k;
  return k;
}

static void mark_uses(const vknn_subgraph *sg, uint32_t first, uint32_t end, uint8_t *flags) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    bool inside = k >= first && k < end;
    for (uint32_t i = 0; i < op->input_count; ++i)
      flags[op->inputs[i]] |= inside ? READ_INSIDE : READ_OUTSIDE;
    for (uint32_t i = 0; inside && i < op->output_count; ++i) flags[op->outputs[i]] |= WRITTEN_INSIDE;
  }
}

static bool is_value(vknn_operand_lifetime l) {
  return l == VKNN_LIFETIME_SUBGRAPH_INPUT || l == VKNN_LIFETIME_TEMPORARY_VARIABLE ||
         l == VKNN_LIFETIME_SUBGRAPH_OUTPUT;
}

static bool segment_input(const vknn_operand *o, uint8_t flags) {
  return (flags & READ_INSIDE) && !(flags & WRITTEN_INSIDE) && is_value(o->lifetime);
}

static bool segment_output(const vknn_operand *o, uint8_t flags) {
  return (flags & WRITTEN_INSIDE) &&
         (o->lifetime == VKNN_LIFETIME_SUBGRAPH_OUTPUT || (flags & READ_OUTSIDE));
}

static vknn_operand_lifetime lifetime_in_segment(const vknn_operand *o, uint8_t flags) {
  if (segment_input(o, flags)) return VKNN_LIFETIME_SUBGRAPH_INPUT;
  if (segment_output(o, flags)) return VKNN_LIFETIME_SUBGRAPH_OUTPUT;
  if (flags & WRITTEN_INSIDE) return VKNN_LIFETIME_TEMPORARY_VARIABLE;
  return o->lifetime;
}

static uint32_t index_count(const vknn_subgraph *sg, uint32_t first, uint32_t end) {
  uint32_t n = 0;
  for (uint32_t k = first; k < end; ++k) n += sg->operations[k].input_count + sg->operations[k].output_count;
  return n;
}

/* The operands the segment uses, renumbered in their original order. */
static uint32_t build_operands(vknn_segment *seg, const vknn_subgraph *sg, const uint8_t *flags,
                               uint32_t *map) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    map[i] = UINT32_MAX;
    if (!(flags[i] & (READ_INSIDE | WRITTEN_INSIDE))) continue;
    map[i] = n;
    vknn_operand *o = &seg->operands[n++];
    *o = sg->operands[i];
    o->lifetime = lifetime_in_segment(&sg->operands[i], flags[i]);
    o->number_of_consumers = 0;
  }
  return n;
}

static uint32_t *remap_list(const uint32_t *list, uint32_t count, const uint32_t *map,
                            uint32_t *next) {
  for (uint32_t i = 0; i < count; ++i) next[i] = map[list[i]];
  return next;
}

static void build_operations(vknn_segment *seg, const vknn_subgraph *sg, const uint32_t *map,
                             uint32_t **next) {
  for (uint32_t k = seg->first; k < seg->end; ++k) {
    const vknn_operation *op = &sg->operations[k];
    vknn_operation *copy = &seg->operations[k - seg->first];
    *copy = *op;
    copy->inputs = remap_list(op->inputs, op->input_count, map, *next);
    *next += op->input_count;
    copy->outputs = remap_list(op->outputs, op->output_count, map, *next);
    *next += op->output_count;
    for (uint32_t i = 0; i < op->input_count; ++i) seg->operands[copy->inputs[i]].number_of_consumers++;
  }
}

/* Inputs in the order the segment first reads them; outputs in operand order. */
static void build_io(vknn_segment *seg, const vknn_subgraph *sg, const uint8_t *flags,
                     const uint32_t *map, uint32_t *next, uint32_t **model_inputs,
                     uint32_t **model_outputs) {
  uint32_t used = seg->model.main.operand_count;
  seg->inputs = next;
  *model_inputs = next + used;
  seg->outputs = next + 2 * used;
  *model_outputs = next + 3 * used;
  for (uint32_t k = seg->first; k < seg->end; ++k) {
    const vknn_operation *op = &sg->operations[k];
    for (uint32_t i = 0; i < op->input_count; ++i) {
      uint32_t o = op->inputs[i];
      bool listed = false;
      for (uint32_t j = 0; j < seg->input_count && !listed; ++j) listed = seg->inputs[j] == o;
      if (listed || !segment_input(&sg->operands[o], flags[o])) continue;
      (*model_inputs)[seg->input_count] = map[o];
      seg->inputs[seg->input_count++] = o;
    }
  }
  for (uint32_t o = 0; o < sg->operand_count; ++o) {
    if (!segment_output(&sg->operands[o], flags[o])) continue;
    (*model_outputs)[seg->output_count] = map[o];
    seg->outputs[seg->output_count++] = o;
  }
}

static void fill_model(vknn_segment *seg, const vknn_model *model, const uint32_t *inputs,
                       const uint32_t *outputs) {
  vknn_model *m = &seg->model;
  m->main.operations = seg->operations;
  m->main.operation_count = seg->end - seg->first;
  m->main.operands = seg->operands;
  m->main.input_indexes = inputs;
  m->main.input_count = seg->input_count;
  m->main.output_indexes = outputs;
  m->main.output_count = seg->output_count;
  m->operand_values = model->operand_values;
  m->operand_values_size = model->operand_values_size;
  m->pools = model->pools;
  m->pool_count = model->pool_count;
  m->relax_computation_float32_to_float16 = model->relax_computation_float32_to_float16;
  m->extension_name_to_prefix = model->extension_name_to_prefix;
  m->extension_name_to_prefix_count = model->extension_name_to_prefix_count;
}

vknn_status vknn_segment_make(const vknn_model *model, const vknn_subgraph *sg, uint32_t first,
                              uint32_t end, vknn_segment *out) {
  memset(out, 0, sizeof(*out));
  out->first = first;
  out->end = end;
  size_t n = sg->operand_count ? sg->operand_count : 1;
  uint8_t *flags = vknn_calloc(n, 1);
  uint32_t *map = vknn_calloc(n, sizeof(uint32_t));
  out->operands = vknn_calloc(n, sizeof(vknn_operand));
  out->operations = vknn_calloc(end > first ? end - first : 1, sizeof(vknn_operation));
  out->indexes = vknn_calloc(index_count(sg, first, end) + 4 * n, sizeof(uint32_t));
  vknn_status s = VKNN_STATUS_NONE;
  if (flags == NULL || map == NULL || out->operands == NULL || out->operations == NULL ||
      out->indexes == NULL) {
    s = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  } else {
    mark_uses(sg, first, end, flags);
    out->model.main.operand_count = build_operands(out, sg, flags, map);
    uint32_t *next = out->indexes;
    build_operations(out, sg, map, &next);
    uint32_t *inputs = NULL, *outputs = NULL;
    build_io(out, sg, flags, map, next, &inputs, &outputs);
    fill_model(out, model, inputs, outputs);
  }
  free(flags);
  free(map);
  if (s != VKNN_STATUS_NONE) vknn_segment_free(out);
  return s;
}

void vknn_segment_free(vknn_segment *segment) {
  free(segment->operands);
  free(segment->operations);
  free(segment->indexes);
  memset(segment, 0, sizeof(*segment));
}

/* ---- Nesting depth --------------------------------------------------------- */

/* Marks in `into` the subgraphs sg's IF and WHILE operations reference. */
static void mark_referenced(const vknn_subgraph *sg, uint8_t *into) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    if (!vknn_is_control_flow(op->type)) continue;
    for (uint32_t i = 0; i < op->input_count; ++i) {
      const vknn_operand *o = &sg->operands[op->inputs[i]];
      if (o->lifetime == VKNN_LIFETIME_SUBGRAPH) into[o->location.offset] = 1;
    }
  }
}

static bool any_marked(const uint8_t *marks, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (marks[i]) return true;
  return false;
}

/* Level by level: `level` holds the subgraphs some chain of that many
 * references from main reaches; a level past the limit that is not empty is
 * a chain too deep. At most limit + 1 levels, each a pass over the marked
 * subgraphs. */
vknn_status vknn_control_flow_nesting_fits(const vknn_model *model, bool *out_fits) {
  uint32_t n = model->referenced_count;
  uint8_t *level = vknn_calloc(n ? n : 1, 1), *next = vknn_calloc(n ? n : 1, 1);
  if (level == NULL || next == NULL) {
    free(level);
    free(next);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  mark_referenced(&model->main, level);
  uint32_t depth = 1;
  while (any_marked(level, n) && depth <= VKNN_MAX_CONTROL_FLOW_NESTING) {
    memset(next, 0, n);
    for (uint32_t i = 0; i < n; ++i)
      if (level[i]) mark_referenced(&model->referenced[i], next);
    uint8_t *swap = level;
    level = next;
    next = swap;
    ++depth;
  }
  *out_fits = !any_marked(level, n);
  free(level);
  free(next);
  return VKNN_STATUS_NONE;
}

/* The support query over subgraphs: a subgraph is supported when all its
 * operations are (its IF and WHILE through what they reach). */
typedef struct query_context {
  const vknn_logger *log;
  const vknn_model *model;
  const vknn_plan_target *target;
  uint8_t *answer; /* per referenced subgraph: 0 not asked yet, 1 supported, 2 not */
  bool nesting_fits; /* else no IF or WHILE is followed into what it references */
} query_context;

static vknn_status query_subgraph(query_context *q, const vknn_subgraph *sg, bool *supported);

static vknn_status referenced_supported(query_context *q, const vknn_operand *o, bool *out) {
  uint32_t index = o->location.offset;
  if (q->answer[index] == 0) {
    const vknn_subgraph *sg = vknn_referenced_subgraph(q->model, o);
    bool *ops = vknn_calloc(sg->operation_count ? sg->operation_count : 1, sizeof(bool));
    if (ops == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    vknn_status s = query_subgraph(q, sg, ops);
    bool all = s == VKNN_STATUS_NONE;
    for (uint32_t k = 0; all && k < sg->operation_count; ++k) all = ops[k];
    free(ops);
    if (s != VKNN_STATUS_NONE) return s;
    q->answer[index] = all ? 1 : 2;
  }
  *out = q->answer[index] == 1;
  return VKNN_STATUS_NONE;
}

static vknn_status query_control_flow(query_context *q, const vknn_subgraph *sg,
                                      const vknn_operation *op, bool *out) {
  /* IF: then and else (inputs 1, 2); WHILE: cond and body (inputs 0, 1). */
  uint32_t first = op->type == VKNN_OPERATION_IF ? 1 : 0;
  if (!q->nesting_fits || !vknn_operation_ranks_fit(sg, op)) {
    *out = false;
    return VKNN_STATUS_NONE;
  }
  bool a = false, b = false;
  vknn_status s = referenced_supported(q, &sg->operands[op->inputs[first]], &a);
  if (s == VKNN_STATUS_NONE) s = referenced_supported(q, &sg->operands[op->inputs[first + 1]], &b);
  *out = a && b;
  if (s == VKNN_STATUS_NONE && !*out)
    VKNN_LOG_V(q->log, "driver", "%s: a subgraph it runs has an unsupported operation",
               vknn_operation_type_name(op->type));
  return s;
}

static vknn_status query_segment(query_context *q, const vknn_subgraph *sg, uint32_t first,
                                 uint32_t end, bool *supported) {
  vknn_segment seg;
  vknn_status s = vknn_segment_make(q->model, sg, first, end, &seg);
  if (s != VKNN_STATUS_NONE) return s;
  s = vknn_compile_query(q->log, &seg.model, q->target, supported + first);
  vknn_segment_free(&seg);
  return s;
}

static vknn_status query_subgraph(query_context *q, const vknn_subgraph *sg, bool *supported) {
  vknn_status s = VKNN_STATUS_NONE;
  for (uint32_t k = 0; k < sg->operation_count && s == VKNN_STATUS_NONE;) {
    if (vknn_is_control_flow(sg->operations[k].type)) {
      s = query_control_flow(q, sg, &sg->operations[k], &supported[k]);
      ++k;
      continue;
    }
    uint32_t end = vknn_segment_end(sg, k);
    s = query_segment(q, sg, k, end, supported);
    k = end;
  }
  return s;
}

vknn_status vknn_control_flow_query(const vknn_logger *log, const vknn_model *model,
                                    const vknn_plan_target *target, bool *supported) {
  query_context q = {log, model, target, vknn_calloc(model->referenced_count + 1, 1), false};
  if (q.answer == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_status s = vknn_control_flow_nesting_fits(model, &q.nesting_fits);
  if (s == VKNN_STATUS_NONE && !q.nesting_fits)
    VKNN_LOG_V(log, "driver", "IF and WHILE nest deeper than %u levels: unsupported",
               VKNN_MAX_CONTROL_FLOW_NESTING);
  if (s == VKNN_STATUS_NONE) s = query_subgraph(&q, &model->main, supported);
  free(q.answer);
  return s;
}

/* ---- A loop as one segment ------------------------------------------------ */

/* Where the fused model finds cond's operand o: its inputs are the body's
 * outputs (loop-carried and state values after this iteration) or the
 * body's inputs (invariants); its other operands follow the body's. */
static void map_condition(const vknn_subgraph *cond, const vknn_subgraph *body, uint32_t *map) {
  uint32_t next = body->operand_count;
  for (uint32_t o = 0; o < cond->operand_count; ++o) map[o] = UINT32_MAX;
  for (uint32_t i = 0; i < cond->input_count; ++i)
    map[cond->input_indexes[i]] =
        i < body->output_count ? body->output_indexes[i] : body->input_indexes[i];
  for (uint32_t o = 0; o < cond->operand_count; ++o)
    if (map[o] == UINT32_MAX) map[o] = next++;
}

static void append_operations(vknn_segment *seg, uint32_t *at, const vknn_subgraph *sg,
                              const uint32_t *map, uint32_t **next) {
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    vknn_operation *copy = &seg->operations[(*at)++];
    *copy = *op;
    copy->inputs = *next;
    for (uint32_t i = 0; i < op->input_count; ++i) (*next)[i] = map ? map[op->inputs[i]] : op->inputs[i];
    *next += op->input_count;
    copy->outputs = *next;
    for (uint32_t i = 0; i < op->output_count; ++i) (*next)[i] = map ? map[op->outputs[i]] : op->outputs[i];
    *next += op->output_count;
    for (uint32_t i = 0; i < op->input_count; ++i) seg->operands[copy->inputs[i]].number_of_consumers++;
  }
}

static void fill_loop_operands(vknn_segment *seg, const vknn_subgraph *cond,
                               const vknn_subgraph *body, const uint32_t *map) {
  for (uint32_t o = 0; o < body->operand_count; ++o) {
    seg->operands[o] = body->operands[o];
    seg->operands[o].number_of_consumers = 0;
  }
  for (uint32_t o = 0; o < cond->operand_count; ++o) {
    if (map[o] < body->operand_count) continue; /* one of cond's inputs */
    seg->operands[map[o]] = cond->operands[o];
    seg->operands[map[o]].number_of_consumers = 0;
  }
}

static void fill_loop_io(vknn_segment *seg, const vknn_subgraph *cond, const vknn_subgraph *body,
                         const uint32_t *map, uint32_t *next) {
  seg->inputs = next;
  seg->input_count = body->input_count;
  memcpy(seg->inputs, body->input_indexes, body->input_count * sizeof(uint32_t));
  seg->outputs = next + body->input_count;
  seg->output_count = body->output_count + 1;
  memcpy(seg->outputs, body->output_indexes, body->output_count * sizeof(uint32_t));
  seg->outputs[body->output_count] = map[cond->output_indexes[0]];
}

vknn_status vknn_segment_make_loop(const vknn_model *model, const vknn_subgraph *cond,
                                   const vknn_subgraph *body, vknn_segment *out) {
  memset(out, 0, sizeof(*out));
  uint32_t operands = body->operand_count + cond->operand_count;
  uint32_t operations = body->operation_count + cond->operation_count;
  uint32_t *map = vknn_calloc(cond->operand_count ? cond->operand_count : 1, sizeof(uint32_t));
  out->operands = vknn_calloc(operands, sizeof(vknn_operand));
  out->operations = vknn_calloc(operations ? operations : 1, sizeof(vknn_operation));
  out->indexes = vknn_calloc(index_count(body, 0, body->operation_count) +
                                 index_count(cond, 0, cond->operation_count) + operands + 1,
                             sizeof(uint32_t));
  if (map == NULL || out->operands == NULL || out->operations == NULL || out->indexes == NULL) {
    free(map);
    vknn_segment_free(out);
    return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  map_condition(cond, body, map);
  fill_loop_operands(out, cond, body, map);
  uint32_t *next = out->indexes, at = 0;
  append_operations(out, &at, body, NULL, &next);
  append_operations(out, &at, cond, map, &next);
  fill_loop_io(out, cond, body, map, next);
  out->end = operations;
  out->model.main.operand_count = operands - cond->input_count;
  fill_model(out, model, out->inputs, out->outputs);
  free(map);
  return VKNN_STATUS_NONE;
}
