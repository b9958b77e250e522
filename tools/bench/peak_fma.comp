#version 450
// variant peak_fma:
// Peak fp32 FMA throughput: eight independent vec4 chains per invocation, four
// steps of each per loop iteration (32 vec4 FMAs, 256 flops), so that neither
// latency nor loop overhead bounds the rate. The iteration count comes from a
// push constant, so the compiler can neither unroll the loop away nor fold it.
layout(local_size_x = 256) in;

layout(std430, binding = 0) writeonly buffer Sink { vec4 sink[]; };

layout(push_constant) uniform Params {
  uint iterations;
  float mul;      // close to 1: the chains neither overflow nor vanish
  float add;
  float never;    // a value the sum cannot take: keeps the chains live
} p;

#define STEP(acc) acc = fma(acc, m, a)
#define STEP_ALL() STEP(c0); STEP(c1); STEP(c2); STEP(c3); STEP(c4); STEP(c5); STEP(c6); STEP(c7)

void main() {
  vec4 m = vec4(p.mul);
  vec4 a = vec4(p.add);
  vec4 c0 = vec4(float(gl_GlobalInvocationID.x) * 1e-7);
  vec4 c1 = c0 + 0.1, c2 = c0 + 0.2, c3 = c0 + 0.3;
  vec4 c4 = c0 + 0.4, c5 = c0 + 0.5, c6 = c0 + 0.6, c7 = c0 + 0.7;
  for (uint i = 0; i < p.iterations; ++i) {
    STEP_ALL();
    STEP_ALL();
    STEP_ALL();
    STEP_ALL();
  }
  vec4 sum = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
  if (sum.x == p.never) sink[0] = sum;
}
