/* vknn-bench synth: MobileNet v1 and v2 built through the public API with
 * random weights (fixed seed), timed as the model verb times a conformance
 * case: prepare time, execution wall time (median, p90), the GPU time the
 * driver measures (time_on_device) and the host overhead (wall time minus GPU
 * time). Per-dispatch GPU times only with --profile: the timestamps after
 * every dispatch cost time of their own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_layers.h"
#include "bench_session.h"
#include "bench_verbs.h"

#define SEED 20240602u
#define CLASSES 1001
/* Softmax probabilities must sum to 1 within this (float16 arithmetic included). */
#define SOFTMAX_SUM_TOLERANCE 0.01

typedef struct synth_options {
  const char *model;
  double width;
  uint32_t input_size;
  bool relaxed, profile;
  int iterations;
  const char *json_path;
} synth_options;

typedef struct synth_result {
  double macs, prepare_ms;
  double wall_median_ms, wall_p90_ms, gpu_median_ms, gpu_p90_ms, host_median_ms;
  double largest_probability; /* a random network far from uniform computed something */
  uint32_t operation_count, dispatch_count;
  double *dispatch_ms; /* --profile: mean per dispatch */
  char (*kernels)[40]; /* each dispatch's kernel variant */
} synth_result;

/* ---- MobileNet v1: conv3x3 s2, 13 depthwise-separable blocks, average pool,
 * fully connected, softmax; ReLU6 after every convolution. ---- */

static uint32_t v1_channels(double width, uint32_t channels) {
  uint32_t scaled = (uint32_t)(channels * width);
  return scaled < 8 ? 8 : scaled;
}

static uint32_t build_v1(bench_graph *g, const synth_options *o) {
  static const struct { uint32_t stride, channels; } blocks[13] = {
      {1, 64}, {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512}, {1, 512},
      {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024}};
  uint32_t dims[4] = {1, o->input_size, o->input_size, 3};
  uint32_t x = bench_graph_input(g, dims, 4);
  x = bench_layer_conv(g, x, v1_channels(o->width, 32), 3, 2, VKNN_FUSED_RELU6);
  for (int i = 0; i < 13; ++i) {
    x = bench_layer_depthwise(g, x, 3, blocks[i].stride, VKNN_FUSED_RELU6);
    x = bench_layer_conv(g, x, v1_channels(o->width, blocks[i].channels), 1, 1, VKNN_FUSED_RELU6);
  }
  x = bench_layer_global_average_pool(g, x);
  x = bench_layer_fully_connected(g, x, CLASSES, VKNN_FUSED_NONE);
  return bench_layer_softmax(g, x);
}

/* ---- MobileNet v2: conv3x3 s2, 17 inverted residual blocks (expansion 6,
 * ReLU6, linear projection, ADD where stride 1 keeps the channel count),
 * conv1x1 to 1280, average pool, fully connected, softmax. ---- */

/* Channels rounded to a multiple of 8, never below 90% of the scaled count. */
static uint32_t v2_channels(double width, uint32_t channels) {
  double scaled = channels * width;
  uint32_t rounded = (uint32_t)(scaled + 4.0) / 8 * 8;
  if (rounded < 8) rounded = 8;
  if (rounded < 0.9 * scaled) rounded += 8;
  return rounded;
}

static uint32_t inverted_residual(bench_graph *g, uint32_t x, uint32_t expansion,
                                  uint32_t out_channels, uint32_t stride) {
  uint32_t dims[4];
  bench_graph_shape(g, x, dims);
  uint32_t in_channels = dims[3];
  uint32_t h = x;
  if (expansion != 1) h = bench_layer_conv(g, h, in_channels * expansion, 1, 1, VKNN_FUSED_RELU6);
  h = bench_layer_depthwise(g, h, 3, stride, VKNN_FUSED_RELU6);
  h = bench_layer_conv(g, h, out_channels, 1, 1, VKNN_FUSED_NONE);
  return stride == 1 && in_channels == out_channels ? bench_layer_add(g, x, h) : h;
}

