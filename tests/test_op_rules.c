/* Every rule an operation's NNAPI documentation states is checked: one row
 * per rule, a valid single-operation model broken in one way, rejected with
 * INVALID_ARGUMENT by the support query and by prepare, with a log line
 * naming the problem. Accepting rows (no mutation) show each family's valid
 * model passes, so that a rejection cannot come from a wrong base model. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cts_values.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define PER_CHANNEL VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL
#define OP(name) VKNN_OPERATION_##name

/* The model under test: its builder, the data input, the output, and the
 * operation's other inputs by position. */
typedef struct ctx {
  model_builder b;
  uint32_t in, out;
  uint32_t op_inputs[16];
  uint32_t input_count;
  /* IF and WHILE: the subgraphs they reference (referenced[i] = sub[i]). */
  model_builder sub[2];
  vknn_subgraph referenced[2];
  uint32_t sub_count;
} ctx;

/* Every error line of a device, concatenated. */
typedef struct log_lines {
  char text[8192];
  size_t used;
} log_lines;

typedef struct fixture {
  vknn_device *device;
  log_lines log;
} fixture;

typedef struct row {
  const char *name;
  void (*build)(ctx *c, int32_t type);
  int32_t type; /* element type of the data tensors */
  void (*mutate)(ctx *c); /* NULL: the valid model, accepted */
  const char *expected_log; /* NULL: accepted; else rejected, logging this */
} row;

/* ---- building ---------------------------------------------------------- */

/* A context with an empty model. */
static ctx *new_ctx(void) {
  ctx *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  mb_init(&c->b);
  return c;
}


static float scale_of(int32_t type) { return type == Q8 ? 0.5f : 0.f; }

static uint32_t data_input(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = mb_input(&c->b, type, dims, rank);
  c->b.operands[i].scale = scale_of(type);
  return i;
}

static uint32_t data_output(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  uint32_t i = mb_output(&c->b, type, dims, rank);
  c->b.operands[i].scale = scale_of(type);
  return i;
}

static uint32_t vector(ctx *c, const int32_t *values, uint32_t count) {
  return mb_const_tensor(&c->b, I32, &count, 1, values, count * sizeof(int32_t));
}

static uint32_t scalar_f32(ctx *c, float value) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT32, NULL, 0, &value, sizeof(value));
}

/* The operation, its inputs kept for mutations. */
static void operation(ctx *c, int32_t type, const uint32_t *inputs, uint32_t count,
                      const uint32_t *outputs, uint32_t output_count) {
  memcpy(c->op_inputs, inputs, count * sizeof(uint32_t));
  c->input_count = count;
  mb_operation(&c->b, type, inputs, count, outputs, output_count);
}

static void one_output(ctx *c, int32_t op_type, const uint32_t *inputs, uint32_t count) {
  operation(c, op_type, inputs, count, &c->out, 1);
}

/* ---- mutating ---------------------------------------------------------- */

static vknn_operand *operand(ctx *c, uint32_t i) { return &c->b.operands[i]; }
static vknn_operand *op_input(ctx *c, uint32_t k) { return operand(c, c->op_inputs[k]); }

/* Rewrites entry i of a constant INT32 (tensor or scalar) operand. */
static void set_i32(ctx *c, uint32_t operand_index, uint32_t i, int32_t value) {
  const vknn_operand *o = operand(c, operand_index);
  memcpy(c->b.values + o->location.offset + i * sizeof(int32_t), &value, sizeof(value));
}
static void set_param(ctx *c, uint32_t k, uint32_t i, int32_t value) {
  set_i32(c, c->op_inputs[k], i, value);
}

/* Operation input k becomes another operand. */
static void replace_input(ctx *c, uint32_t k, uint32_t new_operand) {
  operand(c, c->op_inputs[k])->number_of_consumers--;
  operand(c, new_operand)->number_of_consumers++;
  c->op_inputs[k] = new_operand;
  vknn_operation *op = &c->b.operations[c->b.operation_count - 1];
  ((uint32_t *)op->inputs)[k] = new_operand;
}

/* A 1-D constant seen as a [1, n] matrix (same bytes). */
static void as_matrix(ctx *c, uint32_t k) {
  uint32_t i = c->op_inputs[k];
  c->b.dims[i][1] = c->b.dims[i][0];
  c->b.dims[i][0] = 1;
  c->b.operands[i].dimension_count = 2;
}

static void set_dims(ctx *c, uint32_t i, const uint32_t *dims, uint32_t rank) {
  memcpy(c->b.dims[i], dims, rank * sizeof(uint32_t));
  c->b.operands[i].dimension_count = rank;
}

static void output_scale_differs(ctx *c) { operand(c, c->out)->scale = 0.25f; }
static void output_zero_point_differs(ctx *c) { operand(c, c->out)->zero_point = 3; }

/* ---- STRIDED_SLICE: [2, 3] -> [2, 3] ------------------------------------- */

static void build_strided_slice(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  const int32_t begin[2] = {0, 0}, end[2] = {2, 3}, strides[2] = {1, 1};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  const uint32_t in[7] = {c->in, vector(c, begin, 2), vector(c, end, 2), vector(c, strides, 2),
                          mb_const_i32(&c->b, 0), mb_const_i32(&c->b, 0), mb_const_i32(&c->b, 0)};
  one_output(c, OP(STRIDED_SLICE), in, 7);
}

/* begin, end and strides given by the execution; masks constant. */
static void build_strided_slice_runtime(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, two = 2;
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  const uint32_t in[7] = {c->in, mb_input(&c->b, I32, &two, 1), mb_input(&c->b, I32, &two, 1),
                          mb_input(&c->b, I32, &two, 1), mb_const_i32(&c->b, 0),
                          mb_const_i32(&c->b, 0), mb_const_i32(&c->b, 0)};
  one_output(c, OP(STRIDED_SLICE), in, 7);
}

static void ss_int32_data(ctx *c) { operand(c, c->in)->type = I32, operand(c, c->out)->type = I32; }
static void ss_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 5);
  set_dims(c, c->out, dims, 5);
}
static void ss_too_few_inputs(ctx *c) {
  c->b.operations[0].input_count = 6;
  op_input(c, 6)->number_of_consumers = 0;
}
static void ss_strides_float(ctx *c) { op_input(c, 3)->type = F32; }
static void ss_mask_float(ctx *c) { op_input(c, 5)->type = VKNN_OPERAND_FLOAT32; }
static void ss_begin_three_entries(ctx *c) {
  const int32_t begin[3] = {0, 0, 0};
  replace_input(c, 1, vector(c, begin, 3));
}
static void ss_stride_zero(ctx *c) { set_param(c, 3, 1, 0); }
/* Shrinking axis 0 while end - begin spans 2 elements. */
static void ss_shrink_two_elements(ctx *c) {
  const uint32_t three = 3;
  set_param(c, 6, 0, 1);
  set_dims(c, c->out, &three, 1);
}
static void ss_shrink_ok(ctx *c) {
  const uint32_t three = 3;
  set_param(c, 6, 0, 1);
  set_param(c, 1, 0, 1);
  set_dims(c, c->out, &three, 1);
}
/* A shrunk axis walked backwards: begin 1, end 0, stride -1 is one element. */
static void ss_shrink_negative_stride_ok(ctx *c) {
  const uint32_t three = 3;
  set_param(c, 6, 0, 1);
  set_param(c, 1, 0, 1);
  set_param(c, 2, 0, 0);
  set_param(c, 3, 0, -1);
  set_dims(c, c->out, &three, 1);
}
/* Axis 0 from 1 to 1: nothing (the output's axis 0 left unknown). */
static void ss_empty_axis(ctx *c) {
  set_param(c, 1, 0, 1);
  set_param(c, 2, 0, 1);
  c->b.dims[c->out][0] = 0;
}
/* begin < end with a negative stride: a negative size, clamped to empty. */
static void ss_negative_size(ctx *c) {
  set_param(c, 3, 0, -1);
  c->b.dims[c->out][0] = 0;
}
static void ss_output_dims_contradict(ctx *c) { c->b.dims[c->out][1] = 2; }
static void ss_output_rank_ignores_shrink(ctx *c) {
  set_param(c, 6, 0, 1);
  set_param(c, 2, 0, 1);
  c->b.dims[c->out][0] = 1;
}
static void ss_runtime_rank_ignores_shrink(ctx *c) { set_param(c, 6, 0, 1); }

/* ---- SLICE: [2, 3] -> [2, 2] --------------------------------------------- */

static void build_slice(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {2, 2};
  const int32_t begin[2] = {0, 1}, size[2] = {2, 2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[3] = {c->in, vector(c, begin, 2), vector(c, size, 2)};
  one_output(c, OP(SLICE), in, 3);
}

/* SLICE has no rank limit: rank 5 runs. */
static void build_slice_rank_5(ctx *c, int32_t type) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3}, out_dims[5] = {1, 1, 1, 2, 2};
  const int32_t begin[5] = {0, 0, 0, 0, 1}, size[5] = {1, 1, 1, 2, -1};
  c->in = data_input(c, type, dims, 5);
  c->out = data_output(c, type, out_dims, 5);
  const uint32_t in[3] = {c->in, vector(c, begin, 5), vector(c, size, 5)};
  one_output(c, OP(SLICE), in, 3);
}

/* Axis 1 (of 3): begin 3, size 2; begin 1, size 3. */
static void slice_begin_past_axis(ctx *c) { set_param(c, 1, 1, 3); }
static void slice_size_past_axis(ctx *c) { set_param(c, 2, 1, 3); }
/* Axis 1: size 0; size -1 from begin 3 (the end of the axis). */
static void slice_size_0(ctx *c) {
  set_param(c, 2, 1, 0);
  c->b.dims[c->out][1] = 0;
}
static void slice_rest_of_nothing(ctx *c) {
  set_param(c, 1, 1, 3);
  set_param(c, 2, 1, -1);
  c->b.dims[c->out][1] = 0;
}

/* ---- TRANSPOSE, TILE, SPLIT, CHANNEL_SHUFFLE, DEPTH_TO_SPACE, SPACE_TO_DEPTH */

static void build_transpose(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {3, 2};
  const int32_t perm[2] = {1, 0};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[2] = {c->in, vector(c, perm, 2)};
  one_output(c, OP(TRANSPOSE), in, 2);
}

static void build_tile(ctx *c, int32_t type) {
  const uint32_t dims[1] = {2}, out_dims[1] = {4};
  const int32_t multiples[1] = {2};
  c->in = data_input(c, type, dims, 1);
  c->out = data_output(c, type, out_dims, 1);
  const uint32_t in[2] = {c->in, vector(c, multiples, 1)};
  one_output(c, OP(TILE), in, 2);
}

/* [2] tiled 2^30 times: 8 GiB of float32 (the output left unknown). */
static void tile_8_gib(ctx *c) {
  set_param(c, 1, 0, 1 << 30);
  c->b.dims[c->out][0] = 0;
}

static void build_split(ctx *c, int32_t type) {
  const uint32_t dims[1] = {4}, half[1] = {2};
  c->in = data_input(c, type, dims, 1);
  uint32_t outs[2] = {data_output(c, type, half, 1), data_output(c, type, half, 1)};
  c->out = outs[1];
  const uint32_t in[3] = {c->in, mb_const_i32(&c->b, 0), mb_const_i32(&c->b, 2)};
  operation(c, OP(SPLIT), in, 3, outs, 2);
}

static void build_channel_shuffle(ctx *c, int32_t type) {
  const uint32_t dims[2] = {1, 4};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  const uint32_t in[3] = {c->in, mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 1)};
  one_output(c, OP(CHANNEL_SHUFFLE), in, 3);
}

/* DEPTH_TO_SPACE [1, 1, 1, 4] -> [1, 2, 2, 1] with block 2; SPACE_TO_DEPTH
 * the reverse. */
static void build_block_move(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t deep[4] = {1, 1, 1, 4}, wide[4] = {1, 2, 2, 1};
  bool to_space = op_type == OP(DEPTH_TO_SPACE);
  c->in = data_input(c, type, to_space ? deep : wide, 4);
  c->out = data_output(c, type, to_space ? wide : deep, 4);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 2)};
  one_output(c, op_type, in, 2);
}
static void build_depth_to_space(ctx *c, int32_t type) { build_block_move(c, type, OP(DEPTH_TO_SPACE)); }
static void build_space_to_depth(ctx *c, int32_t type) { build_block_move(c, type, OP(SPACE_TO_DEPTH)); }

/* Input 1 (a 1-D parameter) declared as a [1, n] matrix. */
static void input_1_rank_2(ctx *c) { as_matrix(c, 1); }

/* Input k given as omitted (NO_VALUE), of its declared type. */
static void omit_input(ctx *c, uint32_t k) {
  uint32_t omitted = mb_temporary(&c->b, op_input(c, k)->type, NULL, 0);
  operand(c, omitted)->lifetime = VKNN_LIFETIME_NO_VALUE;
  replace_input(c, k, omitted);
}
static void omit_input_1(ctx *c) { omit_input(c, 1); }

/* TRANSPOSE's perm {1, 1}; {1, 0, 2} for rank 2. */
static void transpose_perm_repeated(ctx *c) { set_param(c, 1, 1, 1); }
static void transpose_perm_3_entries(ctx *c) {
  const int32_t perm[3] = {1, 0, 2};
  replace_input(c, 1, vector(c, perm, 3));
}
static void tile_multiple_0(ctx *c) { set_param(c, 1, 0, 0); }
/* 3 x (2^31 - 1) elements: more than a dimension holds. */
static void tile_past_a_dimension(ctx *c) {
  c->b.dims[c->in][0] = 3;
  set_param(c, 1, 0, INT32_MAX);
}
static void tile_2_multiples(ctx *c) {
  const int32_t multiples[2] = {2, 2};
  replace_input(c, 1, vector(c, multiples, 2));
}
/* SPLIT: axis 1, num_splits 4 for 2 outputs, an input of 3 for 2 splits. */
static void split_axis_1(ctx *c) { set_param(c, 1, 0, 1); }
static void split_4_splits(ctx *c) { set_param(c, 2, 0, 4); }
static void split_input_3(ctx *c) { c->b.dims[c->in][0] = 3; }
/* CHANNEL_SHUFFLE (4 channels on axis 1 of 2): 0 or 3 groups, axis 2. */
static void shuffle_groups_0(ctx *c) { set_param(c, 1, 0, 0); }
static void shuffle_groups_3(ctx *c) { set_param(c, 1, 0, 3); }
static void shuffle_axis_2(ctx *c) { set_param(c, 2, 0, 2); }
static void block_size_0(ctx *c) { set_param(c, 1, 0, 0); }
static void d2s_channels_2(ctx *c) { c->b.dims[c->in][3] = 2; }
static void s2d_height_3(ctx *c) { c->b.dims[c->in][1] = 3; }

/* ---- PAD, PAD_V2: [2, 3] -> [4, 3] --------------------------------------- */

/* PAD, or PAD_V2 with a pad value 0 (an INT32 for quant8 data, else FLOAT32). */
static void build_pad_op(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {4, 3}, pad_dims[2] = {2, 2};
  const int32_t paddings[4] = {1, 1, 0, 0};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  uint32_t in[3] = {c->in, mb_const_tensor(&c->b, I32, pad_dims, 2, paddings, sizeof(paddings)), 0};
  uint32_t n = 2;
  if (op_type == OP(PAD_V2)) in[n++] = type == Q8 ? mb_const_i32(&c->b, 0) : scalar_f32(c, 0.f);
  one_output(c, op_type, in, n);
}
static void build_pad(ctx *c, int32_t type) { build_pad_op(c, type, OP(PAD)); }
static void build_pad_v2(ctx *c, int32_t type) { build_pad_op(c, type, OP(PAD_V2)); }

static void paddings_rank_1(ctx *c) {
  const uint32_t four = 4;
  set_dims(c, c->op_inputs[1], &four, 1);
}
static void paddings_one_by_four(ctx *c) {
  const uint32_t dims[2] = {1, 4};
  set_dims(c, c->op_inputs[1], dims, 2);
}
static void paddings_negative(ctx *c) { set_param(c, 1, 0, -1); }
/* 2 + 2 x (2^31 - 1) elements: more than a dimension holds. */
static void paddings_past_a_dimension(ctx *c) {
  set_param(c, 1, 0, INT32_MAX);
  set_param(c, 1, 1, INT32_MAX);
}
static void paddings_float(ctx *c) { op_input(c, 1)->type = F32; }
/* PAD_V2's pad value (input 2). */
static void pad_value_float16(ctx *c) {
  const uint16_t zero = 0;
  replace_input(c, 2, mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT16, NULL, 0, &zero, sizeof(zero)));
}
static void pad_value_int32(ctx *c) { replace_input(c, 2, mb_const_i32(&c->b, 0)); }
static void pad_value_float32(ctx *c) { replace_input(c, 2, scalar_f32(c, 0.f)); }

/* ---- SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND -------------------------------- */

static void build_space_to_batch(ctx *c, int32_t type) {
  const uint32_t dims[4] = {1, 2, 2, 1}, out_dims[4] = {4, 1, 1, 1}, pad_dims[2] = {2, 2};
  const int32_t block[2] = {2, 2}, paddings[4] = {0, 0, 0, 0};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  const uint32_t in[3] = {c->in, vector(c, block, 2),
                          mb_const_tensor(&c->b, I32, pad_dims, 2, paddings, sizeof(paddings))};
  one_output(c, OP(SPACE_TO_BATCH_ND), in, 3);
}

static void build_batch_to_space(ctx *c, int32_t type) {
  const uint32_t dims[4] = {4, 1, 1, 1}, out_dims[4] = {1, 2, 2, 1};
  const int32_t block[2] = {2, 2};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  const uint32_t in[2] = {c->in, vector(c, block, 2)};
  one_output(c, OP(BATCH_TO_SPACE_ND), in, 2);
}

static void s2b_paddings_rank_1(ctx *c) {
  const uint32_t four = 4;
  set_dims(c, c->op_inputs[2], &four, 1);
}
static void s2b_paddings_one_by_four(ctx *c) {
  const uint32_t dims[2] = {1, 4};
  set_dims(c, c->op_inputs[2], dims, 2);
}
static void block_0_1(ctx *c) {
  set_param(c, 1, 0, 0);
  set_param(c, 1, 1, 1);
}
static void s2b_padding_negative(ctx *c) { set_param(c, 2, 0, -1); }
static void s2b_top_padding_1(ctx *c) { set_param(c, 2, 0, 1); }
static void b2s_3_batches_block_2_1(ctx *c) {
  c->b.dims[c->in][0] = 3;
  set_param(c, 1, 1, 1);
}
static void b2s_block_3_entries(ctx *c) {
  const int32_t block[3] = {2, 2, 1};
  replace_input(c, 1, vector(c, block, 3));
}

/* ---- RESHAPE, SQUEEZE, EXPAND_DIMS ---------------------------------------- */

static void build_reshape(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {3, 2};
  const int32_t shape[2] = {3, 2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[2] = {c->in, vector(c, shape, 2)};
  one_output(c, OP(RESHAPE), in, 2);
}

static void reshape_input_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 5);
}
static void reshape_output_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 3, 2};
  set_dims(c, c->out, dims, 5);
}
/* A target of 5 entries, the output's shape left to it. */
static void reshape_target_rank_5(ctx *c) {
  const int32_t shape[5] = {1, 1, 1, 3, 2};
  replace_input(c, 1, vector(c, shape, 5));
  operand(c, c->out)->dimension_count = 0;
}

static void reshape_two_unknown(ctx *c) {
  set_param(c, 1, 0, -1);
  set_param(c, 1, 1, -1);
}
static void reshape_dimension_0(ctx *c) { set_param(c, 1, 1, 0); }
static void reshape_elements_differ(ctx *c) { set_param(c, 1, 1, 3); }
static void reshape_shape_float(ctx *c) { op_input(c, 1)->type = F32; }

static void build_squeeze(ctx *c, int32_t type) {
  const uint32_t dims[2] = {1, 3}, out_dims[1] = {3};
  const int32_t axes[1] = {0};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 1);
  const uint32_t in[2] = {c->in, vector(c, axes, 1)};
  one_output(c, OP(SQUEEZE), in, 2);
}

static void build_expand_dims(ctx *c, int32_t type) {
  const uint32_t dims[1] = {3}, out_dims[2] = {1, 3};
  c->in = data_input(c, type, dims, 1);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 0)};
  one_output(c, OP(EXPAND_DIMS), in, 2);
}

static void squeeze_axis_of_size_3(ctx *c) { set_param(c, 1, 0, 1); }
static void squeeze_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void expand_dims_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void expand_dims_axis_minus_3(ctx *c) { set_param(c, 1, 0, -3); }
static void expand_dims_axis_float(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_FLOAT32; }

/* [1, 1, 1, 1, 1, 2, 3] -> [1, 1, 1, 1, 1, 1, 2, 3]: the driver's rank limit. */
static void build_expand_dims_rank_7(ctx *c, int32_t type) {
  const uint32_t dims[7] = {1, 1, 1, 1, 1, 2, 3}, out_dims[8] = {1, 1, 1, 1, 1, 1, 2, 3};
  c->in = data_input(c, type, dims, 7);
  c->out = data_output(c, type, out_dims, 8);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 0)};
  one_output(c, OP(EXPAND_DIMS), in, 2);
}

static void expand_dims_input_rank_8(ctx *c) {
  const uint32_t dims[8] = {1, 1, 1, 1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 8);
  operand(c, c->out)->dimension_count = 0;
}

/* The same into a temporary of unknown rank, expanded again: a result of
 * rank 9, above the driver's limit (8), which a model can reach only through
 * a rank it leaves unknown (an input of rank 8 is rejected). */
static void build_expand_dims_rank_9(ctx *c, int32_t type) {
  const uint32_t dims[7] = {1, 1, 1, 1, 1, 2, 3};
  uint32_t x = data_input(c, type, dims, 7), t = mb_temporary(&c->b, type, NULL, 0);
  const uint32_t first[2] = {x, mb_const_i32(&c->b, 0)};
  mb_operation(&c->b, OP(EXPAND_DIMS), first, 2, &t, 1);
  c->in = t;
  c->out = data_output(c, type, NULL, 0);
  const uint32_t in[2] = {t, mb_const_i32(&c->b, 0)};
  one_output(c, OP(EXPAND_DIMS), in, 2);
}

/* NNAPI sets no rank limit: tensors of rank 9 (the driver's arrays hold 8)
 * make a valid model whose operations are unsupported (they were INVALID). */
static const uint32_t kRank9[9] = {1, 1, 1, 1, 1, 1, 1, 2, 3};
static void to_rank_9(vknn_operand *o) {
  o->dimensions = kRank9;
  o->dimension_count = 9;
}
static void input_and_output_rank_9(ctx *c) {
  to_rank_9(operand(c, c->in));
  to_rank_9(operand(c, c->out));
}
static void output_rank_9(ctx *c) { to_rank_9(operand(c, c->out)); }

/* ---- GATHER: [3, 2] by indices {0, 2} along axis 0 ----------------------- */

static void build_gather(ctx *c, int32_t type) {
  const uint32_t dims[2] = {3, 2}, out_dims[2] = {2, 2};
  const int32_t indices[2] = {0, 2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[3] = {c->in, mb_const_i32(&c->b, 0), vector(c, indices, 2)};
  one_output(c, OP(GATHER), in, 3);
}

static void gather_index_past_end(ctx *c) { set_param(c, 2, 1, 3); }
static void gather_index_negative(ctx *c) { set_param(c, 2, 0, -1); }
static void gather_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void gather_indices_float(ctx *c) { op_input(c, 2)->type = F32; }

/* ---- FILL, RANK, DEQUANTIZE, QUANTIZE, SELECT, CONCATENATION, SOFTMAX ----- */

static void build_fill(ctx *c, int32_t type) {
  (void)type;
  const uint32_t out_dims[2] = {2, 3};
  const int32_t shape[2] = {2, 3};
  c->out = data_output(c, F32, out_dims, 2);
  const uint32_t in[2] = {vector(c, shape, 2), scalar_f32(c, 1.f)};
  one_output(c, OP(FILL), in, 2);
}

/* The shape comes from the execution; only its length is known. */
static void build_fill_runtime(ctx *c, int32_t type) {
  (void)type;
  const uint32_t out_dims[2] = {2, 3}, two = 2;
  c->out = data_output(c, F32, out_dims, 2);
  const uint32_t in[2] = {mb_input(&c->b, I32, &two, 1), scalar_f32(c, 1.f)};
  one_output(c, OP(FILL), in, 2);
}

static void fill_shape_rank_2(ctx *c) { as_matrix(c, 0); }
static void fill_output_quant8(ctx *c) {
  operand(c, c->out)->type = Q8;
  operand(c, c->out)->scale = 0.5f;
}
static void fill_value_int32(ctx *c) { replace_input(c, 1, mb_const_i32(&c->b, 1)); }
static void fill_dimension_0(ctx *c) { set_param(c, 0, 1, 0); }
static void fill_dimension_negative(ctx *c) { set_param(c, 0, 0, -2); }
static void rank_output_float(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_FLOAT32; }
static void fill_output_rank_3(ctx *c) {
  const uint32_t dims[3] = {2, 3, 1};
  set_dims(c, c->out, dims, 3);
}

static void build_rank(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = mb_output(&c->b, VKNN_OPERAND_INT32, NULL, 0);
  one_output(c, OP(RANK), &c->in, 1);
}

static void build_dequantize(ctx *c, int32_t type) {
  (void)type;
  const uint32_t dims[4] = {1, 1, 2, 3};
  c->in = data_input(c, Q8, dims, 4);
  c->out = data_output(c, F32, dims, 4);
  one_output(c, OP(DEQUANTIZE), &c->in, 1);
}

static void dequantize_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 5);
  set_dims(c, c->out, dims, 5);
}

static void build_quantize(ctx *c, int32_t type) {
  (void)type;
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, F32, dims, 2);
  c->out = data_output(c, Q8, dims, 2);
  one_output(c, OP(QUANTIZE), &c->in, 1);
}

static void output_int32(ctx *c) {
  operand(c, c->out)->type = I32;
  operand(c, c->out)->scale = 0.f;
}

static void build_select(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  uint32_t condition = mb_input(&c->b, VKNN_OPERAND_TENSOR_BOOL8, dims, 2);
  c->in = data_input(c, type, dims, 2);
  uint32_t other = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  const uint32_t in[3] = {condition, c->in, other};
  one_output(c, OP(SELECT), in, 3);
}

