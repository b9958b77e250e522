#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant lstm_gates_f32: -DELEM_F32
// variant lstm_gates_f16: -DELEM_F16
// One time step of an LSTM cell after its matrix products (src/ops/lstm.c):
// the gate nonlinearities, peephole connections, layer normalization, the
// cell update with clipping and the output h = o * g(C). The products of the
// input (all time steps at once) and of the previous output state (this step)
// with the gate weights come in as rows of gate pre-activations, the gates
// side by side: [i | f | c | o] of units columns each, or [f | c | o] with
// CIFG (coupled input and forget gates, i = 1 - f).
//
//   MODE 0 (cell): a workgroup per batch row b; its lanes take units j =
//     lane, lane + workgroup size, ... For each gate
//       a = gx[row(b), gate, j] + gh[b, gate, j] + peephole * C (i and f
//       read C_{t-1}, o reads C_t) + bias (without layer normalization),
//     with layer normalization a = (a - mean) / stddev * ln_weight + bias,
//     mean and variance over the units of the row and gate (a tree in shared
//     memory), stddev = sqrt(variance), or sqrt(1e-8) when the variance is 0,
//     as the NNAPI reference normalizes. Then i, f, o = sigmoid(a),
//     c = g(a), C_t = clip(f * C_{t-1} + i * c), h = o * g(C_t).
//     Writes C_t, h (the next output state, or the input of the projection),
//     h into the sequence output (WRITE_SEQ) and the activated gates into
//     LSTM's scratch buffer (WRITE_SCRATCH).
//   MODE 1 (rows): copies the rows of an output state [batches, width] into
//     the sequence output, one invocation per element (after a projection).
//
// Sequence addressing: batch row b of time step t is row base + b * stride
// of the input projection and of the sequence output (time-major: base =
// t * batches, stride 1; batch-major: base = t, stride = max_time).
// Variants by element type (float16 stored, float32 computed).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(constant_id = 1) const uint MODE = 0;
layout(constant_id = 2) const uint FLAGS = 0;
// The cell's activation g: NNAPI's codes 0 none, 1 relu, 3 relu6, 4 tanh,
// 6 sigmoid.
layout(constant_id = 3) const uint ACTIVATION = 4;

const uint FLAG_CIFG = 1u;
const uint FLAG_PEEPHOLE = 2u;
const uint FLAG_LAYER_NORM = 4u;
const uint FLAG_WRITE_SEQ = 8u;
const uint FLAG_WRITE_SCRATCH = 16u;

layout(std430, set = 0, binding = 0) readonly buffer GateX { STORAGE_T gx[]; };
layout(std430, set = 0, binding = 1) readonly buffer GateH { STORAGE_T gh[]; };
// Rows of units values: biases i, f, c, o (0-3), peepholes i, f, o (4-6),
// layer normalization weights i, f, c, o (7-10).
layout(std430, set = 0, binding = 2) readonly buffer Params { STORAGE_T prm[]; };
layout(std430, set = 0, binding = 3) readonly buffer CellIn { STORAGE_T c_prev[]; };
layout(std430, set = 0, binding = 4) buffer CellOut { STORAGE_T c_next[]; };
layout(std430, set = 0, binding = 5) writeonly buffer HOut { STORAGE_T h_next[]; };
layout(std430, set = 0, binding = 6) writeonly buffer SeqOut { STORAGE_T seq[]; };
layout(std430, set = 0, binding = 7) writeonly buffer Scratch { STORAGE_T scratch[]; };

layout(push_constant) uniform Params_ {
    uint units, gate_cols, batches;
    uint x_base, x_stride;                    // input projection rows
    uint out_base, out_stride, out_width, out_col;  // sequence output
    uint width;                               // MODE 1: row width copied
    float cell_clip;                          // 0: no clipping
} p;

const uint GROUP = 64u;
shared vec4 sh_sum[GROUP];
shared vec4 sh_sq[GROUP];

bool has(uint flag) { return (FLAGS & flag) != 0u; }

float param(uint row, uint j) { return float(prm[row * p.units + j]); }

float activate(float x) {
    if (ACTIVATION == 1u) return max(x, 0.0);
    if (ACTIVATION == 3u) return clamp(x, 0.0, 6.0);
    if (ACTIVATION == 4u) return tanh(x);
    if (ACTIVATION == 6u) return 1.0 / (1.0 + exp(-x));
    return x;
}

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

// Gate g (0 i, 1 f, 2 c, 3 o) before normalization and nonlinearity; cell:
// the cell state its peephole reads.
float pre_activation(uint g, uint b, uint j, float cell) {
    uint col = (has(FLAG_CIFG) ? g - 1u : g) * p.units + j;
    float a = float(gx[(p.x_base + b * p.x_stride) * p.gate_cols + col]) +
              float(gh[b * p.gate_cols + col]);
    if (has(FLAG_PEEPHOLE) && g != 2u) a += param(g == 3u ? 6u : 4u + g, j) * cell;
    if (!has(FLAG_LAYER_NORM)) a += param(g, j);
    return a;
}

