/* libFuzzer target: the NNAPI C API of libneuralnetworks.so (hal_glue/ndk)
 * and the driver beneath it, driven by a script.
 *
 * Input: a model in the byte form of fuzz_model_bytes.h, then u8 L and L
 * script bytes, then value bytes (inputs and the io memory are filled from
 * them, repeated). The script's first byte holds the build flags:
 *   bit 0   relaxComputationFloat32toFloat16 after the operations, not first
 *   bit 1   constants of more than 128 bytes from a memfd memory, not by pointer
 *   bit 2   no identifyInputsAndOutputs
 *   bits 3-4 the constants' memory (CONSTANT_REFERENCE operands, a memfd):
 *           PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE
 *   bit 5   each model call once with a NULL argument first
 *   bit 6   the io memory starts 4096 bytes into its memfd
 *   bit 7   the operations added last first (finish sorts them)
 * The model is built through ANeuralNetworksModel_* from those bytes (values
 * up to 128 bytes copied, larger ones by pointer or from memory, per-channel
 * scales, inputs and outputs) and is not finished: each further script byte
 * is an operation of fuzz_ndk_script.h (the byte modulo FUZZ_NDK_OP_COUNT),
 * which reads its arguments from the bytes after it (0 once they run out).
 * Operations on an empty slot are skipped, unless the call takes NULL.
 *
 * Bounds per input: at most 64 operands and 32 operations (larger models are
 * left to fuzz_prepare), 3 compilation finishes, 6 executions created, 6
 * computations started, arguments of at most 1 MiB each. What the input
 * holds at the end is freed in a valid order (events, executions, bursts,
 * device memories, compilations, the model, the fd memories); the harness
 * never passes a freed handle. Loop timeouts are 0, 1 us, 1 ms or past the
 * maximum (taken as the maximum; the byte form has no WHILE). The device is
 * the library's own (opened on first use, closed at exit once nothing of it
 * is left, before the leak check). The cache key file and setCaching's
 * folder are in /tmp/fuzz_ndk-UID/PID, removed at exit (a crashed run's by
 * the next run); the folder is emptied after each input that cached. The
 * Vulkan validation layer is on (VKNN_VALIDATION=0 turns it off): a line of
 * it aborts the run, and so does a rule of the NDK broken (EXPECT: a call
 * out of order that is not BAD_STATE, a NULL that is not UNEXPECTED_NULL, a
 * handle without NO_ERROR). FUZZ_NDK_LOG=1 prints the library's error lines. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "android/NeuralNetworks.h"
#include "fuzz_model_bytes.h"
#include "fuzz_ndk_script.h"
#include "vknn/extensions/fibonacci.h"
#include "vknn_ndk.h"
#include "vknn_sl.h" /* feature level 5: reusable executions, padding, preferred alignments */

#define OK ANEURALNETWORKS_NO_ERROR
#define MAX_MODEL_OPERANDS 64
#define MAX_MODEL_OPERATIONS 32
#define MAX_OPERANDS (MAX_MODEL_OPERANDS + 16) /* room for the script's addOperand */
#define MAX_FINISHES 3
#define MAX_EXECUTIONS 6
#define MAX_COMPUTES 6
#define MAX_EVENTS 8
#define MAX_BUFFERS 64
#define MAX_ARGUMENT_BYTES (1u << 20)
#define IO_POOL_BYTES (256u << 10)
#define IO_OFFSET 4096u
#define MEMORIES 6 /* io, read-only io, device memory 0 and 1, constants, output 0's size */

/* ---- the device and its log ---------------------------------------------- */

/* FUZZ_NDK_LOG=1 prints the library's error lines (to see what an input does). */
static bool print_log;

static void on_log(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data;
  if (strcmp(tag, "validation-layer") == 0) {
    fprintf(stderr, "fuzz_ndk: validation layer: %s\n", message);
    abort();
  }
  if (print_log && level == VKNN_LOG_ERROR) fprintf(stderr, "fuzz_ndk: %s: %s\n", tag, message);
}

static ANeuralNetworksDevice *device;
/* The run's folder, /tmp/fuzz_ndk-UID/PID: cache.key, caches (setCaching's
 * folder, emptied after every input that used it); missing/caches is never
 * made. */
static char folder[64], key_file[96], cache_dir[96], missing_dir[96];

static void empty_folder(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) return;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;)
    if (entry->d_name[0] != '.') unlinkat(dirfd(dir), entry->d_name, 0);
  closedir(dir);
}

static void remove_cache_files(void) { empty_folder(cache_dir); }

/* A run's folder: its caches, then its key file. */
static void remove_run_folder(const char *path) {
  char caches[96];
  snprintf(caches, sizeof(caches), "%s/caches", path);
  empty_folder(caches);
  rmdir(caches);
  empty_folder(path);
  rmdir(path);
}

static void remove_folder(void) { remove_run_folder(folder); }

/* The folders of runs that ended without their atexit handlers (a crash). */
static void remove_stale_folders(const char *base) {
  DIR *dir = opendir(base);
  if (dir == NULL) return;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (entry->d_name[0] == '.' || *end != '\0' || pid <= 0) continue;
    /* Signal 0 sends nothing: it asks whether the process exists. A folder
     * of this process's id is from an earlier process of that id. */
    bool gone = pid == getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
    if (!gone) continue;
    char path[96];
    snprintf(path, sizeof(path), "%s/%s", base, entry->d_name);
    remove_run_folder(path);
  }
  closedir(dir);
}

