#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant batch_matmul_f32: -DELEM_F32
// variant batch_matmul_f16: -DELEM_F16
// Batched matrix products of org.vknn.transformer (BATCH_MATMUL, and
// ATTENTION's two products):
//   c[batch, m, n] = alpha * sum_k a[batch, m, k] * b[batch, k, n] (+ mask)
// with a and b addressed by strides, so that either may be transposed
// (adjoint) and broadcast over the batch (a batch stride of 0). The batch is
// at most two dimensions, outer x inner. The optional mask is added after
// the scaling, broadcast the same way (ATTENTION's additive mask).
//
// Tiled: a workgroup of 256 lanes computes a 32 x 32 tile of c, each lane
// a 2 x 2 block; 32 x 16 slices of a and 16 x 32 of b pass through shared
// memory, every loaded element serving 32 products. Sums are float32, in
// order of k.
// Variants by element type (float16 stored, float32 computed).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(std430, set = 0, binding = 0) readonly buffer A { STORAGE_T a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { STORAGE_T b[]; };
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
    uint tiles_n;               // tiles along n; a workgroup per (batch, tile)
    uint tiles;                 // tiles per batch
    float alpha;
} p;

const uint TILE = 32u, SLICE = 16u, LANES = 256u;

shared float tile_a[SLICE][TILE];  // [k][m]
shared float tile_b[SLICE][TILE];  // [k][n]

void load_slices(uint a_base, uint b_base, uint m0, uint n0, uint k0) {
    for (uint e = gl_LocalInvocationID.x; e < SLICE * TILE; e += LANES) {
        uint kk = e / TILE, i = e % TILE;
        uint gk = k0 + kk, gm = m0 + i, gn = n0 + i;
        tile_a[kk][i] = gk < p.k && gm < p.m ? float(a[a_base + gm * p.a_row + gk * p.a_col]) : 0.0;
        tile_b[kk][i] = gk < p.k && gn < p.n ? float(b[b_base + gk * p.b_row + gn * p.b_col]) : 0.0;
    }
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint batch = group / p.tiles;
    if (batch >= p.batches) return;  // the whole workgroup: grid padding
    uint tile = group % p.tiles;
    uint m0 = (tile / p.tiles_n) * TILE, n0 = (tile % p.tiles_n) * TILE;
    uint outer = batch / p.batch_inner, inner = batch % p.batch_inner;
    uint a_base = outer * p.a_outer + inner * p.a_inner;
    uint b_base = outer * p.b_outer + inner * p.b_inner;
    uint row = gl_LocalInvocationID.x / 16u * 2u, col = gl_LocalInvocationID.x % 16u * 2u;
    vec2 acc0 = vec2(0.0), acc1 = vec2(0.0);  // rows row, row + 1; columns col, col + 1
    for (uint k0 = 0u; k0 < p.k; k0 += SLICE) {
        load_slices(a_base, b_base, m0, n0, k0);
        barrier();
        for (uint kk = 0u; kk < SLICE; ++kk) {
            vec2 bv = vec2(tile_b[kk][col], tile_b[kk][col + 1u]);
            acc0 += tile_a[kk][row] * bv;
            acc1 += tile_a[kk][row + 1u] * bv;
        }
        barrier();
    }
    uint mask_base = outer * p.mask_outer + inner * p.mask_inner;
    for (uint i = 0u; i < 2u; ++i) {
        uint gm = m0 + row + i;
        vec2 acc = i == 0u ? acc0 : acc1;
        for (uint j = 0u; j < 2u; ++j) {
            uint gn = n0 + col + j;
            if (gm >= p.m || gn >= p.n) continue;
            float v = p.alpha * acc[j];
            if (p.has_mask != 0u) v += float(mask[mask_base + gm * p.mask_row + gn * p.mask_col]);
            c[(batch * p.m + gm) * p.n + gn] = STORAGE_T(v);
        }
    }
}
