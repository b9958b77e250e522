/* Device-scoped logging with NNAPI-style tags (see vknn_device_options). */
#pragma once
#include <stdarg.h>
#include "vknn/device.h"

/* Tags VKNN_LOG may name at once (the rest of a longer list is ignored, logged). */
#define VKNN_LOG_MAX_TAGS 16

typedef struct vknn_logger {
  vknn_log_callback callback;
  void *user_data;
  bool verbose_all;
  uint32_t tag_count;
  char tags[VKNN_LOG_MAX_TAGS][24]; /* the tags VKNN_LOG enables */
} vknn_logger;

/* Reads VKNN_LOG and installs the callback (NULL: stderr). */
void vknn_logger_init(vknn_logger *logger, vknn_log_callback callback, void *user_data);

/* Parses a value in the syntax of Android's debug.nn.vlog property: "1" or
 * "all" enables every tag; otherwise tag names separated by spaces, commas or
 * colons. NULL or empty enables none. */
void vknn_logger_configure(vknn_logger *logger, const char *spec);

/* Whether verbose lines of this tag are wanted (a callback wants them all). */
bool vknn_log_tag_enabled(const vknn_logger *logger, const char *tag);

void vknn_logf(const vknn_logger *logger, vknn_log_level level, const char *tag, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));

#define VKNN_LOG_E(logger, tag, ...) vknn_logf((logger), VKNN_LOG_ERROR, (tag), __VA_ARGS__)
#define VKNN_LOG_V(logger, tag, ...) vknn_logf((logger), VKNN_LOG_VERBOSE, (tag), __VA_ARGS__)
