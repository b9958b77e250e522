#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant gemv_splitk_f32: -DELEM_F32
// variant gemv_splitk_f16: -DELEM_F16
// variant gemv_splitk_f32_texel: -DELEM_F32 -DTEXEL_READS
// variant gemv_splitk_f16_texel: -DELEM_F16 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// variant gemv_splitk_f16_arith: -DELEM_F16 -DF16_ARITH requires=shaderFloat16
// variant gemv_splitk_f16_arith_texel: -DELEM_F16 -DF16_ARITH -DTEXEL_READS requires=shaderFloat16 requires=shaderStorageImageExtendedFormats
// Float matrix-vector product: FULLY_CONNECTED of one row, or a pointwise
// CONV_2D of one pixel: y[oc] = act(sum_k x[k] * w[oc][k] + bias[oc]).
//
// One row leaves a tiled matrix product one pixel to work on, so one
// invocation would sum a whole row alone. Here a workgroup computes
// CH_BLOCK outputs and splits the reduction: invocation i sums the
// 4-element slices i, i + local_size, ... of each of its rows, then the
// group adds the partial sums through shared memory.
// Variants: ELEM_F32, ELEM_F16 (float16 storage, float32 arithmetic);
// F16_ARITH (float16 storage, each four-element dot product in float16,
// summed in float32); TEXEL_READS reads input and filter through storage texel buffers
// (operand_reads.glsl).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "operand_reads.glsl"

layout(constant_id = 1) const uint CH_BLOCK = 4; // outputs per workgroup
layout(constant_id = 2) const uint K = 4;        // row length
// 1: the output is a slice of a larger tensor (output_slice.glsl).
layout(constant_id = 3) const uint SLICED = 0;

// Input (binding 0) and filter (binding 1); READ4 only where K % 4 == 0.
OPERAND(0, Input, x)
OPERAND(1, Filter, w)
layout(std430, set = 0, binding = 2) readonly buffer Bias { STORAGE_T bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint out_c;
    uint out_row, out_stride, out_offset; // SLICED
    float act_min, act_max;
} p;

#include "output_slice.glsl"

shared float partial[CH_BLOCK * gl_WorkGroupSize.x];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint oc0 = group * CH_BLOCK;
    // Groups past the last block (the grid is 2-D) have nothing to do.
    if (oc0 >= p.out_c) return;
    uint lane = gl_LocalInvocationID.x;
    uint lanes = gl_WorkGroupSize.x;
    float acc[CH_BLOCK];
    for (uint c = 0; c < CH_BLOCK; ++c) acc[c] = 0.0;
    // Outputs past out_c repeat the last one and store nothing.
    uint oc_last = p.out_c - 1;
    if (K % 4 == 0) {
        for (uint k = lane * 4; k < K; k += lanes * 4) {
            ARITH_VEC4 xv = READ4_ARITH(x, k / 4);
            for (uint c = 0; c < CH_BLOCK; ++c)
                acc[c] += float(dot(xv, READ4_ARITH(w, (min(oc0 + c, oc_last) * K + k) / 4)));
        }
    } else {
        for (uint k = lane; k < K; k += lanes) {
            float xv = READ1(x, k);
            for (uint c = 0; c < CH_BLOCK; ++c) acc[c] += xv * READ1(w, min(oc0 + c, oc_last) * K + k);
        }
    }
    for (uint c = 0; c < CH_BLOCK; ++c) partial[c * lanes + lane] = acc[c];
    barrier();
    if (lane >= CH_BLOCK || oc0 + lane >= p.out_c) return;
    float sum = 0.0;
    for (uint i = 0; i < lanes; ++i) sum += partial[lane * lanes + i];
    uint oc = oc0 + lane;
    y[slice_index(oc)] = STORAGE_T(clamp(sum + float(bias[oc]), p.act_min, p.act_max));
}
