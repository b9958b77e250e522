/* vknn-bench: the driver's benchmarks, one verb each.
 *
 *   model   one conformance case: prepare time, execution latency, GPU time per dispatch
 *   peak    the device's own limits: FMA throughput, copy bandwidth, submit and dispatch cost
 *   kernel  one convolution or fully-connected operation at MobileNet shapes
 *   synth   whole MobileNet v1 / v2 models with random weights
 *   loop    what IF and one WHILE iteration cost beyond the operations they run
 *   capabilities  the HAL's performance figures: reference workloads, device / host
 *
 * Before the verb, --operand-reads auto|storage|texel, --integer-dot
 * auto|off|on, --io-copies auto|off|on, --winograd auto|off|on|f2x3|f4x3
 * --relaxed-float16 auto|off|on, --float16-arithmetic auto|off|on,
 * --kernel-tuning auto|off|on and --subgroup-filter auto|off|on set the
 * device options of those names (how
 * float convolutions read input and filter; whether quantized matrix
 * kernels use packed dot products; whether inputs and outputs are copied
 * into device memory; whether 3x3 stride-1 float convolutions run as
 * Winograd convolutions; whether relaxed models keep float16 tensors;
 * whether float16 kernels compute in float16; whether prepare measures the
 * convolutions' kernel variants; whether the matrix kernel shares filter
 * loads across a subgroup), for comparing the ways in one run; --trace FILE writes the
 * Chrome trace-event JSON of the device the verb opens first (as VKNN_TRACE).
 *
 * See README.md (Tools) and docs/perf.md. */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"
#include "bench_verbs.h"

typedef struct bench_verb {
  const char *name;
  int (*main)(int argc, char **argv);
  const char *usage;
} bench_verb;

static const bench_verb verbs[] = {
    {"model", bench_model_main, BENCH_MODEL_USAGE},
    {"peak", bench_peak_main, BENCH_PEAK_USAGE},
    {"kernel", bench_kernel_main, BENCH_KERNEL_USAGE},
    {"synth", bench_synth_main, BENCH_SYNTH_USAGE},
    {"loop", bench_loop_main, BENCH_LOOP_USAGE},
    {"capabilities", bench_capabilities_main, BENCH_CAPABILITIES_USAGE},
};
#define VERB_COUNT (sizeof(verbs) / sizeof(verbs[0]))

static int usage(void) {
  fprintf(stderr, "usage:\n");
  for (size_t i = 0; i < VERB_COUNT; ++i)
    fprintf(stderr, "  vknn-bench [--operand-reads auto|storage|texel] [--integer-dot auto|off|on] "
                    "[--io-copies auto|off|on] [--winograd auto|off|on|f2x3|f4x3] [--relaxed-float16 auto|off|on] "
                    "[--float16-arithmetic auto|off|on] [--kernel-tuning auto|off|on] "
                    "[--subgroup-filter auto|off|on] [--trace FILE] %s\n",
            verbs[i].usage);
  return 2;
}

static int parse_reads(const char *text) {
  static const char *names[] = {"auto", "storage", "texel"};
  for (int i = 0; i < 3; ++i)
    if (strcmp(text, names[i]) == 0) return bench_set_operand_reads((vknn_operand_reads)i), 0;
  return -1;
}

/* auto, off or on: the index of the choice, or -1. */
static int parse_switch(const char *text) {
  static const char *names[] = {"auto", "off", "on"};
  for (int i = 0; i < 3; ++i)
    if (strcmp(text, names[i]) == 0) return i;
  return -1;
}

static int parse_integer_dot(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_integer_dot((vknn_integer_dot)i), 0);
}

static int parse_io_copies(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_io_copies((vknn_io_copies)i), 0);
}

static int parse_relaxed_float16(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_relaxed_float16((vknn_relaxed_float16)i), 0);
}

static int parse_float16_arithmetic(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_float16_arithmetic((vknn_float16_arithmetic)i), 0);
}

static int parse_kernel_tuning(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_kernel_tuning((vknn_kernel_tuning)i), 0);
}

static int parse_subgroup_filter(const char *text) {
  int i = parse_switch(text);
  return i < 0 ? -1 : (bench_set_subgroup_filter((vknn_subgroup_filter)i), 0);
}

static int parse_winograd(const char *text) {
  static const char *names[] = {"auto", "off", "on", "f2x3", "f4x3"};
  for (int i = 0; i < 5; ++i)
    if (strcmp(text, names[i]) == 0) return bench_set_winograd((vknn_winograd)i), 0;
  return -1;
}

int main(int argc, char **argv) {
  while (argc >= 3 && strncmp(argv[1], "--", 2) == 0) {
    int rc = strcmp(argv[1], "--operand-reads") == 0 ? parse_reads(argv[2])
             : strcmp(argv[1], "--integer-dot") == 0  ? parse_integer_dot(argv[2])
             : strcmp(argv[1], "--io-copies") == 0    ? parse_io_copies(argv[2])
             : strcmp(argv[1], "--winograd") == 0     ? parse_winograd(argv[2])
             : strcmp(argv[1], "--relaxed-float16") == 0 ? parse_relaxed_float16(argv[2])
             : strcmp(argv[1], "--float16-arithmetic") == 0 ? parse_float16_arithmetic(argv[2])
             : strcmp(argv[1], "--kernel-tuning") == 0 ? parse_kernel_tuning(argv[2])
             : strcmp(argv[1], "--subgroup-filter") == 0 ? parse_subgroup_filter(argv[2])
             : strcmp(argv[1], "--trace") == 0        ? (bench_set_trace(argv[2]), 0)
                                                      : -1;
    if (rc != 0) return usage();
    argc -= 2;
    argv += 2;
  }
  if (argc < 2) return usage();
  for (size_t i = 0; i < VERB_COUNT; ++i) {
    if (strcmp(argv[1], verbs[i].name) != 0) continue;
    int rc = verbs[i].main(argc - 1, argv + 1);
    if (rc == 2) fprintf(stderr, "usage: vknn-bench %s\n", verbs[i].usage);
    return rc;
  }
  return usage();
}
