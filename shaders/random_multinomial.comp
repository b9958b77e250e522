#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant random_multinomial_f32: -DLOGITS_F32
// variant random_multinomial_f16: -DLOGITS_F16
// RANDOM_MULTINOMIAL: sample s of batch b is a class drawn with probability
// softmax(logits[b])[class]. One invocation per sample: a uniform number u
// in [0, 1) from a counter-based generator (Philox-2x32, keyed by the two
// seeds, counting by batch and sample: the same seeds give the same
// samples, and no state is carried between executions), then the first
// class whose running sum of exp(logit - max) exceeds u times their total.
// The result is always a class in [0, classes).
// Variants by the logits' type: LOGITS_F32, LOGITS_F16 (computed in float32).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(LOGITS_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define LOGIT_T float16_t
#else
#define LOGIT_T float
#endif

layout(std430, set = 0, binding = 0) readonly buffer Logits { LOGIT_T logits[]; };
layout(std430, set = 0, binding = 1) readonly buffer Seeds { uint seeds[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Output { int y[]; };

layout(push_constant) uniform Params {
    uint batches, classes, samples;
} p;

// Ten rounds of Philox-2x32 on counter c with key k.
uvec2 philox(uvec2 c, uint k) {
    for (int round = 0; round < 10; ++round) {
        uint hi, lo;
        umulExtended(0xD256D193u, c.x, hi, lo);
        c = uvec2(hi ^ k ^ c.y, lo);
        k += 0x9E3779B9u;
    }
    return c;
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.batches * p.samples) return;
    uint b = i / p.samples, s = i - b * p.samples;
    uvec2 bits = philox(philox(uvec2(s, b), seeds[0]), seeds[1]);
    float u = float(bits.x >> 8) * (1.0 / 16777216.0);
    uint row = b * p.classes;
    float top = float(logits[row]);
    for (uint c = 1u; c < p.classes; ++c) top = max(top, float(logits[row + c]));
    float total = 0.0;
    for (uint c = 0u; c < p.classes; ++c) total += exp(float(logits[row + c]) - top);
    float target = u * total, running = 0.0;
    int pick = int(p.classes) - 1;  // rounding (or NaN logits) never leaves the range
    for (uint c = 0u; c < p.classes; ++c) {
        running += exp(float(logits[row + c]) - top);
        if (running > target) {
            pick = int(c);
            break;
        }
    }
    y[i] = pick;
}
