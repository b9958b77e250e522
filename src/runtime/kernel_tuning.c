/* Kernel tuning (kernel_tuning.h): each float convolution and pooling of
 * the model is copied into a model of its own (its input a model input of
 * the inferred shape, its weights and parameters constants), compiled once
 * per variant of the kernel target that the device options leave open, and
 * each distinct lowering is prepared and timed on the device (zeros in, the
 * fastest of a few executions' device time); the variant kept is then
 * timed with filter loads shared or not, on a device that says no width at
 * assumed widths, and with global poolings as reductions or not, the same
 * way. Last, the whole model is timed with its temporaries in the packed
 * layout and without, where they can be packed. */
#include "runtime/kernel_tuning.h"

#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compiler/model_copy.h"
#include "model/operand_type.h"
#include "runtime/device_internal.h"
#include "runtime/prepared_model_internal.h"
#include "runtime/tuning_table.h"
#include "util/fault_injection.h"
#include "vknn/prepared_model.h"

#define TAG "tuning"
/* Timed executions per variant (after one that warms up); the fastest counts. */
#define TUNING_RUNS 3
/* Another variant replaces the device's own only when this much faster, so
 * that noise does not move a layer off the rule it would have had. */
#define TUNING_MARGIN 0.95
#define SIGNATURE_BYTES 1024u
#define MAX_VARIANTS 24u

typedef struct signature {
  uint8_t bytes[SIGNATURE_BYTES];
  uint32_t size;
  bool overflow;
} signature;

bool vknn_kernel_tuning_wanted(const vknn_device *device, vknn_execution_preference preference) {
  /* Measuring reads the device's timestamps. */
  if (device->vk.timestamp_valid_bits == 0) return false;
  switch (device->vk.kernel_tuning) {
    case VKNN_KERNEL_TUNING_ON: return true;
    case VKNN_KERNEL_TUNING_OFF: return false;
    default:
      return preference == VKNN_PREFER_SUSTAINED_SPEED && !vknn_vk_kernel_rules_measured(&device->vk);
  }
}

/* ---- which operations, and each one as a model of its own ------------------- */

/* The operations whose lowering the variants change: the convolutions and
 * matrix products, and the poolings (a whole image's as a reduction). */
static bool tuned_family(int32_t type) {
  return type == VKNN_OPERATION_CONV_2D || type == VKNN_OPERATION_DEPTHWISE_CONV_2D ||
         type == VKNN_OPERATION_GROUPED_CONV_2D || type == VKNN_OPERATION_TRANSPOSE_CONV_2D ||
         type == VKNN_OPERATION_FULLY_CONNECTED || type == VKNN_OPERATION_AVERAGE_POOL_2D ||
         type == VKNN_OPERATION_MAX_POOL_2D || type == VKNN_OPERATION_L2_POOL_2D;
}

static bool is_constant(vknn_operand_lifetime lifetime) {
  return lifetime == VKNN_LIFETIME_CONSTANT_COPY || lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE;
}

/* A float convolution or pooling whose tensors all have known shapes and
 * whose parameters are constants (the layer model takes only its tensors as
 * inputs). */
static bool tunable(const vknn_graph *graph, uint32_t k) {
  const vknn_operation *op = &graph->sg->operations[k];
  if (!tuned_family(op->type) || graph->fusion[k].fused_away || op->output_count != 1 ||
      !vknn_is_float_tensor(graph->tensors[op->inputs[0]].type) ||
      !graph->tensors[op->outputs[0]].shape_known)
    return false;
  for (uint32_t n = 0; n < op->input_count; ++n) {
    const vknn_operand *o = &graph->sg->operands[op->inputs[n]];
    const vknn_tensor *t = &graph->tensors[op->inputs[n]];
    if (o->lifetime == VKNN_LIFETIME_NO_VALUE) continue;
    bool scalar = vknn_operand_type_is_scalar(o->type);
    if (scalar ? !is_constant(o->lifetime) || t->constant_data == NULL : !t->shape_known) return false;
    if (is_constant(o->lifetime) && t->constant_data == NULL) return false;
  }
  return true;
}

/* The operation alone: operands in the order the operation names them. */
typedef struct layer_model {
  vknn_model_copy copy;
  uint64_t input_bytes[8], output_bytes; /* per model input, and the output */
  uint32_t input_count;
} layer_model;

static vknn_operand layer_operand(const vknn_graph *graph, uint32_t i, uint32_t *dims) {
  const vknn_tensor *t = &graph->tensors[i];
  vknn_operand o = graph->sg->operands[i];
  memcpy(dims, t->dims, t->rank * sizeof(uint32_t));
  o.dimension_count = t->rank;
  o.dimensions = dims;
  return o;
}

/* Operand n of the layer (operation input n, or the output for n ==
 * input_count): a model input, constant (copied), omitted, or the output. */