static uint32_t build_v2(bench_graph *g, const synth_options *o) {
  static const struct { uint32_t expansion, channels, repeats, stride; } stages[7] = {
      {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  uint32_t dims[4] = {1, o->input_size, o->input_size, 3};
  uint32_t x = bench_graph_input(g, dims, 4);
  x = bench_layer_conv(g, x, v2_channels(o->width, 32), 3, 2, VKNN_FUSED_RELU6);
  for (int s = 0; s < 7; ++s)
    for (uint32_t i = 0; i < stages[s].repeats; ++i)
      x = inverted_residual(g, x, stages[s].expansion, v2_channels(o->width, stages[s].channels),
                            i == 0 ? stages[s].stride : 1);
  uint32_t last = o->width > 1.0 ? v2_channels(o->width, 1280) : 1280;
  x = bench_layer_conv(g, x, last, 1, 1, VKNN_FUSED_RELU6);
  x = bench_layer_global_average_pool(g, x);
  x = bench_layer_fully_connected(g, x, CLASSES, VKNN_FUSED_NONE);
  return bench_layer_softmax(g, x);
}

static double total_macs(const bench_graph *g) {
  double macs = 0;
  for (uint32_t i = 0; i < g->operation_count; ++i) {
    const bench_graph_operation *op = &g->operations[i];
    int32_t type = op->operation.type;
    if (type == VKNN_OPERATION_CONV_2D || type == VKNN_OPERATION_DEPTHWISE_CONV_2D ||
        type == VKNN_OPERATION_FULLY_CONNECTED)
      macs += bench_layer_macs(g, type, op->indexes[op->operation.input_count], op->indexes[1]);
  }
  return macs;
}

/* ---- timing ---- */

/* Finite probabilities that sum to 1: the random network computed something sane. */
static int check_probabilities(const bench_session *s, double *out_largest) {
  if (bench_session_check_outputs(s) != 0) return -1;
  const float *p = (const float *)s->output_pool.data;
  double sum = 0;
  *out_largest = 0;
  for (size_t i = 0; i < s->output_count; ++i) {
    sum += p[i];
    if (p[i] > *out_largest) *out_largest = p[i];
  }
  if (fabs(sum - 1.0) <= SOFTMAX_SUM_TOLERANCE) return 0;
  fprintf(stderr, "vknn-bench: the softmax output sums to %f, not 1\n", sum);
  return -1;
}

static int execute_once(bench_session *s, bool profile, double *wall, double *gpu,
                        double *dispatch_sum, double *scratch) {
  if (bench_session_execute(s, wall, gpu) != 0) return -1;
  if (!profile) return 0;
  double total;
  if (bench_session_dispatch_ms(s, scratch, &total) != 0) return -1;
  for (uint32_t d = 0; d < s->dispatch_count; ++d) dispatch_sum[d] += scratch[d];
  return 0;
}

static int time_iterations(bench_session *s, const synth_options *o, synth_result *r) {
  size_t n = (size_t)o->iterations;
  double *wall = calloc(n, sizeof(double)), *gpu = calloc(n, sizeof(double));
  double *host = calloc(n, sizeof(double));
  double *scratch = calloc(s->dispatch_count + 1, sizeof(double));
  int rc = wall && gpu && host && scratch && r->dispatch_ms ? 0 : -1;
  for (size_t i = 0; i < n && rc == 0; ++i) {
    rc = execute_once(s, o->profile, &wall[i], &gpu[i], r->dispatch_ms, scratch);
    host[i] = wall[i] - gpu[i];
  }
  if (rc == 0) rc = check_probabilities(s, &r->largest_probability);
  for (uint32_t d = 0; rc == 0 && d < s->dispatch_count; ++d) r->dispatch_ms[d] /= (double)n;
  if (rc == 0) {
    r->wall_median_ms = bench_quantile(wall, n, 0.5);
    r->wall_p90_ms = bench_quantile(wall, n, 0.9);
    r->gpu_median_ms = bench_quantile(gpu, n, 0.5);
    r->gpu_p90_ms = bench_quantile(gpu, n, 0.9);
    r->host_median_ms = bench_quantile(host, n, 0.5);
  }
  free(wall);
  free(gpu);
  free(host);
  free(scratch);
  return rc;
}

static int copy_kernel_names(const bench_session *s, synth_result *r) {
  r->kernels = calloc(s->dispatch_count + 1, sizeof(*r->kernels));
  if (r->kernels == NULL) return -1;
  for (uint32_t d = 0; d < s->dispatch_count; ++d) {
    const char *name = vknn_prepared_model_get_dispatch_kernel(s->prepared, d);
    snprintf(r->kernels[d], sizeof(r->kernels[d]), "%s", name ? name : "?");
  }
  return 0;
}

static int run_synth(vknn_device *device, const synth_options *o, synth_result *r) {
  bench_graph g;
  bench_graph_init(&g, SEED);
  uint32_t output = strcmp(o->model, "mobilenet_v1") == 0 ? build_v1(&g, o) : build_v2(&g, o);
  bench_session s = {0};
  int rc = bench_graph_finish(&g, output, o->relaxed);
  if (rc == 0) r->macs = total_macs(&g);
  if (rc == 0) rc = bench_session_open(&s, device, &g);
  if (rc == 0) {
    r->prepare_ms = s.prepare_ms;
    r->dispatch_count = s.dispatch_count;
    r->operation_count = g.operation_count;
    r->dispatch_ms = calloc(s.dispatch_count + 1, sizeof(double));
    /* Warm-up executions (first-use costs, the GPU's clock), checked. */
    rc = bench_session_warm_up(&s);
    if (rc == 0) rc = check_probabilities(&s, &r->largest_probability);
    if (rc == 0) rc = time_iterations(&s, o, r);
    if (rc == 0) rc = copy_kernel_names(&s, r);
  }
  bench_session_close(&s);
  bench_graph_free(&g);
  return rc;
}

/* ---- report ---- */

static void print_profile(const synth_result *r) {
  double total = 0;
  for (uint32_t d = 0; d < r->dispatch_count; ++d) total += r->dispatch_ms[d];
  printf("GPU time per kernel variant (mean per execution, ms), sum of dispatches %.3f ms:\n", total);
  for (uint32_t d = 0; d < r->dispatch_count; ++d) {
    bool first = true;
    for (uint32_t e = 0; e < d && first; ++e) first = strcmp(r->kernels[e], r->kernels[d]) != 0;
    if (!first) continue;
    double sum = 0;
    uint32_t count = 0;
    for (uint32_t e = d; e < r->dispatch_count; ++e)
      if (strcmp(r->kernels[e], r->kernels[d]) == 0) sum += r->dispatch_ms[e], ++count;
    printf("  %-24s %4u dispatches %9.3f ms %5.1f%%\n", r->kernels[d], count, sum,
           total > 0 ? 100.0 * sum / total : 0.0);
  }
  printf("GPU time per dispatch (mean, ms):\n");
  for (uint32_t d = 0; d < r->dispatch_count; ++d)
    printf("  %3u %-24s %9.3f\n", d, r->kernels[d], r->dispatch_ms[d]);
}

static void print_result(const synth_options *o, const synth_result *r, const char *device) {
  printf("model:     %s width %g, %ux%ux3 input, %s%s\n", o->model, o->width, o->input_size,
         o->input_size, o->relaxed ? "relaxed float32 (float16 allowed)" : "float32",
         o->profile ? ", per-dispatch timestamps" : "");
  printf("device:    %s\n", device);
  printf("graph:     %u operations, %u dispatches, %.1f M multiply-accumulates\n",
         r->operation_count, r->dispatch_count, r->macs * 1e-6);
  printf("outputs:   finite, softmax sums to 1, largest probability %.4f (uniform: %.4f)\n",
         r->largest_probability, 1.0 / CLASSES);
  printf("prepare:   %.2f ms\n", r->prepare_ms);
  printf("execute:   median %.3f ms, p90 %.3f ms (%d iterations)\n", r->wall_median_ms,
         r->wall_p90_ms, o->iterations);
  printf("GPU:       median %.3f ms, p90 %.3f ms (time_on_device), %.2f GFLOP/s\n",
         r->gpu_median_ms, r->gpu_p90_ms, 2.0 * r->macs / (r->gpu_median_ms * 1e6));
  printf("host:      median %.3f ms (execution wall time minus GPU time)\n", r->host_median_ms);
  if (o->profile) print_profile(r);
}

static void add_quantiles(cJSON *root, const char *name, double median, double p90) {
  cJSON *q = cJSON_AddObjectToObject(root, name);
  cJSON_AddNumberToObject(q, "median", median);
  cJSON_AddNumberToObject(q, "p90", p90);
}

static int write_json(const synth_options *o, const synth_result *r, const char *device) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "model", o->model);
  cJSON_AddNumberToObject(root, "width", o->width);
  cJSON_AddNumberToObject(root, "input_size", o->input_size);
  cJSON_AddBoolToObject(root, "relaxed", o->relaxed);
  cJSON_AddStringToObject(root, "device", device);
  cJSON_AddNumberToObject(root, "operations", r->operation_count);
  cJSON_AddNumberToObject(root, "macs", r->macs);
  cJSON_AddNumberToObject(root, "iterations", o->iterations);
  cJSON_AddNumberToObject(root, "largest_probability", r->largest_probability);
  cJSON_AddNumberToObject(root, "prepare_ms", r->prepare_ms);
  add_quantiles(root, "execute_ms", r->wall_median_ms, r->wall_p90_ms);
  add_quantiles(root, "gpu_ms", r->gpu_median_ms, r->gpu_p90_ms);
  cJSON_AddNumberToObject(root, "host_overhead_median_ms", r->host_median_ms);
  cJSON *dispatches = cJSON_AddArrayToObject(root, "dispatches");
  for (uint32_t d = 0; d < r->dispatch_count; ++d) {
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "kernel", r->kernels[d]);
    if (o->profile) cJSON_AddNumberToObject(item, "gpu_ms", r->dispatch_ms[d]);
    cJSON_AddItemToArray(dispatches, item);
  }
  int rc = bench_write_json(root, o->json_path);
  cJSON_Delete(root);
  return rc;
}