static void select_condition_int32(ctx *c) { op_input(c, 0)->type = I32; }
static void select_input_2_float16(ctx *c) { op_input(c, 2)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void select_output_float16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void select_bool8_data(ctx *c) {
  operand(c, c->in)->type = op_input(c, 2)->type = operand(c, c->out)->type = VKNN_OPERAND_TENSOR_BOOL8;
}
static void select_input_2_dims(ctx *c) { c->b.dims[c->op_inputs[2]][1] = 4; }

static void build_concatenation(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {4, 3};
  c->in = data_input(c, type, dims, 2);
  uint32_t other = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[3] = {c->in, other, mb_const_i32(&c->b, 0)};
  one_output(c, OP(CONCATENATION), in, 3);
}

static void concatenation_input_1_float16(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void concatenation_input_1_4_wide(ctx *c) { c->b.dims[c->op_inputs[1]][1] = 4; }
static void concatenation_axis_2(ctx *c) { set_param(c, 2, 0, 2); }
static void concatenation_axis_float(ctx *c) { replace_input(c, 2, scalar_f32(c, 0.f)); }
/* Quant8 inputs of scales 0.5 and 0.25 into an output of scale 1: requantized. */
static void concatenation_encodings_differ_ok(ctx *c) {
  op_input(c, 1)->scale = 0.25f;
  op_input(c, 1)->zero_point = 3;
  operand(c, c->out)->scale = 1.f;
  operand(c, c->out)->zero_point = 5;
}

static void build_softmax(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  if (type == Q8) operand(c, c->out)->scale = 1.f / 256;
  const uint32_t in[2] = {c->in, scalar_f32(c, 1.f)};
  one_output(c, OP(SOFTMAX), in, 2);
}

/* ---- L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, INSTANCE_NORMALIZATION,
 * LOG_SOFTMAX: [2, 3] (INSTANCE_NORMALIZATION [1, 2, 2, 3]) ------------------ */

#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED

/* A float parameter of the scalar type that goes with a data type. */
static uint32_t float_param(ctx *c, int32_t type, float value) {
  if (type != F16) return scalar_f32(c, value);
  uint16_t h = cts_float_to_half(value);
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT16, NULL, 0, &h, sizeof(h));
}

/* Data input and output of a normalization; quantized: input scale 0.5,
 * output 1/128 with zero point 128 (0 signed), as L2_NORMALIZATION needs. */
static void norm_data(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  c->in = data_input(c, type, dims, rank);
  c->out = data_output(c, type, dims, rank);
  if (type != Q8 && type != Q8S) return;
  operand(c, c->in)->scale = 0.5f;
  operand(c, c->out)->scale = 1.f / 128;
  operand(c, c->out)->zero_point = type == Q8 ? 128 : 0;
}

static void build_l2(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  norm_data(c, type, dims, 2);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, -1)};
  one_output(c, OP(L2_NORMALIZATION), in, 2);
}

static void build_l2_extra_input(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  norm_data(c, type, dims, 2);
  const uint32_t in[3] = {c->in, mb_const_i32(&c->b, -1), mb_const_i32(&c->b, 0)};
  one_output(c, OP(L2_NORMALIZATION), in, 3);
}

static void build_lrn(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  norm_data(c, type, dims, 2);
  const uint32_t in[6] = {c->in, mb_const_i32(&c->b, 1), float_param(c, type, 1.f),
                          float_param(c, type, 0.5f), float_param(c, type, 0.75f),
                          mb_const_i32(&c->b, 1)};
  one_output(c, OP(LOCAL_RESPONSE_NORMALIZATION), in, 6);
}

static void build_instance_norm(ctx *c, int32_t type) {
  const uint32_t dims[4] = {1, 2, 2, 3};
  const uint8_t nchw = 0;
  norm_data(c, type, dims, 4);
  const uint32_t in[5] = {c->in, float_param(c, type, 1.f), float_param(c, type, 0.f),
                          float_param(c, type, 1e-4f),
                          mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &nchw, 1)};
  one_output(c, OP(INSTANCE_NORMALIZATION), in, 5);
}

static void build_log_softmax(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  norm_data(c, type, dims, 2);
  const uint32_t in[3] = {c->in, float_param(c, type, 1.f), mb_const_i32(&c->b, -1)};
  one_output(c, OP(LOG_SOFTMAX), in, 3);
}

/* The operation's last input dropped. */
static void drop_last_input(ctx *c) {
  c->b.operations[0].input_count--;
  op_input(c, c->b.operations[0].input_count)->number_of_consumers--;
}
static void input_int32(ctx *c) { operand(c, c->in)->type = I32; }
static void input_quant8(ctx *c) {
  operand(c, c->in)->type = Q8;
  operand(c, c->in)->scale = 0.5f;
  operand(c, c->out)->type = Q8;
  operand(c, c->out)->scale = 0.5f;
}
static void output_float16(ctx *c) { operand(c, c->out)->type = F16; }
static void data_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 5);
  set_dims(c, c->out, dims, 5);
}
static void data_rank_3(ctx *c) {
  const uint32_t dims[3] = {2, 2, 3};
  set_dims(c, c->in, dims, 3);
  set_dims(c, c->out, dims, 3);
}
static void output_dims_differ(ctx *c) { c->b.dims[c->out][1] = 4; }
static void output_zero_point_0(ctx *c) { operand(c, c->out)->zero_point = 0; }
static void output_zero_point_minus_128(ctx *c) { operand(c, c->out)->zero_point = -128; }
static void output_scale_1_256(ctx *c) { operand(c, c->out)->scale = 1.f / 256; }
static void set_f32_param(ctx *c, uint32_t k, float value) {
  const vknn_operand *o = op_input(c, k);
  memcpy(c->b.values + o->location.offset, &value, sizeof(value));
}
/* L2_NORMALIZATION's axis (input 1). */
static void l2_axis_float(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_FLOAT32; }
static void l2_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void l2_axis_minus_3(ctx *c) { set_param(c, 1, 0, -3); }
static void l2_axis_minus_2(ctx *c) { set_param(c, 1, 0, -2); }
/* LRN: radius 1, bias 2, alpha 3, beta 4, axis 5. */
static void lrn_radius_float(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_FLOAT32; }
static void lrn_bias_int32(ctx *c) { op_input(c, 2)->type = VKNN_OPERAND_INT32; }
static void lrn_alpha_int32(ctx *c) { op_input(c, 3)->type = VKNN_OPERAND_INT32; }
static void lrn_beta_int32(ctx *c) { op_input(c, 4)->type = VKNN_OPERAND_INT32; }
static void lrn_bias_float32(ctx *c) { replace_input(c, 2, scalar_f32(c, 1.f)); }
static void lrn_axis_float(ctx *c) { op_input(c, 5)->type = VKNN_OPERAND_FLOAT32; }
static void lrn_axis_2(ctx *c) { set_param(c, 5, 0, 2); }
static void lrn_axis_minus_3(ctx *c) { set_param(c, 5, 0, -3); }
static void lrn_bias_zero(ctx *c) { set_f32_param(c, 2, 0.f); }
static void lrn_radius_negative(ctx *c) { set_param(c, 1, 0, -1); }
static void lrn_drop_two_inputs(ctx *c) {
  drop_last_input(c);
  drop_last_input(c);
}
/* INSTANCE_NORMALIZATION: gamma 1, beta 2, epsilon 3, layout 4. */
static void instance_gamma_int32(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_INT32; }
static void instance_beta_int32(ctx *c) { op_input(c, 2)->type = VKNN_OPERAND_INT32; }
static void instance_epsilon_int32(ctx *c) { op_input(c, 3)->type = VKNN_OPERAND_INT32; }
static void instance_epsilon_float32(ctx *c) { replace_input(c, 3, scalar_f32(c, 1e-4f)); }
static void instance_layout_int32(ctx *c) { replace_input(c, 4, mb_const_i32(&c->b, 0)); }
static void instance_nchw(ctx *c) {
  const uint8_t nchw = 1;
  replace_input(c, 4, mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &nchw, 1));
}
/* LOG_SOFTMAX and SOFTMAX: beta 1, axis 2. */
static void softmax_beta_int32(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_INT32; }
static void softmax_beta_float32(ctx *c) { replace_input(c, 1, scalar_f32(c, 1.f)); }
static void softmax_axis_float(ctx *c) { op_input(c, 2)->type = VKNN_OPERAND_FLOAT32; }
static void softmax_axis_2(ctx *c) { set_param(c, 2, 0, 2); }
static void softmax_axis_minus_3(ctx *c) { set_param(c, 2, 0, -3); }
static void softmax_beta_zero(ctx *c) { set_f32_param(c, 1, 0.f); }
static void softmax_beta_negative(ctx *c) { set_f32_param(c, 1, -1.f); }
static void softmax_with_axis(ctx *c) {
  const uint32_t in[3] = {c->op_inputs[0], c->op_inputs[1], mb_const_i32(&c->b, 5)};
  c->b.operation_count = 0;
  c->b.index_count = 0;
  operand(c, in[0])->number_of_consumers = 0;
  operand(c, in[1])->number_of_consumers = 0;
  one_output(c, OP(SOFTMAX), in, 3);
}

/* ---- Elementwise: ADD, MUL, MAXIMUM, POW, PRELU, LESS, LOGICAL_AND, unary - */

static void build_binary(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  uint32_t other = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  if (type == Q8) operand(c, c->out)->scale = 1.f; /* above 0.5 * 0.5 */
  const uint32_t in[3] = {c->in, other, mb_const_i32(&c->b, VKNN_FUSED_NONE)};
  one_output(c, op_type, in, 3);
}
static void build_mul(ctx *c, int32_t type) { build_binary(c, type, OP(MUL)); }
static void build_add(ctx *c, int32_t type) { build_binary(c, type, OP(ADD)); }

static void mul_output_scale_equal(ctx *c) { operand(c, c->out)->scale = 0.25f; }
static void mul_output_scale_below(ctx *c) { operand(c, c->out)->scale = 0.125f; }
static void fused_relu(ctx *c) { set_param(c, 2, 0, VKNN_FUSED_RELU); }

/* MAXIMUM, POW, PRELU, LESS, LOGICAL_AND: two inputs, no activation. */
static void build_two_inputs(ctx *c, int32_t type, int32_t op_type, int32_t out_type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  const uint32_t in[2] = {c->in, data_input(c, type, dims, 2)};
  c->out = data_output(c, out_type, dims, 2);
  one_output(c, op_type, in, 2);
}
static void build_maximum(ctx *c, int32_t type) { build_two_inputs(c, type, OP(MAXIMUM), type); }
static void build_pow(ctx *c, int32_t type) { build_two_inputs(c, type, OP(POW), type); }
static void build_prelu(ctx *c, int32_t type) { build_two_inputs(c, type, OP(PRELU), type); }
static void build_less(ctx *c, int32_t type) {
  build_two_inputs(c, type, OP(LESS), VKNN_OPERAND_TENSOR_BOOL8);
}
static void build_logical_and(ctx *c, int32_t type) {
  build_two_inputs(c, type, OP(LOGICAL_AND), VKNN_OPERAND_TENSOR_BOOL8);
}

static void input_1_float16(ctx *c) { op_input(c, 1)->type = F16; }
static void output_of_input_type(ctx *c) { operand(c, c->out)->type = operand(c, c->in)->type; }

static void build_unary(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  one_output(c, op_type, &c->in, 1);
}
static void build_relu(ctx *c, int32_t type) { build_unary(c, type, OP(RELU)); }
static void build_relu6(ctx *c, int32_t type) { build_unary(c, type, OP(RELU6)); }
static void build_relu1(ctx *c, int32_t type) { build_unary(c, type, OP(RELU1)); }
static void build_logistic(ctx *c, int32_t type) {
  build_unary(c, type, OP(LOGISTIC));
  operand(c, c->out)->scale = 1.f / 256;
}
static void build_tanh(ctx *c, int32_t type) {
  build_unary(c, type, OP(TANH));
  operand(c, c->out)->scale = 1.f / 128;
  operand(c, c->out)->zero_point = 128;
}
static void build_exp(ctx *c, int32_t type) { build_unary(c, type, OP(EXP)); }
static void build_hard_swish(ctx *c, int32_t type) { build_unary(c, type, OP(HARD_SWISH)); }
static void build_elu(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, dims, 2);
  const uint32_t in[2] = {c->in, float_param(c, type, 1.f)};
  one_output(c, OP(ELU), in, 2);
}

/* Quant8 data made signed, the zero points kept (LOGISTIC's output 0). */
static void quant8_signed(ctx *c) { operand(c, c->in)->type = operand(c, c->out)->type = Q8S; }
static void quant8_signed_output_zero_point_minus_128(ctx *c) {
  quant8_signed(c);
  operand(c, c->out)->zero_point = -128;
}
/* ELU: alpha 1. */
static void elu_alpha_int32(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_INT32; }
static void elu_alpha_float32(ctx *c) { replace_input(c, 1, scalar_f32(c, 1.f)); }

/* ---- CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, pools ------------------ */

static const float channel_scales[2] = {0.25f, 0.5f};

/* [1, 3, 3, 2] -> [1, 3, 3, 2], 1x1 filter, implicit padding SAME; quant8
 * with bias scale = 0.5 * 0.5. */
static void build_conv_family(ctx *c, int32_t type, bool depthwise) {
  const uint32_t dims[4] = {1, 3, 3, 2}, filter_dims[4] = {depthwise ? 1 : 2, 1, 1, 2};
  const uint32_t bias_dims[1] = {2};
  const uint8_t filter_q8[4] = {1, 2, 3, 4};
  const float filter_f32[4] = {1.f, 2.f, 3.f, 4.f}, bias_f32[2] = {0.f, 1.f};
  const int32_t bias_i32[2] = {0, 1};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, dims, 4);
  operand(c, c->out)->scale = type == Q8 ? 1.f : 0.f;
  bool quant = type == Q8;
  uint32_t filter_count = filter_dims[0] * 2; /* 1x1 windows of 2 channels */
  uint32_t filter = mb_const_tensor(&c->b, type, filter_dims, 4, quant ? (const void *)filter_q8 : filter_f32,
                                    filter_count * (quant ? 1 : sizeof(float)));
  uint32_t bias = mb_const_tensor(&c->b, quant ? I32 : F32, bias_dims, 1,
                                  quant ? (const void *)bias_i32 : bias_f32, 8);
  operand(c, filter)->scale = scale_of(type);
  operand(c, bias)->scale = quant ? 0.25f : 0.f;
  uint32_t in[8] = {c->in, filter, bias, mb_const_i32(&c->b, 1), mb_const_i32(&c->b, 1),
                    mb_const_i32(&c->b, 1), 0, 0};
  uint32_t n = 6;
  if (depthwise) in[n++] = mb_const_i32(&c->b, 1); /* multiplier */
  in[n++] = mb_const_i32(&c->b, VKNN_FUSED_NONE);
  one_output(c, depthwise ? OP(DEPTHWISE_CONV_2D) : OP(CONV_2D), in, n);
}
static void build_conv(ctx *c, int32_t type) { build_conv_family(c, type, false); }
/* The bias a model input of unknown size: compiled per execution. */
static void conv_bias_size_unknown(ctx *c) {
  const uint32_t unknown = 0;
  replace_input(c, 2, mb_input(&c->b, F32, &unknown, 1));
}
static void build_depthwise(ctx *c, int32_t type) { build_conv_family(c, type, true); }
/* The input's height (and so the output's) left to the execution: the
 * scalar parameters' rules need no shape and are still checked at prepare. */
static void height_unknown(ctx *c) {
  c->b.dims[c->in][1] = 0;
  c->b.dims[c->out][1] = 0;
}
static void conv_stride_0_height_unknown(ctx *c) {
  height_unknown(c);
  set_param(c, 4, 0, 0);
}
static void conv_activation_4_height_unknown(ctx *c) {
  height_unknown(c);
  set_param(c, c->input_count - 1, 0, 4);
}
/* A stride the execution gives (a model input): compiled per execution. */
static void conv_stride_input(ctx *c) {
  replace_input(c, 4, mb_input(&c->b, VKNN_OPERAND_INT32, NULL, 0));
}
/* The filter a model input whose first dimension only the execution gives. */
static void depthwise_filter_dim0_unknown(ctx *c) {
  const uint32_t dims[4] = {0, 1, 1, 2};
  replace_input(c, 1, mb_input(&c->b, F32, dims, 4));
}
static void depthwise_filter_dim0_2(ctx *c) {
  const uint32_t dims[4] = {2, 1, 1, 2};
  const float values[4] = {1.f, 2.f, 3.f, 4.f};
  replace_input(c, 1, mb_const_tensor(&c->b, F32, dims, 4, values, sizeof(values)));
}

static void bias_scale_off(ctx *c) { op_input(c, 2)->scale = 0.3f; }
static void per_channel_filter(ctx *c, uint32_t channel_dim) {
  vknn_operand *filter = op_input(c, 1);
  filter->type = PER_CHANNEL;
  filter->scale = 0.f;
  filter->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  filter->extra_params.channel_quant.channel_dim = channel_dim;
  filter->extra_params.channel_quant.scale_count = 2;
  filter->extra_params.channel_quant.scales = channel_scales;
}
static void conv_per_channel_ok(ctx *c) {
  per_channel_filter(c, 0);
  op_input(c, 2)->scale = 0.f;
}
static void conv_per_channel_bias_scale(ctx *c) { per_channel_filter(c, 0); }
static void depthwise_per_channel_ok(ctx *c) {
  per_channel_filter(c, 3);
  op_input(c, 2)->scale = 0.f;
}
static void depthwise_per_channel_bias_scale(ctx *c) { per_channel_filter(c, 3); }
static void padding_code_3(ctx *c) { set_param(c, 3, 0, 3); }
static void padding_code_0(ctx *c) { set_param(c, 3, 0, 0); }

/* ---- GROUPED_CONV_2D, TRANSPOSE_CONV_2D ----------------------------------- */

static uint32_t const_bool(ctx *c, bool value) {
  const uint8_t byte = value;
  return mb_const_tensor(&c->b, VKNN_OPERAND_BOOL, NULL, 0, &byte, 1);
}

/* A 1x1 filter [2, 1, 1, 2] and bias [2]: quant8 with bias scale 0.5 * 0.5. */
static void conv_weights(ctx *c, int32_t type, const uint32_t *filter_dims, uint32_t *filter,
                         uint32_t *bias) {
  const uint32_t bias_dims[1] = {2};
  const uint8_t filter_q8[16] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};
  const float filter_f32[16] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}, bias_f32[2] = {0, 1};
  const int32_t bias_i32[2] = {0, 1};
  bool quant = type == Q8;
  uint32_t count = filter_dims[0] * filter_dims[1] * filter_dims[2] * filter_dims[3];
  *filter = mb_const_tensor(&c->b, type, filter_dims, 4, quant ? (const void *)filter_q8 : filter_f32,
                            count * (quant ? 1 : sizeof(float)));
  *bias = mb_const_tensor(&c->b, quant ? I32 : F32, bias_dims, 1,
                          quant ? (const void *)bias_i32 : bias_f32, 8);
  operand(c, *filter)->scale = scale_of(type);
  operand(c, *bias)->scale = quant ? 0.25f : 0.f;
}

/* [1, 3, 3, 4] -> [1, 3, 3, 2]: 2 groups of 2 input channels, one output
 * channel each; implicit padding SAME, or explicit padding 0. */
static void build_grouped_from(ctx *c, int32_t type, bool explicit_padding) {
  const uint32_t dims[4] = {1, 3, 3, 4}, out_dims[4] = {1, 3, 3, 2}, filter_dims[4] = {2, 1, 1, 2};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  operand(c, c->out)->scale = type == Q8 ? 1.f : 0.f;
  uint32_t filter, bias;
  conv_weights(c, type, filter_dims, &filter, &bias);
  uint32_t in[12] = {c->in, filter, bias}, n = 3, zero = mb_const_i32(&c->b, 0);
  if (explicit_padding) {
    for (int i = 0; i < 4; ++i) in[n++] = zero;
  } else {
    in[n++] = mb_const_i32(&c->b, 1); /* SAME */
  }
  in[n++] = mb_const_i32(&c->b, 1);
  in[n++] = mb_const_i32(&c->b, 1);
  in[n++] = mb_const_i32(&c->b, 2); /* groups */
  in[n++] = mb_const_i32(&c->b, VKNN_FUSED_NONE);
  in[n++] = const_bool(c, false);
  one_output(c, OP(GROUPED_CONV_2D), in, n);
}
static void build_grouped(ctx *c, int32_t type) { build_grouped_from(c, type, false); }
static void build_grouped_explicit(ctx *c, int32_t type) { build_grouped_from(c, type, true); }
static void grouped_8_inputs(ctx *c) {
  c->b.operations[0].input_count = 8;
  op_input(c, 8)->number_of_consumers = 0;
}
/* The explicit form less its activation and layout. */
static void grouped_10_inputs(ctx *c) {
  c->b.operations[0].input_count = 10;
  op_input(c, 10)->number_of_consumers = 0;
  op_input(c, 11)->number_of_consumers = 0;
}
static void grouped_negative_padding(ctx *c) { set_param(c, 4, 0, -1); }
static void grouped_groups_0(ctx *c) { set_param(c, 6, 0, 0); }
static void grouped_groups_3(ctx *c) { set_param(c, 6, 0, 3); } /* 4 inputs, 2 outputs */
static void grouped_groups_4(ctx *c) { set_param(c, 6, 0, 4); } /* 4 * 2 != 4 inputs */
static void grouped_stride_0(ctx *c) { set_param(c, 4, 0, 0); }
static void grouped_activation_4(ctx *c) { set_param(c, 7, 0, 4); }
static void grouped_layout_int(ctx *c) { replace_input(c, 8, mb_const_i32(&c->b, 0)); }
static void grouped_groups_float(ctx *c) { replace_input(c, 6, scalar_f32(c, 2.f)); }
static void grouped_filter_rank_3(ctx *c) {
  const uint32_t dims[3] = {2, 1, 2};
  set_dims(c, c->op_inputs[1], dims, 3);
}
static void conv_input_rank_3(ctx *c) {
  const uint32_t dims[3] = {3, 3, 4};
  set_dims(c, c->in, dims, 3);
}
static void conv_bias_3(ctx *c) {
  const uint32_t three = 3;
  replace_input(c, 2, mb_input(&c->b, op_input(c, 2)->type, &three, 1));
}
static void conv_filter_int32(ctx *c) { op_input(c, 1)->type = I32; }
static void per_channel_dim_3(ctx *c) {
  per_channel_filter(c, 3);
  op_input(c, 2)->scale = 0.f;
}
static void conv_output_int32(ctx *c) { operand(c, c->out)->type = I32; }

/* [1, 2, 2, 2] -> [1, 4, 4, 2]: a 2x2 window at stride 2, explicit padding 0. */
static void build_transpose_conv(ctx *c, int32_t type) {
  const uint32_t dims[4] = {1, 2, 2, 2}, out_dims[4] = {1, 4, 4, 2}, filter_dims[4] = {2, 2, 2, 2};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  operand(c, c->out)->scale = type == Q8 ? 1.f : 0.f;
  uint32_t filter, bias;
  conv_weights(c, type, filter_dims, &filter, &bias);
  uint32_t zero = mb_const_i32(&c->b, 0), two = mb_const_i32(&c->b, 2);
  const uint32_t in[11] = {c->in, filter, bias, zero, zero, zero, zero, two, two,
                           mb_const_i32(&c->b, VKNN_FUSED_NONE), const_bool(c, false)};
  one_output(c, OP(TRANSPOSE_CONV_2D), in, 11);
}

/* The same with implicit padding VALID and the output shape as input 3:
 * a constant, or (shape_input) a model input. */
static void build_transpose_implicit_from(ctx *c, int32_t type, bool shape_input) {
  const uint32_t dims[4] = {1, 2, 2, 2}, out_dims[4] = {1, 4, 4, 2}, filter_dims[4] = {2, 2, 2, 2};
  const int32_t shape[4] = {1, 4, 4, 2};
  const uint32_t four = 4;
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  operand(c, c->out)->scale = type == Q8 ? 1.f : 0.f;
  uint32_t filter, bias;
  conv_weights(c, type, filter_dims, &filter, &bias);
  uint32_t two = mb_const_i32(&c->b, 2);
  uint32_t shape_operand = shape_input ? mb_input(&c->b, I32, &four, 1) : vector(c, shape, 4);
  const uint32_t in[9] = {c->in, filter, bias, shape_operand, mb_const_i32(&c->b, 2), two, two,
                          mb_const_i32(&c->b, VKNN_FUSED_NONE), const_bool(c, false)};
  one_output(c, OP(TRANSPOSE_CONV_2D), in, 9);
}
static void build_transpose_implicit(ctx *c, int32_t type) {
  build_transpose_implicit_from(c, type, false);
}
static void build_transpose_runtime_shape(ctx *c, int32_t type) {
  build_transpose_implicit_from(c, type, true);
}
static void transpose_10_inputs(ctx *c) {
  c->b.operations[0].input_count = 10;
  op_input(c, 10)->number_of_consumers = 0;
}
static void transpose_pad_left_negative(ctx *c) { set_param(c, 3, 0, -1); }
static void transpose_pad_top_negative(ctx *c) { set_param(c, 5, 0, -1); }
static void transpose_pads_past_output(ctx *c) {
  set_param(c, 3, 0, 2);
  set_param(c, 4, 0, 2);
}
static void transpose_stride_0(ctx *c) { set_param(c, 8, 0, 0); }
static void transpose_stride_0_height_unknown(ctx *c) {
  height_unknown(c);
  transpose_stride_0(c);
}
static void transpose_activation_minus_1(ctx *c) { set_param(c, 9, 0, -1); }
static void transpose_layout_int(ctx *c) { replace_input(c, 10, mb_const_i32(&c->b, 0)); }
static void transpose_in_channels_3(ctx *c) {
  const uint32_t dims[4] = {1, 2, 2, 3};
  set_dims(c, c->in, dims, 4);
}
static void transpose_implicit_padding_3(ctx *c) { set_param(c, 4, 0, 3); }
static void transpose_shape_rank_2(ctx *c) { as_matrix(c, 3); }
static void transpose_shape_float(ctx *c) { op_input(c, 3)->type = F32; }
static void transpose_shape_3_entries(ctx *c) {
  const int32_t shape[3] = {1, 4, 4};
  replace_input(c, 3, vector(c, shape, 3));
}
static void transpose_output_5_wide(ctx *c) { c->b.dims[c->out][2] = 5; }

/* [2, 2] x [3, 2]' -> [2, 3]. */
static void build_fully_connected(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 2}, weight_dims[2] = {3, 2}, bias_dims[1] = {3}, out_dims[2] = {2, 3};
  const uint8_t weights_q8[6] = {1, 2, 3, 4, 5, 6};
  const float weights_f32[6] = {1, 2, 3, 4, 5, 6}, bias_f32[3] = {0};
  const int32_t bias_i32[3] = {0};
  bool quant = type == Q8;
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  operand(c, c->out)->scale = quant ? 1.f : 0.f;
  uint32_t weights = mb_const_tensor(&c->b, type, weight_dims, 2, quant ? (const void *)weights_q8 : weights_f32,
                                     quant ? sizeof(weights_q8) : sizeof(weights_f32));
  uint32_t bias = mb_const_tensor(&c->b, quant ? I32 : F32, bias_dims, 1,
                                  quant ? (const void *)bias_i32 : bias_f32, 12);
  operand(c, weights)->scale = scale_of(type);
  operand(c, bias)->scale = quant ? 0.25f : 0.f;
  const uint32_t in[4] = {c->in, weights, bias, mb_const_i32(&c->b, VKNN_FUSED_NONE)};
  one_output(c, OP(FULLY_CONNECTED), in, 4);
}

/* A bias of 4 for 3 units; with the batch left to the execution too (the
 * rule holds at prepare whatever the input). */
static void fc_bias_4(ctx *c) {
  const uint32_t four = 4;
  replace_input(c, 2, mb_input(&c->b, F32, &four, 1));
}
static void fc_bias_4_batch_unknown(ctx *c) {
  fc_bias_4(c);
  c->b.dims[c->in][0] = 0;
  c->b.dims[c->out][0] = 0;
}

