#include "graph/dispatch.h"
#include "util/fault_injection.h"

#include <stdlib.h>
#include <string.h>

vknn_dispatch *vknn_dispatch_list_add(vknn_dispatch_list *list) {
  if (list->count == list->capacity) {
    uint32_t capacity = list->capacity ? list->capacity * 2 : 16;
    vknn_dispatch *items = vknn_realloc(list->items, capacity * sizeof(*items));
    if (items == NULL) return NULL;
    list->items = items;
    list->capacity = capacity;
  }
  vknn_dispatch *d = &list->items[list->count++];
  memset(d, 0, sizeof(*d));
  d->local_size = 64;
  return d;
}

void vknn_dispatch_list_release(vknn_dispatch_list *list) {
  free(list->items);
  memset(list, 0, sizeof(*list));
}

void vknn_dispatch_bind(vknn_dispatch *dispatch, uint32_t tensor, vknn_access access) {
  dispatch->bindings[dispatch->binding_count++] = (vknn_binding){tensor, access, VKNN_TEXEL_NONE, 0, 0};
}

void vknn_dispatch_bind_texel(vknn_dispatch *dispatch, uint32_t tensor, vknn_texel_format format) {
  dispatch->bindings[dispatch->binding_count++] =
      (vknn_binding){tensor, VKNN_ACCESS_READ, format, 0, 0};
}

void vknn_dispatch_allow_packed(vknn_dispatch *dispatch, uint32_t binding, uint32_t spec_index,
                                uint32_t bit) {
  dispatch->bindings[binding].packed_spec = (uint8_t)(spec_index + 1);
  dispatch->bindings[binding].packed_bit = (uint8_t)bit;
}

uint32_t vknn_texel_bytes(vknn_texel_format format) {
  switch (format) {
    case VKNN_TEXEL_F32: return 4;
    case VKNN_TEXEL_F32X4: return 16;
    case VKNN_TEXEL_F16: return 2;
    case VKNN_TEXEL_F16X4: return 8;
    case VKNN_TEXEL_U8: case VKNN_TEXEL_I8: return 1;
    case VKNN_TEXEL_U8X4: case VKNN_TEXEL_I8X4: return 4;
    default: return 0;
  }
}
