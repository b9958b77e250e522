/* A conformance case loaded from the nnapi-cts JSON: the model it defines,
 * the request values, and the expected outputs. */
#pragma once
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "common/shared_memory.h"
#include "vknn/vknn.h"

typedef struct cts_arena cts_arena; /* owns every array of a case */

typedef struct cts_expected {
  int32_t type;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  bool ignored;
  double *values;
  uint8_t *is_nan; /* expected value given as "nan" */
  size_t count;
} cts_expected;

typedef struct cts_case {
  const char *name;
  bool expect_failure;
  bool relaxed;
  bool has_float16; /* any TENSOR_FLOAT16 operand anywhere */
  double multinomial_tolerance;
  vknn_model model;
  /* Request values, laid out in the input pool. */
  vknn_request_argument *inputs;
  uint32_t input_count;
  vknn_request_argument *outputs;
  uint32_t output_count;
  cts_expected *expected;
  shared_memory constant_pool;
  shared_memory input_pool;
  shared_memory output_pool;
  vknn_request_pool request_pools[2];
  vknn_request request;
  cts_arena *arena;
} cts_case;

/* Builds a case from one TEST object. Returns 0, or -1 with *error set. */
int cts_case_load(const cJSON *test, cts_case *out, const char **error);
void cts_case_free(cts_case *c);

/* Declares every model output with all dimensions 0 (unknown), keeping the
 * rank: the driver must infer the output shapes. */
int cts_case_make_outputs_dynamic(cts_case *c);

/* Clears the output pool (so a stale value never passes for a new one). */
void cts_case_reset_outputs(cts_case *c);

/* Operation types of a TEST object's subgraphs, as a bitmask (bit = type). */
void cts_case_operation_mask(const cJSON *test, uint64_t mask[2]);

int32_t cts_operand_type_from_name(const char *name);

/* The type whose encoding a model's operand values have: the type itself,
 * or for the extension types the runner knows (decoded through the model's
 * extensionNameToPrefix) the runner's own (cts_values.h: CTS_TYPE_INT64). */
int32_t cts_value_type(const vknn_model *model, int32_t type);

/* A JSON file parsed; NULL when it cannot be read or parsed. */
cJSON *cts_parse_file(const char *path);

/* Bytes of one element (or of the scalar) of an operand type; 0 for SUBGRAPH. */
size_t cts_element_size(int32_t type);
int32_t cts_operation_type_from_name(const char *name);
