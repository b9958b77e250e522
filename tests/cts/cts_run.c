#include "cts_run.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cts_case.h"
#include "cts_compare.h"
#include "cts_modes.h"

static const struct {
  const char *name;
  bool implemented;
} modes_table[] = {
#define CTS_MODE_ROW_(id, name, implemented) {name, implemented},
    CTS_MODE_LIST(CTS_MODE_ROW_)
#undef CTS_MODE_ROW_
};

const char *cts_mode_name(cts_mode mode) { return modes_table[mode].name; }
bool cts_mode_implemented(cts_mode mode) { return modes_table[mode].implemented; }

int cts_mode_from_name(const char *name) {
  for (int m = 0; m < CTS_MODE_COUNT; ++m)
    if (strcmp(modes_table[m].name, name) == 0) return m;
  return -1;
}

/* Executions of one worker may log at once (the threads mode's ten): the
 * last error is written under a lock. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void cts_worker_log(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  cts_worker *worker = user_data;
  if (level != VKNN_LOG_ERROR) return;
  pthread_mutex_lock(&log_lock);
  snprintf(worker->last_error, sizeof(worker->last_error), "%s: %s", tag, message);
  pthread_mutex_unlock(&log_lock);
}

static vknn_device_options device_options;

vknn_device_options *cts_device_options(void) { return &device_options; }

static vknn_duration loop_timeout;

void cts_set_loop_timeout_ms(uint32_t ms) {
  loop_timeout = (vknn_duration){.has_value = true, .nanoseconds = (uint64_t)ms * 1000000u};
}

const vknn_duration *cts_loop_timeout(void) { return loop_timeout.has_value ? &loop_timeout : NULL; }

static vknn_status open_device(cts_worker *worker, vknn_device **out) {
  vknn_device_options options = device_options;
  options.log_callback = cts_worker_log;
  options.log_user_data = worker;
  options.enable_validation = true;
  return vknn_device_open(&options, out);
}

vknn_status cts_worker_open(cts_worker *worker) {
  memset(worker, 0, sizeof(*worker));
  return open_device(worker, &worker->device);
}

vknn_device *cts_worker_restore_device(cts_worker *worker) {
  if (worker->restore_device == NULL && open_device(worker, &worker->restore_device) != VKNN_STATUS_NONE)
    worker->restore_device = NULL;
  return worker->restore_device;
}

void cts_worker_close(cts_worker *worker) {
  vknn_device_close(worker->restore_device);
  vknn_device_close(worker->device);
  worker->device = NULL;
  worker->restore_device = NULL;
}

static void set_outcome(cts_judgement *o, cts_status status, const char *reason) {
  o->status = status;
  snprintf(o->reason, sizeof(o->reason), "%s", reason);
}

static bool all_supported(const bool *supported, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (!supported[i]) return false;
  return true;
}

/* A driver error: a pass for an expectFailure case, a failure otherwise. */
static void judge_error(cts_worker *w, const cts_case *c, const char *step, vknn_status s,
                        cts_judgement *o) {
  if (c->expect_failure) {
    o->status = CTS_PASSED;
    return;
  }
  o->status = CTS_FAILED;
  snprintf(o->reason, sizeof(o->reason), "%s returned %s (%s)", step, vknn_status_name(s),
           w->last_error);
}

bool cts_timing_valid(const vknn_timing *t) {
  if (t->time_in_driver == UINT64_MAX) return t->time_on_device == UINT64_MAX;
  return t->time_on_device == UINT64_MAX || t->time_in_driver >= t->time_on_device;
}

void cts_judge(cts_worker *w, const cts_case *c, const char *step, vknn_status s,
               const uint8_t *output_pool, const vknn_output_shape *shapes,
               const vknn_timing *timing, cts_judgement *o) {
  char reason[512];
  if (s != VKNN_STATUS_NONE) {
    judge_error(w, c, step, s, o);
  } else if (c->expect_failure) {
    set_outcome(o, CTS_FAILED, "an invalid case executed successfully");
  } else if (!cts_timing_valid(timing)) {
    set_outcome(o, CTS_FAILED, "timing breaks the HAL rules");
  } else if (cts_compare_outputs_in(c, output_pool, shapes, reason, sizeof(reason)) != 0) {
    set_outcome(o, CTS_FAILED, reason);
  }
}

static void run_sync(cts_worker *w, cts_case *c, vknn_prepared_model *pm, cts_judgement *o) {
  vknn_output_shape shapes[CTS_MAX_OUTPUTS];
  vknn_timing timing;
  cts_case_reset_outputs(c);
  vknn_status s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_YES, NULL, cts_loop_timeout(),
                                              shapes, CTS_MAX_OUTPUTS, &timing);
  cts_judge(w, c, "execute", s, c->output_pool.data, shapes, &timing, o);
}

