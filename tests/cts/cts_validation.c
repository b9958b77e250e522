/* The validation mode: every model mutation (cts_mutations.c) must give
 * INVALID_ARGUMENT from the support query and from prepare, with no prepared
 * model; every request mutation (a removed input or output, bad dimensions,
 * a location outside its pool, a bad pool index) must give INVALID_ARGUMENT
 * from every execution path, with no output shapes, UINT64_MAX timing, no
 * callback, no fence. Cases built as all_inputs_as_internal or
 * all_tensors_as_inputs variants are left out, as upstream does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cts_modes.h"
#include "cts_mutations.h"

#define SENTINEL_RANK 0xdeadbeefu

typedef struct validation {
  cts_worker *w;
  cts_judgement *j;
  vknn_prepared_model *pm;
  vknn_burst *burst;
} validation;

static bool fail(validation *v, const char *what, const char *step, vknn_status s) {
  v->j->status = CTS_FAILED;
  snprintf(v->j->reason, sizeof(v->j->reason), "validation: %s: %s returned %s", what, step,
           vknn_status_name(s));
  return false;
}

/* ---- model mutations ----------------------------------------------------- */

static bool arguments_valid(const cts_mutant *m) {
  return m->preference >= VKNN_PREFER_LOW_POWER && m->preference <= VKNN_PREFER_SUSTAINED_SPEED &&
         m->priority >= VKNN_PRIORITY_LOW && m->priority <= VKNN_PRIORITY_HIGH;
}

static bool check_model(void *context, const cts_mutant *m, const char *what) {
  validation *v = context;
  vknn_status s;
  if (arguments_valid(m)) {
    uint32_t count = m->model.main.operation_count;
    bool *supported = calloc(count + 1, sizeof(bool));
    s = vknn_device_get_supported_operations(v->w->device, &m->model, supported, count);
    free(supported);
    if (s != VKNN_STATUS_INVALID_ARGUMENT) return fail(v, what, "getSupportedOperations", s);
  }
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(v->w->device, &m->model, (vknn_execution_preference)m->preference,
                                (vknn_priority)m->priority, NULL, &pm);
  if (pm != NULL) {
    vknn_prepared_model_release(pm);
    return fail(v, what, "prepare (a prepared model came back)", s);
  }
  return s == VKNN_STATUS_INVALID_ARGUMENT ? true : fail(v, what, "prepare", s);
}

/* ---- request mutations --------------------------------------------------- */

typedef struct request_mutant {
  vknn_request request;
  vknn_request_argument *inputs;
  vknn_request_argument *outputs;
  uint32_t dims[VKNN_MAX_RANK + 1];
} request_mutant;

static bool request_mutant_init(request_mutant *r, const vknn_request *original) {
  memset(r, 0, sizeof(*r));
  r->request = *original;
  r->inputs = calloc(original->input_count + 1, sizeof(vknn_request_argument));
  r->outputs = calloc(original->output_count + 1, sizeof(vknn_request_argument));
  if (r->inputs == NULL || r->outputs == NULL) return false;
  memcpy(r->inputs, original->inputs, original->input_count * sizeof(vknn_request_argument));
  memcpy(r->outputs, original->outputs, original->output_count * sizeof(vknn_request_argument));
  r->request.inputs = r->inputs;
  r->request.outputs = r->outputs;
  return true;
}

static void request_mutant_free(request_mutant *r) {
  free(r->inputs);
  free(r->outputs);
}

static bool timing_unset(const vknn_timing *t) {
  return t->time_on_device == UINT64_MAX && t->time_in_driver == UINT64_MAX;
}

static bool shapes_untouched(const vknn_output_shape *shapes) {
  for (uint32_t i = 0; i < CTS_MAX_OUTPUTS; ++i)
    if (shapes[i].rank != SENTINEL_RANK) return false;
  return true;
}

