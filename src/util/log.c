#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vknn_logger_init(vknn_logger *logger, vknn_log_callback callback, void *user_data) {
  memset(logger, 0, sizeof(*logger));
  logger->callback = callback;
  logger->user_data = user_data;
  vknn_logger_configure(logger, getenv("VKNN_LOG"));
}

static bool is_separator(char c) { return c == ' ' || c == ',' || c == ':' || c == '\t'; }

/* Adds one tag of the list; false when it cannot be kept (too long, too many). */
static bool add_tag(vknn_logger *logger, const char *tag, size_t length) {
  if (length == 1 && tag[0] == '1') return logger->verbose_all = true;
  if (length == 3 && strncmp(tag, "all", 3) == 0) return logger->verbose_all = true;
  if (length >= sizeof(logger->tags[0]) || logger->tag_count == VKNN_LOG_MAX_TAGS) return false;
  memcpy(logger->tags[logger->tag_count], tag, length);
  logger->tags[logger->tag_count][length] = '\0';
  logger->tag_count++;
  return true;
}

void vknn_logger_configure(vknn_logger *logger, const char *spec) {
  logger->verbose_all = false;
  logger->tag_count = 0;
  if (spec == NULL) return;
  const char *p = spec;
  while (*p != '\0') {
    while (is_separator(*p)) ++p;
    const char *start = p;
    while (*p != '\0' && !is_separator(*p)) ++p;
    if (p > start && !add_tag(logger, start, (size_t)(p - start)))
      fprintf(stderr, "vknn W/driver: VKNN_LOG: tag '%.*s' ignored (too long or too many)\n",
              (int)(p - start), start);
  }
}

bool vknn_log_tag_enabled(const vknn_logger *logger, const char *tag) {
  if (logger == NULL) return false;
  if (logger->callback != NULL || logger->verbose_all) return true;
  for (uint32_t i = 0; i < logger->tag_count; ++i)
    if (strcmp(logger->tags[i], tag) == 0) return true;
  return false;
}

void vknn_logf(const vknn_logger *logger, vknn_log_level level, const char *tag, const char *fmt,
               ...) {
  /* Errors and warnings always go out; the rest only for enabled tags, decided
   * before any formatting so that disabled verbose lines cost a comparison. */
  if (level > VKNN_LOG_WARNING && !vknn_log_tag_enabled(logger, tag)) return;
  char message[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  if (logger != NULL && logger->callback != NULL) {
    logger->callback(logger->user_data, level, tag, message);
    return;
  }
  static const char *const level_names[] = {"E", "W", "I", "V"};
  fprintf(stderr, "vknn %s/%s: %s\n", level_names[level], tag, message);
}
