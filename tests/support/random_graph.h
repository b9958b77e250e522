/* What the random-graph differential tests (test_option_equivalence,
 * float32; test_quant_equivalence, 8-bit quantized) share: the random
 * numbers a seed gives, the model under construction with its scalars and
 * its description, the geometry of convolution and pool windows and of
 * broadcasts, the device option sets a model runs on and the environment
 * that picks the seeds and the sets. Each test keeps its own tensors and
 * reference arithmetic. A seed must give the same model wherever it runs,
 * so every function here draws its random numbers in a fixed order. */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/model_builder.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

/* ---- random numbers (splitmix64) ---------------------------------------------- */

typedef struct rg_rng {
  uint64_t s;
} rg_rng;

uint32_t rg_below(rg_rng *r, uint32_t n); /* [0, n); 0 when n is 0 */
double rg_uniform(rg_rng *r);             /* [0, 1) */
bool rg_chance(rg_rng *r, double p);
uint32_t rg_pick(rg_rng *r, const uint32_t *values, uint32_t count);
int32_t rg_range(rg_rng *r, int32_t lo, int32_t hi); /* [lo, hi] */

/* ---- shapes ------------------------------------------------------------------- */

#define RG_MAX_RANK 4
/* Room for rg_shape_str's text of a rank-4 shape. */
#define RG_SHAPE_TEXT 64

size_t rg_elements(uint32_t rank, const uint32_t *dims);
/* "[d0,d1,...]" into buf; returns buf. */
const char *rg_shape_str(uint32_t rank, const uint32_t *dims, char *buf);
/* The broadcast of two shapes, right-aligned; false when they do not broadcast. */
bool rg_broadcast_dims(uint32_t rank_a, const uint32_t *a, uint32_t rank_b, const uint32_t *b, uint32_t *rank,
                       uint32_t *dims);
/* The element of a tensor of rank_t / dims_t read for element flat of the
 * broadcast shape rank / dims. */
size_t rg_broadcast_index(uint32_t rank_t, const uint32_t *dims_t, uint32_t rank, const uint32_t *dims, size_t flat);

/* ---- the model under construction ----------------------------------------------- */

#define RG_MAX_SCALARS 64
#define RG_MAX_DESC 8192

/* The builder, its random numbers, the INT32 scalars it already holds (one
 * operand per value), and the model's description (printed when a seed
 * fails). */
typedef struct rg_model {
  rg_rng r;
  model_builder b;
  int32_t scalar_values[RG_MAX_SCALARS];
  uint32_t scalar_operands[RG_MAX_SCALARS], scalar_count;
  uint32_t bool_false;  /* the layout operand, once made */
  size_t value_reserve; /* builder bytes kept free for the scalars */
  char desc[RG_MAX_DESC];
  size_t desc_len;
} rg_model;

/* Clears m and seeds its random numbers from seed (the structure's; the
 * data come from rg_data_rng). */
