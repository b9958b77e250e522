#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant lsh_projection_f32: -DHASH_F32 requires=shaderInt64 requires=shaderFloat64
// variant lsh_projection_f16: -DHASH_F16 requires=shaderInt64 requires=shaderFloat64
// LSH_PROJECTION, as the NNAPI reference computes it. Every output bit b
// (hash function i, bit j: b = i * num_bits + j) is the sign of
//     score(b) = sum over input rows k of weight[k] * double(int64(h(b, k)))
// (weight 1 when the weights are omitted), where h(b, k) is farmhash's
// Fingerprint64 of a key of 4 + row_bytes bytes: the float32 bits of seed
// hash[b], then the bytes of input row k. Dense: out[b] = (score > 0).
// Sparse: out[i] = the num_bits bits of hash function i, first bit highest,
// plus i << num_bits (SPARSE) or not (SPARSE_DEPRECATED).
//
// A workgroup per output element (dense: one bit; sparse: one hash
// function, its bits one after the other): its lanes take the rows k =
// lane, lane + workgroup size, ..., hash them and add their terms in double
// precision, then a tree in shared memory adds the lanes' sums. The
// reference adds the rows in order; a different order of double additions
// can change the sign only of a score within rounding of zero.
// Variants by the type of the seeds and weights: HASH_F32, HASH_F16.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "common.glsl"

#if defined(HASH_F16)
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define SEED_T float16_t
#else
#define SEED_T float
#endif

