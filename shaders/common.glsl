// Shared helpers for every kernel: flat invocation index over a 2-D grid of
// workgroups (large tensors exceed the 65535 limit of one dimension).
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

uint flat_invocation_index() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    return group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// Rounds half away from zero, as the NNAPI reference does when it requantizes.
float round_half_away(float x) {
    return sign(x) * floor(abs(x) + 0.5);
}
