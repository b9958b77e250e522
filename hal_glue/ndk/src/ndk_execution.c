/* ANeuralNetworksExecution: the arguments of one computation and its
 * outcome. An execution computes once (feature level 4: no reuse), in one of
 * four ways: compute (synchronous), startCompute (asynchronous, an event),
 * startComputeWithDependencies (fenced: sync fences in, a sync fence out) and
 * burstCompute. */
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "ndk.h"

int ANeuralNetworksExecution_create(ANeuralNetworksCompilation *compilation,
                                    ANeuralNetworksExecution **execution) {
  NDK_NOT_NULL(execution);
  *execution = NULL;
  NDK_NOT_NULL(compilation);
  NDK_REQUIRE(compilation->finished, ANEURALNETWORKS_BAD_STATE, "the compilation is not finished");
  NDK_REQUIRE(compilation->prepared != NULL, ANEURALNETWORKS_BAD_STATE, "the compilation failed");
  const ANeuralNetworksModel *m = compilation->model;
  ANeuralNetworksExecution *e = ndk_alloc(sizeof(*e));
  if (e == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  e->inputs = ndk_alloc(m->input_count * sizeof(ndk_argument));
  e->outputs = ndk_alloc(m->output_count * sizeof(ndk_argument));
  e->shapes = ndk_alloc(m->output_count * sizeof(vknn_output_shape));
  if (e->inputs == NULL || e->outputs == NULL || e->shapes == NULL) {
    ndk_free(e->inputs);
    ndk_free(e->outputs);
    ndk_free(e->shapes);
    ndk_free(e);
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  e->compilation = compilation;
  e->input_count = m->input_count;
  e->output_count = m->output_count;
  e->loop_timeout_ns = VKNN_LOOP_TIMEOUT_DEFAULT_NS;
  e->fence_fd = -1;
  e->request.own_scratch.fd = -1;
  e->timing = e->fenced_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->done_cond, NULL);
  *execution = e;
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksExecution_free(ANeuralNetworksExecution *execution) {
  if (execution == NULL) return;
  /* A computation in flight writes into the execution: it finishes first. */
  int result = ndk_execution_wait(execution);
  /* Threads still waiting through its event are about to return. */
  ndk_event_detach(execution, result, true);
  vknn_fenced_execution_release(execution->fenced);
  if (execution->fence_fd >= 0) close(execution->fence_fd);
  ndk_request_release(&execution->request);
  pthread_mutex_destroy(&execution->lock);
  pthread_cond_destroy(&execution->done_cond);
  ndk_free(execution->inputs);
  ndk_free(execution->outputs);
  ndk_free(execution->shapes);
  ndk_free(execution);
}

/* ---- arguments ------------------------------------------------------------ */

static bool type_matches(const ndk_operand *o, const ANeuralNetworksOperandType *t) {
  if (t->type != o->type || t->scale != o->scale || t->zeroPoint != o->zero_point) return false;
  /* NNAPI: dimensions given exactly when the count is not 0, none for a
   * scalar, and their bytes within uint32 (as for the model's operands). */
  if (t->dimensionCount > VKNN_MAX_RANK || (t->dimensionCount > 0) != (t->dimensions != NULL)) return false;
  if ((ndk_type_is_scalar(t->type) && t->dimensionCount > 0) || !ndk_type_size_fits(t)) return false;
  if (o->rank != 0 && t->dimensionCount != o->rank) return false;
  for (uint32_t i = 0; i < t->dimensionCount && o->rank != 0; ++i)
    if (o->dimensions[i] != 0 && t->dimensions[i] != o->dimensions[i]) return false;
  return true;
}

/* The bytes of the argument's value when its shape is fully known, else 0. */
static size_t needed_bytes(const ndk_operand *o, const ndk_argument *a) {
  uint32_t rank = a->rank ? a->rank : o->rank;
  const uint32_t *dims = a->rank ? a->dimensions : o->dimensions;
  size_t size = ndk_element_size(o->type);
  if (rank == 0 && !ndk_type_is_scalar(o->type)) return 0; /* unknown rank */
  for (uint32_t i = 0; i < rank; ++i) size *= dims[i];
  return size;
}

static bool fully_specified(const ndk_operand *o, const ndk_argument *a) {
  return needed_bytes(o, a) > 0 || ndk_element_size(o->type) == 0;
}

/* The checks and the type every set{Input,Output}* shares; fills a's shape. */
static int check_argument(ANeuralNetworksExecution *e, int32_t index, bool is_input,
                          const ANeuralNetworksOperandType *type, ndk_argument *a, const char *function) {
  if (e->state != NDK_EXECUTION_PREPARATION) {
    ndk_log_error(function, "the execution has started");
    return ANEURALNETWORKS_BAD_STATE;
  }
  const ndk_operand *o = index < 0 ? NULL : ndk_compilation_io_operand(e->compilation, (uint32_t)index, is_input);
  if (o == NULL) {
    ndk_log_error(function, "the model has no %s %d", is_input ? "input" : "output", index);
    return ANEURALNETWORKS_BAD_DATA;
  }
  if ((is_input ? e->inputs : e->outputs)[index].kind != NDK_ARGUMENT_UNSET) {
    ndk_log_error(function, "%s %d is already set", is_input ? "input" : "output", index);
    return ANEURALNETWORKS_BAD_STATE;
  }
  if (type != NULL && a->kind != NDK_ARGUMENT_OMITTED) {
    if (!type_matches(o, type)) {
      ndk_log_error(function, "the type differs from the model's operand beyond its unknown dimensions");
      return ANEURALNETWORKS_BAD_DATA;
    }
    a->rank = type->dimensionCount;
    if (a->rank) memcpy(a->dimensions, type->dimensions, a->rank * sizeof(uint32_t));
  }
  /* Inputs need a full shape; outputs may leave it to the execution. */
  if (is_input && a->kind != NDK_ARGUMENT_OMITTED && !fully_specified(o, a)) {
    ndk_log_error(function, "input %d needs a type with its unknown dimensions", index);
    return ANEURALNETWORKS_BAD_DATA;
  }
  size_t needed = needed_bytes(o, a);
  bool sized = a->kind != NDK_ARGUMENT_OMITTED && !(a->kind == NDK_ARGUMENT_MEMORY && a->memory->kind == NDK_MEMORY_DEVICE);
  if (sized && a->length < needed) {
    ndk_log_error(function, "%zu bytes are too few for %zu", a->length, needed);
    return ANEURALNETWORKS_BAD_DATA;
  }
  /* NNAPI: the length is the value's raw size unless padding is enabled
   * (an output of unknown size may be given any length). */
  if (sized && needed > 0 && a->length != needed && !e->padding) {
    ndk_log_error(function, "%zu bytes for a value of %zu (padding is not enabled)", a->length, needed);
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

static int set_argument(ANeuralNetworksExecution *e, int32_t index, bool is_input,
                        const ANeuralNetworksOperandType *type, ndk_argument *a, const char *function) {
  int r = check_argument(e, index, is_input, type, a, function);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  (is_input ? e->inputs : e->outputs)[index] = *a;
  return ANEURALNETWORKS_NO_ERROR;
}

static int set_pointer(ANeuralNetworksExecution *e, int32_t index, bool is_input,
                       const ANeuralNetworksOperandType *type, const void *buffer, size_t length,
                       const char *function) {
  /* NNAPI: no value is a NULL buffer of length 0, never a buffer of none. */
  NDK_REQUIRE_IN(function, buffer == NULL || length > 0, ANEURALNETWORKS_BAD_DATA, "a buffer of 0 bytes");
  NDK_REQUIRE_IN(function, length <= NDK_MAX_LOCATION, ANEURALNETWORKS_BAD_DATA, "%zu bytes are more than 4 GiB",
                 length);
  ndk_argument a = {.kind = buffer == NULL ? NDK_ARGUMENT_OMITTED : NDK_ARGUMENT_POINTER,
                    .buffer = (void *)buffer, .length = length};
  return set_argument(e, index, is_input, type, &a, function);
}

/* NNAPI: a type given with a memory from a descriptor agrees with the
 * descriptor's dimensions (0: unknown). */
static bool dimensions_agree(const ANeuralNetworksMemory *memory, const ANeuralNetworksOperandType *type) {
  if (type == NULL || type->dimensionCount == 0 || memory->rank == 0) return true;
  if (type->dimensionCount != memory->rank || type->dimensions == NULL) return false;
  for (uint32_t i = 0; i < memory->rank; ++i)
    if (type->dimensions[i] != 0 && memory->dimensions[i] != 0 && type->dimensions[i] != memory->dimensions[i])
      return false;
  return true;
}

static int check_memory_range(const ANeuralNetworksExecution *e, int32_t index, bool is_input,
                              const ANeuralNetworksOperandType *type, const ANeuralNetworksMemory *memory,
                              size_t offset, size_t length, const char *function) {
  if (memory->kind == NDK_MEMORY_DEVICE) {
    if (index < 0 || !ndk_memory_has_role(memory, e->compilation, (uint32_t)index, is_input) || offset != 0 || length != 0) {
      ndk_log_error(function, "a memory from a descriptor needs a role for this %s and offset and length 0",
                    is_input ? "input" : "output");
      return ANEURALNETWORKS_BAD_DATA;
    }
    NDK_REQUIRE_IN(function, dimensions_agree(memory, type), ANEURALNETWORKS_BAD_DATA,
                   "the type's dimensions disagree with the memory's");
  } else if (offset > memory->size || length > memory->size - offset) {
    ndk_log_error(function, "bytes [%zu, +%zu) are outside the memory (%zu bytes)", offset, length, memory->size);
    return ANEURALNETWORKS_BAD_DATA;
  } else if (offset > NDK_MAX_LOCATION || length > NDK_MAX_LOCATION) {
    ndk_log_error(function, "bytes [%zu, +%zu): an offset or length beyond 4 GiB", offset, length);
    return ANEURALNETWORKS_BAD_DATA;
  } else if (offset == 0 && length == 0) {
    /* As the NNAPI runtime does: offset and length 0 would mean the whole
     * memory, which only memories from descriptors may imply. A zero-sized
     * value elsewhere in the memory is fine. */
    ndk_log_error(function, "offset 0 and length 0: the size cannot be implied from this memory");
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

static int set_memory(ANeuralNetworksExecution *e, int32_t index, bool is_input,
                      const ANeuralNetworksOperandType *type, const ANeuralNetworksMemory *memory,
                      size_t offset, size_t length, const char *function) {
  int r = check_memory_range(e, index, is_input, type, memory, offset, length, function);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  ndk_argument a = {.kind = NDK_ARGUMENT_MEMORY, .memory = memory, .offset = offset, .length = length};
  return set_argument(e, index, is_input, type, &a, function);
}

int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution *execution, int32_t index,
                                      const ANeuralNetworksOperandType *type, const void *buffer,
                                      size_t length) {
  NDK_NOT_NULL(execution);
  NDK_REQUIRE(buffer != NULL || length == 0, ANEURALNETWORKS_UNEXPECTED_NULL, "buffer is NULL for %zu bytes", length);
  return set_pointer(execution, index, true, type, buffer, length, __func__);
}

int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution *execution, int32_t index,
                                       const ANeuralNetworksOperandType *type, void *buffer,
                                       size_t length) {
  NDK_NOT_NULL(execution);
  NDK_REQUIRE(buffer != NULL || length == 0, ANEURALNETWORKS_UNEXPECTED_NULL, "buffer is NULL for %zu bytes", length);
  return set_pointer(execution, index, false, type, buffer, length, __func__);
}

int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution *execution, int32_t index,
                                                const ANeuralNetworksOperandType *type,
                                                const ANeuralNetworksMemory *memory, size_t offset,
                                                size_t length) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(memory);
  return set_memory(execution, index, true, type, memory, offset, length, __func__);
}

int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution *execution, int32_t index,
                                                 const ANeuralNetworksOperandType *type,
                                                 const ANeuralNetworksMemory *memory, size_t offset,
                                                 size_t length) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(memory);
  return set_memory(execution, index, false, type, memory, offset, length, __func__);
}

