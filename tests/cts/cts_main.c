/* vknn-cts: runs the NNAPI conformance cases through the driver.
 *
 *   vknn-cts [--modes LIST] [--filter GLOB] [--sample N] [--spread N] [--jobs N] [--timeout S]
 *            [--json FILE]
 *            [--baseline FILE] [--write-baseline FILE] PATH...
 *
 * Cases run in worker processes, one data file at a time, so a crash or a
 * hang costs one case, not the run: the case in flight is marked failed and a
 * new worker carries on after it. */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cts_case.h"
#include "cts_compare.h"
#include "cts_baseline.h"
#include "cts_report.h"
#include "cts_run.h"
#include "device_flags.h"

typedef struct options {
  unsigned modes;
  const char *filter;
  int sample; /* run every sample-th case of each file (1: all) */
  int spread; /* then keep every spread-th case of the run (cts_report_spread) */
  int jobs;
  int timeout_s;
  const char *json_path;
  const char *baseline_path;       /* --baseline: cases that must pass */
  const char *write_baseline_path; /* --write-baseline: where to list the passing cases */
} options;

typedef struct worker_slot {
  pid_t pid;
  int fd;
  size_t file;
  int in_flight; /* case index within the file, -1 when none */
  double started; /* when the case in flight started */
  double deadline;
  char buffer[4096];
  size_t used;
} worker_slot;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* By name (--filter) and by sampling (--sample: every N-th case of a file,
 * by index). The collector selects; workers run what its report lists. */
static bool selected(const options *opt, const cJSON *test, int index) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(test, "name");
  if (opt->sample > 1 && index % opt->sample != 0) return false;
  return opt->filter == NULL || (cJSON_IsString(name) && fnmatch(opt->filter, name->valuestring, 0) == 0);
}

/* ---- worker process ------------------------------------------------------ */

static void worker_write(int fd, const char *line) {
  size_t len = strlen(line);
  while (len > 0) {
    ssize_t n = write(fd, line, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    line += n;
    len -= (size_t)n;
  }
}

static void sanitize(char *text) {
  for (; *text; ++text)
    if (*text == '\t' || *text == '\n') *text = ' ';
}

/* For the runner's own tests: VKNN_CTS_FAULT=crash:NAME or hang:NAME makes
 * the worker crash or hang on the case NAME. */
static void inject_fault(const cJSON *test) {
  const char *fault = getenv("VKNN_CTS_FAULT");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(test, "name");
  if (fault == NULL || !cJSON_IsString(name)) return;
  const char *colon = strchr(fault, ':');
  if (colon == NULL || strcmp(colon + 1, name->valuestring) != 0) return;
  if (strncmp(fault, "crash", 5) == 0) raise(SIGSEGV);
  while (strncmp(fault, "hang", 4) == 0) pause();
}

static void worker_main(const options *opt, const cts_report *report, size_t file, int start, int fd) {
  cJSON *root = cts_parse_file(report->files[file]);
  cts_worker worker;
  char line[1024];
  if (root == NULL || cts_worker_open(&worker) != VKNN_STATUS_NONE) {
    snprintf(line, sizeof(line), "E\t%s\n", root ? "cannot open a Vulkan device" : "cannot parse the file");
    worker_write(fd, line);
    _exit(2);
  }
  const cJSON *tests = cJSON_GetObjectItemCaseSensitive(root, "tests");
  int index = 0;
  const cJSON *test;
  cJSON_ArrayForEach(test, tests) {
    if (index >= start && cts_report_has_case(report, file, index)) {
      snprintf(line, sizeof(line), "S\t%d\n", index);
      worker_write(fd, line);
      inject_fault(test);
      cts_result result;
      cts_run_case(&worker, test, opt->modes, &result);
      sanitize(result.reason);
      snprintf(line, sizeof(line), "R\t%d\t%d\t%s\t%s\n", index, (int)result.status,
               result.failed_modes, result.reason);
      worker_write(fd, line);
    }
    index++;
  }
  cts_worker_close(&worker);
  cJSON_Delete(root);
  exit(0); /* not _exit: LeakSanitizer checks the worker at exit */
}

/* ---- scheduling ---------------------------------------------------------- */

typedef struct job {
  size_t file;
  int start;
} job;

typedef struct scheduler {
  const options *opt;
  cts_report *report;
  job *queue;
  size_t queue_head, queue_count, queue_capacity;
} scheduler;

static void push_job(scheduler *s, size_t file, int start) {
  if (s->queue_count == s->queue_capacity) {
    s->queue_capacity = s->queue_capacity ? s->queue_capacity * 2 : 64;
    s->queue = realloc(s->queue, s->queue_capacity * sizeof(job));
    if (s->queue == NULL) abort();
  }
  s->queue[s->queue_count++] = (job){file, start};
}

static bool spawn(scheduler *s, worker_slot *w) {
  job j = s->queue[s->queue_head++];
  int fds[2];
  if (pipe(fds) != 0) return false;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    worker_main(s->opt, s->report, j.file, j.start, fds[1]);
  }
  close(fds[1]);
  *w = (worker_slot){.pid = pid, .fd = fds[0], .file = j.file, .in_flight = -1,
                     .deadline = now_seconds() + s->opt->timeout_s};
  return pid > 0;
}

