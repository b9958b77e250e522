/* ANeuralNetworksEvent: the completion of an asynchronous or fenced
 * computation, or a sync fence of the client's. */
#include <fcntl.h>
#include <unistd.h>

#include "ndk.h"

/* The links between events and executions: an event's execution, an
 * execution's event and its event_waiters change under this lock, so that a
 * thread waiting through an event never meets an execution another thread
 * freed meanwhile (the free waits for it). */
static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t link_released = PTHREAD_COND_INITIALIZER;

/* The event's execution, kept until release_execution; NULL once freed. */
static ANeuralNetworksExecution *hold_execution(ANeuralNetworksEvent *event) {
  pthread_mutex_lock(&link_lock);
  ANeuralNetworksExecution *e = event->execution;
  if (e != NULL) e->event_waiters++;
  pthread_mutex_unlock(&link_lock);
  return e;
}

/* Gives a held execution back; with detach, unlinks it from event first
 * (unless another thread did). */
static void release_execution(ANeuralNetworksEvent *event, ANeuralNetworksExecution *e, bool detach) {
  pthread_mutex_lock(&link_lock);
  if (detach && event->execution == e) {
    if (e->event == event) e->event = NULL;
    event->execution = NULL;
  }
  if (--e->event_waiters == 0) pthread_cond_broadcast(&link_released);
  pthread_mutex_unlock(&link_lock);
}

void ndk_event_detach(ANeuralNetworksExecution *execution, int result, bool wait_for_waiters) {
  pthread_mutex_lock(&link_lock);
  if (execution->event != NULL) {
    execution->event->result = result;
    execution->event->execution = NULL;
    execution->event = NULL;
  }
  while (wait_for_waiters && execution->event_waiters > 0) pthread_cond_wait(&link_released, &link_lock);
  pthread_mutex_unlock(&link_lock);
}

static int result_of(const ANeuralNetworksEvent *event) {
  pthread_mutex_lock(&link_lock);
  int result = event->result;
  pthread_mutex_unlock(&link_lock);
  return result;
}

static ANeuralNetworksEvent *new_event(void) {
  ANeuralNetworksEvent *event = ndk_alloc(sizeof(*event));
  if (event != NULL) event->fd = -1;
  return event;
}

ANeuralNetworksEvent *ndk_event_for_execution(ANeuralNetworksExecution *execution) {
  ANeuralNetworksEvent *event = new_event();
  if (event != NULL) {
    event->execution = execution;
    event->of_computation = true;
  }
  return event;
}

int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent **event) {
  NDK_NOT_NULL(event);
  *event = NULL;
  /* As the NNAPI runtime: 0 (standard input) is no sync fence either. */
  NDK_REQUIRE(sync_fence_fd > 0, ANEURALNETWORKS_BAD_DATA, "sync fence %d is not a fence's descriptor", sync_fence_fd);
  ANeuralNetworksEvent *e = new_event();
  if (e == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  /* The event keeps its own descriptor: the client keeps and closes its one. */
  e->fd = fcntl(sync_fence_fd, F_DUPFD_CLOEXEC, 0);
  if (e->fd < 0) {
    ndk_free(e);
    ndk_log_error(__func__, "cannot duplicate sync fence %d", sync_fence_fd);
    return ANEURALNETWORKS_BAD_DATA;
  }
  *event = e;
  return ANEURALNETWORKS_NO_ERROR;
}

int ndk_execution_dup_fence(const ANeuralNetworksExecution *execution) {
  return execution->fence_fd >= 0 ? fcntl(execution->fence_fd, F_DUPFD_CLOEXEC, 0) : -1;
}

/* Only an event that is a sync fence has one to give (the NDK's BAD_DATA);
 * a fenced computation's event keeps its own, so the execution may be
 * freed (or computed again) first. */
int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent *event, int *sync_fence_fd) {
  NDK_NOT_NULL(sync_fence_fd);
  *sync_fence_fd = -1;
  NDK_NOT_NULL(event);
  NDK_REQUIRE(event->fd >= 0, ANEURALNETWORKS_BAD_DATA, "the event has no sync fence");
  *sync_fence_fd = fcntl(event->fd, F_DUPFD_CLOEXEC, 0);
  NDK_REQUIRE(*sync_fence_fd >= 0, ANEURALNETWORKS_OP_FAILED, "cannot duplicate the event's sync fence");
  return ANEURALNETWORKS_NO_ERROR;
}

/* A computation's event answers with its outcome (its fence may signal
 * before the outcome is known); a plain fence with the fence's state. */
int ANeuralNetworksEvent_wait(ANeuralNetworksEvent *event) {
  NDK_NOT_NULL(event);
  ANeuralNetworksExecution *e = hold_execution(event);
  if (e != NULL) {
    int result = ndk_execution_wait(e);
    release_execution(event, e, false);
    return result;
  }
  if (!event->of_computation && event->fd >= 0) {
    NDK_REQUIRE(vknn_sync_fence_wait(event->fd, -1) == VKNN_SYNC_FENCE_SIGNALED, ANEURALNETWORKS_OP_FAILED,
                "the sync fence signaled an error");
    return ANEURALNETWORKS_NO_ERROR;
  }
  return result_of(event);
}

/* Waits for the computation first, as the NNAPI runtime does. */
void ANeuralNetworksEvent_free(ANeuralNetworksEvent *event) {
  if (event == NULL) return;
  ANeuralNetworksExecution *e = hold_execution(event);
  if (e != NULL) {
    ndk_execution_wait(e);
    release_execution(event, e, true);
  }
  if (event->fd >= 0) close(event->fd);
  ndk_free(event);
}
