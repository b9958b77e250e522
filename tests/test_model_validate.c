/* Every model validation rule has a case here that must be rejected with
 * INVALID_ARGUMENT and a log line naming the problem. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/operation_registry.h"
#include "support/test_model.h"

typedef struct rule {
  const char *expected_log; /* a substring of the log line */
  void (*mutate)(test_model *m);
} rule;

/* Operands and operations. */
static void input_index_out_of_range(test_model *m) { m->op_inputs[1] = 9; }
static void output_index_out_of_range(test_model *m) { m->op_outputs[0] = 4; }
static void written_by_operation_not_output(test_model *m) { m->op_outputs[0] = 1; }
static void never_written(test_model *m) {
  m->operands[4] = (vknn_operand){.type = VKNN_OPERAND_TENSOR_FLOAT32,
                                  .dimension_count = 2,
                                  .dimensions = m->dims[0],
                                  .lifetime = VKNN_LIFETIME_TEMPORARY_VARIABLE};
  m->model.main.operand_count = 5;
}
static void bad_operand_type(test_model *m) { m->operands[0].type = 77; }
static void extension_type_without_prefix(test_model *m) { m->operands[0].type = (5 << 16) | 1; }
static void bad_operation_type(test_model *m) { m->operation.type = 500; }
static void scalar_with_dimensions(test_model *m) {
  m->operands[2].dimension_count = 1;
  m->operands[2].dimensions = m->dims[0];
}
static void dimensions_null(test_model *m) { m->operands[0].dimensions = NULL; }
static void bad_lifetime(test_model *m) { m->operands[1].lifetime = (vknn_operand_lifetime)42; }
static void no_operations(test_model *m) { m->model.main.operation_count = 0; }

/* Lifetimes against the input and output lists. */
static void input_list_names_output(test_model *m) { m->inputs[1] = 3; }
static void input_listed_twice(test_model *m) {
  m->inputs[1] = 0;
}
static void input_not_listed(test_model *m) { m->model.main.input_count = 1; }
static void temporary_has_location(test_model *m) { m->operands[0].location.length = 4; }
static void input_has_pool(test_model *m) { m->operands[1].location.pool_index = 1; }
static void no_value_has_location(test_model *m) {
  m->operands[2].lifetime = VKNN_LIFETIME_NO_VALUE; /* keeps its operandValues location */
}

/* Constants. */
static void copy_outside_values(test_model *m) { m->operands[2].location.offset = 4; }
static void reference_bad_pool(test_model *m) {
  m->operands[2].lifetime = VKNN_LIFETIME_CONSTANT_REFERENCE;
  m->operands[2].location.pool_index = 3;
}
static void reference_outside_pool(test_model *m) {
  static const int fd = 0; /* validation reads the pool's size, never its file */
  static const vknn_memory pool = {.name = "ashmem", .fds = &fd, .fd_count = 1, .size = 4};
  m->model.pools = &pool;
  m->model.pool_count = 1;
  m->operands[2].lifetime = VKNN_LIFETIME_CONSTANT_REFERENCE;
  m->operands[2].location = (vknn_data_location){0, 2, 4};
}
static void constant_wrong_length(test_model *m) { m->operands[2].location.length = 2; }
static void constant_unknown_dims(test_model *m) {
  static const int32_t zeros[6];
  m->dims[1][0] = 0;
  m->operands[1].lifetime = VKNN_LIFETIME_CONSTANT_COPY;
  m->operands[1].location = (vknn_data_location){0, 0, 0};
  m->model.operand_values = (const uint8_t *)zeros;
  m->model.operand_values_size = sizeof(zeros);
  m->inputs[1] = 0;
  m->model.main.input_count = 1;
}
static void values_null(test_model *m) { m->model.operand_values = NULL; }

