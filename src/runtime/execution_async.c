/* Asynchronous and fenced executions: validated at once, then run on the
 * device's executor (executor.c), in the prepared model's priority. A
 * fenced execution reaches the executor only once its fences have signaled
 * (fence_waiter.c). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/prepared_model_internal.h"
#include "memory/request_copy.h"
#include "util/fault_injection.h"

#define TAG "execution"

typedef struct async_execution {
  vknn_prepared_model *pm;
  vknn_request_copy copy;
  vknn_execution_options options;
  vknn_execution_callback callback;
  void *user_data;
} async_execution;

/* Output shapes go with NONE and OUTPUT_INSUFFICIENT_SIZE only, one per
 * output (HAL notify_1_3); with any other status the callback gets none. */
static bool reports_shapes(vknn_status s) {
  return s == VKNN_STATUS_NONE || s == VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE;
}

static void run_async(void *context) {
  async_execution *a = context;
  uint32_t count = a->copy.request.output_count;
  vknn_output_shape *shapes = vknn_calloc(count ? count : 1, sizeof(*shapes));
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  vknn_status s = shapes != NULL ? vknn_execution_run_mapping(a->pm, &a->copy.request, &a->options, shapes,
                                                              count, &timing)
                                 : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  a->callback(a->user_data, s, reports_shapes(s) ? shapes : NULL, reports_shapes(s) ? count : 0, &timing);
  free(shapes);
  vknn_prepared_model_release_pending(a->pm);
  vknn_request_copy_free(&a->copy);
  free(a);
}

vknn_status vknn_prepared_model_execute_async(vknn_prepared_model *pm, const vknn_request *request,
                                              vknn_measure_timing measure,
                                              const vknn_deadline *deadline,
                                              const vknn_duration *loop_timeout,
                                              vknn_execution_callback callback, void *user_data) {
  /* Driver time runs from here to the callback (HAL execute_1_3). */
  vknn_execution_options options = vknn_execution_options_make(pm, measure, deadline, loop_timeout);
  options.queued = true;
  vknn_status s = vknn_execution_validate(pm, request, measure, NULL, 0);
  if (s == VKNN_STATUS_NONE && callback == NULL) s = VKNN_STATUS_INVALID_ARGUMENT;
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&pm->device->log, TAG, deadline);
  if (s != VKNN_STATUS_NONE) return s;
  async_execution *a = vknn_calloc(1, sizeof(*a));
  if (a == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  *a = (async_execution){.pm = pm, .options = options, .callback = callback, .user_data = user_data};
  s = vknn_request_copy_make(request, &a->copy);
  if (s == VKNN_STATUS_NONE) {
    vknn_prepared_model_retain_pending(pm);
    s = vknn_executor_submit(&pm->device->executor, pm->priority, run_async, a);
    if (s != VKNN_STATUS_NONE) vknn_prepared_model_release_pending(pm);
  }
  if (s != VKNN_STATUS_NONE) {
    vknn_request_copy_free(&a->copy);
    free(a);
  }
  return s;
}

/* ---- fenced -------------------------------------------------------------- */

struct vknn_fenced_execution {
  pthread_mutex_t lock;
  int references; /* the caller's and the running job's */
  bool done;
  vknn_status status;
  vknn_timing launched, fenced;
  /* The job's inputs. */
  vknn_prepared_model *pm;
  vknn_request_copy copy;
  int *wait_for;
  uint32_t wait_count;
  vknn_fence_wait wait;
  vknn_status wait_status; /* how the wait for the fences ended */
  uint64_t fenced_ns;      /* when it ended */
  vknn_execution_options options; /* call_ns: when the call was made (timingLaunched) */
  vknn_duration timeout_after_fence;
  /* The caller's sync fence is the read end of a pipe (completion_fence). */
  int signal_fd; /* its write end */
  int reader_fd; /* a read end of the job's own until it signals: no write meets a pipe without readers */
};

static void unref(vknn_fenced_execution *f) {
  pthread_mutex_lock(&f->lock);
  bool last = --f->references == 0;
  pthread_mutex_unlock(&f->lock);
  if (!last) return;
  pthread_mutex_destroy(&f->lock);
  for (uint32_t i = 0; i < f->wait_count; ++i)
    if (f->wait_for[i] >= 0) close(f->wait_for[i]);
  free(f->wait_for);
  free(f);
}

/* The run's timing with driver time from start_ns to now: from the call
 * (timingLaunched) or from when the fences signaled (timingFenced). Never
 * less than the time on the device. */
static vknn_timing since(uint64_t start_ns, const vknn_timing *run) {
  if (run->time_in_driver == UINT64_MAX) return *run;
  uint64_t driver = (vknn_now_boottime_ns() - start_ns) / 1000;
  uint64_t device = run->time_on_device;
  return (vknn_timing){device, device != UINT64_MAX && device > driver ? device : driver};
}