static void handle_line(scheduler *s, worker_slot *w, char *line) {
  /* strsep keeps empty fields (an empty list of failed modes). */
  char *fields[5] = {0}, *rest = line;
  int n = 0;
  while (rest != NULL && n < 5) fields[n++] = strsep(&rest, "\t");
  if (n >= 2 && line[0] == 'S') {
    w->in_flight = atoi(fields[1]);
    w->started = now_seconds();
    w->deadline = w->started + s->opt->timeout_s;
  } else if (n >= 3 && line[0] == 'R') {
    cts_report_set(s->report, w->file, atoi(fields[1]), (cts_status)atoi(fields[2]),
                   n >= 4 ? fields[3] : "", n >= 5 ? fields[4] : "");
    cts_report_set_seconds(s->report, w->file, atoi(fields[1]), now_seconds() - w->started);
    w->in_flight = -1;
  } else if (n >= 2 && line[0] == 'E') {
    cts_report_fail_rest(s->report, w->file, 0, fields[1]);
  }
}

static void drain(scheduler *s, worker_slot *w) {
  ssize_t got = read(w->fd, w->buffer + w->used, sizeof(w->buffer) - 1 - w->used);
  if (got <= 0) {
    close(w->fd);
    w->fd = -1;
    return;
  }
  w->used += (size_t)got;
  w->buffer[w->used] = '\0';
  char *start = w->buffer, *nl;
  while ((nl = strchr(start, '\n')) != NULL) {
    *nl = '\0';
    handle_line(s, w, start);
    start = nl + 1;
  }
  w->used = strlen(start);
  memmove(w->buffer, start, w->used + 1);
}

/* A worker ended or was killed: the case in flight failed; go on after it. */
static void reap(scheduler *s, worker_slot *w, const char *why) {
  int status = 0;
  waitpid(w->pid, &status, 0);
  if (w->in_flight >= 0) {
    char reason[128];
    if (why != NULL) snprintf(reason, sizeof(reason), "%s", why);
    else if (WIFSIGNALED(status)) snprintf(reason, sizeof(reason), "crashed (signal %d)", WTERMSIG(status));
    else snprintf(reason, sizeof(reason), "worker exited (status %d)", WEXITSTATUS(status));
    cts_report_set(s->report, w->file, w->in_flight, CTS_FAILED, "", reason);
    push_job(s, w->file, w->in_flight + 1);
  } else if (why == NULL && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    /* Every case reported, then the worker failed: a leak report or a
     * crash at exit (sanitizer builds). It counts as a failure of the file. */
    char reason[128];
    snprintf(reason, sizeof(reason), "worker failed after its cases (status %d)", status);
    cts_report_add_failure(s->report, s->report->files[w->file], reason);
  }
  if (w->fd >= 0) close(w->fd);
  w->pid = 0;
}