// Normalizes (layer normalization: mean and inverse stddev of the gate's row)
// and adds the bias after it, as the reference does.
float normalized(uint g, uint j, float a, vec2 stat) {
    if (!has(FLAG_LAYER_NORM)) return a;
    return (a - stat.x) * stat.y * param(7u + g, j) + param(g, j);
}

// Mean and inverse standard deviation per component from the lanes' sums.
vec4[2] reduce_stats(vec4 sum, vec4 sq) {
    uint lane = gl_LocalInvocationID.x;
    sh_sum[lane] = sum;
    sh_sq[lane] = sq;
    barrier();
    for (uint half_ = GROUP / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) {
            sh_sum[lane] += sh_sum[lane + half_];
            sh_sq[lane] += sh_sq[lane + half_];
        }
        barrier();
    }
    vec4 mean = sh_sum[0] / float(p.units);
    vec4 variance = sh_sq[0] / float(p.units) - mean * mean;
    barrier();  // every lane has read the totals before they are reused
    vec4 inv;
    for (int k = 0; k < 4; ++k)
        inv[k] = variance[k] == 0.0 ? inversesqrt(1e-8) : inversesqrt(variance[k]);
    return vec4[2](mean, inv);
}

void write_scratch(uint g, uint b, uint j, float v) {
    if (has(FLAG_WRITE_SCRATCH) && !(has(FLAG_CIFG) && g == 0u))
        scratch[b * p.gate_cols + (has(FLAG_CIFG) ? g - 1u : g) * p.units + j] = STORAGE_T(v);
}

// The output gate from the new cell state, and h = o * g(C_t).
void finish_output(uint b, uint j, float cell, vec2 stat) {
    float o = sigmoid(normalized(3u, j, pre_activation(3u, b, j, cell), stat));
    write_scratch(3u, b, j, o);
    float h = o * activate(cell);
    h_next[b * p.units + j] = STORAGE_T(h);
    if (has(FLAG_WRITE_SEQ))
        seq[(p.out_base + b * p.out_stride) * p.out_width + p.out_col + j] = STORAGE_T(h);
}

void cell_step(uint b) {
    uint lane = gl_LocalInvocationID.x;
    vec4 stat_mean = vec4(0.0), stat_inv = vec4(1.0);
    if (has(FLAG_LAYER_NORM)) {
        vec4 sum = vec4(0.0), sq = vec4(0.0);
        for (uint j = lane; j < p.units; j += GROUP) {
            float cell = float(c_prev[b * p.units + j]);
            for (uint g = has(FLAG_CIFG) ? 1u : 0u; g < 3u; ++g) {
                float a = pre_activation(g, b, j, cell);
                sum[g] += a;
                sq[g] += a * a;
            }
        }
        vec4 stats[2] = reduce_stats(sum, sq);
        stat_mean = stats[0];
        stat_inv = stats[1];
    }
    vec4 o_sum = vec4(0.0), o_sq = vec4(0.0);
    for (uint j = lane; j < p.units; j += GROUP) {
        float cell = float(c_prev[b * p.units + j]);
        float f = sigmoid(normalized(1u, j, pre_activation(1u, b, j, cell), vec2(stat_mean.y, stat_inv.y)));
        float c = activate(normalized(2u, j, pre_activation(2u, b, j, cell), vec2(stat_mean.z, stat_inv.z)));
        float i = has(FLAG_CIFG) ? 1.0 - f
                                 : sigmoid(normalized(0u, j, pre_activation(0u, b, j, cell),
                                                      vec2(stat_mean.x, stat_inv.x)));
        float next = f * cell + i * c;
        if (p.cell_clip > 0.0) next = clamp(next, -p.cell_clip, p.cell_clip);
        c_next[b * p.units + j] = STORAGE_T(next);
        write_scratch(0u, b, j, i);
        write_scratch(1u, b, j, f);
        write_scratch(2u, b, j, c);
        if (has(FLAG_LAYER_NORM)) {
            float a = pre_activation(3u, b, j, next);
            o_sum.w += a;
            o_sq.w += a * a;
        } else {
            finish_output(b, j, next, vec2(0.0, 1.0));
        }
    }
    if (!has(FLAG_LAYER_NORM)) return;
    vec4 stats[2] = reduce_stats(o_sum, o_sq);
    for (uint j = lane; j < p.units; j += GROUP) {
        // This lane wrote c_next[b, j] above: its own write is visible to it.
        finish_output(b, j, float(c_next[b * p.units + j]), vec2(stats[0].w, stats[1].w));
    }
}

void copy_rows() {
    uint index = flat_invocation_index();
    if (index >= p.batches * p.width) return;
    uint b = index / p.width, j = index % p.width;
    seq[(p.out_base + b * p.out_stride) * p.out_width + p.out_col + j] = gx[index];
}

void main() {
    if (MODE == 1u) {
        copy_rows();
        return;
    }
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Uniform in the workgroup: a whole group leaves or none of it.
    if (group >= p.batches) return;
    cell_step(group);
}
