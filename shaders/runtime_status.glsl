// The graph instance's status word (docs/architecture.md, "Run-time checks").
// A kernel that reads a value deciding an address from a tensor the caller
// controls at execution time (a parameter given as a model input, GATHER's
// indices) range-checks it, includes this file, and reports a violation
// here; the driver binds the status buffer at this reserved binding to every
// kernel that declares it (embed_shaders.py finds the block), zeroes it at
// the start of each recording and reads it after the fence: non-zero fails
// the execution with INVALID_ARGUMENT. A violating kernel still writes only
// in bounds.
layout(std430, set = 0, binding = 7) coherent buffer RuntimeStatus { uint runtime_status; };

// Keeps the first code reported: the failing operation, as the host encoded
// it in the kernel's push constants (graph/runtime_check.h).
void report_invalid_value(uint code) { atomicCompSwap(runtime_status, 0u, code); }
