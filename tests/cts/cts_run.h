/* Running one conformance case through the driver, in the requested modes. */
#pragma once
#include <cjson/cJSON.h>

#include "vknn/vknn.h"

typedef enum cts_status {
  CTS_PASSED = 0,
  CTS_FAILED = 1,
  CTS_UNSUPPORTED = 2,
  CTS_SKIPPED = 3,
} cts_status;

/* Execution paths ("modes") a case can be run through. */
#define CTS_MODE_LIST(X)                                                              \
  X(SYNC, "sync", true) X(ASYNC, "async", true) X(BURST, "burst", true)               \
  X(FENCED, "fenced", true) X(DYNAMIC, "dynamic", true)                               \
  X(DEVICE_MEMORY, "device-memory", true) X(QUANT_COUPLING, "quant-coupling", true) \
  X(CACHE, "cache", true) X(THREADS, "threads", true) X(VALIDATION, "validation", true)         \
  X(NDK, "ndk", true)

typedef enum cts_mode {
#define CTS_MODE_ENUM_(id, name, implemented) CTS_MODE_##id,
  CTS_MODE_LIST(CTS_MODE_ENUM_)
#undef CTS_MODE_ENUM_
  CTS_MODE_COUNT
} cts_mode;

const char *cts_mode_name(cts_mode mode);
bool cts_mode_implemented(cts_mode mode);
/* The mode of a name, or -1. */
int cts_mode_from_name(const char *name);

typedef struct cts_result {
  cts_status status;
  char failed_modes[128]; /* comma list */
  char reason[512];
} cts_result;

/* Context of a worker process: its device and the last error it logged. */
typedef struct cts_worker {
  vknn_device *device;
  vknn_device *restore_device; /* mode cache: a second instance, opened when first needed */
  char last_error[384];
} cts_worker;

/* The device options of every worker opened from now on (the command
 * line's --operand-reads and the like: tools/common/device_flags.h); the
 * workers set their own log and the validation layer. */
vknn_device_options *cts_device_options(void);
/* The loop timeout every execution gives (--loop-timeout); NULL, the
 * driver's default (2 s), unless set. Sanitizer stages set the HAL's
 * maximum: a WHILE there runs several times slower, and the timeout is
 * wall-clock time. */
void cts_set_loop_timeout_ms(uint32_t ms);
const vknn_duration *cts_loop_timeout(void);
/* The worker's log callback: keeps the last error (under a lock). */
void cts_worker_log(void *user_data, vknn_log_level level, const char *tag, const char *message);
/* Opens the worker's device with the validation layer on. */
vknn_status cts_worker_open(cts_worker *worker);
void cts_worker_close(cts_worker *worker);
/* The worker's restore device, opened (validation layer on) the first time;
 * NULL when it cannot be opened. */
vknn_device *cts_worker_restore_device(cts_worker *worker);

/* Runs a case in every mode set in modes (bit = cts_mode). */
void cts_run_case(cts_worker *worker, const cJSON *test, unsigned modes, cts_result *out);
