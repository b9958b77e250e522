#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant detection_postprocess_decode_f32: -DSTAGE_DECODE -DELEM_F32
// variant detection_postprocess_decode_f16: -DSTAGE_DECODE -DELEM_F16
// variant detection_postprocess_nms: -DSTAGE_NMS -DELEM_F32
// variant detection_postprocess_write_f32: -DSTAGE_WRITE -DELEM_F32
// variant detection_postprocess_write_f16: -DSTAGE_WRITE -DELEM_F16
// DETECTION_POSTPROCESSING in three passes (src/ops/detection_postprocess.c),
// each batch apart, as the reference takes its steps:
//   decode: an invocation per (batch, anchor): the anchor [ctr_y, ctr_x, h,
//     w] moved by the deltas [dy, dx, dh, dw] over their scales, as corners
//     [y1, x1, y2, x2]; the scores in float32, and (fast NMS) the anchor's
//     highest score of a class other than 0.
//   nms: regular: a workgroup per (batch, class other than 0): the anchors
//     scoring above the threshold, hard NMS (nms_steps.glsl) up to the
//     maximum per class, the chosen sorted by score (then step). Fast: a
//     workgroup per batch: the same over the anchors' highest scores up to
//     the maximum detections, in the order chosen. The candidates (up to
//     MAX_CANDIDATES, every anchor of a batch) are a list in a scratch
//     buffer of the plan, a list per workgroup of `anchors` places, not
//     shared memory: each step scans the list that remains in the order the
//     reference's swaps leave it, so ties go as there. Long lists take the
//     steps in several passes (src/ops/nms_passes.h), each list's (start,
//     stop) kept after the lengths between them. The last pass puts the
//     chosen ones in lists of list_stride() places (the most one list may
//     choose).
//   write: a workgroup per batch: regular: each chosen box's rank among
//     the batch's (score, then class, then step: binary searches of the
//     other classes' sorted lists), those below the maximum detections at
//     their rank; fast: each chosen anchor's best classes (score, then
//     class), as many as the maximum classes per detection. The label is the
//     class, less 1 when the background is not counted. Rows past the
//     detections are zero, as the reference leaves them, and the number of
//     detections goes into the batch's count.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"

const uint LANES = 128u;            // the workgroup size of the nms and write passes
// Anchors of one batch (the driver refuses more): 2^16, so that a lane's
// share of a list (512 places) keeps its marks in 16 words.
const uint MAX_CANDIDATES = 65536u;

layout(push_constant) uniform Params {
    uint batches, anchors, classes, box_length;
    float scale_y, scale_x, scale_h, scale_w;
    uint regular;                    // regular (per class) NMS, or fast
    uint max_detections;             // per batch
    uint max_classes_per_detection;  // fast NMS
    uint max_per_class;              // regular NMS
    float score_threshold, iou_threshold;
    uint background_label;  // 1: labels count the background class
    uint rows;              // output rows per batch
    uint step_begin;        // nms: the first step of this pass (0: gather the list first)
    uint step_end;          // nms: the steps taken after it, in all (at the limit: the last pass)
} p;

