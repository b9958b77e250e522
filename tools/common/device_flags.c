#include "device_flags.h"

#include <stdio.h>
#include <string.h>

const char DEVICE_FLAGS_USAGE[] =
    "[--operand-reads auto|storage|texel] [--integer-dot auto|off|on] [--io-copies auto|off|on]\n"
    "  [--winograd auto|off|on|f2x3|f4x3] [--relaxed-float16 auto|off|on]\n"
    "  [--float16-arithmetic auto|off|on] [--kernel-tuning auto|off|on] [--subgroup-filter auto|off|on]\n"
    "  [--gemm-shared-tiles auto|off|on] [--global-pool-reduction auto|off|on]\n"
    "  [--packed-layout auto|off|on]";

static const char *const switches[] = {"auto", "off", "on", NULL};
static const char *const reads[] = {"auto", "storage", "texel", NULL};
static const char *const tiles[] = {"auto", "off", "on", "f2x3", "f4x3", NULL};

/* Each option's setter takes the index of its value. */
static void set_reads(vknn_device_options *o, int v) { o->operand_reads = (vknn_operand_reads)v; }
static void set_dot(vknn_device_options *o, int v) { o->integer_dot = (vknn_integer_dot)v; }
static void set_copies(vknn_device_options *o, int v) { o->io_copies = (vknn_io_copies)v; }
static void set_winograd(vknn_device_options *o, int v) { o->winograd = (vknn_winograd)v; }
static void set_relaxed(vknn_device_options *o, int v) { o->relaxed_float16 = (vknn_relaxed_float16)v; }
static void set_arithmetic(vknn_device_options *o, int v) {
  o->float16_arithmetic = (vknn_float16_arithmetic)v;
}
static void set_tuning(vknn_device_options *o, int v) { o->kernel_tuning = (vknn_kernel_tuning)v; }
static void set_subgroup(vknn_device_options *o, int v) {
  o->subgroup_filter = (vknn_subgroup_filter)v;
}

static void set_shared_tiles(vknn_device_options *o, int v) {
  o->gemm_shared_tiles = (vknn_gemm_shared_tiles)v;
}
static void set_pool_reduction(vknn_device_options *o, int v) {
  o->global_pool_reduction = (vknn_global_pool_reduction)v;
}

static void set_packed_layout(vknn_device_options *o, int v) { o->packed_layout = (vknn_packed_layout)v; }

typedef struct device_flag {
  const char *flag;
  const char *const *values;
  void (*set)(vknn_device_options *options, int value);
} device_flag;

static const device_flag flags[] = {
    {"--operand-reads", reads, set_reads},          {"--integer-dot", switches, set_dot},
    {"--io-copies", switches, set_copies},          {"--winograd", tiles, set_winograd},
    {"--relaxed-float16", switches, set_relaxed},   {"--float16-arithmetic", switches, set_arithmetic},
    {"--kernel-tuning", switches, set_tuning},      {"--subgroup-filter", switches, set_subgroup},
    {"--gemm-shared-tiles", switches, set_shared_tiles},
    {"--global-pool-reduction", switches, set_pool_reduction},
    {"--packed-layout", switches, set_packed_layout},
};

int device_flag_parse(const char *flag, const char *value, vknn_device_options *options) {
  for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); ++f) {
    if (strcmp(flag, flags[f].flag) != 0) continue;
    for (int v = 0; flags[f].values[v] != NULL; ++v)
      if (strcmp(value, flags[f].values[v]) == 0) return flags[f].set(options, v), 0;
    fprintf(stderr, "%s: '%s' is none of its values\n", flag, value);
    return -1;
  }
  return 1;
}
