/* vknn-bench capabilities: the figures of getCapabilities measured. A fixed
 * reference workload per operand type (and IF, WHILE) is timed on the device
 * through the driver and in plain single-threaded C on the host
 * (capabilities_host.c); each figure is device time / host time, the HAL's
 * sense (lower is better, 1.0: as fast as the CPU reference).
 *
 *   vknn-bench capabilities [--rounds N] [--json FILE]
 *
 * Workloads: a 3x3 CONV_2D (28x28x64 -> 64, SAME, RELU6) in float32, relaxed
 * float32 and QUANT8_ASYMM; ADD of two TENSOR_INT32 [262144]; LOGICAL_AND of
 * two TENSOR_BOOL8 [262144]; the float32 convolution as the branch of an IF
 * and as the body of a WHILE of CAPABILITIES_LOOP iterations. Device times are
 * the wall time of an execution as an application sees it; device and host
 * runs alternate, and each figure is the median over the rounds, so that
 * both see the same load. Results are checked against the host's.
 * docs/capabilities.md records the figures and where they are stored. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_layers.h"
#include "bench_session.h"
#include "bench_verbs.h"
#include "capabilities_control.h"
#include "capabilities_host.h"
#include "capabilities_workloads.h"

#define SEED 20241124u

static const host_conv kConv = {28, 28, 64, 64};

typedef struct cap_options {
  int rounds;
  const char *json_path;
} cap_options;

/* The convolution's graph, finished: float32 (relaxed or not) or quant8. */
static int build_conv(bench_graph *g, bool relaxed, bool quant8) {
  bench_graph_init(g, SEED);
  uint32_t dims[4] = {1, kConv.h, kConv.w, kConv.c};
  uint32_t y = bench_layer_conv(g, bench_graph_input(g, dims, 4), kConv.k, 3, 1, VKNN_FUSED_RELU6);
  g->quant8 = quant8;
  return bench_graph_finish(g, y, relaxed);
}

static const void *operand_bytes(const bench_graph *g, uint32_t operand) {
  return g->pool.data + g->operands[operand].operand.location.offset;
}

/* The host's part of a convolution workload: `repeat` convolutions one after
 * the other (the WHILE's iterations), from the session's input. */
static void host_conv_run(const bench_graph *g, const bench_session *s, int repeat, void *out,
                          void *scratch) {
  const uint32_t *in = g->operations[0].indexes;
  if (g->quant8) {
    const vknn_operand *x = &g->operands[in[0]].operand, *f = &g->operands[in[1]].operand;
    const vknn_operand *y = &g->operands[g->output].operand;
    host_quant q = {x->zero_point, f->zero_point, y->zero_point, x->scale * f->scale / y->scale,
                    y->zero_point, y->zero_point + (int32_t)lrintf(6.f / y->scale)};
    if (q.high > 255) q.high = 255;
    host_conv_q8(&kConv, &q, s->input_pool.data, operand_bytes(g, in[1]), operand_bytes(g, in[2]),
                 out);
    return;
  }
  const float *x = (const float *)s->input_pool.data;
  for (int r = 0; r < repeat; ++r) {
    float *y = (r % 2 == repeat % 2) ? scratch : out; /* the last lands in out */
    host_conv_f32(&kConv, x, operand_bytes(g, in[1]), operand_bytes(g, in[2]), y);
    x = y;
  }
}

/* Largest difference between the device's output and the host's. */
static double max_difference(const bench_session *s, const void *host, bool quant8) {
  double worst = 0;
  for (size_t i = 0; i < s->output_count; ++i) {
    double d = quant8 ? fabs((double)s->output_pool.data[i] - ((const uint8_t *)host)[i])
                      : fabs((double)((const float *)s->output_pool.data)[i] - ((const float *)host)[i]);
    if (d > worst) worst = d;
  }
  return worst;
}

