#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant proposals_decode_f32: -DSTAGE_DECODE -DELEM_F32
// variant proposals_decode_f16: -DSTAGE_DECODE -DELEM_F16
// variant proposals_decode_q8: -DSTAGE_DECODE -DELEM_Q8
// variant proposals_decode_q8s: -DSTAGE_DECODE -DELEM_Q8S
// variant proposals_sort: -DSTAGE_SORT -DELEM_F32
// variant proposals_select: -DSTAGE_SELECT -DELEM_F32
// variant proposals_write_f32: -DSTAGE_WRITE -DELEM_F32
// variant proposals_write_f16: -DSTAGE_WRITE -DELEM_F16
// variant proposals_write_q8: -DSTAGE_WRITE -DELEM_Q8
// variant proposals_write_q8s: -DSTAGE_WRITE -DELEM_Q8S
// GENERATE_PROPOSALS in three passes, four with a pre-NMS maximum
// (src/ops/generate_proposals.c), each image of the batch apart, as the
// reference takes its steps:
//   decode: an invocation per (image, anchor position): the anchor moved to
//     its place on the feature map (height and width strides), then moved
//     and scaled by its deltas [dx, dy, dw, dh] and clipped to the image (the
//     bounding-box transform); its list entry (score key, position) flagged
//     when the box is too small (width or height not above min_size) or its
//     centre lies outside the image. A shifted anchor with x1 >= x2 or
//     y1 >= y2 is reported in the status word, as the reference fails it.
//   sort (with a pre-NMS maximum below the positions): a workgroup per image
//     sorts its list (padded to a power of two) by score, higher first, then
//     by position, a bitonic sort in the scratch buffer; the first entries
//     are the candidates. Ties keep the position order, as the reference's
//     sort of these cases keeps them. Without a maximum, every position is a
//     candidate, in order.
//   select: a workgroup per image, in as many passes as the kept maximum
//     needs (src/ops/nms_passes.h): the unflagged candidates in list order,
//     hard NMS (nms_steps.glsl: first highest score chosen, the boxes whose
//     IoU with it reaches the threshold dropped) up to the post-NMS maximum;
//     the chosen boxes in the order chosen. The candidates (up to
//     MAX_CANDIDATES) are a list in scratch buffers of the plan, not shared
//     memory (nms_steps.glsl's NMS_LIST_IN_BUFFER), `candidates` places per
//     image: each step scans the list that remains in the order the
//     reference's swaps leave it, so ties go as there.
//   write: one workgroup: each image's rows placed after the previous
//     images', the outputs (scores, boxes, batch indices), the number of rows
//     into the count word the driver reads after the fence, and harmless rows
//     (zero boxes of batch 0) past them.
// Scratch: the decoded boxes (vec4 per image and position), the scores
// (float), the lists ([images][positions, padded when sorted] of (score
// key, position and flag)), the kept lists ([images][kept_stride()]) with
// their lengths and output offsets, and the select pass's NMS lists
// ([images][candidates] of (position, score bits), and a mark each).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#if defined(STAGE_WRITE)
#define RUNTIME_COUNTS 1
#endif
#include "runtime_status.glsl"

#if defined(QUANTIZED)
#define ANCHOR_T int16_t
#define IMAGE_T uint16_t
#define ANCHOR_VALUE(v) (p.anchor_scale * float(int(v)))
#define IMAGE_VALUE(v) (0.125 * float(uint(v)))
#else
#define ANCHOR_T STORAGE_T
#define IMAGE_T STORAGE_T
#define ANCHOR_VALUE(v) float(v)
#define IMAGE_VALUE(v) float(v)
#endif

const uint LANES = 128u;               // the workgroup size of the select and write passes
// Candidates of one image (the driver refuses more): 2^16, so that a lane's
// share of a list (512 places) keeps its marks in 16 words.
const uint MAX_CANDIDATES = 65536u;
const uint FILTERED = 0x80000000u;     // a candidate list entry too small or outside its image

