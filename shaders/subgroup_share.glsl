// Values the lanes of a group of 8 share by subgroup shuffles
// (GL_KHR_shader_subgroup_shuffle; the kernels' SUBGROUP_FILTER variants):
// each lane loads one of 8 values every lane needs, and takes the others
// from the lanes holding them. The caller keeps every lane of its subgroup
// active, in subgroups of a multiple of 8 lanes, so the 8 lanes of a group
// (8-aligned subgroup invocations) all exist and run the shuffle together.
// One shuffle per component: lavapipe's compiler turns a scalar shuffle
// from a lane known when the shader compiles into one permute, a vector
// shuffle into a loop over the lanes.
#extension GL_KHR_shader_subgroup_shuffle : require

// Which of its group's 8 values this lane loads.
uint lane_of_8() { return gl_SubgroupInvocationID % 8; }

// Lane k's (of this lane's group of 8) v.
uint group_lane(uint k) { return (gl_SubgroupInvocationID & ~7u) | k; }

float from_lane_of_8(float v, uint k) { return subgroupShuffle(v, group_lane(k)); }

vec4 from_lane_of_8(vec4 v, uint k) {
    uint from = group_lane(k);
    return vec4(subgroupShuffle(v.x, from), subgroupShuffle(v.y, from), subgroupShuffle(v.z, from),
                subgroupShuffle(v.w, from));
}
