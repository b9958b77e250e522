// 16-bit fixed-point exp, logistic and tanh, bit-exact with the NNAPI
// reference's quantized LSTM cells. Values are int16 held in int; a format
// Qm.(15-m) has m integer bits (raw = real * 2^(15-m)). The reference works
// on int16 throughout: sums and differences wrap to 16 bits (wrap_int16),
// products are rounding doubling high multiplies (fixed_point.glsl), and
// rescaling between formats saturates (mul_pot_16). Needs fixed_point.glsl.

int wrap_int16(int v) { return (v << 16) >> 16; }

// 1.0 in a format of integer_bits (the largest value below 1 without any).
int fx_one(int integer_bits) { return integer_bits == 0 ? 32767 : 1 << (15 - integer_bits); }

// x * 2^exponent: a saturating left shift, or a rounding right shift.
int mul_pot_16(int x, int exponent) {
    if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
    if (exponent == 0) return x;
    int threshold = (1 << (15 - exponent)) - 1;
    return x > threshold ? 32767 : x < -threshold ? -32768 : x << exponent;
}

int fx_mul(int a, int b) { return rounding_doubling_high_mul_16(a, b); }

// (a + b) / 2, halves away from zero.
int half_sum_16(int a, int b) {
    int s = a + b + (a + b >= 0 ? 1 : -1);
    return wrap_int16(s >= 0 ? s >> 1 : -((-s) >> 1));
}

// exp(a) for a in [-1/4, 0), Q0.15 in and out: a Taylor expansion around
// -1/8. Constants: exp(-1/8) and 1/3 in Q0.15.
int exp_quarter(int a) {
    const int exp_minus_eighth = 28918;
    const int one_third = 10923;
    int x = wrap_int16(a + (1 << 12));
    int x2 = fx_mul(x, x);
    int x3 = fx_mul(x2, x);
    int x4 = fx_mul(x2, x2);
    int x4_over_4 = mul_pot_16(x4, -2);
    int poly = mul_pot_16(wrap_int16(fx_mul(wrap_int16(x4_over_4 + x3), one_third) + x2), -1);
    return saturate_int16(exp_minus_eighth + fx_mul(exp_minus_eighth, wrap_int16(x + poly)));
}

// exp(a) for a <= 0 of integer_bits, Q0.15 out: exp of a modulo 1/4, times
// exp(-2^k) for every bit k of the rest (the constants in Q0.15).
int exp_negative(int a, int integer_bits) {
    const int factors[7] = int[7](25520, 19875, 12055, 4435, 600, 11, 0); // exp(-2^k), k = -2..4
    int fraction_bits = 15 - integer_bits;
    int quarter = 1 << (fraction_bits - 2);
    int a_mod = wrap_int16((a & (quarter - 1)) - quarter);
    int result = exp_quarter(mul_pot_16(a_mod, integer_bits));
    int rest = wrap_int16(a_mod - a);
    for (int k = -2; k <= 4; ++k)
        if (integer_bits > k && (rest & (1 << (fraction_bits + k))) != 0)
            result = fx_mul(result, factors[k + 2]);
    // Below -32 the bits past 2^4 are not looked at: the result is 0.
    if (integer_bits > 5 && a < -(1 << (20 - integer_bits))) result = 0;
    return a == 0 ? 32767 : result;
}

// Newton-Raphson for 1 / (1 + x), x in [0, 1] (Q0.15): three steps from
// 48/17 - 32/17 * d on d = (1 + x) / 2, in Q2.13.
int reciprocal_steps(int x) {
    int half_denominator = half_sum_16(x, 32767);
    int r = wrap_int16(23130 + fx_mul(half_denominator, -15420));
    for (int i = 0; i < 3; ++i) {
        int error = wrap_int16(8192 - fx_mul(half_denominator, r));
        r = wrap_int16(r + mul_pot_16(fx_mul(r, error), 2));
    }
    return r;
}

// logistic(a) for a of integer_bits, Q0.15 out.
int fx_logistic(int a, int integer_bits) {
    if (a == 0) return 16384;
    int e = exp_negative(a > 0 ? wrap_int16(-a) : a, integer_bits);
    int positive = mul_pot_16(reciprocal_steps(e), 1); // 1 / (1 + e): Q2.13 halved, to Q0.15
    return a > 0 ? positive : wrap_int16(32767 - positive);
}

// tanh(a) for a of integer_bits, Q0.15 out: (1 - e) / (1 + e), e = exp(-2|a|).
int fx_tanh(int a, int integer_bits) {
    if (a == 0) return 0;
    int e = exp_negative(a < 0 ? a : wrap_int16(-a), integer_bits + 1);
    int t = mul_pot_16(wrap_int16(reciprocal_steps(e) - 8192), 2);
    return a < 0 ? wrap_int16(-t) : t;
}