static bool add_layer_operand(const vknn_graph *graph, layer_model *lm, uint32_t i, bool output,
                              vknn_operand *operands, uint32_t n, uint8_t *values, size_t *values_size,
                              uint32_t *io) {
  uint32_t *dims = vknn_model_copy_own(&lm->copy, VKNN_MAX_RANK * sizeof(uint32_t));
  if (dims == NULL) return false;
  vknn_operand o = layer_operand(graph, i, dims);
  o.number_of_consumers = output ? 0 : 1;
  if (output) {
    o.lifetime = VKNN_LIFETIME_SUBGRAPH_OUTPUT;
    lm->output_bytes = vknn_tensor_byte_size(&graph->tensors[i]);
  } else if (is_constant(o.lifetime)) {
    uint32_t length = graph->sg->operands[i].location.length;
    memcpy(values + *values_size, graph->tensors[i].constant_data, length);
    o.lifetime = VKNN_LIFETIME_CONSTANT_COPY;
    o.location = (vknn_data_location){0, (uint32_t)*values_size, length};
    *values_size += vknn_model_copy_value_slot(length);
  } else if (o.lifetime != VKNN_LIFETIME_NO_VALUE) {
    if (lm->input_count == sizeof(lm->input_bytes) / sizeof(lm->input_bytes[0])) return false;
    o.lifetime = VKNN_LIFETIME_SUBGRAPH_INPUT;
    o.location = (vknn_data_location){0, 0, 0};
    io[lm->input_count] = n;
    lm->input_bytes[lm->input_count++] = vknn_tensor_byte_size(&graph->tensors[i]);
  }
  operands[n] = o;
  return true;
}

static size_t constant_bytes(const vknn_graph *graph, const vknn_operation *op) {
  size_t size = 0;
  for (uint32_t n = 0; n < op->input_count; ++n)
    if (is_constant(graph->sg->operands[op->inputs[n]].lifetime))
      size += vknn_model_copy_value_slot(graph->sg->operands[op->inputs[n]].location.length);
  return size;
}

static bool make_layer_model(const vknn_graph *graph, uint32_t k, layer_model *lm) {
  memset(lm, 0, sizeof(*lm));
  const vknn_operation *op = &graph->sg->operations[k];
  uint32_t count = op->input_count + 1;
  vknn_operand *operands = vknn_model_copy_own(&lm->copy, count * sizeof(vknn_operand));
  uint32_t *indexes = vknn_model_copy_own(&lm->copy, (2 * count + 1) * sizeof(uint32_t));
  /* Constant locations are 32-bit offsets into the layer's values. */
  size_t values_bytes = constant_bytes(graph, op);
  if (values_bytes > UINT32_MAX) return false;
  uint8_t *values = vknn_model_copy_own(&lm->copy, values_bytes);
  vknn_operation *layer_op = vknn_model_copy_own(&lm->copy, sizeof(vknn_operation));
  if (operands == NULL || indexes == NULL || values == NULL || layer_op == NULL) return false;
  uint32_t *inputs = indexes, *io = indexes + op->input_count + 1;
  size_t values_size = 0;
  for (uint32_t n = 0; n < op->input_count; ++n) {
    inputs[n] = n;
    if (!add_layer_operand(graph, lm, op->inputs[n], false, operands, n, values, &values_size, io)) return false;
  }
  uint32_t out = op->input_count;
  inputs[out] = out;
  if (!add_layer_operand(graph, lm, op->outputs[0], true, operands, out, values, &values_size, io)) return false;
  io[lm->input_count] = out;
  *layer_op = (vknn_operation){op->type, inputs, op->input_count, inputs + out, 1};
  vknn_model *m = &lm->copy.model;
  m->main = (vknn_subgraph){operands, count, layer_op, 1, io, lm->input_count, io + lm->input_count, 1};
  m->operand_values = values;
  m->operand_values_size = values_size;
  return true;
}

/* ---- signatures ------------------------------------------------------------- */

/* Past SIGNATURE_BYTES the signature is marked overflowed and takes
 * nothing more: an overflowed signature matches none. */
static void put(signature *s, const void *bytes, uint32_t size) {
  if (s->overflow || s->size + size > SIGNATURE_BYTES) {
    s->overflow = true;
    return;
  }
  memcpy(s->bytes + s->size, bytes, size);
  s->size += size;
}

static void put_u32(signature *s, uint32_t v) { put(s, &v, sizeof(v)); }

/* What decides the layer's lowering: the operation, each operand's type,
 * role and shape, and the parameters' values (constant tensors count by
 * their constness only: their values change no kernel). */
