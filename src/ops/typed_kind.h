/* Element kinds of shaders/typed_io.glsl (kernels specialized by type). */
#pragma once
#include <stdint.h>

typedef enum vknn_elem_kind {
  VKNN_KIND_F32 = 0,
  VKNN_KIND_F16 = 1,
  VKNN_KIND_I32 = 2,
  VKNN_KIND_U8 = 3,
  VKNN_KIND_I8 = 4,
  VKNN_KIND_U16 = 5,
  VKNN_KIND_I16 = 6,
  VKNN_KIND_NONE = -1,
} vknn_elem_kind;

/* The kind that stores a tensor type; NONE for types without one. */
vknn_elem_kind vknn_elem_kind_of(int32_t type);
/* Range of an integer kind. */
void vknn_elem_kind_range(vknn_elem_kind kind, int32_t *lo, int32_t *hi);
