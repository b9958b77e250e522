/*
 * The NNAPI C API on vknn: the objects behind the NDK's opaque handles, and
 * what the object files share. One object per file: device (ndk_device.c),
 * model (ndk_model.c, flattened into a vknn_model by ndk_flatten.c),
 * compilation, execution (its request built by ndk_request.c), memory and
 * memory descriptor, event, burst; ndk_util.c holds logging, allocation and
 * the mapping of vknn statuses to NDK result codes.
 */
#ifndef VKNN_NDK_H
#define VKNN_NDK_H

#include <pthread.h>
#include <stdatomic.h>

#include "android/NeuralNetworks.h"
#include "vknn/vknn.h"
#include "vknn_ndk.h"
#include "vknn_sl.h"

/* The feature level this library implements: Android 11 (API level 30). */
#define NDK_FEATURE_LEVEL 30

/* ---- util ---------------------------------------------------------------- */

/* Logs an error of an API call: "<function>: <message>". */
void ndk_log_error(const char *function, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Sends a line to the client's log callback, or stderr. */
void ndk_log_line(vknn_log_level level, const char *tag, const char *message);
int ndk_result_of(vknn_status status);
/* Zeroed memory; NULL when out of memory (logged). */
void *ndk_alloc(size_t size);
void ndk_free(void *p);
/* Grows *array to hold at least needed elements. 0, or -1 when out of memory. */
int ndk_reserve(void **array, uint32_t *capacity, uint32_t needed, size_t element_size);
uint64_t ndk_now_boottime_ns(void);
/* Now plus a timeout, UINT64_MAX where that would pass it (a timeout that
 * large never ends; a wrapped sum would be in the past). */
uint64_t ndk_deadline_after(uint64_t duration_ns);
/* A new identity for burst memory slots (never reused). */
int32_t ndk_next_slot(void);
/* Bytes of one element of an operand type (an extension's from the device's
 * description); 0 for an unknown type. */
size_t ndk_element_size(int32_t type);
bool ndk_type_is_scalar(int32_t type);
/* The bytes a type's known dimensions make (unknown ones, 0, left out) stay
 * within uint32 (the NNAPI runtime's rule, for operands and for the types
 * given with execution arguments alike). */
bool ndk_type_size_fits(const ANeuralNetworksOperandType *t);
/* vknn locates values by 32-bit offsets and lengths (the HAL's DataLocation). */
#define NDK_MAX_LOCATION UINT32_MAX

/* Returns code, logged as an error of function, unless cond holds. */
#define NDK_REQUIRE_IN(function, cond, code, ...) \
  do {                                            \
    if (!(cond)) {                                \
      ndk_log_error(function, __VA_ARGS__);       \
      return (code);                              \
    }                                             \
  } while (0)
#define NDK_REQUIRE(cond, code, ...) NDK_REQUIRE_IN(__func__, cond, code, __VA_ARGS__)
#define NDK_NOT_NULL(p) NDK_REQUIRE((p) != NULL, ANEURALNETWORKS_UNEXPECTED_NULL, "%s is NULL", #p)

/* ---- device -------------------------------------------------------------- */

/* The most extensions the library gives types to. */
#define NDK_MAX_EXTENSIONS 8

struct ANeuralNetworksDevice {
  vknn_device *vk;
  const char *name;
  const char *version;
  vknn_device_type type;
  /* The device's extensions (getSupportedExtensions), and their prefixes:
   * extension i has prefix i + 1 in every model of the library, as the NNAPI
   * runtime's types of an extension are the same process-wide. */
  const vknn_extension *extensions;
  uint32_t extension_count;
  vknn_extension_prefix prefixes[NDK_MAX_EXTENSIONS];
};
/* The device, opened on first use. UNAVAILABLE_DEVICE when it cannot be. */
int ndk_device_get(ANeuralNetworksDevice **out);
/* Counts a prepared model or a buffer of the device (closed at unload only
 * when none is left). */
void ndk_device_hold(void);
void ndk_device_drop(void);
/* Extension types: the prefix of a supported extension (BAD_DATA, logged
 * as function's, when the device does not support it); the facts of an
 * extension operand type (NULL when its extension or code is unknown);
 * whether an operation type's prefix belongs to a supported extension; the
 * table every flattened model carries. */
int ndk_extension_prefix(const char *function, const char *name, uint16_t *out_prefix);
const vknn_extension_operand_type *ndk_extension_operand_info(int32_t type);
bool ndk_extension_operation_known(int32_t type);
void ndk_extension_table(const vknn_extension_prefix **out_table, uint32_t *out_count);
/* The devices argument of createForDevices and getSupportedOperationsForDevices. */
int ndk_device_check_list(const char *function, const ANeuralNetworksDevice *const *devices,
                          uint32_t count);

/* ---- memory -------------------------------------------------------------- */

typedef struct ndk_role {
  /* Valid while the descriptor lives (the compilation must outlive it);
   * a memory made from it keeps the role by the id alone. */
  const ANeuralNetworksCompilation *compilation;
  uint64_t compilation_id;
  uint32_t index;
  float frequency;
  bool is_input;
} ndk_role;

struct ANeuralNetworksMemoryDesc {
  ndk_role *roles;
  uint32_t role_count, role_capacity;
  uint32_t rank; /* dimensions from setDimensions and the roles combined */
  uint32_t dimensions[VKNN_MAX_RANK];
  bool rank_known;
  bool finished;
};

/* What a value's bytes mean: its operand's type, quantization, and
 * per-channel or extension parameters (NNAPI's extraParams). Memories from
 * a descriptor keep their roles' own copy. */
typedef struct ndk_value_type {
  int32_t type;
  float scale;
  int32_t zero_point;
  const float *scales; /* per-channel quantization */
  uint32_t scale_count;
  uint32_t channel_dim;
  const uint8_t *extension_data;
  size_t extension_size;
} ndk_value_type;
bool ndk_value_type_equal(const ndk_value_type *a, const ndk_value_type *b);

typedef enum ndk_memory_kind {
  NDK_MEMORY_FD = 0,     /* shared memory of the client: a file descriptor */
  NDK_MEMORY_DEVICE = 1, /* a driver-managed buffer (createFromDesc) */
} ndk_memory_kind;

struct ANeuralNetworksMemory {
  ndk_memory_kind kind;
  int32_t slot; /* its identity in bursts */
  size_t size;  /* FD: bytes from offset */
  int fd;
  int32_t ints[3];
  vknn_memory vk; /* FD: "mmap_fd" over fd, ints */
  vknn_buffer *buffer;
  uint32_t token;
  ndk_role *roles; /* DEVICE: the descriptor's roles, their compilations cleared (by id only) */
  uint32_t role_count;
  ndk_value_type value_type; /* DEVICE: the roles' (its parameters in params) */
  void *params;
  uint32_t rank; /* DEVICE: the descriptor's dimensions (0: unknown) */
  uint32_t dimensions[VKNN_MAX_RANK];
};
bool ndk_memory_has_role(const ANeuralNetworksMemory *memory,
                         const ANeuralNetworksCompilation *compilation, uint32_t index,
                         bool is_input);
/* Role checks shared by the descriptor: the compilation's io operand. */
const struct ndk_operand *ndk_compilation_io_operand(const ANeuralNetworksCompilation *c,
                                                     uint32_t index, bool is_input);

/* ---- model --------------------------------------------------------------- */

typedef enum ndk_value_kind {
  NDK_VALUE_NONE = 0,    /* no value: a temporary, an input or an output */
  NDK_VALUE_COPY,        /* copied into the model (up to 128 bytes) */
  NDK_VALUE_POINTER,     /* the client's buffer, read at compilation */
  NDK_VALUE_MEMORY,      /* a range of an ANeuralNetworksMemory */
  NDK_VALUE_OMITTED,     /* setOperandValue(NULL, 0): an omitted optional */
  NDK_VALUE_MODEL,       /* a referenced model (IF and WHILE bodies) */
} ndk_value_kind;

typedef struct ndk_operand {
  int32_t type;
  uint32_t rank;
  uint32_t *dimensions;
  float scale;
  int32_t zero_point;
  ndk_value_kind value;
  size_t offset; /* COPY: in model->values; MEMORY: in memory */
  size_t length;
  const void *pointer;
  const ANeuralNetworksMemory *memory;
  const ANeuralNetworksModel *model;
  float *scales; /* per-channel quantization */
  uint32_t scale_count;
  uint32_t channel_dim;
  uint8_t *extension_data;
  size_t extension_size;
  bool is_input, is_output;
} ndk_operand;

typedef struct ndk_operation {
  int32_t type;
  uint32_t *inputs;
  uint32_t input_count;
  uint32_t *outputs;
  uint32_t output_count;
} ndk_operation;

struct ANeuralNetworksModel {
  ndk_operand *operands;
  uint32_t operand_count, operand_capacity;
  ndk_operation *operations; /* in run order once finished */
  uint32_t operation_count, operation_capacity;
  uint32_t *added_index; /* once finished: per operation, its place in the order added */
  uint32_t *inputs, *outputs;
  uint32_t input_count, output_count;
  bool io_identified;
  uint8_t *values; /* small values, copied */
  uint32_t values_size, values_capacity;
  bool relaxed;
  bool finished;
  bool invalid; /* a finish failed: every later change or finish is BAD_STATE */
};

/* A model and every model it references, as one vknn_model. */
typedef struct ndk_flat_model {
  vknn_model model;
  void **allocations;
  uint32_t allocation_count, allocation_capacity;
} ndk_flat_model;
int ndk_flatten(const ANeuralNetworksModel *main, ndk_flat_model *out);
/* One operation of a model being built, alone in a model of its own (for its
 * signature rules as it is added): its operands, each once, the model's
 * inputs (omitted ones without a value) and outputs; no values are copied,
 * as they may come later. */
int ndk_flatten_operation(const ANeuralNetworksModel *model, const ndk_operation *op, ndk_flat_model *out);
void ndk_flat_model_free(ndk_flat_model *flat);

/* ---- compilation --------------------------------------------------------- */

struct ANeuralNetworksCompilation {
  uint64_t id; /* never reused: memories name their roles' compilations by it */
  const ANeuralNetworksModel *model;
  ANeuralNetworksDevice *device;
  bool explicit_device; /* createForDevices with this one device */
  int32_t preference;
  int priority;
  bool has_timeout;
  uint64_t timeout_ns;
  char *cache_dir;
  int cache_fds[2]; /* model and data cache files given as descriptors (Support Library), or -1 */
  uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN];
  bool finished;
  vknn_prepared_model *prepared;
};

