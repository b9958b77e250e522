// The unary operations of activation.comp, by code, in float32; and the
// chain of up to three of them that fusion.c may append to a kernel's own
// operation (constant_id 2-4: a code + 1, 0 for none).
const int CLAMP = 0, LOGISTIC = 1, TANH = 2, ABS = 3, EXP = 4, LOG = 5, SIN = 6, SQRT = 7;
const int RSQRT = 8, NEG = 9, FLOOR = 10, ELU = 11, HARD_SWISH = 12;
const int GELU = 13, GELU_TANH = 14;  // org.vknn.transformer's GELU, exact and tanh forms

// erfc(z) for z >= 0 with a relative error below 1.2e-7 (a Chebyshev fit of
// erfc(z) exp(z^2) in t = 1 / (1 + z/2)): relative, so that x * Phi(x) keeps
// its precision where Phi(x) is tiny.
float erfc_nonnegative(float z) {
    float t = 1.0 / (1.0 + 0.5 * z);
    float poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
                 t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 +
                 t * (-0.82215223 + t * 0.17087277))))))));
    return t * exp(-z * z + poly);
}

// x * Phi(x), Phi the standard normal distribution: Phi(x) = erfc(-x/sqrt(2)) / 2.
float gelu_exact(float x) {
    float half_tail = 0.5 * erfc_nonnegative(abs(x) * 0.70710678118654752);
    return x * (x >= 0.0 ? 1.0 - half_tail : half_tail);
}

// 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)): no tanh of a large argument.
float gelu_tanh(float x) {
    float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
    return x / (1.0 + exp(-2.0 * u));
}

float unary_op(int op, float v, float alpha) {
    if (op == LOGISTIC) return 1.0 / (1.0 + exp(-v));
    if (op == TANH) return tanh(v);
    if (op == ABS) return abs(v);
    if (op == EXP) return exp(v);
    if (op == LOG) return log(v);
    if (op == SIN) return sin(v);
    if (op == SQRT) return sqrt(v);
    if (op == RSQRT) return inversesqrt(v);
    if (op == NEG) return -v;
    if (op == FLOOR) return floor(v);
    if (op == ELU) return v < 0.0 ? alpha * (exp(v) - 1.0) : v;
    if (op == HARD_SWISH) return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
    if (op == GELU) return gelu_exact(v);
    if (op == GELU_TANH) return gelu_tanh(v);
    return v;
}

layout(constant_id = 2) const int POST_OP0 = 0;
layout(constant_id = 3) const int POST_OP1 = 0;
layout(constant_id = 4) const int POST_OP2 = 0;

// alphas: ELU's alpha for each step of the chain.
float apply_post_ops(float v, float alpha0, float alpha1, float alpha2) {
    if (POST_OP0 > 0) v = unary_op(POST_OP0 - 1, v, alpha0);
    if (POST_OP1 > 0) v = unary_op(POST_OP1 - 1, v, alpha1);
    if (POST_OP2 > 0) v = unary_op(POST_OP2 - 1, v, alpha2);
    return v;
}