static void layer_signature(const vknn_model *m, signature *s) {
  memset(s, 0, sizeof(*s));
  const vknn_subgraph *sg = &m->main;
  put_u32(s, (uint32_t)sg->operations[0].type);
  for (uint32_t n = 0; n < sg->operand_count; ++n) {
    const vknn_operand *o = &sg->operands[n];
    put_u32(s, (uint32_t)o->type);
    put_u32(s, (uint32_t)o->lifetime);
    put_u32(s, o->dimension_count);
    put(s, o->dimensions, o->dimension_count * sizeof(uint32_t));
    if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY && vknn_operand_type_is_scalar(o->type))
      put(s, m->operand_values + o->location.offset, o->location.length);
  }
}

/* What a variant's lowering runs: the kernels, their constants and sizes,
 * and how they read (texel formats). Two variants alike run alike. */
static void plan_signature(const vknn_plan *plan, signature *s) {
  memset(s, 0, sizeof(*s));
  for (uint32_t d = 0; d < plan->dispatches.count; ++d) {
    const vknn_dispatch *x = &plan->dispatches.items[d];
    put_u32(s, (uint32_t)x->shader);
    put_u32(s, x->local_size);
    put(s, x->spec, x->spec_count * sizeof(x->spec[0]));
    for (uint32_t b = 0; b < x->binding_count; ++b) put_u32(s, (uint32_t)x->bindings[b].texel);
  }
}

/* ---- variants --------------------------------------------------------------- */

/* The widths (invocations in flight) a layer is tried at on a device that
 * says none, after its other choices are measured: about a phone GPU's and
 * a desktop GPU's. Against a width the kernels split long reductions and
 * shorten depthwise rows (conv2d_select.c), as they do by rule on a device
 * that says its width; where neither width changes a layer's lowering,
 * nothing more is prepared or timed. */
static const uint32_t kTriedWidths[VKNN_TUNING_WIDTHS] = {1u << 14, 1u << 17};

typedef struct variant {
  bool texel_reads;
  vknn_winograd winograd;
  bool float16_arithmetic;
  bool gemm_shared_tiles;
  bool subgroup_filter;
  uint8_t width; /* 0: the device's own; w: kTriedWidths[w - 1] */
  bool global_pool_reduction;
} variant;

static variant variant_of(const vknn_kernel_target *k) {
  return (variant){k->texel_reads,     k->winograd, k->float16_arithmetic, k->gemm_shared_tiles,
                   k->subgroup_filter, 0,           k->global_pool_reduction};
}

static vknn_kernel_target with_variant(vknn_kernel_target k, variant v) {
  k.texel_reads = v.texel_reads;
  k.winograd = v.winograd;
  k.float16_arithmetic = v.float16_arithmetic;
  k.gemm_shared_tiles = v.gemm_shared_tiles;
  k.subgroup_filter = v.subgroup_filter;
  k.global_pool_reduction = v.global_pool_reduction;
  if (v.width != 0) k.parallel_invocations = kTriedWidths[v.width - 1];
  return k;
}

static variant entry_variant(const vknn_tuning_entry *e) {
  return (variant){e->texel_reads,       e->winograd,        e->float16_arithmetic,
                   e->gemm_shared_tiles, e->subgroup_filter, e->width,
                   e->global_pool_reduction};
}

/* Whether layers are tried with filter loads shared and not: the device
 * can share them and the option leaves it to AUTO. */
static bool shared_loads_open(const vknn_device *device) {
  return device->vk.subgroup_filter_possible && device->vk.subgroup_filter_option == VKNN_SUBGROUP_FILTER_AUTO;
}

/* Whether layers are tried at kTriedWidths: the device says no width. */
static bool widths_open(const vknn_device *device) { return device->vk.parallel_invocations == 0; }

/* Whether global poolings are tried as reductions: the option is AUTO. */
static bool pool_reductions_open(const vknn_device *device) {
  return device->vk.global_pool_reduction_option == VKNN_GLOBAL_POOL_REDUCTION_AUTO;
}

/* Whether the whole model is timed packed and not: the option is AUTO. */
static bool packed_layout_open(const vknn_device *device) {
  return device->vk.packed_layout_option == VKNN_PACKED_LAYOUT_AUTO;
}

uint32_t vknn_kernel_tuning_context(const vknn_device *device) {
  const vknn_vk *vk = &device->vk;
  return (uint32_t)vk->operand_reads_option | (uint32_t)vk->winograd_option << 8 |
         (uint32_t)vk->float16_arithmetic_option << 16 | (uint32_t)vk->texel_reads_possible << 24 |
         (uint32_t)vk->subgroup_filter << 25 | (uint32_t)vk->gemm_shared_tiles_option << 26 |
         (uint32_t)widths_open(device) << 28 | (uint32_t)shared_loads_open(device) << 29 |
         (uint32_t)pool_reductions_open(device) << 30 | (uint32_t)packed_layout_open(device) << 31;
}

/* The device's own variant first, then what the options leave to AUTO:
 * storage or texel reads, no Winograd or either tile, float32 or float16
 * arithmetic (float16 tensors), register blocks or shared-memory tiles
 * (layers of other kinds lower alike either way, and are prepared once). */