/* ---- settings ------------------------------------------------------------- */

#define NDK_EXECUTION_SETTER(e)                                                   \
  NDK_NOT_NULL(e);                                                                \
  NDK_REQUIRE((e)->state == NDK_EXECUTION_PREPARATION, ANEURALNETWORKS_BAD_STATE, \
              "the execution has started")

/* Timing and timeouts need a compilation for one device the client named
 * (the NDK's rule). */
int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution *execution, bool measure) {
  NDK_NOT_NULL(execution);
  NDK_REQUIRE(execution->compilation->explicit_device, ANEURALNETWORKS_BAD_DATA,
              "timing needs a compilation made by createForDevices with one device");
  NDK_EXECUTION_SETTER(execution);
  execution->measure = measure;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution *execution, uint64_t duration) {
  NDK_NOT_NULL(execution);
  NDK_REQUIRE(execution->compilation->explicit_device, ANEURALNETWORKS_BAD_DATA,
              "a timeout needs a compilation made by createForDevices with one device");
  NDK_EXECUTION_SETTER(execution);
  execution->has_timeout = duration != 0; /* 0: no timeout */
  execution->timeout_ns = duration;
  return ANEURALNETWORKS_NO_ERROR;
}

/* A loop timeout above the maximum is taken as the maximum (NDK rule). */
int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution *execution, uint64_t duration) {
  NDK_EXECUTION_SETTER(execution);
  execution->loop_timeout_ns = duration > VKNN_LOOP_TIMEOUT_MAXIMUM_NS ? VKNN_LOOP_TIMEOUT_MAXIMUM_NS : duration;
  return ANEURALNETWORKS_NO_ERROR;
}