/* A 2x2 pool (op_type) over [1, 2, 2, 1], implicit padding VALID; with
 * `layout`, an NHWC layout input too. */
static void build_pool(ctx *c, int32_t type, int32_t op_type, bool layout) {
  const uint32_t dims[4] = {1, 2, 2, 1}, out_dims[4] = {1, 1, 1, 1};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  uint32_t in[8] = {c->in, mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 1),
                    mb_const_i32(&c->b, 1), mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 2),
                    mb_const_i32(&c->b, VKNN_FUSED_NONE)};
  if (layout) in[7] = const_bool(c, false);
  one_output(c, op_type, in, layout ? 8 : 7);
}
static void build_average_pool(ctx *c, int32_t type) { build_pool(c, type, OP(AVERAGE_POOL_2D), false); }
static void build_average_pool_layout(ctx *c, int32_t type) { build_pool(c, type, OP(AVERAGE_POOL_2D), true); }
static void build_max_pool(ctx *c, int32_t type) { build_pool(c, type, OP(MAX_POOL_2D), false); }
static void build_l2_pool(ctx *c, int32_t type) { build_pool(c, type, OP(L2_POOL_2D), false); }
static void pool_padding_code_minus_1(ctx *c) { set_param(c, 1, 0, -1); }
static void pool_padding_code_0(ctx *c) { set_param(c, 1, 0, 0); }
static void pool_stride_0(ctx *c) { set_param(c, 2, 0, 0); }
static void pool_stride_0_height_unknown(ctx *c) {
  height_unknown(c);
  pool_stride_0(c);
}
static void pool_filter_width_0(ctx *c) { set_param(c, 4, 0, 0); }
static void pool_activation_4(ctx *c) { set_param(c, 6, 0, 4); }
static void pool_layout_int32(ctx *c) { replace_input(c, 7, mb_const_i32(&c->b, 0)); }
static void pool_output_rank_3(ctx *c) {
  const uint32_t dims[3] = {1, 1, 1};
  set_dims(c, c->out, dims, 3);
}

/* The explicit form of build_average_pool's op (op_type) over [1, 2, 2, 1]
 * with a 2x2 filter at stride 1 and left padding `left`: [1, 1, 1 + left, 1]. */
static void build_pool_padded(ctx *c, int32_t type, int32_t op_type, int32_t left) {
  const uint32_t dims[4] = {1, 2, 2, 1}, out_dims[4] = {1, 1, 1 + (uint32_t)left, 1};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  uint32_t zero = mb_const_i32(&c->b, 0), one = mb_const_i32(&c->b, 1), two = mb_const_i32(&c->b, 2);
  const uint32_t in[10] = {c->in, mb_const_i32(&c->b, left), zero, zero, zero, one, one, two, two,
                           mb_const_i32(&c->b, VKNN_FUSED_NONE)};
  one_output(c, op_type, in, 10);
}
static void build_average_pool_explicit(ctx *c, int32_t type) { build_pool_padded(c, type, OP(AVERAGE_POOL_2D), 0); }
static void build_average_pool_pad_1(ctx *c, int32_t type) { build_pool_padded(c, type, OP(AVERAGE_POOL_2D), 1); }
static void build_average_pool_pad_2(ctx *c, int32_t type) { build_pool_padded(c, type, OP(AVERAGE_POOL_2D), 2); }
static void build_max_pool_pad_2(ctx *c, int32_t type) { build_pool_padded(c, type, OP(MAX_POOL_2D), 2); }
static void build_l2_pool_pad_2(ctx *c, int32_t type) { build_pool_padded(c, type, OP(L2_POOL_2D), 2); }
static void pool_left_padding_negative(ctx *c) { set_param(c, 1, 0, -1); }


/* ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: [1, 2, 2, 1] -> [1, 3, 3, 1] */

static uint32_t scalar_f16(ctx *c, uint16_t bits) {
  return mb_const_tensor(&c->b, VKNN_OPERAND_FLOAT16, NULL, 0, &bits, sizeof(bits));
}

#define HALF_1_5 0x3e00 /* 1.5 in float16 */

/* Width and height 3 as INT32 sizes, or as 1.5 scales; then `flags` BOOLs
 * (layout, align_corners, half_pixel_centers), all false. */
static void build_resize_op(ctx *c, int32_t type, int32_t op_type, bool scales, uint32_t flags) {
  const uint32_t dims[4] = {1, 2, 2, 1}, out_dims[4] = {1, 3, 3, 1};
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  uint32_t in[6] = {c->in, 0, 0, 0, 0, 0};
  for (uint32_t i = 1; i <= 2; ++i)
    in[i] = !scales ? mb_const_i32(&c->b, 3) : type == VKNN_OPERAND_TENSOR_FLOAT16 ? scalar_f16(c, HALF_1_5)
                                                                                 : scalar_f32(c, 1.5f);
  for (uint32_t i = 0; i < flags; ++i) in[3 + i] = const_bool(c, false);
  one_output(c, op_type, in, 3 + flags);
}
static void build_resize_bilinear(ctx *c, int32_t type) { build_resize_op(c, type, OP(RESIZE_BILINEAR), false, 0); }
static void build_resize_bilinear_scales(ctx *c, int32_t type) {
  build_resize_op(c, type, OP(RESIZE_BILINEAR), true, 0);
}
static void build_resize_bilinear_flags(ctx *c, int32_t type) {
  build_resize_op(c, type, OP(RESIZE_BILINEAR), false, 3);
}
static void build_resize_nearest(ctx *c, int32_t type) {
  build_resize_op(c, type, OP(RESIZE_NEAREST_NEIGHBOR), false, 1);
}
static void build_resize_nearest_scales(ctx *c, int32_t type) {
  build_resize_op(c, type, OP(RESIZE_NEAREST_NEIGHBOR), true, 3);
}

/* Sets the BOOL constant of operation input k. */
static void set_flag(ctx *c, uint32_t k, bool value) {
  c->b.values[op_input(c, k)->location.offset] = value;
}

static void resize_int32_data(ctx *c) { operand(c, c->in)->type = I32, operand(c, c->out)->type = I32; }
static void resize_output_f16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void resize_height_f16(ctx *c) { replace_input(c, 2, scalar_f16(c, HALF_1_5)); }
static void resize_width_int32(ctx *c) { replace_input(c, 1, mb_const_i32(&c->b, 3)); }
static void resize_scales_f16(ctx *c) {
  replace_input(c, 1, scalar_f16(c, HALF_1_5));
  replace_input(c, 2, scalar_f16(c, HALF_1_5));
}
static void resize_f16_scales_f32(ctx *c) {
  operand(c, c->in)->type = operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16;
}
static void resize_f16_scales_ok(ctx *c) {
  resize_f16_scales_f32(c);
  resize_scales_f16(c);
}
static void resize_layout_int32(ctx *c) { replace_input(c, 3, mb_const_i32(&c->b, 0)); }
static void resize_half_pixel_int32(ctx *c) { replace_input(c, 5, mb_const_i32(&c->b, 0)); }
static void resize_align_corners_int32(ctx *c) { replace_input(c, 4, mb_const_i32(&c->b, 0)); }
static void resize_input_rank_3(ctx *c) {
  const uint32_t dims[3] = {1, 2, 2};
  set_dims(c, c->in, dims, 3);
}
static void resize_output_rank_3(ctx *c) {
  const uint32_t dims[3] = {1, 3, 3};
  set_dims(c, c->out, dims, 3);
}
static void resize_width_0(ctx *c) { set_param(c, 1, 0, 0); }
static void resize_height_negative(ctx *c) { set_param(c, 2, 0, -3); }
/* floor(2 * 0.25) = 0 columns. */
static void resize_scale_to_nothing(ctx *c) { replace_input(c, 1, scalar_f32(c, 0.25f)); }
static void resize_both_alignments(ctx *c) {
  set_flag(c, 4, true);
  set_flag(c, 5, true);
}
static void resize_align_corners_ok(ctx *c) { set_flag(c, 4, true); }
static void resize_half_pixel_nchw_ok(ctx *c) {
  const uint32_t dims[4] = {1, 1, 2, 2}, out_dims[4] = {1, 1, 3, 3};
  set_dims(c, c->in, dims, 4);
  set_dims(c, c->out, out_dims, 4);
  set_flag(c, 3, true);
  set_flag(c, 5, true);
}
static void resize_output_dims(ctx *c) { c->b.dims[c->out][1] = 4; }
static void resize_nchw_output_dims(ctx *c) { set_flag(c, 3, true); }

/* ---- TOPK_V2: [2, 3], k 2 -> values and indices [2, 2] ------------------- */

static void build_topk(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[2] = {2, 2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t outs[2] = {c->out, mb_output(&c->b, I32, out_dims, 2)};
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 2)};
  operation(c, OP(TOPK_V2), in, 2, outs, 2);
}

static vknn_operand *topk_indices(ctx *c) { return operand(c, c->b.outputs[1]); }
static void topk_bool_data(ctx *c) {
  operand(c, c->in)->type = operand(c, c->out)->type = VKNN_OPERAND_TENSOR_BOOL8;
}
static void topk_k_float(ctx *c) { replace_input(c, 1, scalar_f32(c, 2.f)); }
static void topk_values_f16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void topk_indices_f32(ctx *c) { topk_indices(c)->type = F32; }
static void topk_k_0(ctx *c) { set_param(c, 1, 0, 0); }
static void topk_k_past_row(ctx *c) { set_param(c, 1, 0, 4); }
static void topk_values_rank_1(ctx *c) {
  const uint32_t four = 4;
  set_dims(c, c->out, &four, 1);
}
static void topk_indices_dims(ctx *c) { c->b.dims[c->b.outputs[1]][1] = 3; }
static void topk_rank_3_ok(ctx *c) {
  const uint32_t dims[3] = {1, 2, 3}, out_dims[3] = {1, 2, 2};
  set_dims(c, c->in, dims, 3);
  set_dims(c, c->out, out_dims, 3);
  set_dims(c, c->b.outputs[1], out_dims, 3);
}

/* ---- MEAN, REDUCE_*, ARGMAX, ARGMIN -------------------------------------- */

#define B8 VKNN_OPERAND_TENSOR_BOOL8

/* [2, 3] reduced along axis 1 -> [2]; MEAN's keep_dims is an INT32, the
 * others' a BOOL. */
static void build_reduction(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2};
  const int32_t axes[1] = {1};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 1);
  uint32_t keep = op_type == OP(MEAN) ? mb_const_i32(&c->b, 0) : const_bool(c, false);
  const uint32_t in[3] = {c->in, vector(c, axes, 1), keep};
  one_output(c, op_type, in, 3);
}
static void build_reduce_sum(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_SUM)); }
static void build_reduce_prod(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_PROD)); }
static void build_reduce_max(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_MAX)); }
static void build_reduce_min(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_MIN)); }
static void build_reduce_any(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_ANY)); }
static void build_reduce_all(ctx *c, int32_t type) { build_reduction(c, type, OP(REDUCE_ALL)); }
static void build_mean(ctx *c, int32_t type) { build_reduction(c, type, OP(MEAN)); }

/* The axes given by the execution (one entry). */
static void build_reduce_sum_runtime_axes(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2}, one = 1;
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 1);
  const uint32_t in[3] = {c->in, mb_input(&c->b, I32, &one, 1), const_bool(c, false)};
  one_output(c, OP(REDUCE_SUM), in, 3);
}

static void reduce_rank_5(ctx *c) {
  const uint32_t dims[5] = {1, 1, 1, 2, 3};
  set_dims(c, c->in, dims, 5);
  operand(c, c->out)->dimension_count = 0;
}
static void reduce_two_inputs(ctx *c) {
  c->b.operations[0].input_count = 2;
  op_input(c, 2)->number_of_consumers = 0;
}
static void reduce_axes_float(ctx *c) { op_input(c, 1)->type = F32; }
static void reduce_keep_dims_int32(ctx *c) { replace_input(c, 2, mb_const_i32(&c->b, 0)); }
static void mean_keep_dims_bool(ctx *c) { replace_input(c, 2, const_bool(c, false)); }
static void output_type_f16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void input_and_output_type(ctx *c, int32_t type) {
  operand(c, c->in)->type = type;
  operand(c, c->out)->type = type;
  operand(c, c->in)->scale = operand(c, c->out)->scale = type == Q8 ? 0.5f : 0.f;
}
static void data_quant8(ctx *c) { input_and_output_type(c, Q8); }
static void data_int32(ctx *c) { input_and_output_type(c, I32); }
static void data_float32(ctx *c) { input_and_output_type(c, F32); }
static void data_bool8(ctx *c) { input_and_output_type(c, B8); }
static void reduce_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void reduce_axis_minus_3(ctx *c) { set_param(c, 1, 0, -3); }
/* Axes {-1, 1}: one axis named twice. */
static void reduce_repeated_axis(ctx *c) {
  const int32_t axes[2] = {-1, 1};
  replace_input(c, 1, vector(c, axes, 2));
}
/* keep_dims set: the output must be [2, 1]. */
static void reduce_keep_dims_true(ctx *c) {
  const uint32_t dims[2] = {2, 1};
  replace_input(c, 2, const_bool(c, true));
  set_dims(c, c->out, dims, 2);
}
static void reduce_keep_dims_output_rank(ctx *c) { replace_input(c, 2, const_bool(c, true)); }
static void mean_keep_dims_positive(ctx *c) {
  const uint32_t dims[2] = {2, 1};
  replace_input(c, 2, mb_const_i32(&c->b, 3));
  set_dims(c, c->out, dims, 2);
}
/* Both axes reduced without keep_dims: a one-element [1]. */
static void reduce_all_axes(ctx *c) {
  const int32_t axes[2] = {0, 1};
  const uint32_t one = 1;
  replace_input(c, 1, vector(c, axes, 2));
  set_dims(c, c->out, &one, 1);
}

/* ARGMAX / ARGMIN: [2, 3] along axis 1 -> [2] of TENSOR_INT32. */
static void build_arg(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2};
  c->in = data_input(c, type, dims, 2);
  c->out = mb_output(&c->b, I32, out_dims, 1);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 1)};
  one_output(c, op_type, in, 2);
}
static void build_argmax(ctx *c, int32_t type) { build_arg(c, type, OP(ARGMAX)); }
static void build_argmin(ctx *c, int32_t type) { build_arg(c, type, OP(ARGMIN)); }

/* A 1-D input gives [1]. */
static void build_argmax_1d(ctx *c, int32_t type) {
  const uint32_t dims[1] = {3}, out_dims[1] = {1};
  c->in = data_input(c, type, dims, 1);
  c->out = mb_output(&c->b, I32, out_dims, 1);
  const uint32_t in[2] = {c->in, mb_const_i32(&c->b, 0)};
  one_output(c, OP(ARGMAX), in, 2);
}

/* The axis given by the execution. */
static void build_argmax_runtime_axis(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2};
  c->in = data_input(c, type, dims, 2);
  c->out = mb_output(&c->b, I32, out_dims, 1);
  const uint32_t in[2] = {c->in, mb_input(&c->b, VKNN_OPERAND_INT32, NULL, 0)};
  one_output(c, OP(ARGMAX), in, 2);
}

static void arg_input_int32(ctx *c) {
  operand(c, c->in)->type = I32;
  operand(c, c->in)->scale = 0.f;
}
static void arg_input_bool8(ctx *c) {
  operand(c, c->in)->type = B8;
  operand(c, c->in)->scale = 0.f;
}
static void arg_output_float(ctx *c) { operand(c, c->out)->type = F32; }
static void arg_axis_2(ctx *c) { set_param(c, 1, 0, 2); }
static void arg_axis_minus_3(ctx *c) { set_param(c, 1, 0, -3); }
static void arg_axis_minus_2(ctx *c) {
  const uint32_t three = 3;
  set_param(c, 1, 0, -2);
  set_dims(c, c->out, &three, 1);
}
static void arg_axis_tensor(ctx *c) {
  const int32_t axis[1] = {1};
  replace_input(c, 1, vector(c, axis, 1));
}
/* A third input (an INT32 0) after the axis. */
static void build_argmax_three_inputs(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2};
  c->in = data_input(c, type, dims, 2);
  c->out = mb_output(&c->b, I32, out_dims, 1);
  const uint32_t in[3] = {c->in, mb_const_i32(&c->b, 1), mb_const_i32(&c->b, 0)};
  one_output(c, OP(ARGMAX), in, 3);
}
static void arg_output_dims(ctx *c) { c->b.dims[c->out][0] = 3; }

/* ---- EMBEDDING_LOOKUP: rows {0, 2} of [3, 2]; HASHTABLE_LOOKUP: keys {1, 5, 9} ---- */

static void build_embedding_lookup(ctx *c, int32_t type) {
  const uint32_t dims[2] = {3, 2}, out_dims[2] = {2, 2};
  const int32_t lookups[2] = {0, 2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  const uint32_t in[2] = {vector(c, lookups, 2), c->in};
  one_output(c, OP(EMBEDDING_LOOKUP), in, 2);
}

/* The operation again with one more input, an INT32 0, after its last. */
static void append_input(ctx *c) {
  vknn_operation *op = &c->b.operations[c->b.operation_count - 1];
  uint32_t in[16], out[16], in_count = op->input_count, out_count = op->output_count;
  memcpy(in, op->inputs, in_count * sizeof(uint32_t));
  memcpy(out, op->outputs, out_count * sizeof(uint32_t));
  for (uint32_t i = 0; i < in_count; ++i) operand(c, in[i])->number_of_consumers--;
  in[in_count] = mb_const_i32(&c->b, 0);
  c->b.operation_count--;
  operation(c, op->type, in, in_count + 1, out, out_count);
}
static void lookups_float(ctx *c) { op_input(c, 0)->type = F32; }
static void lookups_rank_2(ctx *c) { as_matrix(c, 0); }
static void values_bool8(ctx *c) {
  operand(c, c->in)->type = VKNN_OPERAND_TENSOR_BOOL8;
  operand(c, c->out)->type = VKNN_OPERAND_TENSOR_BOOL8;
}
static void values_float16(ctx *c) {
  operand(c, c->in)->type = VKNN_OPERAND_TENSOR_FLOAT16;
  operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16;
}
static void values_rank_1(ctx *c) {
  const uint32_t six = 6, two = 2;
  set_dims(c, c->in, &six, 1);
  set_dims(c, c->out, &two, 1);
}
static void lookup_output_int32(ctx *c) { operand(c, c->out)->type = I32; }
static void lookup_index_past_end(ctx *c) { set_param(c, 0, 1, 3); }
static void lookup_index_negative(ctx *c) { set_param(c, 0, 0, -1); }
static void lookup_output_dims(ctx *c) { c->b.dims[c->out][0] = 3; }
static void embedding_values_output_scale(ctx *c) { operand(c, c->out)->scale = 0.25f; }
static void embedding_values_output_zero_point(ctx *c) { operand(c, c->out)->zero_point = 3; }

/* Lookups (a model input), keys {1, 5, 9} and [3, 2] values: in[3]. */
static void hashtable_inputs(ctx *c, int32_t type, uint32_t in[3]) {
  const uint32_t dims[2] = {3, 2}, out_dims[2] = {2, 2}, two = 2;
  const int32_t keys[3] = {1, 5, 9};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 2);
  in[0] = mb_input(&c->b, I32, &two, 1);
  in[1] = vector(c, keys, 3);
  in[2] = c->in;
}

static void build_hashtable_lookup(ctx *c, int32_t type) {
  const uint32_t two = 2;
  uint32_t in[3];
  hashtable_inputs(c, type, in);
  uint32_t hits = mb_output(&c->b, Q8, &two, 1);
  c->b.operands[hits].scale = 1.f;
  const uint32_t outs[2] = {c->out, hits};
  operation(c, OP(HASHTABLE_LOOKUP), in, 3, outs, 2);
}

/* The output without hits. */
static void build_hashtable_lookup_one_output(ctx *c, int32_t type) {
  uint32_t in[3];
  hashtable_inputs(c, type, in);
  one_output(c, OP(HASHTABLE_LOOKUP), in, 3);
}

static vknn_operand *hits_output(ctx *c) {
  return operand(c, c->b.operations[c->b.operation_count - 1].outputs[1]);
}
static void keys_float(ctx *c) { op_input(c, 1)->type = F32; }
static void keys_rank_2(ctx *c) { as_matrix(c, 1); }
static void keys_descending(ctx *c) { set_param(c, 1, 2, 4); }
static void keys_two_for_three_rows(ctx *c) {
  const int32_t keys[2] = {1, 5};
  replace_input(c, 1, vector(c, keys, 2));
}
static void hits_float(ctx *c) { hits_output(c)->type = F32, hits_output(c)->scale = 0.f; }
static void hits_scale_half(ctx *c) { hits_output(c)->scale = 0.5f; }
static void hits_zero_point_1(ctx *c) { hits_output(c)->zero_point = 1; }
static void hits_rank_2(ctx *c) {
  const uint32_t dims[2] = {2, 1};
  set_dims(c, c->b.operations[c->b.operation_count - 1].outputs[1], dims, 2);
}

/* ---- LSH_PROJECTION: 4 hash functions of 2 bits over a [3, 2] input ---- */

static uint32_t const_f32_tensor(ctx *c, int32_t type, const uint32_t *dims, uint32_t rank) {
  static const float zeros[64] = {0};
  uint32_t count = 1;
  for (uint32_t d = 0; d < rank; ++d) count *= dims[d];
  size_t bytes = count * (type == VKNN_OPERAND_TENSOR_FLOAT16 ? 2 : 4);
  assert_true(bytes <= sizeof(zeros));
  return mb_const_tensor(&c->b, type, dims, rank, zeros, bytes);
}

/* Dense (type 2) with constant weights; type is the input's element type. */
static void build_lsh_projection(ctx *c, int32_t type) {
  const uint32_t hash_dims[2] = {4, 2}, dims[2] = {3, 2}, three = 3, eight = 8;
  c->in = data_input(c, type, dims, 2);
  c->out = mb_output(&c->b, I32, &eight, 1);
  const uint32_t in[4] = {const_f32_tensor(c, F32, hash_dims, 2), c->in,
                          const_f32_tensor(c, F32, &three, 1), mb_const_i32(&c->b, 2)};
  one_output(c, OP(LSH_PROJECTION), in, 4);
}

/* Sparse (type 3), the weights omitted: [4] signatures. */
static void build_lsh_projection_sparse(ctx *c, int32_t type) {
  const uint32_t four = 4;
  build_lsh_projection(c, type);
  set_param(c, 3, 0, 3);
  omit_input(c, 2);
  set_dims(c, c->out, &four, 1);
}