static uint32_t list_variants(const vknn_device *device, const vknn_kernel_target *base, bool float16,
                              variant *out) {
  const vknn_vk *vk = &device->vk;
  bool reads_open = vk->operand_reads_option == VKNN_OPERAND_READS_AUTO && vk->texel_reads_possible;
  bool winograd_open = vk->winograd_option == VKNN_WINOGRAD_AUTO;
  bool f16_open = float16 && vk->float16_arithmetic_option == VKNN_FLOAT16_ARITHMETIC_AUTO &&
                  vknn_vk_has_shader(vk, VKNN_SHADER_CONV2D_GEMM_F16_ARITH);
  bool tiles_open = vk->gemm_shared_tiles_option == VKNN_GEMM_SHARED_TILES_AUTO;
  static const vknn_winograd tiles[3] = {VKNN_WINOGRAD_OFF, VKNN_WINOGRAD_F2X3, VKNN_WINOGRAD_F4X3};
  uint32_t count = 0;
  out[count++] = variant_of(base);
  for (int r = 0; r < (reads_open ? 2 : 1); ++r)
    for (int w = 0; w < (winograd_open ? 3 : 1); ++w)
      for (int h = 0; h < (f16_open ? 2 : 1); ++h)
        for (int s = 0; s < (tiles_open ? 2 : 1); ++s)
          out[count++] = (variant){reads_open ? r == 1 : base->texel_reads,
                                   winograd_open ? tiles[w] : base->winograd,
                                   f16_open ? h == 1 : base->float16_arithmetic,
                                   tiles_open ? s == 1 : base->gemm_shared_tiles, base->subgroup_filter, 0,
                                   base->global_pool_reduction};
  return count;
}

/* The dimensions tried one at a time after the others, each on the variant
 * kept so far (rather than multiplying the candidates): filter loads shared
 * or not, then the widths (a split reduction shares no loads), then global
 * poolings as reductions or not (which change pooling layers only, where
 * the others change convolutions only). */
typedef enum stage { STAGE_SHARED_LOADS, STAGE_WIDTHS, STAGE_POOL_REDUCTION, STAGE_COUNT } stage;

static bool stage_open(const vknn_device *device, stage st) {
  switch (st) {
    case STAGE_SHARED_LOADS: return shared_loads_open(device);
    case STAGE_WIDTHS: return widths_open(device);
    default: return pool_reductions_open(device);
  }
}

/* The variant kept so far, then the same with the stage's dimension changed. */
static uint32_t list_stage_variants(stage st, variant best, variant *out) {
  uint32_t count = 0;
  out[count++] = best;
  if (st == STAGE_SHARED_LOADS) {
    out[count] = best;
    out[count++].subgroup_filter = !best.subgroup_filter;
    return count;
  }
  if (st == STAGE_POOL_REDUCTION) {
    out[count] = best;
    out[count++].global_pool_reduction = !best.global_pool_reduction;
    return count;
  }
  for (uint8_t w = 1; w <= VKNN_TUNING_WIDTHS; ++w) {
    out[count] = best;
    out[count++].width = w;
  }
  return count;
}

/* ---- measuring ---------------------------------------------------------------- */

/* Zeroed shared memory holding every input and output, one after another. */
typedef struct request_pool {
  int fd;
  uint64_t size;
  vknn_request_argument *args; /* the inputs, then the outputs */
  uint32_t inputs, outputs;
} request_pool;

static uint64_t aligned(uint64_t v) { return (v + 255u) & ~(uint64_t)255; }

/* bytes: the inputs' sizes, then the outputs'. */
static bool open_pool(const uint64_t *bytes, uint32_t inputs, uint32_t outputs, request_pool *pool) {
  *pool = (request_pool){-1, 0, vknn_calloc(inputs + outputs, sizeof(vknn_request_argument)), inputs, outputs};
  if (pool->args == NULL) return false;
  uint64_t offset = 0;
  for (uint32_t i = 0; i < inputs + outputs; ++i) {
    if (offset + bytes[i] > UINT32_MAX) {
      offset = UINT64_MAX; /* past what a request location holds */
      break;
    }
    pool->args[i] = (vknn_request_argument){.location = {0, (uint32_t)offset, (uint32_t)bytes[i]}};
    offset = aligned(offset + bytes[i]);
  }
  pool->size = offset;
  if (offset <= UINT32_MAX) pool->fd = memfd_create("vknn-tuning", MFD_CLOEXEC);
  if (pool->fd >= 0 && ftruncate(pool->fd, (off_t)pool->size) == 0) return true;
  if (pool->fd >= 0) close(pool->fd);
  free(pool->args);
  return false;
}

static void close_pool(request_pool *pool) {
  close(pool->fd);
  free(pool->args);
}

