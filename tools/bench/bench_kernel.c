/* vknn-bench kernel: one CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED
 * operation, built through the public API with random inputs and weights, at
 * MobileNet v1 shapes by default. Reports the median GPU time (the sum of the
 * operation's dispatches, from per-dispatch timestamps), GFLOP/s (2 * MACs
 * over that time) and the fraction of the device's FMA peak. Reductions
 * (REDUCE_SUM, MEAN) are bound by memory instead: for them it reports the
 * bytes moved (input read + output written, float32), GB/s and the fraction
 * of the device's copy bandwidth. --quant8 runs the convolutions and fully
 * connected layers as QUANT8_ASYMM models (bench_graph_quant.c): GFLOP/s
 * then counts their integer multiply-adds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_kernel_bytes.h"
#include "bench_kernel_lstm.h"
#include "bench_layers.h"
#include "bench_peak.h"
#include "bench_session.h"
#include "bench_verbs.h"

#define SEED 20240601u

typedef struct kernel_spec {
  const char *name;
  int32_t type;
  uint32_t kernel, stride; /* the filter's height and width; 0 for FULLY_CONNECTED */
  const char *default_shape;
  const char *small_shape;
} kernel_spec;

/* Shapes: HxWxC:K (CONV_2D, K filters), HxWxC (DEPTHWISE_CONV_2D), C:K
 * (FULLY_CONNECTED, C inputs, K units); a leading Nx adds a batch. */
static const kernel_spec kernels[] = {
    {"conv1x1", VKNN_OPERATION_CONV_2D, 1, 1, "14x14x512:512", "8x8x16:16"},
    {"conv3x3", VKNN_OPERATION_CONV_2D, 3, 1, "14x14x512:512", "8x8x16:16"},
    {"conv3x3s2", VKNN_OPERATION_CONV_2D, 3, 2, "224x224x3:32", "16x16x3:8"},
    {"dw3x3", VKNN_OPERATION_DEPTHWISE_CONV_2D, 3, 1, "112x112x64", "16x16x8"},
    {"dw3x3s2", VKNN_OPERATION_DEPTHWISE_CONV_2D, 3, 2, "112x112x64", "16x16x8"},
    {"fc", VKNN_OPERATION_FULLY_CONNECTED, 0, 0, "1024:1001", "64:10"},
    /* Reductions: the input's shape; reduce_sum over the last axis, mean_hw
     * over height and width of an NHWC tensor. */
    {"reduce_sum", VKNN_OPERATION_REDUCE_SUM, 0, 0, "1x1024x1024", "4x300"},
    {"mean_hw", VKNN_OPERATION_MEAN, 0, 0, "1x56x56x256", "1x9x9x16"},
    /* AVERAGE_POOL_2D whose window is the whole image (MobileNet v1's last
     * pool by default), NHWC. */
    {"avgpool_global", VKNN_OPERATION_AVERAGE_POOL_2D, 0, 0, "1x7x7x1024", "1x5x5x8"},
};
#define KERNEL_COUNT (sizeof(kernels) / sizeof(kernels[0]))

typedef struct kernel_options {
  const char *name; /* a kernel, or "all" */
  const char *shape; /* NULL: the default */
  int iterations;
  bool relaxed;
  bool quant8; /* convolutions and fully connected layers as QUANT8_ASYMM */
  bool float16; /* every float tensor as TENSOR_FLOAT16 */
  double peak_gflops; /* 0: measure */
  double peak_gbs;    /* copy bandwidth for reductions; 0: measure */
  const char *json_path;
} kernel_options;

typedef struct kernel_shape {
  uint32_t batch;
  uint32_t dims[3]; /* H, W, C (FULLY_CONNECTED: C only) */
  uint32_t out_channels;
  uint32_t rank, tensor[4]; /* reductions: the input's shape */
} kernel_shape;

typedef struct kernel_result {
  const kernel_spec *spec;
  const char *shape;
  double macs, prepare_ms, gpu_median_ms, gpu_p90_ms, wall_median_ms, gflops;
  double bytes, gbs; /* reductions: bytes moved and their rate */
  uint32_t dispatch_count;
  const char *first_kernel;
} kernel_result;