/* Feature level 5: an execution that computes more than once. */
int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution *execution, bool reusable) {
  NDK_EXECUTION_SETTER(execution);
  execution->reusable = reusable;
  return ANEURALNETWORKS_NO_ERROR;
}

/* Feature level 5: io lengths above the values' sizes. This library always
 * takes them (it copies or binds only the value's bytes); the call keeps the
 * rule that it comes before any argument is set. */
int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution *execution, bool enable) {
  NDK_EXECUTION_SETTER(execution);
  for (uint32_t i = 0; i < execution->input_count + execution->output_count; ++i) {
    const ndk_argument *a = i < execution->input_count ? &execution->inputs[i]
                                                       : &execution->outputs[i - execution->input_count];
    NDK_REQUIRE(a->kind == NDK_ARGUMENT_UNSET, ANEURALNETWORKS_BAD_STATE, "an input or output is already set");
  }
  execution->padding = enable;
  return ANEURALNETWORKS_NO_ERROR;
}

/* ---- computing ------------------------------------------------------------ */

typedef struct compute_args {
  vknn_deadline deadline;
  vknn_duration loop_timeout;
  vknn_measure_timing measure;
} compute_args;

/* Every argument set, then the request built; the execution starts. */
/* A reusable execution that completed starts over with the same arguments;
 * its earlier event keeps the earlier result. */
