/* vknn-bench peak: the device's fp32 FMA throughput, copy bandwidth, the cost
 * of an empty submission and of one more dependent dispatch. Medians of
 * repeats, GPU timestamps (wall clock for the submission). */
#include "bench_push.h"
#include "bench_peak.h"

#include <stdio.h>
#include <string.h>

#include "bench_common.h"
#include "bench_verbs.h"

#define REPEATS 5
#define SUBMIT_REPEATS 100
#define CHAIN_REPEATS 7
#define CHAIN_LENGTH 100
/* Runs are made at least this long, so that timer grain and launch cost vanish. */
#define TARGET_MS 20.0
#define FMA_INVOCATION_FLOPS 256.0 /* peak_fma.comp: 32 vec4 FMAs per iteration */
#define FMA_GROUP_SIZE 256
#define FMA_GROUPS 4096
/* Calibrated when doubling the loop takes at least this share of twice the time. */
#define FMA_LOOP_SHARE 0.9
#define FMA_ROUNDS 3
#define COPY_GROUP_SIZE 256
#define COPY_MAX_BYTES (256u << 20)
/* vec4 elements each invocation copies: enough invocations remain to fill a large GPU. */
#define COPY_PER_INVOCATION 4

/* ---- fp32 FMA ---- */

typedef struct fma_run {
  const bench_pipeline *pipeline;
  bench_fma_push push;
  uint32_t groups;
} fma_run;

static void record_fma(VkCommandBuffer cmd, const void *context) {
  const fma_run *run = context;
  bench_vk_bind(cmd, run->pipeline, &run->push, sizeof(run->push));
  vkCmdDispatch(cmd, run->groups, 1, 1);
}

/* Median GPU time of REPEATS runs (after one not counted). */
static int time_repeats(bench_vk *b, bench_record_fn record, const void *context, int repeats,
                        double *out_ms) {
  double times[CHAIN_REPEATS > REPEATS ? CHAIN_REPEATS : REPEATS];
  if (bench_vk_time(b, record, context, &times[0]) != 0) return -1;
  for (int i = 0; i < repeats; ++i)
    if (bench_vk_time(b, record, context, &times[i]) != 0) return -1;
  *out_ms = bench_quantile(times, (size_t)repeats, 0.5);
  return 0;
}

/* One run of the FMA kernel at the given loop count. */
static int time_fma(bench_vk *b, fma_run *run, uint32_t iterations, double *out_ms) {
  run->push.iterations = iterations;
  return bench_vk_time(b, record_fma, run, out_ms);
}

/* Doubles the loop count until a run lasts TARGET_MS and doubling it again
 * nearly doubles the time: the loop, not the launch, then decides it. On a
 * 2-core Xeon's lavapipe, launching the 4096 x 256 invocations took 15-20
 * ms, more than a few loop iterations. */
static int calibrate_fma(bench_vk *b, fma_run *run, uint32_t *out_iterations) {
  uint32_t n = 1;
  double ms, doubled_ms;
  if (time_fma(b, run, n, &ms) != 0) return -1;
  for (; n < (1u << 23); n *= 2, ms = doubled_ms) {
    if (time_fma(b, run, 2 * n, &doubled_ms) != 0) return -1;
    if (ms >= TARGET_MS && doubled_ms >= FMA_LOOP_SHARE * 2.0 * ms) break;
  }
  *out_iterations = n;
  return 0;
}

/* Runs of n and 2n iterations alternate, so that the machine's load falls
 * on both alike; the rate is the flops of n iterations over the median of
 * the pairs' differences, which leaves out the fixed launch cost. */
static int time_fma_slope(bench_vk *b, fma_run *run, uint32_t n, double *out_ms) {
  double differences[REPEATS];
  for (int i = 0; i < REPEATS; ++i) {
    double single_ms, doubled_ms;
    if (time_fma(b, run, n, &single_ms) != 0 || time_fma(b, run, 2 * n, &doubled_ms) != 0) return -1;
    differences[i] = doubled_ms - single_ms;
  }
  *out_ms = bench_quantile(differences, REPEATS, 0.5);
  return 0;
}

