/* vknn-bench kernel, memory-bound operations (RESIZE_BILINEAR): one
 * operation built through the public API on a random input (fixed seed).
 * Such a kernel is judged by the bytes it must move, every input element
 * read once and every output element written once, over its median GPU
 * time (the sum of its dispatches, from per-dispatch timestamps), against
 * the device's copy bandwidth measured as the peak verb measures it. */
#include "bench_kernel_bytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_layers.h"
#include "bench_peak.h"
#include "bench_session.h"

#define SEED 20240601u

typedef struct bytes_kernel {
  const char *name;
  const char *default_shape, *small_shape; /* [Nx]HxWxC */
  uint32_t (*build)(bench_graph *g, uint32_t x); /* the operation on x; its output */
} bytes_kernel;

static uint32_t resize_bilinear_2x(bench_graph *g, uint32_t x) {
  return bench_layer_resize_bilinear(g, x, 2);
}

static const bytes_kernel kernels[] = {
    {"resize_bilinear_2x", "112x112x32", "16x16x8", resize_bilinear_2x},
};
#define KERNEL_COUNT (sizeof(kernels) / sizeof(kernels[0]))

typedef struct bytes_options {
  const bytes_kernel *kernel;
  const char *shape; /* NULL: the default */
  int iterations;
  double bandwidth_gbs; /* 0: measure */
  const char *json_path;
} bytes_options;

typedef struct bytes_result {
  const char *shape;
  double bytes, prepare_ms, gpu_median_ms, gpu_p90_ms, wall_median_ms, gbs;
  uint32_t dispatch_count;
  const char *first_kernel;
} bytes_result;

static const bytes_kernel *find_kernel(const char *name) {
  for (size_t i = 0; i < KERNEL_COUNT; ++i)
    if (strcmp(kernels[i].name, name) == 0) return &kernels[i];
  return NULL;
}

bool bench_kernel_bytes_known(const char *name) { return find_kernel(name) != NULL; }

/* [N x]H x W x C, each in [1, 65536]. */
static int parse_image_shape(const char *text, uint32_t dims[4]) {
  unsigned v[4];
  int used = 0;
  int count = sscanf(text, "%ux%ux%ux%u%n", &v[0], &v[1], &v[2], &v[3], &used);
  if (count == 4 && text[used] == '\0') {
    memcpy(dims, v, sizeof(v));
  } else if (sscanf(text, "%ux%ux%u%n", &v[0], &v[1], &v[2], &used) == 3 && text[used] == '\0') {
    dims[0] = 1;
    memcpy(dims + 1, v, 3 * sizeof(unsigned));
  } else {
    return -1;
  }
  for (int i = 0; i < 4; ++i)
    if (dims[i] == 0 || dims[i] > 65536) return -1;
  return 0;
}

static int parse_options(int argc, char **argv, bytes_options *opt) {
  *opt = (bytes_options){.kernel = find_kernel(argv[1]), .iterations = 20};
  for (int i = 2; i < argc; ++i) {
    bool has_value = i + 1 < argc;
    if (strcmp(argv[i], "--shape") == 0 && has_value) opt->shape = argv[++i];
    else if (strcmp(argv[i], "--json") == 0 && has_value) opt->json_path = argv[++i];
    else if (strcmp(argv[i], "--iterations") == 0 && has_value) {
      if (bench_parse_count(argv[i], argv[i + 1], &opt->iterations) != 0) return -1;
      ++i;
    } else if (strcmp(argv[i], "--peak-gbs") == 0 && has_value) {
      if (bench_parse_positive(argv[i], argv[i + 1], &opt->bandwidth_gbs) != 0) return -1;
      ++i;
    } else {
      return -1;
    }
  }
  if (opt->shape == NULL) opt->shape = opt->kernel->default_shape;
  else if (strcmp(opt->shape, "small") == 0) opt->shape = opt->kernel->small_shape;
  return 0;
}

/* Checked warm-up executions, the timed ones, a final check. */
static int time_executions(bench_session *s, int iterations, bytes_result *r) {
  double *gpu = calloc((size_t)iterations, sizeof(double));
  double *wall = calloc((size_t)iterations, sizeof(double));
  int rc = gpu && wall && bench_session_warm_up(s) == 0 &&
                   bench_session_check_outputs(s) == 0
               ? 0
               : -1;
  for (int i = 0; rc == 0 && i < iterations; ++i) {
    rc = bench_session_execute(s, &wall[i], NULL);
    if (rc == 0) rc = bench_session_dispatch_ms(s, NULL, &gpu[i]);
  }
  if (rc == 0) rc = bench_session_check_outputs(s);
  if (rc == 0) {
    r->gpu_median_ms = bench_quantile(gpu, (size_t)iterations, 0.5);
    r->gpu_p90_ms = bench_quantile(gpu, (size_t)iterations, 0.9);
    r->wall_median_ms = bench_quantile(wall, (size_t)iterations, 0.5);
  }
  free(gpu);
  free(wall);
  return rc;
}

