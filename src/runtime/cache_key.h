/* The key compilation caches are sealed with (the device options cache_key
 * and cache_key_file, include/vknn/device.h): the one given, else the one in
 * the file given or VKNN_CACHE_KEY_FILE names (made with random bytes if
 * absent; kept only if the process's user owns it and nobody else may read
 * or write it), else one drawn once per process. */
#pragma once
#include <stdint.h>

#include "util/log.h"
#include "vknn/vknn.h"

/* The device's key into out. GENERAL_FAILURE (logged) only when no random
 * bytes can be drawn; a key file that cannot be read or made is logged and
 * the process's key used. */
vknn_status vknn_cache_key_choose(const vknn_logger *log, const uint8_t *given, const char *file,
                                  uint8_t out[VKNN_CACHE_KEY_SIZE]);