static void lsh_float16(ctx *c) {
  const uint32_t hash_dims[2] = {4, 2}, three = 3;
  replace_input(c, 0, const_f32_tensor(c, VKNN_OPERAND_TENSOR_FLOAT16, hash_dims, 2));
  replace_input(c, 2, const_f32_tensor(c, VKNN_OPERAND_TENSOR_FLOAT16, &three, 1));
}
static void lsh_hash_int32(ctx *c) { op_input(c, 0)->type = I32; }
static void lsh_hash_rank_1(ctx *c) {
  const uint32_t eight = 8;
  replace_input(c, 0, const_f32_tensor(c, F32, &eight, 1));
}
static void lsh_input_bool8(ctx *c) { operand(c, c->in)->type = VKNN_OPERAND_TENSOR_BOOL8; }
static void lsh_input_float16(ctx *c) { operand(c, c->in)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void lsh_weights_float16(ctx *c) {
  const uint32_t three = 3;
  replace_input(c, 2, const_f32_tensor(c, VKNN_OPERAND_TENSOR_FLOAT16, &three, 1));
}
static void lsh_weights_rank_2(ctx *c) { as_matrix(c, 2); }
static void lsh_type_float(ctx *c) { replace_input(c, 3, scalar_f32(c, 2.f)); }
static void lsh_output_float(ctx *c) { operand(c, c->out)->type = F32; }
static void lsh_output_rank_2(ctx *c) {
  const uint32_t dims[2] = {4, 2};
  set_dims(c, c->out, dims, 2);
}
static void lsh_type_4(ctx *c) { set_param(c, 3, 0, 4); }
static void lsh_33_bits(ctx *c) {
  const uint32_t hash_dims[2] = {1, 33}, count = 33;
  replace_input(c, 0, const_f32_tensor(c, F32, hash_dims, 2));
  set_dims(c, c->out, &count, 1);
}
/* 8 functions of 30 bits: 30 + ceil(log2(8)) = 33 bits. */
static void lsh_sparse_too_wide(ctx *c) {
  const uint32_t hash_dims[2] = {8, 30}, eight = 8;
  static const float zeros[240] = {0};
  replace_input(c, 0, mb_const_tensor(&c->b, F32, hash_dims, 2, zeros, sizeof(zeros)));
  set_dims(c, c->out, &eight, 1);
}
static void lsh_dense_without_weights(ctx *c) { omit_input(c, 2); }
static void lsh_sparse_with_weights(ctx *c) {
  const uint32_t three = 3;
  replace_input(c, 2, const_f32_tensor(c, F32, &three, 1));
}
static void lsh_two_weights(ctx *c) {
  const uint32_t two = 2;
  replace_input(c, 2, const_f32_tensor(c, F32, &two, 1));
}
static void lsh_output_dims(ctx *c) { c->b.dims[c->out][0] = 7; }


/* ---- IF and WHILE ---------------------------------------------------------- */

static const uint32_t kOne[1] = {1};

static model_builder *subgraph(ctx *c, uint32_t i) {
  c->sub[i].values_owner = &c->b;
  if (c->sub_count <= i) c->sub_count = i + 1;
  return &c->sub[i];
}

/* out = x + 1 over [1] float tensors: an IF branch. */
static void add_one_branch(model_builder *b) {
  uint32_t x = mb_input(b, F32, kOne, 1), out = mb_output(b, F32, kOne, 1);
  float one = 1.f;
  uint32_t in[3] = {x, mb_const_tensor(b, F32, kOne, 1, &one, sizeof(one)), mb_const_i32(b, 0)};
  mb_operation(b, OP(ADD), in, 3, &out, 1);
}

/* IF(condition, then = 0, else = 1, x) with both branches x + 1. */
static void build_if(ctx *c, int32_t type) {
  (void)type;
  uint32_t cond = mb_input(&c->b, VKNN_OPERAND_TENSOR_BOOL8, kOne, 1);
  c->in = mb_input(&c->b, F32, kOne, 1);
  c->out = mb_output(&c->b, F32, kOne, 1);
  const uint32_t in[4] = {cond, mb_subgraph(&c->b, 0), mb_subgraph(&c->b, 1), c->in};
  one_output(c, OP(IF), in, 4);
  add_one_branch(subgraph(c, 0));
  add_one_branch(subgraph(c, 1));
}
static void if_condition_int32(ctx *c) { op_input(c, 0)->type = I32; }
/* The IF's input and its branches' inputs per-channel quantized, the then
 * branch with other scales. */
static void set_channel_quant(vknn_operand *o, const float *scales) {
  o->type = PER_CHANNEL;
  o->scale = 0.f;
  o->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  o->extra_params.channel_quant.scales = scales;
  o->extra_params.channel_quant.scale_count = 1;
  o->extra_params.channel_quant.channel_dim = 0;
}
static void if_branch_input_channel_scales(ctx *c) {
  static const float outer[1] = {0.5f}, other[1] = {0.25f};
  set_channel_quant(operand(c, c->in), outer);
  set_channel_quant(&c->sub[0].operands[c->sub[0].inputs[0]], other);
  set_channel_quant(&c->sub[1].operands[c->sub[1].inputs[0]], outer);
}
static void if_condition_two_elements(ctx *c) { c->b.dims[c->op_inputs[0]][0] = 2; }
static void if_condition_omitted(ctx *c) {
  vknn_operand *o = op_input(c, 0);
  o->lifetime = VKNN_LIFETIME_NO_VALUE;
  c->b.input_count = 1; /* it was input 0: x moves up */
  c->b.inputs[0] = c->in;
}
static void if_branch_not_subgraph(ctx *c) { replace_input(c, 1, c->in); }
static void if_branch_input_int32(ctx *c) { c->sub[0].operands[0].type = I32; }
static void if_branch_output_shape(ctx *c) { c->sub[1].dims[c->sub[1].outputs[0]][0] = 2; }
static void if_branch_two_inputs(ctx *c) { (void)mb_input(&c->sub[0], F32, kOne, 1); }
/* IF(cond, 0, 0, cond, x) in main and in subgraph 0 itself. */
static void if_over_itself(model_builder *b) {
  uint32_t cond = mb_input(b, VKNN_OPERAND_TENSOR_BOOL8, kOne, 1), x = mb_input(b, F32, kOne, 1);
  uint32_t out = mb_output(b, F32, kOne, 1);
  const uint32_t in[5] = {cond, mb_subgraph(b, 0), mb_subgraph(b, 0), cond, x};
  mb_operation(b, OP(IF), in, 5, &out, 1);
}
static void build_if_self(ctx *c, int32_t type) {
  (void)type;
  if_over_itself(&c->b);
  if_over_itself(subgraph(c, 0));
}
static void if_two_inputs(ctx *c) {
  vknn_operation *op = &c->b.operations[0];
  op->input_count = 2;
  operand(c, c->op_inputs[2])->number_of_consumers--;
  operand(c, c->op_inputs[3])->number_of_consumers--;
}

/* WHILE(cond = 0, body = 1, x, limit): while x < limit, x = x + 1. */
static void build_while(ctx *c, int32_t type) {
  (void)type;
  c->in = mb_input(&c->b, F32, kOne, 1);
  uint32_t limit = mb_input(&c->b, F32, kOne, 1);
  c->out = mb_output(&c->b, F32, kOne, 1);
  const uint32_t in[4] = {mb_subgraph(&c->b, 0), mb_subgraph(&c->b, 1), c->in, limit};
  one_output(c, OP(WHILE), in, 4);
  model_builder *cond = subgraph(c, 0);
  uint32_t x = mb_input(cond, F32, kOne, 1), l = mb_input(cond, F32, kOne, 1);
  uint32_t less = mb_output(cond, VKNN_OPERAND_TENSOR_BOOL8, kOne, 1);
  mb_operation(cond, OP(LESS), (uint32_t[]){x, l}, 2, &less, 1);
  model_builder *body = subgraph(c, 1);
  add_one_branch(body);
  (void)mb_input(body, F32, kOne, 1); /* the limit, invariant */
}
static void while_cond_output_float(ctx *c) {
  c->sub[0].operands[c->sub[0].outputs[0]].type = F32;
}
static void while_cond_three_inputs(ctx *c) { (void)mb_input(&c->sub[0], F32, kOne, 1); }
static void while_body_output_int32(ctx *c) {
  c->sub[1].operands[c->sub[1].outputs[0]].type = I32;
}
static void while_body_input_shape(ctx *c) { c->sub[1].dims[c->sub[1].inputs[0]][0] = 2; }
/* Body output 0 of 2 elements for body input 0 of 1, the WHILE's output
 * leaving its size unknown (so only the body's pair disagrees). */
static void while_body_output_shape(ctx *c) {
  c->b.dims[c->out][0] = 0;
  c->sub[1].dims[c->sub[1].outputs[0]][0] = 2;
}
static void while_output_shape(ctx *c) { c->b.dims[c->out][0] = 3; }
static void while_body_too_many_outputs(ctx *c) {
  model_builder *body = &c->sub[1];
  uint32_t extra = mb_output(body, F32, kOne, 1), extra2 = mb_output(body, F32, kOne, 1);
  float one = 1.f;
  uint32_t in[3] = {body->inputs[0], mb_const_tensor(body, F32, kOne, 1, &one, sizeof(one)),
                    mb_const_i32(body, 0)};
  mb_operation(body, OP(ADD), in, 3, &extra, 1);
  mb_operation(body, OP(ADD), in, 3, &extra2, 1);
}
static void while_two_inputs(ctx *c) {
  vknn_operation *op = &c->b.operations[0];
  op->input_count = 2;
  operand(c, c->op_inputs[2])->number_of_consumers--;
  operand(c, c->op_inputs[3])->number_of_consumers--;
}
/* The condition returns a second TENSOR_BOOL8 [1] (x < limit again). */
static void while_cond_two_outputs(ctx *c) {
  model_builder *cond = &c->sub[0];
  uint32_t extra = mb_output(cond, VKNN_OPERAND_TENSOR_BOOL8, kOne, 1);
  mb_operation(cond, OP(LESS), (uint32_t[]){cond->inputs[0], cond->inputs[1]}, 2, &extra, 1);
}
static void while_cond_not_subgraph(ctx *c) { replace_input(c, 0, c->in); }
static void while_body_not_subgraph(ctx *c) { replace_input(c, 1, c->in); }
static void while_cond_output_two_elements(ctx *c) {
  c->sub[0].dims[c->sub[0].outputs[0]][0] = 2;
}
/* A second WHILE output (its index goes in the slot after the first, the
 * last the builder filled), the body still returning one. */
static void while_two_outputs(ctx *c) {
  vknn_operation *op = &c->b.operations[c->b.operation_count - 1];
  c->b.indexes[c->b.index_count++] = mb_output(&c->b, F32, kOne, 1);
  op->output_count = 2;
}

/* ---- ranks known only once a shape is inferred ----------------------------
 * An EXPAND_DIMS of [1, 4, 4, 2] at axis 4 into a temporary of unknown rank:
 * the model's checks pass it, and the operation reading it must check the
 * rank (5) its shapes then have. The output leaves its rank unknown too. */

static uint32_t rank_5_temporary(ctx *c) {
  const uint32_t dims[4] = {1, 4, 4, 2};
  uint32_t x = mb_input(&c->b, F32, dims, 4), t = mb_temporary(&c->b, F32, NULL, 0);
  const uint32_t in[2] = {x, mb_const_i32(&c->b, 4)};
  mb_operation(&c->b, OP(EXPAND_DIMS), in, 2, &t, 1);
  c->out = mb_output(&c->b, F32, NULL, 0);
  return t;
}
static void build_conv_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t filter[4] = {2, 1, 1, 2}, bias = 2;
  const uint32_t in[7] = {rank_5_temporary(c), const_f32_tensor(c, F32, filter, 4), const_f32_tensor(c, F32, &bias, 1),
                          mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 1), mb_const_i32(&c->b, 1),
                          mb_const_i32(&c->b, 0)};
  one_output(c, OP(CONV_2D), in, 7);
}
static void build_pool_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t in[7] = {rank_5_temporary(c), mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 1), mb_const_i32(&c->b, 1),
                          mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 2), mb_const_i32(&c->b, 0)};
  one_output(c, OP(AVERAGE_POOL_2D), in, 7);
}
static void build_fully_connected_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t weights[2] = {2, 2}, bias = 2;
  const uint32_t in[4] = {rank_5_temporary(c), const_f32_tensor(c, F32, weights, 2), const_f32_tensor(c, F32, &bias, 1),
                          mb_const_i32(&c->b, 0)};
  one_output(c, OP(FULLY_CONNECTED), in, 4);
}
static void build_softmax_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t in[2] = {rank_5_temporary(c), scalar_f32(c, 1.f)};
  one_output(c, OP(SOFTMAX), in, 2);
}
static void build_add_rank_5(ctx *c, int32_t type) {
  (void)type;
  uint32_t t = rank_5_temporary(c);
  const uint32_t in[3] = {t, t, mb_const_i32(&c->b, 0)};
  one_output(c, OP(ADD), in, 3);
}
static void build_relu_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t in[1] = {rank_5_temporary(c)};
  one_output(c, OP(RELU), in, 1);
}
static void build_mean_rank_5(ctx *c, int32_t type) {
  (void)type;
  const int32_t axis = 1;
  const uint32_t in[3] = {rank_5_temporary(c), vector(c, &axis, 1), mb_const_i32(&c->b, 1)};
  one_output(c, OP(MEAN), in, 3);
}
static void build_transpose_rank_5(ctx *c, int32_t type) {
  (void)type;
  const int32_t perm[5] = {4, 3, 2, 1, 0};
  const uint32_t in[2] = {rank_5_temporary(c), vector(c, perm, 5)};
  one_output(c, OP(TRANSPOSE), in, 2);
}
static void build_dequantize_rank_5(ctx *c, int32_t type) {
  (void)type;
  uint32_t t = rank_5_temporary(c);
  vknn_operand *x = operand(c, c->b.operations[0].inputs[0]);
  x->type = operand(c, t)->type = Q8;
  x->scale = operand(c, t)->scale = 0.5f;
  one_output(c, OP(DEQUANTIZE), &t, 1);
}
static void build_l2_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t in[2] = {rank_5_temporary(c), mb_const_i32(&c->b, -1)};
  one_output(c, OP(L2_NORMALIZATION), in, 2);
}
static void build_lrn_rank_5(ctx *c, int32_t type) {
  (void)type;
  const uint32_t in[6] = {rank_5_temporary(c), mb_const_i32(&c->b, 1), scalar_f32(c, 1.f),
                          scalar_f32(c, 0.5f), scalar_f32(c, 0.75f), mb_const_i32(&c->b, -1)};
  one_output(c, OP(LOCAL_RESPONSE_NORMALIZATION), in, 6);
}
static void build_reshape_rank_5(ctx *c, int32_t type) {
  (void)type;
  const int32_t shape[2] = {4, 8};
  const uint32_t in[2] = {rank_5_temporary(c), vector(c, shape, 2)};
  one_output(c, OP(RESHAPE), in, 2);
}
static void build_concatenation_ranks_differ(ctx *c, int32_t type) {
  (void)type;
  const uint32_t dims[4] = {1, 4, 4, 2};
  uint32_t t = rank_5_temporary(c);
  const uint32_t in[3] = {mb_input(&c->b, F32, dims, 4), t, mb_const_i32(&c->b, 0)};
  one_output(c, OP(CONCATENATION), in, 3);
}

/* ADD of x [2, 3] and a RESHAPE's [4, 3] declared with unknown dimensions:
 * the shapes meet only once inferred, and cannot be broadcast. */
static void build_add_inferred_mismatch(ctx *c, int32_t type) {
  (void)type;
  const uint32_t dims[2] = {2, 3}, flat = 12;
  const int32_t shape[2] = {4, 3};
  uint32_t x = mb_input(&c->b, F32, dims, 2), y = mb_input(&c->b, F32, &flat, 1);
  uint32_t t = mb_temporary(&c->b, F32, NULL, 0);
  const uint32_t reshape_in[2] = {y, vector(c, shape, 2)};
  mb_operation(&c->b, OP(RESHAPE), reshape_in, 2, &t, 1);
  c->out = mb_output(&c->b, F32, NULL, 0);
  const uint32_t in[3] = {x, t, mb_const_i32(&c->b, 0)};
  one_output(c, OP(ADD), in, 3);
}

/* CAST of a per-channel quantized tensor to itself (NNAPI lists no such pair). */
static void build_cast_per_channel(ctx *c, int32_t type) {
  (void)type;
  static const float scales[2] = {0.5f, 0.25f};
  const uint32_t dims[2] = {2, 3};
  c->in = mb_input(&c->b, PER_CHANNEL, dims, 2);
  c->out = mb_output(&c->b, PER_CHANNEL, dims, 2);
  vknn_operand *ops[2] = {operand(c, c->in), operand(c, c->out)};
  for (int i = 0; i < 2; ++i) {
    ops[i]->scale = 0.f;
    ops[i]->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
    ops[i]->extra_params.channel_quant.scales = scales;
    ops[i]->extra_params.channel_quant.scale_count = 2;
    ops[i]->extra_params.channel_quant.channel_dim = 0;
  }
  one_output(c, OP(CAST), &c->in, 1);
}

static void concatenation_axis_negative(ctx *c) { set_i32(c, c->op_inputs[2], 0, -1); }
/* The block given at execution, the output declared with 2 channels for an
 * input of 1. */
static void s2b_runtime_block_channels(ctx *c) {
  const uint32_t two = 2;
  replace_input(c, 1, mb_input(&c->b, I32, &two, 1));
  c->b.dims[c->out][3] = 2;
}

/* ---- the table ------------------------------------------------------------ */

/* ---- ROI_ALIGN, ROI_POOLING: [1, 4, 4, 2], 2 boxes -> [2, 2, 2, 2] -------- */

#define Q16 VKNN_OPERAND_TENSOR_QUANT16_ASYMM

/* Boxes of the map's type (quant16, 1/8 pixel, for a quant8 map); strides
 * FLOAT16 for a float16 map, else FLOAT32. */
static void build_roi(ctx *c, int32_t type, int32_t op_type) {
  const uint32_t dims[4] = {1, 4, 4, 2}, out_dims[4] = {2, 2, 2, 2}, box_dims[2] = {2, 4}, two = 2;
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, out_dims, 4);
  uint32_t boxes = mb_input(&c->b, type == Q8 ? Q16 : type, box_dims, 2);
  if (type == Q8) operand(c, boxes)->scale = 0.125f;
  uint32_t in[10] = {c->in, boxes, mb_input(&c->b, I32, &two, 1), mb_const_i32(&c->b, 2),
                     mb_const_i32(&c->b, 2), float_param(c, type, 1.f), float_param(c, type, 1.f)};
  uint32_t n = 7;
  if (op_type == OP(ROI_ALIGN)) {
    in[n++] = mb_const_i32(&c->b, 0);
    in[n++] = mb_const_i32(&c->b, 0);
  }
  in[n++] = const_bool(c, false);
  one_output(c, op_type, in, n);
}
static void build_roi_align(ctx *c, int32_t type) { build_roi(c, type, OP(ROI_ALIGN)); }
static void build_roi_pooling(ctx *c, int32_t type) { build_roi(c, type, OP(ROI_POOLING)); }

