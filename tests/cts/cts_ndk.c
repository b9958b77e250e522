/* Mode ndk: each case built and run through the NNAPI C API of
 * libneuralnetworks.so (hal_glue/ndk) instead of vknn's own API: the model
 * and its referenced models through ANeuralNetworksModel_*, the support query
 * through getSupportedOperationsForDevices, a compilation for the vknn
 * device, then every way the C API computes: compute with pointer arguments,
 * startCompute with memory arguments, burstCompute (twice on one burst),
 * startComputeWithDependencies on a signaled sync fence. Each result is
 * judged as sync judges its own (cts_compare.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "android/NeuralNetworks.h"
#include "cts_compare.h"
#include "cts_modes.h"
#include "vknn_ndk.h"

#define NDK_MAX_MODELS 64
#define NDK_MAX_TYPES 32

typedef struct ndk_case {
  cts_worker *w;
  cts_case *c;
  const ANeuralNetworksDevice *device;
  ANeuralNetworksModel *models[NDK_MAX_MODELS]; /* [0]: main, [1 + i]: referenced i */
  bool building[NDK_MAX_MODELS];
  ANeuralNetworksMemory *constants, *inputs, *outputs;
  ANeuralNetworksCompilation *compilation;
  char failed_call[256];
  int result;
  /* The case's extension types and the C API's for them (asked of the C API
   * while building, as a client does). */
  int32_t case_types[NDK_MAX_TYPES], api_types[NDK_MAX_TYPES];
  uint32_t type_count;
} ndk_case;

/* Records the first failed call; true while every call succeeded. */
static bool ok(ndk_case *n, int result, const char *call) {
  if (result == ANEURALNETWORKS_NO_ERROR) return true;
  if (n->result == ANEURALNETWORKS_NO_ERROR) {
    n->result = result;
    snprintf(n->failed_call, sizeof(n->failed_call), "%.200s", call);
  }
  return false;
}

#define CALL(n, expr) ok((n), (expr), #expr)

/* ---- building the models ---------------------------------------------------- */

/* The C API's type for a type of the case: the same for the NNAPI's; for an
 * extension's, the one ANeuralNetworksModel_getExtension*Type gives for its
 * name in the case's extensionNameToPrefix (a prefix the case does not list
 * goes unchanged, for the C API to refuse). */
static int32_t api_type(ndk_case *n, ANeuralNetworksModel *m, int32_t type, bool operation) {
  uint32_t prefix = VKNN_EXTENSION_PREFIX(type);
  if (prefix == 0) return type;
  for (uint32_t i = 0; i < n->type_count; ++i)
    if (n->case_types[i] == type) return n->api_types[i];
  const vknn_model *model = &n->c->model;
  uint32_t names = 0;
  for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i)
    names += model->extension_name_to_prefix[i].prefix == prefix;
  /* The C API gives the prefixes itself: such a model cannot be built, and
   * the case is refused as the driver refuses it. */
  if (names > 1)
    return ok(n, ANEURALNETWORKS_BAD_DATA, "extensionNameToPrefix gives one prefix to two names"), type;
  for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i) {
    const vknn_extension_prefix *e = &model->extension_name_to_prefix[i];
    if (e->prefix != prefix) continue;
    int32_t t = type;
    uint16_t code = (uint16_t)VKNN_EXTENSION_CODE(type);
    bool found = operation ? CALL(n, ANeuralNetworksModel_getExtensionOperationType(m, e->name, code, &t))
                           : CALL(n, ANeuralNetworksModel_getExtensionOperandType(m, e->name, code, &t));
    if (found && n->type_count < NDK_MAX_TYPES) {
      n->case_types[n->type_count] = type;
      n->api_types[n->type_count++] = t;
    }
    return t;
  }
  return type;
}

static bool build_model(ndk_case *n, uint32_t index);

static bool set_value(ndk_case *n, ANeuralNetworksModel *m, uint32_t i, const vknn_operand *o) {
  const vknn_model *model = &n->c->model;
  switch (o->lifetime) {
    case VKNN_LIFETIME_CONSTANT_COPY:
      return CALL(n, ANeuralNetworksModel_setOperandValue(m, (int32_t)i, model->operand_values + o->location.offset,
                                                          o->location.length));
    case VKNN_LIFETIME_CONSTANT_REFERENCE:
      return CALL(n, ANeuralNetworksModel_setOperandValueFromMemory(m, (int32_t)i, n->constants, o->location.offset,
                                                                    o->location.length));
    case VKNN_LIFETIME_NO_VALUE: return CALL(n, ANeuralNetworksModel_setOperandValue(m, (int32_t)i, NULL, 0));
    case VKNN_LIFETIME_SUBGRAPH:
      return build_model(n, 1 + o->location.offset) &&
             CALL(n, ANeuralNetworksModel_setOperandValueFromModel(m, (int32_t)i, n->models[1 + o->location.offset]));
    default: return true;
  }
}