/* Load from outside can hide the doubling in the noise of one set of pairs
 * (seen under AddressSanitizer on a busy 2-core machine): up to FMA_ROUNDS
 * sets, each at twice the loop count of the one before (*n: the count the
 * slope was measured at). */
static int time_fma_slope_until_positive(bench_vk *b, fma_run *run, uint32_t *n, double *out_ms) {
  for (int round = 0; round < FMA_ROUNDS; ++round, *n *= 2) {
    if (time_fma_slope(b, run, *n, out_ms) != 0) return -1;
    if (*out_ms > 0) return 0;
  }
  fprintf(stderr, "vknn-bench: doubling the FMA loop did not lengthen the run (%d tries)\n", FMA_ROUNDS);
  return -1;
}

int bench_peak_measure_fma(bench_vk *b, bench_peak *out) {
  bench_buffer sink;
  if (bench_vk_buffer(b, 16, &sink) != 0) return -1;
  bench_pipeline pipeline;
  int rc = bench_vk_pipeline(b, "peak_fma", &sink, 1, &pipeline);
  /* The chains converge to add / (1 - mul) = 1: no overflow, no denormals;
   * their sum is positive, never -1. */
  uint32_t max_groups = b->vk.properties.limits.maxComputeWorkGroupCount[0];
  fma_run run = {&pipeline, {1, 0.999f, 0.001f, -1.0f}, FMA_GROUPS < max_groups ? FMA_GROUPS : max_groups};
  double ms = 0;
  uint32_t iterations = 0;
  if (rc == 0) rc = calibrate_fma(b, &run, &iterations);
  if (rc == 0) rc = time_fma_slope_until_positive(b, &run, &iterations, &ms);
  if (rc == 0) {
    double flops = (double)run.groups * FMA_GROUP_SIZE * iterations * FMA_INVOCATION_FLOPS;
    out->fma_gflops = flops / (ms * 1e6);
    out->fma_groups = run.groups;
    out->fma_iterations = iterations;
  }
  if (pipeline.pipeline != VK_NULL_HANDLE) bench_vk_pipeline_free(b, &pipeline);
  bench_vk_buffer_free(b, &sink);
  return rc;
}

/* ---- copy bandwidth ---- */

typedef struct copy_run {
  const bench_pipeline *pipeline;
  const bench_buffer *buffers; /* source, destination */
  bench_copy_push push;
  uint32_t groups;
} copy_run;

static void record_fill(VkCommandBuffer cmd, const void *context) {
  const copy_run *run = context;
  for (int i = 0; i < 2; ++i) vkCmdFillBuffer(cmd, run->buffers[i].buffer, 0, VK_WHOLE_SIZE, 0);
}

static void record_copy(VkCommandBuffer cmd, const void *context) {
  const copy_run *run = context;
  bench_vk_bind(cmd, run->pipeline, &run->push, sizeof(run->push));
  vkCmdDispatch(cmd, run->groups, 1, 1);
}

/* Large enough to pass through every cache, within what one binding may address. */
static VkDeviceSize copy_size(const bench_vk *b) {
  VkDeviceSize size = b->vk.properties.limits.maxStorageBufferRange;
  if (size > COPY_MAX_BYTES) size = COPY_MAX_BYTES;
  return size & ~(VkDeviceSize)((16 * COPY_GROUP_SIZE) - 1);
}

