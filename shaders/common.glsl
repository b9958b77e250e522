// Shared helpers for every kernel: flat invocation index over a 2-D grid of
// workgroups (large tensors exceed the 65535 limit of one dimension).
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

uint flat_invocation_index() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// Rounds half away from zero, as the NNAPI reference does when it requantizes.
float round_half_away(float x) {
    return sign(x) * floor(abs(x) + 0.5);
}

// a * b as the unevaluated sum hi + lo, exactly (Dekker's product). This
// needs correctly rounded, uncontracted single-precision multiplies and
// adds: Vulkan guarantees the former, `precise` the latter.
void exact_product(float a, float b, out float hi, out float lo) {
    precise float ca = 4097.0 * a;
    precise float a_hi = ca - (ca - a);
    precise float a_lo = a - a_hi;
    precise float cb = 4097.0 * b;
    precise float b_hi = cb - (cb - b);
    precise float b_lo = b - b_hi;
    precise float product = a * b;
    precise float error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
    hi = product;
    lo = error;
}

// round(real / scale + zero_point), halves away from zero, as the NNAPI
// reference requantizes in double precision. A single-precision quotient
// (division is not even correctly rounded on GPUs) only picks the half-way
// point that matters; which side of it the exact quotient lies on is decided
// exactly, by comparing real with (k + 1/2) * scale.
int requantize_real(float real, float scale, int zero_point) {
    float k = clamp(floor(real / scale), -4194304.0, 4194304.0);
    float hi, lo;
    exact_product(k + 0.5, scale, hi, lo);
    precise float above = real - hi;  // exact near the half-way point
    int base = int(k) + zero_point;
    bool up = above > lo || (above == lo && base >= 0);
    return base + (up ? 1 : 0);
}