/* The alignment and padding the library asks of io buffers: its scratch pool
 * lays pointer arguments out at this alignment. */
#define NDK_ARGUMENT_ALIGNMENT 64

int ndk_compilation_set_caching_from_fds(ANeuralNetworksCompilation *compilation, const int *model_fds,
                                         uint32_t model_count, const int *data_fds, uint32_t data_count,
                                         const uint8_t *token);

/* ---- request (the memory an execution hands to vknn) --------------------- */

typedef enum ndk_argument_kind {
  NDK_ARGUMENT_UNSET = 0,
  NDK_ARGUMENT_POINTER,
  NDK_ARGUMENT_MEMORY,
  NDK_ARGUMENT_OMITTED,
} ndk_argument_kind;

typedef struct ndk_argument {
  ndk_argument_kind kind;
  void *buffer; /* POINTER (inputs are only read) */
  size_t length;
  const ANeuralNetworksMemory *memory;
  size_t offset;
  uint32_t rank; /* from the type given with the argument; 0: the model's */
  uint32_t dimensions[VKNN_MAX_RANK];
} ndk_argument;

/* Pointer arguments travel through a shared memory pool of the library. */
typedef struct ndk_scratch {
  int fd;
  uint8_t *data;
  size_t size;
  int32_t slot;
} ndk_scratch;
void ndk_scratch_release(ndk_scratch *scratch);

