/* Device-scoped logging with NNAPI-style tags (see vknn_device_options). */
#pragma once
#include <stdarg.h>
#include "vknn/device.h"

typedef struct vknn_logger {
  vknn_log_callback callback;
  void *user_data;
  bool verbose_all;
  char verbose_tags[128]; /* comma list from VKNN_LOG */
} vknn_logger;

/* Reads VKNN_LOG and installs the callback (NULL: stderr). */
void vknn_logger_init(vknn_logger *logger, vknn_log_callback callback, void *user_data);

void vknn_logf(const vknn_logger *logger, vknn_log_level level, const char *tag, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));

#define VKNN_LOG_E(logger, tag, ...) vknn_logf((logger), VKNN_LOG_ERROR, (tag), __VA_ARGS__)
#define VKNN_LOG_V(logger, tag, ...) vknn_logf((logger), VKNN_LOG_VERBOSE, (tag), __VA_ARGS__)