typedef void (*mode_runner)(cts_worker *, cts_case *, vknn_prepared_model *, cts_judgement *);

static mode_runner runner_of(cts_mode mode) {
  switch (mode) {
    case CTS_MODE_SYNC: return run_sync;
    case CTS_MODE_ASYNC: return cts_run_async;
    case CTS_MODE_BURST: return cts_run_burst;
    case CTS_MODE_FENCED: return cts_run_fenced;
    case CTS_MODE_THREADS: return cts_run_threads;
    case CTS_MODE_DEVICE_MEMORY: return cts_run_device_memory;
    case CTS_MODE_VALIDATION: return cts_run_validation;
    case CTS_MODE_CACHE: return cts_run_cache;
    default: return NULL;
  }
}

/* Support query and prepare, shared by every mode. pm stays NULL when the
 * outcome is already decided. */
static void prepare_case(cts_worker *w, cts_case *c, vknn_prepared_model **pm, cts_judgement *o) {
  uint32_t count = c->model.main.operation_count;
  bool supported[256];
  *pm = NULL;
  o->status = CTS_PASSED;
  o->reason[0] = '\0';
  if (count > 256) {
    set_outcome(o, CTS_UNSUPPORTED, "more than 256 operations");
    return;
  }
  vknn_status s = vknn_device_get_supported_operations(w->device, &c->model, supported, count);
  if (s != VKNN_STATUS_NONE) {
    judge_error(w, c, "getSupportedOperations", s, o);
    return;
  }
  if (!all_supported(supported, count)) {
    /* The driver's log says which operation and why. */
    set_outcome(o, CTS_UNSUPPORTED, w->last_error[0] ? w->last_error : "an operation is not supported");
    return;
  }
  s = vknn_device_prepare_model(w->device, &c->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                VKNN_PRIORITY_MEDIUM, NULL, pm);
  if (s != VKNN_STATUS_NONE) judge_error(w, c, "prepare", s, o);
}

static void append_mode(cts_result *out, cts_mode mode) {
  size_t len = strlen(out->failed_modes);
  snprintf(out->failed_modes + len, sizeof(out->failed_modes) - len, "%s%s", len ? "," : "",
           cts_mode_name(mode));
}

void cts_run_case(cts_worker *w, const cJSON *test, unsigned modes, cts_result *out) {
  memset(out, 0, sizeof(*out));
  cts_case c;
  const char *error = NULL;
  if (cts_case_load(test, &c, &error) != 0) {
    out->status = CTS_FAILED;
    snprintf(out->reason, sizeof(out->reason), "cannot load the case: %s", error);
    return;
  }
  uint64_t messages_before = vknn_device_get_validation_message_count(w->device);
  w->last_error[0] = '\0';
  cts_judgement o, ndk = {CTS_PASSED, ""};
  vknn_prepared_model *pm = NULL;
  if (modes & (1u << CTS_MODE_NDK)) cts_run_ndk(w, &c, &ndk);
  if (modes == (1u << CTS_MODE_NDK)) o = ndk; /* the C API alone */
  else prepare_case(w, &c, &pm, &o);
  out->status = o.status;
  snprintf(out->reason, sizeof(out->reason), "%s", o.reason);
  if ((modes & (1u << CTS_MODE_NDK)) && ndk.status != o.status) { /* the C API must agree with the HAL-shaped API */
    append_mode(out, CTS_MODE_NDK);
    out->status = CTS_FAILED;
    snprintf(out->reason, sizeof(out->reason), "ndk: %.500s", ndk.reason);
  }
  for (int m = 0; m < CTS_MODE_COUNT && pm != NULL; ++m) {
    if (!(modes & (1u << m)) || m == CTS_MODE_NDK) continue;
    o = (cts_judgement){CTS_PASSED, ""};
    if (c.output_count > CTS_MAX_OUTPUTS) set_outcome(&o, CTS_FAILED, "too many outputs");
    else if (m == CTS_MODE_DYNAMIC) cts_run_dynamic(w, test, &o);
    else if (m == CTS_MODE_QUANT_COUPLING) cts_run_quant_coupling(w, test, &o);
    else runner_of((cts_mode)m)(w, &c, pm, &o);
    if (o.status == CTS_FAILED) {
      append_mode(out, (cts_mode)m);
      out->status = CTS_FAILED;
      snprintf(out->reason, sizeof(out->reason), "%s", o.reason);
    }
  }
  vknn_prepared_model_release(pm);
  if (vknn_device_get_validation_message_count(w->device) != messages_before) {
    out->status = CTS_FAILED;
    snprintf(out->reason, sizeof(out->reason), "Vulkan validation layer message: %s",
             w->last_error);
  }
  cts_case_free(&c);
}