layout(std430, set = 0, binding = 0) readonly buffer Seeds { SEED_T seeds[]; };
layout(std430, set = 0, binding = 1) readonly buffer Input { uint8_t x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Weights { SEED_T weights[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { int y[]; };

layout(push_constant) uniform Params {
    uint rows, row_bytes;    // input rows (its first dimension), bytes per row
    uint num_bits;           // bits per hash function
    uint bits_per_group;     // dense: 1; sparse: num_bits
    uint groups;             // output elements
    uint has_weights;        // 0: every row weighs 1 (the weights are omitted)
    uint add_function_offset; // SPARSE: + i << num_bits
} p;

// ---- the key: 4 bytes of the seed's bits, then the row's bytes ----

uint seed_bits;  // of the bit being computed
uint row_start;  // byte offset of the row in x

uint key_byte(uint j) {
    return j < 4u ? (seed_bits >> (8u * j)) & 0xffu : uint(x[row_start + j - 4u]);
}

// Little-endian loads of the key, as farmhash's Fetch32 and Fetch64.
uint64_t fetch32(uint at) {
    uint v = 0u;
    for (uint i = 0u; i < 4u; ++i) v |= key_byte(at + i) << (8u * i);
    return uint64_t(v);
}

uint64_t fetch64(uint at) {
    return fetch32(at) | (fetch32(at + 4u) << 32);
}

// ---- farmhash (farmhashna::Hash64, which Fingerprint64 is) ----

const uint64_t K0 = 0xc3a5c85c97cb3127UL;
const uint64_t K1 = 0xb492b66fbe98f273UL;
const uint64_t K2 = 0x9ae16a3b2f90404fUL;

// Rotation to the right, as farmhash's Rotate64.
uint64_t rotate(uint64_t v, uint shift) {
    return shift == 0u ? v : (v >> shift) | (v << (64u - shift));
}

uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

uint64_t hash_len16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

uint64_t hash_len0to16(uint len) {
    if (len >= 8u) {
        uint64_t mul = K2 + uint64_t(len) * 2UL;
        uint64_t a = fetch64(0u) + K2;
        uint64_t b = fetch64(len - 8u);
        uint64_t c = rotate(b, 37u) * mul + a;
        uint64_t d = (rotate(a, 25u) + b) * mul;
        return hash_len16(c, d, mul);
    }
    if (len >= 4u) {
        uint64_t mul = K2 + uint64_t(len) * 2UL;
        uint64_t a = fetch32(0u);
        return hash_len16(uint64_t(len) + (a << 3), fetch32(len - 4u), mul);
    }
    if (len > 0u) {
        uint y = key_byte(0u) + (key_byte(len >> 1) << 8);
        uint z = len + (key_byte(len - 1u) << 2);
        return shift_mix(uint64_t(y) * K2 ^ uint64_t(z) * K0) * K2;
    }
    return K2;
}

uint64_t hash_len17to32(uint len) {
    uint64_t mul = K2 + uint64_t(len) * 2UL;
    uint64_t a = fetch64(0u) * K1;
    uint64_t b = fetch64(8u);
    uint64_t c = fetch64(len - 8u) * mul;
    uint64_t d = fetch64(len - 16u) * K2;
    return hash_len16(rotate(a + b, 43u) + rotate(c, 30u) + d, a + rotate(b + K2, 18u) + c, mul);
}

uint64_t hash_len33to64(uint len) {
    uint64_t mul = K2 + uint64_t(len) * 2UL;
    uint64_t a = fetch64(0u) * K2;
    uint64_t b = fetch64(8u);
    uint64_t c = fetch64(len - 8u) * mul;
    uint64_t d = fetch64(len - 16u) * K2;
    uint64_t y = rotate(a + b, 43u) + rotate(c, 30u) + d;
    uint64_t z = hash_len16(y, a + rotate(b + K2, 18u) + c, mul);
    uint64_t e = fetch64(16u) * mul;
    uint64_t f = fetch64(24u);
    uint64_t g = (y + fetch64(len - 32u)) * mul;
    uint64_t h = (z + fetch64(len - 24u)) * mul;
    return hash_len16(rotate(e + f, 43u) + rotate(g, 30u) + h, e + rotate(f + a, 18u) + g, mul);
}

// farmhash's WeakHashLen32WithSeeds of the 32 key bytes from `at`.
u64vec2 weak_hash32(uint at, uint64_t a, uint64_t b) {
    uint64_t w = fetch64(at), x1 = fetch64(at + 8u), y = fetch64(at + 16u), z = fetch64(at + 24u);
    a += w;
    b = rotate(b + a + z, 21u);
    uint64_t c = a;
    a += x1;
    a += y;
    b += rotate(a, 44u);
    return u64vec2(a + z, b + c);
}

// Keys over 64 bytes: 64 bytes a step, then the last 64 bytes.
uint64_t hash_long(uint len) {
    const uint64_t seed = 81UL;
    uint64_t x1 = seed;
    uint64_t y = seed * K1 + 113UL;
    uint64_t z = shift_mix(y * K2 + 113UL) * K2;
    u64vec2 v = u64vec2(0UL), w = u64vec2(0UL);
    x1 = x1 * K2 + fetch64(0u);
    uint end = ((len - 1u) / 64u) * 64u;
    uint s = 0u;
    do {
        x1 = rotate(x1 + y + v.x + fetch64(s + 8u), 37u) * K1;
        y = rotate(y + v.y + fetch64(s + 48u), 42u) * K1;
        x1 ^= w.y;
        y += v.x + fetch64(s + 40u);
        z = rotate(z + w.x, 33u) * K1;
        v = weak_hash32(s, v.y * K1, x1 + w.x);
        w = weak_hash32(s + 32u, z + w.y, y + fetch64(s + 16u));
        uint64_t t = z;
        z = x1;
        x1 = t;
        s += 64u;
    } while (s != end);
    uint64_t mul = K1 + ((z & 0xffUL) << 1);
    s = len - 64u;
    w.x += uint64_t((len - 1u) & 63u);
    v.x += w.x;
    w.x += v.x;
    x1 = rotate(x1 + y + v.x + fetch64(s + 8u), 37u) * mul;
    y = rotate(y + v.y + fetch64(s + 48u), 42u) * mul;
    x1 ^= w.y * 9UL;
    y += v.x * 9UL + fetch64(s + 40u);
    z = rotate(z + w.x, 33u) * mul;
    v = weak_hash32(s, v.y * mul, x1 + w.x);
    w = weak_hash32(s + 32u, z + w.y, y + fetch64(s + 16u));
    uint64_t t = z;
    z = x1;
    x1 = t;
    return hash_len16(hash_len16(v.x, w.x, mul) + shift_mix(y) * K0 + z,
                      hash_len16(v.y, w.y, mul) + x1, mul);
}

uint64_t fingerprint64(uint len) {
    if (len <= 16u) return hash_len0to16(len);
    if (len <= 32u) return hash_len17to32(len);
    if (len <= 64u) return hash_len33to64(len);
    return hash_long(len);
}

// ---- the scores ----

shared double lane_sums[gl_WorkGroupSize.x];

// Every lane of the workgroup calls it: the sign of score(bit), in lane 0.
bool score_positive(uint bit) {
    uint lane = gl_LocalInvocationID.x;
    seed_bits = floatBitsToUint(float(seeds[bit]));
    // precise: a product and a sum rounded each, as the reference's (no fused
    // multiply-add).
    precise double sum = 0.0LF;
    for (uint k = lane; k < p.rows; k += gl_WorkGroupSize.x) {
        row_start = k * p.row_bytes;
        double term = double(int64_t(fingerprint64(4u + p.row_bytes)));
        precise double weighted = p.has_weights != 0u ? double(float(weights[k])) * term : term;
        sum += weighted;
    }
    lane_sums[lane] = sum;
    barrier();
    for (uint half_count = gl_WorkGroupSize.x / 2u; half_count > 0u; half_count /= 2u) {
        if (lane < half_count) lane_sums[lane] += lane_sums[lane + half_count];
        barrier();
    }
    bool positive = lane_sums[0] > 0.0LF;
    barrier(); // the next bit's sums overwrite lane_sums
    return positive;
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (group >= p.groups) return; // a whole workgroup past the end of a 2-D grid
    uint signature = 0u;
    for (uint t = 0u; t < p.bits_per_group; ++t) {
        bool bit = score_positive(group * p.bits_per_group + t);
        signature = (signature << 1) | (bit ? 1u : 0u);
    }
    if (gl_LocalInvocationID.x != 0u) return;
    // num_bits + ceil(log2(hash functions)) <= 32 (validated): the offset
    // fits, and num_bits = 32 leaves one function, whose offset is 0.
    if (p.add_function_offset != 0u && p.num_bits < 32u) signature += group << p.num_bits;
    y[group] = int(signature);
}
