#include "cts_baseline.h"

#include <stdlib.h>
#include <string.h>

/* "V1_0/add.json:add_quant8": the file's folder and name, so the key does not
 * depend on where the data lies. */
static char *case_key(const cts_report *r, const cts_entry *e) {
  const char *path = r->files[e->file];
  const char *slash = strrchr(path, '/');
  const char *start = path;
  if (slash != NULL) {
    const char *p = slash;
    while (p > path && p[-1] != '/') --p;
    start = p > path ? p : path;
  }
  size_t size = strlen(start) + strlen(e->name) + 2;
  char *key = malloc(size);
  if (key != NULL) snprintf(key, size, "%s:%s", start, e->name);
  return key;
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int cts_baseline_write(const cts_report *r, const char *path) {
  char **keys = calloc(r->case_count ? r->case_count : 1, sizeof(char *));
  size_t n = 0;
  for (size_t i = 0; keys != NULL && i < r->case_count; ++i)
    if (r->cases[i].status == CTS_PASSED) keys[n++] = case_key(r, &r->cases[i]);
  FILE *f = keys ? fopen(path, "w") : NULL;
  int rc = f == NULL ? -1 : 0;
  if (n > 0) qsort(keys, n, sizeof(char *), compare_strings);
  for (size_t i = 0; i < n; ++i) {
    if (f != NULL && keys[i] != NULL) fprintf(f, "%s\n", keys[i]);
    free(keys[i]);
  }
  if (f != NULL && fclose(f) != 0) rc = -1;
  free(keys);
  return rc;
}

typedef struct key_list {
  char **keys;
  size_t count;
} key_list;

static int read_keys(const char *path, key_list *out) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  size_t capacity = 0;
  char line[1024];
  *out = (key_list){0};
  while (fgets(line, sizeof(line), f) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#') continue;
    if (out->count == capacity) {
      capacity = capacity ? capacity * 2 : 1024;
      char **grown = realloc(out->keys, capacity * sizeof(char *));
      if (grown == NULL) break;
      out->keys = grown;
    }
    char *key = strdup(line);
    if (key == NULL) break;
    out->keys[out->count++] = key;
  }
  fclose(f);
  /* An empty list has no array: qsort and bsearch take none. */
  if (out->count > 0) qsort(out->keys, out->count, sizeof(char *), compare_strings);
  return 0;
}

static bool listed(const key_list *list, const char *key) {
  return key != NULL && list->count > 0 &&
         bsearch(&key, list->keys, list->count, sizeof(char *), compare_strings) != NULL;
}

static const char *const status_names[] = {"passed", "failed", "unsupported", "skipped"};

long cts_baseline_check(cts_report *r, const char *path, FILE *out) {
  key_list list;
  if (read_keys(path, &list) != 0) {
    fprintf(out, "baseline: cannot read %s\n", path);
    return -1;
  }
  long regressed = 0, unlisted = 0;
  for (size_t i = 0; i < r->case_count; ++i) {
    cts_entry *e = &r->cases[i];
    char *key = case_key(r, e);
    bool in_list = listed(&list, key);
    if (in_list && e->status != CTS_PASSED) {
      fprintf(out, "REGRESSED %s: listed as passing in the baseline, %s now\n", key,
              status_names[e->status]);
      if (e->status != CTS_FAILED)
        cts_report_set(r, e->file, e->index, CTS_FAILED, "", "listed in the baseline, did not pass");
      regressed++;
    } else if (!in_list && e->status == CTS_PASSED) {
      fprintf(out, "NEW PASS %s\n", key);
      unlisted++;
    }
    free(key);
  }
  if (unlisted > 0)
    fprintf(out, "baseline: %ld cases pass that %s does not list: add them (vknn-cts --write-baseline)\n",
            unlisted, path);
  fprintf(out, "baseline: %ld listed cases did not pass\n", regressed);
  for (size_t i = 0; i < list.count; ++i) free(list.keys[i]);
  free(list.keys);
  return regressed;
}