static bool add_operand(ndk_case *n, ANeuralNetworksModel *m, uint32_t i, const vknn_operand *o) {
  ANeuralNetworksOperandType type = {api_type(n, m, o->type, false), o->dimension_count, o->dimension_count ? o->dimensions : NULL,
                                     o->scale, o->zero_point};
  if (n->result != ANEURALNETWORKS_NO_ERROR || !CALL(n, ANeuralNetworksModel_addOperand(m, &type)))
    return false;
  if (o->extra_params.kind == VKNN_EXTRA_PARAMS_EXTENSION &&
      !CALL(n, ANeuralNetworksModel_setOperandExtensionData(m, (int32_t)i, o->extra_params.extension.data,
                                                            o->extra_params.extension.size)))
    return false;
  if (o->extra_params.kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT) {
    ANeuralNetworksSymmPerChannelQuantParams q = {o->extra_params.channel_quant.channel_dim,
                                                  o->extra_params.channel_quant.scale_count,
                                                  o->extra_params.channel_quant.scales};
    if (!CALL(n, ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(m, (int32_t)i, &q))) return false;
  }
  return true;
}

static bool fill_model(ndk_case *n, ANeuralNetworksModel *m, const vknn_subgraph *g) {
  for (uint32_t i = 0; i < g->operand_count; ++i)
    if (!add_operand(n, m, i, &g->operands[i])) return false;
  for (uint32_t i = 0; i < g->operand_count; ++i)
    if (!set_value(n, m, i, &g->operands[i])) return false;
  for (uint32_t i = 0; i < g->operation_count; ++i) {
    const vknn_operation *op = &g->operations[i];
    int32_t type = api_type(n, m, op->type, true);
    if (n->result != ANEURALNETWORKS_NO_ERROR ||
        !CALL(n, ANeuralNetworksModel_addOperation(m, type, op->input_count, op->inputs, op->output_count,
                                                   op->outputs)))
      return false;
  }
  return CALL(n, ANeuralNetworksModel_identifyInputsAndOutputs(m, g->input_count, g->input_indexes,
                                                              g->output_count, g->output_indexes)) &&
         CALL(n, ANeuralNetworksModel_relaxComputationFloat32toFloat16(
                     m, n->c->model.relax_computation_float32_to_float16)) &&
         CALL(n, ANeuralNetworksModel_finish(m));
}

/* Model index (0: main), built once, after the models it references. */
static bool build_model(ndk_case *n, uint32_t index) {
  const vknn_model *model = &n->c->model;
  if (index >= NDK_MAX_MODELS || index > model->referenced_count || n->building[index])
    return ok(n, ANEURALNETWORKS_BAD_DATA, "a subgraph index out of range, or a cycle of subgraphs");
  if (n->models[index] != NULL) return true;
  n->building[index] = true;
  bool built = CALL(n, ANeuralNetworksModel_create(&n->models[index])) &&
               fill_model(n, n->models[index], index == 0 ? &model->main : &model->referenced[index - 1]);
  n->building[index] = false;
  return built;
}

/* ---- memories ----------------------------------------------------------------- */

static bool memory_of(ndk_case *n, const shared_memory *pool, ANeuralNetworksMemory **out) {
  return pool->fd < 0 || CALL(n, ANeuralNetworksMemory_createFromFd(pool->size, PROT_READ | PROT_WRITE, pool->fd, 0, out));
}

static void release(ndk_case *n) {
  ANeuralNetworksCompilation_free(n->compilation);
  for (int i = 0; i < NDK_MAX_MODELS; ++i) ANeuralNetworksModel_free(n->models[i]);
  ANeuralNetworksMemory_free(n->constants);
  ANeuralNetworksMemory_free(n->inputs);
  ANeuralNetworksMemory_free(n->outputs);
}

/* ---- executions --------------------------------------------------------------- */

static ANeuralNetworksOperandType argument_type(ndk_case *n, const vknn_request_argument *a,
                                                const vknn_operand *o) {
  int32_t type = o->type;
  for (uint32_t i = 0; i < n->type_count; ++i)
    if (n->case_types[i] == o->type) type = n->api_types[i];
  return (ANeuralNetworksOperandType){type, a->dimension_count, a->dimension_count ? a->dimensions : NULL, o->scale,
                                      o->zero_point};
}