/* Up to max_values 'x'-separated positive integers, then :K when want_k. */
static int parse_numbers(const char *text, uint32_t *values, uint32_t max_values,
                         uint32_t *out_count, bool want_k, uint32_t *out_k) {
  uint32_t count = 0;
  const char *p = text;
  for (;;) {
    char *end = NULL;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p || v == 0 || v > 65536 || count == max_values) return -1;
    values[count++] = (uint32_t)v;
    p = end;
    if (*p != 'x') break;
    ++p;
  }
  *out_count = count;
  if (!want_k) return *p == '\0' ? 0 : -1;
  char *end = NULL;
  unsigned long k = *p == ':' ? strtoul(p + 1, &end, 10) : 0;
  if (k == 0 || k > 65536 || *end != '\0') return -1;
  *out_k = (uint32_t)k;
  return 0;
}

static bool is_reduction(const kernel_spec *spec) {
  return spec->type == VKNN_OPERATION_REDUCE_SUM || spec->type == VKNN_OPERATION_MEAN ||
         spec->type == VKNN_OPERATION_AVERAGE_POOL_2D;
}

/* A reduction's input: up to 4 dimensions (4 for mean_hw and avgpool_global, NHWC). */
static int parse_reduction_shape(const kernel_spec *spec, const char *text, kernel_shape *out) {
  *out = (kernel_shape){.batch = 1};
  uint32_t need = spec->type == VKNN_OPERATION_REDUCE_SUM ? 1 : 4;
  if (parse_numbers(text, out->tensor, 4, &out->rank, false, NULL) != 0 || out->rank < need) {
    fprintf(stderr, "vknn-bench: %s: bad shape '%s' (want %s)\n", spec->name, text,
            need == 4 ? "NxHxWxC" : "up to 4 dimensions, AxBx...");
    return -1;
  }
  return 0;
}

static int parse_shape(const kernel_spec *spec, const char *text, kernel_shape *out) {
  if (is_reduction(spec)) return parse_reduction_shape(spec, text, out);
  uint32_t values[4], count = 0, spatial = spec->type == VKNN_OPERATION_FULLY_CONNECTED ? 1 : 3;
  bool want_k = spec->type != VKNN_OPERATION_DEPTHWISE_CONV_2D;
  *out = (kernel_shape){.batch = 1};
  if (parse_numbers(text, values, spatial + 1, &count, want_k, &out->out_channels) != 0 ||
      count < spatial) {
    fprintf(stderr, "vknn-bench: %s: bad shape '%s' (want %s)\n", spec->name, text,
            spatial == 1 ? "[N x]C:K" : want_k ? "[N x]HxWxC:K" : "[N x]HxWxC");
    return -1;
  }
  if (count > spatial) out->batch = values[0];
  memcpy(out->dims, values + (count - spatial), spatial * sizeof(uint32_t));
  return 0;
}

/* REDUCE_SUM over the last axis, MEAN and the global pool over axes 1 and
 * 2 (H, W). */
static uint32_t build_reduction(bench_graph *g, const kernel_spec *spec, const kernel_shape *s) {
  uint32_t x = bench_graph_input(g, s->tensor, s->rank);
  if (spec->type == VKNN_OPERATION_AVERAGE_POOL_2D) return bench_layer_global_average_pool(g, x);
  static const int32_t hw[2] = {1, 2};
  int32_t last = (int32_t)s->rank - 1;
  if (spec->type == VKNN_OPERATION_MEAN) return bench_layer_reduction(g, x, spec->type, hw, 2);
  return bench_layer_reduction(g, x, spec->type, &last, 1);
}

/* The operation's graph; *out_filter receives its filter (weights) operand. */
static uint32_t build_kernel(bench_graph *g, const kernel_spec *spec, const kernel_shape *s,
                             uint32_t *out_filter) {
  *out_filter = 0;
  if (is_reduction(spec)) return build_reduction(g, spec, s);
  if (spec->type == VKNN_OPERATION_FULLY_CONNECTED) {
    uint32_t dims[2] = {s->batch, s->dims[0]};
    uint32_t y = bench_layer_fully_connected(g, bench_graph_input(g, dims, 2), s->out_channels,
                                             VKNN_FUSED_NONE);
    *out_filter = g->operations[g->operation_count - 1].indexes[1];
    return y;
  }
  uint32_t dims[4] = {s->batch, s->dims[0], s->dims[1], s->dims[2]};
  uint32_t x = bench_graph_input(g, dims, 4);
  uint32_t y = spec->type == VKNN_OPERATION_CONV_2D
                   ? bench_layer_conv(g, x, s->out_channels, spec->kernel, spec->stride,
                                      VKNN_FUSED_RELU6)
                   : bench_layer_depthwise(g, x, spec->kernel, spec->stride, VKNN_FUSED_RELU6);
  *out_filter = g->operations[g->operation_count - 1].indexes[1];
  return y;
}

