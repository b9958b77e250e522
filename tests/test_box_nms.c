/* BOX_WITH_NMS_LIMIT: every rule of its NNAPI documentation rejected (a
 * valid model broken one way, refused with INVALID_ARGUMENT by the support
 * query and by prepare, logging the problem), and executions: rows the data
 * decide reported as the outputs' shapes, a location too small for them
 * (OUTPUT_INSUFFICIENT_SIZE with the needed shape), a first dimension the
 * model declares and the data contradict, a bad box found on the GPU, batch
 * indices negative or not grouped found on the GPU (up to 65536 of them), the
 * maximum per batch, and ROI_ALIGN reading the selected boxes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph/runtime_check.h"
#include "support/box_reference.h"
#include "support/model_runner.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM
#define Q8S VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED
#define Q16 VKNN_OPERAND_TENSOR_QUANT16_ASYMM

/* The test data: 4 boxes, 2 classes (background and one), batches 0 0 0 1.
 * In batch 0, box 1 overlaps box 0 (IoU 81 / 119) and is suppressed at an
 * IoU threshold of 0.5; box 2 stands apart. */
enum { BOXES = 4, CLASSES = 2 };
static const float kScores[BOXES * CLASSES] = {0.1f, 0.9f, 0.2f, 0.8f, 0.3f, 0.7f, 0.4f, 0.6f};
static const float kBoxes[BOXES * CLASSES * 4] = {
    0, 0, 10, 10, 0, 0, 10, 10, 0, 0, 1, 1, 1, 1, 11, 11,
    0, 0, 1, 1, 20, 20, 30, 30, 0, 0, 1, 1, 0, 0, 5, 5,
};
static const int32_t kBatches[BOXES] = {0, 0, 0, 1};

/* The NMS model and its operands, for mutations. */
typedef struct nms_model {
  model_builder b;
  uint32_t scores, boxes, batches, params[6], outs[4];
} nms_model;

/* Scores of type; output rows declared as rows (0: unknown). */
static void build_nms(nms_model *m, int32_t type, int32_t max_detections, int32_t kernel, uint32_t rows) {
  model_builder *b = &m->b;
  mb_init(b);
  bool quant = type == Q8 || type == Q8S;
  int32_t box_type = quant ? Q16 : type, real = type == F16 ? VKNN_OPERAND_FLOAT16 : VKNN_OPERAND_FLOAT32;
  const uint32_t score_dims[2] = {BOXES, CLASSES}, box_dims[2] = {BOXES, 4 * CLASSES}, n = BOXES;
  m->scores = mb_input(b, type, score_dims, 2);
  m->boxes = mb_input(b, box_type, box_dims, 2);
  m->batches = mb_input(b, I32, &n, 1);
  if (quant) {
    mb_set_quant(b, m->scores, 0.01f, type == Q8 ? 0 : -128);
    mb_set_quant(b, m->boxes, 0.125f, 0);
  }
  m->params[0] = runner_real_scalar(b, real, 0.0625f);
  m->params[1] = mb_const_i32(b, max_detections);
  m->params[2] = mb_const_i32(b, kernel);
  m->params[3] = runner_real_scalar(b, real, 0.5f);
  m->params[4] = runner_real_scalar(b, real, 0.5f);
  m->params[5] = runner_real_scalar(b, real, 0.0625f);
  const uint32_t out_dims[2] = {rows, 4};
  m->outs[0] = mb_output(b, type, out_dims, 1);
  m->outs[1] = mb_output(b, box_type, out_dims, 2);
  m->outs[2] = mb_output(b, I32, out_dims, 1);
  m->outs[3] = mb_output(b, I32, out_dims, 1);
  if (quant) {
    mb_set_quant(b, m->outs[0], 0.01f, type == Q8 ? 0 : -128);
    mb_set_quant(b, m->outs[1], 0.125f, 0);
  }
  const uint32_t in[9] = {m->scores, m->boxes, m->batches, m->params[0], m->params[1],
                          m->params[2], m->params[3], m->params[4], m->params[5]};
  mb_operation(b, VKNN_OPERATION_BOX_WITH_NMS_LIMIT, in, 9, m->outs, 4);
}

/* ---- rules ------------------------------------------------------------------ */

typedef struct rule {
  const char *name;
  int32_t type;
  void (*mutate)(nms_model *m);
  const char *expected_log;
} rule;

static vknn_operand *operand(nms_model *m, uint32_t i) { return &m->b.operands[i]; }
static vknn_operation *nms_op(nms_model *m) { return &m->b.operations[0]; }

/* Operation input k becomes another operand. */
static void replace_input(nms_model *m, uint32_t k, uint32_t operand_index) { mb_replace_input(&m->b, 0, k, operand_index); }

static void set_dims(nms_model *m, uint32_t i, uint32_t rank, uint32_t d0, uint32_t d1) {
  m->b.dims[i][0] = d0;
  m->b.dims[i][1] = d1;
  m->b.operands[i].dimension_count = rank;
}

