/* vknn-bench model: prepare and execution latency of one conformance case;
 * with --profile, the GPU time of each of its dispatches (a timestamp after
 * every dispatch, which costs: latencies measured with it are not the
 * model's). Then the compilation cache: the model prepared again with cache
 * files (the save), and prepared from them on a device opened afresh (the
 * restore: the driver's in-memory pipelines empty), whose outputs are
 * checked too. "Cold" is the first prepare on a fresh device: a cold figure
 * wants the Vulkan driver's own shader cache off (Mesa:
 * MESA_SHADER_CACHE_DISABLE=true).
 *
 *   vknn-bench model PATH.json [--case NAME] [--iterations N] [--json FILE] [--profile]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_verbs.h"
#include "cts_case.h"
#include "cts_compare.h"

typedef struct bench_options {
  const char *path;
  const char *case_name;
  int iterations;
  const char *json_path;
  bool profile;
} bench_options;

typedef struct bench_result {
  double prepare_ms, median_ms, p90_ms;
  /* Compilation cache: prepare with cache files, prepare from them on a
   * fresh device, the files' sizes, the restored model's outputs. */
  double save_ms, restore_ms;
  /* From cache on the device that saved (its pipelines in memory): the
   * driver's own cost of a restore, without the Vulkan driver compiling. */
  double restore_warm_ms;
  uint64_t model_cache_bytes, data_cache_bytes;
  bool restored_outputs_match;
  uint32_t dispatch_count;
  double *dispatch_ms; /* mean over the iterations */
  const char **kernels;
  bool outputs_match;
} bench_result;

static cJSON *load_case(const bench_options *opt, cJSON **root) {
  FILE *f = fopen(opt->path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
  fclose(f);
  if (text == NULL || got != (size_t)size) {
    free(text);
    return NULL;
  }
  text[size] = '\0';
  *root = cJSON_Parse(text);
  free(text);
  cJSON *test;
  cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(*root, "tests")) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(test, "name");
    if (opt->case_name == NULL || (cJSON_IsString(name) && strcmp(name->valuestring, opt->case_name) == 0))
      return test;
  }
  return NULL;
}

static int run(vknn_device *device, cts_case *c, const bench_options *opt, bench_result *r) {
  vknn_prepared_model *pm = NULL;
  double start = bench_now_ms();
  vknn_status s = vknn_device_prepare_model(device, &c->model, VKNN_PREFER_SUSTAINED_SPEED,
                                            VKNN_PRIORITY_MEDIUM, NULL, &pm);
  r->prepare_ms = bench_now_ms() - start;
  if (s != VKNN_STATUS_NONE) {
    fprintf(stderr, "vknn-bench: prepare failed: %s\n", vknn_status_name(s));
    return 1;
  }
  vknn_prepared_model_info info;
  vknn_prepared_model_get_info(pm, &info);
  r->dispatch_count = info.dispatch_count;
  r->dispatch_ms = calloc(info.dispatch_count + 1, sizeof(double));
  r->kernels = calloc(info.dispatch_count + 1, sizeof(char *));
  double *latency = calloc((size_t)opt->iterations, sizeof(double));
  double *times = calloc(info.dispatch_count + 1, sizeof(double));
  for (uint32_t i = 0; i < info.dispatch_count; ++i) r->kernels[i] = vknn_prepared_model_get_dispatch_kernel(pm, i);
  vknn_output_shape shapes[64];
  /* Warm-up executions (first-use costs, the GPU's clock), the first checked
   * against the expected values. */
  s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, shapes, 64, NULL);
  char reason[256];
  r->outputs_match = s == VKNN_STATUS_NONE && cts_compare_outputs(c, shapes, reason, sizeof(reason)) == 0;
  for (start = bench_now_ms(); s == VKNN_STATUS_NONE && bench_now_ms() - start < BENCH_WARM_UP_MS;)
    s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0, NULL);
  for (int it = 0; it < opt->iterations && s == VKNN_STATUS_NONE; ++it) {
    start = bench_now_ms();
    s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, NULL, 0, NULL);
    latency[it] = bench_now_ms() - start;
    if (opt->profile &&
        vknn_prepared_model_get_dispatch_times(pm, times, info.dispatch_count) == VKNN_STATUS_NONE)
      for (uint32_t i = 0; i < info.dispatch_count; ++i) r->dispatch_ms[i] += times[i] / opt->iterations;
  }
  r->median_ms = bench_quantile(latency, (size_t)opt->iterations, 0.5);
  r->p90_ms = bench_quantile(latency, (size_t)opt->iterations, 0.9);
  free(latency);
  free(times);
  vknn_prepared_model_release(pm);
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "vknn-bench: execute failed: %s\n", vknn_status_name(s));
  return s == VKNN_STATUS_NONE ? 0 : 1;
}

