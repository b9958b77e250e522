/* The verbs of vknn-bench. Each takes the arguments after the verb and
 * returns the process exit status (2: bad usage). */
#pragma once

int bench_model_main(int argc, char **argv);
int bench_peak_main(int argc, char **argv);
int bench_kernel_main(int argc, char **argv);
int bench_synth_main(int argc, char **argv);
int bench_loop_main(int argc, char **argv);
int bench_capabilities_main(int argc, char **argv);

#define BENCH_MODEL_USAGE "model PATH.json [--case NAME] [--iterations N] [--json FILE] [--profile]"
#define BENCH_PEAK_USAGE "peak [--json FILE]"
#define BENCH_KERNEL_USAGE                                                                   \
  "kernel NAME|all [--shape SHAPE|small] [--iterations N] [--relaxed] [--quant8] [--float16] " \
  "[--peak-gflops X] [--peak-gbs X] [--json FILE]"
#define BENCH_SYNTH_USAGE                                                                      \
  "synth mobilenet_v1|mobilenet_v2 [--width W] [--input-size N] [--relaxed] [--iterations N] " \
  "[--profile] [--json FILE]"
#define BENCH_LOOP_USAGE "loop [--iterations N] [--loop L] [--json FILE]"
#define BENCH_CAPABILITIES_USAGE "capabilities [--rounds N] [--json FILE]"
