// Values the lanes of a group of 8 share by subgroup shuffles
// (GL_KHR_shader_subgroup_shuffle; the kernels' SUBGROUP_FILTER variants):
// each lane loads one of 8 values every lane needs, and meets the others by
// rotating the group: after a rotation by r, lane l holds the value of lane
// (l + r) % 8. Eight rotations (the first one free) bring every value to
// every lane, each lane seeing them in its own order; the caller keeps
// track of which value a lane holds. The caller keeps every lane of its
// subgroup active, in subgroups of a multiple of 8 lanes, so the 8 lanes of
// a group (8-aligned subgroup invocations) all exist and run the shuffle
// together.
// One shuffle per component: lavapipe's compiler turns a scalar shuffle
// whose lanes are known when the shader compiles into permutes, a vector
// shuffle into a loop over the lanes. A rotation is one permute (valignd);
// taking one lane's value to every lane, as these kernels did first, took
// two (docs/perf.md, "Rotations instead of broadcasts").
#extension GL_KHR_shader_subgroup_shuffle : require

// Which of its group's 8 values this lane loads.
uint lane_of_8() { return gl_SubgroupInvocationID % 8; }

// The lane whose value this lane takes in a rotation by r.
uint rotated_lane(uint r) { return (gl_SubgroupInvocationID & ~7u) | ((gl_SubgroupInvocationID + r) & 7u); }

// After a rotation by r this lane holds the value loaded by lane
// (lane_of_8() + r) % 8 of its group. A caller keeping the rotation by r in
// register r puts each value back in the register of its loading lane by
// rotating its 8 registers by lane_of_8(), in steps of 1, 2 and 4: the step
// is taken where undo_rotation_step(step).
bool undo_rotation_step(uint step) { return (lane_of_8() & step) != 0; }

float rotated_by(float v, uint r) { return subgroupShuffle(v, rotated_lane(r)); }

vec4 rotated_by(vec4 v, uint r) {
    uint from = rotated_lane(r);
    return vec4(subgroupShuffle(v.x, from), subgroupShuffle(v.y, from), subgroupShuffle(v.z, from),
                subgroupShuffle(v.w, from));
}