static void eight_inputs(nms_model *m) {
  nms_op(m)->input_count = 8;
  operand(m, m->params[5])->number_of_consumers = 0;
}
static void scores_int32(nms_model *m) { operand(m, m->scores)->type = operand(m, m->outs[0])->type = I32; }
static void boxes_f16(nms_model *m) { operand(m, m->boxes)->type = F16; }
static void boxes_f32(nms_model *m) {
  operand(m, m->boxes)->type = F32;
  mb_set_quant(&m->b, m->boxes, 0.f, 0);
}
static void boxes_scale(nms_model *m) { operand(m, m->boxes)->scale = 0.25f; }
static void boxes_zero_point(nms_model *m) { operand(m, m->boxes)->zero_point = 2; }
static void batches_f32(nms_model *m) { operand(m, m->batches)->type = F32; }
static void score_threshold_f16(nms_model *m) {
  replace_input(m, 3, runner_real_scalar(&m->b, VKNN_OPERAND_FLOAT16, 0.5f));
}
static void max_detections_float(nms_model *m) { replace_input(m, 4, runner_real_scalar(&m->b, VKNN_OPERAND_FLOAT32, 1.f)); }
static void kernel_float(nms_model *m) { replace_input(m, 5, runner_real_scalar(&m->b, VKNN_OPERAND_FLOAT32, 0.f)); }
static void iou_int(nms_model *m) { replace_input(m, 6, mb_const_i32(&m->b, 0)); }
static void sigma_int(nms_model *m) { replace_input(m, 7, mb_const_i32(&m->b, 0)); }
static void nms_threshold_int(nms_model *m) { replace_input(m, 8, mb_const_i32(&m->b, 0)); }
static void kernel_3(nms_model *m) { replace_input(m, 5, mb_const_i32(&m->b, 3)); }
static void kernel_negative(nms_model *m) { replace_input(m, 5, mb_const_i32(&m->b, -1)); }
static void scores_rank_3(nms_model *m) {
  set_dims(m, m->scores, 3, BOXES, CLASSES);
  m->b.dims[m->scores][2] = 1;
}
static void boxes_rank_1(nms_model *m) { set_dims(m, m->boxes, 1, BOXES * CLASSES * 4, 0); }
static void batches_rank_2(nms_model *m) { set_dims(m, m->batches, 2, BOXES, 1); }
static void boxes_width(nms_model *m) { m->b.dims[m->boxes][1] = 4 * CLASSES + 4; }
static void batches_count(nms_model *m) { m->b.dims[m->batches][0] = BOXES + 1; }
static void one_class(nms_model *m) {
  m->b.dims[m->scores][1] = 1;
  m->b.dims[m->boxes][1] = 4;
}
/* The boxes' count left to the execution: the operation waits for it, and
 * its parameters and the shapes known already are still checked at prepare. */
static void count_unknown(nms_model *m) {
  m->b.dims[m->scores][0] = 0;
  m->b.dims[m->boxes][0] = 0;
  m->b.dims[m->batches][0] = 0;
}
static void count_unknown_kernel_3(nms_model *m) { count_unknown(m), kernel_3(m); }
static void count_unknown_boxes_width(nms_model *m) { count_unknown(m), boxes_width(m); }
static void out_scores_f16(nms_model *m) { operand(m, m->outs[0])->type = F16; }
static void out_boxes_f16(nms_model *m) { operand(m, m->outs[1])->type = F16; }
static void out_classes_f32(nms_model *m) { operand(m, m->outs[2])->type = F32; }
static void out_batches_f32(nms_model *m) { operand(m, m->outs[3])->type = F32; }
static void out_scores_scale(nms_model *m) { operand(m, m->outs[0])->scale = 0.02f; }
static void out_boxes_scale(nms_model *m) { operand(m, m->outs[1])->scale = 0.5f; }
static void out_scores_rank_2(nms_model *m) { set_dims(m, m->outs[0], 2, 0, 1); }
static void out_boxes_width(nms_model *m) { set_dims(m, m->outs[1], 2, 0, 5); }
static void out_boxes_rank_1(nms_model *m) { set_dims(m, m->outs[1], 1, 0, 0); }
static void out_rows_disagree(nms_model *m) {
  set_dims(m, m->outs[0], 1, 3, 0);
  set_dims(m, m->outs[1], 2, 4, 4);
}

