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
#include "device_flags.h"

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
    fprintf(stderr, "  vknn-bench [DEVICE OPTIONS] [--trace FILE] %s\n", verbs[i].usage);
  fprintf(stderr, "DEVICE OPTIONS (vknn/device.h: vknn_device_options):\n  %s\n", DEVICE_FLAGS_USAGE);
  return 2;
}

int main(int argc, char **argv) {
  while (argc >= 3 && strncmp(argv[1], "--", 2) == 0) {
    int rc = strcmp(argv[1], "--trace") == 0
                 ? (bench_set_trace(argv[2]), 0)
                 : device_flag_parse(argv[1], argv[2], bench_device_options());
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