/* Signals the caller's sync fence: one byte and the write end closed when
 * the execution succeeded; the write end closed alone when it failed, which
 * poll reports as a hang-up without data, the fence's error state
 * (vknn_sync_fence_wait), as a sync_file of failed work signals with an
 * error. A computation waiting for the fence then fails too. */
static void signal_completion(vknn_fenced_execution *f, vknn_status status) {
  if (status == VKNN_STATUS_NONE) {
    const uint8_t one = 1;
    ssize_t written = write(f->signal_fd, &one, sizeof(one)); /* a pipe of one byte never blocks */
    (void)written;
  }
  close(f->signal_fd);
  close(f->reader_fd);
}

static void run_fenced(void *context) {
  vknn_fenced_execution *f = context;
  vknn_timing run = {UINT64_MAX, UINT64_MAX};
  vknn_status s = f->wait_status;
  uint64_t fenced_ns = f->fenced_ns;
  if (s == VKNN_STATUS_NONE)
    s = vknn_execution_run_mapping(f->pm, &f->copy.request, &f->options, NULL, 0, &run);
  if (s == VKNN_STATUS_NONE && f->timeout_after_fence.has_value &&
      vknn_now_boottime_ns() - fenced_ns > f->timeout_after_fence.nanoseconds)
    s = VKNN_STATUS_MISSED_DEADLINE_TRANSIENT;
  pthread_mutex_lock(&f->lock);
  f->status = s;
  if (s == VKNN_STATUS_NONE && f->options.measure == VKNN_MEASURE_TIMING_YES) {
    f->launched = since(f->options.call_ns, &run);
    f->fenced = since(fenced_ns, &run);
  }
  f->done = true;
  pthread_mutex_unlock(&f->lock);
  signal_completion(f, s);
  vknn_prepared_model_release_pending(f->pm);
  vknn_request_copy_free(&f->copy);
  unref(f);
}

/* The fences have signaled (or the wait failed): on to the executor, or,
 * should it refuse the job, run here. From now on the execution must end
 * within timeout_after_fence too: whichever of that and the deadline comes
 * first bounds it (HAL executeFenced), so the run stops at it as at a
 * deadline. */
static void fences_ready(void *context, vknn_status status) {
  vknn_fenced_execution *f = context;
  if (status == VKNN_STATUS_GENERAL_FAILURE)
    VKNN_LOG_E(&f->pm->device->log, TAG, "sync fence %u of %u signaled an error: the execution does not run",
               f->wait.signaled, f->wait.count);
  f->wait_status = status;
  f->fenced_ns = vknn_now_boottime_ns();
  if (f->timeout_after_fence.has_value) {
    uint64_t end = f->fenced_ns + f->timeout_after_fence.nanoseconds;
    if (end < f->fenced_ns) end = UINT64_MAX;
    if (!f->options.deadline.has_value || end < f->options.deadline.nanoseconds_since_boot)
      f->options.deadline = (vknn_deadline){true, end};
  }
  vknn_device *device = f->pm->device;
  if (vknn_executor_submit(&device->executor, f->pm->priority, run_fenced, f) != VKNN_STATUS_NONE)
    run_fenced(f);
}

