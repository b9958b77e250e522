/* fuzz-seeds [--cache | --ndk] OUT_DIR FILE.json...: writes the byte form of
 * every conformance case (model and input values) as a seed for the fuzz
 * targets, one file per case; with --cache, each case's model serialized
 * as the compilation cache's data file holds it, after a 0 byte (the
 * fuzz_cache input that seals it); with --ndk, the script of
 * fuzz_ndk_script.h between the model and the input values (fuzz_ndk). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts_case.h"
#include "fuzz_model_bytes.h"
#include "fuzz_ndk_script.h"
#include "model/model_serialize.h"

static void quiet(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data, (void)level, (void)tag, (void)message;
}

/* 0 and the serialized model after it; -1 when it cannot be serialized. */
static int encode_cache_seed(const cts_case *c, uint8_t **out, size_t *out_size) {
  vknn_logger log;
  vknn_logger_init(&log, quiet, NULL);
  uint8_t *model = NULL;
  size_t size = 0;
  if (vknn_model_serialize(&log, &c->model, &model, &size) != VKNN_STATUS_NONE) return -1;
  *out = malloc(size + 1);
  if (*out != NULL) {
    (*out)[0] = 0;
    memcpy(*out + 1, model, size);
    *out_size = size + 1;
  }
  free(model);
  return *out != NULL ? 0 : -1;
}

static bool cache_seeds, ndk_seeds;

/* The byte form with fuzz_ndk's script (its length first) before the inputs. */
static int encode_ndk_seed(const cts_case *c, const uint8_t *const *pools, uint8_t **out, size_t *out_size) {
  static const uint8_t script[] = FUZZ_NDK_SEED_SCRIPT;
  _Static_assert(sizeof(script) <= 255, "the script's length is one byte");
  size_t size = 1 + sizeof(script) + c->input_pool.size;
  uint8_t *after = malloc(size);
  if (after == NULL) return -1;
  after[0] = sizeof(script);
  memcpy(after + 1, script, sizeof(script));
  if (c->input_pool.size > 0) memcpy(after + 1 + sizeof(script), c->input_pool.data, c->input_pool.size);
  int rc = fuzz_model_encode(&c->model, pools, after, size, out, out_size);
  free(after);
  return rc;
}

static int write_seed(const char *dir, const cts_case *c) {
  const uint8_t *pools[1] = {c->constant_pool.data};
  uint8_t *bytes = NULL;
  size_t size = 0;
  int encoded = cache_seeds ? encode_cache_seed(c, &bytes, &size)
                : ndk_seeds  ? encode_ndk_seed(c, pools, &bytes, &size)
                             : fuzz_model_encode(&c->model, pools, c->input_pool.data,
                                                 c->input_pool.size, &bytes, &size);
  if (encoded != 0) return 0; /* beyond the byte form's limits: no seed */
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.bin", dir, c->name);
  FILE *f = fopen(path, "wb");
  int rc = f != NULL && fwrite(bytes, 1, size, f) == size ? 1 : -1;
  if (f != NULL) fclose(f);
  free(bytes);
  return rc;
}

int main(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--cache") == 0 || strcmp(argv[1], "--ndk") == 0)) {
    cache_seeds = strcmp(argv[1], "--cache") == 0;
    ndk_seeds = !cache_seeds;
    argv++, argc--;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz-seeds [--cache | --ndk] OUT_DIR FILE.json...\n");
    return 2;
  }
  int written = 0;
  for (int a = 2; a < argc; ++a) {
    cJSON *root = cts_parse_file(argv[a]);
    const cJSON *test;
    cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(root, "tests")) {
      cts_case c;
      const char *error = NULL;
      if (cts_case_load(test, &c, &error) != 0) continue;
      int rc = write_seed(argv[1], &c);
      cts_case_free(&c);
      if (rc < 0) {
        fprintf(stderr, "fuzz-seeds: cannot write into %s\n", argv[1]);
        return 1;
      }
      written += rc;
    }
    cJSON_Delete(root);
  }
  printf("fuzz-seeds: %d seeds\n", written);
  return 0;
}