static uint32_t roi_layout(ctx *c) { return c->input_count - 1; }
static void roi_boxes_f16(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void roi_boxes_f32(ctx *c) {
  op_input(c, 1)->type = F32;
  op_input(c, 1)->scale = 0.f;
}
static void roi_batches_f32(ctx *c) { op_input(c, 2)->type = F32; }
static void roi_height_float(ctx *c) { replace_input(c, 3, scalar_f32(c, 2.f)); }
static void roi_stride_f16(ctx *c) { replace_input(c, 5, scalar_f16(c, HALF_1_5)); }
static void roi_sampling_float(ctx *c) { replace_input(c, 8, scalar_f32(c, 1.f)); }
static void roi_height_sampling_float(ctx *c) { replace_input(c, 7, scalar_f32(c, 1.f)); }
static void roi_strides_f32(ctx *c) {
  replace_input(c, 5, scalar_f32(c, 1.f));
  replace_input(c, 6, scalar_f32(c, 1.f));
}
static void roi_layout_int32(ctx *c) { replace_input(c, roi_layout(c), mb_const_i32(&c->b, 0)); }
static void roi_output_f16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void roi_input_rank_3(ctx *c) {
  const uint32_t dims[3] = {4, 4, 2};
  set_dims(c, c->in, dims, 3);
}
static void roi_boxes_rank_1(ctx *c) {
  const uint32_t eight = 8;
  set_dims(c, c->op_inputs[1], &eight, 1);
}
static void roi_batches_rank_2(ctx *c) {
  const uint32_t dims[2] = {2, 1};
  set_dims(c, c->op_inputs[2], dims, 2);
}
static void roi_output_rank_3(ctx *c) {
  const uint32_t dims[3] = {2, 2, 4};
  set_dims(c, c->out, dims, 3);
}
static void roi_boxes_scale(ctx *c) { op_input(c, 1)->scale = 0.25f; }
static void roi_boxes_zero_point(ctx *c) { op_input(c, 1)->zero_point = 1; }
static void roi_height_0(ctx *c) { set_param(c, 3, 0, 0); }
static void roi_width_negative(ctx *c) { set_param(c, 4, 0, -2); }
static void roi_stride_0(ctx *c) { replace_input(c, 6, scalar_f32(c, 0.f)); }
static void roi_sampling_negative(ctx *c) { set_param(c, 7, 0, -1); }
static void roi_boxes_5_wide(ctx *c) { c->b.dims[c->op_inputs[1]][1] = 5; }
static void roi_batches_count(ctx *c) { c->b.dims[c->op_inputs[2]][0] = 3; }
static void roi_output_dims(ctx *c) { c->b.dims[c->out][0] = 3; }
static void roi_nchw_ok(ctx *c) {
  const uint32_t dims[4] = {1, 2, 4, 4};
  set_dims(c, c->in, dims, 4);
  set_flag(c, roi_layout(c), true);
}
static void roi_align_output_scale_ok(ctx *c) { operand(c, c->out)->scale = 0.25f; }
static void roi_input_bool8(ctx *c) {
  operand(c, c->in)->type = operand(c, c->out)->type = VKNN_OPERAND_TENSOR_BOOL8;
}

/* ---- HEATMAP_MAX_KEYPOINT: [2, 3, 3, 4] heatmaps, 2 boxes -> [2, 4], [2, 4, 2] */

static void build_heatmap(ctx *c, int32_t type) {
  const uint32_t dims[4] = {2, 3, 3, 4}, box_dims[2] = {2, 4}, score_dims[2] = {2, 4}, point_dims[3] = {2, 4, 2};
  int32_t box_type = type == Q8 ? Q16 : type;
  c->in = data_input(c, type, dims, 4);
  c->out = data_output(c, type, score_dims, 2);
  uint32_t boxes = mb_input(&c->b, box_type, box_dims, 2);
  uint32_t points = mb_output(&c->b, box_type, point_dims, 3);
  if (type == Q8) operand(c, boxes)->scale = operand(c, points)->scale = 0.125f;
  const uint32_t in[3] = {c->in, boxes, const_bool(c, false)}, outs[2] = {c->out, points};
  operation(c, OP(HEATMAP_MAX_KEYPOINT), in, 3, outs, 2);
}
static vknn_operand *heatmap_points(ctx *c) { return operand(c, c->b.outputs[1]); }
static void heatmap_points_f16(ctx *c) { heatmap_points(c)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void heatmap_points_scale(ctx *c) { heatmap_points(c)->scale = 0.25f; }
static void heatmap_layout_int32(ctx *c) { replace_input(c, 2, mb_const_i32(&c->b, 0)); }
static void heatmap_not_square(ctx *c) { c->b.dims[c->in][2] = 4; }
static void heatmap_size_1(ctx *c) {
  const uint32_t dims[4] = {2, 1, 1, 4};
  set_dims(c, c->in, dims, 4);
}
static void heatmap_boxes_count(ctx *c) { c->b.dims[c->op_inputs[1]][0] = 3; }
static void heatmap_scores_rank_3(ctx *c) {
  const uint32_t dims[3] = {2, 4, 1};
  set_dims(c, c->out, dims, 3);
}
static void heatmap_points_rank_2(ctx *c) {
  const uint32_t dims[2] = {2, 8};
  set_dims(c, c->b.outputs[1], dims, 2);
}
static void heatmap_scores_dims(ctx *c) { c->b.dims[c->out][1] = 3; }
static void heatmap_points_dims(ctx *c) { c->b.dims[c->b.outputs[1]][2] = 3; }
static void heatmap_nchw_ok(ctx *c) {
  const uint32_t dims[4] = {2, 4, 3, 3};
  set_dims(c, c->in, dims, 4);
  set_flag(c, 2, true);
}
static void heatmap_score_scale_ok(ctx *c) { operand(c, c->out)->scale = 0.25f; }

/* ---- AXIS_ALIGNED_BBOX_TRANSFORM: 2 boxes, 3 classes, 2 images -> [2, 12] -- */

static void build_bbox(ctx *c, int32_t type) {
  const uint32_t box_dims[2] = {2, 4}, delta_dims[2] = {2, 12}, two = 2, image_dims[2] = {2, 2};
  int32_t box_type = type == Q8 ? Q16 : type;
  c->in = mb_input(&c->b, box_type, box_dims, 2);
  c->out = mb_output(&c->b, box_type, delta_dims, 2);
  uint32_t deltas = data_input(c, type, delta_dims, 2);
  uint32_t images = mb_input(&c->b, box_type, image_dims, 2);
  if (type == Q8) operand(c, c->in)->scale = operand(c, c->out)->scale = operand(c, images)->scale = 0.125f;
  const uint32_t in[4] = {c->in, deltas, mb_input(&c->b, I32, &two, 1), images};
  one_output(c, OP(AXIS_ALIGNED_BBOX_TRANSFORM), in, 4);
}
static void bbox_boxes_int32(ctx *c) { operand(c, c->in)->type = I32; }
static void bbox_deltas_f16(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void bbox_deltas_q16(ctx *c) {
  op_input(c, 1)->type = Q16;
  op_input(c, 1)->scale = 0.125f;
}
static void bbox_batches_f32(ctx *c) { op_input(c, 2)->type = F32; }
static void bbox_images_f16(ctx *c) { op_input(c, 3)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void bbox_output_f16(ctx *c) { operand(c, c->out)->type = VKNN_OPERAND_TENSOR_FLOAT16; }
static void bbox_boxes_rank_1(ctx *c) {
  const uint32_t eight = 8;
  set_dims(c, c->in, &eight, 1);
}
static void bbox_images_rank_1(ctx *c) {
  const uint32_t four = 4;
  set_dims(c, c->op_inputs[3], &four, 1);
}
static void bbox_boxes_scale(ctx *c) { operand(c, c->in)->scale = 0.25f; }
static void bbox_boxes_zero_point(ctx *c) { operand(c, c->in)->zero_point = 1; }
static void bbox_images_scale(ctx *c) { op_input(c, 3)->scale = 0.25f; }
static void bbox_images_zero_point(ctx *c) { op_input(c, 3)->zero_point = 2; }
static void bbox_output_scale(ctx *c) { operand(c, c->out)->scale = 0.5f; }
static void bbox_boxes_5_wide(ctx *c) { c->b.dims[c->in][1] = 5; }
static void bbox_deltas_10_wide(ctx *c) { c->b.dims[c->op_inputs[1]][1] = 10; }
static void bbox_deltas_3_boxes(ctx *c) { c->b.dims[c->op_inputs[1]][0] = 3; }
static void bbox_batches_count(ctx *c) { c->b.dims[c->op_inputs[2]][0] = 3; }
static void bbox_images_3_wide(ctx *c) { c->b.dims[c->op_inputs[3]][1] = 3; }
static void bbox_output_dims(ctx *c) { c->b.dims[c->out][1] = 8; }
static void bbox_deltas_q8s_ok(ctx *c) { op_input(c, 1)->type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED; }

#define QUANT_SAME(build, name)                                                          \
  {name ": output scale", build, Q8, output_scale_differs, "must keep input 0's scale"}, \
  {name ": output zero point", build, Q8, output_zero_point_differs, "must keep input 0's scale"}

static const row rows[] = {
    /* Ranks known only once shapes are inferred */
    {"CONV_2D: input of inferred rank 5", build_conv_rank_5, F32, NULL, "input 0 has rank 5, not 4"},
    {"AVERAGE_POOL_2D: input of inferred rank 5", build_pool_rank_5, F32, NULL, "input 0 has rank 5, not 4"},
    {"FULLY_CONNECTED: input of inferred rank 5", build_fully_connected_rank_5, F32, NULL, "input 0 has rank 5, outside [2, 4]"},
    {"SOFTMAX: input of inferred rank 5", build_softmax_rank_5, F32, NULL, "input 0 has rank 5, outside [1, 4]"},
    {"ADD: inputs of inferred rank 5", build_add_rank_5, F32, NULL, "ADD supports tensors of rank up to 4"},
    {"RELU: input of inferred rank 5", build_relu_rank_5, F32, NULL, "input 0 has rank 5, outside [0, 4]"},
    {"MEAN: input of inferred rank 5", build_mean_rank_5, F32, NULL, "input 0 has rank 5, outside [0, 4]"},
    {"TRANSPOSE: input of inferred rank 5", build_transpose_rank_5, F32, NULL, "input 0 has rank 5, outside [0, 4]"},
    {"RESHAPE: input of inferred rank 5", build_reshape_rank_5, F32, NULL, "input 0 has rank 5, outside [0, 4]"},
    {"DEQUANTIZE: input of inferred rank 5", build_dequantize_rank_5, Q8, NULL, "DEQUANTIZE: input 0 has rank 5, outside [0, 4]"},
    {"L2_NORMALIZATION: input of inferred rank 5", build_l2_rank_5, F32, NULL, "L2_NORMALIZATION: input 0 has rank 5, outside [1, 4]"},
    {"LOCAL_RESPONSE_NORMALIZATION: input of inferred rank 5", build_lrn_rank_5, F32, NULL, "LOCAL_RESPONSE_NORMALIZATION: input 0 has rank 5, outside [1, 4]"},
    {"CONCATENATION: inputs of ranks 4 and 5", build_concatenation_ranks_differ, F32, NULL, "input 1 has rank 5, not 4"},
    {"ADD: inferred shapes that do not broadcast", build_add_inferred_mismatch, F32, NULL, "input shapes cannot be broadcast together"},
    {"CAST: per-channel to per-channel", build_cast_per_channel, F32, NULL, "TENSOR_QUANT8_SYMM_PER_CHANNEL is not allowed"},
    {"CONCATENATION: axis -1", build_concatenation, F32, concatenation_axis_negative, "axis -1 out of rank 2"},
    {"SPACE_TO_BATCH_ND: run-time block, output channels", build_space_to_batch, F32, s2b_runtime_block_channels, "with the input's 1 channels"},
    {"RESHAPE: int32 data", build_reshape, I32, NULL, "TENSOR_INT32 of rank 2 is not allowed"},
    {"SQUEEZE: int32 data", build_squeeze, I32, NULL, "TENSOR_INT32 of rank 2 is not allowed"},
    /* STRIDED_SLICE */
    {"STRIDED_SLICE accepted", build_strided_slice, F32, NULL, NULL},
    {"STRIDED_SLICE quant8 accepted", build_strided_slice, Q8, NULL, NULL},
    {"STRIDED_SLICE shrink accepted", build_strided_slice, F32, ss_shrink_ok, NULL},
    {"STRIDED_SLICE shrink, stride -1 accepted", build_strided_slice, F32, ss_shrink_negative_stride_ok, NULL},
    {"STRIDED_SLICE run-time parameters accepted", build_strided_slice_runtime, F32, NULL, NULL},
    {"STRIDED_SLICE: int32 data", build_strided_slice, F32, ss_int32_data, "TENSOR_INT32 of rank 2 is not allowed"},
    {"STRIDED_SLICE: rank 5", build_strided_slice, F32, ss_rank_5, "of rank 5 is not allowed"},
    {"STRIDED_SLICE: 6 inputs", build_strided_slice, F32, ss_too_few_inputs, "takes 7 inputs"},
    {"STRIDED_SLICE: begin of rank 2", build_strided_slice, F32, input_1_rank_2, "must have rank 1"},
    {"STRIDED_SLICE: float strides", build_strided_slice, F32, ss_strides_float, "must be TENSOR_INT32"},
    {"STRIDED_SLICE: float mask", build_strided_slice, F32, ss_mask_float, "a mask must be INT32"},
    {"STRIDED_SLICE: begin of 3 entries", build_strided_slice, F32, ss_begin_three_entries, "has 3 entries for rank 2"},
    {"STRIDED_SLICE: stride 0", build_strided_slice, F32, ss_stride_zero, "stride 0 on axis 1"},
    {"STRIDED_SLICE: shrunk axis of 2", build_strided_slice, F32, ss_shrink_two_elements, "must select one element"},
    {"STRIDED_SLICE: output dims", build_strided_slice, F32, ss_output_dims_contradict, "output dimension 1 is 2, expected 3"},
    {"STRIDED_SLICE: output rank", build_strided_slice, F32, ss_output_rank_ignores_shrink, "output rank 2, expected 1"},
    {"STRIDED_SLICE: run-time output rank", build_strided_slice_runtime, F32, ss_runtime_rank_ignores_shrink, "does not fit the shrink mask"},
    QUANT_SAME(build_strided_slice, "STRIDED_SLICE"),
    /* SLICE */
    {"SLICE accepted", build_slice, F32, NULL, NULL},
    {"SLICE rank 5 accepted", build_slice_rank_5, F32, NULL, NULL},
    {"SLICE: omitted begin", build_slice, F32, omit_input_1, "input 1 is omitted but not optional"},
    {"SLICE: begin of rank 2", build_slice, F32, input_1_rank_2, "must have rank 1"},
    {"SLICE: begin past the axis", build_slice, F32, slice_begin_past_axis, "SLICE: axis 1: begin 3, size 2 out of 3"},
    {"SLICE: begin + size past the axis", build_slice, F32, slice_size_past_axis, "SLICE: axis 1: begin 1, size 3 out of 3"},
    QUANT_SAME(build_slice, "SLICE"),
    /* TRANSPOSE, TILE, SPLIT, CHANNEL_SHUFFLE, DEPTH_TO_SPACE, SPACE_TO_DEPTH */
    {"TRANSPOSE accepted", build_transpose, Q8, NULL, NULL},
    {"TRANSPOSE omitted perm accepted", build_transpose, F32, omit_input_1, NULL},
    {"TRANSPOSE: perm of rank 2", build_transpose, F32, input_1_rank_2, "perm must have rank 1"},
    {"TRANSPOSE: 1 input", build_transpose, F32, drop_last_input, "takes 2 inputs"},
    {"TRANSPOSE: perm with a repeated axis", build_transpose, F32, transpose_perm_repeated, "perm is not a permutation of 2 axes"},
    {"TRANSPOSE: perm of 3 entries", build_transpose, F32, transpose_perm_3_entries, "perm is not a permutation of 2 axes"},
    QUANT_SAME(build_transpose, "TRANSPOSE"),
    {"TILE accepted", build_tile, Q8, NULL, NULL},
    {"TILE: multiples of rank 2", build_tile, F32, input_1_rank_2, "multiples must have rank 1"},
    {"TILE: 1 input", build_tile, F32, drop_last_input, "takes 2 inputs"},
    {"TILE: multiple 0", build_tile, F32, tile_multiple_0, "TILE: multiple 0 on axis 0"},
    {"TILE: 2 multiples for rank 1", build_tile, F32, tile_2_multiples, "TILE: 2 multiples for rank 1"},
    {"TILE: past a dimension", build_tile, F32, tile_past_a_dimension, "TILE: axis 0 tiled to 6442450941 elements"},
    QUANT_SAME(build_tile, "TILE"),
    {"SPLIT accepted", build_split, Q8, NULL, NULL},
    {"SPLIT: output 1 scale", build_split, Q8, output_scale_differs, "output 1 must keep input 0's scale"},
    {"SPLIT: output 1 zero point", build_split, Q8, output_zero_point_differs, "output 1 must keep input 0's scale 0.5 and zero point 0, not 0.5, 3"},
    {"SPLIT: axis 1 of rank 1", build_split, F32, split_axis_1, "SPLIT: axis 1 and 2 splits do not fit the input"},
    {"SPLIT: 4 splits for 2 outputs", build_split, F32, split_4_splits, "SPLIT: axis 0 and 4 splits do not fit the input"},
    {"SPLIT: 2 splits of an axis of 3", build_split, F32, split_input_3, "SPLIT: axis 0 and 2 splits do not fit the input"},
    {"CHANNEL_SHUFFLE accepted", build_channel_shuffle, Q8, NULL, NULL},
    {"CHANNEL_SHUFFLE: 0 groups", build_channel_shuffle, F32, shuffle_groups_0, "CHANNEL_SHUFFLE: 0 groups on axis 1 do not fit"},
    {"CHANNEL_SHUFFLE: 3 groups of 4 channels", build_channel_shuffle, F32, shuffle_groups_3, "CHANNEL_SHUFFLE: 3 groups on axis 1 do not fit"},
    {"CHANNEL_SHUFFLE: axis 2 of rank 2", build_channel_shuffle, F32, shuffle_axis_2, "CHANNEL_SHUFFLE: 2 groups on axis 2 do not fit"},
    QUANT_SAME(build_channel_shuffle, "CHANNEL_SHUFFLE"),
    {"DEPTH_TO_SPACE accepted", build_depth_to_space, Q8, NULL, NULL},
    {"DEPTH_TO_SPACE: block size 0", build_depth_to_space, F32, block_size_0, "DEPTH_TO_SPACE: block size 0"},
    {"DEPTH_TO_SPACE: 2 channels, block 2", build_depth_to_space, F32, d2s_channels_2, "DEPTH_TO_SPACE: 2 channels, block 2"},
    QUANT_SAME(build_depth_to_space, "DEPTH_TO_SPACE"),
    {"SPACE_TO_DEPTH accepted", build_space_to_depth, Q8, NULL, NULL},
    {"SPACE_TO_DEPTH: block size 0", build_space_to_depth, F32, block_size_0, "SPACE_TO_DEPTH: block size 0"},
    {"SPACE_TO_DEPTH: height 3, block 2", build_space_to_depth, F32, s2d_height_3, "SPACE_TO_DEPTH: 3x2 not divisible by block 2"},
    QUANT_SAME(build_space_to_depth, "SPACE_TO_DEPTH"),
    /* PAD, PAD_V2 */
    {"PAD accepted", build_pad, Q8, NULL, NULL},
    {"PAD: paddings of rank 1", build_pad, F32, paddings_rank_1, "paddings must have rank 2"},
    {"PAD: paddings [1, 4]", build_pad, F32, paddings_one_by_four, "paddings must have shape [2, 2]"},
    {"PAD: negative padding", build_pad, F32, paddings_negative, "PAD: negative padding"},
    {"PAD: past a dimension", build_pad, F32, paddings_past_a_dimension, "PAD: axis 0 padded to 4294967296 elements"},
    {"PAD_V2: past a dimension", build_pad_v2, F32, paddings_past_a_dimension, "PAD_V2: axis 0 padded to 4294967296 elements"},
    {"PAD: float paddings", build_pad, F32, paddings_float, "paddings must be TENSOR_INT32, not TENSOR_FLOAT32"},
    QUANT_SAME(build_pad, "PAD"),
    {"PAD_V2 accepted", build_pad_v2, F32, NULL, NULL},
    {"PAD_V2 quant8 accepted", build_pad_v2, Q8, NULL, NULL},
    {"PAD_V2: float16 pad value, float32 data", build_pad_v2, F32, pad_value_float16, "pad value must be FLOAT32, not FLOAT16"},
    {"PAD_V2: int32 pad value, float32 data", build_pad_v2, F32, pad_value_int32, "pad value must be FLOAT32, not INT32"},
    {"PAD_V2: float32 pad value, quant8 data", build_pad_v2, Q8, pad_value_float32, "pad value must be INT32, not FLOAT32"},
    /* SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND */
    {"SPACE_TO_BATCH_ND accepted", build_space_to_batch, Q8, NULL, NULL},
    {"SPACE_TO_BATCH_ND: block of rank 2", build_space_to_batch, F32, input_1_rank_2, "block_shape must have rank 1"},
    {"SPACE_TO_BATCH_ND: paddings of rank 1", build_space_to_batch, F32, s2b_paddings_rank_1, "paddings must have rank 2"},
    {"SPACE_TO_BATCH_ND: paddings [1, 4]", build_space_to_batch, F32, s2b_paddings_one_by_four, "paddings [2, 2]"},
    {"SPACE_TO_BATCH_ND: block {0, 1}", build_space_to_batch, F32, block_0_1, "SPACE_TO_BATCH_ND: invalid block or paddings"},
    {"SPACE_TO_BATCH_ND: padding -1", build_space_to_batch, F32, s2b_padding_negative, "SPACE_TO_BATCH_ND: invalid block or paddings"},
    {"SPACE_TO_BATCH_ND: padded height 3, block 2", build_space_to_batch, F32, s2b_top_padding_1,
     "SPACE_TO_BATCH_ND: padded 3x2 not divisible by 2x2"},
    QUANT_SAME(build_space_to_batch, "SPACE_TO_BATCH_ND"),
    {"BATCH_TO_SPACE_ND accepted", build_batch_to_space, Q8, NULL, NULL},
    {"BATCH_TO_SPACE_ND: block of rank 2", build_batch_to_space, F32, input_1_rank_2, "block_shape must have rank 1"},
    {"BATCH_TO_SPACE_ND: 3 batches, block {2, 1}", build_batch_to_space, F32, b2s_3_batches_block_2_1,
     "BATCH_TO_SPACE_ND: batch 3 not divisible by 2x1"},
    {"BATCH_TO_SPACE_ND: block_shape of 3 entries", build_batch_to_space, F32, b2s_block_3_entries,
     "BATCH_TO_SPACE_ND: block_shape must be [2]"},
    QUANT_SAME(build_batch_to_space, "BATCH_TO_SPACE_ND"),
    /* RESHAPE, SQUEEZE, EXPAND_DIMS */
    {"RESHAPE accepted", build_reshape, Q8, NULL, NULL},
    {"RESHAPE: input of rank 5", build_reshape, F32, reshape_input_rank_5, "of rank 5 is not allowed"},
    {"RESHAPE: output of rank 5", build_reshape, F32, reshape_output_rank_5, "output rank 5 is above 4"},
    {"RESHAPE: target of rank 5", build_reshape, F32, reshape_target_rank_5, "target rank 5 is not in [1, 4]"},
    {"RESHAPE: two -1 entries", build_reshape, F32, reshape_two_unknown, "RESHAPE: invalid target dimension -1"},
    {"RESHAPE: a 0 entry", build_reshape, F32, reshape_dimension_0, "RESHAPE: invalid target dimension 0"},
    {"RESHAPE: element count differs", build_reshape, F32, reshape_elements_differ, "RESHAPE: the new shape does not hold the same elements"},
    {"RESHAPE: float shape", build_reshape, F32, reshape_shape_float, "RESHAPE: shape must be TENSOR_INT32, not TENSOR_FLOAT32"},
    QUANT_SAME(build_reshape, "RESHAPE"),
    {"SQUEEZE accepted", build_squeeze, Q8, NULL, NULL},
    {"SQUEEZE: axes of rank 2", build_squeeze, F32, input_1_rank_2, "axes must have rank 1"},
    {"SQUEEZE: 1 input", build_squeeze, F32, drop_last_input, "takes 2 inputs"},
    {"SQUEEZE: axis not of size 1", build_squeeze, F32, squeeze_axis_of_size_3, "SQUEEZE: axis 1 is not of size 1"},
    {"SQUEEZE: axis 2 of rank 2", build_squeeze, F32, squeeze_axis_2, "SQUEEZE: axis 2 is not in [-2, 2)"},
    QUANT_SAME(build_squeeze, "SQUEEZE"),
    {"EXPAND_DIMS accepted", build_expand_dims, Q8, NULL, NULL},
    {"EXPAND_DIMS rank 7 to 8 accepted", build_expand_dims_rank_7, F32, NULL, NULL},
    {"EXPAND_DIMS: axis 2 of rank 2", build_expand_dims, F32, expand_dims_axis_2, "EXPAND_DIMS: axis 2 is not in [-2, 2)"},
    {"EXPAND_DIMS: axis -3 of rank 2", build_expand_dims, F32, expand_dims_axis_minus_3, "EXPAND_DIMS: axis -3 is not in [-2, 2)"},
    {"EXPAND_DIMS: float axis", build_expand_dims, F32, expand_dims_axis_float, "EXPAND_DIMS: axis must be INT32, not FLOAT32"},
    {"EXPAND_DIMS: bool8 data", build_expand_dims, B8, NULL, "EXPAND_DIMS: input TENSOR_BOOL8 of rank 1 is not allowed"},
    {"EXPAND_DIMS: input of rank 8", build_expand_dims_rank_7, F32, expand_dims_input_rank_8, "EXPAND_DIMS: input TENSOR_FLOAT32 of rank 8 is not allowed"},
    QUANT_SAME(build_expand_dims, "EXPAND_DIMS"),
    /* GATHER */
    {"GATHER accepted", build_gather, Q8, NULL, NULL},
    {"GATHER: index past the axis", build_gather, F32, gather_index_past_end, "index 3 (element 1) out of [0, 3)"},
    {"GATHER: negative index", build_gather, F32, gather_index_negative, "index -1 (element 0) out of [0, 3)"},
    {"GATHER: axis 2 of rank 2", build_gather, F32, gather_axis_2, "GATHER: axis 2 is not in [-2, 2)"},
    {"GATHER: float indices", build_gather, F32, gather_indices_float, "indices must be TENSOR_INT32, not TENSOR_FLOAT32"},
    QUANT_SAME(build_gather, "GATHER"),
    /* FILL, RANK, DEQUANTIZE, QUANTIZE, SELECT, CONCATENATION, SOFTMAX */
    {"FILL accepted", build_fill, F32, NULL, NULL},
    {"FILL run-time shape accepted", build_fill_runtime, F32, NULL, NULL},
    {"FILL: shape of rank 2", build_fill, F32, fill_shape_rank_2, "shape must have rank 1"},
    {"FILL: output rank against shape length", build_fill_runtime, F32, fill_output_rank_3, "a shape of 2 entries for an output of rank 3"},
    {"FILL: quant8 output", build_fill, F32, fill_output_quant8, "FILL: output TENSOR_QUANT8_ASYMM is not allowed"},
    {"FILL: int32 value for a float output", build_fill, F32, fill_value_int32, "FILL: value must be FLOAT32, not INT32"},
    {"FILL: negative dimension", build_fill, F32, fill_dimension_negative, "FILL: dimension -2"},
    {"RANK accepted", build_rank, Q8, NULL, NULL},
    {"RANK: float output", build_rank, Q8, rank_output_float, "RANK: output must be INT32, not FLOAT32"},
    {"DEQUANTIZE accepted", build_dequantize, Q8, NULL, NULL},
    {"DEQUANTIZE: rank 5", build_dequantize, Q8, dequantize_rank_5, "rank 5 is above 4"},
    {"DEQUANTIZE: to int32", build_dequantize, Q8, output_int32, "DEQUANTIZE: TENSOR_QUANT8_ASYMM -> TENSOR_INT32 is not allowed"},
    {"QUANTIZE accepted", build_quantize, F32, NULL, NULL},
    {"QUANTIZE: from int32", build_quantize, F32, input_int32, "QUANTIZE: TENSOR_INT32 -> TENSOR_QUANT8_ASYMM is not allowed"},
    {"QUANTIZE: to int32", build_quantize, F32, output_int32, "QUANTIZE: TENSOR_FLOAT32 -> TENSOR_INT32 is not allowed"},
    {"SELECT accepted", build_select, Q8, NULL, NULL},
    {"SELECT: condition not BOOL8", build_select, F32, select_condition_int32, "SELECT: condition must be TENSOR_BOOL8, not TENSOR_INT32"},
    {"SELECT: input 2 of another type", build_select, F32, select_input_2_float16, "SELECT: input 2 must be TENSOR_FLOAT32, not TENSOR_FLOAT16"},
    {"SELECT: output of another type", build_select, F32, select_output_float16, "SELECT: output must be TENSOR_FLOAT32, not TENSOR_FLOAT16"},
    {"SELECT: bool8 data", build_select, F32, select_bool8_data, "SELECT: TENSOR_BOOL8 is not allowed"},
    {"SELECT: input shapes differ", build_select, F32, select_input_2_dims, "SELECT: the inputs must have equal shapes"},
    {"CONCATENATION accepted", build_concatenation, F32, NULL, NULL},
    {"CONCATENATION quant8 of differing encodings accepted", build_concatenation, Q8, concatenation_encodings_differ_ok, NULL},
    {"CONCATENATION: float32 and float16 inputs", build_concatenation, F32, concatenation_input_1_float16,
     "CONCATENATION: every input must be TENSOR_FLOAT32, not TENSOR_FLOAT16"},
    {"CONCATENATION: dimensions differ off the axis", build_concatenation, F32, concatenation_input_1_4_wide,
     "CONCATENATION: input 1 differs off the axis"},
    {"CONCATENATION: axis 2 of rank 2", build_concatenation, F32, concatenation_axis_2, "CONCATENATION: axis 2 out of rank 2"},
    {"CONCATENATION: float axis", build_concatenation, F32, concatenation_axis_float, "CONCATENATION: axis must be INT32, not FLOAT32"},
    {"CONCATENATION: float16 output of float32 inputs", build_concatenation, F32, output_float16,
     "CONCATENATION: the output must be TENSOR_FLOAT32, not TENSOR_FLOAT16"},
    {"SOFTMAX accepted", build_softmax, F32, NULL, NULL},
    {"SOFTMAX: beta 0", build_softmax, F32, softmax_beta_zero, "SOFTMAX: beta 0 is not positive"},
    {"SOFTMAX: axis 5 of rank 2", build_softmax, F32, softmax_with_axis, "SOFTMAX: axis 5 is not in [-2, 2)"},
    {"SOFTMAX quant8 accepted", build_softmax, Q8, NULL, NULL},
    {"SOFTMAX: int32 beta", build_softmax, F32, softmax_beta_int32, "SOFTMAX: beta must be FLOAT32, not INT32"},
    {"SOFTMAX: float16 data, float32 beta", build_softmax, F16, softmax_beta_float32, "SOFTMAX: beta must be FLOAT16, not FLOAT32"},
    {"SOFTMAX: output type", build_softmax, F32, output_float16, "SOFTMAX: the output must be TENSOR_FLOAT32, not TENSOR_FLOAT16"},
    {"SOFTMAX: quant8 output scale", build_softmax, Q8, output_scale_differs, "SOFTMAX: quantized output must have scale 1/256 and zero point 0"},
    {"SOFTMAX: quant8 output zero point", build_softmax, Q8, output_zero_point_differs, "SOFTMAX: quantized output must have scale 1/256 and zero point 0"},
    /* L2_NORMALIZATION */
    {"L2_NORMALIZATION accepted", build_l2, F32, NULL, NULL},
    {"L2_NORMALIZATION float16 accepted", build_l2, F16, NULL, NULL},
    {"L2_NORMALIZATION quant8 accepted", build_l2, Q8, NULL, NULL},
    {"L2_NORMALIZATION quant8 signed accepted", build_l2, Q8S, NULL, NULL},
    {"L2_NORMALIZATION without axis accepted", build_l2, F32, drop_last_input, NULL},
    {"L2_NORMALIZATION axis -2 accepted", build_l2, F32, l2_axis_minus_2, NULL},
    {"L2_NORMALIZATION rank 3 accepted", build_l2, Q8, data_rank_3, NULL},
    {"L2_NORMALIZATION: 3 inputs", build_l2_extra_input, F32, NULL, "takes 1 to 2 inputs"},
    {"L2_NORMALIZATION: int32 data", build_l2, F32, input_int32, "input TENSOR_INT32 of rank 2 is not allowed"},
    {"L2_NORMALIZATION: rank 5", build_l2, F32, data_rank_5, "of rank 5 is not allowed"},
    {"L2_NORMALIZATION: output type", build_l2, F32, output_float16, "the output must be TENSOR_FLOAT32"},
    {"L2_NORMALIZATION: output shape", build_l2, F32, output_dims_differ, "output dimension 1 is 4, expected 3"},
    {"L2_NORMALIZATION: float axis", build_l2, F32, l2_axis_float, "axis must be INT32"},
    {"L2_NORMALIZATION: axis 2 of rank 2", build_l2, F32, l2_axis_2, "axis 2 is not in [-2, 2)"},
    {"L2_NORMALIZATION: axis -3 of rank 2", build_l2, F32, l2_axis_minus_3, "axis -3 is not in [-2, 2)"},
    {"L2_NORMALIZATION: omitted axis", build_l2, F32, omit_input_1, "input 1 is omitted but not optional"},
    {"L2_NORMALIZATION: quant8 output scale", build_l2, Q8, output_scale_1_256, "scale 1/128 and zero point 128"},
    {"L2_NORMALIZATION: quant8 output zero point", build_l2, Q8, output_zero_point_0, "scale 1/128 and zero point 128"},
    {"L2_NORMALIZATION: quant8 signed output zero point", build_l2, Q8S, output_zero_point_minus_128, "scale 1/128 and zero point 0"},
    {"L2_NORMALIZATION: quant8 signed output scale", build_l2, Q8S, output_scale_1_256, "scale 1/128 and zero point 0, not 0.00390625, 0"},
    /* LOCAL_RESPONSE_NORMALIZATION */
    {"LOCAL_RESPONSE_NORMALIZATION accepted", build_lrn, F32, NULL, NULL},
    {"LOCAL_RESPONSE_NORMALIZATION float16 accepted", build_lrn, F16, NULL, NULL},
    {"LOCAL_RESPONSE_NORMALIZATION without axis accepted", build_lrn, F32, drop_last_input, NULL},
    {"LOCAL_RESPONSE_NORMALIZATION negative radius accepted", build_lrn, F32, lrn_radius_negative, NULL},
    {"LOCAL_RESPONSE_NORMALIZATION: 4 inputs", build_lrn, F32, lrn_drop_two_inputs, "takes 5 to 6 inputs"},
    {"LOCAL_RESPONSE_NORMALIZATION: quant8 data", build_lrn, F32, input_quant8, "input TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"LOCAL_RESPONSE_NORMALIZATION: rank 5", build_lrn, F32, data_rank_5, "of rank 5 is not allowed"},
    {"LOCAL_RESPONSE_NORMALIZATION: output type", build_lrn, F32, output_float16, "the output must be TENSOR_FLOAT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: float radius", build_lrn, F32, lrn_radius_float, "radius must be INT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: int32 bias", build_lrn, F32, lrn_bias_int32, "bias must be FLOAT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: int32 alpha", build_lrn, F32, lrn_alpha_int32, "alpha must be FLOAT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: int32 beta", build_lrn, F32, lrn_beta_int32, "beta must be FLOAT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: float16 data, float32 bias", build_lrn, F16, lrn_bias_float32, "bias must be FLOAT16"},
    {"LOCAL_RESPONSE_NORMALIZATION: float axis", build_lrn, F32, lrn_axis_float, "axis must be INT32"},
    {"LOCAL_RESPONSE_NORMALIZATION: axis 2 of rank 2", build_lrn, F32, lrn_axis_2, "axis 2 is not in [-2, 2)"},
    {"LOCAL_RESPONSE_NORMALIZATION: axis -3 of rank 2", build_lrn, F32, lrn_axis_minus_3, "axis -3 is not in [-2, 2)"},
    {"LOCAL_RESPONSE_NORMALIZATION: bias 0", build_lrn, F32, lrn_bias_zero, "bias must not be zero"},
    /* INSTANCE_NORMALIZATION */
    {"INSTANCE_NORMALIZATION accepted", build_instance_norm, F32, NULL, NULL},
    {"INSTANCE_NORMALIZATION float16 NCHW accepted", build_instance_norm, F16, instance_nchw, NULL},
    {"INSTANCE_NORMALIZATION: 4 inputs", build_instance_norm, F32, drop_last_input, "takes 5 inputs"},
    {"INSTANCE_NORMALIZATION: quant8 data", build_instance_norm, F32, input_quant8, "input TENSOR_QUANT8_ASYMM of rank 4 is not allowed"},
    {"INSTANCE_NORMALIZATION: rank 3", build_instance_norm, F32, data_rank_3, "input 0 must have rank 4, not 3"},
    {"INSTANCE_NORMALIZATION: output type", build_instance_norm, F32, output_float16, "the output must be TENSOR_FLOAT32"},
    {"INSTANCE_NORMALIZATION: int32 gamma", build_instance_norm, F32, instance_gamma_int32, "gamma must be FLOAT32"},
    {"INSTANCE_NORMALIZATION: int32 beta", build_instance_norm, F32, instance_beta_int32, "beta must be FLOAT32"},
    {"INSTANCE_NORMALIZATION: int32 epsilon", build_instance_norm, F32, instance_epsilon_int32, "epsilon must be FLOAT32"},
    {"INSTANCE_NORMALIZATION: float16 data, float32 epsilon", build_instance_norm, F16, instance_epsilon_float32, "epsilon must be FLOAT16"},
    {"INSTANCE_NORMALIZATION: int32 layout", build_instance_norm, F32, instance_layout_int32, "the layout must be BOOL"},
    /* LOG_SOFTMAX */
    {"LOG_SOFTMAX accepted", build_log_softmax, F32, NULL, NULL},
    {"LOG_SOFTMAX float16 accepted", build_log_softmax, F16, NULL, NULL},
    {"LOG_SOFTMAX rank 5 accepted", build_log_softmax, F32, data_rank_5, NULL},
    {"LOG_SOFTMAX: 2 inputs", build_log_softmax, F32, drop_last_input, "takes 3 inputs"},
    {"LOG_SOFTMAX: quant8 data", build_log_softmax, F32, input_quant8, "input TENSOR_QUANT8_ASYMM is not allowed"},
    {"LOG_SOFTMAX: output type", build_log_softmax, F32, output_float16, "the output must be TENSOR_FLOAT32"},
    {"LOG_SOFTMAX: int32 beta", build_log_softmax, F32, softmax_beta_int32, "beta must be FLOAT32"},
    {"LOG_SOFTMAX: float16 data, float32 beta", build_log_softmax, F16, softmax_beta_float32, "beta must be FLOAT16"},
    {"LOG_SOFTMAX: float axis", build_log_softmax, F32, softmax_axis_float, "axis must be INT32"},
    {"LOG_SOFTMAX: axis 2 of rank 2", build_log_softmax, F32, softmax_axis_2, "axis 2 is not in [-2, 2)"},
    {"LOG_SOFTMAX: axis -3 of rank 2", build_log_softmax, F32, softmax_axis_minus_3, "axis -3 is not in [-2, 2)"},
    {"LOG_SOFTMAX: beta 0", build_log_softmax, F32, softmax_beta_zero, "LOG_SOFTMAX: beta 0 is not positive"},
    {"LOG_SOFTMAX: beta -1", build_log_softmax, F32, softmax_beta_negative, "LOG_SOFTMAX: beta -1 is not positive"},
    /* Elementwise */
    {"ADD accepted", build_add, Q8, NULL, NULL},
    {"MUL accepted", build_mul, Q8, NULL, NULL},
    {"ADD: omitted input 1", build_add, F32, omit_input_1, "input 1 is omitted but not optional"},
    {"MUL: output scale = product", build_mul, Q8, mul_output_scale_equal, "must exceed the input scales' product"},
    {"MUL: output scale < product", build_mul, Q8, mul_output_scale_below, "must exceed the input scales' product"},
    {"ADD int32 accepted", build_add, I32, NULL, NULL},
    {"ADD: int32 with a fused activation", build_add, I32, fused_relu, "ADD: invalid fused activation 1"},
    {"MUL: int32 with a fused activation", build_mul, I32, fused_relu, "MUL: invalid fused activation 1"},
    {"MAXIMUM accepted", build_maximum, F32, NULL, NULL},
    {"MAXIMUM: input 1 of another type", build_maximum, F32, input_1_float16, "MAXIMUM: operand types TENSOR_FLOAT32, TENSOR_FLOAT16 -> TENSOR_FLOAT32 are not allowed"},
    {"POW accepted", build_pow, F32, NULL, NULL},
    {"POW: quant8 data", build_pow, Q8, NULL, "POW: operand types TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM -> TENSOR_QUANT8_ASYMM are not allowed"},
    {"PRELU accepted", build_prelu, F32, NULL, NULL},
    {"PRELU: int32 data", build_prelu, I32, NULL, "PRELU: operand types TENSOR_INT32, TENSOR_INT32 -> TENSOR_INT32 are not allowed"},
    {"LESS accepted", build_less, F32, NULL, NULL},
    {"LESS: output not BOOL8", build_less, F32, output_of_input_type, "LESS: operand types TENSOR_FLOAT32, TENSOR_FLOAT32 -> TENSOR_FLOAT32 are not allowed"},
    {"LOGICAL_AND accepted", build_logical_and, VKNN_OPERAND_TENSOR_BOOL8, NULL, NULL},
    {"LOGICAL_AND: float32 inputs", build_logical_and, F32, NULL, "LOGICAL_AND: operand types TENSOR_FLOAT32, TENSOR_FLOAT32 -> TENSOR_BOOL8 are not allowed"},
    {"RELU accepted", build_relu, Q8, NULL, NULL},
    {"RELU: float16 output", build_relu, F32, output_float16, "RELU: TENSOR_FLOAT32 of rank 2 is not allowed"},
    QUANT_SAME(build_relu, "RELU"),
    {"RELU1 accepted", build_relu1, Q8, NULL, NULL},
    QUANT_SAME(build_relu1, "RELU1"),
    QUANT_SAME(build_relu6, "RELU6"),
    {"LOGISTIC accepted", build_logistic, Q8, NULL, NULL},
    {"LOGISTIC quant8 signed accepted", build_logistic, Q8, quant8_signed_output_zero_point_minus_128, NULL},
    {"LOGISTIC: quant8 output scale", build_logistic, Q8, output_scale_differs, "LOGISTIC: wrong quantized output scale or zero point"},
    {"LOGISTIC: quant8 output zero point", build_logistic, Q8, output_zero_point_differs, "LOGISTIC: wrong quantized output scale or zero point"},
    {"LOGISTIC: quant8 signed output zero point 0", build_logistic, Q8, quant8_signed, "LOGISTIC: wrong quantized output scale or zero point"},
    {"TANH accepted", build_tanh, Q8, NULL, NULL},
    {"TANH: quant8 output scale", build_tanh, Q8, output_scale_1_256, "TANH: wrong quantized output scale or zero point"},
    {"TANH: quant8 output zero point", build_tanh, Q8, output_zero_point_0, "TANH: wrong quantized output scale or zero point"},
    {"EXP accepted", build_exp, F32, NULL, NULL},
    {"EXP: quant8 data", build_exp, Q8, NULL, "EXP: TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"HARD_SWISH accepted", build_hard_swish, F32, NULL, NULL},
    {"HARD_SWISH: int32 data", build_hard_swish, I32, NULL, "HARD_SWISH: TENSOR_INT32 of rank 2 is not allowed"},
    {"ELU accepted", build_elu, F32, NULL, NULL},
    {"ELU: int32 alpha", build_elu, F32, elu_alpha_int32, "ELU: alpha must be FLOAT32, not INT32"},
    {"ELU: float16 data, float32 alpha", build_elu, F16, elu_alpha_float32, "ELU: alpha must be FLOAT16, not FLOAT32"},
    /* Convolutions and pools */
    {"CONV_2D accepted", build_conv, F32, NULL, NULL},
    {"CONV_2D bias of unknown size accepted", build_conv, F32, conv_bias_size_unknown, NULL},
    {"CONV_2D quant8 accepted", build_conv, Q8, NULL, NULL},
    {"CONV_2D per-channel accepted", build_conv, Q8, conv_per_channel_ok, NULL},
    {"CONV_2D padding code 0 (none) accepted", build_conv, F32, padding_code_0, NULL},
    {"CONV_2D: bias scale", build_conv, Q8, bias_scale_off, "must be input scale * filter scale"},
    {"CONV_2D: per-channel bias scale", build_conv, Q8, conv_per_channel_bias_scale, "bias scale must be 0"},
    {"CONV_2D: padding code 3", build_conv, F32, padding_code_3, "padding code 3 is not"},
    {"CONV_2D: stride 0, input height unknown", build_conv, F32, conv_stride_0_height_unknown,
     "CONV_2D: invalid stride"},
    {"CONV_2D: activation 4, input height unknown", build_conv, F32, conv_activation_4_height_unknown,
     "CONV_2D: invalid stride, dilation, padding or activation"},
    {"CONV_2D stride a model input accepted", build_conv, F32, conv_stride_input, NULL},
    {"DEPTHWISE_CONV_2D accepted", build_depthwise, Q8, NULL, NULL},
    {"DEPTHWISE_CONV_2D per-channel accepted", build_depthwise, Q8, depthwise_per_channel_ok, NULL},
    {"DEPTHWISE_CONV_2D: bias scale", build_depthwise, Q8, bias_scale_off, "must be input scale * filter scale"},
    {"DEPTHWISE_CONV_2D: per-channel bias scale", build_depthwise, Q8, depthwise_per_channel_bias_scale, "bias scale must be 0"},
    {"DEPTHWISE_CONV_2D: padding code 3", build_depthwise, F32, padding_code_3, "padding code 3 is not"},
    {"DEPTHWISE_CONV_2D: stride 0, input height unknown", build_depthwise, F32,
     conv_stride_0_height_unknown, "DEPTHWISE_CONV_2D: invalid stride"},
    {"DEPTHWISE_CONV_2D: filter dimension 0 of 2", build_depthwise, F32, depthwise_filter_dim0_2, "filter dimension 0 must be 1, not 2"},
    {"DEPTHWISE_CONV_2D filter dimension 0 unknown accepted", build_depthwise, F32, depthwise_filter_dim0_unknown, NULL},
    {"GROUPED_CONV_2D accepted", build_grouped, F32, NULL, NULL},
    {"GROUPED_CONV_2D quant8 accepted", build_grouped, Q8, NULL, NULL},
    {"GROUPED_CONV_2D per-channel accepted", build_grouped, Q8, conv_per_channel_ok, NULL},
    {"GROUPED_CONV_2D explicit padding accepted", build_grouped_explicit, F32, NULL, NULL},
    {"GROUPED_CONV_2D: 8 inputs", build_grouped, F32, grouped_8_inputs, "takes 9 to 12 inputs"},
    {"GROUPED_CONV_2D: 10 inputs", build_grouped_explicit, F32, grouped_10_inputs, "10 inputs (9 or 12)"},
    {"GROUPED_CONV_2D: negative padding", build_grouped_explicit, F32, grouped_negative_padding, "invalid stride, dilation, padding"},
    {"GROUPED_CONV_2D: input of rank 3", build_grouped, F32, conv_input_rank_3, "input must have rank 4"},
    {"GROUPED_CONV_2D: filter of rank 3", build_grouped, F32, grouped_filter_rank_3, "filter must have rank 4"},
    {"GROUPED_CONV_2D: int32 output", build_grouped, F32, conv_output_int32, "are not allowed"},
    {"GROUPED_CONV_2D: int32 filter", build_grouped, F32, conv_filter_int32, "does not go with input"},
    {"GROUPED_CONV_2D: per-channel dimension 3", build_grouped, Q8, per_channel_dim_3, "does not go with input"},
    {"GROUPED_CONV_2D: bias scale", build_grouped, Q8, bias_scale_off, "must be input scale * filter scale"},
    {"GROUPED_CONV_2D: per-channel bias scale", build_grouped, Q8, conv_per_channel_bias_scale, "bias scale must be 0"},
    {"GROUPED_CONV_2D: bias of 3", build_grouped, F32, conv_bias_3, "channels do not agree"},
    {"GROUPED_CONV_2D: layout as INT32", build_grouped, F32, grouped_layout_int, "must be BOOL"},
    {"GROUPED_CONV_2D: groups as FLOAT32", build_grouped, F32, grouped_groups_float, "must be INT32"},
    {"GROUPED_CONV_2D: padding code 3", build_grouped, F32, padding_code_3, "padding code 3 is not"},
    {"GROUPED_CONV_2D: stride 0", build_grouped, F32, grouped_stride_0, "invalid stride"},
    {"GROUPED_CONV_2D: activation 4", build_grouped, F32, grouped_activation_4, "or activation"},
    {"GROUPED_CONV_2D: 0 groups", build_grouped, F32, grouped_groups_0, "0 groups"},
    {"GROUPED_CONV_2D: groups not dividing the outputs", build_grouped, F32, grouped_groups_3, "3 groups of 2 input channels"},
    {"GROUPED_CONV_2D: groups times depth_group != depth_in", build_grouped, F32, grouped_groups_4, "4 groups of 2 input channels"},
    {"TRANSPOSE_CONV_2D accepted", build_transpose_conv, F32, NULL, NULL},
    {"TRANSPOSE_CONV_2D quant8 accepted", build_transpose_conv, Q8, NULL, NULL},
    {"TRANSPOSE_CONV_2D per-channel accepted", build_transpose_conv, Q8, conv_per_channel_ok, NULL},
    {"TRANSPOSE_CONV_2D implicit padding accepted", build_transpose_implicit, F32, NULL, NULL},
    {"TRANSPOSE_CONV_2D run-time output shape accepted", build_transpose_runtime_shape, F32, NULL, NULL},
    {"TRANSPOSE_CONV_2D bias of unknown size accepted", build_transpose_conv, F32, conv_bias_size_unknown, NULL},
    {"TRANSPOSE_CONV_2D: 10 inputs", build_transpose_conv, F32, transpose_10_inputs, "10 inputs (9 or 11)"},
    {"TRANSPOSE_CONV_2D: input of rank 3", build_transpose_conv, F32, conv_input_rank_3, "input must have rank 4"},
    {"TRANSPOSE_CONV_2D: int32 output", build_transpose_conv, F32, conv_output_int32, "are not allowed"},
    {"TRANSPOSE_CONV_2D: int32 filter", build_transpose_conv, F32, conv_filter_int32, "does not go with input"},
    {"TRANSPOSE_CONV_2D: per-channel dimension 3", build_transpose_conv, Q8, per_channel_dim_3, "does not go with input"},
    {"TRANSPOSE_CONV_2D: bias scale", build_transpose_conv, Q8, bias_scale_off, "must be input scale * filter scale"},
    {"TRANSPOSE_CONV_2D: per-channel bias scale", build_transpose_conv, Q8, conv_per_channel_bias_scale, "bias scale must be 0"},
    {"TRANSPOSE_CONV_2D: bias of 3", build_transpose_conv, F32, conv_bias_3, "channels do not agree"},
    {"TRANSPOSE_CONV_2D: 3 input channels for a filter of 2", build_transpose_conv, F32, transpose_in_channels_3, "channels do not agree"},
    {"TRANSPOSE_CONV_2D: layout as INT32", build_transpose_conv, F32, transpose_layout_int, "must be BOOL"},
    {"TRANSPOSE_CONV_2D: negative left padding", build_transpose_conv, F32, transpose_pad_left_negative, "padding or output extent"},
    {"TRANSPOSE_CONV_2D: negative top padding", build_transpose_conv, F32, transpose_pad_top_negative, "padding or output extent"},
    {"TRANSPOSE_CONV_2D: padding past the output", build_transpose_conv, F32, transpose_pads_past_output, "padding or output extent"},
    {"TRANSPOSE_CONV_2D: stride 0", build_transpose_conv, F32, transpose_stride_0, "invalid stride"},
    {"TRANSPOSE_CONV_2D: stride 0, input height unknown", build_transpose_conv, F32,
     transpose_stride_0_height_unknown, "TRANSPOSE_CONV_2D: invalid stride"},
    {"TRANSPOSE_CONV_2D: activation -1", build_transpose_conv, F32, transpose_activation_minus_1, "or activation"},
    {"TRANSPOSE_CONV_2D: output shape disagrees", build_transpose_conv, F32, transpose_output_5_wide, "output dimension 2 is 5, expected 4"},
    {"TRANSPOSE_CONV_2D: padding code 3", build_transpose_implicit, F32, transpose_implicit_padding_3, "padding code 3 is not"},
    {"TRANSPOSE_CONV_2D: output shape of rank 2", build_transpose_implicit, F32, transpose_shape_rank_2, "output shape must have rank 1"},
    {"TRANSPOSE_CONV_2D: output shape as FLOAT32", build_transpose_implicit, F32, transpose_shape_float, "must be TENSOR_INT32"},
    {"TRANSPOSE_CONV_2D: output shape of 3 entries", build_transpose_implicit, F32, transpose_shape_3_entries, "output shape of 3 entries"},
    {"FULLY_CONNECTED accepted", build_fully_connected, Q8, NULL, NULL},
    {"FULLY_CONNECTED: bias scale", build_fully_connected, Q8, bias_scale_off, "must be input scale * filter scale"},
    {"FULLY_CONNECTED: bias of 4 for 3 units", build_fully_connected, F32, fc_bias_4, "a bias of 4 for 3 units"},
    {"FULLY_CONNECTED: bias of 4 for 3 units, batch unknown", build_fully_connected, F32, fc_bias_4_batch_unknown,
     "a bias of 4 for 3 units"},
    {"AVERAGE_POOL_2D accepted", build_average_pool, Q8, NULL, NULL},
    {"AVERAGE_POOL_2D padding code 0 (none) accepted", build_average_pool, F32, pool_padding_code_0, NULL},
    {"AVERAGE_POOL_2D padding narrower than the filter accepted", build_average_pool_pad_1, F32, NULL, NULL},
    {"AVERAGE_POOL_2D: padding as wide as the filter", build_average_pool_pad_2, F32, NULL,
     "explicit padding must be smaller than the filter"},
    {"MAX_POOL_2D: padding as wide as the filter", build_max_pool_pad_2, Q8, NULL,
     "explicit padding must be smaller than the filter"},
    {"L2_POOL_2D: padding as wide as the filter", build_l2_pool_pad_2, F32, NULL,
     "explicit padding must be smaller than the filter"},
    {"AVERAGE_POOL_2D: padding code -1", build_average_pool, F32, pool_padding_code_minus_1, "padding code -1 is not"},
    {"AVERAGE_POOL_2D: stride 0", build_average_pool, F32, pool_stride_0, "AVERAGE_POOL_2D: strides must be positive"},
    {"AVERAGE_POOL_2D: stride 0, input height unknown", build_average_pool, F32, pool_stride_0_height_unknown,
     "AVERAGE_POOL_2D: strides must be positive"},
    {"AVERAGE_POOL_2D: filter width 0", build_average_pool, F32, pool_filter_width_0, "height must be positive"},
    {"AVERAGE_POOL_2D: negative explicit padding", build_average_pool_explicit, F32, pool_left_padding_negative,
     "AVERAGE_POOL_2D: a negative padding"},
    {"AVERAGE_POOL_2D: activation 4", build_average_pool, F32, pool_activation_4, "the activation is no FuseCode"},
    {"AVERAGE_POOL_2D: 9 inputs", build_average_pool_explicit, F32, drop_last_input, "AVERAGE_POOL_2D: 9 inputs"},
    {"AVERAGE_POOL_2D NHWC layout accepted", build_average_pool_layout, F32, NULL, NULL},
    {"AVERAGE_POOL_2D: layout as INT32", build_average_pool_layout, F32, pool_layout_int32,
     "a scalar parameter must be BOOL, not INT32"},
    {"AVERAGE_POOL_2D: output rank 3", build_average_pool, F32, pool_output_rank_3, "output must have rank 4, not 3"},
    QUANT_SAME(build_average_pool, "AVERAGE_POOL_2D"),
    {"MAX_POOL_2D accepted", build_max_pool, F32, NULL, NULL},
    {"MAX_POOL_2D quant8 accepted", build_max_pool, Q8, NULL, NULL},
    {"L2_POOL_2D accepted", build_l2_pool, F32, NULL, NULL},
    {"L2_POOL_2D: quant8", build_l2_pool, Q8, NULL, "L2_POOL_2D: types TENSOR_QUANT8_ASYMM -> TENSOR_QUANT8_ASYMM are not allowed"},
    /* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR */
    {"RESIZE_BILINEAR accepted", build_resize_bilinear, F32, NULL, NULL},
    {"RESIZE_BILINEAR quant8 accepted", build_resize_bilinear, Q8, NULL, NULL},
    {"RESIZE_BILINEAR scales accepted", build_resize_bilinear_scales, F32, NULL, NULL},
    {"RESIZE_BILINEAR quant8 scales accepted", build_resize_bilinear_scales, Q8, NULL, NULL},
    {"RESIZE_BILINEAR float16 scales accepted", build_resize_bilinear_scales, F32, resize_f16_scales_ok, NULL},
    {"RESIZE_BILINEAR align_corners accepted", build_resize_bilinear_flags, F32, resize_align_corners_ok, NULL},
    {"RESIZE_BILINEAR NCHW half_pixel accepted", build_resize_bilinear_flags, F32, resize_half_pixel_nchw_ok, NULL},
    {"RESIZE_BILINEAR: 2 inputs", build_resize_bilinear, F32, drop_last_input, "takes 3 to 6 inputs"},
    {"RESIZE_BILINEAR: omitted width", build_resize_bilinear, F32, omit_input_1, "input 1 is omitted but not optional"},
    {"RESIZE_BILINEAR: int32 data", build_resize_bilinear, F32, resize_int32_data, "types TENSOR_INT32 -> TENSOR_INT32 are not allowed"},
    {"RESIZE_BILINEAR: output type", build_resize_bilinear, F32, resize_output_f16, "types TENSOR_FLOAT32 -> TENSOR_FLOAT16 are not allowed"},
    {"RESIZE_BILINEAR: float16 height, float32 data", build_resize_bilinear, F32, resize_height_f16, "must be INT32 or a FLOAT32 scale"},
    {"RESIZE_BILINEAR: float32 scales, float16 data", build_resize_bilinear_scales, F32, resize_f16_scales_f32, "must be INT32 or a FLOAT16 scale"},
    {"RESIZE_BILINEAR: float16 scales, quant8 data", build_resize_bilinear_scales, Q8, resize_scales_f16, "must be INT32 or a FLOAT32 scale"},
    {"RESIZE_BILINEAR: width type other than height", build_resize_bilinear_scales, F32, resize_width_int32, "the width (of the height's type) must be FLOAT32"},
    {"RESIZE_BILINEAR: int32 layout", build_resize_bilinear_flags, F32, resize_layout_int32, "must be BOOL"},
    {"RESIZE_BILINEAR: int32 half_pixel_centers", build_resize_bilinear_flags, F32, resize_half_pixel_int32, "must be BOOL"},
    {"RESIZE_BILINEAR: int32 align_corners", build_resize_bilinear_flags, F32, resize_align_corners_int32, "must be BOOL, not INT32"},
    {"RESIZE_BILINEAR: input rank 3", build_resize_bilinear, F32, resize_input_rank_3, "input must have rank 4, not 3"},
    {"RESIZE_BILINEAR: output rank 3", build_resize_bilinear, F32, resize_output_rank_3, "output must have rank 4, not 3"},
    {"RESIZE_BILINEAR: width 0", build_resize_bilinear, F32, resize_width_0, "width and height must be positive"},
    {"RESIZE_BILINEAR: negative height", build_resize_bilinear, F32, resize_height_negative, "width and height must be positive"},
    {"RESIZE_BILINEAR: scale to no column", build_resize_bilinear_scales, F32, resize_scale_to_nothing, "width and height must be positive"},
    {"RESIZE_BILINEAR: align_corners and half_pixel_centers", build_resize_bilinear_flags, F32, resize_both_alignments, "half_pixel_centers requires align_corners false"},
    {"RESIZE_BILINEAR: output dims", build_resize_bilinear, F32, resize_output_dims, "output dimension 1 is 4, expected 3"},
    {"RESIZE_BILINEAR: NCHW output dims", build_resize_bilinear_flags, F32, resize_nchw_output_dims, "output dimension 1 is 3, expected 2"},
    QUANT_SAME(build_resize_bilinear, "RESIZE_BILINEAR"),
    {"RESIZE_NEAREST_NEIGHBOR accepted", build_resize_nearest, Q8, NULL, NULL},
    {"RESIZE_NEAREST_NEIGHBOR scales accepted", build_resize_nearest_scales, F32, NULL, NULL},
    {"RESIZE_NEAREST_NEIGHBOR: 3 inputs", build_resize_nearest, F32, drop_last_input, "takes 4 to 6 inputs"},
    {"RESIZE_NEAREST_NEIGHBOR: output type", build_resize_nearest, F32, resize_output_f16, "types TENSOR_FLOAT32 -> TENSOR_FLOAT16 are not allowed"},
    {"RESIZE_NEAREST_NEIGHBOR: float16 height", build_resize_nearest, F32, resize_height_f16, "must be INT32 or a FLOAT32 scale"},
    {"RESIZE_NEAREST_NEIGHBOR: float32 scales, float16 data", build_resize_nearest_scales, F32, resize_f16_scales_f32, "must be INT32 or a FLOAT16 scale"},
    {"RESIZE_NEAREST_NEIGHBOR: width type other than height", build_resize_nearest_scales, F32, resize_width_int32, "the width (of the height's type) must be FLOAT32"},
    {"RESIZE_NEAREST_NEIGHBOR: int32 layout", build_resize_nearest, F32, resize_layout_int32, "must be BOOL"},
    {"RESIZE_NEAREST_NEIGHBOR: input rank 3", build_resize_nearest, F32, resize_input_rank_3, "input must have rank 4, not 3"},
    {"RESIZE_NEAREST_NEIGHBOR: output rank 3", build_resize_nearest, F32, resize_output_rank_3, "output must have rank 4, not 3"},
    {"RESIZE_NEAREST_NEIGHBOR: align_corners and half_pixel_centers", build_resize_nearest_scales, F32, resize_both_alignments, "half_pixel_centers requires align_corners false"},
    {"RESIZE_NEAREST_NEIGHBOR: width 0", build_resize_nearest, F32, resize_width_0, "width and height must be positive"},
    {"RESIZE_NEAREST_NEIGHBOR: negative height", build_resize_nearest, F32, resize_height_negative, "width and height must be positive"},
    QUANT_SAME(build_resize_nearest, "RESIZE_NEAREST_NEIGHBOR"),
    /* TOPK_V2 */
    {"TOPK_V2 accepted", build_topk, F32, NULL, NULL},
    {"TOPK_V2 quant8 accepted", build_topk, Q8, NULL, NULL},
    {"TOPK_V2 int32 accepted", build_topk, I32, NULL, NULL},
    {"TOPK_V2 rank 3 accepted", build_topk, F32, topk_rank_3_ok, NULL},
    {"TOPK_V2: 1 input", build_topk, F32, drop_last_input, "takes 2 inputs and 2 outputs"},
    {"TOPK_V2: bool8 data", build_topk, F32, topk_bool_data, "input type TENSOR_BOOL8 is not allowed"},
    {"TOPK_V2: float k", build_topk, F32, topk_k_float, "k must be INT32"},
    {"TOPK_V2: values type", build_topk, F32, topk_values_f16, "the values (output 0) must be TENSOR_FLOAT32"},
    {"TOPK_V2: indices type", build_topk, F32, topk_indices_f32, "the indices (output 1) must be TENSOR_INT32"},
    {"TOPK_V2: k 0", build_topk, F32, topk_k_0, "k 0 is not in [1, 3]"},
    {"TOPK_V2: k past the row", build_topk, F32, topk_k_past_row, "k 4 is not in [1, 3]"},
    {"TOPK_V2: values rank", build_topk, F32, topk_values_rank_1, "outputs must have the input's rank 2"},
    {"TOPK_V2: indices dims", build_topk, F32, topk_indices_dims, "output dimension 1 is 3, expected 2"},
    QUANT_SAME(build_topk, "TOPK_V2"),
    /* MEAN, REDUCE_*: types, ranks, axes, keep_dims, encodings */
    {"REDUCE_SUM accepted", build_reduce_sum, F32, NULL, NULL},
    {"REDUCE_SUM float16 accepted", build_reduce_sum, VKNN_OPERAND_TENSOR_FLOAT16, NULL, NULL},
    {"REDUCE_SUM repeated axis accepted", build_reduce_sum, F32, reduce_repeated_axis, NULL},
    {"REDUCE_SUM keep_dims accepted", build_reduce_sum, F32, reduce_keep_dims_true, NULL},
    {"REDUCE_SUM every axis to [1] accepted", build_reduce_sum, F32, reduce_all_axes, NULL},
    {"REDUCE_SUM run-time axes accepted", build_reduce_sum_runtime_axes, F32, NULL, NULL},
    {"REDUCE_SUM: quant8 data", build_reduce_sum, F32, data_quant8, "TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"REDUCE_SUM: rank 5", build_reduce_sum, F32, reduce_rank_5, "of rank 5 is not allowed"},
    {"REDUCE_SUM: 2 inputs", build_reduce_sum, F32, reduce_two_inputs, "takes 3 inputs"},
    {"REDUCE_SUM: omitted axes", build_reduce_sum, F32, omit_input_1, "input 1 is omitted but not optional"},
    {"REDUCE_SUM: axes of rank 2", build_reduce_sum, F32, input_1_rank_2, "axes must have rank 1"},
    {"REDUCE_SUM: float axes", build_reduce_sum, F32, reduce_axes_float, "axes must be TENSOR_INT32"},
    {"REDUCE_SUM: INT32 keep_dims", build_reduce_sum, F32, reduce_keep_dims_int32, "keep_dims must be BOOL"},
    {"REDUCE_SUM: output type", build_reduce_sum, F32, output_type_f16, "the output must be TENSOR_FLOAT32"},
    {"REDUCE_SUM: axis 2 of rank 2", build_reduce_sum, F32, reduce_axis_2, "axis 2 is not in [-2, 2)"},
    {"REDUCE_SUM: axis -3 of rank 2", build_reduce_sum, F32, reduce_axis_minus_3, "axis -3 is not in [-2, 2)"},
    {"REDUCE_SUM: keep_dims output rank", build_reduce_sum, F32, reduce_keep_dims_output_rank, "output rank 1, expected 2"},
    {"REDUCE_PROD accepted", build_reduce_prod, F32, NULL, NULL},
    {"REDUCE_PROD: quant8 data", build_reduce_prod, F32, data_quant8, "TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"REDUCE_PROD: int32 data", build_reduce_prod, F32, data_int32, "TENSOR_INT32 of rank 2 is not allowed"},
    {"REDUCE_MAX accepted", build_reduce_max, F32, NULL, NULL},
    {"REDUCE_MAX quant8 accepted", build_reduce_max, Q8, NULL, NULL},
    {"REDUCE_MAX: bool8 data", build_reduce_max, F32, data_bool8, "TENSOR_BOOL8 of rank 2 is not allowed"},
    {"REDUCE_MAX: int32 data", build_reduce_max, F32, data_int32, "TENSOR_INT32 of rank 2 is not allowed"},
    QUANT_SAME(build_reduce_max, "REDUCE_MAX"),
    {"REDUCE_MIN accepted", build_reduce_min, Q8, NULL, NULL},
    {"REDUCE_MIN: INT32 keep_dims", build_reduce_min, F32, reduce_keep_dims_int32, "keep_dims must be BOOL"},
    QUANT_SAME(build_reduce_min, "REDUCE_MIN"),
    {"REDUCE_ANY accepted", build_reduce_any, B8, NULL, NULL},
    {"REDUCE_ANY: float32 data", build_reduce_any, B8, data_float32, "TENSOR_FLOAT32 of rank 2 is not allowed"},
    {"REDUCE_ANY: rank 5", build_reduce_any, B8, reduce_rank_5, "of rank 5 is not allowed"},
    {"REDUCE_ALL accepted", build_reduce_all, B8, NULL, NULL},
    {"REDUCE_ALL: quant8 data", build_reduce_all, B8, data_quant8, "TENSOR_QUANT8_ASYMM of rank 2 is not allowed"},
    {"REDUCE_ALL: axis 2 of rank 2", build_reduce_all, B8, reduce_axis_2, "axis 2 is not in [-2, 2)"},
    {"MEAN accepted", build_mean, F32, NULL, NULL},
    {"MEAN quant8 accepted", build_mean, Q8, NULL, NULL},
    {"MEAN positive keep_dims accepted", build_mean, F32, mean_keep_dims_positive, NULL},
    {"MEAN: BOOL keep_dims", build_mean, F32, mean_keep_dims_bool, "keep_dims must be INT32"},
    {"MEAN: int32 data", build_mean, F32, data_int32, "TENSOR_INT32 of rank 2 is not allowed"},
    {"MEAN: rank 5", build_mean, F32, reduce_rank_5, "of rank 5 is not allowed"},
    {"MEAN: axes of rank 2", build_mean, F32, input_1_rank_2, "axes must have rank 1"},
    {"MEAN: axis 2 of rank 2", build_mean, Q8, reduce_axis_2, "axis 2 is not in [-2, 2)"},
    QUANT_SAME(build_mean, "MEAN"),
    /* ARGMAX, ARGMIN */
    {"ARGMAX accepted", build_argmax, F32, NULL, NULL},
    {"ARGMAX quant8 accepted", build_argmax, Q8, NULL, NULL},
    {"ARGMAX int32 accepted", build_argmax, F32, arg_input_int32, NULL},
    {"ARGMAX 1-D to [1] accepted", build_argmax_1d, F32, NULL, NULL},
    {"ARGMAX axis -2 accepted", build_argmax, F32, arg_axis_minus_2, NULL},
    {"ARGMAX run-time axis accepted", build_argmax_runtime_axis, F32, NULL, NULL},
    {"ARGMAX: bool8 data", build_argmax, F32, arg_input_bool8, "input TENSOR_BOOL8 is not allowed"},
    {"ARGMAX: float output", build_argmax, F32, arg_output_float, "the output must be TENSOR_INT32"},
    {"ARGMAX: 3 inputs", build_argmax_three_inputs, F32, NULL, "takes 2 inputs"},
    {"ARGMAX: axis as a tensor", build_argmax, F32, arg_axis_tensor, "axis must be INT32"},
    {"ARGMAX: axis 2 of rank 2", build_argmax, F32, arg_axis_2, "axis 2 is not in [-2, 2)"},
    {"ARGMAX: axis -3 of rank 2", build_argmax, F32, arg_axis_minus_3, "axis -3 is not in [-2, 2)"},
    {"ARGMAX: output dims", build_argmax, F32, arg_output_dims, "output dimension 0 is 3, expected 2"},
    {"ARGMIN accepted", build_argmin, Q8, NULL, NULL},
    {"ARGMIN: bool8 data", build_argmin, F32, arg_input_bool8, "input TENSOR_BOOL8 is not allowed"},
    {"ARGMIN: axis 2 of rank 2", build_argmin, F32, arg_axis_2, "axis 2 is not in [-2, 2)"},
    /* ROI_ALIGN, ROI_POOLING */
    {"ROI_ALIGN accepted", build_roi_align, F32, NULL, NULL},
    {"ROI_ALIGN quant8 accepted", build_roi_align, Q8, NULL, NULL},
    {"ROI_ALIGN NCHW accepted", build_roi_align, F32, roi_nchw_ok, NULL},
    {"ROI_ALIGN quant8 output scale accepted", build_roi_align, Q8, roi_align_output_scale_ok, NULL},
    {"ROI_ALIGN float16 accepted", build_roi_align, F16, NULL, NULL},
    {"ROI_ALIGN: 9 inputs", build_roi_align, F32, drop_last_input, "takes 10 inputs and 1 outputs"},
    {"ROI_ALIGN: bool8 input", build_roi_align, F32, roi_input_bool8, "input type TENSOR_BOOL8 is not allowed"},
    {"ROI_ALIGN: float16 boxes", build_roi_align, F32, roi_boxes_f16, "the boxes must be TENSOR_FLOAT32"},
    {"ROI_ALIGN: quant8 with float boxes", build_roi_align, Q8, roi_boxes_f32, "the boxes must be TENSOR_QUANT16_ASYMM"},
    {"ROI_ALIGN: float batch indices", build_roi_align, F32, roi_batches_f32, "the batch indices must be TENSOR_INT32"},
    {"ROI_ALIGN: float height", build_roi_align, F32, roi_height_float, "the output height must be INT32"},
    {"ROI_ALIGN: float16 stride", build_roi_align, F32, roi_stride_f16, "the height stride must be FLOAT32"},
    {"ROI_ALIGN: float16 data, float32 strides", build_roi_align, F16, roi_strides_f32, "the height stride must be FLOAT16, not FLOAT32"},
    {"ROI_ALIGN: float height sampling ratio", build_roi_align, F32, roi_height_sampling_float, "the height sampling ratio must be INT32"},
    {"ROI_ALIGN: float sampling ratio", build_roi_align, F32, roi_sampling_float, "the width sampling ratio must be INT32"},
    {"ROI_ALIGN: int32 layout", build_roi_align, F32, roi_layout_int32, "the layout must be BOOL"},
    {"ROI_ALIGN: float16 output", build_roi_align, F32, roi_output_f16, "the output must be TENSOR_FLOAT32"},
    {"ROI_ALIGN: input rank 3", build_roi_align, F32, roi_input_rank_3, "input must have rank 4"},
    {"ROI_ALIGN: boxes rank 1", build_roi_align, F32, roi_boxes_rank_1, "the boxes must have rank 2"},
    {"ROI_ALIGN: batch indices rank 2", build_roi_align, F32, roi_batches_rank_2, "the batch indices must have rank 1"},
    {"ROI_ALIGN: output rank 3", build_roi_align, F32, roi_output_rank_3, "output must have rank 4"},
    {"ROI_ALIGN: boxes scale", build_roi_align, Q8, roi_boxes_scale, "must have scale 0.125 and zero point 0"},
    {"ROI_ALIGN: boxes zero point", build_roi_align, Q8, roi_boxes_zero_point, "must have scale 0.125 and zero point 0"},
    {"ROI_ALIGN: height 0", build_roi_align, F32, roi_height_0, "must be positive"},
    {"ROI_ALIGN: width -2", build_roi_align, F32, roi_width_negative, "must be positive"},
    {"ROI_ALIGN: stride 0", build_roi_align, F32, roi_stride_0, "must be positive"},
    {"ROI_ALIGN: sampling ratio -1", build_roi_align, F32, roi_sampling_negative, "not negative"},
    {"ROI_ALIGN: boxes of 5", build_roi_align, F32, roi_boxes_5_wide, "the boxes must be [regions, 4]"},
    {"ROI_ALIGN: 3 batch indices for 2 boxes", build_roi_align, F32, roi_batches_count, "the batch indices [regions]"},
    {"ROI_ALIGN: output dims", build_roi_align, F32, roi_output_dims, "output dimension 0 is 3, expected 2"},
    {"ROI_POOLING accepted", build_roi_pooling, F32, NULL, NULL},
    {"ROI_POOLING quant8 accepted", build_roi_pooling, Q8, NULL, NULL},
    {"ROI_POOLING NCHW accepted", build_roi_pooling, F32, roi_nchw_ok, NULL},
    {"ROI_POOLING: 7 inputs", build_roi_pooling, F32, drop_last_input, "takes 8 inputs and 1 outputs"},
    {"ROI_POOLING: bool8 input", build_roi_pooling, F32, roi_input_bool8, "input type TENSOR_BOOL8 is not allowed"},
    {"ROI_POOLING: float16 boxes", build_roi_pooling, F32, roi_boxes_f16, "the boxes must be TENSOR_FLOAT32"},
    {"ROI_POOLING: quant8 with float boxes", build_roi_pooling, Q8, roi_boxes_f32, "the boxes must be TENSOR_QUANT16_ASYMM"},
    {"ROI_POOLING: float batch indices", build_roi_pooling, F32, roi_batches_f32, "the batch indices must be TENSOR_INT32"},
    {"ROI_POOLING: float height", build_roi_pooling, F32, roi_height_float, "the output height must be INT32"},
    {"ROI_POOLING: float16 stride", build_roi_pooling, F32, roi_stride_f16, "the height stride must be FLOAT32"},
    {"ROI_POOLING: int32 layout", build_roi_pooling, F32, roi_layout_int32, "the layout must be BOOL"},
    {"ROI_POOLING: float16 output", build_roi_pooling, F32, roi_output_f16, "the output must be TENSOR_FLOAT32"},
    {"ROI_POOLING: input rank 3", build_roi_pooling, F32, roi_input_rank_3, "input must have rank 4"},
    {"ROI_POOLING: boxes rank 1", build_roi_pooling, F32, roi_boxes_rank_1, "the boxes must have rank 2"},
    {"ROI_POOLING: batch indices rank 2", build_roi_pooling, F32, roi_batches_rank_2, "the batch indices must have rank 1"},
    {"ROI_POOLING: output rank 3", build_roi_pooling, F32, roi_output_rank_3, "output must have rank 4"},
    {"ROI_POOLING: boxes scale", build_roi_pooling, Q8, roi_boxes_scale, "must have scale 0.125 and zero point 0"},
    {"ROI_POOLING: boxes zero point", build_roi_pooling, Q8, roi_boxes_zero_point, "quant16 boxes must have scale 0.125 and zero point 0, not 0.125 and 1"},
    {"ROI_POOLING: height 0", build_roi_pooling, F32, roi_height_0, "must be positive"},
    {"ROI_POOLING: stride 0", build_roi_pooling, F32, roi_stride_0, "must be positive"},
    {"ROI_POOLING: boxes of 5", build_roi_pooling, F32, roi_boxes_5_wide, "the boxes must be [regions, 4]"},
    {"ROI_POOLING: 3 batch indices for 2 boxes", build_roi_pooling, F32, roi_batches_count, "the batch indices [regions]"},
    {"ROI_POOLING: output dims", build_roi_pooling, F32, roi_output_dims, "output dimension 0 is 3, expected 2"},
    QUANT_SAME(build_roi_pooling, "ROI_POOLING"),
    /* HEATMAP_MAX_KEYPOINT */
    {"HEATMAP_MAX_KEYPOINT accepted", build_heatmap, F32, NULL, NULL},
    {"HEATMAP_MAX_KEYPOINT quant8 accepted", build_heatmap, Q8, NULL, NULL},
    {"HEATMAP_MAX_KEYPOINT NCHW accepted", build_heatmap, F32, heatmap_nchw_ok, NULL},
    {"HEATMAP_MAX_KEYPOINT quant8 score scale accepted", build_heatmap, Q8, heatmap_score_scale_ok, NULL},
    {"HEATMAP_MAX_KEYPOINT: 2 inputs", build_heatmap, F32, drop_last_input, "takes 3 inputs and 2 outputs"},
    {"HEATMAP_MAX_KEYPOINT: bool8 heatmaps", build_heatmap, F32, roi_input_bool8, "input type TENSOR_BOOL8 is not allowed"},
    {"HEATMAP_MAX_KEYPOINT: float16 boxes", build_heatmap, F32, roi_boxes_f16, "the boxes must be TENSOR_FLOAT32"},
    {"HEATMAP_MAX_KEYPOINT: quant8 with float boxes", build_heatmap, Q8, roi_boxes_f32, "the boxes must be TENSOR_QUANT16_ASYMM"},
    {"HEATMAP_MAX_KEYPOINT: int32 layout", build_heatmap, F32, heatmap_layout_int32, "the layout must be BOOL"},
    {"HEATMAP_MAX_KEYPOINT: float16 scores", build_heatmap, F32, roi_output_f16, "the scores (output 0) must be TENSOR_FLOAT32"},
    {"HEATMAP_MAX_KEYPOINT: float16 keypoints", build_heatmap, F32, heatmap_points_f16, "the keypoints (output 1) must be TENSOR_FLOAT32"},
    {"HEATMAP_MAX_KEYPOINT: heatmaps rank 3", build_heatmap, F32, roi_input_rank_3, "the heatmaps must have rank 4"},
    {"HEATMAP_MAX_KEYPOINT: boxes rank 1", build_heatmap, F32, roi_boxes_rank_1, "the boxes must have rank 2"},
    {"HEATMAP_MAX_KEYPOINT: scores rank 3", build_heatmap, F32, heatmap_scores_rank_3, "the scores must have rank 2"},
    {"HEATMAP_MAX_KEYPOINT: keypoints rank 2", build_heatmap, F32, heatmap_points_rank_2, "the keypoints must have rank 3"},
    {"HEATMAP_MAX_KEYPOINT: boxes scale", build_heatmap, Q8, roi_boxes_scale, "quant16 boxes must have scale 0.125"},
    {"HEATMAP_MAX_KEYPOINT: boxes zero point", build_heatmap, Q8, roi_boxes_zero_point, "quant16 boxes must have scale 0.125 and zero point 0, not 0.125 and 1"},
    {"HEATMAP_MAX_KEYPOINT: keypoints scale", build_heatmap, Q8, heatmap_points_scale, "quant16 keypoints must have scale 0.125"},
    {"HEATMAP_MAX_KEYPOINT: 3x4 heatmaps", build_heatmap, F32, heatmap_not_square, "must be square, at least 2x2"},
    {"HEATMAP_MAX_KEYPOINT: 1x1 heatmaps", build_heatmap, F32, heatmap_size_1, "must be square, at least 2x2"},
    {"HEATMAP_MAX_KEYPOINT: 3 boxes for 2 heatmaps", build_heatmap, F32, heatmap_boxes_count, "one box [4] each"},
    {"HEATMAP_MAX_KEYPOINT: boxes of 5", build_heatmap, F32, roi_boxes_5_wide, "one box [4] each"},
    {"HEATMAP_MAX_KEYPOINT: scores dims", build_heatmap, F32, heatmap_scores_dims, "output dimension 1 is 3, expected 4"},
    {"HEATMAP_MAX_KEYPOINT: keypoints dims", build_heatmap, F32, heatmap_points_dims, "output dimension 2 is 3, expected 2"},
    /* AXIS_ALIGNED_BBOX_TRANSFORM */
    {"AXIS_ALIGNED_BBOX_TRANSFORM accepted", build_bbox, F32, NULL, NULL},
    {"AXIS_ALIGNED_BBOX_TRANSFORM quant accepted", build_bbox, Q8, NULL, NULL},
    {"AXIS_ALIGNED_BBOX_TRANSFORM quant8 signed deltas accepted", build_bbox, Q8, bbox_deltas_q8s_ok, NULL},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: 3 inputs", build_bbox, F32, drop_last_input, "takes 4 inputs and 1 outputs"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: int32 boxes", build_bbox, F32, bbox_boxes_int32, "box type TENSOR_INT32 is not allowed"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: float16 deltas", build_bbox, F32, bbox_deltas_f16, "do not go with TENSOR_FLOAT32 boxes"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: quant16 deltas", build_bbox, Q8, bbox_deltas_q16, "do not go with TENSOR_QUANT16_ASYMM boxes"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: float batch indices", build_bbox, F32, bbox_batches_f32, "the batch indices must be TENSOR_INT32"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: float16 image sizes", build_bbox, F32, bbox_images_f16, "the image sizes must be TENSOR_FLOAT32"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: float16 output", build_bbox, F32, bbox_output_f16, "the output must be TENSOR_FLOAT32"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: boxes rank 1", build_bbox, F32, bbox_boxes_rank_1, "the boxes must have rank 2"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: deltas rank 1", build_bbox, F32, roi_boxes_rank_1, "the deltas must have rank 2"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: batch indices rank 2", build_bbox, F32, roi_batches_rank_2, "the batch indices must have rank 1"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: image sizes rank 1", build_bbox, F32, bbox_images_rank_1, "the image sizes must have rank 2"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: output rank 3", build_bbox, F32, roi_output_rank_3, "the output must have rank 2"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: boxes scale", build_bbox, Q8, bbox_boxes_scale, "quant16 boxes must have scale 0.125"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: boxes zero point", build_bbox, Q8, bbox_boxes_zero_point, "quant16 boxes must have scale 0.125 and zero point 0, not 0.125 and 1"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: image sizes scale", build_bbox, Q8, bbox_images_scale, "quant16 image sizes must have scale 0.125 and zero point 0, not 0.25 and 0"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: image sizes zero point", build_bbox, Q8, bbox_images_zero_point, "quant16 image sizes must have scale 0.125"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: output scale", build_bbox, Q8, bbox_output_scale, "quant16 output must have scale 0.125"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: output zero point", build_bbox, Q8, output_zero_point_differs, "quant16 output must have scale 0.125 and zero point 0, not 0.125 and 3"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: boxes of 5", build_bbox, F32, bbox_boxes_5_wide, "shapes must be boxes [n, 4]"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: deltas of 3 boxes for 2", build_bbox, F32, bbox_deltas_3_boxes, "shapes must be boxes [n, 4]"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: deltas of 10", build_bbox, F32, bbox_deltas_10_wide, "deltas [n, 4 * classes]"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: 3 batch indices for 2 boxes", build_bbox, F32, bbox_batches_count, "batch indices [n]"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: image sizes of 3", build_bbox, F32, bbox_images_3_wide, "image sizes [batches, 2]"},
    {"AXIS_ALIGNED_BBOX_TRANSFORM: output dims", build_bbox, F32, bbox_output_dims, "output dimension 1 is 8, expected 12"},
    /* EMBEDDING_LOOKUP, HASHTABLE_LOOKUP */
    {"EMBEDDING_LOOKUP accepted", build_embedding_lookup, F32, NULL, NULL},
    {"EMBEDDING_LOOKUP quant8 accepted", build_embedding_lookup, Q8, NULL, NULL},
    {"EMBEDDING_LOOKUP int32 accepted", build_embedding_lookup, I32, NULL, NULL},
    {"EMBEDDING_LOOKUP float16 accepted", build_embedding_lookup, F32, values_float16, NULL},
    {"EMBEDDING_LOOKUP: 3 inputs", build_embedding_lookup, F32, append_input, "takes 2 inputs and 1 outputs"},
    {"EMBEDDING_LOOKUP: float lookups", build_embedding_lookup, F32, lookups_float, "lookups must be TENSOR_INT32"},
    {"EMBEDDING_LOOKUP: lookups of rank 2", build_embedding_lookup, F32, lookups_rank_2, "lookups must have rank 1"},
    {"EMBEDDING_LOOKUP: bool8 values", build_embedding_lookup, F32, values_bool8, "values of type TENSOR_BOOL8 are not allowed"},
    {"EMBEDDING_LOOKUP: values of rank 1", build_embedding_lookup, F32, values_rank_1, "values must have rank 2 or more"},
    {"EMBEDDING_LOOKUP: int32 output", build_embedding_lookup, F32, lookup_output_int32, "the output must be TENSOR_FLOAT32"},
    {"EMBEDDING_LOOKUP: output scale", build_embedding_lookup, Q8, embedding_values_output_scale, "must keep the values' scale"},
    {"EMBEDDING_LOOKUP: output zero point", build_embedding_lookup, Q8, embedding_values_output_zero_point, "must keep the values' scale"},
    {"EMBEDDING_LOOKUP: index past the rows", build_embedding_lookup, F32, lookup_index_past_end, "EMBEDDING_LOOKUP: index 3 (element 1) out of [0, 3)"},
    {"EMBEDDING_LOOKUP: negative index", build_embedding_lookup, F32, lookup_index_negative, "EMBEDDING_LOOKUP: index -1 (element 0) out of [0, 3)"},
    {"EMBEDDING_LOOKUP: output dims", build_embedding_lookup, F32, lookup_output_dims, "output dimension 0 is 3, expected 2"},
    {"HASHTABLE_LOOKUP accepted", build_hashtable_lookup, F32, NULL, NULL},
    {"HASHTABLE_LOOKUP quant8 accepted", build_hashtable_lookup, Q8, NULL, NULL},
    {"HASHTABLE_LOOKUP int32 accepted", build_hashtable_lookup, I32, NULL, NULL},
    {"HASHTABLE_LOOKUP: 1 output", build_hashtable_lookup_one_output, F32, NULL, "takes 3 inputs and 2 outputs"},
    {"HASHTABLE_LOOKUP: float16 values", build_hashtable_lookup, F32, values_float16, "values of type TENSOR_FLOAT16 are not allowed"},
    {"HASHTABLE_LOOKUP: values of rank 1", build_hashtable_lookup, F32, values_rank_1, "values must have rank 2 or more"},
    {"HASHTABLE_LOOKUP: float lookups", build_hashtable_lookup, F32, lookups_float, "lookups must be TENSOR_INT32"},
    {"HASHTABLE_LOOKUP: lookups of rank 2", build_hashtable_lookup, F32, lookups_rank_2, "lookups must have rank 1"},
    {"HASHTABLE_LOOKUP: float keys", build_hashtable_lookup, F32, keys_float, "keys must be TENSOR_INT32"},
    {"HASHTABLE_LOOKUP: keys of rank 2", build_hashtable_lookup, F32, keys_rank_2, "keys must have rank 1"},
    {"HASHTABLE_LOOKUP: keys not ascending", build_hashtable_lookup, F32, keys_descending, "keys are not ascending (4 after 5)"},
    {"HASHTABLE_LOOKUP: 2 keys for 3 rows", build_hashtable_lookup, F32, keys_two_for_three_rows, "the values' first dimension the key count"},
    {"HASHTABLE_LOOKUP: int32 output", build_hashtable_lookup, F32, lookup_output_int32, "the output must be TENSOR_FLOAT32"},
    {"HASHTABLE_LOOKUP: output scale", build_hashtable_lookup, Q8, embedding_values_output_scale, "must keep the values' scale"},
    {"HASHTABLE_LOOKUP: output zero point", build_hashtable_lookup, Q8, embedding_values_output_zero_point, "keep the values' scale 0.5 and zero point 0, not 0.5, 3"},
    {"HASHTABLE_LOOKUP: output dims", build_hashtable_lookup, F32, lookup_output_dims, "output dimension 0 is 3, expected 2"},
    {"HASHTABLE_LOOKUP: float hits", build_hashtable_lookup, F32, hits_float, "hits must be TENSOR_QUANT8_ASYMM"},
    {"HASHTABLE_LOOKUP: hits scale 0.5", build_hashtable_lookup, F32, hits_scale_half, "hits must have scale 1 and zero point 0"},
    {"HASHTABLE_LOOKUP: hits zero point 1", build_hashtable_lookup, F32, hits_zero_point_1, "hits must have scale 1 and zero point 0"},
    {"HASHTABLE_LOOKUP: hits of rank 2", build_hashtable_lookup, F32, hits_rank_2, "hits must have rank 1"},
    /* LSH_PROJECTION */
    {"LSH_PROJECTION dense accepted", build_lsh_projection, I32, NULL, NULL},
    {"LSH_PROJECTION sparse accepted", build_lsh_projection_sparse, I32, NULL, NULL},
    {"LSH_PROJECTION quant8 input accepted", build_lsh_projection, Q8, NULL, NULL},
    {"LSH_PROJECTION float16 input accepted", build_lsh_projection, F32, lsh_input_float16, NULL},
    {"LSH_PROJECTION float16 hash accepted", build_lsh_projection, F32, lsh_float16, NULL},
    {"LSH_PROJECTION: 3 inputs", build_lsh_projection, F32, drop_last_input, "takes 4 inputs and 1 outputs"},
    {"LSH_PROJECTION: int32 hash functions", build_lsh_projection, F32, lsh_hash_int32, "hash functions of type TENSOR_INT32 are not allowed"},
    {"LSH_PROJECTION: hash functions of rank 1", build_lsh_projection, F32, lsh_hash_rank_1, "the hash functions must have rank 2"},
    {"LSH_PROJECTION: bool8 input", build_lsh_projection, F32, lsh_input_bool8, "an input of type TENSOR_BOOL8 is not allowed"},
    {"LSH_PROJECTION: float16 weights", build_lsh_projection, F32, lsh_weights_float16, "the weights must be TENSOR_FLOAT32"},
    {"LSH_PROJECTION: weights of rank 2", build_lsh_projection, F32, lsh_weights_rank_2, "the weights must have rank 1"},
    {"LSH_PROJECTION: float type", build_lsh_projection, F32, lsh_type_float, "the type must be INT32"},
    {"LSH_PROJECTION: float output", build_lsh_projection, F32, lsh_output_float, "the output must be TENSOR_INT32"},
    {"LSH_PROJECTION: output of rank 2", build_lsh_projection, F32, lsh_output_rank_2, "the output must have rank 1"},
    {"LSH_PROJECTION: type 4", build_lsh_projection, F32, lsh_type_4, "type 4 is not 1 (sparse, deprecated), 2 (dense) or 3 (sparse)"},
    {"LSH_PROJECTION: 33 bits", build_lsh_projection, F32, lsh_33_bits, "33 bits per hash function, at most 32"},
    {"LSH_PROJECTION: sparse signatures over 32 bits", build_lsh_projection_sparse, F32, lsh_sparse_too_wide, "sparse signatures of 30 bits for 8 hash functions exceed 32 bits"},
    {"LSH_PROJECTION: dense without weights", build_lsh_projection, F32, lsh_dense_without_weights, "the weights must be given with type 2"},
    {"LSH_PROJECTION: sparse with weights", build_lsh_projection_sparse, F32, lsh_sparse_with_weights, "the weights must be omitted with type 3"},
    {"LSH_PROJECTION: 2 weights for 3 rows", build_lsh_projection, F32, lsh_two_weights, "2 weights for 3 input rows"},
    {"LSH_PROJECTION: output dims", build_lsh_projection, F32, lsh_output_dims, "output dimension 0 is 7, expected 8"},
    /* IF, WHILE */
    {"IF accepted", build_if, F32, NULL, NULL},
    {"IF: int32 condition", build_if, F32, if_condition_int32, "is not a TENSOR_BOOL8 of shape [1]"},
    {"IF: condition of 2 elements", build_if, F32, if_condition_two_elements, "is not a TENSOR_BOOL8 of shape [1]"},
    {"IF: omitted condition", build_if, F32, if_condition_omitted, "input 0 (operand 0) has no value"},
    {"IF: branch not a SUBGRAPH", build_if, F32, if_branch_not_subgraph, "is not a SUBGRAPH"},
    {"IF: branch input type", build_if, F32, if_branch_input_int32, "then branch: input 0 does not agree"},
    {"IF: branch input channel scales", build_if, F32, if_branch_input_channel_scales, "then branch: input 0 does not agree"},
    {"IF: branch output shape", build_if, F32, if_branch_output_shape, "else branch: output 0 does not agree"},
    {"IF: branch input count", build_if, F32, if_branch_two_inputs, "then branch: 2 inputs and 1 outputs"},
    {"IF: 2 inputs", build_if, F32, if_two_inputs, "at least 3 and 1"},
    {"IF: a branch referencing itself", build_if_self, F32, NULL, "cycle"},
    {"WHILE accepted", build_while, F32, NULL, NULL},
    {"WHILE: float condition", build_while, F32, while_cond_output_float, "its output is not a TENSOR_BOOL8"},
    {"WHILE: condition input count", build_while, F32, while_cond_three_inputs, "WHILE condition: 3 inputs"},
    {"WHILE: body output type", build_while, F32, while_body_output_int32, "output 0 does not agree with the outer operand"},
    {"WHILE: body output shape", build_while, F32, while_body_output_shape, "output 0 does not agree with input 0"},
    {"WHILE: body input shape", build_while, F32, while_body_input_shape, "WHILE body: input 0 does not agree"},
    {"WHILE: output shape", build_while, F32, while_output_shape, "WHILE body: output 0 does not agree"},
    {"WHILE: body outputs above inputs", build_while, F32, while_body_too_many_outputs, "WHILE body: 2 inputs and 3 outputs"},
    {"WHILE: 2 inputs", build_while, F32, while_two_inputs, "WHILE: 2 inputs and 1 outputs (at least 3 and 1)"},
    {"WHILE: condition of 2 outputs", build_while, F32, while_cond_two_outputs, "WHILE condition: 2 inputs and 2 outputs"},
    {"WHILE: condition not a SUBGRAPH", build_while, F32, while_cond_not_subgraph, "WHILE condition: operand 0 is not a SUBGRAPH"},
    {"WHILE: body not a SUBGRAPH", build_while, F32, while_body_not_subgraph, "WHILE body: operand 0 is not a SUBGRAPH"},
    {"WHILE: condition of 2 elements", build_while, F32, while_cond_output_two_elements, "WHILE condition: its output is not a TENSOR_BOOL8 of shape [1]"},
    {"WHILE: body outputs below the WHILE's", build_while, F32, while_two_outputs, "WHILE body: 2 inputs and 1 outputs, the WHILE passes 2 and returns 2"},
};

/* ---- running -------------------------------------------------------------- */

static void collect_log(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)tag;
  log_lines *log = user_data;
  if (level != VKNN_LOG_ERROR) return;
  int n = snprintf(log->text + log->used, sizeof(log->text) - log->used, "%s\n", message);
  if (n > 0) log->used += (size_t)n < sizeof(log->text) - log->used ? (size_t)n : 0;
}

/* One device for every row (opened by the group setup). */
static fixture *device_fixture;

/* c's model prepared on f's device, which must take it. */
static vknn_prepared_model *prepare_valid(fixture *f, ctx *c) {
  vknn_prepared_model *pm = NULL;
  assert_int_equal(vknn_device_prepare_model(f->device, mb_finish(&c->b), VKNN_PREFER_SUSTAINED_SPEED,
                                             VKNN_PRIORITY_MEDIUM, NULL, &pm),
                   VKNN_STATUS_NONE);
  return pm;
}

static int setup(void **state) {
  (void)state;
  fixture *f = calloc(1, sizeof(*f));
  vknn_device_options options = {.enable_validation = true, .log_callback = collect_log};
  if (f == NULL) return -1;
  options.log_user_data = &f->log;
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  device_fixture = f;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fixture *f = device_fixture;
  uint64_t messages = vknn_device_get_validation_message_count(f->device);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}

static void clear_log(log_lines *log) {
  log->used = 0;
  log->text[0] = '\0';
}

static void expect_logged(const log_lines *log, const char *what, const row *r) {
  if (strstr(log->text, r->expected_log) == NULL)
    fail_msg("%s: %s logged \"%s\", not \"%s\"", r->name, what, log->text, r->expected_log);
}

static void test_row(void **state) {
  const row *r = *state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  r->build(c, r->type);
  if (r->mutate) r->mutate(c);
  const vknn_model *model = c->sub_count > 0
                                ? mb_finish_referencing(&c->b, c->sub, c->sub_count, c->referenced)
                                : mb_finish(&c->b);
  vknn_status want = r->expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE;
  bool supported[MB_MAX_OPERATIONS] = {false};
  clear_log(&f->log);
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported,
                                                       model->main.operation_count);
  if (s != want) fail_msg("%s: support query gave %s (log: %s)", r->name, vknn_status_name(s), f->log.text);
  if (want == VKNN_STATUS_NONE && !supported[0]) fail_msg("%s: not supported (log: %s)", r->name, f->log.text);
  if (want != VKNN_STATUS_NONE) expect_logged(&f->log, "the support query", r);
  clear_log(&f->log);
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED, VKNN_PRIORITY_MEDIUM,
                                NULL, &pm);
  if (pm != NULL) vknn_prepared_model_release(pm);
  free(c);
  if (s != want) fail_msg("%s: prepare gave %s (log: %s)", r->name, vknn_status_name(s), f->log.text);
  if (want != VKNN_STATUS_NONE) expect_logged(&f->log, "prepare", r);
}

/* The depthwise filter's first dimension, left unknown by the model, is
 * checked when an execution gives it: 1 runs, 2 is INVALID_ARGUMENT with the
 * rule's log line, and the prepared model runs again after. */
static void test_depthwise_filter_dim0_at_execution(void **state) {
  (void)state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build_depthwise(c, F32);
  depthwise_filter_dim0_unknown(c);
  vknn_prepared_model *pm = prepare_valid(f, c);
  static const float data[18] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  static const float filter[4] = {1, 2, 3, 4};
  float out[18];
  const uint32_t one[4] = {1, 1, 1, 2}, two[4] = {2, 1, 1, 2};
  const uint32_t *dims[3] = {one, two, one};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT, VKNN_STATUS_NONE};
  for (int i = 0; i < 3; ++i) {
    const buffer_arg inputs[2] = {{data, NULL, sizeof(data)},
                                  {filter, NULL, dims[i][0] * 2 * sizeof(float), dims[i], 4}};
    buffer_arg outputs[1] = {{NULL, out, sizeof(out)}};
    clear_log(&f->log);
    vknn_status s = model_runner_execute(pm, &c->b, inputs, outputs, NULL);
    if (s != want[i])
      fail_msg("execution %d: %s (log: %s)", i, vknn_status_name(s), f->log.text);
    if (s != VKNN_STATUS_NONE && strstr(f->log.text, "filter dimension 0 must be 1, not 2") == NULL)
      fail_msg("execution %d logged \"%s\"", i, f->log.text);
  }
  /* Channel 1 of the first pixel: 2 x 2 + bias 1. */
  assert_true(out[1] == 5.f);
  vknn_prepared_model_release(pm);
  free(c);
}

/* TRANSPOSE_CONV_2D's bias, a model input of unknown rank, is checked when
 * an execution gives it: [2] runs, [1, 2] is INVALID_ARGUMENT with the
 * rule's log line, and [2] runs again to the same results. */
static void test_transpose_bias_at_execution(void **state) {
  (void)state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build_transpose_conv(c, F32);
  replace_input(c, 2, mb_input(&c->b, F32, NULL, 0));
  vknn_prepared_model *pm = prepare_valid(f, c);
  static const float data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, bias[2] = {0.5f, -1.f};
  float out[3][32];
  const uint32_t vector_dims[1] = {2}, matrix_dims[2] = {1, 2};
  const uint32_t *dims[3] = {vector_dims, matrix_dims, vector_dims};
  const uint32_t ranks[3] = {1, 2, 1};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT, VKNN_STATUS_NONE};
  for (int i = 0; i < 3; ++i) {
    const buffer_arg inputs[2] = {{data, NULL, sizeof(data)}, {bias, NULL, sizeof(bias), dims[i], ranks[i]}};
    buffer_arg outputs[1] = {{NULL, out[i], sizeof(out[i])}};
    clear_log(&f->log);
    vknn_status s = model_runner_execute(pm, &c->b, inputs, outputs, NULL);
    if (s != want[i]) fail_msg("execution %d: %s (log: %s)", i, vknn_status_name(s), f->log.text);
    if (s != VKNN_STATUS_NONE && strstr(f->log.text, "channels do not agree") == NULL)
      fail_msg("execution %d logged \"%s\"", i, f->log.text);
  }
  assert_memory_equal(out[0], out[2], sizeof(out[0]));
  vknn_prepared_model_release(pm);
  free(c);
}

/* CONV_2D's width stride, a model input: each execution compiles the
 * convolution with its value. A stride of 2 takes every other column of the
 * stride-1 result (a 1x1 window, SAME padding that pads nothing here); a
 * stride of 0 is INVALID_ARGUMENT with the rule's log line. */
static void test_conv_stride_at_execution(void **state) {
  (void)state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build_conv(c, F32);
  conv_stride_input(c);
  c->b.dims[c->out][2] = 0;
  vknn_prepared_model *pm = prepare_valid(f, c);
  float data[18];
  for (int i = 0; i < 18; ++i) data[i] = (float)(i % 7) - 2.f;
  const int32_t strides[3] = {1, 2, 0};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT};
  float out[3][18] = {{0}};
  for (int i = 0; i < 3; ++i) {
    const buffer_arg inputs[2] = {{data, NULL, sizeof(data)}, {&strides[i], NULL, sizeof(int32_t)}};
    buffer_arg outputs[1] = {{NULL, out[i], sizeof(out[i])}};
    clear_log(&f->log);
    vknn_status s = model_runner_execute(pm, &c->b, inputs, outputs, NULL);
    if (s != want[i]) fail_msg("stride %d: %s (log: %s)", strides[i], vknn_status_name(s), f->log.text);
    if (s != VKNN_STATUS_NONE && strstr(f->log.text, "CONV_2D: invalid stride") == NULL)
      fail_msg("stride %d logged \"%s\"", strides[i], f->log.text);
  }
  /* [1, 3, 3, 2] at stride 1, [1, 3, 2, 2] at stride 2: row y, column x. */
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 2; ++x)
      for (int ch = 0; ch < 2; ++ch)
        assert_float_equal(out[1][(y * 2 + x) * 2 + ch], out[0][(y * 3 + 2 * x) * 2 + ch], 0.f);
  /* Filter [[1, 2], [3, 4]] and bias [0, 1] on pixel 0's (-2, -1). */
  assert_float_equal(out[0][0], -4.f, 0.f);
  assert_float_equal(out[0][1], -9.f, 0.f);
  vknn_prepared_model_release(pm);
  free(c);
}

/* A fused activation (operation input act_input) as a model input, the
 * model's last: it prepares, compiled per execution with the value; NONE
 * gives want_none, RELU clamps it, 999 is INVALID_ARGUMENT. data: the
 * values of the other model inputs, float32. NNAPI allows it (its own
 * validation tests build their model with ADD's activation so). */
static void check_activation_at_execution(void (*build)(ctx *, int32_t), uint32_t act_input, const char *name,
                                          const buffer_arg *data, uint32_t data_count, const float *want_none,
                                          uint32_t out_count) {
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build(c, F32);
  replace_input(c, act_input, mb_input(&c->b, VKNN_OPERAND_INT32, NULL, 0));
  vknn_prepared_model *pm = prepare_valid(f, c);
  const int32_t activations[3] = {VKNN_FUSED_NONE, VKNN_FUSED_RELU, 999};
  const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT};
  float out[3][8] = {{0}};
  assert_true(out_count <= 8 && data_count < 4);
  char expected_log[96];
  snprintf(expected_log, sizeof(expected_log), "%s: invalid fused activation 999", name);
  for (int i = 0; i < 3; ++i) {
    buffer_arg inputs[4];
    memcpy(inputs, data, data_count * sizeof(buffer_arg));
    inputs[data_count] = (buffer_arg){&activations[i], NULL, sizeof(int32_t)};
    buffer_arg outputs[1] = {{NULL, out[i], out_count * sizeof(float)}};
    clear_log(&f->log);
    vknn_status s = model_runner_execute(pm, &c->b, inputs, outputs, NULL);
    if (s != want[i]) fail_msg("%s, activation %d: %s (log: %s)", name, activations[i], vknn_status_name(s), f->log.text);
    if (s != VKNN_STATUS_NONE && strstr(f->log.text, expected_log) == NULL)
      fail_msg("%s, activation %d logged \"%s\"", name, activations[i], f->log.text);
  }
  for (uint32_t k = 0; k < out_count; ++k) {
    assert_float_equal(out[0][k], want_none[k], 0.f);
    assert_float_equal(out[1][k], want_none[k] > 0.f ? want_none[k] : 0.f, 0.f);
  }
  vknn_prepared_model_release(pm);
  free(c);
}

