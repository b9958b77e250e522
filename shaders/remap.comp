#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant remap_b8: -DB8
// variant remap_b16: -DB16
// variant remap_b32: -DB32
// Index remapping: every output element copies one input element, or the pad
// value. TRANSPOSE, SLICE, STRIDED_SLICE, PAD, PAD_V2, TILE, SPLIT, SQUEEZE,
// EXPAND_DIMS, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
// SPACE_TO_BATCH_ND and CHANNEL_SHUFFLE are all such maps.
//
// The output is seen as a row-major "view" of up to 6 dimensions. Each view
// dimension d adds index * mul[d] to one input axis; each input axis starts
// at start[a], is wrapped (modulo) or bounds-checked against extent[a] (out
// of bounds: pad value), and contributes coordinate * stride[a] to the input
// offset. Variants by element size: B8, B16, B32 (values are copied as bits).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(B8)
#define STORAGE_T uint8_t
#elif defined(B16)
#define STORAGE_T uint16_t
#else
#define STORAGE_T uint
#endif

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };
// Header: count, view rank, axis count, pad bits; then per axis (extent,
// stride, start, modulo); then per view dimension (size, axis, mul).
layout(std430, set = 0, binding = 2) readonly buffer Map { int m[]; };

const int AXES = 4;
const int VIEW = 4 + 6 * 4;

void main() {
    uint index = flat_invocation_index();
    if (index >= uint(m[0])) return;
    int coords[6] = int[6](0, 0, 0, 0, 0, 0);
    for (int a = 0; a < m[2]; ++a) coords[a] = m[AXES + a * 4 + 2];
    uint rem = index;
    for (int d = m[1] - 1; d >= 0; --d) {
        uint size = uint(m[VIEW + d * 3]);
        int o = int(rem % size);
        rem /= size;
        coords[m[VIEW + d * 3 + 1]] += o * m[VIEW + d * 3 + 2];
    }
    int offset = 0;
    for (int a = 0; a < m[2]; ++a) {
        int extent = m[AXES + a * 4];
        int c = coords[a];
        if (m[AXES + a * 4 + 3] != 0) c = ((c % extent) + extent) % extent;
        if (c < 0 || c >= extent) {
            y[index] = STORAGE_T(uint(m[3]));
            return;
        }
        offset += c * m[AXES + a * 4 + 1];
    }
    y[index] = x[offset];
}
