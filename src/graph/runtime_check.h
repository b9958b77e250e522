/* What a kernel reports when a value it reads at run time is out of range
 * (docs/architecture.md, "Run-time checks"; shaders/runtime_status.glsl).
 * Lowering puts the code of its operation into the kernel's push constants;
 * the kernel writes it into the graph instance's status word on a
 * violation; the driver decodes it after the fence to name the operation. */
#pragma once
#include <stdint.h>

/* The operation's index in the main subgraph plus one (24 bits: 0 never
 * names an operation, so a status word of 0 means no violation), and its
 * type (the kernels that check serve operation types below 256). */
static inline uint32_t vknn_runtime_check_code(uint32_t op_index, int32_t op_type) {
  uint32_t position = op_index < 0xfffffeu ? op_index + 1 : 0xffffffu;
  return position << 8 | ((uint32_t)op_type & 0xffu);
}

/* The operation index a code names (UINT32_MAX when it names none). */
static inline uint32_t vknn_runtime_check_operation(uint32_t code) {
  uint32_t position = code >> 8;
  return position == 0 || position == 0xffffffu ? UINT32_MAX : position - 1;
}

static inline int32_t vknn_runtime_check_type(uint32_t code) { return (int32_t)(code & 0xffu); }
