// The graph instance's status word (docs/architecture.md, "Run-time checks").
// A kernel that reads a value deciding an address from a tensor the caller
// controls at execution time (a parameter given as a model input, GATHER's
// indices) range-checks it, includes this file, and reports a violation
// here; the driver binds the status buffer at this reserved binding to every
// kernel that declares it (embed_shaders.py finds the block), zeroes it at
// the start of each recording and reads it after the fence: non-zero fails
// the execution with INVALID_ARGUMENT. A violating kernel still writes only
// in bounds.
// A kernel whose output rows the data decide defines RUNTIME_COUNTS and
// writes the rows into runtime_counts (docs/architecture.md, "Outputs whose
// size the data decide"); the driver sizes the buffer for them.
#if defined(RUNTIME_COUNTS)
layout(std430, set = 0, binding = 7) coherent buffer RuntimeStatus { uint runtime_status; uint runtime_counts[]; };
#else
layout(std430, set = 0, binding = 7) coherent buffer RuntimeStatus { uint runtime_status; };
#endif

// Keeps the first code reported: the failing operation, as the host encoded
// it in the kernel's push constants (graph/runtime_check.h).
void report_invalid_value(uint code) { atomicCompSwap(runtime_status, 0u, code); }