static const rule kRules[] = {
    {"float32 accepted", F32, NULL, NULL},
    {"float16 accepted", F16, NULL, NULL},
    {"quant8 accepted", Q8, NULL, NULL},
    {"quant8 signed accepted", Q8S, NULL, NULL},
    {"8 inputs", F32, eight_inputs, "takes 9 inputs and 4 outputs"},
    {"int32 scores", F32, scores_int32, "score type TENSOR_INT32 is not allowed"},
    {"float16 boxes with float32 scores", F32, boxes_f16, "the boxes must be TENSOR_FLOAT32"},
    {"float32 boxes with quant8 scores", Q8, boxes_f32, "the boxes must be TENSOR_QUANT16_ASYMM"},
    {"quant16 boxes of scale 0.25", Q8, boxes_scale, "quant16 boxes must have scale 0.125"},
    {"quant16 boxes of zero point 2", Q8S, boxes_zero_point, "quant16 boxes must have scale 0.125"},
    {"float batch indices", F32, batches_f32, "the batch indices must be TENSOR_INT32"},
    {"float16 score threshold with float32", F32, score_threshold_f16, "the score threshold must be FLOAT32"},
    {"float maximum detections", F32, max_detections_float, "the maximum detections must be INT32"},
    {"float kernel", F32, kernel_float, "the NMS kernel must be INT32"},
    {"int IoU threshold", F32, iou_int, "the IoU threshold must be FLOAT32"},
    {"int sigma", F16, sigma_int, "sigma must be FLOAT16"},
    {"int NMS score threshold", F32, nms_threshold_int, "the NMS score threshold must be FLOAT32"},
    {"kernel 3", F32, kernel_3, "NMS kernel 3 is none of"},
    {"kernel -1", F32, kernel_negative, "NMS kernel -1 is none of"},
    {"scores of rank 3", F32, scores_rank_3, "the scores must have rank 2"},
    {"boxes of rank 1", F32, boxes_rank_1, "the boxes must have rank 2"},
    {"batch indices of rank 2", F32, batches_rank_2, "the batch indices must have rank 1"},
    {"boxes not 4 x classes wide", F32, boxes_width, "boxes [boxes, 4 x classes]"},
    {"batch indices not one per box", F32, batches_count, "boxes [boxes, 4 x classes]"},
    {"one class", F32, one_class, "with classes > 1"},
    {"float16 output scores", F32, out_scores_f16, "the output scores must be TENSOR_FLOAT32"},
    {"float16 output boxes", F32, out_boxes_f16, "the output boxes must be TENSOR_FLOAT32"},
    {"float output classes", F32, out_classes_f32, "the output classes must be TENSOR_INT32"},
    {"float output batch indices", F32, out_batches_f32, "the output batch indices must be TENSOR_INT32"},
    {"quant8 output scores of another scale", Q8, out_scores_scale, "must keep input 0's scale"},
    {"output scores and boxes of 3 and 4 rows", F32, out_rows_disagree, "output 0 has 3 rows, output 1 has 4"},
    {"quant16 output boxes of scale 0.5", Q8, out_boxes_scale, "quant16 output boxes must have scale 0.125"},
    {"output scores of rank 2", F32, out_scores_rank_2, "the output scores must have rank 1"},
    {"output boxes of rank 1", F32, out_boxes_rank_1, "the output boxes must have rank 2"},
    {"output boxes 5 wide", F32, out_boxes_width, "output 1's dimension 1 is 5, expected 4"},
    {"boxes' count unknown accepted", F32, count_unknown, NULL},
    {"boxes' count unknown, kernel 3", F32, count_unknown_kernel_3, "NMS kernel 3 is none of"},
    {"boxes' count unknown, boxes not 4 x classes wide", F32, count_unknown_boxes_width, "boxes [boxes, 4 x classes]"},
};

static void test_rules(void **state) {
  runner_fixture *f = *state;
  for (size_t i = 0; i < sizeof(kRules) / sizeof(kRules[0]); ++i) {
    const rule *r = &kRules[i];
    nms_model *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    build_nms(m, r->type, -1, 0, 0);
    if (r->mutate) r->mutate(m);
    const vknn_model *model = mb_finish(&m->b);
    vknn_status want = r->expected_log ? VKNN_STATUS_INVALID_ARGUMENT : VKNN_STATUS_NONE;
    bool supported[1] = {false};
    f->log.last[0] = '\0';
    vknn_status s = vknn_device_get_supported_operations(f->device, model, supported, 1);
    if (s != want || (want == VKNN_STATUS_NONE && !supported[0]))
      fail_msg("%s: support query gave %s, supported %d (%s)", r->name, vknn_status_name(s), supported[0],
               f->log.last);
    if (want != VKNN_STATUS_NONE && strstr(f->log.last, r->expected_log) == NULL)
      fail_msg("%s: logged \"%s\", not \"%s\"", r->name, f->log.last, r->expected_log);
    vknn_prepared_model *pm = NULL;
    s = vknn_device_prepare_model(f->device, model, VKNN_PREFER_FAST_SINGLE_ANSWER, VKNN_PRIORITY_MEDIUM, NULL,
                                  &pm);
    vknn_prepared_model_release(pm);
    free(m);
    if (s != want) fail_msg("%s: prepare gave %s (%s)", r->name, vknn_status_name(s), f->log.last);
  }
}

/* ---- executions -------------------------------------------------------------- */

typedef struct nms_result {
  float scores[BOXES];
  float boxes[BOXES * 4];
  int32_t classes[BOXES], batches[BOXES];
  vknn_output_shape shapes[4];
} nms_result;

static vknn_status run_f32(runner_fixture *f, nms_model *m, float *box_data, size_t score_bytes, nms_result *r) {
  const buffer_arg in[3] = {{kScores, NULL, sizeof(kScores)},
                            {box_data, NULL, sizeof(kBoxes)},
                            {kBatches, NULL, sizeof(kBatches)}};
  buffer_arg out[4] = {{NULL, r->scores, score_bytes},
                       {NULL, r->boxes, sizeof(r->boxes)},
                       {NULL, r->classes, sizeof(r->classes)},
                       {NULL, r->batches, sizeof(r->batches)}};
  return model_runner_try(f->device, &f->log, &m->b, in, out, r->shapes);
}

