/* LSH_PROJECTION and HASHTABLE_LOOKUP against models of the NNAPI reference
 * written here. LSH_PROJECTION: known answers of TensorFlow Lite's kernel
 * test (the same hash and score), then keys of every length class of
 * farmhash's Fingerprint64 (up to 16, 17 to 32, 33 to 64 and longer bytes),
 * more input rows than a workgroup has lanes, float16 seeds and weights,
 * the three projection types, and weights given or omitted by an execution
 * against the type's rule. HASHTABLE_LOOKUP: keys at the ends of the
 * int32 range, misses (zero rows, hit 0) and keys given at run time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph/runtime_check.h"
#include "support/model_builder.h"
#include "support/model_runner.h"
#include "support/test_model.h"
#include "vknn/vknn.h"

#define F32 VKNN_OPERAND_TENSOR_FLOAT32
#define F16 VKNN_OPERAND_TENSOR_FLOAT16
#define I32 VKNN_OPERAND_TENSOR_INT32
#define Q8 VKNN_OPERAND_TENSOR_QUANT8_ASYMM

enum { SPARSE_DEPRECATED = 1, DENSE = 2, SPARSE = 3 };

typedef runner_fixture fixture;

/* ---- farmhash's Fingerprint64 (farmhashna::Hash64), little-endian ------- */

static const uint64_t k0 = 0xc3a5c85c97cb3127ull;
static const uint64_t k1 = 0xb492b66fbe98f273ull;
static const uint64_t k2 = 0x9ae16a3b2f90404full;

static uint64_t load64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

static uint64_t load32(const uint8_t *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t rotr(uint64_t v, unsigned s) { return s == 0 ? v : v >> s | v << (64 - s); }
static uint64_t mix47(uint64_t v) { return v ^ (v >> 47); }

static uint64_t len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = mix47((u ^ v) * mul);
  uint64_t b = mix47((v ^ a) * mul);
  return b * mul;
}

static uint64_t short_key(const uint8_t *s, size_t len) {
  uint64_t mul = k2 + len * 2;
  if (len >= 8) {
    uint64_t a = load64(s) + k2, b = load64(s + len - 8);
    return len16(rotr(b, 37) * mul + a, (rotr(a, 25) + b) * mul, mul);
  }
  if (len >= 4) return len16(len + (load32(s) << 3), load32(s + len - 4), mul);
  if (len == 0) return k2;
  uint32_t y = s[0] + ((uint32_t)s[len >> 1] << 8);
  uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
  return mix47(y * k2 ^ z * k0) * k2;
}

static uint64_t medium_key(const uint8_t *s, size_t len) {
  uint64_t mul = k2 + len * 2;
  uint64_t a = load64(s) * k1, b = load64(s + 8);
  uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
  return len16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + k2, 18) + c, mul);
}

