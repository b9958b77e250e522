/* The script of fuzz_ndk (tests/fuzz/fuzz_ndk.c, whose header describes the
 * input): the operations a script byte names (the byte modulo
 * FUZZ_NDK_OP_COUNT) and the argument bytes each reads after it, and the
 * script fuzz-seeds writes after every conformance model. */
#pragma once

/* Slots of the objects an input may hold at once. */
#define FUZZ_NDK_COMPILATIONS 2
#define FUZZ_NDK_EXECUTIONS 3
#define FUZZ_NDK_DEVICE_MEMORIES 2

typedef enum fuzz_ndk_op {
  /* ANeuralNetworksModel_finish (a second one is BAD_STATE). */
  FUZZ_NDK_MODEL_FINISH = 0,
  /* which, arg: one more model call (an operand, a value, an operation,
   * the inputs and outputs, relax, per-channel scales, an extension
   * operand, a value from a memory, extension data, an extension
   * operation); BAD_STATE once the model is finished. */
  FUZZ_NDK_MODEL_CHANGE,
  /* getSupportedOperationsForDevices. */
  FUZZ_NDK_MODEL_SUPPORT,
  /* how: bit 0 the slot, bits 1-2 create, createForDevices with the
   * device, the device listed twice, no device list. */
  FUZZ_NDK_COMPILATION_CREATE,
  /* slot, which, value: setPreference, setPriority, setTimeout,
   * setCaching (the input's cache folder or one that does not exist),
   * setCaching with NULL. */
  FUZZ_NDK_COMPILATION_SET,
  /* slot: ANeuralNetworksCompilation_finish. */
  FUZZ_NDK_COMPILATION_FINISH,
  /* slot, which: the preferred alignments and paddings of an input or output. */
  FUZZ_NDK_COMPILATION_QUERY,
  /* slot: frees it (with its burst) when no execution uses it. */
  FUZZ_NDK_COMPILATION_FREE,
  /* slot, compilation slot. */
  FUZZ_NDK_EXECUTION_CREATE,
  /* slot, how, fill: every input and output. how: bits 0-2 the inputs'
   * kind, bits 3-5 the outputs' (see FUZZ_NDK_ARG_*), bit 6 the full type
   * given with each, bit 7 one argument's length off by an element
   * (fill's bits 4-7 say which); fill's bits 0-1 are 1 less than each
   * dimension the model leaves unknown. */
  FUZZ_NDK_EXECUTION_SET_ALL,
  /* slot, index (bit 0: input; the rest the index, 127 for -1), how (bits
   * 0-2 the kind, bit 3 a wrong length, bit 4 the full type). */
  FUZZ_NDK_EXECUTION_SET_ONE,
  /* slot, which, value: setMeasureTiming, setTimeout, setLoopTimeout,
   * setReusable, enableInputAndOutputPadding. */
  FUZZ_NDK_EXECUTION_SET,
  /* slot, how: bits 0-1 compute, startCompute, startComputeWithDependencies
   * (bits 2-3 the number of events it depends on, the latest; bit 4 a
   * duration of 10 ms), burstCompute (bit 2: the other compilation's
   * burst); bit 5 waits for the event at once. */
  FUZZ_NDK_EXECUTION_COMPUTE,
  /* slot, which, index: getOutputOperandRank and Dimensions, getDuration,
   * NULL arguments. */
  FUZZ_NDK_EXECUTION_QUERY,
  /* slot: ANeuralNetworksExecution_free (waits for a computation). */
  FUZZ_NDK_EXECUTION_FREE,
  /* which: an event (modulo the events held), bits 4-5 wait, its sync
   * fence made a new event, free, a fence event from a bad descriptor. */
  FUZZ_NDK_EVENT,
  /* steps, then per step one byte and its arguments: addInputRole,
   * addOutputRole (bit 3 the compilation slot, bits 4-7 the index; then a
   * frequency byte), setDimensions (rank byte, then a byte per
   * dimension), finish, createFromDesc, NULL arguments. */
  FUZZ_NDK_MEMORY_DESC,
  /* from, to: ANeuralNetworksMemory_copy among the io memory, its
   * read-only twin, the device memories, the constants' memory and a
   * memory of output 0's size. */
  FUZZ_NDK_MEMORY_COPY,
  /* slot: ANeuralNetworksBurst_free. */
  FUZZ_NDK_BURST_FREE,
  /* which: a device query (bit 7: with NULL for the device). */
  FUZZ_NDK_DEVICE,
  FUZZ_NDK_OP_COUNT
} fuzz_ndk_op;