typedef struct ndk_request {
  vknn_request request;
  vknn_request_argument *arguments; /* inputs, then outputs */
  vknn_request_pool *pools;
  int32_t *slots; /* one per pool, for bursts */
  size_t *scratch_offsets; /* per argument: where a POINTER argument lives */
  ndk_scratch own_scratch;
  ndk_scratch *scratch; /* own_scratch or a burst's */
} ndk_request;
/* Lays the arguments out; pointer inputs are copied into the scratch pool. */
int ndk_request_build(ndk_request *r, const ndk_argument *inputs, uint32_t input_count,
                      const ndk_argument *outputs, uint32_t output_count, ndk_scratch *scratch);
/* Copies pointer outputs back from the scratch pool. */
void ndk_request_copy_outputs(const ndk_request *r, const ndk_argument *outputs,
                              uint32_t input_count, uint32_t output_count);
void ndk_request_release(ndk_request *r);

/* ---- execution ----------------------------------------------------------- */

typedef enum ndk_execution_state {
  NDK_EXECUTION_PREPARATION = 0,
  NDK_EXECUTION_COMPUTING,
  NDK_EXECUTION_COMPLETED,
} ndk_execution_state;

struct ANeuralNetworksExecution {
  ANeuralNetworksCompilation *compilation;
  ndk_argument *inputs, *outputs;
  uint32_t input_count, output_count;
  bool measure;
  bool reusable; /* feature level 5: computes again once completed */
  bool padding;  /* feature level 5: io lengths may exceed the values' sizes */
  bool has_timeout;
  uint64_t timeout_ns;
  uint64_t loop_timeout_ns;
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  ndk_execution_state state;
  bool completing; /* a waiter of a fenced computation is taking its outcome */
  int result;
  vknn_output_shape *shapes;
  vknn_timing timing, fenced_timing;
  ndk_request request;
  vknn_fenced_execution *fenced; /* startComputeWithDependencies */
  int fence_fd;
  ANeuralNetworksEvent *event; /* the event of an asynchronous computation */
  uint32_t event_waiters; /* threads waiting through an event (ndk_event.c's link lock) */
};
/* Waits for an asynchronous computation; its result. */
int ndk_execution_wait(ANeuralNetworksExecution *execution);
/* A dup of the sync fence of a fenced computation, or -1. */
int ndk_execution_dup_fence(const ANeuralNetworksExecution *execution);