void rg_model_init(rg_model *m, uint64_t seed, size_t value_reserve);
/* The random numbers of a seed's input data; variant 1 gives other values. */
rg_rng rg_data_rng(uint64_t seed, int variant);
/* Appends to the description. */
void rg_say(rg_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The INT32 scalar constant of value v (one operand for every operation using it). */
uint32_t rg_scalar(rg_model *m, int32_t v);
/* Builder bytes left for constants. */
size_t rg_values_left(const rg_model *m);
/* Whether the builder has operands and operations for a step that needs so many. */
bool rg_room(const rg_model *m, uint32_t operands, uint32_t operations);

/* ---- windows: convolutions and pools -------------------------------------------- */

enum { RG_CONV, RG_DEPTHWISE, RG_GROUPED };
enum { RG_EXPLICIT, RG_SAME, RG_VALID }; /* padding schemes (1 and 2 as NNAPI numbers them) */

const char *rg_act_name(int32_t act);

typedef struct rg_conv {
  int kind; /* RG_CONV, RG_DEPTHWISE, RG_GROUPED */
  uint32_t kh, kw, sh, sw, dh, dw;
  int implicit;            /* RG_EXPLICIT, or the scheme given to the operation */
  uint32_t pl, pr, pt, pb; /* explicit, or what the implicit scheme gives */
  uint32_t out_c, groups, mult;
  int32_t act;
  int form; /* 0 plain, 1 with the layout, 2 with layout and dilations */
  /* A PAD operation first takes part of the padding (pad fusion). */
  bool pad_first;
  uint32_t ppt, ppb, ppl, ppr; /* its amounts */
  uint32_t h2, w2;             /* the padded input's height and width */
  uint32_t oh, ow;             /* the output's */
} rg_conv;

/* A window (sizes from ks, force_k when not 0), strides (1 when same) and
 * dilations for a convolution of p->kind. */
void rg_conv_window(rg_rng *r, rg_conv *p, const uint32_t *ks, uint32_t ks_count, uint32_t force_k, bool same);
/* The output channels: out_c when not 0 (false when the kind cannot give
 * them), else from chans; a depthwise multiplier up to max_mult. */
bool rg_conv_channels(rg_rng *r, rg_conv *p, uint32_t C, uint32_t out_c, const uint32_t *chans,
                      uint32_t chans_count, uint32_t max_mult);
/* The input channels each output reads; the products each output sums. */
uint32_t rg_conv_group_channels(const rg_conv *p, uint32_t C);
uint32_t rg_conv_fan(const rg_conv *p, uint32_t C);
/* PAD's share of the padding (when p->pad_first) and the convolution's, on
 * an input of H x W; same: the output keeps H x W. False when the output is
 * empty. */
bool rg_conv_padding(rg_rng *r, rg_conv *p, uint32_t H, uint32_t W, bool same);
/* How the operation is written (the layout and dilation inputs or not). */
void rg_conv_form(rg_rng *r, rg_conv *p);

/* One product of a convolution: its input element and filter element. */
typedef struct rg_term {
  size_t in, w;
} rg_term;

/* The products of output element o (NHWC) of convolution p on an input of
 * in_dims (NHWC), the filter laid out as NNAPI's ([out_c, kh, kw, cg];
 * depthwise [1, kh, kw, out_c]), in the order of the window's rows, its
 * columns, the channels: their count; terms holds rg_conv_fan(p, C). */
uint32_t rg_conv_terms(const rg_conv *p, const uint32_t *in_dims, size_t o, rg_term *terms);
/* Where element i of the input (dims in_dims) goes in PAD's output. */
size_t rg_pad_index(const rg_conv *p, const uint32_t *in_dims, size_t i);
/* The PAD operation taking p's share from operand in (tensor x) into
 * operand out (tensor y), described (from and to: the tensors' text):
 * whether y is to be a model output too (which keeps the PAD apart). */
bool rg_pad_operation(rg_model *m, const rg_conv *p, uint32_t in, uint32_t out, uint32_t x, uint32_t y,
                      const char *from, const char *to);
/* The convolution of operand in (filter, bias) into operand out. */
void rg_conv_operation(rg_model *m, const rg_conv *p, uint32_t in, uint32_t filter, uint32_t bias, uint32_t out);
/* The description of a convolution of tensor x into y (from and to: the
 * tensors' text), without its line's end. */
void rg_say_conv(rg_model *m, const rg_conv *p, uint32_t x, uint32_t y, const char *from, const char *to);

typedef struct rg_pool {
  uint32_t fh, fw, sh, sw;
  uint32_t pl, pr, pt, pb;
  int scheme;
  uint32_t oh, ow;
} rg_pool;

/* The window of a pool on H x W: global covers the image (now and then
 * past it), same keeps H x W. False when the output is empty. */
bool rg_pool_window(rg_rng *r, rg_pool *w, uint32_t H, uint32_t W, bool global, bool same);
/* The input elements output element o (NHWC) of pool w reads on an input
 * of in_dims, rows then columns (terms[k].in): their count, at least one;
 * terms holds w->fh * w->fw. */
uint32_t rg_pool_terms(const rg_pool *w, const uint32_t *in_dims, size_t o, rg_term *terms);
/* AVERAGE_POOL_2D (avg) or MAX_POOL_2D of operand in into operand out. */
void rg_pool_operation(rg_model *m, const rg_pool *w, bool avg, int32_t act, uint32_t in, uint32_t out);
void rg_say_pool(rg_model *m, const rg_pool *w, bool avg, int32_t act, bool global, uint32_t x, uint32_t y,
                 const char *from, const char *to);

/* Where element e of a CONCATENATION's input (dims part) goes in its output
 * (rank, dims), the input starting at offset along axis. */
size_t rg_concat_index(uint32_t rank, const uint32_t *dims, uint32_t axis, const uint32_t *part, uint32_t offset,
                       size_t e);

/* ---- device option sets and the environment ---------------------------------------- */

typedef struct rg_set {
  const char *name;
  void (*apply)(vknn_device_options *o);
  void (*also)(vknn_device_options *o); /* after apply, when not NULL */
  bool wide;         /* the device says it runs 2^20 invocations at once */
  bool rotating;     /* by default, run on some seeds only */
  bool every_fourth; /* only on every fourth seed unless named (kernel tuning measures every layer) */
} rg_set;

/* Option setters both tests' sets use. */
void rg_options_plain(vknn_device_options *o);
void rg_options_all_off(vknn_device_options *o);
void rg_options_storage(vknn_device_options *o);
void rg_options_texel(vknn_device_options *o);
void rg_options_subgroup_on(vknn_device_options *o);
void rg_options_subgroup_off(vknn_device_options *o);
void rg_options_shared_tiles(vknn_device_options *o);
void rg_options_global_pool(vknn_device_options *o);
void rg_options_packed(vknn_device_options *o);
void rg_options_io_copies(vknn_device_options *o);
void rg_options_tuning(vknn_device_options *o);
/* What the float and the quantized combinations share (each adds its own):
 * the packed layout, shared filter loads, shared-memory tiles, global pools
 * as reductions; the same with storage reads and io copies. */
void rg_options_combo(vknn_device_options *o);
void rg_options_combo_storage(vknn_device_options *o);

/* The environment, VKNN_<prefix>_NAME: SEED (the first, 1), SEEDS (how
 * many), STEPS (the most steps a model takes), VERBOSE=1 (each seed's model
 * and outcome), SETS ("all", or names separated by commas; default: the
 * plain device, the sets that do not rotate and three rotating ones per
 * seed), LOG=1 (print the driver's log lines; with VKNN_LOG=compilation,
 * its fusions and packing). */
typedef struct rg_config {
  uint64_t first, count;
  uint32_t max_steps;
  bool verbose, print_log;
  const char *which; /* SETS as given ("" when not) */
} rg_config;

/* VKNN_<prefix>_<name>, or fallback when unset or empty. */
const char *rg_getenv(const char *prefix, const char *name, const char *fallback);

#define RG_MAX_SETS 32
#define RG_SET_PLAIN 0 /* sets[0]: the device's own choices */

/* A device per set, opened on first use with the validation layer on and
 * kernel tuning off unless the set turns it on. */
typedef struct rg_devices {
  const rg_set *sets[RG_MAX_SETS];
  uint32_t count;
  bool enabled[RG_MAX_SETS];
  bool print_log;
  vknn_device *device[RG_MAX_SETS];
  test_log log[RG_MAX_SETS];
} rg_devices;


typedef struct rg_fixture {
  rg_config config;
  rg_devices devices;
} rg_fixture;

/* cmocka group setup: *state an rg_fixture, the environment read
 * (VKNN_<prefix>_..., seeds and steps the defaults), the sets set_of(s)
 * for s below count. */
int rg_fixture_setup(void **state, const char *prefix, uint64_t seeds, uint32_t steps,
                     const rg_set *(*set_of)(uint32_t s), uint32_t count);
/* Closes the devices; fails when the validation layer reported anything. */
int rg_fixture_teardown(void **state);

/* Prepares b's model on set s's device: the status; on failure, the log
 * line into log (log_size bytes); on success *pm and *info. */
vknn_status rg_prepare(rg_devices *d, uint32_t s, model_builder *b, vknn_prepared_model **pm,
                       vknn_prepared_model_info *info, char *log, size_t log_size);
/* Whether an output's shape is the expected one (prints a mismatch when not;
 * head names the seed, set and execution). */
bool rg_check_shape(const char *head, uint32_t k, uint32_t tensor, const vknn_output_shape *shape,
                    uint32_t rank, const uint32_t *dims);

/* ---- a seed on the sets ------------------------------------------------------------------ */

#define RG_LOG_TEXT 512

/* A seed's runs: the sets that ran, how long each took (prepare and
 * executions), how each prepared. */
typedef struct rg_seed {
  uint64_t seed;
  bool ran[RG_MAX_SETS];
  double ms[RG_MAX_SETS];
  vknn_status prepare[RG_MAX_SETS];
  char log[RG_MAX_SETS][RG_LOG_TEXT]; /* prepare's last log line where it failed */
} rg_seed;

/* What a test does with a seed's model on set s: run prepares and executes
 * it (the prepare status; its log line into log where it fails), check
 * compares what it gave (false when it disagrees). */
typedef struct rg_runner {
  vknn_status (*run)(void *ctx, uint32_t s, char *log);
  bool (*check)(void *ctx, uint32_t s);
} rg_runner;

/* Runs the seed's model m (steps long) on every set that runs on it
 * (enabled, and in the default rotation), then checks every set that
 * prepared as the plain device did: false when any disagrees (prepared
 * otherwise, a validation-layer message, check), the model then printed;
 * *runs counts the runs. */
bool rg_run_seed(rg_devices *d, const rg_config *c, rg_seed *seed, const rg_runner *runner, void *ctx,
                 const rg_model *m, uint32_t steps, uint32_t *runs);

/* ---- the model's outputs ---------------------------------------------------------------- */

/* What rg_choose_outputs knows of a tensor. */
typedef struct rg_role {
  uint32_t operand, readers;
  bool output; /* chosen already (by a step), or by rg_choose_outputs */
} rg_role;

/* The model outputs among tensors 1 to count - 1 (0 is the input): the
 * last one, every temporary nothing reads, now and then (chance p) another
 * temporary; past max, those that others read stay temporaries. Declares
 * them in tensor order (the model's order of outputs). */
void rg_choose_outputs(rg_model *m, rg_role *roles, uint32_t count, uint32_t last, double p, uint32_t max);

/* ---- growing a model step by step ------------------------------------------------------ */

/* A test's steps, which the shared ones call: each returns the tensor it
 * made, or -1 when nothing fits. graph is the test's own. */
typedef struct rg_steps {
  /* one step of the model from tensor cur */
  int (*step)(void *graph, uint32_t cur);
  /* frees what graph holds that snapshot (graph before a step) did not */
  void (*undo)(void *graph, const void *snapshot);
  int (*conv)(void *graph, uint32_t x, int kind, bool same, uint32_t out_c, bool pad_first);
  int (*pool)(void *graph, uint32_t x, bool global, bool same);
  int (*relu)(void *graph, uint32_t x);
} rg_steps;

/* A convolution's kind: CONV_2D half the time, else DEPTHWISE_CONV_2D or
 * GROUPED_CONV_2D (3:2). */
int rg_conv_kind(rg_rng *r);
/* A branch of tensor x keeping its height and width (for a CONCATENATION):
 * x itself, a pool, or a convolution now and then with a RELU after it;
 * *kind: which (0, 1, 2 and above). The tensor, or -1. */
int rg_branch(const rg_steps *steps, void *graph, rg_rng *r, uint32_t x, uint32_t *kind);
/* Takes up to count steps from tensor cur in graph (size bytes, its random
 * numbers at r): a step that fails part way is undone, keeping the random
 * numbers drawn, and tried again (six tries). Returns the tensor the last
 * step ended on; *taken counts the steps that made a new one. */
uint32_t rg_grow(const rg_steps *steps, void *graph, size_t size, rg_rng *r, uint32_t cur, uint32_t count,
                 uint32_t *taken);