/* How an argument is given (FUZZ_NDK_EXECUTION_SET_*; kinds past the last
 * wrap around). */
enum {
  FUZZ_NDK_ARG_POINTER = 0,
  FUZZ_NDK_ARG_MEMORY,          /* a range of the io memory */
  FUZZ_NDK_ARG_READ_ONLY_MEMORY, /* the same range of its read-only twin */
  FUZZ_NDK_ARG_DEVICE_MEMORY,   /* a memory from a descriptor (the argument's index modulo 2) */
  FUZZ_NDK_ARG_OMITTED,         /* NULL, 0 */
  FUZZ_NDK_ARG_KINDS
};

/* The script fuzz-seeds writes after each model: the build flags (0), then
 * a synchronous computation with timing from pointers, a second compute
 * (BAD_STATE), the output's shape and duration; a burst computation from the
 * io memory; a memory descriptor for output 0 and an asynchronous
 * computation into that memory, then a copy of it into an fd memory; the
 * first execution freed and made again, computed with timing after the
 * asynchronous one (a dependency), its sync fence made an event and waited
 * for, then the computation itself, its fenced duration. */
#define FUZZ_NDK_SEED_SCRIPT                                                       \
  {                                                                                \
    0, FUZZ_NDK_MODEL_FINISH, FUZZ_NDK_COMPILATION_CREATE, 2,                      \
    FUZZ_NDK_COMPILATION_FINISH, 0,                                                \
    FUZZ_NDK_EXECUTION_CREATE, 0, 0, FUZZ_NDK_EXECUTION_SET, 0, 0, 1,              \
    FUZZ_NDK_EXECUTION_SET_ALL, 0, 0, 0, FUZZ_NDK_EXECUTION_COMPUTE, 0, 0,         \
    FUZZ_NDK_EXECUTION_COMPUTE, 0, 0, FUZZ_NDK_EXECUTION_QUERY, 0, 0, 0,           \
    FUZZ_NDK_EXECUTION_QUERY, 0, 1, 0,                                             \
    FUZZ_NDK_EXECUTION_CREATE, 1, 0, FUZZ_NDK_EXECUTION_SET_ALL, 1, 011, 0,        \
    FUZZ_NDK_EXECUTION_COMPUTE, 1, 3,                                              \
    FUZZ_NDK_MEMORY_DESC, 3, 1, 1, 3, 4,                                           \
    FUZZ_NDK_EXECUTION_CREATE, 2, 0, FUZZ_NDK_EXECUTION_SET_ALL, 2, 030, 0,        \
    FUZZ_NDK_EXECUTION_COMPUTE, 2, 041, FUZZ_NDK_MEMORY_COPY, 2, 5,                \
    FUZZ_NDK_EXECUTION_FREE, 0, FUZZ_NDK_EXECUTION_CREATE, 0, 0,                   \
    FUZZ_NDK_EXECUTION_SET, 0, 0, 1, FUZZ_NDK_EXECUTION_SET_ALL, 0, 0, 0,          \
    FUZZ_NDK_EXECUTION_COMPUTE, 0, 006, FUZZ_NDK_EVENT, 0x11, FUZZ_NDK_EVENT, 2,   \
    FUZZ_NDK_EVENT, 1,                                                             \
    FUZZ_NDK_EXECUTION_QUERY, 0, 1, 2,                                             \
  }
