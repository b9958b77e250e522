#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant remap_params:
// Completes the map of shaders/remap.comp from parameter tensors computed at
// run time (the output shape being declared in the model): one invocation
// copies the map template the host built, checks the parameters, and patches
// what they decide. OP: 0 PAD (starts = -before), 1 SLICE (starts = begin),
// 2 STRIDED_SLICE (starts and steps from begin, end, strides and masks),
// 3 TRANSPOSE (view axes = perm), 4 SPACE_TO_BATCH_ND, 5 BATCH_TO_SPACE_ND
// (block sizes and paddings), 6 TILE (the template is complete: multiples
// are only checked).
//
// The caller controls these values, so each is checked against the rules of
// its operation, the input's shape (the template's axis extents) and the
// declared output shape (its view sizes). Invalid parameters are reported
// in the status word and leave the template as the map: an identity view
// whose every coordinate remap.comp bounds-checks, so nothing is read or
// written out of bounds. The checks run once per execution, in this single
// invocation, not per element.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "runtime_status.glsl"

layout(constant_id = 1) const int OP = 0;
const int PAD = 0, SLICE = 1, STRIDED_SLICE = 2, TRANSPOSE = 3, SPACE_TO_BATCH = 4,
          BATCH_TO_SPACE = 5, TILE = 6;

