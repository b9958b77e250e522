// The unary operations of activation.comp, by code, in float32; and the
// chain of up to three of them that fusion.c may append to a kernel's own
// operation (constant_id 2-4: a code + 1, 0 for none).
const int CLAMP = 0, LOGISTIC = 1, TANH = 2, ABS = 3, EXP = 4, LOG = 5, SIN = 6, SQRT = 7;
const int RSQRT = 8, NEG = 9, FLOOR = 10, ELU = 11, HARD_SWISH = 12;

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