static void expect_rows(const nms_result *r, uint32_t rows) {
  for (uint32_t i = 0; i < 4; ++i) {
    assert_int_equal(r->shapes[i].rank, i == 1 ? 2 : 1);
    assert_int_equal(r->shapes[i].dimensions[0], rows);
  }
  assert_int_equal(r->shapes[1].dimensions[1], 4);
}

/* Box 1 suppressed: boxes 0 and 2 of batch 0, box 3 of batch 1, by score. */
static void test_rows_from_the_data(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 0, 0);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_NONE);
  expect_rows(&r, 3);
  const float scores[3] = {0.9f, 0.7f, 0.6f}, first_x2[3] = {10, 30, 5};
  const int32_t batches[3] = {0, 0, 1};
  for (uint32_t i = 0; i < 3; ++i) {
    assert_float_equal(r.scores[i], scores[i], 0.f);
    assert_float_equal(r.boxes[4 * i + 2], first_x2[i], 0.f);
    assert_int_equal(r.classes[i], 1);
    assert_int_equal(r.batches[i], batches[i]);
  }
}

/* The same with the boxes' count left to the execution (the model compiled
 * with the count each execution gives). */
static void test_rows_with_the_count_unknown(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 0, 0);
  count_unknown(&m);
  const uint32_t score_dims[2] = {BOXES, CLASSES}, box_dims[2] = {BOXES, 4 * CLASSES}, count = BOXES;
  const buffer_arg in[3] = {{kScores, NULL, sizeof(kScores), score_dims, 2},
                            {kBoxes, NULL, sizeof(kBoxes), box_dims, 2},
                            {kBatches, NULL, sizeof(kBatches), &count, 1}};
  nms_result r;
  buffer_arg out[4] = {{NULL, r.scores, sizeof(r.scores)}, {NULL, r.boxes, sizeof(r.boxes)},
                       {NULL, r.classes, sizeof(r.classes)}, {NULL, r.batches, sizeof(r.batches)}};
  assert_int_equal(model_runner_try(f->device, &f->log, &m.b, in, out, r.shapes), VKNN_STATUS_NONE);
  expect_rows(&r, 3);
  const int32_t batches[3] = {0, 0, 1};
  for (uint32_t i = 0; i < 3; ++i) assert_int_equal(r.batches[i], batches[i]);
}

/* Linear decay instead: box 1 stays with 0.8 x (1 - 81/119). */
static void test_linear_keeps_a_decayed_box(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 1, 0);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_NONE);
  expect_rows(&r, 4);
  assert_float_equal(r.scores[1], 0.7f, 0.f);
  assert_float_equal(r.scores[2], 0.8f * (1.f - 81.f / 119.f), 1e-6f);
}

/* One box per batch at most: the best of each. */
static void test_maximum_per_batch(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, 1, 0, 0);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_NONE);
  expect_rows(&r, 2);
  assert_float_equal(r.scores[0], 0.9f, 0.f);
  assert_float_equal(r.scores[1], 0.6f, 0.f);
}

/* Room for 2 scores where 3 come out: the needed shape, then a retry fits. */
static void test_insufficient_size(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 0, 0);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  assert_int_equal(run_f32(f, &m, boxes, 2 * sizeof(float), &r), VKNN_STATUS_OUTPUT_INSUFFICIENT_SIZE);
  assert_false(r.shapes[0].is_sufficient);
  assert_true(r.shapes[1].is_sufficient);
  expect_rows(&r, 3);
  assert_int_equal(run_f32(f, &m, boxes, 3 * sizeof(float), &r), VKNN_STATUS_NONE);
  expect_rows(&r, 3);
}

/* The model says 2 rows, the data give 3: the execution fails. */
static void test_declared_rows_contradicted(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 0, 2);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_GENERAL_FAILURE);
  assert_non_null(strstr(f->log.last, "the model declares 2"));
  build_nms(&m, F32, -1, 0, 3);
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_NONE);
}

/* Fails the test unless the last log line names BOX_WITH_NMS_LIMIT and the
 * run-time rule (a VKNN_RUNTIME_RULE_*). */
static void expect_rule_logged(const runner_fixture *f, uint32_t rule) {
  if (!test_log_names_rule(&f->log, "BOX_WITH_NMS_LIMIT", rule))
    fail_msg("logged \"%s\", not \"%s\"", f->log.last, vknn_runtime_rule_text(rule));
}

/* A box with x1 > x2, found by the kernel: INVALID_ARGUMENT naming it and
 * the rule. */
static void test_inverted_box(void **state) {
  runner_fixture *f = *state;
  nms_model m;
  build_nms(&m, F32, -1, 0, 0);
  nms_result r;
  float boxes[BOXES * CLASSES * 4];
  memcpy(boxes, kBoxes, sizeof(boxes));
  boxes[4 * (2 * CLASSES + 1)] = 40.f; /* box 2, class 1: x1 40 > x2 30 */
  assert_int_equal(run_f32(f, &m, boxes, sizeof(r.scores), &r), VKNN_STATUS_INVALID_ARGUMENT);
  expect_rule_logged(f, VKNN_RUNTIME_RULE_BOX_INVERTED);
}

/* The batch indices as NNAPI documents them, checked on the GPU: a
 * negative index, or an index whose boxes are not grouped together (one
 * index starting two runs), fails the execution with INVALID_ARGUMENT, the
 * log naming which; the same prepared model then runs on with valid indices. Grouped indices need
 * not rise: batch 5 (boxes 0 to 2) before batch 2 (box 3) is valid. */