static int measure_copy(bench_vk *b, bench_peak *out) {
  VkDeviceSize size = copy_size(b);
  bench_buffer buffers[2] = {0};
  bench_pipeline pipeline = {0};
  int rc = bench_vk_buffer(b, size, &buffers[0]);
  if (rc == 0) rc = bench_vk_buffer(b, size, &buffers[1]);
  if (rc == 0) rc = bench_vk_pipeline(b, "peak_copy", buffers, 2, &pipeline);
  uint32_t count = (uint32_t)(size / 16), max_groups = b->vk.properties.limits.maxComputeWorkGroupCount[0];
  copy_run run = {&pipeline, buffers, {count}, count / (COPY_GROUP_SIZE * COPY_PER_INVOCATION)};
  if (run.groups > max_groups) run.groups = max_groups;
  double ms = 0;
  if (rc == 0) rc = bench_vk_time(b, record_fill, &run, &ms);
  if (rc == 0) rc = time_repeats(b, record_copy, &run, REPEATS, &ms);
  if (rc == 0) {
    out->bandwidth_gbs = 2.0 * (double)size / (ms * 1e6);
    out->copy_bytes = size;
  }
  if (pipeline.pipeline != VK_NULL_HANDLE) bench_vk_pipeline_free(b, &pipeline);
  for (int i = 0; i < 2; ++i)
    if (buffers[i].buffer != VK_NULL_HANDLE) bench_vk_buffer_free(b, &buffers[i]);
  return rc;
}

/* ---- an empty submission ---- */

/* An empty command buffer through the driver's submit-and-wait, wall clock. */
static int measure_submit(bench_vk *b, bench_peak *out) {
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkResult r = vkBeginCommandBuffer(b->cmd, &begin);
  if (r == VK_SUCCESS) r = vkEndCommandBuffer(b->cmd);
  if (r != VK_SUCCESS) {
    fprintf(stderr, "vknn-bench: recording an empty command buffer failed (%d)\n", (int)r);
    return -1;
  }
  double times[SUBMIT_REPEATS + 1];
  for (int i = 0; i <= SUBMIT_REPEATS; ++i) {
    double start = bench_now_ms();
    if (vknn_vk_submit_and_wait(&b->vk, &b->cmd, 1, b->fence) != VKNN_STATUS_NONE) return -1;
    times[i] = (bench_now_ms() - start) * 1e3;
  }
  out->submit_us = bench_quantile(times + 1, SUBMIT_REPEATS, 0.5); /* the first not counted */
  return 0;
}

/* ---- dependent dispatches ---- */

typedef struct chain_run {
  const bench_pipeline *pipeline;
  uint32_t length;
} chain_run;

static void record_chain(VkCommandBuffer cmd, const void *context) {
  const chain_run *run = context;
  VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  bench_vk_bind(cmd, run->pipeline, NULL, 0);
  for (uint32_t i = 0; i < run->length; ++i) {
    if (i > 0)
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL, 0, NULL);
    vkCmdDispatch(cmd, 1, 1, 1);
  }
}

static void record_zero(VkCommandBuffer cmd, const void *context) {
  vkCmdFillBuffer(cmd, ((const bench_buffer *)context)->buffer, 0, VK_WHOLE_SIZE, 0);
}

/* (time of 2N links - time of N links) / N: what one more link costs. */
static int measure_dispatch(bench_vk *b, bench_peak *out) {
  bench_buffer state;
  if (bench_vk_buffer(b, 64 * sizeof(float), &state) != 0) return -1;
  bench_pipeline pipeline = {0};
  double zero_ms, short_ms = 0, long_ms = 0;
  int rc = bench_vk_time(b, record_zero, &state, &zero_ms);
  if (rc == 0) rc = bench_vk_pipeline(b, "peak_chain", &state, 1, &pipeline);
  chain_run short_chain = {&pipeline, CHAIN_LENGTH}, long_chain = {&pipeline, 2 * CHAIN_LENGTH};
  if (rc == 0) rc = time_repeats(b, record_chain, &short_chain, CHAIN_REPEATS, &short_ms);
  if (rc == 0) rc = time_repeats(b, record_chain, &long_chain, CHAIN_REPEATS, &long_ms);
  if (rc == 0) {
    out->dispatch_us = (long_ms - short_ms) * 1e3 / CHAIN_LENGTH;
    out->chain_length = CHAIN_LENGTH;
  }
  if (pipeline.pipeline != VK_NULL_HANDLE) bench_vk_pipeline_free(b, &pipeline);
  bench_vk_buffer_free(b, &state);
  return rc;
}

/* ---- the verb ---- */

static int check_validation(const bench_vk *b) {
  uint64_t messages = bench_vk_validation_messages(b);
  if (messages == 0) return 0;
  fprintf(stderr, "vknn-bench: the validation layer reported %llu messages\n",
          (unsigned long long)messages);
  return -1;
}

