/* The device options a tool's command line sets (vknn-cts, vknn-bench):
 * --operand-reads auto|storage|texel, --integer-dot, --io-copies,
 * --relaxed-float16, --float16-arithmetic, --kernel-tuning and
 * --subgroup-filter auto|off|on, --winograd auto|off|on|f2x3|f4x3; each
 * value names its enum's member in order. */
#pragma once
#include "vknn/vknn.h"

/* The flags and their values, for usage texts. */
extern const char DEVICE_FLAGS_USAGE[];

/* Sets options' field for flag from value: 0; 1 where flag is no device
 * option; -1 with a message where value is none of the flag's. */
int device_flag_parse(const char *flag, const char *value, vknn_device_options *options);