/* The layer model's inputs and output. */
static bool open_layer_pool(const layer_model *lm, request_pool *pool) {
  uint64_t bytes[9];
  memcpy(bytes, lm->input_bytes, lm->input_count * sizeof(uint64_t));
  bytes[lm->input_count] = lm->output_bytes;
  return open_pool(bytes, lm->input_count, 1, pool);
}

/* One distinct lowering of the layer, prepared. */
typedef struct candidate {
  uint32_t variant;
  vknn_prepared_model *pm;
  const char *kernel; /* its first dispatch's */
  uint32_t dispatches;
  uint64_t best_us;   /* fastest device time so far; UINT64_MAX: none */
} candidate;

/* The variants compiled, those lowering alike kept once (out[], their
 * plans in plans[]): the number of distinct lowerings. */
static uint32_t compile_candidates(vknn_device *device, const vknn_plan_target *target, const layer_model *lm,
                                   const variant *variants, uint32_t count, candidate *out, vknn_plan *plans) {
  signature *seen = vknn_calloc(count, sizeof(signature));
  if (seen == NULL) return 0;
  uint32_t n = 0;
  for (uint32_t v = 0; v < count; ++v) {
    vknn_plan_target t = *target;
    t.kernels = with_variant(target->kernels, variants[v]);
    t.op_kernels = NULL;
    t.op_sources = NULL;
    if (vknn_compile(&device->log, &lm->copy.model, NULL, &t, &plans[n]) != VKNN_STATUS_NONE) continue;
    plan_signature(&plans[n], &seen[n]);
    bool repeat = plans[n].deferred || plans[n].dispatches.count == 0;
    for (uint32_t i = 0; i < n && !repeat && !seen[n].overflow; ++i)
      repeat = !seen[i].overflow && seen[i].size == seen[n].size &&
               memcmp(seen[i].bytes, seen[n].bytes, seen[n].size) == 0;
    if (repeat) {
      vknn_plan_release(&plans[n]);
      continue;
    }
    out[n] = (candidate){v, NULL, vknn_embedded_shaders[plans[n].dispatches.items[0].shader].name,
                         plans[n].dispatches.count, UINT64_MAX};
    ++n;
  }
  free(seen);
  return n;
}

/* The distinct lowerings of the variants, each prepared where there is more
 * than one to time (one alone is kept unprepared: nothing to compare). */
static uint32_t prepare_candidates(vknn_device *device, const vknn_plan_target *target,
                                   const layer_model *lm, const variant *variants, uint32_t count,
                                   candidate *out) {
  vknn_plan *plans = vknn_calloc(count, sizeof(vknn_plan));
  if (plans == NULL) return 0;
  uint32_t distinct = compile_candidates(device, target, lm, variants, count, out, plans);
  uint32_t n = 0;
  for (uint32_t i = 0; i < distinct; ++i) {
    candidate c = out[i];
    if (distinct == 1 || vknn_prepared_model_create(device, &plans[i], VKNN_PRIORITY_MEDIUM,
                                                    VKNN_PREFER_SUSTAINED_SPEED, &c.pm) == VKNN_STATUS_NONE)
      out[n++] = c;
    vknn_plan_release(&plans[i]);
  }
  free(plans);
  return n;
}

/* One execution on zeros; its device time in microseconds (UINT64_MAX
 * when it failed or was not timed). */
static uint64_t execute_once(vknn_prepared_model *pm, const request_pool *pool, bool timed) {
  vknn_request_pool pools[1] = {{.kind = VKNN_REQUEST_POOL_MEMORY,
                                 .memory = {.name = "ashmem", .fds = &pool->fd, .fd_count = 1,
                                            .size = pool->size}}};
  vknn_request request = {pool->args, pool->inputs, pool->args + pool->inputs, pool->outputs, pools, 1};
  vknn_timing timing = {UINT64_MAX, UINT64_MAX};
  vknn_status s = vknn_prepared_model_execute(pm, &request, timed ? VKNN_MEASURE_TIMING_YES : VKNN_MEASURE_TIMING_NO,
                                              NULL, NULL, NULL, 0, &timing);
  return s == VKNN_STATUS_NONE && timed ? timing.time_on_device : UINT64_MAX;
}

/* The candidates run in turns (a warm-up, then TUNING_RUNS timed rounds),
 * so that a moment of load weighs on all of them alike; a candidate that
 * fails once is out. */
static void time_candidates(candidate *c, uint32_t n, const request_pool *pool) {
  bool failed[MAX_VARIANTS + 1] = {false};
  for (int round = 0; round <= TUNING_RUNS; ++round)
    for (uint32_t i = 0; i < n; ++i) {
      if (failed[i]) continue;
      uint64_t us = execute_once(c[i].pm, pool, round > 0);
      if (round > 0 && us == UINT64_MAX) failed[i] = true;
      else if (round > 0 && us < c[i].best_us) c[i].best_us = us;
    }
  for (uint32_t i = 0; i < n; ++i)
    if (failed[i]) c[i].best_us = UINT64_MAX;
}

