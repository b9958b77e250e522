#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant remap_params:
// Completes the map of shaders/remap.comp from parameter tensors computed at
// run time (the output shape being declared in the model): one invocation
// copies the map template the host built and patches what the parameters
// decide. OP: 0 PAD (starts = -before), 1 SLICE (starts = begin),
// 2 STRIDED_SLICE (starts and steps from begin, end, strides and masks),
// 3 TRANSPOSE (view axes = perm), 4 SPACE_TO_BATCH_ND, 5 BATCH_TO_SPACE_ND
// (block sizes and paddings).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 1) const int OP = 0;
const int PAD = 0, SLICE = 1, STRIDED_SLICE = 2, TRANSPOSE = 3, SPACE_TO_BATCH = 4;

layout(std430, set = 0, binding = 0) readonly buffer Template { int t[]; };
layout(std430, set = 0, binding = 1) readonly buffer ParamA { int pa[]; };
layout(std430, set = 0, binding = 2) readonly buffer ParamB { int pb[]; };
layout(std430, set = 0, binding = 3) readonly buffer ParamC { int pc[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Map { int m[]; };

layout(push_constant) uniform Params {
    uint words;
    int begin_mask, end_mask, shrink_mask;   // STRIDED_SLICE
    int h_axis, w_axis, h_view, w_view;      // the batch/space operations
    int block_h_view, block_w_view, batches; // BATCH_TO_SPACE_ND: output batches
} p;

const int AXES = 4;
const int VIEW = 4 + 6 * 4;

void set_start(int axis, int start) { m[AXES + axis * 4 + 2] = start; }

// TensorFlow's begin of a strided slice axis, clamped to the axis.
void strided_axis(int a) {
    int dim = t[AXES + a * 4];
    int stride = pc[a];
    int lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    int begin = pa[a];
    if (((p.shrink_mask >> a) & 1) != 0) {
        begin = begin < 0 ? begin + dim : begin;
        stride = 1;
    } else if (((p.begin_mask >> a) & 1) != 0) {
        begin = stride > 0 ? 0 : dim - 1;
    } else {
        begin = clamp(begin < 0 ? begin + dim : begin, lo, hi);
    }
    set_start(a, begin);
    m[VIEW + a * 3 + 2] = stride;  // view dimension a walks axis a
}

void main() {
    if (flat_invocation_index() != 0u) return;
    for (uint i = 0u; i < p.words; ++i) m[i] = t[i];
    int axes = t[2];
    if (OP == PAD) {
        for (int a = 0; a < axes; ++a) set_start(a, -pa[2 * a]);
    } else if (OP == SLICE) {
        for (int a = 0; a < axes; ++a) set_start(a, pa[a]);
    } else if (OP == STRIDED_SLICE) {
        for (int a = 0; a < axes; ++a) strided_axis(a);
    } else if (OP == TRANSPOSE) {
        for (int d = 0; d < t[1]; ++d) m[VIEW + d * 3 + 1] = pa[d];
    } else {
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