static void reset_results(vknn_output_shape *shapes, vknn_timing *timing) {
  for (uint32_t i = 0; i < CTS_MAX_OUTPUTS; ++i) shapes[i].rank = SENTINEL_RANK;
  *timing = (vknn_timing){0, 0};
}

/* The synchronous and burst paths: INVALID_ARGUMENT, nothing reported. */
static bool check_direct(validation *v, const vknn_request *r, const char *what, bool burst) {
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing;
  reset_results(shapes, &timing);
  const int32_t slots[2] = {0, 1};
  vknn_status s =
      burst ? vknn_burst_execute(v->burst, r, slots, VKNN_MEASURE_TIMING_YES, NULL, NULL, shapes,
                                 CTS_MAX_OUTPUTS, &timing)
            : vknn_prepared_model_execute(v->pm, r, VKNN_MEASURE_TIMING_YES, NULL, NULL, shapes,
                                          CTS_MAX_OUTPUTS, &timing);
  const char *step = burst ? "burst execute" : "execute";
  if (s != VKNN_STATUS_INVALID_ARGUMENT) return fail(v, what, step, s);
  if (!timing_unset(&timing)) return fail(v, what, "timing of a rejected execution:", s);
  if (!shapes_untouched(shapes)) return fail(v, what, "shapes of a rejected execution:", s);
  return true;
}

typedef struct callback_record {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool called;
} callback_record;