/* The cache key file in a folder of the run, not in the user's folder. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char base[48];
  snprintf(base, sizeof(base), "/tmp/fuzz_ndk-%u", (unsigned)getuid());
  if (mkdir(base, 0700) != 0 && errno != EEXIST) {
    perror("fuzz_ndk: mkdir");
    abort();
  }
  remove_stale_folders(base);
  snprintf(folder, sizeof(folder), "%s/%d", base, (int)getpid());
  snprintf(key_file, sizeof(key_file), "%s/cache.key", folder);
  snprintf(cache_dir, sizeof(cache_dir), "%s/caches", folder);
  snprintf(missing_dir, sizeof(missing_dir), "%s/missing/caches", folder);
  if (mkdir(folder, 0700) != 0 || mkdir(cache_dir, 0700) != 0) {
    perror("fuzz_ndk: mkdir");
    abort();
  }
  atexit(remove_folder);
  setenv("VKNN_CACHE_KEY_FILE", key_file, 1);
  /* The validation layer watches every input (as in the unit tests), unless
   * VKNN_VALIDATION says otherwise. */
  setenv("VKNN_VALIDATION", "1", 0);
  print_log = getenv("FUZZ_NDK_LOG") != NULL && strcmp(getenv("FUZZ_NDK_LOG"), "1") == 0;
  vknn_ndk_set_log_callback(on_log, NULL);
  if (ANeuralNetworks_getDevice(0, &device) != OK) {
    fprintf(stderr, "fuzz_ndk: no NNAPI device\n");
    abort();
  }
  return 0;
}

/* A rule of the NDK the library broke: reported as a crash. */
#define EXPECT(cond, what)                                                           \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "fuzz_ndk: %s (%s:%d)\n", what, __FILE__, __LINE__);           \
      abort();                                                                       \
    }                                                                                \
  } while (0)

/* ---- the input's objects --------------------------------------------------- */

typedef struct operand {
  int32_t type;
  uint32_t rank;
  uint32_t dims[FUZZ_MAX_RANK];
  float scale;
  int32_t zero_point;
} operand;

typedef struct state {
  const fuzz_model *m;
  const uint8_t *script, *values;
  size_t script_size, pos, value_size, value_pos;
  uint8_t flags;
  /* The model as the harness knows it (the finished model's inputs and
   * outputs size the arguments). */
  ANeuralNetworksModel *model;
  operand operands[MAX_OPERANDS];
  uint32_t operand_count, operation_count;
  uint32_t inputs[FUZZ_MAX_OPERANDS], outputs[FUZZ_MAX_OPERANDS];
  uint32_t input_count, output_count;
  bool model_finished;
  /* memories: io, read-only io, device 0 and 1, constants, one of output
   * 0's size (at the start of the io memory, for copies from and to device
   * memories) */
  ANeuralNetworksMemory *memories[MEMORIES];
  ANeuralNetworksMemory *large_values;
  shared_memory large_pool, io_pool;
  size_t io_size;
  ANeuralNetworksCompilation *compilations[FUZZ_NDK_COMPILATIONS];
  bool compilation_finished[FUZZ_NDK_COMPILATIONS];
  ANeuralNetworksBurst *bursts[FUZZ_NDK_COMPILATIONS];
  ANeuralNetworksExecution *executions[FUZZ_NDK_EXECUTIONS];
  int execution_compilation[FUZZ_NDK_EXECUTIONS];
  /* started: a computation was accepted (NO_ERROR); reusable: setReusable(true) was */
  bool started[FUZZ_NDK_EXECUTIONS], reusable[FUZZ_NDK_EXECUTIONS];
  ANeuralNetworksEvent *events[MAX_EVENTS];
  uint32_t event_count;
  void *buffers[MAX_BUFFERS]; /* pointer arguments: kept until the executions are freed */
  uint32_t buffer_count;
  int finishes_left, executions_left, computes_left;
  bool cached; /* setCaching named the cache folder */
} state;

static uint8_t next(state *st) { return st->pos < st->script_size ? st->script[st->pos++] : 0; }