/* The candidate to keep: the fastest of the others where it beats the
 * device's own variant (candidate 0 when variant 0 prepared) by the
 * margin, else the device's own; the fastest where there is no own. n > 0. */
static uint32_t pick(const candidate *c, uint32_t n) {
  bool own = c[0].variant == 0 && c[0].best_us != UINT64_MAX;
  uint32_t fastest = UINT32_MAX;
  for (uint32_t i = own ? 1 : 0; i < n; ++i)
    if (c[i].best_us != UINT64_MAX && (fastest == UINT32_MAX || c[i].best_us < c[fastest].best_us))
      fastest = i;
  if (!own) return fastest;
  if (fastest != UINT32_MAX && (double)c[fastest].best_us < TUNING_MARGIN * (double)c[0].best_us)
    return fastest;
  return 0;
}

typedef enum layer_outcome { LAYER_MEASURED, LAYER_ONE_VARIANT, LAYER_FAILED } layer_outcome;

/* The layer's variants compiled, prepared and, where more than one lowering
 * is left, timed; *out: the one to keep. */
static layer_outcome measure_layer(vknn_device *device, const vknn_plan_target *target,
                                   const layer_model *lm, const variant *variants, uint32_t count,
                                   variant *out, uint32_t op_index, int32_t op_type) {
  request_pool pool;
  if (!open_layer_pool(lm, &pool)) return LAYER_FAILED;
  candidate c[MAX_VARIANTS + 1];
  uint32_t n = prepare_candidates(device, target, lm, variants, count, c);
  if (n > 1) time_candidates(c, n, &pool);
  uint32_t kept = n == 1 ? 0 : n > 1 ? pick(c, n) : UINT32_MAX;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t width = variants[c[i].variant].width;
    if (n > 1)
      VKNN_LOG_V(&device->log, TAG, "operation %u (%s): %s, %u dispatches, width %u: %llu us%s", op_index,
                 vknn_operation_type_name(op_type), c[i].kernel, c[i].dispatches,
                 width == 0 ? target->kernels.parallel_invocations : kTriedWidths[width - 1],
                 (unsigned long long)c[i].best_us, i == kept ? " (kept)" : "");
    vknn_prepared_model_release(c[i].pm);
  }
  close_pool(&pool);
  if (kept == UINT32_MAX) return LAYER_FAILED;
  *out = variants[c[kept].variant];
  return n == 1 ? LAYER_ONE_VARIANT : LAYER_MEASURED;
}

/* Whether a choice from the table is one this device would try for the
 * layer: its first-stage dimensions among the listed variants, each later
 * dimension the device's own unless its stage is open. Tables restored from
 * a cache were written under the same options, but are checked, not
 * trusted: a choice outside them would pick a kernel the device's options
 * rule out (Winograd with it OFF) or cannot run. */
static bool variant_open(const vknn_device *device, const vknn_kernel_target *base, bool float16, variant v) {
  variant listed[MAX_VARIANTS + 1], own = variant_of(base);
  uint32_t n = list_variants(device, base, float16, listed);
  bool found = false;
  for (uint32_t i = 0; i < n && !found; ++i)
    found = listed[i].texel_reads == v.texel_reads && listed[i].winograd == v.winograd &&
            listed[i].float16_arithmetic == v.float16_arithmetic && listed[i].gemm_shared_tiles == v.gemm_shared_tiles;
  return found && (v.subgroup_filter == own.subgroup_filter || stage_open(device, STAGE_SHARED_LOADS)) &&
         (v.width == own.width || stage_open(device, STAGE_WIDTHS)) &&
         (v.global_pool_reduction == own.global_pool_reduction || stage_open(device, STAGE_POOL_REDUCTION));
}

/* Operation k's kernel target: the table's choice for its shape, else
 * measured (and kept in the table). */
