// Integer fixed-point requantization, bit-exact with the NNAPI reference.
// A real multiplier M is given as an int32 mantissa m in [2^30, 2^31) and a
// power-of-two exponent e (M = m * 2^(e - 31)); the host computes both
// (src/quant_multiplier.c). Results round to nearest exactly as the
// reference's 64-bit arithmetic rounds them, although no 64-bit type is used:
// imulExtended gives the full product.

const int INT32_MIN = -2147483647 - 1;
const int INT32_MAX = 2147483647;

// round(a * b / 2^31), halves toward +infinity, saturated: the only
// overflow is INT32_MIN squared.
int rounding_doubling_high_mul(int a, int b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    int hi, lo;
    imulExtended(a, b, hi, lo);
    bool negative = hi < 0;
    // The reference adds 2^30 (or 1 - 2^30 to a negative product), then
    // divides by 2^31 truncating toward zero.
    int nudge = negative ? 1 - (1 << 30) : (1 << 30);
    uint carry;
    uint sum_lo = uaddCarry(uint(lo), uint(nudge), carry);
    int sum_hi = hi + int(carry) + (negative ? -1 : 0);
    int floored = (sum_hi << 1) | int(sum_lo >> 31);
    bool inexact = (sum_lo & 0x7fffffffu) != 0u;
    return floored + (negative && inexact ? 1 : 0);
}

// round(x / 2^exponent), halves away from zero; exponent in [0, 31].
int rounding_divide_by_pot(int x, int exponent) {
    int mask = int((1u << uint(exponent)) - 1u);
    int remainder = x & mask;
    int threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// round(x * M) for M = multiplier * 2^(shift - 31).
// A real multiplier as the host gives it (vknn_quant_multiplier): a 31-bit
// mantissa and a power-of-two exponent (> 0 shifts left).
struct QuantMultiplier {
    int multiplier;
    int shift;
};

int multiply_by_quantized_multiplier(int x, int multiplier, int shift) {
    int left = max(shift, 0);
    int right = max(-shift, 0);
    return rounding_divide_by_pot(rounding_doubling_high_mul(x << left, multiplier), right);
}

// 16-bit forms, for the kernels whose reference works on int16 (HARD_SWISH).
// Values are int16 held in int.

int saturate_int16(int v) { return clamp(v, -32768, 32767); }

// Truncating toward zero, as the reference's integer division does.
int divide_by_2_15_toward_zero(int v) {
    int floored = v >> 15;
    return floored + (v < 0 && (v & 0x7fff) != 0 ? 1 : 0);
}

int rounding_doubling_high_mul_16(int a, int b) {
    if (a == b && a == -32768) return 32767;
    int ab = a * b;
    return divide_by_2_15_toward_zero(ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14)));
}

// Like the above but truncating instead of rounding.
int doubling_high_mul_16(int a, int b) {
    if (a == b && a == -32768) return 32767;
    return divide_by_2_15_toward_zero(a * b);
}

int saturating_left_shift_16(int v, int amount) {
    if (amount >= 16) return v > 0 ? 32767 : v < 0 ? -32768 : 0;
    return saturate_int16(v << amount);
}
