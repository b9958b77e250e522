#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant bbox_transform_f32: -DELEM_F32
// variant bbox_transform_f16: -DELEM_F16
// variant bbox_transform_q8: -DELEM_Q8
// variant bbox_transform_q8s: -DELEM_Q8S
// AXIS_ALIGNED_BBOX_TRANSFORM, one invocation per (box, class): the box
// moved and scaled by the class's deltas [dx, dy, dw, dh], then clipped to
// its image, in single precision in the reference's order. The 8-bit
// variants read quant8 deltas with quant16 boxes, image sizes and output
// (1/8 pixel). A batch index out of range or an inverted box (x2 < x1 or
// y2 < y1; the reference accepts a box of no width or height) is reported
// in the status word (nothing is read out of bounds).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#include "runtime_status.glsl"

#if defined(QUANTIZED)
#define BOX_T uint16_t
#define BOX_VALUE(v) (0.125 * float(uint(v)))
#else
#define BOX_T STORAGE_T
#define BOX_VALUE(v) float(v)
#endif

layout(std430, set = 0, binding = 0) readonly buffer Boxes { BOX_T boxes[]; };
layout(std430, set = 0, binding = 1) readonly buffer Deltas { STORAGE_T deltas[]; };
layout(std430, set = 0, binding = 2) readonly buffer Batches { int batch_of[]; };
layout(std430, set = 0, binding = 3) readonly buffer Images { BOX_T images[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Output { BOX_T y[]; };

layout(push_constant) uniform Params {
    uint boxes_count, classes, batches;
    float delta_scale;
    int delta_zero;
    uint check_code;  // reported for a bad batch index or an empty box
} p;

float delta_at(uint i) {
#if defined(QUANTIZED)
    precise float v = p.delta_scale * float(int(deltas[i]) - p.delta_zero);
    return v;
#else
    return float(deltas[i]);
#endif
}

void store(uint i, float v) {
#if defined(QUANTIZED)
    float code = round_half_away(nearest_quotient(v, 0.125));
    y[i] = BOX_T(uint(clamp(code, 0.0, 65535.0)));
#else
    y[i] = BOX_T(v);
#endif
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.boxes_count * p.classes) return;
    uint box = i / p.classes;
    vec4 b = vec4(BOX_VALUE(boxes[4u * box]), BOX_VALUE(boxes[4u * box + 1u]), BOX_VALUE(boxes[4u * box + 2u]),
                  BOX_VALUE(boxes[4u * box + 3u]));
    int batch = batch_of[box];
    bool batch_ok = batch >= 0 && batch < int(p.batches);
    if (!batch_ok || !(b.x <= b.z && b.y <= b.w)) {
        report_invalid_value(p.check_code, batch_ok ? RULE_BOX_INVERTED : RULE_BATCH_INDEX_OUT_OF_RANGE);
        batch = 0;
    }
    float image_h = BOX_VALUE(images[2u * uint(batch)]);
    float image_w = BOX_VALUE(images[2u * uint(batch) + 1u]);
    // Centre form, then the deltas, then corners again (the reference's order).
    precise float w = b.z - b.x;
    precise float h = b.w - b.y;
    precise float cx = (b.x + b.z) / 2.0;
    precise float cy = (b.y + b.w) / 2.0;
    uint d = 4u * i;
    precise float new_w = exp(delta_at(d + 2u)) * w;
    precise float new_h = exp(delta_at(d + 3u)) * h;
    precise float new_x = cx + delta_at(d) * w;
    precise float new_y = cy + delta_at(d + 1u) * h;
    precise vec4 corners = vec4(new_x - new_w / 2.0, new_y - new_h / 2.0, new_x + new_w / 2.0, new_y + new_h / 2.0);
    vec4 clipped = min(max(corners, vec4(0.0)), vec4(image_w, image_h, image_w, image_h));
    store(d, clipped.x);
    store(d + 1u, clipped.y);
    store(d + 2u, clipped.z);
    store(d + 3u, clipped.w);
}