static vknn_kernel_target tune_operation(vknn_device *device, const vknn_graph *graph, uint32_t k,
                                         const vknn_plan_target *target) {
  const vknn_operation *op = &graph->sg->operations[k];
  layer_model lm;
  vknn_kernel_target chosen = target->kernels;
  if (!make_layer_model(graph, k, &lm)) {
    vknn_model_copy_free(&lm.copy);
    return chosen;
  }
  signature sig;
  layer_signature(&lm.copy.model, &sig);
  vknn_tuning_entry entry;
  bool float16 = graph->tensors[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  if (!sig.overflow && vknn_tuning_table_find(&device->tuning, sig.bytes, sig.size, &entry)) {
    if (variant_open(device, &target->kernels, float16, entry_variant(&entry))) {
      vknn_model_copy_free(&lm.copy);
      atomic_fetch_add(&device->vk.counters.kernel_tunings_reused, 1);
      return with_variant(chosen, entry_variant(&entry));
    }
    VKNN_LOG_E(&device->log, TAG, "operation %u (%s): the table's choice is not open on this device: measured again",
               k, vknn_operation_type_name(op->type));
    vknn_tuning_table_remove(&device->tuning, sig.bytes, sig.size);
  }
  variant variants[MAX_VARIANTS + 1], best = variant_of(&target->kernels);
  uint32_t count = list_variants(device, &target->kernels, float16, variants);
  layer_outcome outcome = measure_layer(device, target, &lm, variants, count, &best, k, op->type);
  bool measured = outcome == LAYER_MEASURED;
  for (stage st = 0; st < STAGE_COUNT && outcome != LAYER_FAILED; ++st) {
    if (!stage_open(device, st)) continue;
    count = list_stage_variants(st, best, variants);
    measured |= measure_layer(device, target, &lm, variants, count, &best, k, op->type) == LAYER_MEASURED;
  }
  if (measured) atomic_fetch_add(&device->vk.counters.kernel_tunings, 1);
  /* A shape no variant ran for keeps the device's rules, and is not tried again. */
  if (outcome == LAYER_FAILED)
    VKNN_LOG_E(&device->log, TAG, "operation %u (%s): no variant ran; the device's rules apply", k,
               vknn_operation_type_name(op->type));
  chosen = with_variant(chosen, best);
  if (!sig.overflow)
    vknn_tuning_table_add(&device->tuning, sig.bytes, sig.size,
              &(vknn_tuning_entry){.texel_reads = best.texel_reads, .winograd = best.winograd,
                                   .float16_arithmetic = best.float16_arithmetic,
                                   .gemm_shared_tiles = best.gemm_shared_tiles,
                                   .subgroup_filter = best.subgroup_filter, .width = best.width,
                                   .global_pool_reduction = best.global_pool_reduction});
  vknn_model_copy_free(&lm.copy);
  return chosen;
}

/* ---- the packed layout: the whole model, timed both ways -------------------- */

/* A model's signature in the table: a first word no layer's holds (they
 * start with a tuned operation's type), then a SHA-256 of what its packed
 * plan runs: per dispatch its kernel, sizes, constants and push constants,
 * and the type and shape of each tensor it binds. */
#define MODEL_SIGNATURE_WORD 0xffffffffu

static void hash_u32(struct sha256_ctx *ctx, uint32_t v) { sha256_update(ctx, sizeof(v), (const uint8_t *)&v); }

static void model_signature(const vknn_plan *plan, signature *s) {
  memset(s, 0, sizeof(*s));
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  /* Every list hashed after its length, so no two plans give one stream. */
  hash_u32(&ctx, plan->dispatches.count);
  for (uint32_t d = 0; d < plan->dispatches.count; ++d) {
    const vknn_dispatch *x = &plan->dispatches.items[d];
    hash_u32(&ctx, (uint32_t)x->shader);
    hash_u32(&ctx, x->local_size);
    hash_u32(&ctx, x->spec_count);
    for (uint32_t i = 0; i < x->spec_count; ++i) hash_u32(&ctx, x->spec[i]);
    hash_u32(&ctx, x->push_size);
    sha256_update(&ctx, x->push_size, x->push);
    hash_u32(&ctx, x->binding_count);
    for (uint32_t b = 0; b < x->binding_count; ++b) {
      const vknn_tensor *t = &plan->graph.tensors[x->bindings[b].tensor];
      hash_u32(&ctx, (uint32_t)t->type);
      hash_u32(&ctx, (uint32_t)x->bindings[b].texel);
      hash_u32(&ctx, t->rank);
      for (uint32_t i = 0; i < t->rank; ++i) hash_u32(&ctx, t->dims[i]);
    }
  }
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof(digest), digest);
  put_u32(s, MODEL_SIGNATURE_WORD);
  put(s, digest, sizeof(digest));
}

/* The model compiled with these kernel targets; false (nothing to release)
 * when it fails or its shapes wait for an execution. */
static bool compile_model(vknn_device *device, const vknn_model *model, const vknn_plan_target *target,
                          const vknn_kernel_target *kernels, vknn_plan *plan) {
  vknn_plan_target t = *target;
  t.op_kernels = kernels;
  if (vknn_compile(&device->log, model, NULL, &t, plan) != VKNN_STATUS_NONE) return false;
  if (!plan->deferred) return true;
  vknn_plan_release(plan);
  return false;
}

/* The model's inputs and outputs, zeroed. */
static bool open_model_pool(const vknn_plan *plan, request_pool *pool) {
  const vknn_subgraph *sg = plan->graph.sg;
  uint32_t count = sg->input_count + sg->output_count;
  uint64_t *bytes = vknn_calloc(count ? count : 1, sizeof(uint64_t));
  if (bytes == NULL) return false;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t t = i < sg->input_count ? sg->input_indexes[i] : sg->output_indexes[i - sg->input_count];
    bytes[i] = vknn_tensor_byte_size(&plan->graph.tensors[t]);
  }
  bool ok = open_pool(bytes, sg->input_count, sg->output_count, pool);
  free(bytes);
  return ok;
}

