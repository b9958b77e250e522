/* Chrome trace-event JSON (loads in Perfetto's UI and chrome://tracing), for
 * VKNN_TRACE: complete events ("ph":"X") on the host's threads, and GPU spans
 * on a track of their own. One writer per device; tracing off costs a branch. */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/log.h"

/* The track GPU spans are drawn on (a thread id no host thread has). */
#define VKNN_TRACE_GPU_TRACK 0x7fffffffu

typedef struct vknn_trace {
  FILE *file; /* NULL: tracing off */
  pthread_mutex_t lock;
  uint32_t pid;
} vknn_trace;

/* Opens path for writing (truncated). NULL or "" leaves tracing off; a file
 * that cannot be opened is logged, and tracing stays off. */
void vknn_trace_open(vknn_trace *trace, const vknn_logger *log, const char *path);
/* Ends the JSON document and closes the file. */
void vknn_trace_close(vknn_trace *trace);

static inline bool vknn_trace_on(const vknn_trace *trace) {
  return trace != NULL && trace->file != NULL;
}

/* The start of a span: now (CLOCK_BOOTTIME, ns), 0 when tracing is off. */
uint64_t vknn_trace_begin(const vknn_trace *trace);
/* A span from begin_ns to now on the calling thread; nothing when off. */
void vknn_trace_end(vknn_trace *trace, const char *category, const char *name, uint64_t begin_ns);
/* A span of given start and duration (ns) on a track (a thread id, or
 * VKNN_TRACE_GPU_TRACK). */
void vknn_trace_span(vknn_trace *trace, const char *category, const char *name, uint32_t track,
                     uint64_t start_ns, uint64_t duration_ns);