/* Warm-up executions (checked), then the timed ones. */
static int time_session(bench_session *s, int iterations, kernel_result *r) {
  double gpu_total;
  if (bench_session_warm_up(s) != 0 || bench_session_check_outputs(s) != 0) return -1;
  double *gpu = calloc((size_t)iterations, sizeof(double));
  double *walls = calloc((size_t)iterations, sizeof(double));
  int rc = gpu != NULL && walls != NULL ? 0 : -1;
  for (int i = 0; i < iterations && rc == 0; ++i) {
    rc = bench_session_execute(s, &walls[i], NULL);
    if (rc == 0) rc = bench_session_dispatch_ms(s, NULL, &gpu_total);
    gpu[i] = gpu_total;
  }
  if (rc == 0) rc = bench_session_check_outputs(s);
  r->gpu_median_ms = bench_quantile(gpu, (size_t)iterations, 0.5);
  r->gpu_p90_ms = bench_quantile(gpu, (size_t)iterations, 0.9);
  r->wall_median_ms = bench_quantile(walls, (size_t)iterations, 0.5);
  free(gpu);
  free(walls);
  return rc;
}

static const char *shape_text(const kernel_spec *spec, const kernel_options *opt) {
  if (opt->shape == NULL) return spec->default_shape;
  return strcmp(opt->shape, "small") == 0 ? spec->small_shape : opt->shape;
}

static int run_kernel(vknn_device *device, const kernel_spec *spec, const kernel_options *opt,
                      kernel_result *r) {
  kernel_shape shape;
  r->spec = spec;
  r->shape = shape_text(spec, opt);
  if (parse_shape(spec, r->shape, &shape) != 0) return 2;
  bench_graph g;
  bench_graph_init(&g, SEED);
  uint32_t filter = 0;
  uint32_t output = build_kernel(&g, spec, &shape, &filter);
  bench_session s = {0};
  g.quant8 = opt->quant8;
  g.float16 = opt->float16;
  int rc = bench_graph_finish(&g, output, opt->relaxed);
  if (rc == 0 && !is_reduction(spec)) r->macs = bench_layer_macs(&g, spec->type, output, filter);
  if (rc == 0 && is_reduction(spec))
    r->bytes = 4.0 * (double)(bench_graph_element_count(&g, g.input) + bench_graph_element_count(&g, output));
  if (rc == 0) rc = bench_session_open(&s, device, &g);
  if (rc == 0) {
    r->prepare_ms = s.prepare_ms;
    r->dispatch_count = s.dispatch_count;
    r->first_kernel = vknn_prepared_model_get_dispatch_kernel(s.prepared, 0);
    rc = time_session(&s, opt->iterations, r);
    r->gflops = 2.0 * r->macs / (r->gpu_median_ms * 1e6);
    r->gbs = r->bytes / (r->gpu_median_ms * 1e6);
  }
  bench_session_close(&s);
  bench_graph_free(&g);
  return rc == 0 ? 0 : 1;
}

static void print_reduction_header(void) {
  printf("%-14s %-16s %-12s %4s %9s %11s %11s %11s %9s %8s\n", "kernel", "shape", "dispatch 0",
         "disp", "MB moved", "GPU med ms", "GPU p90 ms", "wall med ms", "GB/s", "of bw");
}

static void print_reduction(const kernel_result *r, double peak_gbs) {
  printf("%-14s %-16s %-12s %4u %9.3f %11.4f %11.4f %11.4f %9.2f %7.1f%%\n", r->spec->name,
         r->shape, r->first_kernel ? r->first_kernel : "-", r->dispatch_count, r->bytes * 1e-6,
         r->gpu_median_ms, r->gpu_p90_ms, r->wall_median_ms, r->gbs, 100.0 * r->gbs / peak_gbs);
}

static void print_result(const kernel_result *r, double peak) {
  printf("%-14s %-16s %-12s %4u %9.3f %11.4f %11.4f %11.4f %9.2f %7.1f%%\n", r->spec->name,
         r->shape, r->first_kernel ? r->first_kernel : "-", r->dispatch_count, r->macs * 1e-6,
         r->gpu_median_ms, r->gpu_p90_ms, r->wall_median_ms, r->gflops,
         100.0 * r->gflops / peak);
}

