/* What a kernel reports when a value it reads at run time is out of range
 * (docs/architecture.md, "Run-time checks"; shaders/runtime_status.glsl).
 * Lowering puts the code of its operation into the kernel's push constants;
 * on a violation the kernel writes that code, with the rule it broke in the
 * low 8 bits, into the graph instance's status word; the driver decodes it
 * after the fence to name the operation and the rule. */
#pragma once
#include <stdint.h>

#include "shaders_layout.h" /* VKNN_RUNTIME_RULES, from runtime_status.glsl */

/* The operation's index in the main subgraph plus one, in the high 24 bits
 * (0 never names an operation, so a status word of 0 means no violation);
 * the low 8 bits are left for the kernel's rule. */
static inline uint32_t vknn_runtime_check_code(uint32_t op_index) {
  uint32_t position = op_index < 0xfffffeu ? op_index + 1 : 0xffffffu;
  return position << 8;
}

/* The operation index a code names (UINT32_MAX when it names none). */
static inline uint32_t vknn_runtime_check_operation(uint32_t code) {
  uint32_t position = code >> 8;
  return position == 0 || position == 0xffffffu ? UINT32_MAX : position - 1;
}

static inline uint32_t vknn_runtime_check_rule(uint32_t code) { return code & 0xffu; }

/* What the rule a code names says, for the log (runtime_status.glsl's text);
 * a rule no kernel defines (a code the driver did not write) says only that
 * some value was out of range. */
static inline const char *vknn_runtime_rule_text(uint32_t rule) {
  switch (rule) {
#define VKNN_RUNTIME_RULE_TEXT_(number, name, text) \
  case number: return text;
    VKNN_RUNTIME_RULES(VKNN_RUNTIME_RULE_TEXT_)
#undef VKNN_RUNTIME_RULE_TEXT_
    default: return "a value is out of range";
  }
}