/* Quantization parameters. */
static void float_with_scale(test_model *m) { m->operands[0].scale = 0.5f; }
static void quant_zero_scale(test_model *m) {
  for (int i = 0; i < 4; ++i)
    if (i != 2) m->operands[i].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM, m->operands[i].scale = 1.f;
  m->operands[0].scale = 0.f;
}
static void quant_zero_point_range(test_model *m) {
  for (int i = 0; i < 4; ++i)
    if (i != 2) m->operands[i].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM, m->operands[i].scale = 1.f;
  m->operands[1].zero_point = 256;
}
static void signed_zero_point_range(test_model *m) {
  for (int i = 0; i < 4; ++i)
    if (i != 2) m->operands[i].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED, m->operands[i].scale = 1.f;
  m->operands[1].zero_point = 128;
}
static void int32_zero_point(test_model *m) { m->operands[2].zero_point = 3; }
static void channel_quant_on_float(test_model *m) {
  m->operands[0].extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
}
static void per_channel_without_params(test_model *m) {
  m->operands[0].type = VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL;
}
/* Operand 0 ([2, 3]) per-channel quantized with these scales along channelDim. */
static void set_per_channel(test_model *m, const float *scales, uint32_t count, uint32_t dim) {
  m->operands[0].type = VKNN_OPERAND_TENSOR_QUANT8_SYMM_PER_CHANNEL;
  m->operands[0].extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  m->operands[0].extra_params.channel_quant.scales = scales;
  m->operands[0].extra_params.channel_quant.scale_count = count;
  m->operands[0].extra_params.channel_quant.channel_dim = dim;
}
static void per_channel_dim_out_of_rank(test_model *m) {
  static const float scales[3] = {1.f, 1.f, 1.f};
  set_per_channel(m, scales, 3, 2);
}
static void per_channel_scale_count(test_model *m) {
  static const float scales[2] = {1.f, 1.f};
  set_per_channel(m, scales, 2, 1);
}
static void per_channel_zero_scale(test_model *m) {
  static const float scales[3] = {1.f, 0.f, 1.f};
  set_per_channel(m, scales, 3, 1);
}
static void per_channel_nan_scale(test_model *m) {
  static const float scales[3] = {1.f, 1.f, NAN};
  set_per_channel(m, scales, 3, 1);
}

/* Consumers, order, subgraphs. */
static void wrong_consumer_count(test_model *m) { m->operands[0].number_of_consumers = 2; }
static void subgraph_reference_out_of_range(test_model *m) {
  m->operands[2] = (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH,
                                  .number_of_consumers = 1,
                                  .lifetime = VKNN_LIFETIME_SUBGRAPH,
                                  .location = {0, 2, 0}};
}
/* A SUBGRAPH operand naming subgraph 0 of 1 (the main one, by its address),
 * with a pool or a length, which a subgraph reference has not. */
static void subgraph_reference_with_pool(test_model *m) {
  subgraph_reference_out_of_range(m);
  m->operands[2].location = (vknn_data_location){1, 0, 0};
  m->model.referenced = &m->model.main;
  m->model.referenced_count = 1;
}
static void subgraph_reference_with_length(test_model *m) {
  subgraph_reference_out_of_range(m);
  m->operands[2].location = (vknn_data_location){0, 0, 4};
  m->model.referenced = &m->model.main;
  m->model.referenced_count = 1;
}
static void subgraph_type_with_other_lifetime(test_model *m) {
  m->operands[2].type = VKNN_OPERAND_SUBGRAPH;
}
static void referenced_null(test_model *m) { m->model.referenced_count = 1; }
/* A second ADD model as referenced subgraph 1. */
static void reference_second_model(test_model *m) {
  static test_model inner;
  test_model_init_add(&inner, VKNN_OPERAND_TENSOR_FLOAT32);
  m->model.referenced = &inner.model.main;
  m->model.referenced_count = 1;
}
/* Main names subgraph 1 by a SUBGRAPH operand no operation reads. */
static void subgraph_reference_unread(test_model *m) {
  reference_second_model(m);
  m->operands[4] = (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH};
  m->model.main.operand_count = 5;
}

/* ADD's own signature. */
static void add_wrong_input_count(test_model *m) {
  m->operation.input_count = 2;
  m->operands[2].number_of_consumers = 0;
}
static void add_mismatched_types(test_model *m) { m->operands[1].type = VKNN_OPERAND_TENSOR_INT32; }
static void add_activation_not_int32(test_model *m) {
  m->operands[2].type = VKNN_OPERAND_FLOAT32;
}
static void add_activation_out_of_range(test_model *m) { m->activation = 7; }
static void add_shapes_incompatible(test_model *m) { m->dims[1][1] = 4; }
static void add_rank_above_4(test_model *m) {
  for (int i = 0; i < 4; ++i)
    if (i != 2) m->operands[i].dimension_count = 5, m->dims[i][2] = m->dims[i][3] = m->dims[i][4] = 1;
}
static void div_on_quant8(test_model *m) {
  m->operation.type = VKNN_OPERATION_DIV;
  for (int i = 0; i < 4; ++i)
    if (i != 2) m->operands[i].type = VKNN_OPERAND_TENSOR_QUANT8_ASYMM, m->operands[i].scale = 1.f;
}