static void test_activation_at_execution(void **state) {
  (void)state;
  const float a[6] = {-3.f, -2.f, -1.f, 0.f, 1.f, 2.f}, b[6] = {1.f, 1.f, 1.f, 1.f, 1.f, 1.f};
  const float sum[6] = {-2.f, -1.f, 0.f, 1.f, 2.f, 3.f};
  const buffer_arg add_data[2] = {{a, NULL, sizeof(a)}, {b, NULL, sizeof(b)}};
  check_activation_at_execution(build_add, 2, "ADD", add_data, 2, sum, 6);
  /* [2, 2] by weights [[1, 2], [3, 4], [5, 6]], bias 0. */
  const float x[4] = {-1.f, 0.f, 1.f, 1.f}, fc[6] = {-1.f, -3.f, -5.f, 3.f, 7.f, 11.f};
  const buffer_arg fc_data[1] = {{x, NULL, sizeof(x)}};
  check_activation_at_execution(build_fully_connected, 3, "FULLY_CONNECTED", fc_data, 1, fc, 6);
}

/* SOFTMAX's beta and LOG_SOFTMAX's axis as model inputs (the model's
 * last): the model prepares, compiled per execution with the value; a
 * valid value gives the result of the constant, an invalid one
 * INVALID_ARGUMENT naming it. [2, 3] rows 0 1 2 and 2 2 2. */