static void fill(state *st, uint8_t *dst, size_t n) {
  if (st->value_size == 0) {
    memset(dst, 0, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    dst[i] = st->values[st->value_pos];
    st->value_pos = (st->value_pos + 1) % st->value_size;
  }
}

static size_t element_size(int32_t type) {
  switch (type) {
    case ANEURALNETWORKS_FLOAT32: case ANEURALNETWORKS_INT32: case ANEURALNETWORKS_UINT32:
    case ANEURALNETWORKS_TENSOR_FLOAT32: case ANEURALNETWORKS_TENSOR_INT32:
      return 4;
    case ANEURALNETWORKS_FLOAT16: case ANEURALNETWORKS_TENSOR_FLOAT16:
    case ANEURALNETWORKS_TENSOR_QUANT16_SYMM: case ANEURALNETWORKS_TENSOR_QUANT16_ASYMM:
      return 2;
    default: return 1;
  }
}

static bool is_scalar(int32_t type) {
  return type == ANEURALNETWORKS_FLOAT32 || type == ANEURALNETWORKS_INT32 || type == ANEURALNETWORKS_UINT32 ||
         type == ANEURALNETWORKS_BOOL || type == ANEURALNETWORKS_FLOAT16;
}

/* ---- the model --------------------------------------------------------------- */

static int add_operand(state *st, const operand *o) {
  ANeuralNetworksOperandType t = {o->type, o->rank, o->rank ? o->dims : NULL, o->scale, o->zero_point};
  int r = ANeuralNetworksModel_addOperand(st->model, &t);
  if (r == OK && st->operand_count < MAX_OPERANDS) st->operands[st->operand_count++] = *o;
  return r;
}

/* A memfd memory holding a copy of bytes. */
static ANeuralNetworksMemory *memory_of(shared_memory *pool, const uint8_t *bytes, size_t size, int protect) {
  ANeuralNetworksMemory *memory = NULL;
  if (size == 0 || shared_memory_create(pool, size) != 0) return NULL;
  memcpy(pool->data, bytes, size);
  ANeuralNetworksMemory_createFromFd(size, protect, pool->fd, 0, &memory);
  return memory;
}

static void set_value(state *st, uint32_t i) {
  const fuzz_model *m = st->m;
  const vknn_operand *o = &m->operands[i];
  const vknn_data_location *at = &o->location;
  switch (o->lifetime) {
    case VKNN_LIFETIME_CONSTANT_COPY:
      if (at->length > ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES && st->large_values != NULL)
        ANeuralNetworksModel_setOperandValueFromMemory(st->model, (int32_t)i, st->large_values, at->offset,
                                                       at->length);
      else /* copied, or read from m->values (alive until the end) at compilation */
        ANeuralNetworksModel_setOperandValue(st->model, (int32_t)i, m->values + at->offset, at->length);
      break;
    case VKNN_LIFETIME_CONSTANT_REFERENCE:
      ANeuralNetworksModel_setOperandValueFromMemory(st->model, (int32_t)i, st->memories[4], at->offset, at->length);
      break;
    case VKNN_LIFETIME_NO_VALUE: ANeuralNetworksModel_setOperandValue(st->model, (int32_t)i, NULL, 0); break;
    default: break; /* inputs, outputs, temporaries; SUBGRAPH: the byte form has no referenced models */
  }
  if (o->extra_params.kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT) {
    ANeuralNetworksSymmPerChannelQuantParams q = {o->extra_params.channel_quant.channel_dim,
                                                 o->extra_params.channel_quant.scale_count,
                                                 o->extra_params.channel_quant.scales};
    ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(st->model, (int32_t)i, &q);
  }
}

static void null_model_calls(state *st) {
  static const uint32_t none[1];
  EXPECT(ANeuralNetworksModel_create(NULL) == ANEURALNETWORKS_UNEXPECTED_NULL, "Model_create(NULL)");
  EXPECT(ANeuralNetworksModel_addOperand(st->model, NULL) == ANEURALNETWORKS_UNEXPECTED_NULL, "addOperand(NULL)");
  EXPECT(ANeuralNetworksModel_setOperandValue(st->model, 0, NULL, 4) == ANEURALNETWORKS_UNEXPECTED_NULL,
         "setOperandValue(NULL, 4)");
  EXPECT(ANeuralNetworksModel_addOperation(st->model, ANEURALNETWORKS_ADD, 1, NULL, 1, none) ==
             ANEURALNETWORKS_UNEXPECTED_NULL, "addOperation(NULL inputs)");
  EXPECT(ANeuralNetworksModel_identifyInputsAndOutputs(st->model, 0, none, 0, NULL) ==
             ANEURALNETWORKS_UNEXPECTED_NULL, "identifyInputsAndOutputs(NULL outputs)");
  EXPECT(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(st->model, 0, NULL) ==
             ANEURALNETWORKS_UNEXPECTED_NULL, "setOperandSymmPerChannelQuantParams(NULL)");
  EXPECT(ANeuralNetworksModel_finish(NULL) == ANEURALNETWORKS_UNEXPECTED_NULL, "finish(NULL)");
}

static const int protections[4] = {PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_WRITE};

/* The decoded model through the C API, unfinished. */
static bool build_model(state *st) {
  const fuzz_model *m = st->m;
  const vknn_subgraph *sg = &m->model.main;
  if (ANeuralNetworksModel_create(&st->model) != OK) return false;
  if (st->flags & 0x20) null_model_calls(st);
  bool relax = m->model.relax_computation_float32_to_float16;
  if (!(st->flags & 1)) ANeuralNetworksModel_relaxComputationFloat32toFloat16(st->model, relax);
  if (m->constant_pool.data != NULL)
    ANeuralNetworksMemory_createFromFd(m->constant_pool.size, protections[(st->flags >> 3) & 3],
                                       m->constant_pool.fd, 0, &st->memories[4]);
  if (st->flags & 2) st->large_values = memory_of(&st->large_pool, m->values, m->values_size, PROT_READ);
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    const vknn_operand *o = &sg->operands[i];
    operand op = {.type = o->type, .rank = o->dimension_count, .scale = o->scale, .zero_point = o->zero_point};
    memcpy(op.dims, o->dimensions, o->dimension_count * sizeof(uint32_t));
    add_operand(st, &op);
  }
  for (uint32_t i = 0; i < sg->operand_count; ++i) set_value(st, i);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[st->flags & 0x80 ? sg->operation_count - 1 - k : k];
    if (ANeuralNetworksModel_addOperation(st->model, op->type, op->input_count, op->inputs, op->output_count,
                                          op->outputs) == OK)
      st->operation_count++;
  }
  if (!(st->flags & 4) &&
      ANeuralNetworksModel_identifyInputsAndOutputs(st->model, sg->input_count, sg->input_indexes,
                                                    sg->output_count, sg->output_indexes) == OK) {
    st->input_count = sg->input_count;
    st->output_count = sg->output_count;
    memcpy(st->inputs, sg->input_indexes, sg->input_count * sizeof(uint32_t));
    memcpy(st->outputs, sg->output_indexes, sg->output_count * sizeof(uint32_t));
  }
  if (st->flags & 1) ANeuralNetworksModel_relaxComputationFloat32toFloat16(st->model, relax);
  return true;
}