/* ---- event --------------------------------------------------------------- */

struct ANeuralNetworksEvent {
  ANeuralNetworksExecution *execution; /* NULL once it is freed or for a plain fence */
  bool of_computation; /* the event of a computation, not a plain fence */
  /* Its sync fence, or -1: the client's (createFromSyncFenceFd) or the
   * fenced computation's own copy, which outlives the execution. */
  int fd;
  int result; /* the execution's result once it is freed */
};
ANeuralNetworksEvent *ndk_event_for_execution(ANeuralNetworksExecution *execution);
/* Ends the link between an execution and its event (the event keeps
 * result); with wait_for_waiters, returns only once no thread waits for the
 * execution through an event any more (the execution may go then). */
void ndk_event_detach(ANeuralNetworksExecution *execution, int result, bool wait_for_waiters);

/* ---- burst --------------------------------------------------------------- */

struct ANeuralNetworksBurst {
  ANeuralNetworksCompilation *compilation;
  vknn_burst *vk;
  ndk_scratch scratch;
  atomic_bool busy;
  /* Slots of memories freed since the burst last computed: dropped before
   * its next computation (a slot is never reused, so the wait is safe). */
  pthread_mutex_t forget_lock;
  int32_t *forget;
  uint32_t forget_count, forget_capacity;
};
/* A memory is freed: every live burst is told to drop its mapping of the
 * slot, without waiting for a computation it runs. */
void ndk_burst_forget_slot(int32_t slot);
/* Drops the mappings of the slots freed since; the burst is the caller's. */
void ndk_burst_drop_forgotten(ANeuralNetworksBurst *burst);

#endif /* VKNN_NDK_H */