/* An output of zero bytes (a value with no rows) gets a buffer of one byte,
 * as NNAPI's own test harness gives it: a buffer of no bytes is refused, and
 * no buffer would omit the output. outputs has that byte past its end. */
static size_t output_length(const vknn_request_argument *a) { return a->location.length ? a->location.length : 1; }

/* Arguments as pointers into the case's input pool and into outputs. */
static bool set_pointers(ndk_case *n, ANeuralNetworksExecution *e, uint8_t *outputs) {
  const cts_case *c = n->c;
  const vknn_subgraph *g = &c->model.main;
  for (uint32_t i = 0; i < c->input_count; ++i) {
    const vknn_request_argument *a = &c->inputs[i];
    ANeuralNetworksOperandType t = argument_type(n, a, &g->operands[g->input_indexes[i]]);
    const void *p = a->has_no_value ? NULL : c->input_pool.data + a->location.offset;
    if (!CALL(n, ANeuralNetworksExecution_setInput(e, (int32_t)i, a->dimension_count ? &t : NULL, p,
                                                   a->has_no_value ? 0 : a->location.length)))
      return false;
  }
  for (uint32_t i = 0; i < c->output_count; ++i) {
    const vknn_request_argument *a = &c->outputs[i];
    ANeuralNetworksOperandType t = argument_type(n, a, &g->operands[g->output_indexes[i]]);
    if (!CALL(n, ANeuralNetworksExecution_setOutput(e, (int32_t)i, a->dimension_count ? &t : NULL,
                                                    outputs + a->location.offset, output_length(a))))
      return false;
  }
  return true;
}

/* Arguments as ranges of the input and output pools' memories; an output of
 * zero bytes as a pointer argument (output_length): a memory range of zero
 * bytes at offset 0 is refused (the size cannot be implied). */
static bool set_memories(ndk_case *n, ANeuralNetworksExecution *e, uint8_t *outputs) {
  const cts_case *c = n->c;
  const vknn_subgraph *g = &c->model.main;
  for (uint32_t i = 0; i < c->input_count; ++i) {
    const vknn_request_argument *a = &c->inputs[i];
    ANeuralNetworksOperandType t = argument_type(n, a, &g->operands[g->input_indexes[i]]);
    bool set = a->has_no_value
                   ? CALL(n, ANeuralNetworksExecution_setInput(e, (int32_t)i, NULL, NULL, 0))
                   : CALL(n, ANeuralNetworksExecution_setInputFromMemory(e, (int32_t)i, a->dimension_count ? &t : NULL,
                                                                         n->inputs, a->location.offset, a->location.length));
    if (!set) return false;
  }
  for (uint32_t i = 0; i < c->output_count; ++i) {
    const vknn_request_argument *a = &c->outputs[i];
    ANeuralNetworksOperandType t = argument_type(n, a, &g->operands[g->output_indexes[i]]);
    bool set = a->location.length == 0
                   ? CALL(n, ANeuralNetworksExecution_setOutput(e, (int32_t)i, a->dimension_count ? &t : NULL,
                                                                outputs + a->location.offset, output_length(a)))
                   : CALL(n, ANeuralNetworksExecution_setOutputFromMemory(e, (int32_t)i, a->dimension_count ? &t : NULL,
                                                                          n->outputs, a->location.offset, a->location.length));
    if (!set) return false;
  }
  return true;
}

/* The shapes the execution reports, and its timing in the HAL's terms. */
static bool read_outcome(ndk_case *n, ANeuralNetworksExecution *e, vknn_output_shape *shapes, vknn_timing *timing) {
  for (uint32_t i = 0; i < n->c->output_count; ++i) {
    vknn_output_shape *s = &shapes[i];
    *s = (vknn_output_shape){.is_sufficient = true};
    if (!CALL(n, ANeuralNetworksExecution_getOutputOperandRank(e, (int32_t)i, &s->rank))) return false;
    if (s->rank > VKNN_MAX_RANK) return ok(n, ANEURALNETWORKS_BAD_DATA, "an output rank above the maximum");
    if (s->rank > 0 && !CALL(n, ANeuralNetworksExecution_getOutputOperandDimensions(e, (int32_t)i, s->dimensions)))
      return false;
  }
  return CALL(n, ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_ON_HARDWARE, &timing->time_on_device)) &&
         CALL(n, ANeuralNetworksExecution_getDuration(e, ANEURALNETWORKS_DURATION_IN_DRIVER, &timing->time_in_driver));
}