static cJSON *result_json(const kernel_result *r, double peak) {
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "name", r->spec->name);
  cJSON_AddStringToObject(k, "shape", r->shape);
  cJSON_AddStringToObject(k, "first_dispatch_kernel", r->first_kernel ? r->first_kernel : "");
  cJSON_AddNumberToObject(k, "dispatches", r->dispatch_count);
  cJSON_AddNumberToObject(k, "macs", r->macs);
  cJSON_AddNumberToObject(k, "prepare_ms", r->prepare_ms);
  cJSON *gpu = cJSON_AddObjectToObject(k, "gpu_ms");
  cJSON_AddNumberToObject(gpu, "median", r->gpu_median_ms);
  cJSON_AddNumberToObject(gpu, "p90", r->gpu_p90_ms);
  cJSON_AddNumberToObject(k, "execute_wall_median_ms", r->wall_median_ms);
  cJSON_AddNumberToObject(k, "gflops", r->gflops);
  cJSON_AddNumberToObject(k, "peak_fraction", r->gflops / peak);
  return k;
}

/* A reduction's row: bytes and GB/s in place of MACs and GFLOP/s. */
static cJSON *reduction_json(const kernel_result *r, double peak_gbs) {
  cJSON *k = result_json(r, 1.0);
  cJSON_DeleteItemFromObject(k, "macs");
  cJSON_DeleteItemFromObject(k, "gflops");
  cJSON_DeleteItemFromObject(k, "peak_fraction");
  cJSON_AddNumberToObject(k, "bytes", r->bytes);
  cJSON_AddNumberToObject(k, "gbs", r->gbs);
  cJSON_AddNumberToObject(k, "bandwidth_fraction", r->gbs / peak_gbs);
  return k;
}

static int parse_args(int argc, char **argv, kernel_options *opt) {
  *opt = (kernel_options){.iterations = 20};
  if (argc < 2) return -1;
  opt->name = argv[1];
  for (int i = 2; i < argc; ++i) {
    bool has_value = i + 1 < argc;
    if (strcmp(argv[i], "--relaxed") == 0) opt->relaxed = true;
    else if (strcmp(argv[i], "--quant8") == 0) opt->quant8 = true;
    else if (strcmp(argv[i], "--float16") == 0) opt->float16 = true;
    else if (strcmp(argv[i], "--shape") == 0 && has_value) opt->shape = argv[++i];
    else if (strcmp(argv[i], "--json") == 0 && has_value) opt->json_path = argv[++i];
    else if (strcmp(argv[i], "--iterations") == 0 && has_value) {
      if (bench_parse_count(argv[i], argv[i + 1], &opt->iterations) != 0) return -1;
      ++i;
    } else if (strcmp(argv[i], "--peak-gflops") == 0 && has_value) {
      if (bench_parse_positive(argv[i], argv[i + 1], &opt->peak_gflops) != 0) return -1;
      ++i;
    } else if (strcmp(argv[i], "--peak-gbs") == 0 && has_value) {
      if (bench_parse_positive(argv[i], argv[i + 1], &opt->peak_gbs) != 0) return -1;
      ++i;
    } else return -1;
  }
  return 0;
}

/* The kernels the name selects: one, or every one for "all". */
static int select_kernels(const char *name, const kernel_spec **out, size_t *out_count) {
  *out_count = 0;
  for (size_t i = 0; i < KERNEL_COUNT; ++i)
    if (strcmp(name, "all") == 0 || strcmp(name, kernels[i].name) == 0) out[(*out_count)++] = &kernels[i];
  if (*out_count > 0) return 0;
  fprintf(stderr, "vknn-bench: no kernel '%s'; kernels:", name);
  for (size_t i = 0; i < KERNEL_COUNT; ++i) fprintf(stderr, " %s", kernels[i].name);
  fprintf(stderr, " all\n");
  return -1;
}

