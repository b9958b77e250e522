#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant conv2d_winograd_input_f2x3_f32: -DINPUT_TRANSFORM -DTILE=2 -DELEM_F32
// variant conv2d_winograd_input_f2x3_f16: -DINPUT_TRANSFORM -DTILE=2 -DELEM_F16
// variant conv2d_winograd_input_f4x3_f32: -DINPUT_TRANSFORM -DTILE=4 -DELEM_F32
// variant conv2d_winograd_input_f4x3_f16: -DINPUT_TRANSFORM -DTILE=4 -DELEM_F16
// variant conv2d_winograd_output_f2x3_f32: -DOUTPUT_TRANSFORM -DTILE=2 -DELEM_F32
// variant conv2d_winograd_output_f2x3_f16: -DOUTPUT_TRANSFORM -DTILE=2 -DELEM_F16
// variant conv2d_winograd_output_f4x3_f32: -DOUTPUT_TRANSFORM -DTILE=4 -DELEM_F32
// variant conv2d_winograd_output_f4x3_f16: -DOUTPUT_TRANSFORM -DTILE=4 -DELEM_F16
// The two transforms of a Winograd convolution F(TILE x TILE, 3 x 3)
// (float CONV_2D, 3x3 window, stride 1, NHWC; src/ops/conv2d_winograd.c).
// The output is cut into tiles of TILE x TILE pixels; each reads a window
// of N x N input pixels (N = TILE + 2). With d a tile's window (one input
// channel), g a 3x3 filter and B, G, A the transform matrices of F(TILE, 3):
//   y = A^T [(G g G^T) (.) (B^T d B)] A      ((.): elementwise)
// Between the two transforms the elementwise products, summed over the
// input channels, are T = N * N independent matrix products
//   M[t][tile][oc] = sum_ic V[t][tile][ic] * U[t][oc][ic]
// which run on conv2d_gemm (a grouped pointwise convolution with T groups).
// ELEM_F32 / ELEM_F16 name the model's input and output storage; V and M
// are float32 whatever it is (float16 intermediates would lose the digits
// the transforms' large coefficients multiply).
//
// INPUT_TRANSFORM: one invocation per (tile, 4 input channels): reads the
// tile's window (zeros outside the input: padding) and writes
// V[tile][t][c] = (B^T d B)[t], in_c4 vec4s per position t (channels past
// in_c are zeros: the matrix product reads whole vec4s).
// OUTPUT_TRANSFORM: one invocation per (tile, 4 output channels): reads
// M[tile][t][oc] for the T positions, writes A^T M A plus the bias, clamped
// to the fused activation's bounds, to the tile's pixels that lie inside the
// output (as a CONCATENATION slice when SLICED).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

#if defined(ELEM_F16)
#define STORAGE_VEC4 f16vec4
#else
#define STORAGE_VEC4 vec4
#endif

const uint N = TILE + 2; // input pixels per tile edge
const uint T = N * N;    // transformed positions per tile

// 1: whole vec4 reads of the input (INPUT_TRANSFORM: in_c % 4 == 0) or
// stores of the output (OUTPUT_TRANSFORM: out_c % 4 == 0, and the slice's
// rows, stride and offset too).
layout(constant_id = 1) const uint VEC4_IO = 0;
// 1: the output is a slice of a larger tensor (output_slice.glsl).
layout(constant_id = 2) const uint SLICED = 0;

layout(push_constant) uniform Params {
    uint in_h, in_w, in_c;
    uint out_h, out_w, out_c;
    int pad_left, pad_top;
    uint tiles_x, tiles_y;
    uint tiles;  // batches * tiles_y * tiles_x
    uint in_c4;  // vec4s of V per tile and position: ceil(in_c / 4)
    uint out_c4; // vec4s of M per tile and position (out_c rounded up to the matrix product's block)
    uint out_row, out_stride, out_offset; // SLICED
    float act_min, act_max;
} p;

#include "output_slice.glsl"

// The tile of flat index tile: its batch and its first output row and column.
uvec3 tile_origin(uint tile) {
    uint tx = tile % p.tiles_x;
    uint rest = tile / p.tiles_x;
    return uvec3(rest / p.tiles_y, (rest % p.tiles_y) * TILE, tx * TILE);
}

