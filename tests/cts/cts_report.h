/* Results of a conformance run: per case, per operation, and as JSON. */
#pragma once
#include <stdint.h>
#include <stdio.h>

#include "cts_run.h"

typedef struct cts_entry {
  char *name;
  size_t file;
  int index; /* within its file */
  uint64_t operations[2]; /* bit = operation type */
  cts_status status;
  char *failed_modes;
  char *reason;
  double seconds; /* wall time of the case in its worker, every mode */
} cts_entry;

typedef struct cts_report {
  char **files;
  size_t file_count, file_capacity;
  cts_entry *cases;
  size_t case_count, case_capacity;
  size_t missing_paths;
} cts_report;

cts_report *cts_report_create(void);
void cts_report_destroy(cts_report *report);

size_t cts_report_add_file(cts_report *report, const char *path);
/* A data file that cannot be parsed counts as one failed case. */
void cts_report_add_broken_file(cts_report *report, const char *path);
/* A failure outside any case (a worker failing at exit), named by its file. */
void cts_report_add_failure(cts_report *report, const char *path, const char *reason);
/* A data path that does not exist counts as skipped, never as passed. */
void cts_report_add_missing(cts_report *report);
/* A selected case; it counts as failed ("no result") until a result is set. */
void cts_report_add_case(cts_report *report, size_t file, int index, const char *name,
                         const uint64_t operations[2]);
bool cts_report_file_has_cases(const cts_report *report, size_t file);
/* Whether case index of file is selected (the workers run only these). */
bool cts_report_has_case(const cts_report *report, size_t file, int index);
/* Keeps every stride-th selected case of the whole run, counted in the order
 * of file paths and indices, and the first case in that order of each
 * operation no kept case has: a sample across files (sampling within each
 * file still runs every file's first case) that every operation is in. */
void cts_report_spread(cts_report *report, int stride);

void cts_report_set(cts_report *report, size_t file, int index, cts_status status,
                    const char *failed_modes, const char *reason);
void cts_report_set_seconds(cts_report *report, size_t file, int index, double seconds);
/* Every case of a file from index on that has no result yet fails with reason. */
void cts_report_fail_rest(cts_report *report, size_t file, int index, const char *reason);

size_t cts_report_failed(const cts_report *report);
/* The per-operation table, the failures, and "N passed, N failed, N skipped". */
void cts_report_print(const cts_report *report, FILE *out);
int cts_report_write_json(const cts_report *report, const char *path);
