#!/usr/bin/env python3
"""Writes the conformance cases of vknn's vendor extensions (tests/data/README.md):
extensions_fibonacci.json (com.example.fibonacci) and extensions_transformer.json
(org.vknn.transformer). Expected values are computed here, independently of the
driver, in double precision (plain Python; float16 inputs are first rounded to
float16, as the driver receives them). Run it from anywhere; it rewrites both files.
"""
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIB = "com.example.fibonacci"
TRANSFORMER = "org.vknn.transformer"
# Prefixes as a model might choose them: any non-zero 16-bit values, one per name.
FIB_PREFIX, TRANSFORMER_PREFIX = 0x0A7, 0x3
EXAMPLE_INT64, EXAMPLE_TENSOR_QUANT64_ASYMM, EXAMPLE_FIBONACCI = 0, 1, 0
BATCH_MATMUL, LAYER_NORMALIZATION, GELU, ATTENTION = 0, 1, 2, 3


def ext_type(prefix, code):
    return (prefix << 16) | code


class Lcg:
    """A small deterministic generator, so that the data never depend on a library."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return lo + (hi - lo) * ((self.state >> 11) / float(1 << 53))

    def values(self, count, lo=-1.0, hi=1.0):
        return [round(self.uniform(lo, hi), 4) for _ in range(count)]


def to_half(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def count_of(dims):
    n = 1
    for d in dims:
        n *= d
    return n


# ---- model building --------------------------------------------------------------------


class Model:
    def __init__(self, float_type="TENSOR_FLOAT32"):
        self.operands, self.operations = [], []
        self.float_type = float_type

    def operand(self, type_, dims, lifetime, data=None, extension_data=None):
        o = {"name": "op%d" % len(self.operands), "type": type_, "dimensions": list(dims),
             "scale": 0.0, "zeroPoint": 0, "lifetime": lifetime, "numberOfConsumers": 0,
             "channelQuant": None, "isIgnored": False, "data": data}
        if extension_data is not None:
            o["extensionData"] = list(extension_data)
        self.operands.append(o)
        return len(self.operands) - 1

    def input(self, dims, data, type_=None):
        return self.operand(type_ or self.float_type, dims, "SUBGRAPH_INPUT", data)

    def const(self, dims, data, type_=None):
        return self.operand(type_ or self.float_type, dims, "CONSTANT_COPY", data)

    def scalar(self, type_, value):
        return self.operand(type_, [], "CONSTANT_COPY", [value])

    def omitted(self):
        return self.operand(self.float_type, [], "NO_VALUE", None)

    def output(self, dims, data, type_=None, extension_data=None):
        return self.operand(type_ or self.float_type, dims, "SUBGRAPH_OUTPUT", data, extension_data)

    def operation(self, type_, inputs, outputs):
        self.operations.append({"type": type_, "inputs": inputs, "outputs": outputs})
        for i in inputs:
            self.operands[i]["numberOfConsumers"] += 1

    def subgraph(self):
        life = lambda l: [i for i, o in enumerate(self.operands) if o["lifetime"] == l]
        return {"operands": self.operands, "operations": self.operations,
                "inputIndexes": life("SUBGRAPH_INPUT"), "outputIndexes": life("SUBGRAPH_OUTPUT")}


def case(name, spec, model, extensions, relaxed=False, expect_failure=False):
    return {"name": name, "spec": spec, "minSupportedVersion": "V1_3", "isRelaxed": relaxed,
            "expectFailure": expect_failure, "expectedMultinomialDistributionTolerance": 0.0,
            "extensionNameToPrefix": [{"name": n, "prefix": p} for n, p in extensions],
            "main": model.subgraph(), "referenced": []}


# ---- com.example.fibonacci -------------------------------------------------------------


def fibonacci(n):
    out, a, b = [], 1, 1
    for _ in range(n):
        out.append(a)
        a, b = b, a + b
    return out


def quant64_blob(scale, zero_point):
    return struct.pack("<dq", scale, zero_point)


def quantize64(value, scale, zero_point):
    """round(value / scale), halves away from zero, plus the zero point (exact rationals)."""
    from fractions import Fraction
    q = Fraction(value) / Fraction(scale)
    whole = math.floor(abs(q) + Fraction(1, 2))
    return (whole if q >= 0 else -whole) + zero_point


FIB_EXT = [(FIB, FIB_PREFIX)]
INT64 = ext_type(FIB_PREFIX, EXAMPLE_INT64)
QUANT64 = ext_type(FIB_PREFIX, EXAMPLE_TENSOR_QUANT64_ASYMM)
FIB_OP = ext_type(FIB_PREFIX, EXAMPLE_FIBONACCI)


def fibonacci_case(name, n, n_kind, out_kind, scale=1.0, zero_point=0, blob=None,
                   expect_failure=False, extensions=FIB_EXT):
    m = Model()
    n_value = n
    if n_kind == "int64_const":
        src = m.operand(INT64, [], "CONSTANT_COPY", [n_value])
    elif n_kind == "int64_input":
        src = m.operand(INT64, [], "SUBGRAPH_INPUT", [n_value])
    else:  # float32_input
        src = m.input([1], [float(n_value)], "TENSOR_FLOAT32")
    count = max(n, 0)
    if out_kind == "f32":
        out = m.output([count], [float(f) for f in fibonacci(count)], "TENSOR_FLOAT32")
    else:
        data = [quantize64(f, scale, zero_point) for f in fibonacci(count)]
        out = m.output([count], data, QUANT64,
                       quant64_blob(scale, zero_point) if blob is None else blob)
    m.operation(FIB_OP, [src], [out])
    return case("extensions_fibonacci_" + name, "extensions_fibonacci", m, extensions,
                expect_failure=expect_failure)


def fibonacci_cases():
    return [
        fibonacci_case("int64_const_float32", 10, "int64_const", "f32"),
        fibonacci_case("int64_input_float32", 30, "int64_input", "f32"),
        fibonacci_case("float32_input_float32", 7, "float32_input", "f32"),
        fibonacci_case("int64_input_quant64", 20, "int64_input", "q64", 0.5, 3),
        fibonacci_case("float32_input_quant64", 12, "float32_input", "q64", 4.0, -7),
        fibonacci_case("int64_const_quant64_large", 70, "int64_const", "q64", 1.0, -5),
        # Invalid models: the driver must refuse them.
        fibonacci_case("n_zero", 0, "int64_const", "f32", expect_failure=True),
        fibonacci_case("n_too_large", 93, "int64_const", "f32", expect_failure=True),
        fibonacci_case("quant64_no_blob", 5, "int64_const", "q64", blob=b"", expect_failure=True),
        fibonacci_case("quant64_short_blob", 5, "int64_const", "q64", blob=quant64_blob(1.0, 0)[:12],
                       expect_failure=True),
        fibonacci_case("quant64_zero_scale", 5, "int64_const", "q64", blob=quant64_blob(0.0, 0),
                       expect_failure=True),
        fibonacci_case("prefix_table_not_one_to_one", 5, "int64_const", "f32",
                       extensions=[(FIB, FIB_PREFIX), ("com.example.other", FIB_PREFIX)],
                       expect_failure=True),
        unknown_operand_code_case(),
    ]


def unknown_operand_code_case():
    m = Model()
    src = m.operand(ext_type(FIB_PREFIX, 7), [], "SUBGRAPH_INPUT", [5])
    out = m.output([5], [float(f) for f in fibonacci(5)], "TENSOR_FLOAT32")
    m.operation(FIB_OP, [src], [out])
    return case("extensions_fibonacci_unknown_operand_type", "extensions_fibonacci", m, FIB_EXT,
                expect_failure=True)


# ---- org.vknn.transformer: reference computations ---------------------------------------


def batch_extents(dims):
    pad = [1] * (4 - len(dims)) + list(dims)
    return pad[0], pad[1]


def matrix_at(data, dims, outer, inner):
    """The matrix of a [..., R, C] tensor at a (broadcast) batch position."""
    r, c = dims[-2], dims[-1]
    eo, ei = batch_extents(dims)
    index = (outer if eo > 1 else 0) * ei + (inner if ei > 1 else 0)
    base = index * r * c
    return [data[base + i * c:base + (i + 1) * c] for i in range(r)]


def transpose(mat):
    return [list(col) for col in zip(*mat)]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def broadcast_batch(xd, yd):
    xo, xi = batch_extents(xd)
    yo, yi = batch_extents(yd)
    return max(xo, yo), max(xi, yi)


def batch_matmul_ref(x, xd, y, yd, adj_x, adj_y):
    bo, bi = broadcast_batch(xd, yd)
    out = []
    for o in range(bo):
        for i in range(bi):
            a = matrix_at(x, xd, o, i)
            b = matrix_at(y, yd, o, i)
            prod = matmul(transpose(a) if adj_x else a, transpose(b) if adj_y else b)
            out += [v for row in prod for v in row]
    rank = max(len(xd), len(yd))
    batch = [bo, bi][4 - rank:] if rank > 2 else []
    m = xd[-1] if adj_x else xd[-2]
    n = yd[-2] if adj_y else yd[-1]
    return out, batch + [m, n]


def layer_norm_ref(x, dims, axis, gamma, beta, eps):
    axis %= len(dims)
    outer = count_of(dims[:axis])
    extent = dims[axis]
    inner = count_of(dims[axis + 1:])
    out = [0.0] * len(x)
    for o in range(outer):
        for i in range(inner):
            idx = [(o * extent + a) * inner + i for a in range(extent)]
            mean = sum(x[j] for j in idx) / extent
            var = sum((x[j] - mean) ** 2 for j in idx) / extent
            for a, j in enumerate(idx):
                g = gamma[a] if gamma is not None else 1.0
                b = beta[a] if beta is not None else 0.0
                out[j] = (x[j] - mean) / math.sqrt(var + eps) * g + b
    return out


def gelu_ref(v, approximate):
    if approximate:
        return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
    return 0.5 * v * math.erfc(-v / math.sqrt(2.0))


def attention_ref(q, qd, k, kd, v, vd, mask, md, scale):
    rank = len(qd)
    sq, d, sk, dv = qd[-2], qd[-1], kd[-2], vd[-1]
    bo, bi = batch_extents(qd)
    out = []
    for o in range(bo):
        for i in range(bi):
            qm, km, vm = matrix_at(q, qd, o, i), matrix_at(k, kd, o, i), matrix_at(v, vd, o, i)
            mm = matrix_at(mask, md, o, i) if mask is not None else None
            for r in range(sq):
                scores = []
                for c in range(sk):
                    s = scale * sum(qm[r][t] * km[c][t] for t in range(d))
                    if mm is not None:
                        s += mm[r if len(mm) > 1 else 0][c if len(mm[0]) > 1 else 0]
                    scores.append(s)
                top = max(scores)
                w = [math.exp(s - top) for s in scores]
                total = sum(w)
                out += [sum(w[c] / total * vm[c][j] for c in range(sk)) for j in range(dv)]
    return out, list(qd[:rank - 2]) + [sq, dv]


# ---- org.vknn.transformer: cases ----------------------------------------------------------

TRANSFORMER_EXT = [(TRANSFORMER, TRANSFORMER_PREFIX)]
VARIANTS = [("float32", "TENSOR_FLOAT32", False), ("relaxed", "TENSOR_FLOAT32", True),
            ("float16", "TENSOR_FLOAT16", False)]


def op_type(code):
    return ext_type(TRANSFORMER_PREFIX, code)


def rounded(values, tensor_type):
    return [to_half(v) for v in values] if tensor_type == "TENSOR_FLOAT16" else values


def scalar_float_type(tensor_type):
    return "FLOAT16" if tensor_type == "TENSOR_FLOAT16" else "FLOAT32"


def batch_matmul_case(name, xd, yd, adj_x, adj_y, seed, y_const=False, expect_failure=False):
    cases = []
    for variant, t, relaxed in VARIANTS:
        rng = Lcg(seed)
        x = rounded(rng.values(count_of(xd)), t)
        y = rounded(rng.values(count_of(yd)), t)
        m = Model(t)
        xi = m.input(xd, x)
        yi = m.const(yd, y) if y_const else m.input(yd, y)
        ax, ay = m.scalar("BOOL", int(adj_x)), m.scalar("BOOL", int(adj_y))
        if expect_failure:
            out, od = [], [1, 1]
        else:
            out, od = batch_matmul_ref(x, xd, y, yd, adj_x, adj_y)
        oi = m.output(od, out)
        m.operation(op_type(BATCH_MATMUL), [xi, yi, ax, ay], [oi])
        cases.append(case("extensions_batch_matmul_%s_%s" % (name, variant), "extensions_batch_matmul",
                          m, TRANSFORMER_EXT, relaxed, expect_failure))
    return cases


def layer_norm_case(name, dims, axis, affine, eps, seed, expect_failure=False, gamma_len=None,
                    affine_inputs=False):
    cases = []
    for variant, t, relaxed in VARIANTS:
        rng = Lcg(seed)
        x = rounded(rng.values(count_of(dims), -2.0, 3.0), t)
        extent = dims[axis % len(dims)] if gamma_len is None else gamma_len
        gamma = rounded(rng.values(extent, 0.5, 1.5), t) if affine else None
        beta = rounded(rng.values(extent), t) if affine else None
        m = Model(t)
        xi = m.input(dims, x)
        affine_operand = m.input if affine_inputs else m.const
        gi = affine_operand([extent], gamma) if affine else m.omitted()
        bi = affine_operand([extent], beta) if affine else m.omitted()
        ai = m.scalar("INT32", axis)
        ei = m.scalar(scalar_float_type(t), eps)
        eps_used = to_half(eps) if t == "TENSOR_FLOAT16" else struct.unpack("<f", struct.pack("<f", eps))[0]
        out = [] if expect_failure else layer_norm_ref(x, dims, axis, gamma, beta, eps_used)
        oi = m.output(dims, out)
        m.operation(op_type(LAYER_NORMALIZATION), [xi, gi, bi, ai, ei], [oi])
        cases.append(case("extensions_layer_normalization_%s_%s" % (name, variant),
                          "extensions_layer_normalization", m, TRANSFORMER_EXT, relaxed, expect_failure))
    return cases


def gelu_case(name, dims, approximate, seed, approximate_type="BOOL", expect_failure=False):
    cases = []
    for variant, t, relaxed in VARIANTS:
        rng = Lcg(seed)
        x = rounded(rng.values(count_of(dims), -6.0, 6.0), t)
        m = Model(t)
        xi = m.input(dims, x)
        ai = m.scalar(approximate_type, int(approximate))
        oi = m.output(dims, [] if expect_failure else [gelu_ref(v, approximate) for v in x])
        m.operation(op_type(GELU), [xi, ai], [oi])
        cases.append(case("extensions_gelu_%s_%s" % (name, variant), "extensions_gelu", m,
                          TRANSFORMER_EXT, relaxed, expect_failure))
    return cases


def attention_case(name, qd, kd, vd, md, scale, seed, masked_out=(), expect_failure=False,
                   mask_input=False):
    cases = []
    for variant, t, relaxed in VARIANTS:
        rng = Lcg(seed)
        q = rounded(rng.values(count_of(qd)), t)
        k = rounded(rng.values(count_of(kd)), t)
        v = rounded(rng.values(count_of(vd), -2.0, 2.0), t)
        mask = None
        if md is not None:
            mask = rounded(rng.values(count_of(md), -0.5, 0.5), t)
            for j in masked_out:
                mask[j] = -math.inf
        m = Model(t)
        qi, ki, vi = m.input(qd, q), m.input(kd, k), m.input(vd, v)
        mask_operand = m.input if mask_input else m.const
        mi = (mask_operand(md, ["-inf" if x == -math.inf else x for x in mask]) if mask is not None
              else m.omitted())
        si = m.scalar(scalar_float_type(t), scale)
        scale_used = to_half(scale) if t == "TENSOR_FLOAT16" else struct.unpack("<f", struct.pack("<f", scale))[0]
        if expect_failure:
            out, od = [], [1, 1]
        else:
            out, od = attention_ref(q, qd, k, kd, v, vd, mask, md, scale_used)
        oi = m.output(od, out)
        m.operation(op_type(ATTENTION), [qi, ki, vi, mi, si], [oi])
        cases.append(case("extensions_attention_%s_%s" % (name, variant), "extensions_attention", m,
                          TRANSFORMER_EXT, relaxed, expect_failure))
    return cases


def gelu_after_add_case(name, dims, approximate, seed):
    """ADD then GELU: GELU may run inside the ADD's kernel (fusion)."""
    cases = []
    for variant, t, relaxed in VARIANTS:
        rng = Lcg(seed)
        x = rounded(rng.values(count_of(dims), -3.0, 3.0), t)
        y = rounded(rng.values(count_of(dims), -3.0, 3.0), t)
        m = Model(t)
        xi, yi = m.input(dims, x), m.input(dims, y)
        act = m.scalar("INT32", 0)
        total = rounded([a + b for a, b in zip(x, y)], t)
        si = m.operand(t, dims, "TEMPORARY_VARIABLE")
        m.operation("ADD", [xi, yi, act], [si])
        ai = m.scalar("BOOL", int(approximate))
        oi = m.output(dims, [gelu_ref(v, approximate) for v in total])
        m.operation(op_type(GELU), [si, ai], [oi])
        cases.append(case("extensions_gelu_%s_%s" % (name, variant), "extensions_gelu", m,
                          TRANSFORMER_EXT, relaxed))
    return cases