static void run_all(scheduler *s) {
  int jobs = s->opt->jobs;
  worker_slot *slots = calloc((size_t)jobs, sizeof(worker_slot));
  struct pollfd *pfds = calloc((size_t)jobs, sizeof(struct pollfd));
  int active = 0;
  for (;;) {
    for (int i = 0; i < jobs; ++i)
      if (slots[i].pid == 0 && s->queue_head < s->queue_count && spawn(s, &slots[i])) active++;
    if (active == 0) break;
    for (int i = 0; i < jobs; ++i) pfds[i] = (struct pollfd){.fd = slots[i].pid ? slots[i].fd : -1, .events = POLLIN};
    poll(pfds, (nfds_t)jobs, 500);
    double now = now_seconds();
    for (int i = 0; i < jobs; ++i) {
      worker_slot *w = &slots[i];
      if (w->pid == 0) continue;
      if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) drain(s, w);
      if (w->fd < 0) {
        reap(s, w, NULL);
        active--;
      } else if (w->in_flight >= 0 && now > w->deadline) {
        kill(w->pid, SIGKILL);
        char why[64];
        snprintf(why, sizeof(why), "timed out after %d s", s->opt->timeout_s);
        reap(s, w, why);
        active--;
      }
    }
  }
  free(slots);
  free(pfds);
}

/* ---- set-up -------------------------------------------------------------- */

static cts_report *collecting;
static const options *collecting_options;

static int collect_file(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  size_t len = strlen(path);
  if (flag != FTW_F || len < 5 || strcmp(path + len - 5, ".json") != 0) return 0;
  cJSON *root = cts_parse_file(path);
  if (root == NULL) {
    fprintf(stderr, "vknn-cts: cannot parse %s\n", path);
    cts_report_add_broken_file(collecting, path);
    return 0;
  }
  size_t file = cts_report_add_file(collecting, path);
  int index = 0;
  const cJSON *test;
  cJSON_ArrayForEach(test, cJSON_GetObjectItemCaseSensitive(root, "tests")) {
    if (selected(collecting_options, test, index)) {
      uint64_t mask[2];
      cts_case_operation_mask(test, mask);
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(test, "name");
      cts_report_add_case(collecting, file, index, cJSON_IsString(name) ? name->valuestring : "?", mask);
    }
    index++;
  }
  cJSON_Delete(root);
  return 0;
}

static int parse_modes(const char *list, unsigned *out) {
  char buffer[256];
  snprintf(buffer, sizeof(buffer), "%s", list);
  *out = 0;
  for (char *tok = strtok(buffer, ","); tok; tok = strtok(NULL, ",")) {
    int mode = cts_mode_from_name(tok);
    if (mode < 0) {
      fprintf(stderr, "vknn-cts: unknown mode '%s'\n", tok);
      return -1;
    }
    if (!cts_mode_implemented((cts_mode)mode)) {
      fprintf(stderr, "vknn-cts: mode '%s' is not implemented yet\n", tok);
      return -1;
    }
    *out |= 1u << mode;
  }
  return *out ? 0 : -1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: vknn-cts [--modes LIST] [--filter GLOB] [--sample N] [--spread N] [--jobs N] [--timeout S]\n"
          "                [--json FILE]\n"
          "                [--quant-tolerance STEPS] [--baseline FILE] [--write-baseline FILE]\n"
          "                DEVICE OPTIONS\n"
          "                [--loop-timeout MS] [PATH...]\n"
          "  --sample: every N-th case of each file\n"
          "  --spread: every N-th case of the whole run (files in path order), and the first case\n"
          "            of each operation no such case has\n"
          "  --baseline: every case FILE lists must pass (when selected); unlisted passes are printed\n"
          "  --write-baseline: list the passing cases in FILE\n"
          "  --quant-tolerance: allowed error of quantized outputs (0: bit-exact)\n"
          "  DEVICE OPTIONS, of every worker's device (vknn/device.h: vknn_device_options):\n"
          "  %s\n"
          "  --loop-timeout: the loop timeout of every execution (default: the driver's, 2 s)\n"
          "  PATH: a data file or a folder searched recursively (default: %s)\n",
          DEVICE_FLAGS_USAGE, VKNN_CTS_DATA);
}

