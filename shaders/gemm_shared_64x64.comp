#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant gemm_shared_64x64_f32: -DELEM_F32
// variant gemm_shared_64x64_f16: -DELEM_F16
// Float matrix product in workgroup tiles staged in shared memory:
// y[m][n] = act(sum_k a[m][k] * b[n][k] + bias[n]), a of M rows of K
// elements (a pointwise CONV_2D's input pixels, FULLY_CONNECTED's rows), b of
// N rows of K (the filter as NNAPI lays it out), y of M rows of N.
//
// A workgroup of 128 computes a 64 x 64 tile of y. For every step of
// TILE_K along k it copies the step's 64 x TILE_K slices of a and b into
// shared memory (two vec4 loads of each per invocation, neighbouring
// invocations reading neighbouring elements of a row) and waits for the
// group; each invocation then computes an 8 x 4 register block (8 rows, 4
// channels) from those slices: per k, two vec4 of a and one of b serve 32
// multiply-adds. Every value loaded from a and b thereby serves 64 outputs
// of the tile, where conv2d_gemm.comp loads each for its own register block
// and counts on the cache for the rest. For devices that serve shared
// memory faster than their cache; kernel tuning measures it against
// conv2d_gemm per layer (docs/architecture.md, "Shared-memory tiles").
// Rows past M read row M - 1 and store nothing; channels past N read
// channel N - 1 and store nothing; k past K reads zeros.
// Variants: ELEM_F32, ELEM_F16 (float16 storage, float32 arithmetic and
// shared memory).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "operand_reads.glsl"

#if defined(ELEM_F16)
#define OUTPUT_VEC4 f16vec4
#else
#define OUTPUT_VEC4 vec4
#endif

// 1: K % 4 == 0: a and b are read as vec4 (every row starts on a whole vec4).
layout(constant_id = 1) const uint VEC4_LOADS = 0;
// 1: N % 4 == 0 (and the slice keeps groups of 4 together): vec4 stores.
layout(constant_id = 2) const uint VEC4_STORES = 0;
// 1: y is a slice of a larger tensor (output_slice.glsl).
layout(constant_id = 3) const uint SLICED = 0;

const uint TILE_M = 64;
const uint TILE_N = 64;
const uint TILE_K = 16;
const uint ROWS = 8; // register block: rows of a ...
const uint COLS = 4; // ... by channels of b, per invocation
const uint GROUP = (TILE_M / ROWS) * (TILE_N / COLS); // the host's workgroup size

OPERAND(0, A, a)
OPERAND(1, B, b)
layout(std430, set = 0, binding = 2) readonly buffer Bias { STORAGE_T bias[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output4 { OUTPUT_VEC4 y4[]; };

layout(push_constant) uniform Params {
    uint m, n, k;
    uint n_tiles; // ceil(n / TILE_N)
    uint out_row, out_stride, out_offset; // SLICED
    float act_min, act_max;
} p;

#include "output_slice.glsl"

// The step's slices, k-major: tile_a[kk][q] holds rows 4q..4q+3 at k0 + kk,
// so that an invocation reads its 8 rows as two vec4 and its 4 channels as one.
shared vec4 tile_a[TILE_K][TILE_M / 4];
shared vec4 tile_b[TILE_K][TILE_N / 4];

// load_row4_NAME(r, k): elements k..k+3 of row r of operand NAME, a matrix
// of rows of p.k elements (k a multiple of 4), zeros past the row's end.
// (A macro: GLSL passes no buffer to a function.)
#define LOAD_ROW4(name) \
    vec4 load_row4_##name(uint r, uint k) { \
        if (VEC4_LOADS == 1) return k < p.k ? READ4(name, (r * p.k + k) / 4) : vec4(0.0); \
        vec4 v; \
        for (uint i = 0; i < 4; ++i) v[i] = k + i < p.k ? READ1(name, r * p.k + k + i) : 0.0; \
        return v; \
    }
LOAD_ROW4(a)
LOAD_ROW4(b)

// Copies the slices of step k0: slot s (two per invocation) is row s / 4,
// elements 4 (s % 4).. of the step, stored transposed.
void stage(uint m0, uint n0, uint k0, uint lane) {
    for (uint pass = 0; pass < 2; ++pass) {
        uint slot = lane + pass * GROUP;
        uint r = slot / (TILE_K / 4);
        uint kq = slot % (TILE_K / 4);
        vec4 av = load_row4_a(min(m0 + r, p.m - 1), k0 + 4 * kq);
        vec4 bv = load_row4_b(min(n0 + r, p.n - 1), k0 + 4 * kq);
        for (uint i = 0; i < 4; ++i) {
            tile_a[4 * kq + i][r / 4][r % 4] = av[i];
            tile_b[4 * kq + i][r / 4][r % 4] = bv[i];
        }
    }
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Groups past the last tile (the grid is 2-D) have nothing to do: the
    // whole group leaves, before any barrier.
    if (group >= p.n_tiles * ((p.m + TILE_M - 1) / TILE_M)) return;
    uint m0 = (group / p.n_tiles) * TILE_M;
    uint n0 = (group % p.n_tiles) * TILE_N;
    uint lane = gl_LocalInvocationID.x;
    uint row_q = lane / (TILE_N / COLS); // rows 8 row_q.. of the tile
    uint col_q = lane % (TILE_N / COLS); // channels 4 col_q.. of the tile

    vec4 acc[ROWS];
    for (uint i = 0; i < ROWS; ++i) acc[i] = vec4(0.0);
    for (uint k0 = 0; k0 < p.k; k0 += TILE_K) {
        stage(m0, n0, k0, lane);
        barrier();
        for (uint kk = 0; kk < TILE_K; ++kk) {
            vec4 a_lo = tile_a[kk][2 * row_q];
            vec4 a_hi = tile_a[kk][2 * row_q + 1];
            vec4 bv = tile_b[kk][col_q];
            for (uint i = 0; i < 4; ++i) {
                acc[i] += a_lo[i] * bv;
                acc[4 + i] += a_hi[i] * bv;
            }
        }
        barrier();
    }

    uint n = n0 + COLS * col_q;
    if (n >= p.n) return;
    uint n_last = p.n - 1;
    vec4 bias4 = vec4(float(bias[n]), float(bias[min(n + 1, n_last)]), float(bias[min(n + 2, n_last)]),
                      float(bias[min(n + 3, n_last)]));
    for (uint i = 0; i < ROWS; ++i) {
        uint m = m0 + ROWS * row_q + i;
        if (m >= p.m) break;
        vec4 v = clamp(acc[i] + bias4, p.act_min, p.act_max);
        if (VEC4_STORES == 1) {
            y4[slice_index(m * p.n + n) / 4] = OUTPUT_VEC4(v);
            continue;
        }
        for (uint c = 0; c < COLS && n + c < p.n; ++c) y[slice_index(m * p.n + n + c)] = STORAGE_T(v[c]);
    }
}