static void reset_for_reuse(ANeuralNetworksExecution *e) {
  ndk_event_detach(e, e->result, false);
  vknn_fenced_execution_release(e->fenced);
  e->fenced = NULL;
  if (e->fence_fd >= 0) close(e->fence_fd);
  e->fence_fd = -1;
  e->completing = false;
  ndk_request_release(&e->request);
  e->timing = e->fenced_timing = (vknn_timing){UINT64_MAX, UINT64_MAX};
  e->state = NDK_EXECUTION_PREPARATION;
}

static int begin_compute(ANeuralNetworksExecution *e, ndk_scratch *scratch, compute_args *args,
                         const char *function) {
  if (e->reusable && e->state == NDK_EXECUTION_COMPLETED) reset_for_reuse(e);
  if (e->state != NDK_EXECUTION_PREPARATION) {
    ndk_log_error(function, "the execution was already computed (an execution computes once)");
    return ANEURALNETWORKS_BAD_STATE;
  }
  for (uint32_t i = 0; i < e->input_count + e->output_count; ++i) {
    const ndk_argument *a = i < e->input_count ? &e->inputs[i] : &e->outputs[i - e->input_count];
    if (a->kind == NDK_ARGUMENT_UNSET) {
      ndk_log_error(function, "%s %u is not set", i < e->input_count ? "input" : "output",
                    i < e->input_count ? i : i - e->input_count);
      return ANEURALNETWORKS_BAD_DATA;
    }
  }
  int r = ndk_request_build(&e->request, e->inputs, e->input_count, e->outputs, e->output_count, scratch);
  if (r != ANEURALNETWORKS_NO_ERROR) {
    ndk_request_release(&e->request);
    return r;
  }
  *args = (compute_args){{e->has_timeout, ndk_deadline_after(e->timeout_ns)},
                         {true, e->loop_timeout_ns},
                         e->measure ? VKNN_MEASURE_TIMING_YES : VKNN_MEASURE_TIMING_NO};
  e->state = NDK_EXECUTION_COMPUTING;
  return ANEURALNETWORKS_NO_ERROR;
}