/* FUZZ_NDK_MODEL_CHANGE */
static void change_model(state *st) {
  uint8_t which = next(st), arg = next(st);
  ANeuralNetworksModel *model = st->model;
  bool finished = st->model_finished;
  int32_t index = st->operand_count ? (int32_t)(arg % st->operand_count) : 0;
  int r = ANEURALNETWORKS_BAD_STATE; /* what a call skipped counts as */
  switch (which % 10) {
    case 0: {
      static const int32_t types[4] = {ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_INT32,
                                       ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, ANEURALNETWORKS_TENSOR_INT32};
      operand o = {.type = types[arg & 3], .rank = is_scalar(types[arg & 3]) ? 0 : 1, .dims = {arg >> 2}};
      if (o.type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM) o.scale = 0.5f;
      r = add_operand(st, &o);
      break;
    }
    case 1: {
      static const int32_t four[1] = {1}; /* a value of 4 bytes, or none */
      r = ANeuralNetworksModel_setOperandValue(model, index, arg & 0x80 ? NULL : four, arg & 0x80 ? 0 : 4);
      break;
    }
    case 2: {
      uint32_t in[2] = {(uint32_t)index, (uint32_t)index}, out[1] = {st->operand_count ? st->operand_count - 1 : 0};
      r = ANeuralNetworksModel_addOperation(model, arg % 4 == 3 ? 100000 : arg % 4, 1 + (arg >> 7), in, 1, out);
      if (r == OK) st->operation_count++;
      break;
    }
    case 3: { /* the same lists, or output 0 as an input too */
      uint32_t in[FUZZ_MAX_OPERANDS + 1];
      uint32_t n = st->input_count;
      memcpy(in, st->inputs, n * sizeof(uint32_t));
      if ((arg & 1) && st->output_count && n < FUZZ_MAX_OPERANDS) in[n++] = st->outputs[0];
      r = ANeuralNetworksModel_identifyInputsAndOutputs(model, n, in, st->output_count, st->outputs);
      if (r == OK) st->input_count = n, memcpy(st->inputs, in, n * sizeof(uint32_t));
      break;
    }
    case 4: r = ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, arg & 1); break;
    case 5: {
      float scales[4] = {0.5f, 0.25f, arg & 0x80 ? 0.f : 1.f, 2.f};
      ANeuralNetworksSymmPerChannelQuantParams q = {arg & 3, (arg >> 2) & 7, scales};
      if (q.scaleCount > 4) q.scaleCount = 4;
      r = ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, index, &q);
      break;
    }
    case 6: { /* an extension operand: the query changes nothing, the operand added does */
      int32_t type = 0;
      const char *name = arg & 1 ? "no.such.extension" : VKNN_FIBONACCI_EXTENSION_NAME;
      if (ANeuralNetworksModel_getExtensionOperandType(model, name, arg >> 1, &type) != OK) break;
      operand o = {.type = type, .rank = 1, .dims = {1}};
      r = add_operand(st, &o);
      break;
    }
    case 7: { /* a value from a memory, out of its range when arg says */
      ANeuralNetworksMemory *memory = st->memories[arg % MEMORIES];
      if (memory != NULL)
        r = ANeuralNetworksModel_setOperandValueFromMemory(model, index, memory, arg & 0x80 ? SIZE_MAX - 3 : 0, 4);
      break;
    }
    case 8: { /* an extension operand's parameters, or none */
      static const uint8_t data[16] = {1, 2, 3, 4};
      r = ANeuralNetworksModel_setOperandExtensionData(model, index, arg & 0x80 ? NULL : data,
                                                       arg & 0x80 ? 0 : arg & 15);
      break;
    }
    default: { /* an extension operation on the first operand, into the last */
      ANeuralNetworksOperationType type = 0;
      /* The query changes nothing (a finished model answers it too): the
       * operation added with its answer is the change. */
      if (ANeuralNetworksModel_getExtensionOperationType(
              model, arg & 1 ? "no.such.extension" : VKNN_FIBONACCI_EXTENSION_NAME, arg >> 1, &type) != OK)
        break;
      uint32_t in[1] = {0}, out[1] = {st->operand_count ? st->operand_count - 1 : 0};
      r = ANeuralNetworksModel_addOperation(model, type, 1, in, 1, out);
      if (r == OK) st->operation_count++;
      break;
    }
  }
  if (finished) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "a finished model changed");
}

/* ---- compilations --------------------------------------------------------------- */

static void create_compilation(state *st) {
  uint8_t how = next(st);
  int slot = how & 1;
  if (st->compilations[slot] != NULL) return;
  const ANeuralNetworksDevice *twice[2] = {device, device};
  ANeuralNetworksCompilation *c = NULL;
  int r;
  switch ((how >> 1) & 3) {
    case 0: r = ANeuralNetworksCompilation_create(st->model, &c); break;
    case 1: r = ANeuralNetworksCompilation_createForDevices(st->model, twice, 1, &c); break;
    case 2:
      r = ANeuralNetworksCompilation_createForDevices(st->model, twice, 2, &c);
      EXPECT(r == ANEURALNETWORKS_BAD_DATA, "createForDevices took a device twice");
      break;
    default:
      r = ANeuralNetworksCompilation_createForDevices(st->model, NULL, 1, &c);
      EXPECT(r == ANEURALNETWORKS_UNEXPECTED_NULL, "createForDevices took no device list");
      break;
  }
  EXPECT((r == OK) == (c != NULL), "a compilation without NO_ERROR, or none with it");
  if (r == OK) EXPECT(st->model_finished, "a compilation of an unfinished model");
  st->compilations[slot] = c;
  st->compilation_finished[slot] = false;
}

static void set_compilation(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_COMPILATIONS, which = next(st), value = next(st);
  ANeuralNetworksCompilation *c = st->compilations[slot];
  static const int32_t preferences[5] = {ANEURALNETWORKS_PREFER_LOW_POWER, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER,
                                         ANEURALNETWORKS_PREFER_SUSTAINED_SPEED, 3, -1};
  static const int priorities[5] = {ANEURALNETWORKS_PRIORITY_LOW, ANEURALNETWORKS_PRIORITY_MEDIUM,
                                    ANEURALNETWORKS_PRIORITY_HIGH, 0, 95};
  static const uint64_t timeouts[4] = {0, 1, 1000000, 10000000000ull};
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
  memset(token, value, sizeof(token));
  int r;
  switch (which % 5) {
    case 0: r = ANeuralNetworksCompilation_setPreference(c, preferences[value % 5]); break;
    case 1: r = ANeuralNetworksCompilation_setPriority(c, priorities[value % 5]); break;
    case 2: r = ANeuralNetworksCompilation_setTimeout(c, timeouts[value % 4]); break;
    case 3:
      r = ANeuralNetworksCompilation_setCaching(c, value & 0x80 ? missing_dir : cache_dir, token);
      st->cached = st->cached || !(value & 0x80);
      break;
    default: r = ANeuralNetworksCompilation_setCaching(c, NULL, token); break;
  }
  if (c == NULL || which % 5 == 4) EXPECT(r == ANEURALNETWORKS_UNEXPECTED_NULL, "a compilation setter took NULL");
  else if (st->compilation_finished[slot]) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "a finished compilation changed");
}

