/* vknn-bench: the driver's benchmarks, one verb each.
 *
 *   model   one conformance case: prepare time, execution latency, GPU time per dispatch
 *   peak    the device's own limits: FMA throughput, copy bandwidth, submit and dispatch cost
 *   kernel  one convolution or fully-connected operation at MobileNet shapes
 *   synth   whole MobileNet v1 / v2 models with random weights
 *
 * See README.md (Tools) and docs/perf.md. */
#include <stdio.h>
#include <string.h>

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
};
#define VERB_COUNT (sizeof(verbs) / sizeof(verbs[0]))

static int usage(void) {
  fprintf(stderr, "usage:\n");
  for (size_t i = 0; i < VERB_COUNT; ++i) fprintf(stderr, "  vknn-bench %s\n", verbs[i].usage);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  for (size_t i = 0; i < VERB_COUNT; ++i) {
    if (strcmp(argv[1], verbs[i].name) != 0) continue;
    int rc = verbs[i].main(argc - 1, argv + 1);
    if (rc == 2) fprintf(stderr, "usage: vknn-bench %s\n", verbs[i].usage);
    return rc;
  }
  return usage();
}
