/* Logging, allocation and result codes shared by the objects of the C API. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndk.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static vknn_log_callback log_callback;
static void *log_user_data;

void vknn_ndk_set_log_callback(vknn_log_callback callback, void *user_data) {
  pthread_mutex_lock(&log_lock);
  log_callback = callback;
  log_user_data = user_data;
  pthread_mutex_unlock(&log_lock);
}

void ndk_log_line(vknn_log_level level, const char *tag, const char *message) {
  pthread_mutex_lock(&log_lock);
  vknn_log_callback callback = log_callback;
  void *user_data = log_user_data;
  pthread_mutex_unlock(&log_lock);
  if (callback != NULL) callback(user_data, level, tag, message);
  else if (level == VKNN_LOG_ERROR) fprintf(stderr, "vknn %s: %s\n", tag, message);
}

void ndk_log_error(const char *function, const char *format, ...) {
  char message[512];
  int n = snprintf(message, sizeof(message), "%s: ", function);
  va_list args;
  va_start(args, format);
  vsnprintf(message + n, sizeof(message) - (size_t)n, format, args);
  va_end(args);
  ndk_log_line(VKNN_LOG_ERROR, "nnapi", message);
}

int ndk_result_of(vknn_status status) {
  switch (status) {
    case VKNN_STATUS_NONE: return ANEURALNETWORKS_NO_ERROR;
    case VKNN_STATUS_DEVICE_UNAVAILABLE: return ANEURALNETWORKS_UNAVAILABLE_DEVICE;
    case VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE: return ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
    case VKNN_STATUS_INVALID_ARGUMENT: return ANEURALNETWORKS_BAD_DATA;
    case VKNN_STATUS_MISSED_DEADLINE_TRANSIENT: return ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT;
    case VKNN_STATUS_MISSED_DEADLINE_PERSISTENT: return ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
    case VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT;
    case VKNN_STATUS_RESOURCE_EXHAUSTED_PERSISTENT: return ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT;
    case VKNN_STATUS_GENERAL_FAILURE:
    default: return ANEURALNETWORKS_OP_FAILED;
  }
}

void *ndk_alloc(size_t size) {
  void *p = calloc(1, size ? size : 1);
  if (p == NULL) ndk_log_error(__func__, "out of memory (%zu bytes)", size);
  return p;
}

void ndk_free(void *p) { free(p); }

int ndk_reserve(void **array, uint32_t *capacity, uint32_t needed, size_t element_size) {
  if (needed <= *capacity) return 0;
  uint32_t grown = *capacity ? *capacity : 8;
  while (grown < needed) {
    if (grown > UINT32_MAX / 2) return -1;
    grown *= 2;
  }
  void *p = realloc(*array, (size_t)grown * element_size);
  if (p == NULL) {
    ndk_log_error(__func__, "out of memory (%u elements)", grown);
    return -1;
  }
  memset((uint8_t *)p + (size_t)*capacity * element_size, 0,
         (size_t)(grown - *capacity) * element_size);
  *array = p;
  *capacity = grown;
  return 0;
}

uint64_t ndk_now_boottime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int32_t ndk_next_slot(void) {
  static atomic_int next;
  return atomic_fetch_add(&next, 1);
}

size_t ndk_element_size(int32_t type) {
  switch (type) {
    case ANEURALNETWORKS_FLOAT32: case ANEURALNETWORKS_INT32: case ANEURALNETWORKS_UINT32:
    case ANEURALNETWORKS_TENSOR_FLOAT32: case ANEURALNETWORKS_TENSOR_INT32:
      return 4;
    case ANEURALNETWORKS_TENSOR_QUANT16_SYMM: case ANEURALNETWORKS_TENSOR_FLOAT16:
    case ANEURALNETWORKS_FLOAT16: case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
      return 2;
    case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM: case ANEURALNETWORKS_BOOL:
    case ANEURALNETWORKS_TENSOR_BOOL8: case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case ANEURALNETWORKS_TENSOR_QUANT8_SYMM: case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED:
    case VKNN_OPERAND_TENSOR_OEM_BYTE:
      return 1;
    default: {
      const vknn_extension_operand_type *info = ndk_extension_operand_info(type);
      return info != NULL ? info->byte_size : 0;
    }
  }
}

bool ndk_type_is_scalar(int32_t type) {
  const vknn_extension_operand_type *info = ndk_extension_operand_info(type);
  if (info != NULL) return !info->is_tensor;
  return type == ANEURALNETWORKS_FLOAT32 || type == ANEURALNETWORKS_INT32 ||
         type == ANEURALNETWORKS_UINT32 || type == ANEURALNETWORKS_BOOL ||
         type == ANEURALNETWORKS_FLOAT16 || type == ANEURALNETWORKS_MODEL ||
         type == VKNN_OPERAND_OEM;
}

bool ndk_type_size_fits(const ANeuralNetworksOperandType *t) {
  uint64_t size = VKNN_EXTENSION_PREFIX(t->type) != 0 ? 1 : ndk_element_size(t->type);
  for (uint32_t i = 0; i < t->dimensionCount; ++i) {
    if (t->dimensions[i] == 0) continue;
    size *= t->dimensions[i];
    if (size > UINT32_MAX) return false;
  }
  return true;
}

uint64_t ndk_deadline_after(uint64_t duration_ns) {
  uint64_t now = ndk_now_boottime_ns();
  return duration_ns > UINT64_MAX - now ? UINT64_MAX : now + duration_ns;
}