static const rule rules[] = {
    {"input 1 is operand 9", input_index_out_of_range},
    {"a subgraph reference no IF or WHILE takes", subgraph_reference_unread},
    {"referenced subgraph 1: no subgraph references it", reference_second_model},
    {"output 0 is operand 4", output_index_out_of_range},
    {"not a temporary or an output", written_by_operation_not_output},
    {"never written", never_written},
    {"invalid type 77", bad_operand_type},
    {"has no prefix", extension_type_without_prefix},
    {"invalid type 500", bad_operation_type},
    {"a scalar has no dimensions", scalar_with_dimensions},
    {"no dimension array", dimensions_null},
    {"invalid lifetime", bad_lifetime},
    {"has no operations", no_operations},
    {"wrong lifetime", input_list_names_output},
    {"listed twice", input_listed_twice},
    {"1 inputs listed, 2 operands", input_not_listed},
    {"a non-constant has a data location", temporary_has_location},
    {"operand 1: a non-constant has a data location", input_has_pool},
    {"operand 2: a non-constant has a data location", no_value_has_location},
    {"outside operandValues", copy_outside_values},
    {"pool 3 does not exist", reference_bad_pool},
    {"CONSTANT_REFERENCE [2, +4) outside pool 0", reference_outside_pool},
    {"does not match its type and dimensions", constant_wrong_length},
    {"unknown dimensions", constant_unknown_dims},
    {"operandValues is NULL", values_null},
    {"scale and zeroPoint must be 0", float_with_scale},
    {"must be > 0", quant_zero_scale},
    {"in [0, 255]", quant_zero_point_range},
    {"in [-128, 127]", signed_zero_point_range},
    {"scale and zeroPoint must be 0", int32_zero_point},
    {"unexpected extra params", channel_quant_on_float},
    {"needs channel quantization params", per_channel_without_params},
    {"channelDim 2 out of rank 2", per_channel_dim_out_of_rank},
    {"2 channel scales for channel dimension 3", per_channel_scale_count},
    {"channel scale 1 is not > 0", per_channel_zero_scale},
    {"channel scale 2 is not > 0", per_channel_nan_scale},
    {"numberOfConsumers is 2", wrong_consumer_count},
    {"references subgraph 2 of 0", subgraph_reference_out_of_range},
    {"operand 2: references subgraph 0 of 1", subgraph_reference_with_pool},
    {"references subgraph 0 of 1", subgraph_reference_with_length},
    {"go together", subgraph_type_with_other_lifetime},
    {"referenced list is NULL", referenced_null},
    {"takes 3 inputs", add_wrong_input_count},
    {"are not allowed", add_mismatched_types},
    {"activation) must be INT32", add_activation_not_int32},
    {"invalid fused activation 7", add_activation_out_of_range},
    {"cannot be broadcast", add_shapes_incompatible},
    {"rank up to 4", add_rank_above_4},
    {"are not allowed", div_on_quant8},
};

static void test_rule(void **state) {
  const rule *r = *state;
  test_model m;
  test_model_init_add(&m, VKNN_OPERAND_TENSOR_FLOAT32);
  r->mutate(&m);
  test_log log = {{0}, 0};
  vknn_logger logger;
  vknn_logger_init(&logger, test_log_callback, &log);
  assert_int_equal(vknn_compiler_validate_model(&logger, &m.model), VKNN_STATUS_INVALID_ARGUMENT);
  if (strstr(log.last, r->expected_log) == NULL)
    fail_msg("log \"%s\" does not contain \"%s\"", log.last, r->expected_log);
}

