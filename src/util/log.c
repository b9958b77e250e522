#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vknn_logger_init(vknn_logger *logger, vknn_log_callback callback, void *user_data) {
  memset(logger, 0, sizeof(*logger));
  logger->callback = callback;
  logger->user_data = user_data;
  const char *env = getenv("VKNN_LOG");
  if (env != NULL) {
    logger->verbose_all = strcmp(env, "all") == 0 || strcmp(env, "1") == 0;
    snprintf(logger->verbose_tags, sizeof(logger->verbose_tags), ",%s,", env);
  }
}

static bool tag_enabled(const vknn_logger *logger, const char *tag) {
  if (logger->verbose_all) return true;
  char needle[40];
  snprintf(needle, sizeof(needle), ",%s,", tag);
  return strstr(logger->verbose_tags, needle) != NULL;
}

void vknn_logf(const vknn_logger *logger, vknn_log_level level, const char *tag, const char *fmt,
               ...) {
  char message[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  if (logger != NULL && logger->callback != NULL) {
    logger->callback(logger->user_data, level, tag, message);
    return;
  }
  /* Errors and warnings always reach stderr; the rest only for enabled tags. */
  if (level <= VKNN_LOG_WARNING || (logger != NULL && tag_enabled(logger, tag))) {
    static const char *const level_names[] = {"E", "W", "I", "V"};
    fprintf(stderr, "vknn %s/%s: %s\n", level_names[level], tag, message);
  }
}