/* Records the outcome, hands pointer outputs back, wakes the waiters. */
static void complete(ANeuralNetworksExecution *e, vknn_status status, const vknn_output_shape *shapes,
                     const vknn_timing *timing) {
  pthread_mutex_lock(&e->lock);
  e->result = ndk_result_of(status);
  if (shapes != NULL) memcpy(e->shapes, shapes, e->output_count * sizeof(*shapes));
  if (timing != NULL) e->timing = *timing;
  if (status == VKNN_STATUS_NONE)
    ndk_request_copy_outputs(&e->request, e->outputs, e->input_count, e->output_count);
  e->state = NDK_EXECUTION_COMPLETED;
  pthread_cond_broadcast(&e->done_cond);
  pthread_mutex_unlock(&e->lock);
  if (status != VKNN_STATUS_NONE)
    ndk_log_error("ANeuralNetworksExecution", "the computation failed: %s", vknn_status_name(status));
}

static int finish_sync(ANeuralNetworksExecution *e, vknn_status s, const vknn_output_shape *shapes,
                       const vknn_timing *timing) {
  complete(e, s, shapes, timing);
  if (e->request.scratch != &e->request.own_scratch) ndk_request_release(&e->request);
  return e->result;
}

int ANeuralNetworksExecution_compute(ANeuralNetworksExecution *execution) {
  NDK_NOT_NULL(execution);
  compute_args args;
  int r = begin_compute(execution, NULL, &args, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  /* On the heap: a model may have more outputs than a stack holds shapes. */
  vknn_output_shape *shapes = ndk_alloc((execution->output_count + 1) * sizeof(*shapes));
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  vknn_status s = shapes == NULL ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                                 : vknn_prepared_model_execute(execution->compilation->prepared,
                                                               &execution->request.request, args.measure,
                                                               &args.deadline, &args.loop_timeout, shapes,
                                                               execution->output_count, &timing);
  r = finish_sync(execution, s, shapes, &timing);
  ndk_free(shapes);
  return r;
}

int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution *execution, ANeuralNetworksBurst *burst) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(burst);
  NDK_REQUIRE(burst->compilation == execution->compilation, ANEURALNETWORKS_BAD_DATA,
              "the burst belongs to another compilation");
  NDK_REQUIRE(!atomic_exchange(&burst->busy, true), ANEURALNETWORKS_BAD_STATE,
              "the burst runs another execution");
  ndk_burst_drop_forgotten(burst);
  compute_args args;
  int32_t old_slot = burst->scratch.data != NULL ? burst->scratch.slot : -1;
  int r = begin_compute(execution, &burst->scratch, &args, __func__);
  /* A grown pool has a new slot: the burst forgets the old one's mapping. */
  if (old_slot >= 0 && burst->scratch.slot != old_slot) vknn_burst_free_memory(burst->vk, old_slot);
  if (r == ANEURALNETWORKS_NO_ERROR) {
    vknn_output_shape *shapes = ndk_alloc((execution->output_count + 1) * sizeof(*shapes));
    vknn_timing timing = {UINT64_MAX, UINT64_MAX};
    vknn_status s = shapes == NULL ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT
                                   : vknn_burst_execute(burst->vk, &execution->request.request,
                                                        execution->request.slots, args.measure, &args.deadline,
                                                        &args.loop_timeout, shapes, execution->output_count,
                                                        &timing);
    r = finish_sync(execution, s, shapes, &timing);
    ndk_free(shapes);
  }
  atomic_store(&burst->busy, false);
  return r;
}

