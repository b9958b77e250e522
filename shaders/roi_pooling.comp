#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant roi_pooling_f32: -DELEM_F32
// variant roi_pooling_f16: -DELEM_F16
// variant roi_pooling_q8: -DELEM_Q8
// variant roi_pooling_q8s: -DELEM_Q8S
// ROI_POOLING, one invocation per output element: the maximum over the
// element's bin of its region, the bins cut as the NNAPI reference cuts them
// (box corners rounded to pixels, floor of the start, ceil of the end). An
// empty bin gives the zero point. Quantized values keep their encoding, so
// the maximum is taken on the codes. A batch index or box the reference
// would reject is reported in the status word (the execution fails;
// nothing is read out of bounds).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "runtime_status.glsl"
#include "roi_common.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };

float load(uint i) {
#if defined(QUANTIZED)
    return float(int(x[i]));
#else
    return float(x[i]);
#endif
}

// The box in pixels of the input image's scale (quant16 codes are 1/8 pixel).
vec4 box_in_pixels(uint r) {
#if defined(QUANTIZED)
    precise vec4 b = 0.125 * load_box(r);
    return b;
#else
    return load_box(r);
#endif
}

// Bin index of an axis: [start, end) in input pixels, clamped to the input.
uvec2 bin_bounds(int roi_start, int roi_end, uint out_size, uint index, uint in_size) {
    float extent = float(max(roi_end - roi_start + 1, 1));
    float step = nearest_quotient(extent, float(out_size));
    precise float lo = step * float(index) + float(roi_start);
    precise float hi = step * float(index + 1u) + float(roi_start);
    return uvec2(min(uint(floor(lo)), in_size), min(uint(ceil(hi)), in_size));
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.regions * p.out_h * p.out_w * p.channels) return;
    OutputIndex o = output_index(i);
    vec4 raw = box_in_pixels(o.region);
    precise vec4 b = raw * vec4(p.scale_w, p.scale_h, p.scale_w, p.scale_h);
    int batch = load_batch(o.region);
    uint rule = region_rule(batch, raw.x <= raw.z && raw.y <= raw.w,
                            all(greaterThanEqual(raw, vec4(0.0))) && b.x <= float(p.in_w) &&
                                b.y <= float(p.in_h) && b.z <= float(p.in_w) && b.w <= float(p.in_h));
    if (rule != 0u) {
        report_invalid_value(p.check_code, rule);
        y[i] = x[0];  // any value: the execution fails
        return;
    }
    ivec4 corner = ivec4(round_half_away(b.x), round_half_away(b.y), round_half_away(b.z),
                         round_half_away(b.w));
    uvec2 rows = bin_bounds(corner.y, corner.w, p.out_h, o.y, p.in_h);
    uvec2 cols = bin_bounds(corner.x, corner.z, p.out_w, o.x, p.in_w);
    // The maximum's position: the value is copied with its bits.
    uint best_at = 0xffffffffu;
    float best = 0.0;
    for (uint yy = rows.x; yy < rows.y; ++yy) {
        for (uint xx = cols.x; xx < cols.y; ++xx) {
            uint at = input_offset(uint(batch), o.c, yy, xx);
            float v = load(at);
            if (best_at == 0xffffffffu || v > best) {
                best = v;
                best_at = at;
            }
        }
    }
    if (best_at != 0xffffffffu) {
        y[i] = x[best_at];
        return;
    }
#if defined(QUANTIZED)
    y[i] = STORAGE_T(p.in_zero);
#else
    y[i] = STORAGE_T(0.0);
#endif
}