typedef enum ndk_path { PATH_COMPUTE, PATH_START, PATH_BURST, PATH_FENCED, PATH_COUNT } ndk_path;

static const char *const path_names[PATH_COUNT] = {"compute", "startCompute", "burstCompute",
                                                   "startComputeWithDependencies"};

static bool wait_event(ndk_case *n, ANeuralNetworksEvent *ev) {
  bool done = CALL(n, ANeuralNetworksEvent_wait(ev));
  ANeuralNetworksEvent_free(ev);
  return done;
}

static bool start_fenced(ndk_case *n, ANeuralNetworksExecution *e) {
  int signaled = eventfd(1, EFD_CLOEXEC);
  ANeuralNetworksEvent *dep = NULL, *ev = NULL;
  bool done = CALL(n, ANeuralNetworksEvent_createFromSyncFenceFd(signaled, &dep));
  if (done) {
    const ANeuralNetworksEvent *deps[1] = {dep};
    done = CALL(n, ANeuralNetworksExecution_startComputeWithDependencies(e, deps, 1, 0, &ev)) && wait_event(n, ev);
  }
  ANeuralNetworksEvent_free(dep);
  if (signaled >= 0) close(signaled);
  return done;
}

/* startComputeWithDependencies reports no shapes: for a model leaving an
 * output's shape open the library must refuse it (BAD_DATA), as the fenced
 * mode expects of the driver. */
static bool expect_fenced_refused(ndk_case *n, uint8_t *outputs) {
  ANeuralNetworksExecution *e = NULL;
  int signaled = eventfd(1, EFD_CLOEXEC);
  ANeuralNetworksEvent *dep = NULL, *ev = NULL;
  bool ready = CALL(n, ANeuralNetworksExecution_create(n->compilation, &e)) && set_memories(n, e, outputs) &&
               CALL(n, ANeuralNetworksEvent_createFromSyncFenceFd(signaled, &dep));
  int r = ANEURALNETWORKS_NO_ERROR;
  if (ready) {
    const ANeuralNetworksEvent *deps[1] = {dep};
    r = ANeuralNetworksExecution_startComputeWithDependencies(e, deps, 1, 0, &ev);
    if (r == ANEURALNETWORKS_NO_ERROR) ANeuralNetworksEvent_wait(ev);
  }
  ANeuralNetworksEvent_free(ev);
  ANeuralNetworksEvent_free(dep);
  ANeuralNetworksExecution_free(e);
  if (signaled >= 0) close(signaled);
  if (!ready) return false;
  if (r == ANEURALNETWORKS_BAD_DATA) return true;
  snprintf(n->failed_call, sizeof(n->failed_call),
           "startComputeWithDependencies with an output of open shape returned %d, not BAD_DATA", r);
  n->result = -1;
  return false;
}

/* Computes one way: twice on one burst for the burst path. */
static bool compute(ndk_case *n, ndk_path path, ANeuralNetworksBurst *burst, uint8_t *outputs) {
  bool done = true;
  for (int run = 0; run < (path == PATH_BURST ? 2 : 1) && done; ++run) {
    ANeuralNetworksExecution *e = NULL;
    ANeuralNetworksEvent *ev = NULL;
    done = CALL(n, ANeuralNetworksExecution_create(n->compilation, &e)) &&
           CALL(n, ANeuralNetworksExecution_setMeasureTiming(e, true)) &&
           CALL(n, ANeuralNetworksExecution_setLoopTimeout(
                       e, cts_loop_timeout() ? cts_loop_timeout()->nanoseconds : ANeuralNetworks_getDefaultLoopTimeout())) &&
           (path == PATH_COMPUTE || path == PATH_BURST ? set_pointers(n, e, outputs) : set_memories(n, e, outputs));
    if (done && path == PATH_COMPUTE) done = CALL(n, ANeuralNetworksExecution_compute(e));
    if (done && path == PATH_BURST) done = CALL(n, ANeuralNetworksExecution_burstCompute(e, burst));
    if (done && path == PATH_START) done = CALL(n, ANeuralNetworksExecution_startCompute(e, &ev)) && wait_event(n, ev);
    if (done && path == PATH_FENCED) done = start_fenced(n, e);
    vknn_output_shape shapes[CTS_MAX_OUTPUTS];
    vknn_timing timing = {UINT64_MAX, UINT64_MAX};
    /* A fenced computation's shapes are the model's: values only. */
    if (done) done = read_outcome(n, e, shapes, &timing);
    ANeuralNetworksExecution_free(e);
    if (!done) return false;
    if (n->c->expect_failure) return true; /* judged by the caller */
    cts_judgement j = {CTS_PASSED, ""};
    const uint8_t *pool = path == PATH_COMPUTE || path == PATH_BURST ? outputs : n->c->output_pool.data;
    cts_judge(n->w, n->c, path_names[path], VKNN_STATUS_NONE, pool, path == PATH_FENCED ? NULL : shapes, &timing, &j);
    if (j.status != CTS_PASSED) {
      snprintf(n->failed_call, sizeof(n->failed_call), "%s: %.80s", path_names[path], j.reason);
      n->result = -1;
      return false;
    }
  }
  return true;
}