static void test_batch_indices_checked(void **state) {
  runner_fixture *f = *state;
  nms_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  build_nms(m, F32, -1, 0, 0);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, &m->b);
  static const int32_t kCases[][BOXES] = {
      {0, 0, 0, 1},  {0, 0, 0, -1}, {5, 5, 5, 2}, {0, 0, 1, 0},         {5, 5, 5, 2},
      {1, 0, 0, 1},  {0, 0, 0, 1},  {0, 1, 2, 0}, {INT32_MIN, 0, 0, 1}, {5, 5, 5, 2},
  };
  enum { VALID = 0, NEGATIVE = VKNN_RUNTIME_RULE_BATCH_INDEX_OUT_OF_RANGE,
         UNGROUPED = VKNN_RUNTIME_RULE_BATCH_INDICES_NOT_GROUPED };
  static const uint32_t kRule[] = {VALID,     NEGATIVE, VALID,     UNGROUPED, VALID,
                                   UNGROUPED, VALID,    UNGROUPED, NEGATIVE,  VALID};
  for (size_t i = 0; i < sizeof(kRule) / sizeof(kRule[0]); ++i) {
    const buffer_arg in[3] = {
        {kScores, NULL, sizeof(kScores)}, {kBoxes, NULL, sizeof(kBoxes)}, {kCases[i], NULL, sizeof(kCases[i])}};
    nms_result r;
    buffer_arg out[4] = {{NULL, r.scores, sizeof(r.scores)}, {NULL, r.boxes, sizeof(r.boxes)},
                         {NULL, r.classes, sizeof(r.classes)}, {NULL, r.batches, sizeof(r.batches)}};
    f->log.last[0] = '\0';
    vknn_status s = model_runner_execute(pm, &m->b, in, out, r.shapes);
    if (s != (kRule[i] == VALID ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT))
      fail_msg("case %zu: %s (%s)", i, vknn_status_name(s), f->log.last);
    if (kRule[i] != VALID) {
      expect_rule_logged(f, kRule[i]);
      continue;
    }
    /* Boxes 0 and 2 of the first batch, box 3 of the second, in input order. */
    expect_rows(&r, 3);
    const int32_t batches[3] = {kCases[i][0], kCases[i][0], kCases[i][3]};
    for (uint32_t k = 0; k < 3; ++k) assert_int_equal(r.batches[k], batches[k]);
    assert_float_equal(r.scores[2], 0.6f, 0.f);
  }
  vknn_prepared_model_release(pm);
  free(m);
}

/* Every box its own batch, the batches falling (65535 down to 0): grouped,
 * so valid, and the write pass sorts all 65536 indices (the most boxes
 * supported; 3 classes, so that the pass also walks its most lists, 131072,
 * inside lavapipe's loop limiter). A maximum of 0 detections keeps the class
 * pass to one (no NMS steps) and the rows to none. Box 40000 given box 10's
 * batch instead is one index starting two runs: INVALID_ARGUMENT. */
enum { ALL_BOXES = 65536, ALL_CLASSES = 3 };
static void test_every_box_a_batch(void **state) {
  runner_fixture *f = *state;
  model_builder *b = calloc(1, sizeof(*b));
  float *scores = calloc(ALL_BOXES * ALL_CLASSES, sizeof(float));
  float *boxes = calloc(4u * ALL_BOXES * ALL_CLASSES, sizeof(float));
  int32_t *batches = calloc(ALL_BOXES, sizeof(int32_t));
  assert_true(b && scores && boxes && batches);
  for (uint32_t i = 0; i < ALL_BOXES; ++i) batches[i] = ALL_BOXES - 1 - (int32_t)i;
  mb_init(b);
  const uint32_t score_dims[2] = {ALL_BOXES, ALL_CLASSES}, box_dims[2] = {ALL_BOXES, 4 * ALL_CLASSES};
  const uint32_t n = ALL_BOXES, out_dims[2] = {0, 4};
  uint32_t in[9] = {mb_input(b, F32, score_dims, 2), mb_input(b, F32, box_dims, 2), mb_input(b, I32, &n, 1),
                    runner_real_scalar(b, VKNN_OPERAND_FLOAT32, 0.0625f), mb_const_i32(b, 0), mb_const_i32(b, 0)};
  for (uint32_t i = 6; i < 9; ++i) in[i] = runner_real_scalar(b, VKNN_OPERAND_FLOAT32, 0.5f);
  const uint32_t outs[4] = {mb_output(b, F32, out_dims, 1), mb_output(b, F32, out_dims, 2),
                            mb_output(b, I32, out_dims, 1), mb_output(b, I32, out_dims, 1)};
  mb_operation(b, VKNN_OPERATION_BOX_WITH_NMS_LIMIT, in, 9, outs, 4);
  vknn_prepared_model *pm = model_runner_prepare(f->device, &f->log, b);
  const buffer_arg args[3] = {{scores, NULL, ALL_BOXES * ALL_CLASSES * sizeof(float)},
                              {boxes, NULL, 4u * ALL_BOXES * ALL_CLASSES * sizeof(float)},
                              {batches, NULL, ALL_BOXES * sizeof(int32_t)}};
  float row[4];
  int32_t label;
  buffer_arg results[4] = {{NULL, row, 0}, {NULL, row, 0}, {NULL, &label, 0}, {NULL, &label, 0}};
  vknn_output_shape shapes[4];
  assert_int_equal(model_runner_execute(pm, b, args, results, shapes), VKNN_STATUS_NONE);
  assert_int_equal(shapes[0].dimensions[0], 0);
  batches[40000] = batches[10];
  assert_int_equal(model_runner_execute(pm, b, args, results, shapes), VKNN_STATUS_INVALID_ARGUMENT);
  expect_rule_logged(f, VKNN_RUNTIME_RULE_BATCH_INDICES_NOT_GROUPED);
  vknn_prepared_model_release(pm);
  free(b);
  free(scores);
  free(boxes);
  free(batches);
}