static void test_valid_models_pass(void **state) {
  (void)state;
  const int32_t types[] = {VKNN_OPERAND_TENSOR_FLOAT32, VKNN_OPERAND_TENSOR_FLOAT16,
                           VKNN_OPERAND_TENSOR_INT32, VKNN_OPERAND_TENSOR_QUANT8_ASYMM,
                           VKNN_OPERAND_TENSOR_QUANT8_ASYMM_SIGNED};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
    test_model m;
    test_model_init_add(&m, types[i]);
    assert_int_equal(vknn_compiler_validate_model(NULL, &m.model), VKNN_STATUS_NONE);
  }
}

/* OEM_OPERATION and the OEM operand types form a valid model (the HAL sets
 * no rule on their shapes, quantization or constant sizes); an OEM operand
 * given to an operation that does not take it is still that operation's
 * error. */
static void test_oem_model_valid(void **state) {
  (void)state;
  test_model m;
  test_model_init_oem(&m);
  assert_int_equal(vknn_compiler_validate_model(NULL, &m.model), VKNN_STATUS_NONE);
  m.operation.type = VKNN_OPERATION_ADD;
  assert_int_equal(vknn_compiler_validate_model(NULL, &m.model), VKNN_STATUS_INVALID_ARGUMENT);
  test_model_init_oem(&m);
  m.operands[0].dimensions = NULL; /* the rules every operand keeps */
  assert_int_equal(vknn_compiler_validate_model(NULL, &m.model), VKNN_STATUS_INVALID_ARGUMENT);
  /* A rank past the driver's arrays is valid (NNAPI sets no limit): its
   * operations are unsupported instead (test_op_rules). */
  static const uint32_t nine[VKNN_MAX_RANK + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
  test_model_init_oem(&m);
  m.operands[0].dimensions = nine;
  m.operands[0].dimension_count = VKNN_MAX_RANK + 1;
  assert_int_equal(vknn_compiler_validate_model(NULL, &m.model), VKNN_STATUS_NONE);
}

/* Every operation type given no inputs (no array either) and one output is
 * refused, its signature check reading no input it does not have (RANK read
 * input 0 of an empty list: a null pointer, found by fuzz_cache). */
static void test_operations_without_inputs(void **state) {
  (void)state;
#define VKNN_TRY_OPERATION_(name, value) VKNN_OPERATION_##name,
  static const int32_t types[] = {VKNN_OPERATION_LIST(VKNN_TRY_OPERATION_)};
#undef VKNN_TRY_OPERATION_
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
    test_model m;
    test_model_init_add(&m, VKNN_OPERAND_TENSOR_FLOAT32);
    m.operation.type = types[i];
    m.operation.inputs = NULL;
    m.operation.input_count = 0;
    for (uint32_t k = 0; k < 4; ++k) m.operands[k].number_of_consumers = 0; /* read by none now */
    test_log log = {{0}, 0};
    vknn_logger logger;
    vknn_logger_init(&logger, test_log_callback, &log);
    vknn_status s = vknn_compiler_validate_model(&logger, &m.model);
    /* Refused by the operation's own rules, not by the HAL's. */
    if (s != VKNN_STATUS_INVALID_ARGUMENT || strstr(log.last, "consumers") != NULL)
      fail_msg("%s without inputs: %s (%s)", vknn_operation_type_name(types[i]), vknn_status_name(s), log.last);
  }
}

static void test_reference_cycle_rejected(void **state) {
  (void)state;
  /* Subgraph 1 references itself through a SUBGRAPH operand. */
  test_model outer, inner;
  test_model_init_add(&outer, VKNN_OPERAND_TENSOR_FLOAT32);
  test_model_init_add(&inner, VKNN_OPERAND_TENSOR_FLOAT32);
  vknn_operand inner_operands[5];
  memcpy(inner_operands, inner.operands, sizeof(inner_operands));
  inner_operands[4] = (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH,
                                     .lifetime = VKNN_LIFETIME_SUBGRAPH,
                                     .location = {0, 0, 0}};
  /* An unread SUBGRAPH operand is still a reference. */
  vknn_subgraph referenced = inner.model.main;
  referenced.operands = inner_operands;
  referenced.operand_count = 5;
  outer.model.referenced = &referenced;
  outer.model.referenced_count = 1;
  outer.operands[2] = (vknn_operand){.type = VKNN_OPERAND_INT32,
                                     .number_of_consumers = 1,
                                     .lifetime = VKNN_LIFETIME_CONSTANT_COPY,
                                     .location = {0, 0, 4}};
  test_log log = {{0}, 0};
  vknn_logger logger;
  vknn_logger_init(&logger, test_log_callback, &log);
  /* Without the cycle the model is valid; with it, rejected. */
  inner_operands[4].location.offset = 0; /* subgraph 1 -> referenced[0] = itself */
  assert_int_equal(vknn_compiler_validate_model(&logger, &outer.model), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(log.last, "cycle"));
}

