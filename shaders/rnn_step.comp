#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant rnn_step_f32: -DSTEP_F32
// variant rnn_step_f16: -DSTEP_F16
// One time step of a basic RNN cell (RNN, UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN), after the matrix kernels computed its
// products: for batch b and unit u,
//     h = clamp(proj[t, b, u] + aux[t, b, u] + rec[b, u], act_min, act_max)
// where proj holds the input projection of every step with the bias
// (rows in the input's order: time-major or batch-major), aux the auxiliary
// input's projection (cross-linking; absent: has_aux 0), and rec the previous
// state times the recurrent weights. h goes to the state (read by the next
// step's product, or the operation's state output) and to the output row of
// step t, at a column offset (BIDIRECTIONAL_SEQUENCE_RNN's merged outputs).
// Variants by element type: STEP_F32, STEP_F16 (computed in float32).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#if defined(STEP_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ELEM_T float16_t
#else
#define ELEM_T float
#endif

layout(std430, set = 0, binding = 0) readonly buffer Proj { ELEM_T proj[]; };
layout(std430, set = 0, binding = 1) readonly buffer Aux { ELEM_T aux[]; };
layout(std430, set = 0, binding = 2) readonly buffer Rec { ELEM_T rec[]; };
layout(std430, set = 0, binding = 3) writeonly buffer State { ELEM_T state[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Output { ELEM_T y[]; };

layout(push_constant) uniform Params {
    uint batch, units;
    uint proj_base, proj_batch_stride;  // step t's first row, rows between batches
    uint out_base, out_batch_stride;    // the same in the output (elements)
    uint has_aux;
    float act_min, act_max;
} p;

void main() {
    uint i = flat_invocation_index();
    if (i >= p.batch * p.units) return;
    uint b = i / p.units, u = i - b * p.units;
    uint at = p.proj_base + b * p.proj_batch_stride + u;
    float v = float(proj[at]) + float(rec[i]);
    if (p.has_aux != 0u) v += float(aux[at]);
    v = clamp(v, p.act_min, p.act_max);
    state[i] = ELEM_T(v);
    y[p.out_base + b * p.out_batch_stride + u] = ELEM_T(v);
}
