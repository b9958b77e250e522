#version 450
// variant peak_copy:
// Copy bandwidth: every invocation copies vec4 elements in a grid-stride loop,
// so any number of workgroups covers the whole buffer.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Source { vec4 source[]; };
layout(std430, binding = 1) writeonly buffer Destination { vec4 destination[]; };

layout(push_constant) uniform Params {
  uint count; // vec4 elements
} p;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < p.count; i += stride) destination[i] = source[i];
}