/* A chain of CHAIN subgraphs, each referencing the next (the last one none,
 * or the first: a cycle through all of them), validated on a thread of a
 * small stack: the search for cycles must not take a frame per link. The
 * references are unread operands of subgraphs main does not reach, which the
 * rules checked after the search refuse: the acyclic chain is refused by
 * them, the cyclic one by the search. (test_control_flow runs a chain of
 * nested IFs, valid, through the support query and prepare.) */
enum { CHAIN = 20000, SMALL_STACK = 128 * 1024 };

typedef struct chain_check {
  test_model outer, inner;
  vknn_subgraph *referenced;
  vknn_operand (*operands)[5];
  vknn_status status;
  test_log log;
} chain_check;

static void *validate_on_thread(void *arg) {
  chain_check *c = arg;
  vknn_logger logger;
  vknn_logger_init(&logger, test_log_callback, &c->log);
  c->status = vknn_compiler_validate_model(&logger, &c->outer.model);
  return NULL;
}

static vknn_status validate_with_small_stack(chain_check *c) {
  pthread_attr_t attr;
  pthread_t thread;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK), 0);
  assert_int_equal(pthread_create(&thread, &attr, validate_on_thread, c), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
  return c->status;
}

static void test_long_reference_chain(void **state) {
  (void)state;
  chain_check *c = calloc(1, sizeof(*c));
  assert_non_null(c);
  test_model_init_add(&c->outer, VKNN_OPERAND_TENSOR_FLOAT32);
  test_model_init_add(&c->inner, VKNN_OPERAND_TENSOR_FLOAT32);
  c->outer.operands[2] = (vknn_operand){.type = VKNN_OPERAND_INT32,
                                        .number_of_consumers = 1,
                                        .lifetime = VKNN_LIFETIME_CONSTANT_COPY,
                                        .location = {0, 0, 4}};
  c->referenced = calloc(CHAIN, sizeof(*c->referenced));
  c->operands = calloc(CHAIN, sizeof(*c->operands));
  assert_true(c->referenced != NULL && c->operands != NULL);
  for (uint32_t i = 0; i < CHAIN; ++i) {
    memcpy(c->operands[i], c->inner.operands, sizeof(c->operands[i]));
    /* Subgraph i + 1 (referenced[i]) names subgraph i + 2 (referenced[i + 1]). */
    c->operands[i][4] = (vknn_operand){.type = VKNN_OPERAND_SUBGRAPH, .lifetime = VKNN_LIFETIME_SUBGRAPH,
                                       .location = {0, i + 1, 0}};
    c->referenced[i] = c->inner.model.main;
    c->referenced[i].operands = c->operands[i];
    c->referenced[i].operand_count = i + 1 < CHAIN ? 5 : 4;
  }
  c->outer.model.referenced = c->referenced;
  c->outer.model.referenced_count = CHAIN;
  assert_int_equal(validate_with_small_stack(c), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(c->log.last, "no IF or WHILE takes"));
  /* The last one back to the first: a cycle through all of them. */
  c->operands[CHAIN - 1][4].location.offset = 0;
  c->referenced[CHAIN - 1].operand_count = 5;
  assert_int_equal(validate_with_small_stack(c), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(c->log.last, "cycle"));
  free(c->operands);
  free(c->referenced);
  free(c);
}

static void test_null_model(void **state) {
  (void)state;
  assert_int_equal(vknn_compiler_validate_model(NULL, NULL), VKNN_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  struct CMUnitTest tests[sizeof(rules) / sizeof(rules[0]) + 6];
  size_t n = 0;
  for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); ++i) {
    tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_rule, (void *)&rules[i]);
    tests[n++].name = rules[i].expected_log;
  }
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_valid_models_pass);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_oem_model_valid);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_operations_without_inputs);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_reference_cycle_rejected);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_long_reference_chain);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_null_model);
  return _cmocka_run_group_tests("model_validate", tests, n, NULL, NULL);
}
