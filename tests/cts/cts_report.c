#include "cts_report.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vknn/vknn.h"

#define NO_RESULT "no result"

static void *grow(void *items, size_t *capacity, size_t count, size_t size) {
  if (count < *capacity) return items;
  *capacity = *capacity ? *capacity * 2 : 256;
  void *p = realloc(items, *capacity * size);
  if (p == NULL) abort();
  return p;
}

static char *dup(const char *text) {
  char *copy = strdup(text ? text : "");
  if (copy == NULL) abort();
  return copy;
}

static void free_entry(cts_entry *e) {
  free(e->name);
  free(e->failed_modes);
  free(e->reason);
}

cts_report *cts_report_create(void) {
  cts_report *r = calloc(1, sizeof(*r));
  if (r == NULL) abort();
  return r;
}

void cts_report_destroy(cts_report *r) {
  for (size_t i = 0; i < r->file_count; ++i) free(r->files[i]);
  for (size_t i = 0; i < r->case_count; ++i) free_entry(&r->cases[i]);
  free(r->files);
  free(r->cases);
  free(r);
}

size_t cts_report_add_file(cts_report *r, const char *path) {
  r->files = grow(r->files, &r->file_capacity, r->file_count, sizeof(char *));
  r->files[r->file_count] = dup(path);
  return r->file_count++;
}

void cts_report_add_case(cts_report *r, size_t file, int index, const char *name,
                         const uint64_t operations[2]) {
  r->cases = grow(r->cases, &r->case_capacity, r->case_count, sizeof(cts_entry));
  cts_entry *e = &r->cases[r->case_count++];
  *e = (cts_entry){.name = dup(name), .file = file, .index = index, .status = CTS_FAILED,
                   .failed_modes = dup(""), .reason = dup(NO_RESULT)};
  memcpy(e->operations, operations, sizeof(e->operations));
}

void cts_report_add_failure(cts_report *r, const char *path, const char *reason) {
  const uint64_t none[2] = {0, 0};
  size_t file = cts_report_add_file(r, path);
  cts_report_add_case(r, file, -1, path, none);
  cts_report_set(r, file, -1, CTS_FAILED, "", reason);
}

void cts_report_add_broken_file(cts_report *r, const char *path) {
  cts_report_add_failure(r, path, "the data file cannot be parsed");
}

void cts_report_add_missing(cts_report *r) { r->missing_paths++; }

bool cts_report_file_has_cases(const cts_report *r, size_t file) {
  for (size_t i = 0; i < r->case_count; ++i)
    if (r->cases[i].file == file && r->cases[i].index >= 0) return true;
  return false;
}

/* Where case index of file is in r->cases; case_count when it is not. */
static size_t position_of(const cts_report *r, size_t file, int index) {
  size_t i = 0;
  while (i < r->case_count && !(r->cases[i].file == file && r->cases[i].index == index)) ++i;
  return i;
}

bool cts_report_has_case(const cts_report *r, size_t file, int index) {
  return position_of(r, file, index) < r->case_count;
}

static const cts_report *ordering; /* qsort's context */

