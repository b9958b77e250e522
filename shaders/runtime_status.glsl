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

// The rule a kernel names when it reports a violation: the low 8 bits of the
// status word (graph/runtime_check.h). These lines are the one definition:
// embed_shaders.py reads each "const uint RULE_NAME = N; // text" into
// VKNN_RUNTIME_RULES (shaders_layout.h), and the driver logs the text, after
// the operation's name, when the execution fails. Numbers are 1 to 255, each
// once; a text is plain words, without quotes or backslashes.
const uint RULE_INDEX_OUT_OF_RANGE = 1u;        // an index is out of range
const uint RULE_KEYS_NOT_ASCENDING = 2u;        // the keys are not in ascending order
const uint RULE_BATCH_INDEX_OUT_OF_RANGE = 3u;  // a batch index is out of range
const uint RULE_BATCH_INDICES_NOT_GROUPED = 4u; // batch indices not grouped (a batch's boxes must be consecutive)
const uint RULE_BOX_INVERTED = 5u;              // a box has x1 > x2 or y1 > y2
const uint RULE_BOX_OUT_OF_RANGE = 6u;          // a box is out of range of the image
const uint RULE_ANCHOR_EMPTY = 7u;              // an anchor has x1 >= x2 or y1 >= y2
const uint RULE_REGION_SCALE = 8u;              // a region's requantization multiplier (input scale / 255 / output scale / samples) is not below 1
const uint RULE_SHAPE_MISMATCH = 9u;            // a parameter leads to a shape other than the declared output
const uint RULE_DIMENSION_NOT_POSITIVE = 10u;   // a dimension is zero or negative
const uint RULE_RESHAPE_WILDCARDS = 11u;        // more than one dimension is -1
const uint RULE_AXIS_OUT_OF_RANGE = 12u;        // an axis is out of range of the input's rank
const uint RULE_SQUEEZED_AXIS_NOT_ONE = 13u;    // an axis to squeeze is not of size 1
const uint RULE_PADDING_NEGATIVE = 14u;         // a padding is negative
const uint RULE_SLICE_OUT_OF_RANGE = 15u;       // the slice reaches outside the input
const uint RULE_STRIDE_ZERO = 16u;              // a stride is zero
const uint RULE_PERM_NOT_PERMUTATION = 17u;     // perm is not a permutation of the input's axes
const uint RULE_BLOCK_NOT_POSITIVE = 18u;       // a block size is zero or negative
const uint RULE_MULTIPLE_NOT_POSITIVE = 19u;    // a multiple is zero or negative

// Keeps the first violation reported: the failing operation, as the host
// encoded it in the kernel's push constants (the high 24 bits), and the rule
// it broke.
void report_invalid_value(uint code, uint rule) { atomicCompSwap(runtime_status, 0u, code | rule); }
