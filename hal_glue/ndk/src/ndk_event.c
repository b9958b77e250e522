/* ANeuralNetworksEvent: the completion of an asynchronous or fenced
 * computation, or a sync fence of the client's. */
#include <fcntl.h>
#include <unistd.h>

#include "ndk.h"

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
  if (event->execution != NULL) return ndk_execution_wait(event->execution);
  if (!event->of_computation && event->fd >= 0) {
    NDK_REQUIRE(vknn_sync_fence_wait(event->fd, -1) == VKNN_SYNC_FENCE_SIGNALED, ANEURALNETWORKS_OP_FAILED,
                "the sync fence signaled an error");
    return ANEURALNETWORKS_NO_ERROR;
  }
  return event->result;
}

/* Waits for the computation first, as the NNAPI runtime does. */
void ANeuralNetworksEvent_free(ANeuralNetworksEvent *event) {
  if (event == NULL) return;
  if (event->execution != NULL) {
    ndk_execution_wait(event->execution);
    if (event->execution->event == event) event->execution->event = NULL;
  }
  if (event->fd >= 0) close(event->fd);
  ndk_free(event);
}