static void on_async_done(void *user_data, vknn_status status, const vknn_output_shape *shapes,
                          uint32_t shape_count, const vknn_timing *timing) {
  (void)shape_count;
  complete(user_data, status, shapes, timing);
}

/* The event of a started computation, or none when it did not start. A
 * fenced computation's event takes a copy of its sync fence. */
static int hand_out_event(ANeuralNetworksExecution *execution, ANeuralNetworksEvent *ev, int result,
                          ANeuralNetworksEvent **out) {
  if (result != ANEURALNETWORKS_NO_ERROR) {
    if (ev != NULL) ev->execution = NULL; /* never waits for an earlier computation */
    ANeuralNetworksEvent_free(ev);
    return result;
  }
  ev->fd = ndk_execution_dup_fence(execution);
  if (execution->fence_fd >= 0 && ev->fd < 0)
    ndk_log_error("ANeuralNetworksExecution_startComputeWithDependencies",
                  "cannot keep the sync fence: the event has none to give");
  execution->event = ev;
  *out = ev;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution *execution, ANeuralNetworksEvent **event) {
  NDK_NOT_NULL(event);
  *event = NULL;
  NDK_NOT_NULL(execution);
  ANeuralNetworksEvent *ev = ndk_event_for_execution(execution);
  if (ev == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  compute_args args;
  int r = begin_compute(execution, NULL, &args, __func__);
  vknn_status s = VKNN_STATUS_NONE;
  if (r == ANEURALNETWORKS_NO_ERROR) {
    s = vknn_prepared_model_execute_async(execution->compilation->prepared, &execution->request.request,
                                          args.measure, &args.deadline, &args.loop_timeout, on_async_done,
                                          execution);
    if (s != VKNN_STATUS_NONE) complete(execution, s, NULL, NULL);
    r = ndk_result_of(s);
  }
  return hand_out_event(execution, ev, r, event);
}

/* The sync fences to wait for: a dependency without one (an asynchronous
 * computation) is waited for here, and a failed one fails the execution. */
static int dependency_fences(const ANeuralNetworksEvent *const *deps, uint32_t count, int *fds, uint32_t *fd_count) {
  *fd_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    int fd = deps[i]->fd;
    if (fd >= 0) {
      fds[(*fd_count)++] = fd;
      continue;
    }
    int r = ANeuralNetworksEvent_wait((ANeuralNetworksEvent *)deps[i]);
    if (r != ANEURALNETWORKS_NO_ERROR) {
      ndk_log_error("ANeuralNetworksExecution_startComputeWithDependencies", "dependency %u failed", i);
      return ANEURALNETWORKS_OP_FAILED;
    }
  }
  return ANEURALNETWORKS_NO_ERROR;
}

/* Output i's shape before the computation, from the model, the type given
 * with the argument and a descriptor's memory (each fills what the ones
 * before leave unknown); whether it is fully known. */
static bool output_shape_before(const ANeuralNetworksExecution *e, uint32_t i, vknn_output_shape *out) {
  const ndk_operand *o = ndk_compilation_io_operand(e->compilation, i, false);
  const ndk_argument *a = &e->outputs[i];
  const ANeuralNetworksMemory *m =
      a->kind == NDK_ARGUMENT_MEMORY && a->memory->kind == NDK_MEMORY_DEVICE ? a->memory : NULL;
  *out = (vknn_output_shape){.is_sufficient = true};
  if (ndk_type_is_scalar(o->type)) return true;
  out->rank = a->rank ? a->rank : o->rank ? o->rank : m ? m->rank : 0;
  bool known = out->rank > 0;
  for (uint32_t d = 0; d < out->rank; ++d) {
    uint32_t dim = a->rank ? a->dimensions[d] : 0;
    if (dim == 0 && o->rank) dim = o->dimensions[d];
    if (dim == 0 && m && m->rank) dim = m->dimensions[d];
    out->dimensions[d] = dim;
    known = known && dim != 0;
  }
  return known;
}

/* A fenced computation reports no shapes: its outputs have the shapes known
 * before it (vknn refuses outputs of unknown shape there). */
