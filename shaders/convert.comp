#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant convert:
// Element type conversions: CAST (values as numbers, saturated to the output
// type), QUANTIZE (round(x / scale) + zero point) and DEQUANTIZE
// ((q - zero point) * scale, the scale possibly per channel).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "typed_io.glsl"

layout(constant_id = 1) const int MODE = 0;  // 0 cast, 1 quantize, 2 dequantize

// Dequantization scales: one, or one per channel.
layout(std430, set = 0, binding = 2) readonly buffer Scales { float scales[]; };

layout(push_constant) uniform Params {
    uint count;
    float scale;       // quantize: output scale
    int zero_point;    // quantize: output; dequantize: input
    int lo, hi;        // integer output range
    uint inner;        // dequantize: elements per channel step
    uint channels;     // dequantize: 1, or the number of per-channel scales
} p;

void main() {
    uint i = flat_invocation_index();
    if (i >= p.count) return;
    if (MODE == 2) {
        float s = scales[(i / p.inner) % p.channels];
        store_float(i, float(load_int(i) - p.zero_point) * s);
    } else if (MODE == 1) {
        // The reference divides in single precision, correctly rounded.
        float q = round_half_away(nearest_quotient(load_float(i), p.scale)) + float(p.zero_point);
        store_int(i, int(clamp(q, float(p.lo), float(p.hi))));
    } else if (kind_is_float(OUT_KIND)) {
        store_float(i, kind_is_float(IN_KIND) ? load_float(i) : float(load_int(i)));
    } else if (kind_is_float(IN_KIND)) {
        store_int(i, int(clamp(load_float(i), float(p.lo), float(p.hi))));
    } else {
        store_int(i, clamp(load_int(i), p.lo, p.hi));
    }
}
