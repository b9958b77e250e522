/* A compute dispatch produced by lowering: a kernel, its specialization
 * constants, the tensors it binds and its push constants. */
#pragma once
#include "graph/graph.h"
#include "vk/vk_context.h"
#include "shaders_layout.h"

typedef enum vknn_access {
  VKNN_ACCESS_READ = 1,
  VKNN_ACCESS_WRITE = 2,
  /* With WRITE: the dispatch writes only its own slice of the tensor, which
   * no other such writer touches (a CONCATENATION's inputs written in place):
   * two of them need no barrier between them; readers still wait for both. */
  VKNN_ACCESS_DISJOINT = 4,
} vknn_access;

/* How a kernel reads a tensor bound as a storage texel buffer (its view's
 * format); NONE: a storage buffer. The kernel variant's reflected
 * texel_bindings must name exactly the bindings given a format. */
typedef enum vknn_texel_format {
  VKNN_TEXEL_NONE = 0,
  VKNN_TEXEL_F32,   /* R32_SFLOAT */
  VKNN_TEXEL_F32X4, /* R32G32B32A32_SFLOAT */
  VKNN_TEXEL_F16,   /* R16_SFLOAT */
  VKNN_TEXEL_F16X4, /* R16G16B16A16_SFLOAT */
  VKNN_TEXEL_U8,    /* R8_UINT */
  VKNN_TEXEL_U8X4,  /* R8G8B8A8_UINT */
  VKNN_TEXEL_I8,    /* R8_SINT */
  VKNN_TEXEL_I8X4,  /* R8G8B8A8_SINT */
} vknn_texel_format;

/* Bytes of one texel of a format (0 for NONE). */
uint32_t vknn_texel_bytes(vknn_texel_format format);

typedef struct vknn_binding {
  uint32_t tensor;
  vknn_access access;
  vknn_texel_format texel;
  /* Where the kernel can also read or write the tensor in the packed arena
   * layout (docs/architecture.md, "Packed arena layout"): bit packed_bit of
   * its specialization constant spec[packed_spec - 1] says it does.
   * packed_spec 0: NHWC only. Bindings of one dispatch under the same bit
   * are packed together or not at all. */
  uint8_t packed_spec;
  uint8_t packed_bit;
} vknn_binding;

#define VKNN_MAX_SPEC_CONSTANTS 12
_Static_assert(VKNN_SPEC_MAX_ID <= VKNN_MAX_SPEC_CONSTANTS,
               "a kernel has more specialization constants than a dispatch holds");

typedef struct vknn_dispatch {
  vknn_shader_id shader;
  uint32_t spec[VKNN_MAX_SPEC_CONSTANTS]; /* constant_id 1.. */
  uint32_t spec_count;
  uint32_t local_size;
  vknn_binding bindings[VKNN_MAX_BINDINGS];
  uint32_t binding_count;
  uint8_t push[VKNN_PUSH_CONSTANT_SIZE];
  uint32_t push_size;
  uint64_t invocations; /* total; the grid is derived from it */
  /* The model operation lowered to it (set by the compiler, for graph dumps
   * and traces). */
  uint32_t operation;
  int32_t operation_type;
} vknn_dispatch;

typedef struct vknn_dispatch_list {
  vknn_dispatch *items;
  uint32_t count;
  uint32_t capacity;
} vknn_dispatch_list;

/* Bindings of a dispatch's descriptor layout: a kernel that reports run-time
 * errors takes them all, the status word being the last (the ones between
 * its tensors and the status stay unwritten: the kernel does not use them). */
static inline uint32_t vknn_dispatch_layout_bindings(const vknn_dispatch *d) {
  return vknn_embedded_shaders[d->shader].reports_status ? VKNN_MAX_BINDINGS : d->binding_count;
}

/* Appends a zeroed dispatch; NULL when out of memory. */
vknn_dispatch *vknn_dispatch_list_add(vknn_dispatch_list *list);
void vknn_dispatch_list_release(vknn_dispatch_list *list);

/* Adds a bound tensor to a dispatch. */
void vknn_dispatch_bind(vknn_dispatch *dispatch, uint32_t tensor, vknn_access access);
/* Adds a tensor the kernel reads through a storage texel buffer. */
void vknn_dispatch_bind_texel(vknn_dispatch *dispatch, uint32_t tensor, vknn_texel_format format);
/* Says that the kernel reads or writes binding's tensor packed where bit
 * `bit` of its specialization constant spec[spec_index] is set. */
void vknn_dispatch_allow_packed(vknn_dispatch *dispatch, uint32_t binding, uint32_t spec_index,
                                uint32_t bit);