static void finish_compilation(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_COMPILATIONS;
  ANeuralNetworksCompilation *c = st->compilations[slot];
  if (c == NULL || (!st->compilation_finished[slot] && st->finishes_left == 0)) return;
  if (!st->compilation_finished[slot]) st->finishes_left--;
  int r = ANeuralNetworksCompilation_finish(c);
  if (st->compilation_finished[slot]) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "a compilation finished twice");
  st->compilation_finished[slot] = true;
}

static void query_compilation(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_COMPILATIONS, which = next(st);
  const ANeuralNetworksCompilation *c = st->compilations[slot];
  uint32_t value = 0, index = which >> 2;
  switch (which & 3) {
    case 0: ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(c, index, &value); break;
    case 1: ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(c, index, &value); break;
    case 2: ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(c, index, &value); break;
    default:
      ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(c, index, which & 0x80 ? NULL : &value);
      break;
  }
}

static void free_compilation(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_COMPILATIONS;
  for (int e = 0; e < FUZZ_NDK_EXECUTIONS; ++e)
    if (st->executions[e] != NULL && st->execution_compilation[e] == slot) return;
  ANeuralNetworksBurst_free(st->bursts[slot]);
  st->bursts[slot] = NULL;
  ANeuralNetworksCompilation_free(st->compilations[slot]);
  st->compilations[slot] = NULL;
}

/* ---- executions --------------------------------------------------------------- */

static void create_execution(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, compilation = next(st) % FUZZ_NDK_COMPILATIONS;
  if (st->executions[slot] != NULL || st->executions_left == 0) return;
  st->executions_left--;
  ANeuralNetworksExecution *e = NULL;
  int r = ANeuralNetworksExecution_create(st->compilations[compilation], &e);
  EXPECT((r == OK) == (e != NULL), "an execution without NO_ERROR, or none with it");
  st->executions[slot] = e;
  st->execution_compilation[slot] = compilation;
  st->started[slot] = st->reusable[slot] = false;
}

static void io_memories(state *st) {
  if (st->io_pool.data != NULL || shared_memory_create(&st->io_pool, IO_POOL_BYTES) != 0) return;
  fill(st, st->io_pool.data, IO_POOL_BYTES);
  size_t offset = st->flags & 0x40 ? IO_OFFSET : 0;
  st->io_size = IO_POOL_BYTES - offset;
  ANeuralNetworksMemory_createFromFd(st->io_size, PROT_READ | PROT_WRITE, st->io_pool.fd, offset, &st->memories[0]);
  ANeuralNetworksMemory_createFromFd(st->io_size, PROT_READ, st->io_pool.fd, offset, &st->memories[1]);
}

/* Argument i of the execution as kind says; *io_offset: where the next one
 * from the io memory goes. */
static void set_argument(state *st, ANeuralNetworksExecution *e, bool is_input, int32_t i, int kind, bool wrong,
                         bool typed, uint32_t unknown_dim, size_t *io_offset) {
  uint32_t count = is_input ? st->input_count : st->output_count;
  uint32_t index = i >= 0 && (uint32_t)i < count ? (is_input ? st->inputs : st->outputs)[i] : UINT32_MAX;
  const operand *o = index < st->operand_count ? &st->operands[index] : NULL;
  size_t element = o ? element_size(o->type) : 4;
  bool scalar = o && is_scalar(o->type), unknown = false;
  uint32_t rank = o == NULL || scalar ? 0 : o->rank ? o->rank : 1, dims[FUZZ_MAX_RANK];
  uint64_t bytes = element;
  for (uint32_t d = 0; d < rank; ++d) {
    dims[d] = o->rank ? o->dims[d] : 0;
    if (dims[d] == 0) dims[d] = unknown_dim, unknown = true;
    bytes *= dims[d];
    if (bytes > MAX_ARGUMENT_BYTES) return;
  }
  if (o != NULL && !scalar && o->rank == 0) unknown = true;
  if (wrong) bytes = bytes > element ? bytes - element : bytes + element;
  ANeuralNetworksOperandType t = {o ? o->type : 0, rank, rank ? dims : NULL, o ? o->scale : 0.f,
                                  o ? o->zero_point : 0};
  const ANeuralNetworksOperandType *type = o != NULL && (typed || (unknown && is_input)) ? &t : NULL;
  switch (kind % FUZZ_NDK_ARG_KINDS) {
    case FUZZ_NDK_ARG_POINTER: {
      if (st->buffer_count == MAX_BUFFERS) return;
      uint8_t *buffer = malloc(bytes ? bytes : 1);
      if (buffer == NULL) return;
      st->buffers[st->buffer_count++] = buffer;
      if (is_input) {
        fill(st, buffer, bytes);
        ANeuralNetworksExecution_setInput(e, i, type, buffer, bytes);
      } else {
        ANeuralNetworksExecution_setOutput(e, i, type, buffer, bytes);
      }
      break;
    }
    case FUZZ_NDK_ARG_MEMORY:
    case FUZZ_NDK_ARG_READ_ONLY_MEMORY: {
      io_memories(st);
      ANeuralNetworksMemory *memory = st->memories[kind % FUZZ_NDK_ARG_KINDS == FUZZ_NDK_ARG_MEMORY ? 0 : 1];
      if (memory == NULL) return;
      size_t offset = (*io_offset + 63) & ~(size_t)63;
      if (offset + bytes > st->io_size) offset = 0;
      *io_offset = offset + bytes;
      if (is_input) ANeuralNetworksExecution_setInputFromMemory(e, i, type, memory, offset, bytes);
      else ANeuralNetworksExecution_setOutputFromMemory(e, i, type, memory, offset, bytes);
      break;
    }
    case FUZZ_NDK_ARG_DEVICE_MEMORY: {
      ANeuralNetworksMemory *memory = st->memories[2 + ((uint32_t)i & 1)];
      if (memory == NULL) return;
      if (is_input) ANeuralNetworksExecution_setInputFromMemory(e, i, type, memory, 0, 0);
      else ANeuralNetworksExecution_setOutputFromMemory(e, i, type, memory, 0, 0);
      break;
    }
    default:
      if (is_input) ANeuralNetworksExecution_setInput(e, i, NULL, NULL, 0);
      else ANeuralNetworksExecution_setOutput(e, i, NULL, NULL, 0);
      break;
  }
}