static void check_param_at_execution(void (*build)(ctx *, int32_t), uint32_t param, int32_t type,
                                     const void *valid, const void *invalid, const char *log,
                                     const float *want) {
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build(c, F32);
  replace_input(c, param, mb_input(&c->b, type, NULL, 0));
  vknn_prepared_model *pm = prepare_valid(f, c);
  const float x[6] = {0.f, 1.f, 2.f, 2.f, 2.f, 2.f};
  float out[6];
  buffer_arg inputs[2] = {{x, NULL, sizeof(x)}, {valid, NULL, 4}};
  buffer_arg outputs[1] = {{NULL, out, sizeof(out)}};
  assert_int_equal(model_runner_execute(pm, &c->b, inputs, outputs, NULL), VKNN_STATUS_NONE);
  for (int k = 0; k < 6; ++k) assert_float_equal(out[k], want[k], 1e-5f);
  inputs[1].data = invalid;
  clear_log(&f->log);
  assert_int_equal(model_runner_execute(pm, &c->b, inputs, outputs, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(f->log.text, log) == NULL) fail_msg("logged \"%s\", not \"%s\"", f->log.text, log);
  vknn_prepared_model_release(pm);
  free(c);
}

static void test_params_at_execution(void **state) {
  (void)state;
  const float beta = 1.f, zero = 0.f;
  const float e0 = 1.f / (1.f + expf(1.f) + expf(2.f));
  const float softmax[6] = {e0, e0 * expf(1.f), e0 * expf(2.f), 1.f / 3, 1.f / 3, 1.f / 3};
  check_param_at_execution(build_softmax, 1, VKNN_OPERAND_FLOAT32, &beta, &zero, "beta 0 is not positive",
                           softmax);
  const int32_t last = 1, past = 2;
  float log_softmax[6];
  for (int k = 0; k < 6; ++k) log_softmax[k] = logf(softmax[k]);
  check_param_at_execution(build_log_softmax, 2, VKNN_OPERAND_INT32, &last, &past, "axis", log_softmax);
}

/* ---- parameters of a rank given only by an execution -----------------------
 * RESHAPE's shape, SQUEEZE's axes, FILL's shape and REDUCE_SUM's axes as model
 * inputs declared without a rank (the outputs of the first three left unknown,
 * so that their shapes come from the parameter): the model prepares, and each
 * execution must give the parameter rank 1. */

static void build_reshape_runtime_shape(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, NULL, 0);
  const uint32_t in[2] = {c->in, mb_input(&c->b, I32, NULL, 0)};
  one_output(c, OP(RESHAPE), in, 2);
}