/* ---- the verb ---- */

static int parse_value(const char *option, const char *text, synth_options *o) {
  int count;
  if (strcmp(option, "--iterations") == 0) return bench_parse_count(option, text, &o->iterations);
  if (strcmp(option, "--width") == 0) return bench_parse_positive(option, text, &o->width);
  if (strcmp(option, "--json") == 0) {
    o->json_path = text;
    return 0;
  }
  if (strcmp(option, "--input-size") != 0 || bench_parse_count(option, text, &count) != 0) return -1;
  o->input_size = (uint32_t)count;
  return 0;
}

static int parse_args(int argc, char **argv, synth_options *o) {
  *o = (synth_options){.width = 1.0, .input_size = 224, .iterations = 20};
  if (argc < 2) return -1;
  o->model = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "--relaxed") == 0) o->relaxed = true;
    else if (strcmp(argv[i], "--profile") == 0) o->profile = true;
    else if (i + 1 >= argc || parse_value(argv[i], argv[i + 1], o) != 0) return -1;
    else ++i;
  }
  bool known = strcmp(o->model, "mobilenet_v1") == 0 || strcmp(o->model, "mobilenet_v2") == 0;
  /* Five stride-2 stages: the input must halve five times; the width keeps
   * channel counts within what a model may declare. */
  if (!known || o->input_size % 32 != 0 || o->input_size > 2048 || o->width > 4.0) {
    fprintf(stderr, "vknn-bench: synth wants mobilenet_v1 or mobilenet_v2, an input size that "
                    "is a multiple of 32 (up to 2048) and a width up to 4\n");
    return -1;
  }
  return 0;
}

int bench_synth_main(int argc, char **argv) {
  synth_options o;
  if (parse_args(argc, argv, &o) != 0) return 2;
  vknn_device *device = NULL;
  const char *device_name = "";
  if (bench_open_device(o.profile, &device, &device_name) != 0) return 1;
  synth_result r = {0};
  int rc = run_synth(device, &o, &r);
  if (rc == 0) print_result(&o, &r, device_name);
  if (rc == 0 && o.json_path != NULL) rc = write_json(&o, &r, device_name);
  if (bench_check_validation(device) != 0) rc = -1;
  free(r.dispatch_ms);
  free(r.kernels);
  vknn_device_close(device);
  return rc == 0 ? 0 : 1;
}