static void set_all_arguments(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, how = next(st), shape = next(st);
  ANeuralNetworksExecution *e = st->executions[slot];
  if (e == NULL) return;
  size_t io_offset = 0;
  uint32_t wrong = how & 0x80 ? shape >> 4 : UINT32_MAX, n = st->input_count + st->output_count;
  for (uint32_t k = 0; k < n; ++k) {
    bool is_input = k < st->input_count;
    int32_t i = (int32_t)(is_input ? k : k - st->input_count);
    set_argument(st, e, is_input, i, is_input ? how & 7 : (how >> 3) & 7, k == wrong, how & 0x40, 1 + (shape & 3),
                 &io_offset);
  }
}

static void set_one_argument(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, which = next(st), how = next(st);
  ANeuralNetworksExecution *e = st->executions[slot];
  if (e == NULL) return;
  bool is_input = which & 1;
  uint32_t count = is_input ? st->input_count : st->output_count;
  int32_t index = which >> 1 == 127 ? -1 : (int32_t)((which >> 1) % (count + 1));
  size_t io_offset = (size_t)(which >> 1) * 64;
  set_argument(st, e, is_input, index, how & 7, how & 8, how & 16, 1 + (how >> 5), &io_offset);
}

static void set_execution(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, which = next(st), value = next(st);
  ANeuralNetworksExecution *e = st->executions[slot];
  static const uint64_t timeouts[4] = {0, 1, 1000000, 10000000000ull};
  static const uint64_t loop_timeouts[4] = {0, 1000, 1000000, UINT64_MAX};
  int r;
  switch (which % 5) {
    case 0: ANeuralNetworksExecution_setMeasureTiming(e, value & 1); return;
    case 1: ANeuralNetworksExecution_setTimeout(e, timeouts[value % 4]); return;
    case 2: r = ANeuralNetworksExecution_setLoopTimeout(e, loop_timeouts[value % 4]); break;
    case 3:
      r = ANeuralNetworksExecution_setReusable(e, value & 1);
      if (r == OK) st->reusable[slot] = value & 1;
      break;
    default: r = ANeuralNetworksExecution_enableInputAndOutputPadding(e, value & 1); break;
  }
  if (e != NULL && st->started[slot]) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "an execution changed after it started");
}

static void add_event(state *st, ANeuralNetworksEvent *event) {
  if (event == NULL) return;
  if (st->event_count == MAX_EVENTS) {
    ANeuralNetworksEvent_free(st->events[0]);
    memmove(st->events, st->events + 1, (MAX_EVENTS - 1) * sizeof(*st->events));
    st->event_count--;
  }
  st->events[st->event_count++] = event;
}

static ANeuralNetworksBurst *burst_of(state *st, int slot) {
  if (st->bursts[slot] == NULL && st->compilations[slot] != NULL &&
      ANeuralNetworksBurst_create(st->compilations[slot], &st->bursts[slot]) != OK)
    st->bursts[slot] = NULL;
  return st->bursts[slot];
}

static void compute(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, how = next(st);
  ANeuralNetworksExecution *e = st->executions[slot];
  if (e == NULL || st->computes_left == 0) return;
  st->computes_left--;
  ANeuralNetworksEvent *event = NULL;
  bool again = st->started[slot] && !st->reusable[slot];
  int r;
  switch (how & 3) {
    case 0:
      r = ANeuralNetworksExecution_compute(e);
      if (again) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "an execution computed twice");
      break;
    case 1:
      r = ANeuralNetworksExecution_startCompute(e, &event);
      EXPECT((r == OK) == (event != NULL), "startCompute: an event without NO_ERROR, or none with it");
      if (again) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "an execution computed twice");
      break;
    case 2: {
      uint32_t n = (how >> 2) & 3;
      if (n > st->event_count) n = st->event_count;
      const ANeuralNetworksEvent *dependencies[3];
      for (uint32_t k = 0; k < n; ++k) dependencies[k] = st->events[st->event_count - 1 - k];
      uint64_t duration = how & 0x10 ? 10000000 : 0;
      r = ANeuralNetworksExecution_startComputeWithDependencies(e, dependencies, n, duration, &event);
      EXPECT((r == OK) == (event != NULL), "startComputeWithDependencies: an event without NO_ERROR, or none");
      break;
    }
    default: {
      int compilation = st->execution_compilation[slot];
      r = ANeuralNetworksExecution_burstCompute(e, burst_of(st, how & 4 ? 1 - compilation : compilation));
      break;
    }
  }
  st->started[slot] = st->started[slot] || r == OK;
  if (event != NULL && (how & 0x20)) ANeuralNetworksEvent_wait(event);
  add_event(st, event);
}

static void query_execution(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS, which = next(st), index = next(st);
  ANeuralNetworksExecution *e = st->executions[slot];
  switch (which % 4) {
    case 0: { /* as a client does: the rank, then room for that many dimensions */
      uint32_t rank = 0;
      int r = ANeuralNetworksExecution_getOutputOperandRank(e, index % (st->output_count + 1), &rank);
      if (r != OK && r != ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE) break;
      uint32_t *dims = malloc((rank ? rank : 1) * sizeof(uint32_t));
      if (dims == NULL) break;
      ANeuralNetworksExecution_getOutputOperandDimensions(e, index % (st->output_count + 1), dims);
      free(dims);
      break;
    }
    case 1: {
      uint64_t duration = 0;
      ANeuralNetworksExecution_getDuration(e, index % 5, &duration);
      break;
    }
    case 2: ANeuralNetworksExecution_getOutputOperandRank(e, index, NULL); break;
    default: ANeuralNetworksExecution_getOutputOperandDimensions(e, -1, NULL); break;
  }
}