static vknn_status validate_fenced(vknn_prepared_model *pm, const vknn_request *request,
                                   const int *wait_for, uint32_t wait_count,
                                   vknn_measure_timing measure, int *out_sync_fence,
                                   vknn_fenced_execution **out_execution) {
  if (out_sync_fence == NULL || out_execution == NULL || (wait_count > 0 && wait_for == NULL))
    return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = vknn_execution_validate(pm, request, measure, NULL, 0);
  if (s != VKNN_STATUS_NONE) return s;
  for (uint32_t i = 0; i < wait_count; ++i) {
    if (wait_for[i] < 0 || fcntl(wait_for[i], F_GETFD) == -1) {
      VKNN_LOG_E(&pm->device->log, TAG, "sync fence %u (%d) is not a valid descriptor", i, wait_for[i]);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  for (uint32_t i = 0; i < pm->output_count; ++i) {
    if (vknn_argument_unknown_dimension(&pm->outputs[i], &request->outputs[i]) != VKNN_SHAPE_KNOWN) {
      VKNN_LOG_E(&pm->device->log, TAG, "fenced execution with output %u of unknown shape", i);
      return VKNN_STATUS_INVALID_ARGUMENT;
    }
  }
  return VKNN_STATUS_NONE;
}

static vknn_fenced_execution *new_fenced(vknn_prepared_model *pm, const int *wait_for,
                                         uint32_t wait_count,
                                         const vknn_execution_options *options,
                                         const vknn_duration *timeout_after_fence) {
  vknn_fenced_execution *f = vknn_calloc(1, sizeof(*f));
  if (f == NULL) return NULL;
  f->wait_for = vknn_calloc(wait_count ? wait_count : 1, sizeof(int));
  if (f->wait_for == NULL) {
    free(f);
    return NULL;
  }
  /* The caller's descriptors are its own once the call returns: wait on
   * duplicates. */
  f->wait_count = wait_count;
  bool duplicated = true;
  for (uint32_t i = 0; i < wait_count; ++i) {
    f->wait_for[i] = fcntl(wait_for[i], F_DUPFD_CLOEXEC, 0);
    duplicated &= f->wait_for[i] >= 0;
  }
  pthread_mutex_init(&f->lock, NULL);
  f->references = 2; /* the caller's and the job's */
  if (!duplicated) {
    f->references = 1;
    unref(f);
    return NULL;
  }
  f->pm = pm;
  f->options = *options;
  f->launched = f->fenced = (vknn_timing){UINT64_MAX, UINT64_MAX};
  if (timeout_after_fence != NULL) f->timeout_after_fence = *timeout_after_fence;
  return f;
}

/* The caller's sync fence (the read end of a pipe, signal_completion), or
 * -1 without descriptors for it. */
static int completion_fence(vknn_fenced_execution *f) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return -1;
  f->reader_fd = fcntl(ends[0], F_DUPFD_CLOEXEC, 0);
  if (f->reader_fd < 0) {
    close(ends[0]);
    close(ends[1]);
    return -1;
  }
  f->signal_fd = ends[1];
  return ends[0];
}

vknn_status vknn_prepared_model_execute_fenced(vknn_prepared_model *pm, const vknn_request *request,
                                               const int *wait_for, uint32_t wait_count,
                                               vknn_measure_timing measure,
                                               const vknn_deadline *deadline,
                                               const vknn_duration *loop_timeout,
                                               const vknn_duration *timeout_after_fence,
                                               int *out_sync_fence,
                                               vknn_fenced_execution **out_execution) {
  /* timingLaunched runs from here to the fence's signal (HAL executeFenced). */
  vknn_execution_options options = vknn_execution_options_make(pm, measure, deadline, loop_timeout);
  options.queued = true;
  if (out_sync_fence != NULL) *out_sync_fence = -1;
  if (out_execution != NULL) *out_execution = NULL;
  vknn_status s = validate_fenced(pm, request, wait_for, wait_count, measure, out_sync_fence, out_execution);
  if (s == VKNN_STATUS_NONE) s = vknn_check_deadline(&pm->device->log, TAG, deadline);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_fenced_execution *f = new_fenced(pm, wait_for, wait_count, &options, timeout_after_fence);
  if (f == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  int fence = completion_fence(f);
  s = fence >= 0 ? vknn_request_copy_make(request, &f->copy) : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  if (s == VKNN_STATUS_NONE) {
    f->wait = (vknn_fence_wait){.fds = f->wait_for, .count = wait_count, .deadline = &f->options.deadline,
                                .ready = fences_ready, .context = f};
    vknn_prepared_model_retain_pending(pm);
    /* f may be finished once this returns: the caller's fence is fence. */
    s = vknn_fence_waiter_add(&pm->device->fence_waiter, &f->wait);
    if (s != VKNN_STATUS_NONE) vknn_prepared_model_release_pending(pm);
  }
  if (s != VKNN_STATUS_NONE) {
    if (fence >= 0) {
      close(fence);
      close(f->signal_fd);
      close(f->reader_fd);
    }
    vknn_request_copy_free(&f->copy);
    f->references = 1;
    unref(f);
    return s;
  }
  *out_sync_fence = fence;
  *out_execution = f;
  return VKNN_STATUS_NONE;
}

vknn_status vknn_fenced_execution_get_info(vknn_fenced_execution *f, vknn_timing *out_launched,
                                           vknn_timing *out_fenced) {
  if (f == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  /* HAL: asked before the execution finished (its sync fence signals after
   * the outcome is set), the answer is GENERAL_FAILURE, not a wait. */
  const vknn_timing none = {UINT64_MAX, UINT64_MAX};
  pthread_mutex_lock(&f->lock);
  bool done = f->done;
  vknn_status s = done ? f->status : VKNN_STATUS_GENERAL_FAILURE;
  if (out_launched != NULL) *out_launched = done ? f->launched : none;
  if (out_fenced != NULL) *out_fenced = done ? f->fenced : none;
  /* The job holds the prepared model until it is done; the device outlives it. */
  const vknn_logger *log = done ? NULL : &f->pm->device->log;
  pthread_mutex_unlock(&f->lock);
  if (log != NULL) VKNN_LOG_E(log, TAG, "fenced execution: its outcome was asked before its sync fence signaled");
  return s;
}

void vknn_fenced_execution_release(vknn_fenced_execution *f) {
  if (f != NULL) unref(f);
}