typedef struct bench_cache {
  int fds[2];
  vknn_cache_handle handles[2];
  uint8_t token[VKNN_CACHE_TOKEN_SIZE];
  vknn_cache_files files;
} bench_cache;

static int save_cache(vknn_device *device, cts_case *c, bench_cache *k, bench_result *r) {
  for (int i = 0; i < 2; ++i) {
    k->fds[i] = memfd_create(i ? "bench-data-cache" : "bench-model-cache", 0);
    k->handles[i] = (vknn_cache_handle){.fds = &k->fds[i], .fd_count = 1};
  }
  memset(k->token, 0xb5, sizeof(k->token));
  k->files = (vknn_cache_files){&k->handles[0], 1, &k->handles[1], 1, k->token};
  if (k->fds[0] < 0 || k->fds[1] < 0) return 1;
  vknn_prepared_model *pm = NULL;
  double start = bench_now_ms();
  vknn_status s = vknn_device_prepare_model_with_cache(device, &c->model, VKNN_PREFER_SUSTAINED_SPEED,
                                                       VKNN_PRIORITY_MEDIUM, NULL, &k->files, &pm);
  r->save_ms = bench_now_ms() - start;
  vknn_prepared_model_release(pm);
  r->model_cache_bytes = (uint64_t)lseek(k->fds[0], 0, SEEK_END);
  r->data_cache_bytes = (uint64_t)lseek(k->fds[1], 0, SEEK_END);
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "vknn-bench: prepare with cache failed: %s\n", vknn_status_name(s));
  return s != VKNN_STATUS_NONE;
}

/* Prepare from the cache on a device opened now, and one checked execution. */
static int restore_cache(cts_case *c, const bench_cache *k, bench_result *r) {
  vknn_device *device = NULL;
  const char *name = NULL;
  if (bench_open_device(false, &device, &name) != 0) return 1;
  vknn_prepared_model *pm = NULL;
  double start = bench_now_ms();
  vknn_status s = vknn_device_prepare_model_from_cache(device, NULL, &k->files, &pm);
  r->restore_ms = bench_now_ms() - start;
  vknn_output_shape shapes[64];
  if (s == VKNN_STATUS_NONE)
    s = vknn_prepared_model_execute(pm, &c->request, VKNN_MEASURE_TIMING_NO, NULL, NULL, shapes, 64, NULL);
  char reason[256];
  r->restored_outputs_match = s == VKNN_STATUS_NONE && cts_compare_outputs(c, shapes, reason, sizeof(reason)) == 0;
  if (s != VKNN_STATUS_NONE) fprintf(stderr, "vknn-bench: from cache: %s\n", vknn_status_name(s));
  vknn_prepared_model_release(pm);
  int rc = bench_check_validation(device) != 0 || s != VKNN_STATUS_NONE;
  vknn_device_close(device);
  return rc;
}

static int restore_warm(vknn_device *device, const bench_cache *k, bench_result *r) {
  vknn_prepared_model *pm = NULL;
  double start = bench_now_ms();
  vknn_status s = vknn_device_prepare_model_from_cache(device, NULL, &k->files, &pm);
  r->restore_warm_ms = bench_now_ms() - start;
  vknn_prepared_model_release(pm);
  return s != VKNN_STATUS_NONE;
}

static int run_cache(vknn_device *device, cts_case *c, bench_result *r) {
  bench_cache k = {.fds = {-1, -1}};
  int rc = save_cache(device, c, &k, r);
  if (rc == 0) rc = restore_cache(c, &k, r);
  if (rc == 0) rc = restore_warm(device, &k, r);
  for (int i = 0; i < 2; ++i)
    if (k.fds[i] >= 0) close(k.fds[i]);
  return rc;
}