/* Alternating rounds of one device execution and one host computation. */
static int time_conv(bench_session *s, const bench_graph *g, int repeat, const cap_options *o,
                     cap_figure *f) {
  size_t bytes = s->output_count * sizeof(float);
  void *host = malloc(bytes), *scratch = malloc(bytes);
  double *device_ms = calloc((size_t)o->rounds, sizeof(double));
  double *host_ms = calloc((size_t)o->rounds, sizeof(double));
  int rc = host && scratch && device_ms && host_ms ? bench_session_execute(s, &device_ms[0], NULL) : -1;
  for (int r = 0; r < o->rounds && rc == 0; ++r) {
    rc = bench_session_execute(s, &device_ms[r], NULL);
    double start = bench_now_ms();
    host_conv_run(g, s, repeat, host, scratch);
    host_ms[r] = bench_now_ms() - start;
  }
  if (rc == 0) cap_figure_set(f, device_ms, host_ms, o->rounds, max_difference(s, host, g->quant8));
  free(host);
  free(scratch);
  free(device_ms);
  free(host_ms);
  return rc;
}

/* A convolution workload: plain (control NULL), or wrapped in IF or WHILE. */
static int measure_conv(vknn_device *device, const cap_options *o, bool relaxed, bool quant8,
                        int (*control)(control_model *, const bench_graph *), cap_figure *f) {
  bench_graph g;
  control_model c = {0};
  bench_session s = {0};
  int rc = build_conv(&g, relaxed, quant8);
  if (rc == 0 && control != NULL) rc = control(&c, &g);
  if (rc == 0 && control != NULL) g.model = c.model; /* the session prepares g.model */
  if (rc == 0) rc = bench_session_open(&s, device, &g);
  int repeat = control == control_model_while ? CAPABILITIES_LOOP : 1;
  if (rc == 0) rc = time_conv(&s, &g, repeat, o, f);
  bench_session_close(&s);
  control_model_free(&c);
  bench_graph_free(&g);
  return rc;
}

static int measure_all(vknn_device *device, const cap_options *o, cap_figure *f) {
  int rc = measure_conv(device, o, false, false, NULL, &f[CAP_FLOAT32]);
  if (rc == 0) rc = measure_conv(device, o, true, false, NULL, &f[CAP_RELAXED]);
  if (rc == 0) rc = measure_conv(device, o, false, true, NULL, &f[CAP_QUANT8]);
  if (rc == 0) rc = measure_conv(device, o, false, false, control_model_if, &f[CAP_IF]);
  if (rc == 0) rc = measure_conv(device, o, false, false, control_model_while, &f[CAP_WHILE]);
  if (rc == 0) rc = cap_measure_elementwise(device, o->rounds, CAP_INT32, &f[CAP_INT32]);
  if (rc == 0) rc = cap_measure_elementwise(device, o->rounds, CAP_BOOL8, &f[CAP_BOOL8]);
  return rc;
}

static int parse_args(int argc, char **argv, cap_options *o) {
  *o = (cap_options){.rounds = 9};
  if (argc % 2 != 1) return -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--rounds") == 0) {
      if (bench_parse_count(argv[i], argv[i + 1], &o->rounds) != 0) return -1;
    } else if (strcmp(argv[i], "--json") == 0) {
      o->json_path = argv[i + 1];
    } else {
      return -1;
    }
  }
  return 0;
}

int bench_capabilities_main(int argc, char **argv) {
  cap_options o;
  if (parse_args(argc, argv, &o) != 0) return 2;
  vknn_device *device = NULL;
  const char *name = "";
  if (bench_open_device(false, &device, &name) != 0) return 1;
  cap_figure figures[CAP_COUNT] = {0};
  int rc = measure_all(device, &o, figures);
  if (rc == 0) rc = cap_check(figures);
  if (rc == 0) cap_print(device, name, figures, o.rounds);
  if (rc == 0 && o.json_path != NULL) rc = cap_write_json(figures, o.json_path);
  if (bench_check_validation(device) != 0) rc = -1;
  vknn_device_close(device);
  return rc == 0 ? 0 : 1;
}
