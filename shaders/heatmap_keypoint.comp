#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant heatmap_keypoint_f32: -DELEM_F32
// variant heatmap_keypoint_f16: -DELEM_F16
// variant heatmap_keypoint_q8: -DELEM_Q8
// variant heatmap_keypoint_q8s: -DELEM_Q8S
// HEATMAP_MAX_KEYPOINT: a workgroup per (box, keypoint). Its lanes find the
// heatmap's maximum together (strided scans, then a tree in shared memory;
// the first maximum wins, as the reference's scan keeps it), then lane 0
// refines the position with the reference's quadratic fit on the 3x3
// neighbourhood (mirrored at the edges) and maps it into the box. Computed
// in single precision in the reference's order; quantized inputs are
// dequantized, the score requantized and the keypoints written as quant16
// in 1/8 pixel. A box with x2 < x1 or y2 < y1 is reported in the status
// word, as the reference rejects it.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "runtime_status.glsl"

layout(constant_id = 1) const int NCHW = 0;

#if defined(QUANTIZED)
#define BOX_T uint16_t
#define BOX_VALUE(v) (0.125 * float(uint(v)))
#else
#define BOX_T STORAGE_T
#define BOX_VALUE(v) float(v)
#endif

layout(std430, set = 0, binding = 0) readonly buffer Heatmap { STORAGE_T heat[]; };
layout(std430, set = 0, binding = 1) readonly buffer Boxes { BOX_T boxes[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Scores { STORAGE_T scores[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Keypoints { BOX_T keypoints[]; };

layout(push_constant) uniform Params {
    uint boxes_count, size, keypoints_count;
    float in_scale;
    int in_zero;
    float score_scale;
    int score_zero;
    float tolerance;  // the reference's absolute and relative tolerance of the fit
    uint check_code;  // reported for an inverted box
} p;

const uint LANES = 64u;
shared float best_value[LANES];
shared uint best_index[LANES];

float heat_at(uint box, uint k, uint row, uint col) {
    uint i = NCHW == 1 ? ((box * p.keypoints_count + k) * p.size + row) * p.size + col
                       : ((box * p.size + row) * p.size + col) * p.keypoints_count + k;
#if defined(QUANTIZED)
    precise float v = p.in_scale * float(int(heat[i]) - p.in_zero);
    return v;
#else
    return float(heat[i]);
#endif
}

// x / s rounded as a CPU divides, for either sign of s.
float divide(float x, float s) { return s < 0.0 ? nearest_quotient(-x, -s) : nearest_quotient(x, s); }

// Whether (v, i) ranks before (w, j): larger, or equal and earlier. No
// candidate at all is UINT_MAX.
bool ranks_before(float v, uint i, float w, uint j) {
    if (j == 0xffffffffu) return i != 0xffffffffu;
    return i != 0xffffffffu && (v > w || (v == w && i < j));
}

// The mirrored neighbour of a position along an axis (size >= 2).
uint mirrored(int v) { return uint(v < 0 ? 1 : (v >= int(p.size) ? int(p.size) - 2 : v)); }

// The quadratic fit: the position correction and the corrected score.
void solve_for_delta(float g[9], inout vec2 delta, inout float score) {
    precise float b0 = -(g[5] - g[3]) / 2.0;
    precise float b1 = -(g[7] - g[1]) / 2.0;
    precise float a00 = g[3] - 2.0 * g[4] + g[5];
    precise float a01 = (g[8] - g[6] - g[2] + g[0]) / 4.0;
    precise float a11 = g[1] - 2.0 * g[4] + g[7];
    precise float cross1 = a00 * a11;
    precise float cross2 = a01 * a01;
    precise float det = cross1 - cross2;
    precise float limit = p.tolerance + p.tolerance * cross1;
    if (abs(det) < limit) return;
    precise float n0 = a11 * b0 - a01 * b1;
    precise float n1 = a00 * b1 - a01 * b0;
    vec2 d = vec2(divide(n0, det), divide(n1, det));
    if (abs(d.x) > 1.5 || abs(d.y) > 1.5) {
        float shrink = nearest_quotient(1.5, max(abs(d.x), abs(d.y)));
        precise vec2 shrunk = d * shrink;
        d = shrunk;
    }
    delta = d;
    precise float quad = ((a00 * d.x + a01 * d.y) * d.x + (a01 * d.x + a11 * d.y) * d.y) / 2.0;
    precise float s = g[4] - b0 * d.x - b1 * d.y + quad;
    score = s;
}

#if defined(QUANTIZED)
int quantize(float v, float scale, int zero, int lo, int hi) {
    float code = float(zero) + round_half_away(nearest_quotient(v, scale));
    return int(clamp(code, float(lo), float(hi)));
}
#endif

void store_score(uint i, float v) {
#if defined(ELEM_Q8)
    scores[i] = STORAGE_T(quantize(v, p.score_scale, p.score_zero, 0, 255));
#elif defined(ELEM_Q8S)
    scores[i] = STORAGE_T(quantize(v, p.score_scale, p.score_zero, -128, 127));
#else
    scores[i] = STORAGE_T(v);
#endif
}

void store_keypoint(uint i, float v) {
#if defined(QUANTIZED)
    keypoints[i] = BOX_T(uint(quantize(v, 0.125, 0, 0, 65535)));
#else
    keypoints[i] = BOX_T(v);
#endif
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (group >= p.boxes_count * p.keypoints_count) return;
    uint box = group / p.keypoints_count;
    uint k = group - box * p.keypoints_count;
    uint lane = gl_LocalInvocationID.x;
    // The reference keeps a value only when it exceeds the best so far,
    // starting from -FLT_MAX: NaNs and -FLT_MAX itself are never taken.
    float value = -3.40282347e38;
    uint index = 0xffffffffu;
    uint cells = p.size * p.size;
    for (uint c = lane; c < cells; c += LANES) {
        float v = heat_at(box, k, c / p.size, c % p.size);
        if (v > value) {
            value = v;
            index = c;
        }
    }
    best_value[lane] = value;
    best_index[lane] = index;
    barrier();
    for (uint half_count = LANES / 2u; half_count > 0u; half_count /= 2u) {
        if (lane < half_count &&
            ranks_before(best_value[lane + half_count], best_index[lane + half_count], best_value[lane],
                         best_index[lane])) {
            best_value[lane] = best_value[lane + half_count];
            best_index[lane] = best_index[lane + half_count];
        }
        barrier();
    }
    if (lane != 0u) return;
    uint max_index = best_index[0] == 0xffffffffu ? 0u : best_index[0];
    float max_score = best_value[0];
    uint col = max_index % p.size, row = max_index / p.size;
    float grid[9];
    for (int dh = -1; dh <= 1; ++dh)
        for (int dw = -1; dw <= 1; ++dw)
            grid[(dh + 1) * 3 + dw + 1] = heat_at(box, k, mirrored(int(row) + dh), mirrored(int(col) + dw));
    vec2 delta = vec2(0.0);
    float score = max_score;
    solve_for_delta(grid, delta, score);

    vec4 b = vec4(BOX_VALUE(boxes[4u * box]), BOX_VALUE(boxes[4u * box + 1u]), BOX_VALUE(boxes[4u * box + 2u]),
                  BOX_VALUE(boxes[4u * box + 3u]));
    if (!(b.x <= b.z && b.y <= b.w)) report_invalid_value(p.check_code, RULE_BOX_INVERTED);
    precise float width = b.z - b.x;
    precise float height = b.w - b.y;
    precise float wn = float(col) + delta.x + 0.5;
    precise float hn = float(row) + delta.y + 0.5;
    float w_rel = nearest_quotient(wn, float(p.size));
    float h_rel = nearest_quotient(hn, float(p.size));
    precise float kx = w_rel * width + b.x;
    precise float ky = h_rel * height + b.y;
    uint out_i = box * p.keypoints_count + k;
    store_score(out_i, score);
    store_keypoint(2u * out_i, kx);
    store_keypoint(2u * out_i + 1u, ky);
}