static int by_path_and_index(const void *a, const void *b) {
  const cts_entry *x = *(const cts_entry *const *)a, *y = *(const cts_entry *const *)b;
  int c = strcmp(ordering->files[x->file], ordering->files[y->file]);
  return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* Marks the cases to keep in keep[] (by position in r->cases). */
static void mark_spread(const cts_report *r, int stride, bool *keep) {
  cts_entry **order = malloc(r->case_count * sizeof(*order));
  if (order == NULL) abort();
  for (size_t i = 0; i < r->case_count; ++i) order[i] = &r->cases[i];
  ordering = r;
  qsort(order, r->case_count, sizeof(*order), by_path_and_index);
  uint64_t covered[2] = {0, 0};
  for (size_t i = 0; i < r->case_count; ++i) {
    const cts_entry *e = order[i];
    bool new_operation = (e->operations[0] & ~covered[0]) != 0 || (e->operations[1] & ~covered[1]) != 0;
    /* A broken file's failure (index -1) is no case to sample away. */
    if (e->index >= 0 && i % (size_t)stride != 0 && !new_operation) continue;
    keep[e - r->cases] = true;
    covered[0] |= e->operations[0];
    covered[1] |= e->operations[1];
  }
  free(order);
}

void cts_report_spread(cts_report *r, int stride) {
  if (stride <= 1 || r->case_count == 0) return;
  bool *keep = calloc(r->case_count, sizeof(bool));
  if (keep == NULL) abort();
  mark_spread(r, stride, keep);
  size_t kept = 0;
  for (size_t i = 0; i < r->case_count; ++i) {
    if (keep[i]) r->cases[kept++] = r->cases[i];
    else free_entry(&r->cases[i]);
  }
  r->case_count = kept;
  free(keep);
}

static cts_entry *find(cts_report *r, size_t file, int index) {
  size_t i = position_of(r, file, index);
  return i < r->case_count ? &r->cases[i] : NULL;
}

void cts_report_set_seconds(cts_report *r, size_t file, int index, double seconds) {
  cts_entry *e = find(r, file, index);
  if (e != NULL) e->seconds = seconds;
}

void cts_report_set(cts_report *r, size_t file, int index, cts_status status,
                    const char *failed_modes, const char *reason) {
  cts_entry *e = find(r, file, index);
  if (e == NULL) return;
  e->status = status;
  free(e->failed_modes);
  free(e->reason);
  e->failed_modes = dup(failed_modes);
  e->reason = dup(reason);
}

void cts_report_fail_rest(cts_report *r, size_t file, int index, const char *reason) {
  for (size_t i = 0; i < r->case_count; ++i) {
    cts_entry *e = &r->cases[i];
    if (e->file == file && e->index >= index && strcmp(e->reason, NO_RESULT) == 0)
      cts_report_set(r, file, e->index, CTS_FAILED, "", reason);
  }
}

static size_t count_status(const cts_report *r, cts_status status) {
  size_t n = 0;
  for (size_t i = 0; i < r->case_count; ++i) n += r->cases[i].status == status;
  return n;
}

size_t cts_report_failed(const cts_report *r) { return count_status(r, CTS_FAILED); }

static void print_operation_table(const cts_report *r, FILE *out) {
  fprintf(out, "%-34s %7s %7s %7s %11s\n", "operation", "cases", "passed", "failed", "unsupported");
  for (int type = 0; type < 128; ++type) {
    const char *name = vknn_operation_type_name(type);
    size_t counts[4] = {0}, total = 0;
    for (size_t i = 0; i < r->case_count && name; ++i) {
      const cts_entry *e = &r->cases[i];
      if (!(e->operations[type / 64] & (1ull << (type % 64)))) continue;
      counts[e->status]++;
      total++;
    }
    if (total > 0)
      fprintf(out, "%-34s %7zu %7zu %7zu %11zu\n", name, total, counts[CTS_PASSED],
              counts[CTS_FAILED], counts[CTS_UNSUPPORTED]);
  }
}

void cts_report_print(const cts_report *r, FILE *out) {
  print_operation_table(r, out);
  for (size_t i = 0; i < r->case_count; ++i) {
    const cts_entry *e = &r->cases[i];
    if (e->status == CTS_FAILED)
      fprintf(out, "FAILED %s (%s) [%s]: %s\n", e->name, r->files[e->file], e->failed_modes, e->reason);
  }
  size_t unsupported = count_status(r, CTS_UNSUPPORTED);
  size_t skipped = count_status(r, CTS_SKIPPED) + r->missing_paths;
  fprintf(out, "cases: %zu, unsupported: %zu, skipped: %zu\n", r->case_count, unsupported, skipped);
  /* Unsupported cases did not pass: the closing line counts them as skipped. */
  fprintf(out, "%zu passed, %zu failed, %zu skipped\n", count_status(r, CTS_PASSED),
          count_status(r, CTS_FAILED), unsupported + skipped);
}

static const char *status_name(cts_status s) {
  static const char *const names[] = {"passed", "failed", "unsupported", "skipped"};
  return names[s];
}

int cts_report_write_json(const cts_report *r, const char *path) {
  cJSON *root = cJSON_CreateObject();
  cJSON *summary = cJSON_AddObjectToObject(root, "summary");
  cJSON_AddNumberToObject(summary, "total", (double)r->case_count);
  cJSON_AddNumberToObject(summary, "passed", (double)count_status(r, CTS_PASSED));
  cJSON_AddNumberToObject(summary, "failed", (double)count_status(r, CTS_FAILED));
  cJSON_AddNumberToObject(summary, "unsupported", (double)count_status(r, CTS_UNSUPPORTED));
  cJSON_AddNumberToObject(summary, "skipped", (double)(count_status(r, CTS_SKIPPED) + r->missing_paths));
  cJSON *cases = cJSON_AddArrayToObject(root, "cases");
  for (size_t i = 0; i < r->case_count; ++i) {
    const cts_entry *e = &r->cases[i];
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", e->name);
    cJSON_AddStringToObject(item, "file", r->files[e->file]);
    cJSON_AddStringToObject(item, "status", status_name(e->status));
    cJSON *modes = cJSON_AddArrayToObject(item, "failed_modes");
    char buffer[128];
    snprintf(buffer, sizeof(buffer), "%s", e->failed_modes);
    for (char *tok = strtok(buffer, ","); tok; tok = strtok(NULL, ","))
      cJSON_AddItemToArray(modes, cJSON_CreateString(tok));
    cJSON_AddStringToObject(item, "reason", e->reason);
    cJSON_AddNumberToObject(item, "seconds", e->seconds);
    cJSON_AddItemToArray(cases, item);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  FILE *f = fopen(path, "w");
  int rc = (f != NULL && text != NULL && fputs(text, f) >= 0) ? 0 : -1;
  if (f != NULL && fclose(f) != 0) rc = -1;
  free(text);
  return rc;
}