static uint64_t key_up_to_64(const uint8_t *s, size_t len) {
  uint64_t mul = k2 + len * 2;
  uint64_t a = load64(s) * k2, b = load64(s + 8);
  uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
  uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
  uint64_t z = len16(y, a + rotr(b + k2, 18) + c, mul);
  uint64_t e = load64(s + 16) * mul, f = load64(s + 24);
  uint64_t g = (y + load64(s + len - 32)) * mul, h = (z + load64(s + len - 24)) * mul;
  return len16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

typedef struct pair64 {
  uint64_t first, second;
} pair64;

static pair64 weak32(const uint8_t *s, uint64_t a, uint64_t b) {
  uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  uint64_t c = a;
  a += x + y;
  b += rotr(a, 44);
  return (pair64){a + z, b + c};
}

static uint64_t long_key(const uint8_t *s, size_t len) {
  uint64_t x = 81, y = 81 * k1 + 113, z = mix47(y * k2 + 113) * k2, t;
  pair64 v = {0, 0}, w = {0, 0};
  x = x * k2 + load64(s);
  const uint8_t *end = s + ((len - 1) / 64) * 64, *last = s + len - 64;
  do {
    x = rotr(x + y + v.first + load64(s + 8), 37) * k1;
    y = rotr(y + v.second + load64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotr(z + w.first, 33) * k1;
    v = weak32(s, v.second * k1, x + w.first);
    w = weak32(s + 32, z + w.second, y + load64(s + 16));
    t = z, z = x, x = t;
    s += 64;
  } while (s != end);
  uint64_t mul = k1 + ((z & 0xff) << 1);
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + load64(last + 8), 37) * mul;
  y = rotr(y + v.second + load64(last + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + load64(last + 40);
  z = rotr(z + w.first, 33) * mul;
  v = weak32(last, v.second * mul, x + w.first);
  w = weak32(last + 32, z + w.second, y + load64(last + 16));
  t = z, z = x, x = t;
  return len16(len16(v.first, w.first, mul) + mix47(y) * k0 + z, len16(v.second, w.second, mul) + x,
               mul);
}

static uint64_t fingerprint64(const uint8_t *s, size_t len) {
  if (len <= 16) return short_key(s, len);
  if (len <= 32) return medium_key(s, len);
  if (len <= 64) return key_up_to_64(s, len);
  return long_key(s, len);
}

/* ---- the reference's LSH_PROJECTION -------------------------------------- */

typedef struct lsh_case {
  int32_t type;
  uint32_t functions, bits;
  const float *seeds;
  const uint8_t *input; /* rows of row_bytes */
  uint32_t rows, row_bytes;
  const float *weights; /* NULL: omitted */
} lsh_case;

static int sign_bit(const lsh_case *c, float seed) {
  double score = 0.0;
  uint8_t key[4 + 512];
  assert_true(c->row_bytes <= 512);
  for (uint32_t k = 0; k < c->rows; ++k) {
    memcpy(key, &seed, 4);
    memcpy(key + 4, c->input + (size_t)k * c->row_bytes, c->row_bytes);
    double value = (double)(int64_t)fingerprint64(key, 4 + c->row_bytes);
    score += c->weights != NULL ? (double)c->weights[k] * value : value;
  }
  return score > 0 ? 1 : 0;
}

static void lsh_reference(const lsh_case *c, int32_t *out) {
  for (uint32_t i = 0; i < c->functions; ++i) {
    uint32_t signature = 0;
    for (uint32_t j = 0; j < c->bits; ++j) {
      int bit = sign_bit(c, c->seeds[i * c->bits + j]);
      if (c->type == DENSE) out[i * c->bits + j] = bit;
      signature = signature << 1 | (uint32_t)bit;
    }
    if (c->type == SPARSE) signature += i << c->bits;
    if (c->type != DENSE) out[i] = (int32_t)signature;
  }
}

/* The model: hash [functions, bits] (F32 or F16), the input as quant8 rows
 * [rows, row_bytes] (or int32 [rows, row_bytes / 4]), weights [rows]. */
static vknn_status try_lsh(fixture *f, const lsh_case *c, int32_t seed_type, int32_t input_type,
                          int32_t *out) {
  model_builder b;
  mb_init(&b);
  uint32_t hash_dims[2] = {c->functions, c->bits};
  uint32_t elem = input_type == I32 ? 4 : 1;
  uint32_t in_dims[2] = {c->rows, c->row_bytes / elem}, out_count = c->functions;
  if (c->type == DENSE) out_count *= c->bits;
  uint32_t hash = mb_input(&b, seed_type, hash_dims, 2);
  uint32_t input = mb_input(&b, input_type, in_dims, 2);
  if (input_type == Q8) b.operands[input].scale = 1.f;
  uint32_t weights = mb_input(&b, seed_type, &c->rows, 1);
  uint32_t type = mb_const_i32(&b, c->type);
  uint32_t output = mb_output(&b, I32, &out_count, 1);
  uint32_t inputs[4] = {hash, input, weights, type};
  mb_operation(&b, VKNN_OPERATION_LSH_PROJECTION, inputs, 4, &output, 1);
  uint32_t seed_count = c->functions * c->bits;
  uint16_t seeds16[64], weights16[256];
  assert_true(seed_count <= 64 && c->rows <= 256);
  bool half = seed_type == F16;
  for (uint32_t i = 0; half && i < seed_count; ++i) seeds16[i] = runner_half(c->seeds[i]);
  for (uint32_t i = 0; half && c->weights != NULL && i < c->rows; ++i)
    weights16[i] = runner_half(c->weights[i]);
  size_t scalar = half ? 2 : 4;
  buffer_arg in[3] = {
      {half ? (const void *)seeds16 : (const void *)c->seeds, NULL, seed_count * scalar},
      {c->input, NULL, (size_t)c->rows * c->row_bytes},
      {c->weights == NULL ? NULL : half ? (const void *)weights16 : (const void *)c->weights, NULL,
       c->rows * scalar}};
  buffer_arg result = {NULL, out, out_count * sizeof(int32_t)};
  return model_runner_try(f->device, &f->log, &b, in, &result, NULL);
}

static void run_lsh(fixture *f, const lsh_case *c, int32_t seed_type, int32_t input_type,
                    int32_t *out) {
  vknn_status s = try_lsh(f, c, seed_type, input_type, out);
  if (s != VKNN_STATUS_NONE) fail_msg("execute: %s (%s)", vknn_status_name(s), f->log.last);
}

static void expect_ints(const int32_t *got, const int32_t *expected, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i)
    if (got[i] != expected[i]) fail_msg("element %u: %d, expected %d", i, got[i], expected[i]);
}

static const float tflite_seeds[6] = {0.123f, 0.456f, -0.321f, 1.234f, 5.678f, -4.321f};

/* TensorFlow Lite's lsh_projection_test (little-endian answers): the same
 * fingerprint and score, so the same bits. Its Sparse3DInputs (20-byte keys,
 * weighted) is a sparse projection with weights, which the NNAPI reference
 * rejects: the same bits come out of DENSE. */
static void test_lsh_known_answers(void **state) {
  fixture *f = *state;
  static const int32_t rows_1d[5] = {12345, 54321, 67890, 9876, -12345678};
  static const float ones[5] = {1, 1, 1, 1, 1};
  int32_t out[6];
  lsh_case dense = {DENSE, 3, 2, tflite_seeds, (const uint8_t *)rows_1d, 5, 4, ones};
  run_lsh(f, &dense, F32, I32, out);
  static const int32_t dense_expected[6] = {0, 0, 0, 1, 0, 0};
  expect_ints(out, dense_expected, 6);
  lsh_case sparse = {SPARSE, 3, 2, tflite_seeds, (const uint8_t *)rows_1d, 5, 4, NULL};
  run_lsh(f, &sparse, F32, I32, out);
  static const int32_t sparse_expected[3] = {0 + 0, 4 + 1, 8 + 0};
  expect_ints(out, sparse_expected, 3);
  static const int32_t rows_3d[20] = {1234, 2345, 3456, 1234, 4567, 5678, 6789, 4567, 7891, 8912,
                                      9123, 7890, -987, -876, -765, -987, -543, -432, -321, -543};
  static const float weights[5] = {0.12f, 0.34f, 0.56f, 0.67f, 0.78f};
  lsh_case dense_3d = {DENSE, 3, 2, tflite_seeds, (const uint8_t *)rows_3d, 5, 16, weights};
  run_lsh(f, &dense_3d, F32, I32, out);
  static const int32_t signatures_3d[6] = {1, 0, 0, 1, 0, 1}; /* 0 + 2, 4 + 1, 8 + 1 */
  expect_ints(out, signatures_3d, 6);
  /* The host model agrees on them too. */
  int32_t model[6];
  lsh_reference(&dense_3d, model);
  expect_ints(model, signatures_3d, 6);
}

static uint32_t next_random(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

/* Keys of 5 to 204 bytes (every branch of Fingerprint64, the long one with
 * one and several 64-byte steps), 70 rows (more than a workgroup's 64
 * lanes), each projection type, float32 and float16 seeds. */
static void test_lsh_key_lengths(void **state) {
  fixture *f = *state;
  static const uint32_t row_bytes[] = {1, 3, 4, 12, 13, 28, 29, 60, 61, 64, 124, 125, 200};
  static const int32_t types[] = {DENSE, SPARSE, SPARSE_DEPRECATED};
  uint32_t random = 7;
  static uint8_t input[70 * 200];
  float seeds[12], weights[70];
  for (size_t i = 0; i < sizeof(input); ++i) input[i] = (uint8_t)next_random(&random);
  /* Multiples of 1/64 below 16 in magnitude: exact in float16 too. */
  for (uint32_t i = 0; i < 12; ++i) seeds[i] = (float)(next_random(&random) % 2048) / 64.f - 16.f;
  for (uint32_t i = 0; i < 70; ++i) weights[i] = (float)(next_random(&random) % 128) / 64.f - 1.f;
  for (size_t r = 0; r < sizeof(row_bytes) / sizeof(row_bytes[0]); ++r) {
    for (size_t t = 0; t < 3; ++t) {
      for (int half = 0; half < 2; ++half) {
        lsh_case c = {types[t], 4, 3, seeds, input, 70, row_bytes[r],
                      types[t] == DENSE ? weights : NULL};
        int32_t got[12], expected[12];
        run_lsh(f, &c, half ? F16 : F32, Q8, got);
        lsh_reference(&c, expected);
        uint32_t count = types[t] == DENSE ? 12 : 4;
        for (uint32_t i = 0; i < count; ++i)
          if (got[i] != expected[i])
            fail_msg("row of %u bytes, type %d, %s seeds: element %u is %d, expected %d",
                     row_bytes[r], types[t], half ? "float16" : "float32", i, got[i], expected[i]);
      }
    }
  }
}

/* Weights given as a model input: the reference takes them with DENSE only
 * and requires them there, which an execution decides (the model is
 * compiled per execution): each other way fails that execution. */
static void test_lsh_weights_per_execution(void **state) {
  fixture *f = *state;
  static const int32_t rows[5] = {12345, 54321, 67890, 9876, -12345678};
  static const float ones[5] = {1, 1, 1, 1, 1};
  int32_t out[6];
  lsh_case sparse_weighted = {SPARSE, 3, 2, tflite_seeds, (const uint8_t *)rows, 5, 4, ones};
  assert_int_equal(try_lsh(f, &sparse_weighted, F32, I32, out), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "the weights must be omitted with type 3"));
  lsh_case dense_unweighted = {DENSE, 3, 2, tflite_seeds, (const uint8_t *)rows, 5, 4, NULL};
  assert_int_equal(try_lsh(f, &dense_unweighted, F32, I32, out), VKNN_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(f->log.last, "the weights must be given with type 2"));
}

/* ---- HASHTABLE_LOOKUP ---------------------------------------------------- */

/* HASHTABLE_LOOKUP of `lookups` keys in a table of `keys` rows of `row`
 * int32 values, every tensor a model input. */
static void build_hashtable_lookup(model_builder *b, uint32_t lookups, uint32_t keys, uint32_t row) {
  mb_init(b);
  uint32_t value_dims[2] = {keys, row}, out_dims[2] = {lookups, row};
  uint32_t inputs[3] = {mb_input(b, I32, &lookups, 1), mb_input(b, I32, &keys, 1), mb_input(b, I32, value_dims, 2)};
  uint32_t outs[2] = {mb_output(b, I32, out_dims, 2), mb_output(b, Q8, &lookups, 1)};
  b->operands[outs[1]].scale = 1.f;
  mb_operation(b, VKNN_OPERATION_HASHTABLE_LOOKUP, inputs, 3, outs, 2);
}

/* Keys at both ends of the int32 range (a comparison by subtraction would
 * overflow), lookups that hit and miss, keys given at run time; keys out of
 * order (NNAPI wants them ascending) fail the execution. */
static void test_hashtable_lookup(void **state) {
  fixture *f = *state;
  model_builder b;
  build_hashtable_lookup(&b, 4, 5, 2);
  static const int32_t lookup_values[4] = {INT32_MAX, 7, INT32_MIN, -5};
  static const int32_t key_values[5] = {INT32_MIN, -5, 0, 6, INT32_MAX};
  static const int32_t table[10] = {10, 11, 20, 21, 30, 31, 40, 41, 50, 51};
  int32_t out[8];
  uint8_t hits[4];
  buffer_arg in[3] = {{lookup_values, NULL, sizeof(lookup_values)},
                      {key_values, NULL, sizeof(key_values)},
                      {table, NULL, sizeof(table)}};
  buffer_arg results[2] = {{NULL, out, sizeof(out)}, {NULL, hits, sizeof(hits)}};
  model_runner_run(f->device, &f->log, &b, in, results, NULL);
  static const int32_t expected[8] = {50, 51, 0, 0, 10, 11, 20, 21};
  static const uint8_t expected_hits[4] = {1, 0, 1, 1};
  expect_ints(out, expected, 8);
  assert_memory_equal(hits, expected_hits, 4);
  static const int32_t unsorted[5] = {INT32_MIN, 0, -5, 6, INT32_MAX};
  in[1].data = unsorted;
  f->log.last[0] = '\0';
  assert_int_equal(model_runner_try(f->device, &f->log, &b, in, results, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (!test_log_names_rule(&f->log, "HASHTABLE_LOOKUP", VKNN_RUNTIME_RULE_KEYS_NOT_ASCENDING))
    fail_msg("logged \"%s\"", f->log.last);
}

/* More keys than output elements: every pair of neighbouring keys is still
 * checked (the dispatch grows to the keys). */
static void test_hashtable_lookup_many_keys(void **state) {
  fixture *f = *state;
  model_builder b;
  enum { KEYS = 300 };
  build_hashtable_lookup(&b, 1, KEYS, 1);
  static int32_t key_values[KEYS], table[KEYS];
  for (int i = 0; i < KEYS; ++i) key_values[i] = 2 * i, table[i] = 100 + i;
  const int32_t lookup = 40;
  int32_t out[1];
  uint8_t hit[1];
  buffer_arg in[3] = {{&lookup, NULL, sizeof(lookup)}, {key_values, NULL, sizeof(key_values)},
                      {table, NULL, sizeof(table)}};
  buffer_arg results[2] = {{NULL, out, sizeof(out)}, {NULL, hit, sizeof(hit)}};
  model_runner_run(f->device, &f->log, &b, in, results, NULL);
  assert_int_equal(out[0], 120);
  assert_int_equal(hit[0], 1);
  /* The last pair out of order, far past the one output element. */
  key_values[KEYS - 1] = key_values[KEYS - 2] - 1;
  f->log.last[0] = '\0';
  assert_int_equal(model_runner_try(f->device, &f->log, &b, in, results, NULL), VKNN_STATUS_INVALID_ARGUMENT);
  if (!test_log_names_rule(&f->log, "HASHTABLE_LOOKUP", VKNN_RUNTIME_RULE_KEYS_NOT_ASCENDING))
    fail_msg("logged \"%s\"", f->log.last);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, runner_fixture_setup, runner_fixture_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_lsh_known_answers),
      TEST(test_lsh_key_lengths),
      TEST(test_lsh_weights_per_execution),
      TEST(test_hashtable_lookup),
      TEST(test_hashtable_lookup_many_keys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
