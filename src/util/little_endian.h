/* Fixed-width integers as little-endian bytes, whatever the host: the
 * byte formats the driver writes (serialized models, the compilation
 * cache's files, the tuning table). Callers check the room. */
#pragma once
#include <stdint.h>

/* Writes v at p; returns the byte after it. */
static inline uint8_t *vknn_le32_put(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) *p++ = (uint8_t)(v >> (8 * i));
  return p;
}

static inline uint8_t *vknn_le64_put(uint8_t *p, uint64_t v) {
  p = vknn_le32_put(p, (uint32_t)v);
  return vknn_le32_put(p, (uint32_t)(v >> 32));
}

static inline uint32_t vknn_le32_get(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t vknn_le64_get(const uint8_t *p) {
  return (uint64_t)vknn_le32_get(p) | (uint64_t)vknn_le32_get(p + 4) << 32;
}
