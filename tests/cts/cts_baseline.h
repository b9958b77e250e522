/* The conformance baseline: every case known to pass, one "DIR/FILE.json:NAME"
 * key a line (tests/cts/baseline.txt). A run checked against it fails each
 * listed case it ran that did not pass, and lists the cases that pass but are
 * not listed, so that a change making cases pass updates the file with it. */
#pragma once
#include <stdio.h>

#include "cts_report.h"

/* Writes the keys of every passing case, sorted. 0 on success. */
int cts_baseline_write(const cts_report *report, const char *path);

/* Marks failed every selected case the baseline lists that did not pass,
 * and prints those and the unlisted passes to out. -1 when the file cannot
 * be read, else the number of cases it failed. */
long cts_baseline_check(cts_report *report, const char *path, FILE *out);