/* The convolutions' table, then the reductions' (each headed once). */
static int run_selected(vknn_device *device, const kernel_spec **selected, size_t count,
                        const kernel_options *opt, const double peaks[2], cJSON *list) {
  for (size_t i = 0; i < count; ++i) {
    bool reduction = is_reduction(selected[i]);
    if (i == 0 && !reduction)
      printf("%-14s %-16s %-12s %4s %9s %11s %11s %11s %9s %8s\n", "kernel", "shape", "dispatch 0",
             "disp", "MMACs", "GPU med ms", "GPU p90 ms", "wall med ms", "GFLOP/s", "of peak");
    if (reduction && (i == 0 || !is_reduction(selected[i - 1]))) print_reduction_header();
    kernel_result r = {0};
    int rc = run_kernel(device, selected[i], opt, &r);
    if (rc != 0) return rc;
    if (reduction) print_reduction(&r, peaks[1]);
    else print_result(&r, peaks[0]);
    cJSON_AddItemToArray(list, reduction ? reduction_json(&r, peaks[1]) : result_json(&r, peaks[0]));
  }
  return 0;
}

/* The peaks the selected kernels are compared with: FMA throughput for the
 * convolutions, copy bandwidth for the reductions (measured unless given). */
static int measure_peaks(const kernel_spec **selected, size_t count, const kernel_options *opt,
                         double peaks[2]) {
  bool convolutions = false, reductions = false;
  for (size_t i = 0; i < count; ++i) {
    if (is_reduction(selected[i])) reductions = true;
    else convolutions = true;
  }
  peaks[0] = opt->peak_gflops;
  peaks[1] = opt->peak_gbs;
  if (convolutions && peaks[0] == 0 && bench_peak_fma_gflops(&peaks[0]) != 0) return -1;
  if (reductions && peaks[1] == 0 && bench_peak_bandwidth_gbs(&peaks[1]) != 0) return -1;
  return 0;
}

int bench_kernel_main(int argc, char **argv) {
  /* Memory-bound operations report bytes moved against the copy bandwidth. */
  if (argc >= 2 && bench_kernel_bytes_known(argv[1])) return bench_kernel_bytes_main(argc, argv);
  if (argc >= 2 && bench_kernel_lstm_known(argv[1])) return bench_kernel_lstm_main(argc, argv);
  kernel_options opt;
  const kernel_spec *selected[KERNEL_COUNT];
  size_t count;
  if (parse_args(argc, argv, &opt) != 0) return 2;
  if (select_kernels(opt.name, selected, &count) != 0) return 2;
  for (size_t i = 0; i < count; ++i) {
    kernel_shape shape;
    if (parse_shape(selected[i], shape_text(selected[i], &opt), &shape) != 0) return 2;
  }
  double peaks[2];
  if (measure_peaks(selected, count, &opt, peaks) != 0) return 1;
  double peak = peaks[0];
  vknn_device *device = NULL;
  const char *device_name = "";
  if (bench_open_device(true, &device, &device_name) != 0) return 1;
  printf("device: %s\n", device_name);
  if (peak > 0) printf("fma peak: %.1f GFLOP/s (%s)\n", peak, opt.peak_gflops > 0 ? "given" : "measured");
  if (peaks[1] > 0)
    printf("copy bandwidth: %.1f GB/s (%s; reductions: bytes moved / median GPU time)\n", peaks[1],
           opt.peak_gbs > 0 ? "given" : "measured");
  printf("%s%s, %d iterations, median GPU time = sum of the operation's dispatches\n",
         opt.quant8 ? "quant8 asymm" : opt.float16 ? "float16" : "float32", opt.relaxed ? " relaxed" : "",
         opt.iterations);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "device", device_name);
  if (peak > 0) cJSON_AddNumberToObject(root, "peak_fma_gflops", peak);
  if (peaks[1] > 0) cJSON_AddNumberToObject(root, "peak_bandwidth_gbs", peaks[1]);
  cJSON_AddBoolToObject(root, "relaxed", opt.relaxed);
  cJSON_AddBoolToObject(root, "quant8", opt.quant8);
  cJSON_AddBoolToObject(root, "float16", opt.float16);
  cJSON_AddNumberToObject(root, "iterations", opt.iterations);
  int rc = run_selected(device, selected, count, &opt, peaks, cJSON_AddArrayToObject(root, "kernels"));
  if (rc == 0 && bench_check_validation(device) != 0) rc = 1;
  if (rc == 0 && opt.json_path != NULL && bench_write_json(root, opt.json_path) != 0) rc = 1;
  cJSON_Delete(root);
  vknn_device_close(device);
  return rc;
}