static void build_squeeze_runtime_axes(ctx *c, int32_t type) {
  const uint32_t dims[2] = {1, 3};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, NULL, 0);
  const uint32_t in[2] = {c->in, mb_input(&c->b, I32, NULL, 0)};
  one_output(c, OP(SQUEEZE), in, 2);
}

/* Every element 2. */
static void build_fill_unranked_shape(ctx *c, int32_t type) {
  (void)type;
  c->out = data_output(c, F32, NULL, 0);
  const uint32_t in[2] = {mb_input(&c->b, I32, NULL, 0), scalar_f32(c, 2.f)};
  one_output(c, OP(FILL), in, 2);
}

static void build_reduce_sum_unranked_axes(ctx *c, int32_t type) {
  const uint32_t dims[2] = {2, 3}, out_dims[1] = {2};
  c->in = data_input(c, type, dims, 2);
  c->out = data_output(c, type, out_dims, 1);
  const uint32_t in[3] = {c->in, mb_input(&c->b, I32, NULL, 0), const_bool(c, false)};
  one_output(c, OP(REDUCE_SUM), in, 3);
}

typedef struct parameter_case {
  const char *name;
  void (*build)(ctx *c, int32_t type);
  uint32_t data_count; /* elements of the data input (0: none, the parameter is input 0) */
  int32_t values[2];   /* the parameter */
  uint32_t value_count;
  uint32_t result_count;   /* output elements */
  uint32_t checked;        /* an output element and its value */
  float expected;
  const char *expected_log; /* the rank-2 execution's */
} parameter_case;

static const parameter_case parameter_cases[] = {
    {"RESHAPE", build_reshape_runtime_shape, 6, {3, 2}, 2, 6, 5, 6.f, "RESHAPE: input 1 has rank 2, not 1"},
    {"SQUEEZE", build_squeeze_runtime_axes, 3, {0}, 1, 3, 2, 3.f, "SQUEEZE: input 1 has rank 2, not 1"},
    {"FILL", build_fill_unranked_shape, 0, {2, 3}, 2, 6, 5, 2.f, "FILL: input 0 has rank 2, not 1"},
    /* {1, 2, 3}, {4, 5, 6} summed along axis 1: {6, 15}. */
    {"REDUCE_SUM", build_reduce_sum_unranked_axes, 6, {1}, 1, 2, 1, 15.f, "REDUCE_SUM: input 1 has rank 2, not 1"},
};

/* Each case: the parameter of rank 1 runs, the same values as [1, n] are
 * INVALID_ARGUMENT with the rule's log line, and rank 1 runs again. */
static void test_parameter_ranks_at_execution(void **state) {
  (void)state;
  fixture *f = device_fixture;
  static const float data[6] = {1, 2, 3, 4, 5, 6};
  for (size_t k = 0; k < sizeof(parameter_cases) / sizeof(parameter_cases[0]); ++k) {
    const parameter_case *p = &parameter_cases[k];
    ctx *c = new_ctx();
    p->build(c, F32);
    const vknn_model *model = mb_finish(&c->b);
    vknn_prepared_model *pm = NULL;
    clear_log(&f->log);
    vknn_status s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED, VKNN_PRIORITY_MEDIUM,
                                              NULL, &pm);
    if (s != VKNN_STATUS_NONE) fail_msg("%s: prepare gave %s (log: %s)", p->name, vknn_status_name(s), f->log.text);
    const uint32_t vector_dims[1] = {p->value_count}, matrix_dims[2] = {1, p->value_count};
    const uint32_t *dims[3] = {vector_dims, matrix_dims, vector_dims};
    const uint32_t ranks[3] = {1, 2, 1};
    const vknn_status want[3] = {VKNN_STATUS_NONE, VKNN_STATUS_INVALID_ARGUMENT, VKNN_STATUS_NONE};
    for (int i = 0; i < 3; ++i) {
      const buffer_arg parameter = {p->values, NULL, p->value_count * sizeof(int32_t), dims[i], ranks[i]};
      const buffer_arg inputs[2] = {{data, NULL, p->data_count * sizeof(float)}, parameter};
      float out[6] = {0};
      buffer_arg outputs[1] = {{NULL, out, p->result_count * sizeof(float)}};
      clear_log(&f->log);
      s = model_runner_execute(pm, &c->b, p->data_count > 0 ? inputs : &parameter, outputs, NULL);
      if (s != want[i])
        fail_msg("%s: execution %d: %s (log: %s)", p->name, i, vknn_status_name(s), f->log.text);
      if (s != VKNN_STATUS_NONE && strstr(f->log.text, p->expected_log) == NULL)
        fail_msg("%s: execution %d logged \"%s\"", p->name, i, f->log.text);
      if (s == VKNN_STATUS_NONE && out[p->checked] != p->expected)
        fail_msg("%s: execution %d: output %u is %g, not %g", p->name, i, p->checked, out[p->checked], p->expected);
    }
    vknn_prepared_model_release(pm);
    free(c);
  }
}

/* Valid models this driver does not run: the support query finds the
 * (last) operation unsupported and prepare fails, both logging expected_log. */
static const row unsupported_rows[] = {
    {"STRIDED_SLICE: empty axis", build_strided_slice, F32, ss_empty_axis, "axis 0 is empty"},
    {"STRIDED_SLICE: negative size", build_strided_slice, F32, ss_negative_size, "axis 0 is empty"},
    {"SLICE: size 0", build_slice, F32, slice_size_0, "axis 1 selects no elements"},
    {"FILL: dimension 0", build_fill, F32, fill_dimension_0, "FILL: dimension 0: zero-sized tensors are not supported"},
    {"SLICE: the rest of an axis from its end", build_slice, F32, slice_rest_of_nothing, "axis 1 selects no elements"},
    {"EXPAND_DIMS: a result of rank 9", build_expand_dims_rank_9, F32, NULL, "a result of rank 9 is above the 8 supported"},
    {"TILE: an output of 8 GiB", build_tile, F32, tile_8_gib, "TILE: an output of more than 4 GiB is unsupported"},
    {"RELU: tensors of rank 9", build_relu, F32, input_and_output_rank_9, "rank above 8"},
    {"RELU: an output of rank 9", build_relu, F32, output_rank_9, "rank above 8"},
};

/* Beside an operation on rank 9, another one is answered as usual, and
 * validation accepts the model. */
static void test_rank_9_beside_supported(void **state) {
  (void)state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  build_relu(c, F32);
  uint32_t in = data_input(c, F32, kRank9, 2), out = data_output(c, F32, kRank9, 2);
  to_rank_9(operand(c, in));
  to_rank_9(operand(c, out));
  mb_operation(&c->b, OP(ABS), &in, 1, &out, 1);
  const vknn_model *model = mb_finish(&c->b);
  assert_int_equal(vknn_device_validate_model(f->device, model), VKNN_STATUS_NONE);
  bool supported[2] = {false, true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, model, supported, 2), VKNN_STATUS_NONE);
  assert_true(supported[0]);
  assert_false(supported[1]);
  free(c);
}

static void test_unsupported_row(void **state) {
  const row *r = *state;
  fixture *f = device_fixture;
  ctx *c = new_ctx();
  r->build(c, r->type);
  if (r->mutate) r->mutate(c);
  const vknn_model *model = mb_finish(&c->b);
  bool supported[MB_MAX_OPERATIONS] = {true};
  uint32_t last = model->main.operation_count - 1;
  clear_log(&f->log);
  vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, model->main.operation_count);
  if (s != VKNN_STATUS_NONE || supported[last])
    fail_msg("%s: support query gave %s, supported %d (log: %s)", r->name, vknn_status_name(s), supported[last],
             f->log.text);
  expect_logged(&f->log, "the support query", r);
  clear_log(&f->log);
  vknn_prepared_model *pm = NULL;
  s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_SUSTAINED_SPEED, VKNN_PRIORITY_MEDIUM, NULL, &pm);
  free(c);
  if (pm != NULL) vknn_prepared_model_release(pm);
  if (s != VKNN_STATUS_GENERAL_FAILURE) fail_msg("%s: prepare gave %s", r->name, vknn_status_name(s));
  expect_logged(&f->log, "prepare", r);
}

int main(void) {
  enum { ROWS = sizeof(rows) / sizeof(rows[0]) };
  enum { UNSUPPORTED = sizeof(unsupported_rows) / sizeof(unsupported_rows[0]) };
  struct CMUnitTest tests[ROWS + UNSUPPORTED + 7];
  for (size_t i = 0; i < ROWS; ++i) {
    tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(test_row, (void *)&rows[i]);
    tests[i].name = rows[i].name;
  }
  for (size_t i = 0; i < UNSUPPORTED; ++i) {
    tests[ROWS + i] = (struct CMUnitTest)cmocka_unit_test_prestate(test_unsupported_row, (void *)&unsupported_rows[i]);
    tests[ROWS + i].name = unsupported_rows[i].name;
  }
  tests[ROWS + UNSUPPORTED] = (struct CMUnitTest)cmocka_unit_test(test_depthwise_filter_dim0_at_execution);
  tests[ROWS + UNSUPPORTED + 1] = (struct CMUnitTest)cmocka_unit_test(test_parameter_ranks_at_execution);
  tests[ROWS + UNSUPPORTED + 2] = (struct CMUnitTest)cmocka_unit_test(test_transpose_bias_at_execution);
  tests[ROWS + UNSUPPORTED + 3] = (struct CMUnitTest)cmocka_unit_test(test_conv_stride_at_execution);
  tests[ROWS + UNSUPPORTED + 4] = (struct CMUnitTest)cmocka_unit_test(test_rank_9_beside_supported);
  tests[ROWS + UNSUPPORTED + 5] = (struct CMUnitTest)cmocka_unit_test(test_activation_at_execution);
  tests[ROWS + UNSUPPORTED + 6] = (struct CMUnitTest)cmocka_unit_test(test_params_at_execution);
  return _cmocka_run_group_tests("op_rules", tests, ROWS + UNSUPPORTED + 7, setup, teardown);
}
