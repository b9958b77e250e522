// A row's mean and variance as a row_reduce.glsl statistic, for the
// normalizations (instance_norm.comp, layer_norm.comp): a part of a row is
// summarised by its count, mean and sum of squared deviations (Welford's
// update, Chan's combination), which is accurate where sum(x^2) / n - mean^2
// would cancel. The including kernel reads its input as x[].

// (count, mean, sum of squared deviations from the mean)
uvec4 pack_stat(float n, float mean, float m2) {
    return uvec4(floatBitsToUint(n), floatBitsToUint(mean), floatBitsToUint(m2), 0u);
}

uvec4 stat_identity() { return pack_stat(0.0, 0.0, 0.0); }

uvec4 stat_combine(uvec4 a, uvec4 b) {
    float na = uintBitsToFloat(a.x), nb = uintBitsToFloat(b.x);
    if (nb == 0.0) return a;
    if (na == 0.0) return b;
    float mean_a = uintBitsToFloat(a.y), mean_b = uintBitsToFloat(b.y);
    float n = na + nb;
    float delta = mean_b - mean_a;
    float m2 = uintBitsToFloat(a.z) + uintBitsToFloat(b.z) + delta * delta * (na * nb / n);
    return pack_stat(n, mean_a + delta * (nb / n), m2);
}

uvec4 stat_add(uvec4 acc, uint index) {
    float v = float(x[index]);
    float n = uintBitsToFloat(acc.x) + 1.0;
    float mean = uintBitsToFloat(acc.y);
    float delta = v - mean;
    mean += delta / n;
    return pack_stat(n, mean, uintBitsToFloat(acc.z) + delta * (v - mean));
}

