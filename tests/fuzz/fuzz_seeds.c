/* fuzz-seeds OUT_DIR FILE.json...: writes the byte form of every
 * conformance case (model and input values) as a seed for the fuzz
 * targets, one file per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts_case.h"
#include "fuzz_model_bytes.h"

static int write_seed(const char *dir, const cts_case *c) {
  const uint8_t *pools[1] = {c->constant_pool.data};
  uint8_t *bytes = NULL;
  size_t size = 0;
  if (fuzz_model_encode(&c->model, pools, c->input_pool.data, c->input_pool.size, &bytes, &size) != 0)
    return 0; /* beyond the byte form's limits: no seed */
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.bin", dir, c->name);
  FILE *f = fopen(path, "wb");
  int rc = f != NULL && fwrite(bytes, 1, size, f) == size ? 1 : -1;
  if (f != NULL) fclose(f);
  free(bytes);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz-seeds OUT_DIR FILE.json...\n");
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
