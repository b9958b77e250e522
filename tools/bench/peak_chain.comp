#version 450
// variant peak_chain:
// One link of a chain of dependent dispatches: a single small workgroup that
// reads and writes what the previous link wrote. Its own cost is negligible,
// so a longer chain measures what one more dispatch and barrier cost.
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer State { float state[]; };

void main() {
  uint i = gl_LocalInvocationID.x;
  state[i] = state[i] * 0.5 + 1.0;
}