static void print_result(const bench_result *r, const char *name, const char *device_name,
                         const bench_options *opt) {
  printf("case:      %s\ndevice:    %s\n", name, device_name);
  printf("outputs:   %s\n", r->outputs_match ? "match the expected values" : "DO NOT match");
  printf("prepare:   %.2f ms\n", r->prepare_ms);
  printf("execute:   median %.3f ms, p90 %.3f ms (%d iterations%s)\n", r->median_ms, r->p90_ms,
         opt->iterations, opt->profile ? ", per-dispatch timestamps" : "");
  printf("cache:     prepare with cache %.2f ms (model cache %llu bytes, data cache %llu bytes)\n",
         r->save_ms, (unsigned long long)r->model_cache_bytes, (unsigned long long)r->data_cache_bytes);
  printf("           prepare from cache %.2f ms on a fresh device, %.1fx faster than cold; outputs %s\n",
         r->restore_ms, r->prepare_ms / r->restore_ms,
         r->restored_outputs_match ? "match the expected values" : "DO NOT match");
  printf("           prepare from cache %.2f ms on the device that saved (pipelines in memory)\n",
         r->restore_warm_ms);
  if (!opt->profile) return;
  double total = 0;
  for (uint32_t i = 0; i < r->dispatch_count; ++i) total += r->dispatch_ms[i];
  printf("GPU time per dispatch (mean, ms), total %.3f ms:\n", total);
  for (uint32_t i = 0; i < r->dispatch_count; ++i)
    printf("  %3u %-24s %9.3f\n", i, r->kernels[i], r->dispatch_ms[i]);
}

static int write_json(const bench_result *r, const char *path, bool profile) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "prepare_ms", r->prepare_ms);
  cJSON *cache = cJSON_AddObjectToObject(root, "cache");
  cJSON_AddNumberToObject(cache, "prepare_with_cache_ms", r->save_ms);
  cJSON_AddNumberToObject(cache, "prepare_from_cache_ms", r->restore_ms);
  cJSON_AddNumberToObject(cache, "cold_over_from_cache", r->prepare_ms / r->restore_ms);
  cJSON_AddNumberToObject(cache, "prepare_from_cache_same_device_ms", r->restore_warm_ms);
  cJSON_AddNumberToObject(cache, "model_cache_bytes", (double)r->model_cache_bytes);
  cJSON_AddNumberToObject(cache, "data_cache_bytes", (double)r->data_cache_bytes);
  cJSON_AddBoolToObject(cache, "outputs_match", r->restored_outputs_match);
  cJSON *execute = cJSON_AddObjectToObject(root, "execute_ms");
  cJSON_AddNumberToObject(execute, "median", r->median_ms);
  cJSON_AddNumberToObject(execute, "p90", r->p90_ms);
  cJSON_AddBoolToObject(root, "profiled", profile);
  cJSON *dispatches = cJSON_AddArrayToObject(root, "dispatches");
  for (uint32_t i = 0; i < r->dispatch_count; ++i) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "index", i);
    cJSON_AddStringToObject(d, "kernel", r->kernels[i]);
    if (profile) cJSON_AddNumberToObject(d, "gpu_ms", r->dispatch_ms[i]);
    cJSON_AddItemToArray(dispatches, d);
  }
  int rc = bench_write_json(root, path);
  cJSON_Delete(root);
  return rc;
}

static int parse_args(int argc, char **argv, bench_options *opt) {
  *opt = (bench_options){.iterations = 20};
  if (argc < 2) return -1;
  opt->path = argv[1];
  for (int i = 2; i < argc; i += 2) {
    if (strcmp(argv[i], "--profile") == 0) {
      opt->profile = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) return -1;
    if (strcmp(argv[i], "--case") == 0) opt->case_name = argv[i + 1];
    else if (strcmp(argv[i], "--iterations") == 0) {
      if (bench_parse_count(argv[i], argv[i + 1], &opt->iterations) != 0) return -1;
    } else if (strcmp(argv[i], "--json") == 0) opt->json_path = argv[i + 1];
    else return -1;
  }
  return 0;
}

int bench_model_main(int argc, char **argv) {
  bench_options opt;
  if (parse_args(argc, argv, &opt) != 0) return 2;
  cJSON *root = NULL;
  cJSON *test = load_case(&opt, &root);
  cts_case c;
  const char *error = "no such case";
  if (test == NULL || cts_case_load(test, &c, &error) != 0) {
    fprintf(stderr, "vknn-bench: %s: %s\n", opt.path, error);
    cJSON_Delete(root);
    return 1;
  }
  vknn_device *device = NULL;
  const char *device_name = "";
  if (bench_open_device(opt.profile, &device, &device_name) != 0) {
    cts_case_free(&c);
    cJSON_Delete(root);
    return 1;
  }
  bench_result r = {0};
  int rc = run(device, &c, &opt, &r);
  if (rc == 0) rc = run_cache(device, &c, &r);
  if (rc == 0) print_result(&r, c.name, device_name, &opt);
  if (rc == 0 && opt.json_path) rc = write_json(&r, opt.json_path, opt.profile) != 0;
  if (bench_check_validation(device) != 0) rc = 1;
  free(r.dispatch_ms);
  free(r.kernels);
  vknn_device_close(device);
  cts_case_free(&c);
  cJSON_Delete(root);
  return rc;
}