/* ROI_ALIGN over the selected boxes of a [2, 40, 40, 1] map: the same as
 * ROI_ALIGN given those boxes directly, with the rows the data decided. */
static void add_roi_align(model_builder *b, uint32_t map, uint32_t boxes, uint32_t batches, uint32_t out) {
  const float one = 1.f;
  const uint32_t in[10] = {map,
                           boxes,
                           batches,
                           mb_const_i32(b, 2),
                           mb_const_i32(b, 2),
                           mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one)),
                           mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &one, sizeof(one)),
                           mb_const_i32(b, 2),
                           mb_const_i32(b, 2),
                           mb_const_tensor(b, VKNN_OPERAND_BOOL, NULL, 0, &(uint8_t){0}, 1)};
  mb_operation(b, VKNN_OPERATION_ROI_ALIGN, in, 10, &out, 1);
}

static void test_roi_align_reads_the_rows(void **state) {
  runner_fixture *f = *state;
  enum { SIDE = 40, MAP = 2 * SIDE * SIDE };
  static float map[MAP];
  for (uint32_t i = 0; i < MAP; ++i) map[i] = (float)(i % 97) * 0.25f;
  model_builder *b = calloc(1, sizeof(*b));
  assert_non_null(b);
  mb_init(b);
  const uint32_t score_dims[2] = {BOXES, CLASSES}, box_dims[2] = {BOXES, 4 * CLASSES}, n = BOXES;
  const uint32_t map_dims[4] = {2, SIDE, SIDE, 1}, out_dims[4] = {0, 2, 2, 1}, unknown[2] = {0, 4};
  uint32_t in[9] = {mb_input(b, F32, score_dims, 2), mb_input(b, F32, box_dims, 2), mb_input(b, I32, &n, 1)};
  const float reals[5] = {0.05f, 0.5f, 0.5f, 0.05f};
  in[3] = mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &reals[0], 4);
  in[4] = mb_const_i32(b, -1);
  in[5] = mb_const_i32(b, 0);
  for (uint32_t i = 6; i < 9; ++i) in[i] = mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &reals[i - 5], 4);
  uint32_t map_in = mb_input(b, F32, map_dims, 4);
  const uint32_t outs[4] = {mb_temporary(b, F32, unknown, 1), mb_temporary(b, F32, unknown, 2),
                            mb_temporary(b, I32, unknown, 1), mb_temporary(b, I32, unknown, 1)};
  uint32_t aligned = mb_output(b, F32, out_dims, 4);
  mb_operation(b, VKNN_OPERATION_BOX_WITH_NMS_LIMIT, in, 9, outs, 4);
  add_roi_align(b, map_in, outs[1], outs[3], aligned);
  float result[BOXES * 4], direct[3 * 4];
  vknn_output_shape shapes[1];
  const buffer_arg args[4] = {{kScores, NULL, sizeof(kScores)},
                              {kBoxes, NULL, sizeof(kBoxes)},
                              {kBatches, NULL, sizeof(kBatches)},
                              {map, NULL, sizeof(map)}};
  buffer_arg out = {NULL, result, sizeof(result)};
  model_runner_run(f->device, &f->log, b, args, &out, shapes);
  assert_int_equal(shapes[0].dimensions[0], 3);
  /* The same regions given directly. */
  mb_init(b);
  const uint32_t three_boxes[2] = {3, 4}, three = 3, direct_dims[4] = {3, 2, 2, 1};
  uint32_t d_map = mb_input(b, F32, map_dims, 4), d_boxes = mb_input(b, F32, three_boxes, 2);
  uint32_t d_batches = mb_input(b, I32, &three, 1), d_out = mb_output(b, F32, direct_dims, 4);
  add_roi_align(b, d_map, d_boxes, d_batches, d_out);
  const float selected[12] = {0, 0, 10, 10, 20, 20, 30, 30, 0, 0, 5, 5};
  const int32_t selected_batches[3] = {0, 0, 1};
  const buffer_arg d_args[3] = {{map, NULL, sizeof(map)},
                                {selected, NULL, sizeof(selected)},
                                {selected_batches, NULL, sizeof(selected_batches)}};
  buffer_arg d_result = {NULL, direct, sizeof(direct)};
  model_runner_run(f->device, &f->log, b, d_args, &d_result, NULL);
  for (uint32_t i = 0; i < 12; ++i) assert_float_equal(result[i], direct[i], 0.f);
  free(b);
}

