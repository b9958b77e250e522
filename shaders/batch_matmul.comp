#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant batch_matmul_f32: -DELEM_F32
// variant batch_matmul_f16: -DELEM_F16
// variant batch_matmul_f32_texel: -DELEM_F32 -DTEXEL_READS
// variant batch_matmul_f16_texel: -DELEM_F16 -DTEXEL_READS requires=shaderStorageImageExtendedFormats
// Batched matrix products of org.vknn.transformer (BATCH_MATMUL, and
// ATTENTION's two products):
//   c[batch, m, n] = alpha * sum_k a[batch, m, k] * b[batch, k, n] (+ mask)
// with a and b addressed by strides, so that either may be transposed
// (adjoint) and broadcast over the batch (a batch stride of 0). The batch is
// at most two dimensions, outer x inner. The optional mask is added after
// the scaling, broadcast the same way (ATTENTION's additive mask).
//
// Work split, as conv2d_gemm's: a workgroup owns COLS output columns of one
// batch (the same for all its invocations, so every load of b is uniform
// across the group: one load broadcast to every lane) and local_size * ROWS
// rows; each invocation keeps a ROWS x COLS register block of sums, each
// element of a it loads serving COLS products and each of b ROWS. No shared
// memory and no barrier (on lavapipe a barrier switches every lane). Rows
// and columns past the matrix read its last row or column (in bounds) and
// store nothing. VEC_K (a and b both contiguous along k, k a multiple of 4:
// a[m][k] times b[n][k], the host transposing a b that is not) loads four
// k at a time. Sums are float32, in order of k (VEC_K: of groups of four).
// Variants by element type (float16 stored, float32 computed); TEXEL_READS
// reads a and b through storage texel buffers (operand_reads.glsl: four
// elements a texel with VEC_K, one without; the host binds them so).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "operand_reads.glsl"

layout(constant_id = 1) const uint COLS = 4;   // output columns per workgroup: 4 or 8
layout(constant_id = 2) const uint VEC_K = 0;  // 1: vec4 loads along k
const uint ROWS = 4;                           // output rows per invocation

OPERAND(0, A, a)
OPERAND(1, B, b)
layout(std430, set = 0, binding = 2) readonly buffer Mask { STORAGE_T mask[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { STORAGE_T c[]; };

layout(push_constant) uniform Params {
    uint m, n, k;
    uint a_row, a_col;          // a's strides along m and k
    uint b_row, b_col;          // b's strides along k and n
    uint batches, batch_inner;  // batches = outer x inner
    uint a_outer, a_inner, b_outer, b_inner;  // batch strides (0: broadcast)
    uint mask_outer, mask_inner, mask_row, mask_col;
    uint has_mask;
    uint row_groups;            // workgroups along m per column block
    uint col_blocks;            // column blocks along n
    float alpha;
} p;

void store(uint batch, uint mask_base, uint row, uint col, float sum) {
    float v = p.alpha * sum;
    if (p.has_mask != 0u) v += float(mask[mask_base + row * p.mask_row + col * p.mask_col]);
    c[(batch * p.m + row) * p.n + col] = STORAGE_T(v);
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint per_batch = p.row_groups * p.col_blocks;
    uint batch = group / per_batch;
    if (batch >= p.batches) return;  // grid padding: the whole workgroup
    uint rest = group % per_batch;
    uint n0 = (rest / p.row_groups) * COLS;
    uint m0 = ((rest % p.row_groups) * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * ROWS;
    uint outer = batch / p.batch_inner, inner = batch % p.batch_inner;
    uint a_base = outer * p.a_outer + inner * p.a_inner;
    uint b_base = outer * p.b_outer + inner * p.b_inner;
    uint a_at[ROWS];
    for (uint i = 0u; i < ROWS; ++i) a_at[i] = a_base + min(m0 + i, p.m - 1u) * p.a_row;
    uint b_at[COLS];
    for (uint j = 0u; j < COLS; ++j) b_at[j] = b_base + min(n0 + j, p.n - 1u) * p.b_col;
    float sums[ROWS][COLS];
    for (uint i = 0u; i < ROWS; ++i)
        for (uint j = 0u; j < COLS; ++j) sums[i][j] = 0.0;
    for (uint kk = 0u; VEC_K == 1u && kk < p.k; kk += 4u) {
        vec4 av[ROWS];
        for (uint i = 0u; i < ROWS; ++i) av[i] = READ4(a, (a_at[i] + kk) / 4u);
        for (uint j = 0u; j < COLS; ++j) {
            vec4 bv = READ4(b, (b_at[j] + kk) / 4u);
            for (uint i = 0u; i < ROWS; ++i) sums[i][j] += dot(av[i], bv);
        }
    }
    for (uint kk = 0u; VEC_K == 0u && kk < p.k; ++kk) {
        float av[ROWS];
        for (uint i = 0u; i < ROWS; ++i) av[i] = READ1(a, a_at[i] + kk * p.a_col);
        for (uint j = 0u; j < COLS; ++j) {
            float bv = READ1(b, b_at[j] + kk * p.b_row);
            for (uint i = 0u; i < ROWS; ++i) sums[i][j] += av[i] * bv;
        }
    }
    uint mask_base = outer * p.mask_outer + inner * p.mask_inner;
    for (uint i = 0u; i < ROWS; ++i)
        for (uint j = 0u; j < COLS; ++j)
            if (m0 + i < p.m && n0 + j < p.n) store(batch, mask_base, m0 + i, n0 + j, sums[i][j]);
}