#if defined(STAGE_DECODE)
layout(std430, set = 0, binding = 0) readonly buffer Scores { STORAGE_T scores[]; };
layout(std430, set = 0, binding = 1) readonly buffer Deltas { STORAGE_T deltas[]; };
layout(std430, set = 0, binding = 2) readonly buffer Anchors { STORAGE_T anchors[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 4) writeonly buffer RealScores { float real_scores[]; };
layout(std430, set = 0, binding = 5) writeonly buffer BestScores { float best_scores[]; };
#elif defined(STAGE_NMS)
layout(std430, set = 0, binding = 0) readonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 1) readonly buffer RealScores { float real_scores[]; };
layout(std430, set = 0, binding = 2) readonly buffer BestScores { float best_scores[]; };
layout(std430, set = 0, binding = 3) coherent buffer NmsEntries { uvec2 nms_entries[]; };
layout(std430, set = 0, binding = 4) coherent buffer NmsMarks { uint nms_marks[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Selected { uvec2 selected[]; };
layout(std430, set = 0, binding = 6) buffer Lengths { uint lengths[]; };  // then (start, stop) per list
#else
layout(std430, set = 0, binding = 0) readonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 1) readonly buffer RealScores { float real_scores[]; };
layout(std430, set = 0, binding = 2) readonly buffer Selected { uvec2 selected[]; };
layout(std430, set = 0, binding = 3) readonly buffer Lengths { uint lengths[]; };
layout(std430, set = 0, binding = 4) writeonly buffer OutScores { STORAGE_T out_scores[]; };
layout(std430, set = 0, binding = 5) writeonly buffer OutBoxes { STORAGE_T out_boxes[]; };
layout(std430, set = 0, binding = 6) writeonly buffer OutClasses { int out_classes[]; };
layout(std430, set = 0, binding = 7) writeonly buffer OutCounts { int out_counts[]; };
#endif

#if defined(STAGE_NMS)
#define NMS_STEPS 1
#define NMS_LIST_IN_BUFFER 1
#define NMS_SORTED_LISTS 1
#define NMS_LANES LANES
#define NMS_CAPACITY MAX_CANDIDATES
#elif defined(STAGE_WRITE)
#define NMS_SEARCH_LISTS 1
#endif
#include "nms_steps.glsl"

// Lists: regular, one per (batch, class other than 0), anchors entries each;
// fast, one per batch.
uint list_of(uint batch, uint cls) { return batch * (p.classes - 1u) + cls - 1u; }

// The places of a list of chosen boxes: as many as one workgroup may choose.
uint list_stride() { return min(p.anchors, p.regular != 0u ? p.max_per_class : p.max_detections); }

#if defined(STAGE_DECODE)
// value * factor / scale, in the reference's order.
float scaled(float value, float factor, float scale) {
    precise float product = value * factor;
    return nearest_quotient(product, scale);
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.batches * p.anchors) return;
    uint a = i % p.anchors;
    vec4 anchor = vec4(float(anchors[4u * a]), float(anchors[4u * a + 1u]), float(anchors[4u * a + 2u]),
                       float(anchors[4u * a + 3u]));  // ctr_y, ctr_x, h, w
    uint d = i * p.box_length;
    precise float y = anchor.x + scaled(anchor.z, float(deltas[d]), p.scale_y);
    precise float x = anchor.y + scaled(anchor.w, float(deltas[d + 1u]), p.scale_x);
    precise float half_h = anchor.z * exp(nearest_quotient(float(deltas[d + 2u]), p.scale_h)) * 0.5;
    precise float half_w = anchor.w * exp(nearest_quotient(float(deltas[d + 3u]), p.scale_w)) * 0.5;
    precise vec4 corners = vec4(y - half_h, x - half_w, y + half_h, x + half_w);
    decoded[i] = corners;
    float best = 0.0;
    for (uint c = 0u; c < p.classes; ++c) {
        float v = float(scores[i * p.classes + c]);
        real_scores[i * p.classes + c] = v;
        if (c == 1u || (c > 1u && v > best)) best = v;
    }
    best_scores[i] = best;
}
#endif

#if defined(STAGE_NMS)
// context: (batch, class); class 0 for the fast NMS over the best scores.
bool nms_candidate(uint j, uvec2 context, out uint box, out float score) {
    box = j;
    uint at = context.x * p.anchors + j;
    score = context.y == 0u ? best_scores[at] : real_scores[at * p.classes + context.y];
    return score > p.score_threshold;
}