/* Opens the device as the driver does, runs one measurement, closes it. */
static int measure_alone(int (*measure)(bench_vk *b, bench_peak *out), bench_peak *out) {
  bench_vk b;
  if (bench_vk_open(&b) != 0) return -1;
  int rc = measure(&b, out);
  if (rc == 0) rc = check_validation(&b);
  bench_vk_close(&b);
  return rc;
}

int bench_peak_fma_gflops(double *out_gflops) {
  bench_peak peak = {0};
  int rc = measure_alone(bench_peak_measure_fma, &peak);
  *out_gflops = peak.fma_gflops;
  return rc;
}

int bench_peak_bandwidth_gbs(double *out_gbs) {
  bench_peak peak = {0};
  int rc = measure_alone(measure_copy, &peak);
  *out_gbs = peak.bandwidth_gbs;
  return rc;
}

static void print_peak(const bench_peak *p, const char *device) {
  const char *timer = p->gpu_timestamps ? "GPU timestamps" : "wall clock (no timestamps)";
  printf("device:        %s\ntimer:         %s\n", device, timer);
  printf("fma_gflops:    %.1f   (%u workgroups x %d invocations, runs of %u and twice as many "
         "iterations, median difference of %d pairs)\n",
         p->fma_gflops, p->fma_groups, FMA_GROUP_SIZE, p->fma_iterations, REPEATS);
  printf("bandwidth_gbs: %.1f   (%.0f MiB copied by a kernel, read + write bytes, median of %d)\n",
         p->bandwidth_gbs, (double)p->copy_bytes / (1 << 20), REPEATS);
  printf("submit_us:     %.1f   (empty command buffer, submit + fence wait, wall clock, median of %d)\n",
         p->submit_us, SUBMIT_REPEATS);
  printf("dispatch_us:   %.2f   (chains of %u and %u dependent dispatches, median of %d)\n",
         p->dispatch_us, p->chain_length, 2 * p->chain_length, CHAIN_REPEATS);
}

static int write_peak_json(const bench_peak *p, const char *device, const char *path) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "device", device);
  cJSON_AddBoolToObject(root, "gpu_timestamps", p->gpu_timestamps);
  cJSON_AddNumberToObject(root, "fma_gflops", p->fma_gflops);
  cJSON_AddNumberToObject(root, "bandwidth_gbs", p->bandwidth_gbs);
  cJSON_AddNumberToObject(root, "submit_us", p->submit_us);
  cJSON_AddNumberToObject(root, "dispatch_us", p->dispatch_us);
  cJSON_AddNumberToObject(root, "fma_workgroups", p->fma_groups);
  cJSON_AddNumberToObject(root, "fma_iterations", p->fma_iterations);
  cJSON_AddNumberToObject(root, "copy_bytes", (double)p->copy_bytes);
  cJSON_AddNumberToObject(root, "chain_length", p->chain_length);
  int rc = bench_write_json(root, path);
  cJSON_Delete(root);
  return rc;
}

static int measure_all(bench_vk *b, bench_peak *p) {
  p->gpu_timestamps = bench_vk_has_timestamps(b);
  if (bench_peak_measure_fma(b, p) != 0 || measure_copy(b, p) != 0) return -1;
  if (measure_submit(b, p) != 0 || measure_dispatch(b, p) != 0) return -1;
  return check_validation(b);
}

int bench_peak_main(int argc, char **argv) {
  const char *json_path = NULL;
  if (argc == 3 && strcmp(argv[1], "--json") == 0) json_path = argv[2];
  else if (argc != 1) return 2;
  bench_vk b;
  if (bench_vk_open(&b) != 0) return 1;
  bench_peak peak = {0};
  int rc = measure_all(&b, &peak);
  if (rc == 0) print_peak(&peak, b.vk.properties.deviceName);
  if (rc == 0 && json_path != NULL) rc = write_peak_json(&peak, b.vk.properties.deviceName, json_path);
  bench_vk_close(&b);
  return rc == 0 ? 0 : 1;
}
