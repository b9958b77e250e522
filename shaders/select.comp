#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant select_f32: -DELEM_F32
// variant select_f16: -DELEM_F16
// variant select_i32: -DELEM_I32
// variant select_q8: -DELEM_Q8
// variant select_q8s: -DELEM_Q8S
// SELECT: out = condition ? a : b, elementwise over equal shapes. Quantized
// values are requantized from each input's encoding to the output's.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(ELEM_I32)
#define STORAGE_T int
#define VALUE_OF(x) (x)
#else
#include "elem_types.glsl"
#define VALUE_OF(x) float(x)
#endif

layout(std430, set = 0, binding = 0) readonly buffer Condition { uint8_t condition[]; };
layout(std430, set = 0, binding = 1) readonly buffer InputA { STORAGE_T a[]; };
layout(std430, set = 0, binding = 2) readonly buffer InputB { STORAGE_T b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };

layout(push_constant) uniform Params {
    uint count;
    float a_scale; int a_zero_point;
    float b_scale; int b_zero_point;
    float out_scale; int out_zero_point;
    float q_min, q_max;
} p;

void main() {
    uint i = flat_invocation_index();
    if (i >= p.count) return;
    bool pick_a = uint(condition[i]) != 0u;
#if defined(QUANTIZED)
    float real = pick_a ? float(int(a[i]) - p.a_zero_point) * p.a_scale
                        : float(int(b[i]) - p.b_zero_point) * p.b_scale;
    // Requantized as the reference requantizes (as MAXIMUM does).
    int q = requantize_real(real, p.out_scale, p.out_zero_point);
    y[i] = STORAGE_T(clamp(q, int(p.q_min), int(p.q_max)));
#else
    // Through float32: selecting between 16-bit values would be float16
    // arithmetic (the Float16 capability), which a device may lack; the
    // round trip is exact for float16 and int32 alike.
    y[i] = STORAGE_T(pick_a ? VALUE_OF(a[i]) : VALUE_OF(b[i]));
#endif
}
