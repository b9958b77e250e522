#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant shape_check:
// Checks a shape parameter given at run time against the output shape the
// model declares, where that declaration already decided the operation's
// kernel or view: FILL's shape, RESHAPE's new shape, SQUEEZE's axes. One
// invocation, once per execution. A parameter that leads to any other shape
// is reported in the status word (the execution fails); nothing else reads
// it, so no address depends on it. OP: 0 FILL, 1 RESHAPE, 2 SQUEEZE.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "runtime_status.glsl"

layout(constant_id = 1) const int OP = 0;
const int FILL = 0, RESHAPE = 1, SQUEEZE = 2;

layout(std430, set = 0, binding = 0) readonly buffer Param { int param[]; };

layout(push_constant) uniform Params {
    uint count;      // the parameter's elements (FILL, RESHAPE: the declared rank)
    uint in_rank;    // SQUEEZE: the input's
    uint out_rank;
    uint check_code; // reported when the parameter leads to another shape
    uint in_dims[4]; // SQUEEZE: the input's
    uint out_dims[8];
} p;

// Each entry is the declared dimension (RESHAPE: or -1, at most once). The
// rule broken (runtime_status.glsl; 0: none): an entry that no shape could
// have is named before a shape other than the declared one.
uint dims_rule() {
    uint wildcards = 0, rule = 0u;
    for (uint d = 0; d < p.count; ++d) {
        int v = param[d];
        if (OP == RESHAPE && v == -1) wildcards++;
        else if (v <= 0) return RULE_DIMENSION_NOT_POSITIVE;
        else if (uint(v) != p.out_dims[d]) rule = RULE_SHAPE_MISMATCH;
    }
    return wildcards > 1 ? RULE_RESHAPE_WILDCARDS : rule;
}

// The input without the listed axes (each of size 1; [1] when none is left).
uint squeeze_rule() {
    uint drop = 0;
    for (uint i = 0; i < p.count; ++i) {
        int a = param[i];
        if (a < 0) a += int(p.in_rank);
        if (a < 0 || a >= int(p.in_rank)) return RULE_AXIS_OUT_OF_RANGE;
        if (p.in_dims[a] != 1) return RULE_SQUEEZED_AXIS_NOT_ONE;
        drop |= 1u << a;
    }
    uint kept = 0;
    for (uint d = 0; d < p.in_rank; ++d) {
        if ((drop & (1u << d)) != 0) continue;
        if (kept >= p.out_rank || p.in_dims[d] != p.out_dims[kept]) return RULE_SHAPE_MISMATCH;
        kept++;
    }
    bool same = kept == 0 ? p.out_rank == 1 && p.out_dims[0] == 1 : kept == p.out_rank;
    return same ? 0u : RULE_SHAPE_MISMATCH;
}

void main() {
    if (flat_invocation_index() != 0) return;
    uint rule = OP == SQUEEZE ? squeeze_rule() : dims_rule();
    if (rule != 0u) report_invalid_value(p.check_code, rule);
}