static void free_execution(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_EXECUTIONS;
  ANeuralNetworksExecution_free(st->executions[slot]);
  st->executions[slot] = NULL;
}

/* ---- events, memories, bursts ------------------------------------------------------ */

static void use_event(state *st) {
  uint8_t which = next(st);
  if ((which >> 4) % 4 == 3 || st->event_count == 0) {
    ANeuralNetworksEvent *event = NULL;
    int r = ANeuralNetworksEvent_createFromSyncFenceFd(which & 1 ? -1 : 0, &event);
    EXPECT(r == ANEURALNETWORKS_BAD_DATA && event == NULL, "an event from a bad sync fence");
    return;
  }
  uint32_t k = which % st->event_count;
  switch ((which >> 4) % 4) {
    case 0: ANeuralNetworksEvent_wait(st->events[k]); break;
    case 1: {
      int fd = -1;
      if (ANeuralNetworksEvent_getSyncFenceFd(st->events[k], &fd) != OK) break;
      ANeuralNetworksEvent *event = NULL;
      ANeuralNetworksEvent_createFromSyncFenceFd(fd, &event);
      close(fd);
      add_event(st, event);
      break;
    }
    default:
      ANeuralNetworksEvent_free(st->events[k]);
      st->events[k] = st->events[--st->event_count];
      break;
  }
}

static uint32_t dimension_of(uint8_t b) {
  static const uint32_t large[4] = {0x10000, 0x7fffffff, 0xffffffff, 0x40000000};
  return b < 0xf0 ? b & 7 : large[b & 3];
}

static void memory_desc(state *st) {
  uint8_t steps = next(st) % 8;
  ANeuralNetworksMemoryDesc *desc = NULL;
  if (ANeuralNetworksMemoryDesc_create(&desc) != OK) return;
  static const float frequencies[6] = {0.5f, 1.f, 0.f, -1.f, 2.f, __builtin_nanf("")};
  for (uint8_t s = 0; s < steps; ++s) {
    uint8_t step = next(st);
    const ANeuralNetworksCompilation *c = st->compilations[(step >> 3) & 1];
    switch ((step & 7) % 6) {
      case 0: ANeuralNetworksMemoryDesc_addInputRole(desc, c, step >> 4, frequencies[next(st) % 6]); break;
      case 1: ANeuralNetworksMemoryDesc_addOutputRole(desc, c, step >> 4, frequencies[next(st) % 6]); break;
      case 2: {
        uint32_t rank = next(st) % (VKNN_MAX_RANK + 2), dims[VKNN_MAX_RANK + 1];
        for (uint32_t d = 0; d < rank; ++d) dims[d] = dimension_of(next(st));
        ANeuralNetworksMemoryDesc_setDimensions(desc, rank, rank ? dims : NULL);
        break;
      }
      case 3: ANeuralNetworksMemoryDesc_finish(desc); break;
      case 4: {
        ANeuralNetworksMemory *memory = NULL;
        int r = ANeuralNetworksMemory_createFromDesc(desc, &memory);
        EXPECT((r == OK) == (memory != NULL), "createFromDesc: a memory without NO_ERROR, or none with it");
        int k = st->memories[2] == NULL ? 2 : st->memories[3] == NULL ? 3 : -1;
        if (k >= 0) st->memories[k] = memory;
        else ANeuralNetworksMemory_free(memory); /* nothing uses it yet */
        break;
      }
      default:
        EXPECT(ANeuralNetworksMemoryDesc_addInputRole(desc, NULL, 0, 1.f) == ANEURALNETWORKS_UNEXPECTED_NULL,
               "addInputRole(NULL)");
        EXPECT(ANeuralNetworksMemoryDesc_setDimensions(desc, 1, NULL) == ANEURALNETWORKS_UNEXPECTED_NULL,
               "setDimensions(NULL)");
        EXPECT(ANeuralNetworksMemory_createFromDesc(NULL, NULL) == ANEURALNETWORKS_UNEXPECTED_NULL,
               "createFromDesc(NULL)");
        break;
    }
  }
  ANeuralNetworksMemoryDesc_free(desc);
}

static uint64_t output_bytes(const state *st, uint32_t i) {
  if (i >= st->output_count || st->outputs[i] >= st->operand_count) return 4;
  const operand *o = &st->operands[st->outputs[i]];
  uint64_t bytes = element_size(o->type);
  for (uint32_t d = 0; d < o->rank && bytes <= IO_POOL_BYTES; ++d) bytes *= o->dims[d] ? o->dims[d] : 1;
  return bytes;
}

static void copy_memory(state *st) {
  uint8_t from = next(st) % MEMORIES, to = next(st) % MEMORIES;
  io_memories(st);
  uint64_t bytes = output_bytes(st, 0);
  if (st->memories[5] == NULL && st->io_pool.data != NULL && bytes <= st->io_size)
    ANeuralNetworksMemory_createFromFd(bytes, PROT_READ | PROT_WRITE, st->io_pool.fd, 0, &st->memories[5]);
  ANeuralNetworksMemory_copy(st->memories[from], st->memories[to]);
}

/* The device queries, with the device or NULL. */
static void query_device(state *st) {
  uint8_t which = next(st);
  const ANeuralNetworksDevice *d = which & 0x80 ? NULL : device;
  ANeuralNetworksDevice *got = NULL;
  const char *text = NULL;
  int32_t type = 0;
  int64_t level = 0;
  uint32_t count = 0;
  bool supported = false;
  int r;
  switch (which % 8) {
    case 0: r = ANeuralNetworks_getDeviceCount(&count); break;
    case 1:
      r = ANeuralNetworks_getDevice((which >> 3) & 1, &got);
      EXPECT(r != OK || got == device, "a second device");
      break;
    case 2: r = ANeuralNetworksDevice_getName(d, &text); break;
    case 3: r = ANeuralNetworksDevice_getType(d, &type); break;
    case 4: r = ANeuralNetworksDevice_getVersion(d, &text); break;
    case 5: r = ANeuralNetworksDevice_getFeatureLevel(d, &level); break;
    case 6: r = ANeuralNetworksDevice_wait(d); break;
    default:
      r = ANeuralNetworksDevice_getExtensionSupport(
          d, which & 8 ? "no.such.extension" : VKNN_FIBONACCI_EXTENSION_NAME, &supported);
      break;
  }
  if (d == NULL && which % 8 >= 2) EXPECT(r == ANEURALNETWORKS_UNEXPECTED_NULL, "a device query took NULL");
  EXPECT(ANeuralNetworks_getDefaultLoopTimeout() <= ANeuralNetworks_getMaximumLoopTimeout(),
         "the default loop timeout is above the maximum");
  (void)st;
}

