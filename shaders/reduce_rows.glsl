// The rows of a reduction, shared by reduce.comp and arg_minmax.comp
// (src/ops/reduce.h plans them). The input is seen as
// [outer, row_outer, middle, row_inner, inner]: output (a, c, e) reduces the
// row_outer x row_inner elements (a, *, c, *, e), its row. Consecutive
// outputs differ first in e, so with inner > 1 neighbouring outputs read
// neighbouring elements.
//
// A workgroup reduces OUT_LANES consecutive outputs over one chunk of their
// rows: lane = row_lane * OUT_LANES + out_lane, and the ROW_LANES lanes of an
// output walk its chunk with a stride of ROW_LANES before a tree in shared
// memory joins them. A row longer than one chunk is split across `splits`
// workgroups, each writing a partial result; a later pass of the same kernel
// reads those partials as rows of `splits` elements (outer = outputs, every
// other extent 1) and combines them.
//
// Elements are read one at a time, or as vectors of 4 (VECTORS; a load of
// 4 is one gather where a storage-buffer load is a loop over the lanes, as
// on lavapipe, and a wider transaction elsewhere). The extents are then
// counted in vectors:
// - ROW_VECTORS: rows of contiguous elements (inner = row_outer = 1), a
//   multiple of 4 long; a vector holds 4 neighbouring elements of one row;
// - OUTPUT_VECTORS: inner a multiple of 4; a vector holds one element of each
//   of 4 neighbouring outputs, so an invocation reduces 4 outputs at once.
//
// Specialization constants 2-5 (1 is the kernel's operation).
layout(constant_id = 2) const uint OUT_LANES = 1;
layout(constant_id = 3) const uint READS_PARTIALS = 0;  // the input holds partials of a split row
layout(constant_id = 4) const uint WRITES_PARTIALS = 0; // this pass splits rows: partials out
layout(constant_id = 5) const uint VECTORS = 0;
const uint SCALARS = 0, ROW_VECTORS = 1, OUTPUT_VECTORS = 2;
const uint ROW_LANES = gl_WorkGroupSize.x / OUT_LANES;

layout(push_constant) uniform Params {
    uint outputs;
    uint inner, middle;
    uint row_outer, row_inner, row; // row = row_outer * row_inner
    uint chunk, splits;             // elements of a row per workgroup, workgroups per row
    uint count;                     // MEAN: the elements each final result averages
    float act_min, act_max;         // reduce.comp's CLAMP: a pooling's fused activation
} p;

// One invocation's output and its share of the chunk: elements
// first, first + ROW_LANES, ... below end.
struct RowWalk {
    uint out_index;
    bool in_range; // an output of the tensor (the last tile may run past the end)
    uint split;
    uint base;   // offset of the row's first element
    uint first, end;
};

// False for a whole workgroup past the last tile (the grid is 2-D).
bool row_walk_begin(out RowWalk w) {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint tile = group / p.splits;
    w.split = group - tile * p.splits;
    if (tile * OUT_LANES >= p.outputs) return false;
    uint lane = gl_LocalInvocationID.x;
    w.out_index = tile * OUT_LANES + lane % OUT_LANES;
    w.in_range = w.out_index < p.outputs;
    uint per_a = p.middle * p.inner;
    uint a = w.out_index / per_a, c = (w.out_index - a * per_a) / p.inner;
    uint e = w.out_index - a * per_a - c * p.inner;
    w.base = ((a * p.row_outer * p.middle + c) * p.row_inner) * p.inner + e;
    uint chunk_begin = w.split * p.chunk;
    w.first = chunk_begin + lane / OUT_LANES;
    w.end = w.in_range ? min(chunk_begin + p.chunk, p.row) : 0u;
    return true;
}

// Offset of element r of the walked row. The common cases (one run of
// reduced axes) need no division.
uint row_element(RowWalk w, uint r) {
    if (p.row_inner == 1u) return w.base + r * p.middle * p.inner;
    if (p.row_outer == 1u) return w.base + r * p.inner;
    uint b = r / p.row_inner;
    return w.base + (b * p.middle * p.row_inner + (r - b * p.row_inner)) * p.inner;
}

// Where this workgroup's result for the output goes (with OUTPUT_VECTORS,
// for component k of the invocation's 4 outputs): its slot among the row's
// partials, or the output element.
uint row_result_index(RowWalk w, uint k) {
    uint o = VECTORS == OUTPUT_VECTORS ? w.out_index * 4u + k : w.out_index;
    return WRITES_PARTIALS != 0u ? o * p.splits + w.split : o;
}