layout(push_constant) uniform Params {
    uint batches, height, width, anchors;
    uint nchw;
    float height_stride, width_stride;
    uint candidates;  // list entries per image: the pre-NMS maximum, or every position
    uint post_limit;  // boxes kept per image at most
    float iou_threshold, min_size;
    float score_scale;  // quantized scores and deltas
    int score_zero;
    float delta_scale;
    int delta_zero;
    float anchor_scale;  // quant16 anchors
    uint count_word;     // the status buffer's count word (1..) of the rows
    uint check_code;     // reported for an empty shifted anchor
    uint step_begin;     // select: the first NMS step of this pass (0: gather the list first)
    uint step_end;       // select: the steps taken after it, in all (the kept maximum: the last pass)
} p;

#if defined(STAGE_DECODE)
layout(std430, set = 0, binding = 0) readonly buffer Scores { STORAGE_T scores[]; };
layout(std430, set = 0, binding = 1) readonly buffer Deltas { STORAGE_T deltas[]; };
layout(std430, set = 0, binding = 2) readonly buffer Anchors { ANCHOR_T anchors[]; };
layout(std430, set = 0, binding = 3) readonly buffer Images { IMAGE_T images[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Order { uvec2 order[]; };
layout(std430, set = 0, binding = 6) writeonly buffer RealScores { float real_scores[]; };
#elif defined(STAGE_SELECT)
layout(std430, set = 0, binding = 0) readonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 1) readonly buffer Order { uvec2 order[]; };
layout(std430, set = 0, binding = 2) readonly buffer RealScores { float real_scores[]; };
layout(std430, set = 0, binding = 3) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 4) coherent buffer NmsEntries { uvec2 nms_entries[]; };
layout(std430, set = 0, binding = 5) coherent buffer NmsMarks { uint nms_marks[]; };
#elif defined(STAGE_SORT)
layout(std430, set = 0, binding = 0) coherent buffer Order { uvec2 order[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer Decoded { vec4 decoded[]; };
layout(std430, set = 0, binding = 1) readonly buffer RealScores { float real_scores[]; };
layout(std430, set = 0, binding = 2) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 3) writeonly buffer OutScores { STORAGE_T out_scores[]; };
layout(std430, set = 0, binding = 4) writeonly buffer OutBoxes { IMAGE_T out_boxes[]; };
layout(std430, set = 0, binding = 5) writeonly buffer OutBatches { int out_batches[]; };
#endif

#if defined(STAGE_SELECT)
#define NMS_STEPS 1
#define NMS_LIST_IN_BUFFER 1
#define NMS_LANES LANES
#define NMS_CAPACITY MAX_CANDIDATES
#endif
#include "nms_steps.glsl"

uint positions() { return p.height * p.width * p.anchors; }
// List entries per image: the positions, padded to a power of two for the sort.
uint list_length() {
    uint n = positions();
    return p.candidates < n ? 1u << uint(findMSB(n - 1u) + 1) : n;
}
// The places of an image's kept list: as many as one image may keep.
uint kept_stride() { return min(p.candidates, p.post_limit); }
// Meta: the kept boxes ([images][kept_stride()]), their numbers, the
// offsets, and each image's NMS (start, stop) between select passes.
uint meta_kept() { return 0u; }
uint meta_counts() { return p.batches * kept_stride(); }
uint meta_offsets() { return p.batches * kept_stride() + p.batches; }
uint meta_state() { return p.batches * kept_stride() + 2u * p.batches; }

#if defined(STAGE_DECODE)
// Element c of (image, position k) in a tensor of `per` channels per anchor
// position, by layout (NHWC: [b, h, w, a * per + c]; NCHW: [b, a * per + c,
// h, w]).
uint feature_at(uint image, uint k, uint per, uint c) {
    uint a = k % p.anchors, cell = k / p.anchors;  // cell = h * width + w
    uint channels = p.anchors * per, channel = a * per + c;
    if (p.nchw != 0u) return (image * channels + channel) * p.height * p.width + cell;
    return (image * p.height * p.width + cell) * channels + channel;
}

float score_of(uint image, uint k) {
    uint at = feature_at(image, k, 1u, 0u);
#if defined(QUANTIZED)
    precise float v = p.score_scale * float(int(scores[at]) - p.score_zero);
    return v;
#else
    return float(scores[at]);
#endif
}

float delta_of(uint image, uint k, uint c) {
    uint at = feature_at(image, k, 4u, c);
#if defined(QUANTIZED)
    precise float v = p.delta_scale * float(int(deltas[at]) - p.delta_zero);
    return v;
#else
    return float(deltas[at]);
#endif
}

// The anchor of position k moved to its cell, as the reference computes it.
vec4 shifted_anchor(uint k) {
    uint a = k % p.anchors, cell = k / p.anchors;
    precise float w_shift = float(cell % p.width) * p.width_stride;
    precise float h_shift = float(cell / p.width) * p.height_stride;
    precise vec4 shift = vec4(w_shift, h_shift, w_shift, h_shift);
    vec4 anchor = vec4(ANCHOR_VALUE(anchors[4u * a]), ANCHOR_VALUE(anchors[4u * a + 1u]),
                       ANCHOR_VALUE(anchors[4u * a + 2u]), ANCHOR_VALUE(anchors[4u * a + 3u]));
    precise vec4 moved = anchor + shift;
    return moved;
}

// The bounding-box transform of box b by the deltas of (image, k), clipped
// to the image (width, height), in the reference's order.
vec4 transform(vec4 b, uint image, uint k, vec2 image_size) {
    precise float w = b.z - b.x;
    precise float h = b.w - b.y;
    precise float cx = (b.x + b.z) / 2.0;
    precise float cy = (b.y + b.w) / 2.0;
    precise float new_w = exp(delta_of(image, k, 2u)) * w;
    precise float new_h = exp(delta_of(image, k, 3u)) * h;
    precise float new_x = cx + delta_of(image, k, 0u) * w;
    precise float new_y = cy + delta_of(image, k, 1u) * h;
    precise vec4 corners = vec4(new_x - new_w / 2.0, new_y - new_h / 2.0, new_x + new_w / 2.0, new_y + new_h / 2.0);
    return min(max(corners, vec4(0.0)), image_size.xyxy);
}

// Big enough and centred inside the image (the reference's filter).
bool passes_filter(vec4 b, vec2 image_size) {
    precise float w = b.z - b.x;
    precise float h = b.w - b.y;
    precise float cx = b.x + w / 2.0;
    precise float cy = b.y + h / 2.0;
    return w > p.min_size && h > p.min_size && cx < image_size.x && cy < image_size.y;
}

void main() {
    uint i = flat_invocation_index();
    if (i >= p.batches * positions()) return;
    uint image = i / positions(), k = i % positions();
    vec4 anchor = shifted_anchor(k);
    if (!(anchor.x < anchor.z && anchor.y < anchor.w)) report_invalid_value(p.check_code, RULE_ANCHOR_EMPTY);
    vec2 image_size = vec2(IMAGE_VALUE(images[2u * image + 1u]), IMAGE_VALUE(images[2u * image]));
    vec4 box = transform(anchor, image, k, image_size);
    float score = score_of(image, k);
    decoded[i] = box;
    real_scores[i] = score;
    order[image * list_length() + k] = uvec2(float_key(score), k | (passes_filter(box, image_size) ? 0u : FILTERED));
}
#endif

#if defined(STAGE_SORT)
uint sort_base;  // the image's list

// a comes before b: a higher score, or the same at an earlier position.
bool bitonic_before(uvec2 a, uvec2 b) {
    return a.x > b.x || (a.x == b.x && (a.y & ~FILTERED) < (b.y & ~FILTERED));
}
uvec2 bitonic_load(uint i) { return order[sort_base + i]; }
void bitonic_store(uint i, uvec2 v) { order[sort_base + i] = v; }
#define BITONIC_T uvec2
#define BITONIC_LANES LANES
#include "bitonic_sort.glsl"

void main() {
    uint image = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    if (image >= p.batches) return;
    uint n = list_length();
    sort_base = image * n;
    // Padding after every real entry: the lowest key, the last position.
    for (uint k = positions() + lane; k < n; k += LANES) order[sort_base + k] = uvec2(0u, ~FILTERED);
    memoryBarrierBuffer();
    barrier();
    bitonic_sort(lane, n);
}
#endif

#if defined(STAGE_SELECT)
// Entries come from the decode and sort passes; an entry is still checked
// before its box is read.
bool nms_candidate(uint j, uvec2 context, out uint box, out float score) {
    uint entry = order[context.x * list_length() + j].y;
    box = entry & ~FILTERED;
    score = 0.0;
    if ((entry & FILTERED) != 0u || box >= positions()) return false;
    score = real_scores[context.x * positions() + box];
    return true;
}

// Hard NMS: the boxes whose IoU with the chosen one reaches the threshold.
void nms_mark(uint lane, uint start, uint stop, uvec2 context) {
    uint base = context.x * positions();
    vec4 chosen = decoded[base + entry_box(start)];
    for (uint q = start + 1u + lane; q < stop; q += LANES)
        set_mark(q, nms_iou(decoded[base + entry_box(q)], chosen) >= p.iou_threshold ? 1u : 0u);
}

void main() {
    uint image = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    if (image >= p.batches) return;
    uvec2 context = uvec2(image, 0u);
    nms_list = image * p.candidates;
    uint start = 0u, stop, state = meta_state() + 2u * image;
    if (p.step_begin == 0u) {
        stop = nms_gather(lane, min(p.candidates, MAX_CANDIDATES), context);
    } else {
        start = meta[state];
        stop = meta[state + 1u];
    }
    uint kept = nms_run(lane, start, stop, min(p.step_end, kept_stride()), context);
    if (p.step_end < kept_stride()) {
        // Lanes read the state before nms_run's barriers; without a step
        // lane 0 writes back what they read.
        if (lane == 0u) {
            meta[state] = kept;
            meta[state + 1u] = stop;
        }
        return;
    }
    for (uint q = lane; q < kept; q += LANES) meta[meta_kept() + image * kept_stride() + q] = entry_box(q);
    if (lane == 0u) meta[meta_counts() + image] = kept;
}
#endif

#if defined(STAGE_WRITE)
shared uint s_total;
shared uint s_sums[LANES];

void store_score(uint at, float v) {
#if defined(QUANTIZED)
    precise float code = nearest_quotient(v, p.score_scale) + float(p.score_zero);
#if defined(ELEM_Q8)
    out_scores[at] = uint8_t(uint(clamp(round_half_away(code), 0.0, 255.0)));
#else
    out_scores[at] = int8_t(int(clamp(round_half_away(code), -128.0, 127.0)));
#endif
#else
    out_scores[at] = STORAGE_T(v);
#endif
}

void store_box(uint at, vec4 b) {
    for (uint c = 0u; c < 4u; ++c) {
#if defined(QUANTIZED)
        float code = round_half_away(nearest_quotient(b[c], 0.125));
        out_boxes[4u * at + c] = IMAGE_T(uint(clamp(code, 0.0, 65535.0)));
#else
        out_boxes[4u * at + c] = IMAGE_T(b[c]);
#endif
    }
}

// Each image's first row (an exclusive prefix sum of the kept numbers); the
// number of rows into the count word.
void place_images(uint lane) {
    if (lane == 0u) s_total = 0u;
    barrier();
    for (uint base = 0u; base < p.batches; base += LANES) {
        uint image = base + lane;
        uint value = image < p.batches ? meta[meta_counts() + image] : 0u;
        s_sums[lane] = value;
        barrier();
        for (uint offset = 1u; offset < LANES; offset <<= 1) {
            uint add = lane >= offset ? s_sums[lane - offset] : 0u;
            barrier();
            s_sums[lane] += add;
            barrier();
        }
        if (image < p.batches) meta[meta_offsets() + image] = s_total + s_sums[lane] - value;
        barrier();
        if (lane == LANES - 1u) s_total += s_sums[lane];
        barrier();
    }
    if (lane == 0u) runtime_counts[p.count_word - 1u] = s_total;
    memoryBarrierBuffer();
    barrier();
}

void main() {
    uint lane = gl_LocalInvocationID.x;
    if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u) return;
    place_images(lane);
    uint rows = s_total, stride = kept_stride(), planned = p.batches * stride;
    for (uint slot = lane; slot < planned; slot += LANES) {
        uint image = slot / stride, step = slot % stride;
        if (step >= meta[meta_counts() + image]) continue;
        uint at = meta[meta_offsets() + image] + step;
        uint box = meta[meta_kept() + slot];
        if (at >= planned || box >= positions()) continue;
        uint from = image * positions() + box;
        store_score(at, real_scores[from]);
        store_box(at, decoded[from]);
        out_batches[at] = int(image);
    }
    // Rows past the real ones: zero boxes of batch 0, which operations
    // reading every planned row accept.
    for (uint at = rows + lane; at < planned; at += LANES) {
        store_score(at, 0.0);
        store_box(at, vec4(0.0));
        out_batches[at] = 0;
    }
}
#endif
