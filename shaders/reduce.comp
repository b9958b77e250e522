#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant reduce_f32: -DELEM_F32
// variant reduce_f16: -DELEM_F16
// variant reduce_q8: -DELEM_Q8
// variant reduce_q8s: -DELEM_Q8S
// REDUCE_SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL and
// MEAN over the rows of reduce_rows.glsl; the operation is specialization
// constant 1. Variants by element storage: float32, float16 (summed in
// float32), uint8 (QUANT8_ASYMM, and BOOL8 for ANY and ALL) and int8. Floats
// accumulate in float32, 8-bit codes in int32; partials of split rows are
// kept in those types.
//
// As the NNAPI reference computes them: MAX and MIN start from the type's
// lowest and highest finite values (float16: +-65504); quantized MAX and MIN
// compare codes (input and output share their encoding); quantized MEAN sums
// the codes and divides in integers, truncating toward zero, and float MEAN
// divides the float sum by the element count; ANY and ALL read any non-zero
// byte as true and write 0 or 1.
//
// Also pooling over whole images (pool2d.c, where the window covers the
// image): POOL_MAX, POOL_AVERAGE and POOL_L2 with the pooling's fused
// activation (CLAMP). POOL_MAX starts from float32's lowest value as
// pool2d.comp does (a float16 image of -inf pools to -inf, where REDUCE_MAX
// gives -65504); POOL_AVERAGE divides as pool2d.comp does (float: the sum by
// the count; quantized: the code sum, halves away from zero), POOL_L2 sums
// the squares and takes the root of their mean.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

layout(constant_id = 1) const uint OP = 0;
const uint SUM = 0, PROD = 1, MAX = 2, MIN = 3, MEAN = 4, ANY = 5, ALL = 6;
const uint POOL_AVERAGE = 7, POOL_L2 = 8, POOL_MAX = 9;
// Results clamped to [p.act_min, p.act_max] (a pooling's fused activation).
layout(constant_id = 6) const uint CLAMP = 0;

#include "reduce_rows.glsl"

#if defined(QUANTIZED)
#define ACC_T int
#define ACC4_T ivec4
const int LOWEST = -2147483647 - 1, HIGHEST = 2147483647;
const int POOL_LOWEST = LOWEST;
#elif defined(ELEM_F16)
#define ACC_T float
#define ACC4_T vec4
const float LOWEST = -65504.0, HIGHEST = 65504.0;
const float POOL_LOWEST = -3.402823466e38;
#else
#define ACC_T float
#define ACC4_T vec4
const float LOWEST = -3.402823466e38, HIGHEST = 3.402823466e38;
const float POOL_LOWEST = LOWEST;
#endif

#if defined(ELEM_F32)
#define STORAGE4_T vec4
#elif defined(ELEM_F16)
#define STORAGE4_T f16vec4
#elif defined(ELEM_Q8)
#define STORAGE4_T u8vec4
#else
#define STORAGE4_T i8vec4
#endif

layout(std430, set = 0, binding = 0) readonly buffer Input { STORAGE_T x[]; };
layout(std430, set = 0, binding = 0) readonly buffer Input4 { STORAGE4_T x4[]; };
layout(std430, set = 0, binding = 0) readonly buffer InputPartials { ACC_T x_partial[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutputPartials { ACC_T y_partial[]; };

// One accumulator per output of the invocation (one, or 4 with OUTPUT_VECTORS).
shared ACC4_T scratch[gl_WorkGroupSize.x];

ACC_T identity() {
    if (OP == PROD || OP == ALL) return ACC_T(1);
    if (OP == MAX) return LOWEST;
    if (OP == POOL_MAX) return POOL_LOWEST;
    if (OP == MIN) return HIGHEST;
    return ACC_T(0);
}

// The operation on scalars and, component by component, on vectors.
#define COMBINE(a, b) (OP == PROD ? (a) * (b) : (OP == MAX || OP == POOL_MAX || OP == ANY) ? max(a, b) : \
                       (OP == MIN || OP == ALL) ? min(a, b) : (a) + (b))

ACC_T combine(ACC_T a, ACC_T b) { return COMBINE(a, b); }
ACC4_T combine4(ACC4_T a, ACC4_T b) { return COMBINE(a, b); }

ACC_T load(uint i) {
    if (READS_PARTIALS != 0u) return x_partial[i];
#if defined(QUANTIZED)
    int code = int(x[i]);
    if (OP == ANY || OP == ALL) return code != 0 ? 1 : 0;
    return code;
#else
    float v = float(x[i]);
    return OP == POOL_L2 ? v * v : v;
#endif
}

ACC4_T load4(uint i) {
#if defined(QUANTIZED)
    ivec4 codes = ivec4(x4[i]);
    if (OP == ANY || OP == ALL) return ivec4(notEqual(codes, ivec4(0)));
    return codes;
#else
    vec4 v = vec4(x4[i]);
    return OP == POOL_L2 ? v * v : v;
#endif
}

// The output element: MEAN divides, the rest store the accumulated value.
void store_result(uint index, ACC_T v) {
    if (WRITES_PARTIALS != 0u) {
        y_partial[index] = v;
        return;
    }
#if defined(QUANTIZED)
    if (OP == MEAN) {
        int quotient = int(uint(abs(v)) / p.count);
        v = v < 0 ? -quotient : quotient;
    }
    if (OP == POOL_AVERAGE) {
        int n = int(p.count);
        v = v >= 0 ? (v + n / 2) / n : -((n / 2 - v) / n);
    }
    if (CLAMP != 0u) v = int(clamp(float(v), p.act_min, p.act_max));
    y[index] = STORAGE_T(v);
#else
    if (OP == MEAN || OP == POOL_AVERAGE) v = v / float(p.count);
    if (OP == POOL_L2) v = sqrt(v / float(p.count));
    if (CLAMP != 0u) v = clamp(v, p.act_min, p.act_max);
    y[index] = STORAGE_T(v);
#endif
}

// This invocation's share of its row(s): with OUTPUT_VECTORS one value per
// component, else the value in x (the other components the identity).
ACC4_T reduce_share(RowWalk w) {
    ACC4_T acc = ACC4_T(identity());
    if (VECTORS == SCALARS) {
        for (uint r = w.first; r < w.end; r += ROW_LANES) acc.x = combine(acc.x, load(row_element(w, r)));
        return acc;
    }
    for (uint r = w.first; r < w.end; r += ROW_LANES) acc = combine4(acc, load4(row_element(w, r)));
    if (VECTORS == ROW_VECTORS) acc.x = combine(combine(acc.x, acc.y), combine(acc.z, acc.w));
    return acc;
}

void main() {
    RowWalk w;
    if (!row_walk_begin(w)) return;
    uint lane = gl_LocalInvocationID.x;
    scratch[lane] = reduce_share(w);
    for (uint half_lanes = ROW_LANES / 2u; half_lanes > 0u; half_lanes /= 2u) {
        barrier();
        if (lane < half_lanes * OUT_LANES)
            scratch[lane] = combine4(scratch[lane], scratch[lane + half_lanes * OUT_LANES]);
    }
    barrier();
    if (lane >= OUT_LANES || !w.in_range) return;
    ACC4_T result = scratch[lane];
    store_result(row_result_index(w, 0u), result.x);
    if (VECTORS == OUTPUT_VECTORS) {
        store_result(row_result_index(w, 1u), result.y);
        store_result(row_result_index(w, 2u), result.z);
        store_result(row_result_index(w, 3u), result.w);
    }
}
