#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant roi_align_f32: -DELEM_F32
// variant roi_align_f16: -DELEM_F16
// variant roi_align_q8: -DELEM_Q8
// variant roi_align_q8s: -DELEM_Q8S
// ROI_ALIGN, one invocation per output element: the average of a grid of
// bilinear samples inside the element's bin of its region, computed as the
// NNAPI reference computes it (single precision, uncontracted; quantized
// inputs with weights in 1/255 steps, an integer sum and a fixed-point
// rescale). Boxes come as float32, float16, or quant16 in 1/8 pixel (the
// 8-bit variants). A batch index or box the reference would reject is
// reported in the status word (the execution fails; nothing is read out
// of bounds).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "fixed_point.glsl"
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

// The region's bounds in feature-map pixels (x1, y1, x2, y2), and the rule
// its batch index or box breaks, as the reference checks them (0: none).
uint scaled_box(uint r, int batch, out vec4 box) {
    vec4 raw = load_box(r);
#if defined(QUANTIZED)
    precise vec4 b = raw * vec4(p.scale_w, p.scale_h, p.scale_w, p.scale_h) * 0.125;
    box = b;
    return region_rule(batch, b.x <= b.z && b.y <= b.w,
                       b.x <= float(p.in_w) && b.y <= float(p.in_h) && b.z <= float(p.in_w) &&
                           b.w <= float(p.in_h));
#else
    precise vec4 b = raw * vec4(p.scale_w, p.scale_h, p.scale_w, p.scale_h);
    box = b;
    return region_rule(batch, raw.x <= raw.z && raw.y <= raw.w,
                       all(greaterThanEqual(raw, vec4(0.0))) && b.x <= float(p.in_w) &&
                           b.y <= float(p.in_h) && b.z <= float(p.in_w) && b.w <= float(p.in_h));
#endif
}

// One axis of a bin: its start, the distance between samples and their count.
struct Axis {
    float start, bin;
    uint samples;
};

Axis axis_of(float roi_start, float roi_end, uint out_size, uint index, int ratio) {
    Axis a;
    float extent = max(roi_end - roi_start, 1.0);
    float step = nearest_quotient(extent, float(out_size));
    a.samples = ratio > 0 ? uint(ratio) : uint(ceil(step));
    a.bin = nearest_quotient(step, float(a.samples));
    precise float start = step * float(index) + roi_start;
    a.start = start;
    return a;
}

// Sample k's coordinate along an axis, the lower pixel and its weight's
// complement, clamped at the last pixel as the reference clamps.
void sample_at(Axis a, uint k, uint size, out uint lo, out uint hi, out float frac) {
    precise float s = a.start + a.bin * 0.5 + a.bin * float(k);
    lo = uint(floor(s));
    hi = lo + 1u;
    precise float f = s - float(lo);
    frac = f;
    if (lo >= size - 1u) {
        lo = hi = size - 1u;
        frac = 0.0;
    }
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.regions * p.out_h * p.out_w * p.channels) return;
    OutputIndex o = output_index(i);
    vec4 box;
    int batch = load_batch(o.region);
    uint rule = scaled_box(o.region, batch, box);
    if (rule != 0u) {
        report_invalid_value(p.check_code, rule);
        y[i] = x[0];  // any value: the execution fails
        return;
    }
    Axis ay = axis_of(box.y, box.w, p.out_h, o.y, p.sampling_h);
    Axis ax = axis_of(box.x, box.z, p.out_w, o.x, p.sampling_w);
#if defined(QUANTIZED)
    int sum = 0;
#else
    float sum = 0.0;
#endif
    for (uint ky = 0u; ky < ay.samples; ++ky) {
        uint y1, y2;
        float dy1;
        sample_at(ay, ky, p.in_h, y1, y2, dy1);
        for (uint kx = 0u; kx < ax.samples; ++kx) {
            uint x1, x2;
            float dx1;
            sample_at(ax, kx, p.in_w, x1, x2, dx1);
            precise float dx2 = 1.0 - dx1;
            precise float dy2 = 1.0 - dy1;
            precise vec4 w = vec4(dx2 * dy2, dx1 * dy2, dx2 * dy1, dx1 * dy1);
            vec4 v = vec4(load(input_offset(uint(batch), o.c, y1, x1)),
                          load(input_offset(uint(batch), o.c, y1, x2)),
                          load(input_offset(uint(batch), o.c, y2, x1)),
                          load(input_offset(uint(batch), o.c, y2, x2)));
#if defined(QUANTIZED)
            // Weights as integers in 1/255 steps, rounded as the reference rounds them.
            const float weight_unit = 1.0 / 255.0;
            ivec4 wq = ivec4(round_half_away(nearest_quotient(w.x, weight_unit)),
                             round_half_away(nearest_quotient(w.y, weight_unit)),
                             round_half_away(nearest_quotient(w.z, weight_unit)),
                             round_half_away(nearest_quotient(w.w, weight_unit)));
            ivec4 centered = ivec4(v) - p.in_zero;
            sum += wq.x * centered.x + wq.y * centered.y + wq.z * centered.z + wq.w * centered.w;
#else
            precise float interpolation = 0.0;
            interpolation += w.x * v.x;
            interpolation += w.y * v.y;
            interpolation += w.z * v.z;
            interpolation += w.w * v.w;
            precise float total = sum + interpolation;
            sum = total;
#endif
        }
    }
    uint points = ay.samples * ax.samples;
#if defined(QUANTIZED)
    // The reference's multiplier for this region: in_scale / 255 / out_scale
    // / points, then split into mantissa and exponent (below one, or rejected).
    float real = nearest_quotient(p.multiplier, float(points));
    if (!(real < 1.0)) {
        report_invalid_value(p.check_code, RULE_REGION_SCALE);
        y[i] = x[0];  // any value: the execution fails
        return;
    }
    int exponent;
    float mantissa = frexp(real, exponent);
    int code = real == 0.0 || exponent < -31
                   ? 0
                   : multiply_by_quantized_multiplier(sum, int(mantissa * 2147483648.0), exponent);
    code += p.out_zero;
#if defined(ELEM_Q8)
    y[i] = STORAGE_T(clamp(code, 0, 255));
#else
    y[i] = STORAGE_T(clamp(code, -128, 127));
#endif
#else
    y[i] = STORAGE_T(nearest_quotient(sum, float(points)));
#endif
}
