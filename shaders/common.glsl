// Shared helpers for every kernel: flat invocation index over a 2-D grid of
// workgroups (large tensors exceed the 65535 limit of one dimension).
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

uint flat_invocation_index() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// Rounds half away from zero, as the NNAPI reference does when it
// requantizes (C's round). floor(|x| + 0.5) would not do: the addition
// rounds 0.49999997 + 0.5 up to 1.
float round_half_away(float x) {
    float whole = floor(abs(x));
    float rounded = whole + (abs(x) - whole >= 0.5 ? 1.0 : 0.0);
    return sign(x) * rounded;
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

// True when x / s (s > 0, 0 <= a < b adjacent floats near the quotient) lies
// below the midpoint of a and b: compares 2x with (a + b) * s exactly. The
// differences x - a*s and x - b*s are exact (Sterbenz), and the products'
// low parts are smaller than the differences' resolution.
bool below_midpoint(float x, float s, float a, float b) {
    float a_hi, a_lo, b_hi, b_lo;
    exact_product(a, s, a_hi, a_lo);
    exact_product(b, s, b_hi, b_lo);
    precise float gap = (x - a_hi) + (x - b_hi);
    precise float low = a_lo + b_lo;
    return gap < low;
}

// x / s rounded to the nearest float, as a CPU's division gives it (a GPU
// division may be off by a few units in the last place). A quotient is
// never exactly half-way between two floats, so there are no ties.
float nearest_quotient(float x, float s) {
    float q = abs(x / s);
    float ax = abs(x);
    if (ax == 0.0 || isinf(q) || q < 1.17549435e-38) return x / s;
    for (int i = 0; i < 4 && q > 1.17549435e-38; ++i) {
        float below = uintBitsToFloat(floatBitsToUint(q) - 1u);
        if (!below_midpoint(ax, s, below, q)) break;
        q = below;
    }
    for (int i = 0; i < 4; ++i) {
        float above = uintBitsToFloat(floatBitsToUint(q) + 1u);
        if (below_midpoint(ax, s, q, above)) break;
        q = above;
    }
    return x < 0.0 ? -q : q;
}