static int parse_args(int argc, char **argv, options *opt, int *first_path) {
  *opt = (options){.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), .timeout_s = 120, .sample = 1, .spread = 1};
  const char *modes = "sync";
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; ++i) {
    const char *arg = argv[i];
    if (i + 1 >= argc) return usage(), -1;
    if (strcmp(arg, "--modes") == 0) modes = argv[++i];
    else if (strcmp(arg, "--filter") == 0) opt->filter = argv[++i];
    else if (strcmp(arg, "--jobs") == 0) opt->jobs = atoi(argv[++i]);
    else if (strcmp(arg, "--timeout") == 0) opt->timeout_s = atoi(argv[++i]);
    else if (strcmp(arg, "--json") == 0) opt->json_path = argv[++i];
    else if (strcmp(arg, "--baseline") == 0) opt->baseline_path = argv[++i];
    else if (strcmp(arg, "--write-baseline") == 0) opt->write_baseline_path = argv[++i];
    else if (strcmp(arg, "--sample") == 0) opt->sample = atoi(argv[++i]);
    else if (strcmp(arg, "--spread") == 0) opt->spread = atoi(argv[++i]);
    else if (strcmp(arg, "--quant-tolerance") == 0) cts_compare_set_quant_tolerance(atoi(argv[++i]));
    else if (strcmp(arg, "--loop-timeout") == 0) {
      int ms = atoi(argv[++i]);
      if (ms < 1) return usage(), -1;
      cts_set_loop_timeout_ms((uint32_t)ms);
    }
    else {
      int flag = device_flag_parse(arg, argv[++i], cts_device_options());
      if (flag != 0) return usage(), -1;
    }
  }
  if (opt->jobs < 1 || opt->timeout_s < 1 || opt->sample < 1 || opt->spread < 1) return usage(), -1;
  *first_path = i;
  return parse_modes(modes, &opt->modes);
}

int main(int argc, char **argv) {
  options opt;
  int first_path;
  if (parse_args(argc, argv, &opt, &first_path) != 0) return 2;
  cts_report *report = cts_report_create();
  collecting = report;
  collecting_options = &opt;
  char *default_path[] = {(char *)VKNN_CTS_DATA};
  char **paths = first_path < argc ? argv + first_path : default_path;
  int path_count = first_path < argc ? argc - first_path : 1;
  for (int i = 0; i < path_count; ++i) {
    if (access(paths[i], R_OK) != 0) {
      printf("vknn-cts: no conformance data at %s: skipped\n", paths[i]);
      cts_report_add_missing(report);
      continue;
    }
    nftw(paths[i], collect_file, 16, FTW_PHYS);
  }
  /* Parsing every file left the heap large and full of freed chunks, which
   * each forked worker would inherit: its first allocations would walk them,
   * copying the parent's pages one fault at a time. Hand them back first. */
  cts_report_spread(report, opt.spread);
  malloc_trim(0);
  scheduler s = {.opt = &opt, .report = report};
  for (size_t f = 0; f < report->file_count; ++f)
    if (cts_report_file_has_cases(report, f)) push_job(&s, f, 0);
  run_all(&s);
  free(s.queue);
  int rc = 0;
  if (opt.baseline_path && cts_baseline_check(report, opt.baseline_path, stdout) < 0) rc = 2;
  if (opt.write_baseline_path && cts_baseline_write(report, opt.write_baseline_path) != 0) {
    fprintf(stderr, "vknn-cts: cannot write %s\n", opt.write_baseline_path);
    rc = 2;
  }
  cts_report_print(report, stdout);
  if (opt.json_path && cts_report_write_json(report, opt.json_path) != 0) rc = 2;
  if (cts_report_failed(report) > 0) rc = 1;
  cts_report_destroy(report);
  return rc;
}