static void on_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                    uint32_t shape_count, const vknn_timing *timing) {
  (void)status, (void)shapes, (void)shape_count, (void)timing;
  callback_record *c = user_data;
  pthread_mutex_lock(&c->lock);
  c->called = true;
  pthread_cond_signal(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

/* An accepted launch still reports once: wait for it before returning. */
static bool check_async(validation *v, const vknn_request *r, const char *what) {
  callback_record c = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
  vknn_status s = vknn_prepared_model_execute_async(v->pm, r, VKNN_MEASURE_TIMING_YES, NULL, NULL,
                                                    on_done, &c);
  if (s == VKNN_STATUS_NONE) {
    pthread_mutex_lock(&c.lock);
    while (!c.called) pthread_cond_wait(&c.cond, &c.lock);
    pthread_mutex_unlock(&c.lock);
  }
  if (s != VKNN_STATUS_INVALID_ARGUMENT) return fail(v, what, "execute_async", s);
  if (c.called) return fail(v, what, "execute_async called back after", s);
  return true;
}

static bool check_fenced(validation *v, const vknn_request *r, const char *what) {
  int fence = -1;
  vknn_fenced_execution *execution = NULL;
  vknn_status s = vknn_prepared_model_execute_fenced(v->pm, r, NULL, 0, VKNN_MEASURE_TIMING_YES,
                                                     NULL, NULL, NULL, &fence, &execution);
  bool clean = fence == -1 && execution == NULL;
  if (execution != NULL) {
    vknn_timing launched, fenced;
    vknn_fenced_execution_get_info(execution, &launched, &fenced);
    vknn_fenced_execution_release(execution);
  }
  if (fence >= 0) close(fence);
  if (s != VKNN_STATUS_INVALID_ARGUMENT) return fail(v, what, "execute_fenced", s);
  return clean ? true : fail(v, what, "execute_fenced left a fence or callback after", s);
}

static bool check_request(validation *v, const vknn_request *r, const char *what) {
  return check_direct(v, r, what, false) && check_async(v, r, what) &&
         check_direct(v, r, what, true) && check_fenced(v, r, what);
}

typedef enum request_mutation {
  REMOVE_ARGUMENT,
  BAD_DIMENSIONS,
  OUTSIDE_POOL,
  BAD_POOL_INDEX,
} request_mutation;

static const char *const mutation_names[] = {"remove", "bad dimensions", "location outside its pool",
                                             "bad pool index"};

/* Dimensions that contradict the model's operand: a known dimension plus
 * one, or one more dimension than a known rank. false when the model leaves
 * the rank open, so nothing contradicts it. */
static bool contradicting_dims(const vknn_operand *o, uint32_t *dims, uint32_t *rank) {
  bool scalar = o->type == VKNN_OPERAND_FLOAT32 || o->type == VKNN_OPERAND_INT32 ||
                o->type == VKNN_OPERAND_UINT32 || o->type == VKNN_OPERAND_BOOL ||
                o->type == VKNN_OPERAND_FLOAT16;
  if (!scalar && o->dimension_count == 0) return false;
  *rank = o->dimension_count;
  memcpy(dims, o->dimensions, o->dimension_count * sizeof(uint32_t));
  for (uint32_t i = 0; i < *rank; ++i)
    if (dims[i] != 0) {
      dims[i] += 1;
      return true;
    }
  dims[(*rank)++] = 1;
  return true;
}

/* Applies one mutation to argument `at` (inputs first); false when it does
 * not apply to that argument. */
static bool mutate_request(request_mutant *r, const cts_case *c, request_mutation kind, uint32_t at) {
  bool input = at < r->request.input_count;
  uint32_t index = input ? at : at - r->request.input_count;
  vknn_request_argument *list = input ? r->inputs : r->outputs;
  uint32_t *count = input ? &r->request.input_count : &r->request.output_count;
  vknn_request_argument *a = &list[index];
  if (kind == REMOVE_ARGUMENT) {
    memmove(a, a + 1, (*count - index - 1) * sizeof(*a));
    (*count)--;
    return true;
  }
  if (a->has_no_value) return false;
  if (kind == OUTSIDE_POOL) {
    a->location.offset = (uint32_t)r->request.pools[a->location.pool_index].memory.size + 4;
    return true;
  }
  if (kind == BAD_POOL_INDEX) {
    a->location.pool_index = r->request.pool_count;
    return true;
  }
  const vknn_subgraph *sg = &c->model.main;
  const vknn_operand *o =
      &sg->operands[input ? sg->input_indexes[index] : sg->output_indexes[index]];
  if (!contradicting_dims(o, r->dims, &a->dimension_count)) return false;
  a->dimensions = r->dims;
  return true;
}

static bool run_request_mutations(validation *v, const cts_case *c) {
  uint32_t arguments = c->request.input_count + c->request.output_count;
  for (int kind = REMOVE_ARGUMENT; kind <= BAD_POOL_INDEX; ++kind) {
    for (uint32_t at = 0; at < arguments; ++at) {
      request_mutant r;
      bool ok = request_mutant_init(&r, &c->request);
      char what[128];
      snprintf(what, sizeof(what), "request %s: %s %u", mutation_names[kind],
               at < c->request.input_count ? "input" : "output",
               at < c->request.input_count ? at : at - c->request.input_count);
      if (ok && mutate_request(&r, c, (request_mutation)kind, at)) ok = check_request(v, &r.request, what);
      request_mutant_free(&r);
      if (!ok) return false;
    }
  }
  return true;
}

/* ---- the mode ------------------------------------------------------------ */

static bool left_out(const cts_case *c) {
  return strstr(c->name, "all_inputs_as_internal") != NULL ||
         strstr(c->name, "all_tensors_as_inputs") != NULL;
}

void cts_run_validation(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *j) {
  if (left_out(c)) return;
  validation v = {.w = w, .j = j, .pm = pm};
  if (!cts_for_each_model_mutation(&c->model, check_model, &v)) {
    if (j->status != CTS_FAILED) {
      j->status = CTS_FAILED;
      snprintf(j->reason, sizeof(j->reason), "validation: out of memory building mutations");
    }
    return;
  }
  vknn_status s = vknn_burst_create(pm, &v.burst);
  if (s != VKNN_STATUS_NONE) {
    fail(&v, "burst", "vknn_burst_create", s);
    return;
  }
  run_request_mutations(&v, c);
  vknn_burst_release(v.burst);
}