static void free_burst(state *st) {
  uint8_t slot = next(st) % FUZZ_NDK_COMPILATIONS;
  ANeuralNetworksBurst_free(st->bursts[slot]);
  st->bursts[slot] = NULL;
}

static void run_script(state *st) {
  while (st->pos < st->script_size) {
    switch ((fuzz_ndk_op)(next(st) % FUZZ_NDK_OP_COUNT)) {
      case FUZZ_NDK_MODEL_FINISH: {
        int r = ANeuralNetworksModel_finish(st->model);
        if (st->model_finished) EXPECT(r == ANEURALNETWORKS_BAD_STATE, "a model finished twice");
        st->model_finished = st->model_finished || r == OK;
        break;
      }
      case FUZZ_NDK_MODEL_CHANGE: change_model(st); break;
      case FUZZ_NDK_MODEL_SUPPORT: { /* an answer per operation added */
        bool *supported = malloc(st->operation_count + 1);
        const ANeuralNetworksDevice *devices[1] = {device};
        if (supported != NULL) ANeuralNetworksModel_getSupportedOperationsForDevices(st->model, devices, 1, supported);
        free(supported);
        break;
      }
      case FUZZ_NDK_COMPILATION_CREATE: create_compilation(st); break;
      case FUZZ_NDK_COMPILATION_SET: set_compilation(st); break;
      case FUZZ_NDK_COMPILATION_FINISH: finish_compilation(st); break;
      case FUZZ_NDK_COMPILATION_QUERY: query_compilation(st); break;
      case FUZZ_NDK_COMPILATION_FREE: free_compilation(st); break;
      case FUZZ_NDK_EXECUTION_CREATE: create_execution(st); break;
      case FUZZ_NDK_EXECUTION_SET_ALL: set_all_arguments(st); break;
      case FUZZ_NDK_EXECUTION_SET_ONE: set_one_argument(st); break;
      case FUZZ_NDK_EXECUTION_SET: set_execution(st); break;
      case FUZZ_NDK_EXECUTION_COMPUTE: compute(st); break;
      case FUZZ_NDK_EXECUTION_QUERY: query_execution(st); break;
      case FUZZ_NDK_EXECUTION_FREE: free_execution(st); break;
      case FUZZ_NDK_EVENT: use_event(st); break;
      case FUZZ_NDK_MEMORY_DESC: memory_desc(st); break;
      case FUZZ_NDK_MEMORY_COPY: copy_memory(st); break;
      case FUZZ_NDK_BURST_FREE: free_burst(st); break;
      case FUZZ_NDK_DEVICE: query_device(st); break;
      case FUZZ_NDK_OP_COUNT: break;
    }
  }
}

/* Everything the input made, each after what uses it. */
static void release(state *st) {
  for (uint32_t k = 0; k < st->event_count; ++k) ANeuralNetworksEvent_free(st->events[k]);
  for (int e = 0; e < FUZZ_NDK_EXECUTIONS; ++e) ANeuralNetworksExecution_free(st->executions[e]);
  for (int c = 0; c < FUZZ_NDK_COMPILATIONS; ++c) ANeuralNetworksBurst_free(st->bursts[c]);
  ANeuralNetworksMemory_free(st->memories[2]);
  ANeuralNetworksMemory_free(st->memories[3]);
  for (int c = 0; c < FUZZ_NDK_COMPILATIONS; ++c) ANeuralNetworksCompilation_free(st->compilations[c]);
  ANeuralNetworksModel_free(st->model);
  ANeuralNetworksMemory_free(st->memories[0]);
  ANeuralNetworksMemory_free(st->memories[1]);
  ANeuralNetworksMemory_free(st->memories[4]);
  ANeuralNetworksMemory_free(st->memories[5]);
  ANeuralNetworksMemory_free(st->large_values);
  if (st->large_pool.data != NULL) shared_memory_destroy(&st->large_pool);
  if (st->io_pool.data != NULL) shared_memory_destroy(&st->io_pool);
  for (uint32_t k = 0; k < st->buffer_count; ++k) free(st->buffers[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_model *m = malloc(sizeof(*m));
  state *st = calloc(1, sizeof(*st));
  if (m == NULL || st == NULL || fuzz_model_decode(data, size, m) != 0 ||
      m->model.main.operand_count > MAX_MODEL_OPERANDS ||
      m->model.main.operation_count > MAX_MODEL_OPERATIONS) {
    if (m != NULL) fuzz_model_free(m);
    free(m);
    free(st);
    return 0;
  }
  st->m = m;
  st->large_pool.fd = st->io_pool.fd = -1;
  if (m->input_size > 0) {
    size_t length = m->input_bytes[0], rest = m->input_size - 1;
    if (length > rest) length = rest;
    st->script = m->input_bytes + 1;
    st->script_size = length;
    st->values = st->script + length;
    st->value_size = rest - length;
  }
  st->flags = next(st);
  st->finishes_left = MAX_FINISHES;
  st->executions_left = MAX_EXECUTIONS;
  st->computes_left = MAX_COMPUTES;
  if (build_model(st)) run_script(st);
  release(st);
  fuzz_model_free(m);
  free(m);
  if (st->cached) remove_cache_files();
  free(st);
  return 0;
}