/* Both plans prepared and timed in turns on zeros: whether the packed one
 * (plans[1]) beat the other by the margin; *timed: both ran. */
static bool packed_faster(vknn_device *device, vknn_plan plans[2], bool *timed) {
  *timed = false;
  request_pool pool;
  if (!open_model_pool(&plans[1], &pool)) return false;
  candidate c[2];
  uint32_t n = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    c[n] = (candidate){i, NULL, i == 0 ? "NHWC" : "packed", plans[i].dispatches.count, UINT64_MAX};
    if (vknn_prepared_model_create(device, &plans[i], VKNN_PRIORITY_MEDIUM, VKNN_PREFER_SUSTAINED_SPEED,
                                   &c[n].pm) == VKNN_STATUS_NONE)
      ++n;
  }
  uint32_t kept = UINT32_MAX;
  if (n == 2) {
    time_candidates(c, n, &pool);
    *timed = c[0].best_us != UINT64_MAX && c[1].best_us != UINT64_MAX;
    if (*timed) kept = pick(c, n);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (n == 2)
      VKNN_LOG_V(&device->log, TAG, "model, %s (%u tensors packed): %llu us%s", c[i].kernel,
                 c[i].variant == 1 ? plans[1].packed_tensors : 0, (unsigned long long)c[i].best_us,
                 i == kept ? " (kept)" : "");
    vknn_prepared_model_release(c[i].pm);
  }
  close_pool(&pool);
  return kept != UINT32_MAX && c[kept].variant == 1;
}

/* For a model whose packed plan (plans[1]) packs something: the table's
 * choice for its signature, else measured against the model compiled with
 * chosen and kept in the table. A model that could not be timed both ways
 * (memory ran out, an execution failed on zeros) stays NHWC this time and
 * is measured again at its next prepare. */
static bool packed_choice(vknn_device *device, const vknn_model *model, const vknn_plan_target *target,
                          const vknn_kernel_target *chosen, vknn_plan plans[2]) {
  signature sig;
  model_signature(&plans[1], &sig);
  vknn_tuning_entry entry;
  if (vknn_tuning_table_find(&device->tuning, sig.bytes, sig.size, &entry)) return entry.packed_layout;
  bool kept = false, timed = false;
  if (compile_model(device, model, target, chosen, &plans[0])) {
    kept = packed_faster(device, plans, &timed);
    vknn_plan_release(&plans[0]);
  }
  if (timed)
    vknn_tuning_table_add(&device->tuning, sig.bytes, sig.size, &(vknn_tuning_entry){.packed_layout = kept});
  return kept;
}

/* Whether the model's temporaries are packed, given the other choices
 * (chosen); false where nothing would be packed. */
static bool choose_packed_layout(vknn_device *device, const vknn_model *model, const vknn_plan_target *target,
                                 const vknn_kernel_target *chosen, uint32_t n) {
  vknn_kernel_target *packed = vknn_calloc(n, sizeof(*packed));
  if (packed == NULL) return false;
  for (uint32_t k = 0; k < n; ++k) {
    packed[k] = chosen[k];
    packed[k].packed_layout = true;
  }
  vknn_plan plans[2];
  bool kept = false;
  if (compile_model(device, model, target, packed, &plans[1])) {
    if (plans[1].packed_tensors > 0) kept = packed_choice(device, model, target, chosen, plans);
    vknn_plan_release(&plans[1]);
  }
  free(packed);
  return kept;
}

vknn_kernel_target *vknn_kernel_tuning_choose(vknn_device *device, const vknn_model *model,
                                              const vknn_plan_target *target) {
  vknn_plan plan;
  vknn_plan_target plain = *target;
  plain.op_kernels = NULL;
  if (vknn_compile(&device->log, model, NULL, &plain, &plan) != VKNN_STATUS_NONE) return NULL;
  const vknn_graph *graph = &plan.graph;
  uint32_t n = graph->sg->operation_count;
  vknn_kernel_target *chosen = plan.deferred ? NULL : vknn_calloc(n ? n : 1, sizeof(*chosen));
  bool any = false;
  for (uint32_t k = 0; chosen != NULL && k < n; ++k) {
    chosen[k] = target->kernels;
    if (!tunable(graph, k)) continue;
    chosen[k] = tune_operation(device, graph, k, target);
    any = true;
  }
  vknn_plan_release(&plan);
  if (!any) {
    free(chosen);
    return NULL;
  }
  if (packed_layout_open(device)) {
    bool packed = choose_packed_layout(device, model, target, chosen, n);
    for (uint32_t k = 0; k < n; ++k) chosen[k].packed_layout = packed;
  }
  return chosen;
}