/* An operation mixing rows (SOFTMAX along them) cannot read the boxes: unsupported. */
static void test_mixing_rows_unsupported(void **state) {
  runner_fixture *f = *state;
  nms_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  build_nms(m, F32, -1, 0, 0);
  model_builder *b = &m->b;
  b->operands[m->outs[1]].lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE;
  b->output_count = 3;
  b->outputs[1] = m->outs[2];
  b->outputs[2] = m->outs[3];
  const uint32_t dims[2] = {0, 4};
  const float beta = 1.f;
  uint32_t out = mb_output(b, F32, dims, 2);
  const uint32_t in[3] = {m->outs[1], mb_const_tensor(b, VKNN_OPERAND_FLOAT32, NULL, 0, &beta, 4),
                          mb_const_i32(b, 0)};
  mb_operation(b, VKNN_OPERATION_SOFTMAX, in, 3, &out, 1);
  bool supported[2] = {false, false};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(b), supported, 2), VKNN_STATUS_NONE);
  assert_true(supported[0]);
  assert_false(supported[1]);
  free(m);
}

/* More boxes than a class list holds (65536): unsupported, not an error. */
static void test_too_many_boxes_unsupported(void **state) {
  runner_fixture *f = *state;
  nms_model *m = calloc(1, sizeof(*m));
  assert_non_null(m);
  build_nms(m, F32, -1, 0, 0);
  m->b.dims[m->scores][0] = m->b.dims[m->boxes][0] = m->b.dims[m->batches][0] = 65537;
  bool supported[1] = {true};
  assert_int_equal(vknn_device_get_supported_operations(f->device, mb_finish(&m->b), supported, 1),
                   VKNN_STATUS_NONE);
  assert_false(supported[0]);
  assert_non_null(strstr(f->log.last, "at most 65536 boxes"));
  free(m);
}

/* ---- many boxes, against a model of the reference -------------------------- */

enum { MANY = 300, MANY_CLASSES = 3, MANY_ROWS = MANY * (MANY_CLASSES - 1), FIRST_BATCH = 170 };

typedef struct pick {
  uint32_t box, cls;
  float score;
} pick;

/* The reference's steps for one class of the batch [first, first + n):
 * the first highest score chosen and swapped to the front, the others
 * decayed, those below the NMS threshold swapped with the end in turn. */
static uint32_t ref_class(float *scores, const float *boxes, uint32_t first, uint32_t n, uint32_t cls, int32_t kernel,
                          int32_t max_detections, pick *out) {
  uint32_t idx[MANY], count = 0;
  for (uint32_t b = first; b < first + n; ++b)
    if (scores[b * MANY_CLASSES + cls] > 0.0625f) idx[count++] = b * MANY_CLASSES + cls;
  uint32_t start = 0, end = count, limit = max_detections < 0 ? count : (uint32_t)max_detections;
  while (start < end && start < limit) {
    uint32_t best = start;
    for (uint32_t i = start + 1; i < end; ++i)
      if (scores[idx[best]] < scores[idx[i]]) best = i;
    uint32_t t = idx[start];
    idx[start] = idx[best];
    idx[best] = t;
    for (uint32_t i = start + 1; i < end; ++i) {
      float iou = box_reference_iou(&boxes[4 * idx[i]], &boxes[4 * idx[start]]);
      float w = iou < 0.5f ? 1.f : (kernel == 1 ? 1.f - iou : 0.f);
      scores[idx[i]] *= w;
      if (scores[idx[i]] < 0.0625f) {
        t = idx[i];
        idx[i--] = idx[--end];
        idx[end] = t;
      }
    }
    out[start] = (pick){idx[start] / MANY_CLASSES, cls, scores[idx[start]]};
    start++;
  }
  return start;
}

/* Stable: ties keep their order (the reference's sorts of so few entries). */
static void sort_picks(pick *p, uint32_t n, bool by_class) {
  for (uint32_t i = 1; i < n; ++i) {
    pick v = p[i];
    uint32_t j = i;
    while (j > 0 && (by_class ? (p[j - 1].cls > v.cls || (p[j - 1].cls == v.cls && p[j - 1].score < v.score))
                              : p[j - 1].score < v.score)) {
      p[j] = p[j - 1];
      j--;
    }
    p[j] = v;
  }
}

static uint32_t ref_batch(float *scores, const float *boxes, uint32_t first, uint32_t n, int32_t kernel,
                          int32_t max_detections, pick *out) {
  uint32_t total = 0;
  for (uint32_t cls = 1; cls < MANY_CLASSES; ++cls)
    total += ref_class(scores, boxes, first, n, cls, kernel, max_detections, out + total);
  sort_picks(out, total, false);
  if (max_detections >= 0 && total > (uint32_t)max_detections) total = (uint32_t)max_detections;
  sort_picks(out, total, true);
  return total;
}

typedef struct many_data {
  float scores[MANY * MANY_CLASSES], boxes[MANY * MANY_CLASSES * 4];
  int32_t batches[MANY];
  float out_scores[MANY_ROWS], out_boxes[MANY_ROWS * 4];
  int32_t out_classes[MANY_ROWS], out_batches[MANY_ROWS];
  pick picks[MANY_ROWS];
} many_data;