static bool run_paths(ndk_case *n) {
  size_t size = n->c->output_pool.size;
  uint8_t *outputs = calloc(1, size + 1);
  ANeuralNetworksBurst *burst = NULL;
  bool done = outputs != NULL && CALL(n, ANeuralNetworksBurst_create(n->compilation, &burst));
  for (int p = 0; p < PATH_COUNT && done; ++p) {
    memset(outputs, 0, size);
    cts_case_reset_outputs(n->c);
    bool refused = p == PATH_FENCED && !n->c->expect_failure && cts_output_shape_open(n->c);
    done = refused ? expect_fenced_refused(n, outputs) : compute(n, (ndk_path)p, burst, outputs);
    if (n->c->expect_failure) break; /* the first path decides */
  }
  ANeuralNetworksBurst_free(burst);
  free(outputs);
  return done;
}

/* ---- the case ------------------------------------------------------------------- */

static bool all_supported(ndk_case *n) {
  uint32_t count = n->c->model.main.operation_count;
  bool *supported = calloc(count ? count : 1, sizeof(bool));
  bool all = supported != NULL &&
             CALL(n, ANeuralNetworksModel_getSupportedOperationsForDevices(n->models[0], &n->device, 1, supported));
  for (uint32_t i = 0; all && i < count; ++i) all = supported[i];
  free(supported);
  return all;
}

static bool compile(ndk_case *n) {
  return CALL(n, ANeuralNetworksCompilation_createForDevices(n->models[0], &n->device, 1, &n->compilation)) &&
         CALL(n, ANeuralNetworksCompilation_setPreference(n->compilation, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER)) &&
         CALL(n, ANeuralNetworksCompilation_finish(n->compilation));
}

static void judge(ndk_case *n, bool unsupported, cts_judgement *j) {
  if (unsupported) {
    j->status = CTS_UNSUPPORTED;
    snprintf(j->reason, sizeof(j->reason), "%s", n->w->last_error[0] ? n->w->last_error : "an operation is not supported");
  } else if (n->result == ANEURALNETWORKS_NO_ERROR && n->c->expect_failure) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "ndk: an invalid case executed successfully");
  } else if (n->result != ANEURALNETWORKS_NO_ERROR && !(n->c->expect_failure && n->result > 0)) {
    j->status = CTS_FAILED;
    snprintf(j->reason, sizeof(j->reason), "ndk: %.150s returned %d (%.300s)", n->failed_call, n->result,
             n->w->last_error);
  }
}

void cts_run_ndk(cts_worker *w, cts_case *c, cts_judgement *j) {
  ndk_case n = {.w = w, .c = c};
  ANeuralNetworksDevice *device = NULL;
  vknn_ndk_set_log_callback(cts_worker_log, w);
  /* The library opens its device on first use: with the validation layer,
   * as the runner opens its own. */
  setenv("VKNN_VALIDATION", "1", 1);
  *j = (cts_judgement){CTS_PASSED, ""};
  bool unsupported = false;
  if (CALL(&n, ANeuralNetworks_getDevice(0, &device))) {
    n.device = device;
    uint64_t messages = vknn_device_get_validation_message_count(vknn_ndk_device(device));
    bool built = memory_of(&n, &c->constant_pool, &n.constants) && memory_of(&n, &c->input_pool, &n.inputs) &&
                 memory_of(&n, &c->output_pool, &n.outputs) && build_model(&n, 0);
    unsupported = built && !all_supported(&n) && n.result == ANEURALNETWORKS_NO_ERROR;
    if (built && !unsupported && compile(&n)) run_paths(&n);
    if (vknn_device_get_validation_message_count(vknn_ndk_device(device)) != messages) {
      n.result = -1;
      snprintf(n.failed_call, sizeof(n.failed_call), "Vulkan validation layer message");
    }
  }
  release(&n);
  judge(&n, unsupported, j);
  vknn_ndk_set_log_callback(NULL, NULL);
}