// Hard NMS: the boxes whose IoU with the chosen one reaches the threshold.
void nms_mark(uint lane, uint start, uint stop, uvec2 context) {
    uint base = context.x * p.anchors;
    vec4 chosen = decoded[base + entry_box(start)];
    for (uint q = start + 1u + lane; q < stop; q += LANES)
        set_mark(q, nms_iou(decoded[base + entry_box(q)], chosen) >= p.iou_threshold ? 1u : 0u);
}

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    uint per_batch = p.regular != 0u ? p.classes - 1u : 1u;
    if (group >= p.batches * per_batch) return;
    uint batch = group / per_batch, cls = p.regular != 0u ? group % per_batch + 1u : 0u;
    uvec2 context = uvec2(batch, cls);
    nms_list = group * p.anchors;
    uint start = 0u, stop, state = p.batches * (p.classes - 1u) + 2u * group;
    if (p.step_begin == 0u) {
        stop = nms_gather(lane, min(p.anchors, MAX_CANDIDATES), context);
    } else {
        start = lengths[state];
        stop = lengths[state + 1u];
    }
    uint limit = p.regular != 0u ? p.max_per_class : p.max_detections;
    uint chosen = nms_run(lane, start, stop, min(limit, p.step_end), context);
    if (p.step_end < limit) {
        // Lanes read the state before nms_run's barriers; without a step
        // lane 0 writes back what they read.
        if (lane == 0u) {
            lengths[state] = chosen;
            lengths[state + 1u] = stop;
        }
        return;
    }
    if (p.regular != 0u) {
        nms_write_sorted(lane, group * list_stride(), chosen);
    } else {
        for (uint q = lane; q < chosen; q += LANES)
            selected[group * list_stride() + q] = uvec2(entry_box(q), floatBitsToUint(entry_score(q)));
    }
    if (lane == 0u) lengths[group] = chosen;
}
#endif

#if defined(STAGE_WRITE)
void write_row(uint batch, uint row, uint anchor, uint cls) {
    uint at = batch * p.rows + row, from = batch * p.anchors + anchor;
    out_scores[at] = STORAGE_T(real_scores[from * p.classes + cls]);
    vec4 b = decoded[from];
    for (uint c = 0u; c < 4u; ++c) out_boxes[4u * at + c] = STORAGE_T(b[c]);
    out_classes[at] = int(cls) - (p.background_label != 0u ? 0 : 1);
}

// Regular: every chosen box at its rank among the batch's, if below the
// maximum; returns the detections.
uint write_regular(uint batch, uint lane) {
    uint total = 0u;
    for (uint cls = 1u; cls < p.classes; ++cls) total += lengths[list_of(batch, cls)];
    uint stride = list_stride();
    for (uint slot = lane; slot < (p.classes - 1u) * stride; slot += LANES) {
        uint cls = slot / stride + 1u, step = slot % stride, list = list_of(batch, cls);
        if (step >= lengths[list]) continue;
        uvec2 entry = selected[list * stride + step];
        uint key = float_key(uintBitsToFloat(entry.y)), rank = step;
        for (uint other = 1u; other < p.classes && rank < p.max_detections; ++other) {
            if (other == cls) continue;
            uint other_list = list_of(batch, other);
            rank += nms_count_above(other_list * stride, lengths[other_list], key, other < cls);
        }
        if (rank < p.max_detections && entry.x < p.anchors) write_row(batch, rank, entry.x, cls);
    }
    return min(total, p.max_detections);
}

// Fast: each chosen anchor's best classes, in order; returns the detections.
uint write_fast(uint batch, uint lane) {
    uint per_anchor = min(p.classes - 1u, p.max_classes_per_detection), chosen = lengths[batch];
    for (uint slot = lane; slot < chosen * (p.classes - 1u); slot += LANES) {
        uint k = slot / (p.classes - 1u), cls = slot % (p.classes - 1u) + 1u;
        uint anchor = selected[batch * list_stride() + k].x;
        if (anchor >= p.anchors) continue;
        uint from = (batch * p.anchors + anchor) * p.classes;
        float score = real_scores[from + cls];
        uint rank = 0u;
        for (uint other = 1u; other < p.classes; ++other) {
            float v = real_scores[from + other];
            if (v > score || (v == score && other < cls)) rank++;
        }
        if (rank < per_anchor) write_row(batch, k * per_anchor + rank, anchor, cls);
    }
    return chosen * per_anchor;
}

void main() {
    uint batch = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    if (batch >= p.batches) return;
    uint count = min(p.regular != 0u ? write_regular(batch, lane) : write_fast(batch, lane), p.rows);
    for (uint row = count + lane; row < p.rows; row += LANES) {
        uint at = batch * p.rows + row;
        out_scores[at] = STORAGE_T(0.0);
        for (uint c = 0u; c < 4u; ++c) out_boxes[4u * at + c] = STORAGE_T(0.0);
        out_classes[at] = 0;
    }
    if (lane == 0u) out_counts[batch] = int(count);
}
#endif