/* Overlapping boxes on a grid, scores in steps of 1/16 (many ties). */
static void fill_many(many_data *d) {
  uint32_t state = 12345;
  for (uint32_t i = 0; i < MANY * MANY_CLASSES; ++i) {
    state = state * 1103515245u + 12345u;
    d->scores[i] = (float)((state >> 16) % 16) / 16.f;
    float x = (float)((state >> 8) % 12) * 3.f, y = (float)((state >> 20) % 12) * 3.f;
    float w = 4.f + (float)((state >> 4) % 8), h = 4.f + (float)((state >> 12) % 8);
    const float box[4] = {x, y, x + w, y + h};
    memcpy(&d->boxes[4 * i], box, sizeof(box));
  }
  for (uint32_t b = 0; b < MANY; ++b) d->batches[b] = b < FIRST_BATCH ? 0 : 1;
}

static void run_many(runner_fixture *f, int32_t kernel, int32_t max_detections) {
  many_data *d = calloc(1, sizeof(*d));
  model_builder *b = calloc(1, sizeof(*b));
  assert_true(d != NULL && b != NULL);
  fill_many(d);
  mb_init(b);
  const uint32_t score_dims[2] = {MANY, MANY_CLASSES}, box_dims[2] = {MANY, 4 * MANY_CLASSES}, n = MANY;
  const uint32_t out_dims[2] = {0, 4};
  const float reals[4] = {0.0625f, 0.5f, 0.5f, 0.0625f};
  uint32_t in[9] = {mb_input(b, F32, score_dims, 2), mb_input(b, F32, box_dims, 2), mb_input(b, I32, &n, 1),
                    runner_real_scalar(b, VKNN_OPERAND_FLOAT32, reals[0]), mb_const_i32(b, max_detections),
                    mb_const_i32(b, kernel)};
  for (uint32_t i = 6; i < 9; ++i) in[i] = runner_real_scalar(b, VKNN_OPERAND_FLOAT32, reals[i - 5]);
  const uint32_t outs[4] = {mb_output(b, F32, out_dims, 1), mb_output(b, F32, out_dims, 2),
                            mb_output(b, I32, out_dims, 1), mb_output(b, I32, out_dims, 1)};
  mb_operation(b, VKNN_OPERATION_BOX_WITH_NMS_LIMIT, in, 9, outs, 4);
  const buffer_arg args[3] = {{d->scores, NULL, sizeof(d->scores)},
                              {d->boxes, NULL, sizeof(d->boxes)},
                              {d->batches, NULL, sizeof(d->batches)}};
  buffer_arg results[4] = {{NULL, d->out_scores, sizeof(d->out_scores)},
                           {NULL, d->out_boxes, sizeof(d->out_boxes)},
                           {NULL, d->out_classes, sizeof(d->out_classes)},
                           {NULL, d->out_batches, sizeof(d->out_batches)}};
  vknn_output_shape shapes[4];
  model_runner_run(f->device, &f->log, b, args, results, shapes);
  uint32_t rows = ref_batch(d->scores, d->boxes, 0, FIRST_BATCH, kernel, max_detections, d->picks);
  uint32_t first_rows = rows;
  rows += ref_batch(d->scores, d->boxes, FIRST_BATCH, MANY - FIRST_BATCH, kernel, max_detections, d->picks + rows);
  assert_int_equal(shapes[0].dimensions[0], rows);
  for (uint32_t r = 0; r < rows; ++r) {
    const pick *p = &d->picks[r];
    if (d->out_scores[r] != p->score || d->out_classes[r] != (int32_t)p->cls ||
        d->out_batches[r] != (r < first_rows ? 0 : 1) ||
        memcmp(&d->out_boxes[4 * r], &d->boxes[4 * (p->box * MANY_CLASSES + p->cls)], 4 * sizeof(float)) != 0)
      fail_msg("row %u: score %g class %d box x1 %g, the reference %g %u %g", r, d->out_scores[r],
               d->out_classes[r], d->out_boxes[4 * r], p->score, p->cls,
               d->boxes[4 * (p->box * MANY_CLASSES + p->cls)]);
  }
  free(b);
  free(d);
}

static void test_many_boxes_hard(void **state) { run_many(*state, 0, -1); }
static void test_many_boxes_linear_limited(void **state) { run_many(*state, 1, 20); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules),
      cmocka_unit_test(test_rows_from_the_data),
      cmocka_unit_test(test_rows_with_the_count_unknown),
      cmocka_unit_test(test_linear_keeps_a_decayed_box),
      cmocka_unit_test(test_maximum_per_batch),
      cmocka_unit_test(test_insufficient_size),
      cmocka_unit_test(test_declared_rows_contradicted),
      cmocka_unit_test(test_inverted_box),
      cmocka_unit_test(test_batch_indices_checked),
      cmocka_unit_test(test_every_box_a_batch),
      cmocka_unit_test(test_roi_align_reads_the_rows),
      cmocka_unit_test(test_mixing_rows_unsupported),
      cmocka_unit_test(test_too_many_boxes_unsupported),
      cmocka_unit_test(test_many_boxes_hard),
      cmocka_unit_test(test_many_boxes_linear_limited),
  };
  return cmocka_run_group_tests(tests, runner_fixture_setup, runner_fixture_teardown);
}