static void known_output_shapes(ANeuralNetworksExecution *e) {
  for (uint32_t i = 0; i < e->output_count; ++i) output_shape_before(e, i, &e->shapes[i]);
}

static bool output_specified(const ANeuralNetworksExecution *e, uint32_t i) {
  vknn_output_shape shape;
  return output_shape_before(e, i, &shape);
}

/* The outputs' shapes known before the computation, as the request's own
 * (a descriptor's dimensions are not the request's otherwise). */
static void give_known_output_shapes(ANeuralNetworksExecution *e) {
  known_output_shapes(e);
  for (uint32_t i = 0; i < e->output_count; ++i) {
    vknn_request_argument *a = &e->request.arguments[e->input_count + i];
    if (a->has_no_value || e->shapes[i].rank == 0) continue;
    a->dimension_count = e->shapes[i].rank;
    a->dimensions = e->shapes[i].dimensions;
  }
}

static int start_fenced(ANeuralNetworksExecution *e, const int *fds, uint32_t fd_count, uint64_t duration) {
  compute_args args;
  int r = begin_compute(e, NULL, &args, "ANeuralNetworksExecution_startComputeWithDependencies");
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  give_known_output_shapes(e);
  vknn_duration after_fence = {duration != 0, duration};
  vknn_status s = vknn_prepared_model_execute_fenced(e->compilation->prepared, &e->request.request, fds, fd_count,
                                                     args.measure, &args.deadline, &args.loop_timeout,
                                                     &after_fence, &e->fence_fd, &e->fenced);
  if (s != VKNN_STATUS_NONE) {
    e->fence_fd = -1;
    e->fenced = NULL;
    complete(e, s, NULL, NULL);
  }
  return ndk_result_of(s);
}

int ANeuralNetworksExecution_startComputeWithDependencies(ANeuralNetworksExecution *execution,
                                                          const ANeuralNetworksEvent *const *dependencies,
                                                          uint32_t num_dependencies, uint64_t duration,
                                                          ANeuralNetworksEvent **event) {
  NDK_NOT_NULL(event);
  *event = NULL;
  NDK_NOT_NULL(execution);
  NDK_REQUIRE(dependencies != NULL || num_dependencies == 0, ANEURALNETWORKS_UNEXPECTED_NULL, "dependencies is NULL");
  for (uint32_t i = 0; i < num_dependencies; ++i)
    NDK_REQUIRE(dependencies[i] != NULL, ANEURALNETWORKS_UNEXPECTED_NULL, "dependency %u is NULL", i);
  NDK_REQUIRE(duration == 0 || execution->compilation->explicit_device, ANEURALNETWORKS_BAD_DATA,
              "a duration needs a compilation made by createForDevices with one device");
  /* A reusable execution starts over before its new event is made. */
  if (execution->reusable && execution->state == NDK_EXECUTION_COMPLETED) reset_for_reuse(execution);
  NDK_REQUIRE(execution->state == NDK_EXECUTION_PREPARATION, ANEURALNETWORKS_BAD_STATE, "the execution has started");
  /* NNAPI: refused before it starts, so the execution may still compute. */
  for (uint32_t i = 0; i < execution->output_count; ++i)
    NDK_REQUIRE(output_specified(execution, i), ANEURALNETWORKS_BAD_DATA,
                "output %u: a fenced computation needs its dimensions", i);
  int *fds = ndk_alloc((num_dependencies + 1) * sizeof(int));
  ANeuralNetworksEvent *ev = ndk_event_for_execution(execution);
  uint32_t fd_count = 0;
  int r = fds && ev ? dependency_fences(dependencies, num_dependencies, fds, &fd_count) : ANEURALNETWORKS_OUT_OF_MEMORY;
  if (r == ANEURALNETWORKS_NO_ERROR) r = start_fenced(execution, fds, fd_count, duration);
  ndk_free(fds);
  return hand_out_event(execution, ev, r, event);
}

