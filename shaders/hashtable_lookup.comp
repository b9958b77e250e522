#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant hashtable_lookup_b8: -DB8
// variant hashtable_lookup_b32: -DB32
// HASHTABLE_LOOKUP: out[i, r] = values[j, r] where keys[j] == lookups[i],
// zero bits where no key matches; hits[i] = 1 on a match, else 0. One
// invocation per output element, each a binary search over the keys
// (ascending, as NNAPI requires): the row it reads is always one the search
// visited, so unsorted keys give some row, never one out of bounds. Keys
// given at run time (CHECK_KEYS) are checked too, a pair of neighbours per
// invocation: a key below the one before it is reported in the status word.
// Variants by element size of the values: B8 (quant8), B32 (float32, int32).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "runtime_status.glsl"

#if defined(B8)
#define STORAGE_T uint8_t
#else
#define STORAGE_T uint
#endif

layout(std430, set = 0, binding = 0) readonly buffer Lookups { int lookups[]; };
layout(std430, set = 0, binding = 1) readonly buffer Keys { int keys[]; };
layout(std430, set = 0, binding = 2) readonly buffer Values { STORAGE_T values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Output { STORAGE_T y[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Hits { uint8_t hits[]; };

layout(push_constant) uniform Params {
    uint lookup_count, key_count, row_size;
    uint check_keys;  // the keys come at run time: check their order
    uint check_code;  // reported when they are not ascending
} p;

// The index of key in keys[0, key_count), or -1.
int find_key(int key) {
    int lo = 0, hi = int(p.key_count) - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int k = keys[mid];
        if (k == key) return mid;
        if (k < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

void main() {
    uint i = flat_invocation_index();
    if (p.check_keys != 0u && i + 1u < p.key_count && keys[i + 1u] < keys[i]) report_invalid_value(p.check_code, RULE_KEYS_NOT_ASCENDING);
    if (i >= p.lookup_count * p.row_size) return;
    uint lookup = i / p.row_size, r = i % p.row_size;
    int row = find_key(lookups[lookup]);
    // Plain copies and constants only: 8-bit values are never computed on.
    if (row >= 0) {
        if (r == 0u) hits[lookup] = uint8_t(1u);
        y[i] = values[uint(row) * p.row_size + r];
    } else {
        if (r == 0u) hits[lookup] = uint8_t(0u);
        y[i] = STORAGE_T(0u);
    }
}