layout(std430, set = 0, binding = 0) readonly buffer Template { int t[]; };
layout(std430, set = 0, binding = 1) readonly buffer ParamA { int pa[]; };
layout(std430, set = 0, binding = 2) readonly buffer ParamB { int pb[]; };
layout(std430, set = 0, binding = 3) readonly buffer ParamC { int pc[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Map { int m[]; };

layout(push_constant) uniform Params {
    uint words;
    int begin_mask, end_mask;                // STRIDED_SLICE (a shrunk axis is one in the view)
    int h_axis, w_axis, h_view, w_view;      // the batch/space operations
    int block_h_view, block_w_view, batches; // BATCH_TO_SPACE_ND: output batches
    int out_height, out_width;               // BATCH_TO_SPACE_ND: the declared output's
    uint check_code;                         // reported when a parameter is invalid
} p;

const int AXES = 4;
const int VIEW = 4 + 6 * 4;

int extent(int axis) { return t[AXES + axis * 4]; }
int view_size(int d) { return t[VIEW + d * 3]; }
void set_start(int axis, int start) { m[AXES + axis * 4 + 2] = start; }

// Each check returns the rule its parameters break (runtime_status.glsl), 0
// when they break none. A value no shape could take (a negative padding, a
// zero stride) is named before one that leads to a shape other than the
// declared output (RULE_SHAPE_MISMATCH), so each goes over every axis for
// the first kind before the second.

// Picks the more telling of two rules: any before a shape mismatch.
uint worse_rule(uint a, uint b) { return a != 0u && a != RULE_SHAPE_MISMATCH ? a : (b != 0u ? b : a); }

// size = before + extent + after with neither padding negative (written so
// that no sum can overflow).
uint padding_rule(int before, int after, int extent_, int size) {
    if (before < 0 || after < 0) return RULE_PADDING_NEGATIVE;
    bool fits = extent_ <= size && before <= size - extent_ && after == size - extent_ - before;
    return fits ? 0u : RULE_SHAPE_MISMATCH;
}

// size = extent * factor with factor >= 1 (no product can overflow);
// not_positive: the rule a factor below 1 breaks.
uint scale_rule(int extent_, int factor, int size, uint not_positive) {
    if (factor < 1) return not_positive;
    return size % extent_ == 0 && size / extent_ == factor ? 0u : RULE_SHAPE_MISMATCH;
}

uint pad_rule() {
    uint rule = 0u;
    for (int a = 0; a < t[2]; ++a)
        rule = worse_rule(rule, padding_rule(pa[2 * a], pa[2 * a + 1], extent(a), view_size(a)));
    return rule;
}

// begin in [0, dim - size]; size as declared, or -1 for the rest of the axis.
uint slice_rule() {
    uint rule = 0u;
    for (int a = 0; a < t[2]; ++a) {
        int dim = extent(a), size = view_size(a), begin = pa[a];
        if (begin < 0 || size > dim || begin > dim - size) return RULE_SLICE_OUT_OF_RANGE;
        if (pb[a] != size && !(pb[a] == -1 && begin == dim - size)) rule = RULE_SHAPE_MISMATCH;
    }
    return rule;
}

// TensorFlow's begin (or end) of a strided slice axis, clamped to the axis.
int strided_bound(int value, bool masked, bool is_end, int dim, int stride) {
    int lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    if (masked) return (stride > 0) == is_end ? hi : lo;  // the whole axis
    return clamp(value < 0 ? value + dim : value, lo, hi);
}

// The begin of axis a, its step, and the rule it breaks: the elements it
// selects must be as many as the declared output has. A shrunk axis counts
// as one in the view: with the masks and the stride applied it must select
// exactly one element (as the constant path, src/ops/slice.c, and the NNAPI
// reference want).
uint strided_axis(int a, out int begin, out int stride) {
    int dim = extent(a);
    stride = pc[a];
    begin = 0;
    if (stride == 0) return RULE_STRIDE_ZERO;
    begin = strided_bound(pa[a], ((p.begin_mask >> a) & 1) != 0, false, dim, stride);
    int end = strided_bound(pb[a], ((p.end_mask >> a) & 1) != 0, true, dim, stride);
    int span = stride > 0 ? end - begin : begin - end;  // both in [-1, dim]: no overflow
    uint step = stride > 0 ? uint(stride) : uint(-(stride + 1)) + 1u;
    uint count = span > 0 ? uint(span - 1) / step + 1u : 0u;
    return count == uint(view_size(a)) ? 0u : RULE_SHAPE_MISMATCH;
}

uint strided_slice_rule() {
    uint rule = 0u;
    for (int a = 0; a < t[2]; ++a) {
        int begin, stride;
        rule = worse_rule(rule, strided_axis(a, begin, stride));
    }
    return rule;
}

// perm is a permutation of the axes, and output dimension d has input
// dimension perm[d]'s size.
uint transpose_rule() {
    uint seen = 0u, rule = 0u;
    for (int d = 0; d < t[1]; ++d) {
        int axis = pa[d];
        if (axis < 0 || axis >= t[2] || (seen & (1u << axis)) != 0u) return RULE_PERM_NOT_PERMUTATION;
        if (extent(axis) != view_size(d)) rule = RULE_SHAPE_MISMATCH;
        seen |= 1u << axis;
    }
    return rule;
}

// The block is bh x bw, both >= 1, of the area the batch sizes fix (the
// template's placeholder size of the first block dimension).
uint block_rule(int bh, int bw) {
    if (bh < 1 || bw < 1) return RULE_BLOCK_NOT_POSITIVE;
    int area = view_size(p.block_h_view);
    return bh <= area && bw <= area / bh && bh * bw == area ? 0u : RULE_SHAPE_MISMATCH;
}

uint space_to_batch_rule() {
    int bh = pa[0], bw = pa[1];
    uint rule = block_rule(bh, bw);
    if (rule != 0u) return rule;
    // Output sizes times the block: no overflow, the output has fewer elements.
    rule = padding_rule(pb[0], pb[1], extent(p.h_axis), view_size(p.h_view) * bh);
    return worse_rule(rule, padding_rule(pb[2], pb[3], extent(p.w_axis), view_size(p.w_view) * bw));
}

uint batch_to_space_rule() {
    int bh = pa[0], bw = pa[1];
    uint rule = block_rule(bh, bw);
    if (rule == 0u) rule = scale_rule(extent(p.h_axis), bh, p.out_height, RULE_BLOCK_NOT_POSITIVE);
    if (rule == 0u) rule = scale_rule(extent(p.w_axis), bw, p.out_width, RULE_BLOCK_NOT_POSITIVE);
    return rule;
}

uint tile_rule() {
    uint rule = 0u;
    for (int a = 0; a < t[2]; ++a)
        rule = worse_rule(rule, scale_rule(extent(a), pa[a], view_size(a), RULE_MULTIPLE_NOT_POSITIVE));
    return rule;
}

uint parameters_rule() {
    if (OP == PAD) return pad_rule();
    if (OP == SLICE) return slice_rule();
    if (OP == STRIDED_SLICE) return strided_slice_rule();
    if (OP == TRANSPOSE) return transpose_rule();
    if (OP == SPACE_TO_BATCH) return space_to_batch_rule();
    if (OP == BATCH_TO_SPACE) return batch_to_space_rule();
    return tile_rule();
}

void patch_map() {
    int axes = t[2];
    if (OP == PAD) {
        for (int a = 0; a < axes; ++a) set_start(a, -pa[2 * a]);
    } else if (OP == SLICE) {
        for (int a = 0; a < axes; ++a) set_start(a, pa[a]);
    } else if (OP == STRIDED_SLICE) {
        for (int a = 0; a < axes; ++a) {
            int begin, stride;
            strided_axis(a, begin, stride);
            set_start(a, begin);
            m[VIEW + a * 3 + 2] = stride;  // view dimension a walks axis a
        }
    } else if (OP == TRANSPOSE) {
        for (int d = 0; d < t[1]; ++d) m[VIEW + d * 3 + 1] = pa[d];
    } else if (OP == SPACE_TO_BATCH || OP == BATCH_TO_SPACE) {
        int bh = pa[0], bw = pa[1];
        m[VIEW + p.block_h_view * 3] = bh;
        m[VIEW + p.block_w_view * 3] = bw;
        if (OP == SPACE_TO_BATCH) {
            set_start(p.h_axis, -pb[0]);
            set_start(p.w_axis, -pb[2]);
            m[VIEW + p.h_view * 3 + 2] = bh;
            m[VIEW + p.w_view * 3 + 2] = bw;
        } else {
            m[VIEW + p.block_h_view * 3 + 2] = bw * p.batches;
            m[VIEW + p.block_w_view * 3 + 2] = p.batches;
        }
    }
}

void main() {
    if (flat_invocation_index() != 0u) return;
    for (uint i = 0u; i < p.words; ++i) m[i] = t[i];
    uint rule = parameters_rule();
    if (rule == 0u)
        patch_map();
    else
        report_invalid_value(p.check_code, rule);
}