def transformer_cases():
    cases = []
    cases += batch_matmul_case("2d", [3, 4], [4, 5], False, False, 1)
    cases += batch_matmul_case("adjoint", [2, 4, 3], [2, 5, 4], True, True, 2)
    cases += batch_matmul_case("adj_x", [2, 4, 3], [2, 4, 5], True, False, 3)
    cases += batch_matmul_case("broadcast", [2, 1, 3, 4], [3, 4, 2], False, False, 4)
    cases += batch_matmul_case("rows_weights", [2, 3, 6], [5, 6], False, True, 5, y_const=True)
    cases += batch_matmul_case("tiles", [2, 40, 21], [21, 33], False, False, 6)
    cases += batch_matmul_case("k_mismatch", [2, 3], [4, 5], False, False, 7, expect_failure=True)
    cases += layer_norm_case("last_axis", [2, 3, 8], -1, True, 1e-5, 11)
    cases += layer_norm_case("axis1_no_affine", [2, 5, 3], 1, False, 1e-3, 12)
    cases += layer_norm_case("long_rows", [2, 600], 1, True, 1e-5, 13)
    cases += layer_norm_case("affine_inputs", [3, 4, 5], 0, True, 1e-4, 16, affine_inputs=True)
    cases += layer_norm_case("gamma_length", [2, 8], 1, True, 1e-5, 14, expect_failure=True,
                             gamma_len=7)
    cases += layer_norm_case("epsilon_zero", [2, 8], 1, True, 0.0, 15, expect_failure=True)
    cases += gelu_case("exact", [4, 6], False, 21)
    cases += gelu_case("tanh", [3, 2, 5], True, 22)
    cases += gelu_case("approximate_not_bool", [4], False, 23, approximate_type="INT32",
                       expect_failure=True)
    cases += gelu_after_add_case("after_add", [2, 7], False, 24)
    cases += attention_case("basic", [2, 3, 4], [2, 5, 4], [2, 5, 6], None, 0.5, 31)
    cases += attention_case("mask", [1, 2, 3, 4], [1, 2, 6, 4], [1, 2, 6, 3], [3, 6], 0.5, 32,
                            masked_out=(5, 10, 11))
    cases += attention_case("mask_rows", [2, 4, 8], [2, 40, 8], [2, 40, 5], [2, 1, 40],
                            0.35355339059327373, 33)
    cases += attention_case("mask_input", [3, 5, 4], [3, 5, 4], [3, 5, 2], [5, 5], 0.5, 35,
                            mask_input=True)
    cases += attention_case("batch_mismatch", [2, 3, 4], [3, 5, 4], [3, 5, 6], None, 0.5, 34,
                            expect_failure=True)
    return cases


def compact(value):
    """Floats to 10 significant digits (the criteria allow 1e-5 at best): smaller files."""
    if isinstance(value, float):
        return float("%.10g" % value)
    if isinstance(value, list):
        return [compact(v) for v in value]
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    return value


def write(name, source, tests):
    """One test per line."""
    path = os.path.join(HERE, name)
    lines = [json.dumps(compact(t), separators=(",", ":"), allow_nan=False) for t in tests]
    with open(path, "w") as f:
        f.write('{"format":"nnapi-cts-json/1","source_spec":"%s","tests":[\n' % source)
        f.write(",\n".join(lines))
        f.write("\n]}\n")


def main():
    write("extensions_fibonacci.json", "gen_extensions.py", fibonacci_cases())
    write("extensions_transformer.json", "gen_extensions.py", transformer_cases())


if __name__ == "__main__":
    main()
