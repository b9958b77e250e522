#include "util/trace.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

#define TAG "driver"

/* Names the GPU track, so that viewers show it apart from the host threads. */
static void write_metadata(vknn_trace *trace) {
  fprintf(trace->file,
          "{\"traceEvents\":[\n"
          "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,"
          "\"args\":{\"name\":\"vknn\"}},\n"
          "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
          "\"args\":{\"name\":\"GPU\"}}",
          trace->pid, trace->pid, VKNN_TRACE_GPU_TRACK);
}

void vknn_trace_open(vknn_trace *trace, const vknn_logger *log, const char *path) {
  memset(trace, 0, sizeof(*trace));
  if (path == NULL || path[0] == '\0') return;
  trace->file = fopen(path, "we");
  if (trace->file == NULL) {
    VKNN_LOG_E(log, TAG, "VKNN_TRACE: cannot write %s (%s); tracing off", path, strerror(errno));
    return;
  }
  pthread_mutex_init(&trace->lock, NULL);
  trace->pid = (uint32_t)getpid();
  write_metadata(trace);
}

void vknn_trace_close(vknn_trace *trace) {
  if (!vknn_trace_on(trace)) return;
  fputs("\n],\"displayTimeUnit\":\"ms\"}\n", trace->file);
  fclose(trace->file);
  trace->file = NULL;
  pthread_mutex_destroy(&trace->lock);
}

uint64_t vknn_trace_begin(const vknn_trace *trace) {
  return vknn_trace_on(trace) ? vknn_now_boottime_ns() : 0;
}

void vknn_trace_end(vknn_trace *trace, const char *category, const char *name, uint64_t begin_ns) {
  if (!vknn_trace_on(trace)) return;
  uint64_t now = vknn_now_boottime_ns();
  vknn_trace_span(trace, category, name, (uint32_t)syscall(SYS_gettid), begin_ns,
                  now > begin_ns ? now - begin_ns : 0);
}

/* Names come from the driver (kernel and operation names): no quoting needed,
 * but a stray quote or backslash is replaced rather than break the JSON. */
static void write_name(FILE *file, const char *name) {
  for (const char *p = name; *p != '\0'; ++p)
    fputc(*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 ? '_' : *p, file);
}

void vknn_trace_span(vknn_trace *trace, const char *category, const char *name, uint32_t track,
                     uint64_t start_ns, uint64_t duration_ns) {
  if (!vknn_trace_on(trace)) return;
  pthread_mutex_lock(&trace->lock);
  fputs(",\n{\"name\":\"", trace->file);
  write_name(trace->file, name);
  fprintf(trace->file, "\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%u,\"tid\":%u}",
          category, (double)start_ns / 1000.0, (double)duration_ns / 1000.0, trace->pid, track);
  pthread_mutex_unlock(&trace->lock);
}