static int run_bytes_kernel(vknn_device *device, const bytes_options *opt, const uint32_t dims[4],
                            bytes_result *r) {
  bench_graph g;
  bench_graph_init(&g, SEED);
  uint32_t input = bench_graph_input(&g, dims, 4);
  uint32_t output = opt->kernel->build(&g, input);
  bench_session s = {0};
  int rc = bench_graph_finish(&g, output, false);
  if (rc == 0) {
    size_t elements = bench_graph_element_count(&g, input) + bench_graph_element_count(&g, output);
    r->bytes = (double)elements * sizeof(float);
    rc = bench_session_open(&s, device, &g);
  }
  if (rc == 0) {
    r->prepare_ms = s.prepare_ms;
    r->dispatch_count = s.dispatch_count;
    r->first_kernel = vknn_prepared_model_get_dispatch_kernel(s.prepared, 0);
    rc = time_executions(&s, opt->iterations, r);
    r->gbs = r->bytes / (r->gpu_median_ms * 1e6);
  }
  bench_session_close(&s);
  bench_graph_free(&g);
  return rc == 0 ? 0 : 1;
}

static cJSON *bytes_report(const bytes_options *opt, const char *device_name, const bytes_result *r) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "device", device_name);
  cJSON_AddNumberToObject(root, "bandwidth_gbs", opt->bandwidth_gbs);
  cJSON_AddNumberToObject(root, "iterations", opt->iterations);
  cJSON *k = cJSON_CreateObject();
  cJSON_AddStringToObject(k, "name", opt->kernel->name);
  cJSON_AddStringToObject(k, "shape", r->shape);
  cJSON_AddStringToObject(k, "first_dispatch_kernel", r->first_kernel ? r->first_kernel : "");
  cJSON_AddNumberToObject(k, "dispatches", r->dispatch_count);
  cJSON_AddNumberToObject(k, "bytes", r->bytes);
  cJSON_AddNumberToObject(k, "prepare_ms", r->prepare_ms);
  cJSON *gpu = cJSON_AddObjectToObject(k, "gpu_ms");
  cJSON_AddNumberToObject(gpu, "median", r->gpu_median_ms);
  cJSON_AddNumberToObject(gpu, "p90", r->gpu_p90_ms);
  cJSON_AddNumberToObject(k, "execute_wall_median_ms", r->wall_median_ms);
  cJSON_AddNumberToObject(k, "gbs", r->gbs);
  cJSON_AddNumberToObject(k, "bandwidth_fraction", r->gbs / opt->bandwidth_gbs);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "kernels"), k);
  return root;
}

static void print_bytes_result(const bytes_options *opt, const bytes_result *r) {
  printf("%-18s %-14s %-12s %4s %9s %11s %11s %11s %8s %9s\n", "kernel", "shape", "dispatch 0", "disp",
         "MB moved", "GPU med ms", "GPU p90 ms", "wall med ms", "GB/s", "of bw");
  printf("%-18s %-14s %-12s %4u %9.3f %11.4f %11.4f %11.4f %8.2f %8.1f%%\n", opt->kernel->name, r->shape,
         r->first_kernel ? r->first_kernel : "-", r->dispatch_count, r->bytes * 1e-6, r->gpu_median_ms,
         r->gpu_p90_ms, r->wall_median_ms, r->gbs, 100.0 * r->gbs / opt->bandwidth_gbs);
}

int bench_kernel_bytes_main(int argc, char **argv) {
  bytes_options opt;
  uint32_t dims[4];
  if (argc < 2 || find_kernel(argv[1]) == NULL || parse_options(argc, argv, &opt) != 0) return 2;
  if (parse_image_shape(opt.shape, dims) != 0) {
    fprintf(stderr, "vknn-bench: %s: bad shape '%s' (want [N x]HxWxC)\n", opt.kernel->name, opt.shape);
    return 2;
  }
  bool measured = opt.bandwidth_gbs == 0;
  if (measured && bench_peak_bandwidth_gbs(&opt.bandwidth_gbs) != 0) return 1;
  vknn_device *device = NULL;
  const char *device_name = "";
  if (bench_open_device(true, &device, &device_name) != 0) return 1;
  printf("device: %s\ncopy bandwidth: %.1f GB/s (%s)\nfloat32, %d iterations, median GPU time = sum "
         "of the operation's dispatches; bytes = input read once + output written once\n",
         device_name, opt.bandwidth_gbs, measured ? "measured" : "given", opt.iterations);
  bytes_result r = {.shape = opt.shape};
  int rc = run_bytes_kernel(device, &opt, dims, &r);
  if (rc == 0) print_bytes_result(&opt, &r);
  if (rc == 0 && bench_check_validation(device) != 0) rc = 1;
  if (rc == 0 && opt.json_path != NULL) {
    cJSON *root = bytes_report(&opt, device_name, &r);
    if (bench_write_json(root, opt.json_path) != 0) rc = 1;
    cJSON_Delete(root);
  }
  vknn_device_close(device);
  return rc;
}