#if defined(INPUT_TRANSFORM)
layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 0) readonly buffer Input4 { STORAGE_VEC4 x4[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Transformed { vec4 v[]; };

// r = B^T d along one axis.
#if TILE == 2
void transform_1d(in vec4 d[N], out vec4 r[N]) {
    r[0] = d[0] - d[2];
    r[1] = d[1] + d[2];
    r[2] = d[2] - d[1];
    r[3] = d[1] - d[3];
}
#else
void transform_1d(in vec4 d[N], out vec4 r[N]) {
    r[0] = 4.0 * d[0] - 5.0 * d[2] + d[4];
    r[1] = d[3] + d[4] - 4.0 * (d[1] + d[2]);
    r[2] = d[4] - d[3] + 4.0 * (d[1] - d[2]);
    r[3] = d[4] - d[2] + 2.0 * (d[3] - d[1]);
    r[4] = d[4] - d[2] + 2.0 * (d[1] - d[3]);
    r[5] = 4.0 * d[1] - 5.0 * d[3] + d[5];
}
#endif

// Input channels 4 * c4 .. 4 * c4 + 3 of pixel (iy, ix) of batch n; zeros
// outside the input and past in_c.
vec4 load_input(uint n, int iy, int ix, uint c4) {
    if (iy < 0 || iy >= int(p.in_h) || ix < 0 || ix >= int(p.in_w)) return vec4(0);
    uint base = ((n * p.in_h + uint(iy)) * p.in_w + uint(ix)) * p.in_c;
    if (VEC4_IO == 1) return vec4(x4[base / 4 + c4]);
    vec4 r = vec4(0);
    for (uint k = 0; k < 4; ++k)
        if (c4 * 4 + k < p.in_c) r[k] = float(x[base + c4 * 4 + k]);
    return r;
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.tiles * p.in_c4) return;
    uint c4 = i % p.in_c4;
    uint tile = i / p.in_c4;
    uvec3 origin = tile_origin(tile);
    int y0 = int(origin.y) - p.pad_top;
    int x0 = int(origin.z) - p.pad_left;
    vec4 d[T];
    for (uint r = 0; r < N; ++r)
        for (uint c = 0; c < N; ++c) d[r * N + c] = load_input(origin.x, y0 + int(r), x0 + int(c), c4);
    // B^T d: each column; then (B^T d) B: each row.
    vec4 line[N], out_line[N];
    for (uint c = 0; c < N; ++c) {
        for (uint k = 0; k < N; ++k) line[k] = d[k * N + c];
        transform_1d(line, out_line);
        for (uint k = 0; k < N; ++k) d[k * N + c] = out_line[k];
    }
    uint first = tile * T * p.in_c4 + c4;
    for (uint r = 0; r < N; ++r) {
        for (uint k = 0; k < N; ++k) line[k] = d[r * N + k];
        transform_1d(line, out_line);
        for (uint k = 0; k < N; ++k) v[first + (r * N + k) * p.in_c4] = out_line[k];
    }
}
#endif

#if defined(OUTPUT_TRANSFORM)
layout(std430, set = 0, binding = 0) readonly buffer Product { vec4 m[]; };
layout(std430, set = 0, binding = 1) readonly buffer Bias { STORAGE_T bias[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output4 { STORAGE_VEC4 y4[]; };

// o = A^T s along one axis.
#if TILE == 2
void transform_1d(in vec4 s[N], out vec4 o[TILE]) {
    o[0] = s[0] + s[1] + s[2];
    o[1] = s[1] - s[2] - s[3];
}
#else
void transform_1d(in vec4 s[N], out vec4 o[TILE]) {
    vec4 sum12 = s[1] + s[2], diff12 = s[1] - s[2];
    vec4 sum34 = s[3] + s[4], diff34 = s[3] - s[4];
    o[0] = s[0] + sum12 + sum34;
    o[1] = diff12 + 2.0 * diff34;
    o[2] = sum12 + 4.0 * sum34;
    o[3] = diff12 + 8.0 * diff34 + s[5];
}
#endif

void store(uint o, uint oc, vec4 value) {
    value = clamp(value, p.act_min, p.act_max);
    if (VEC4_IO == 1) {
        y4[slice_index(o) / 4] = STORAGE_VEC4(value);
        return;
    }
    for (uint k = 0; k < 4; ++k)
        if (oc + k < p.out_c) y[slice_index(o + k)] = STORAGE_T(value[k]);
}

void main() {
    uint i = flat_invocation_index();
    uint groups = (p.out_c + 3) / 4;
    if (i >= p.tiles * groups) return;
    uint c4 = i % groups;
    uint tile = i / groups;
    uint oc = c4 * 4;
    vec4 s[T];
    uint first = tile * T * p.out_c4 + c4;
    for (uint t = 0; t < T; ++t) s[t] = m[first + t * p.out_c4];
    // A^T s: each column (TILE rows of N); then (A^T s) A: each row.
    vec4 line[N], out_line[TILE], half_done[TILE * N];
    for (uint c = 0; c < N; ++c) {
        for (uint k = 0; k < N; ++k) line[k] = s[k * N + c];
        transform_1d(line, out_line);
        for (uint k = 0; k < TILE; ++k) half_done[k * N + c] = out_line[k];
    }
    uint last = p.out_c - 1;
    vec4 b = vec4(float(bias[min(oc, last)]), float(bias[min(oc + 1, last)]),
                  float(bias[min(oc + 2, last)]), float(bias[min(oc + 3, last)]));
    uvec3 origin = tile_origin(tile);
    for (uint r = 0; r < TILE; ++r) {
        uint oy = origin.y + r;
        if (oy >= p.out_h) break;
        for (uint k = 0; k < N; ++k) line[k] = half_done[r * N + k];
        transform_1d(line, out_line);
        for (uint k = 0; k < TILE; ++k) {
            uint ox = origin.z + k;
            if (ox >= p.out_w) break;
            store(((origin.x * p.out_h + oy) * p.out_w + ox) * p.out_c + oc, oc, out_line[k] + b);
        }
    }
}
#endif