/* Polls the sync fence, then takes the outcome once. */
static void wait_fenced(ANeuralNetworksExecution *e) {
  struct pollfd pfd = {.fd = e->fence_fd, .events = POLLIN};
  while (poll(&pfd, 1, -1) < 0) continue;
  /* Of several threads waiting, one takes the outcome; the others wait for
   * it in ndk_execution_wait. */
  pthread_mutex_lock(&e->lock);
  bool mine = e->state == NDK_EXECUTION_COMPUTING && !e->completing;
  e->completing = e->completing || mine;
  pthread_mutex_unlock(&e->lock);
  if (!mine) return;
  vknn_timing launched = {UINT64_MAX, UINT64_MAX}, fenced = launched;
  vknn_status s = vknn_fenced_execution_get_info(e->fenced, &launched, &fenced);
  pthread_mutex_lock(&e->lock);
  e->fenced_timing = fenced;
  pthread_mutex_unlock(&e->lock);
  complete(e, s, NULL, &launched);
}

int ndk_execution_wait(ANeuralNetworksExecution *e) {
  if (e->fenced != NULL) wait_fenced(e);
  pthread_mutex_lock(&e->lock);
  while (e->state == NDK_EXECUTION_COMPUTING) pthread_cond_wait(&e->done_cond, &e->lock);
  int result = e->state == NDK_EXECUTION_COMPLETED ? e->result : ANEURALNETWORKS_NO_ERROR;
  pthread_mutex_unlock(&e->lock);
  return result;
}

/* ---- outcome -------------------------------------------------------------- */

/* Shapes exist after a successful computation or one with an output too small. */
static int check_completed(const ANeuralNetworksExecution *e, int32_t index, const char *function) {
  if (e->state != NDK_EXECUTION_COMPLETED ||
      (e->result != ANEURALNETWORKS_NO_ERROR && e->result != ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE)) {
    ndk_log_error(function, "the execution has not completed successfully");
    return ANEURALNETWORKS_BAD_STATE;
  }
  if (index < 0 || (uint32_t)index >= e->output_count) {
    ndk_log_error(function, "the model has no output %d", index);
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution *execution, int32_t index,
                                                  uint32_t *rank) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(rank);
  int r = check_completed(execution, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  *rank = execution->shapes[index].rank;
  return execution->shapes[index].is_sufficient ? ANEURALNETWORKS_NO_ERROR
                                                : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution *execution, int32_t index,
                                                        uint32_t *dimensions) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(dimensions);
  int r = check_completed(execution, index, __func__);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  const vknn_output_shape *s = &execution->shapes[index];
  NDK_REQUIRE(s->rank > 0, ANEURALNETWORKS_BAD_DATA, "output %d is a scalar", index);
  memcpy(dimensions, s->dimensions, s->rank * sizeof(uint32_t));
  return s->is_sufficient ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

static uint64_t to_ns(uint64_t us) { return us == UINT64_MAX ? UINT64_MAX : us * 1000u; }

int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution *execution, int32_t durationCode,
                                         uint64_t *duration) {
  NDK_NOT_NULL(execution);
  NDK_NOT_NULL(duration);
  NDK_REQUIRE(durationCode >= ANEURALNETWORKS_DURATION_ON_HARDWARE &&
                  durationCode <= ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER,
              ANEURALNETWORKS_BAD_DATA, "unknown duration code %d", durationCode);
  /* NNAPI: only a successful execution that measured has durations. */
  *duration = UINT64_MAX;
  NDK_REQUIRE(execution->state == NDK_EXECUTION_COMPLETED, ANEURALNETWORKS_BAD_STATE,
              "the execution has not finished");
  NDK_REQUIRE(execution->result == ANEURALNETWORKS_NO_ERROR, ANEURALNETWORKS_BAD_STATE,
              "the execution did not succeed");
  NDK_REQUIRE(execution->measure, ANEURALNETWORKS_BAD_STATE, "the execution was not asked to measure timing");
  /* NNAPI: without dependencies (a computation not started with them) the
   * fenced durations are the plain ones. */
  bool fenced = durationCode >= ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE && execution->fence_fd >= 0;
  const vknn_timing *t = fenced ? &execution->fenced_timing : &execution->timing;
  bool on_hardware = durationCode == ANEURALNETWORKS_DURATION_ON_HARDWARE ||
                     durationCode == ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE;
  *duration = on_hardware ? to_ns(t->time_on_device) : to_ns(t->time_in_driver);
  return ANEURALNETWORKS_NO_ERROR;
}
