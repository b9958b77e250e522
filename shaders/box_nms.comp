#version 450
// Variants (built by embed_shaders.py; "name: defines"):
// variant box_nms_class_f32: -DSTAGE_CLASS -DELEM_F32
// variant box_nms_class_f16: -DSTAGE_CLASS -DELEM_F16
// variant box_nms_class_q8: -DSTAGE_CLASS -DELEM_Q8
// variant box_nms_class_q8s: -DSTAGE_CLASS -DELEM_Q8S
// variant box_nms_limit: -DSTAGE_LIMIT -DELEM_F32
// variant box_nms_write_f32: -DSTAGE_WRITE -DELEM_F32
// variant box_nms_write_f16: -DSTAGE_WRITE -DELEM_F16
// variant box_nms_write_q8: -DSTAGE_WRITE -DELEM_Q8
// variant box_nms_write_q8s: -DSTAGE_WRITE -DELEM_Q8S
// BOX_WITH_NMS_LIMIT in three stages (src/ops/box_nms.c). The boxes of a
// batch are a run of equal batch indices; every run is treated apart.
//   class: a workgroup per (class other than 0, chunk of LANES boxes),
//     taking the runs that start in its chunk one after another: the
//     run's boxes scoring above the threshold, in box order, a list in
//     scratch buffers (nms_steps.glsl's NMS_LIST_IN_BUFFER: the list of
//     (run, class) at the places of its selection list); then the NMS
//     steps as the reference takes them
//     (nms_steps.glsl): the first highest score is chosen and moved to the
//     front, every other score is multiplied by the kernel of its IoU with
//     the chosen box (hard: 0 at or above the IoU threshold; linear: 1 - IoU
//     there; gaussian: exp(-IoU^2 / sigma)), those below the NMS score
//     threshold are swapped to the end. Long lists take the steps in
//     several passes (src/ops/nms_passes.h: lavapipe's loop limiter), each
//     list's (start, stop) kept in the meta words between them; the first
//     pass gathers the lists, the last puts the chosen entries, sorted by
//     score (then by step), in the selection list of (run, class).
//   limit: an invocation per list entry: its rank among the run's entries of
//     every class (score, then class, then step: the reference's order),
//     by binary searches of the other sorted lists; those ranked below the
//     maximum count as kept (a prefix of each list).
//   write: one workgroup: the kept entries' places (runs in order, classes
//     in order inside a run), the outputs, and the number of rows, written
//     into the count word the driver reads after the fence.
// Scratch: the selection lists (uvec2: box, score bits), the meta words:
// list lengths, kept counts, output offsets ([classes - 1][boxes] each), the
// run each box belongs to, the batch index of each run, the NMS (start,
// stop) of each list; and the class pass's NMS lists (uvec2 entries and a
// mark each, [classes - 1][boxes]).
// A box with x1 > x2 or y1 > y2 is reported in the status word (as the
// reference fails it); so are batch indices the documentation rules out (a
// negative one, or one starting two runs: its boxes not grouped together),
// which the write pass checks.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elem_types.glsl"
#define RUNTIME_COUNTS 1
#include "runtime_status.glsl"

#if defined(QUANTIZED)
#define BOX_T uint16_t
#define BOX_VALUE(v) (0.125 * float(uint(v)))
#else
#define BOX_T STORAGE_T
#define BOX_VALUE(v) float(v)
#endif

// Entries one class list of a run may hold (the driver refuses more boxes
// than this): 2^16, so that a lane's marks fit in 16 words (nms_steps.glsl).
const uint MAX_CANDIDATES = 65536u;
const uint LANES = 128u;  // the workgroup size of the class and write passes

layout(push_constant) uniform Params {
    uint boxes_count, classes;
    float score_threshold;
    int max_detections;  // per run (and per class of a run); negative: no limit
    int nms_kernel;      // 0 hard, 1 linear, 2 gaussian
    float iou_threshold, sigma, nms_score_threshold;
    float score_scale;  // quantized scores
    int score_zero;
    uint count_word;  // the status buffer's count word (1..) of the rows
    uint check_code;  // reported for a box with x1 > x2 or y1 > y2, or batch indices out of the rules
    uint step_begin;  // class: the first step of this pass (0: gather the lists first)
    uint step_end;    // class: the steps taken after it, in all (at the limit: the last pass)
} p;

#if defined(STAGE_CLASS)
layout(std430, set = 0, binding = 0) readonly buffer Scores { STORAGE_T scores[]; };
layout(std430, set = 0, binding = 1) readonly buffer Boxes { BOX_T boxes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Batches { int batch_of[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Selected { uvec2 selected[]; };
layout(std430, set = 0, binding = 4) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 5) coherent buffer NmsEntries { uvec2 nms_entries[]; };
layout(std430, set = 0, binding = 6) coherent buffer NmsMarks { uint nms_marks[]; };
#elif defined(STAGE_LIMIT)
layout(std430, set = 0, binding = 0) readonly buffer Selected { uvec2 selected[]; };
layout(std430, set = 0, binding = 1) buffer Meta { uint meta[]; };
#else
layout(std430, set = 0, binding = 0) readonly buffer Boxes { BOX_T boxes[]; };
layout(std430, set = 0, binding = 1) readonly buffer Selected { uvec2 selected[]; };
layout(std430, set = 0, binding = 2) coherent buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 3) writeonly buffer OutScores { STORAGE_T out_scores[]; };
layout(std430, set = 0, binding = 4) writeonly buffer OutBoxes { BOX_T out_boxes[]; };
layout(std430, set = 0, binding = 5) writeonly buffer OutClasses { int out_classes[]; };
layout(std430, set = 0, binding = 6) writeonly buffer OutBatches { int out_batches[]; };
#endif

#if defined(STAGE_CLASS)
#define NMS_STEPS 1
#define NMS_SORTED_LISTS 1
#define NMS_LIST_IN_BUFFER 1
#define NMS_LANES LANES
#define NMS_CAPACITY MAX_CANDIDATES
#elif defined(STAGE_LIMIT)
#define NMS_SEARCH_LISTS 1
#endif
#include "nms_steps.glsl"

// Lists of (run, class): entry (class - 1) * boxes + first box of the run.
uint lists() { return p.boxes_count * (p.classes - 1u); }
uint meta_lengths() { return 0u; }
uint meta_kept() { return lists(); }
uint meta_offsets() { return 2u * lists(); }
uint meta_run_of() { return 3u * lists(); }
uint meta_run_batch() { return 3u * lists() + p.boxes_count; }
uint meta_state() { return 3u * lists() + 2u * p.boxes_count; }

#if defined(STAGE_CLASS)
float score_at(uint box, uint cls) {
    uint at = box * p.classes + cls;
#if defined(QUANTIZED)
    precise float real = p.score_scale * float(int(scores[at]) - p.score_zero);
    return real;
#else
    return float(scores[at]);
#endif
}

vec4 box_at(uint box, uint cls) {
    uint at = 4u * (box * p.classes + cls);
    return vec4(BOX_VALUE(boxes[at]), BOX_VALUE(boxes[at + 1u]), BOX_VALUE(boxes[at + 2u]),
                BOX_VALUE(boxes[at + 3u]));
}

void check_box(uint box, uint cls) {
    vec4 b = box_at(box, cls);
    if (!(b.x <= b.z && b.y <= b.w)) report_invalid_value(p.check_code, RULE_BOX_INVERTED);
}

float kernel_weight(float iou) {
    if (p.nms_kernel == 2) {
        precise float t = -1.0 * iou * iou;
        return exp(p.sigma > 0.0 ? nearest_quotient(t, p.sigma) : t / p.sigma);
    }
    if (iou < p.iou_threshold) return 1.0;
    if (p.nms_kernel == 1) {
        precise float w = 1.0 - iou;
        return w;
    }
    return 0.0;
}

bool nms_candidate(uint j, uvec2 context, out uint box, out float score) {
    box = context.x + j;
    score = score_at(box, context.y);
    return score > p.score_threshold;
}

// Soft NMS: the other scores decay by the kernel of their IoU with the
// chosen box; those below the NMS score threshold leave.
void nms_mark(uint lane, uint start, uint stop, uvec2 context) {
    vec4 chosen = box_at(entry_box(start), context.y);
    for (uint q = start + 1u + lane; q < stop; q += LANES) {
        uint box = entry_box(q);
        precise float v = entry_score(q) * kernel_weight(nms_iou(box_at(box, context.y), chosen));
        set_entry(q, box, v);
        set_mark(q, v < p.nms_score_threshold ? 1u : 0u);
    }
}

// The run starting at first: its length (each lane looks for the first
// box of another batch among its stride of boxes, a loop of run length /
// LANES iterations); class 1 records the run of each box.
uint run_length(uint lane, uint first, uint cls) {
    if (lane == 0u) s_value = p.boxes_count;
    barrier();
    int batch = batch_of[first];
    for (uint j = first + 1u + lane; j < p.boxes_count; j += LANES) {
        if (batch_of[j] != batch) {
            atomicMin(s_value, j);
            break;
        }
    }
    barrier();
    uint length = s_value - first;
    barrier();
    if (cls == 1u) {
        for (uint j = lane; j < length; j += LANES) meta[meta_run_of() + first + j] = first;
        if (lane == 0u) meta[meta_run_batch() + first] = uint(batch_of[first]);
    }
    for (uint j = lane; j < length; j += LANES) {
        check_box(first + j, cls);
        if (cls == 1u) check_box(first + j, 0u);
    }
    return length;
}

// The list of (run starting at first, class): gathered in the first pass,
// its NMS steps of this pass, its sorted selection in the last.
void class_list(uint lane, uint first, uint cls) {
    uint list = (cls - 1u) * p.boxes_count + first;
    uvec2 context = uvec2(first, cls);
    nms_list = list;
    uint start = 0u, stop, state = meta_state() + 2u * list;
    if (p.step_begin == 0u) {
        uint length = min(run_length(lane, first, cls), MAX_CANDIDATES);
        stop = nms_gather(lane, length, context);
    } else {
        start = meta[state];
        stop = meta[state + 1u];
    }
    // The steps a list may take in all: the driver plans the passes for as many.
    uint limit = p.max_detections < 0 ? p.boxes_count : min(p.boxes_count, uint(p.max_detections));
    start = nms_run(lane, start, stop, min(limit, p.step_end), context);
    if (p.step_end < limit) {
        // Lanes read the state before nms_run's barriers; without a step
        // lane 0 writes back what they read.
        if (lane == 0u) {
            meta[state] = start;
            meta[state + 1u] = stop;
        }
        return;
    }
    nms_write_sorted(lane, list, start);
    if (lane == 0u) {
        meta[meta_lengths() + list] = start;
        meta[meta_kept() + list] = 0u;
    }
}

shared uint s_starts[LANES];
shared uint s_start_count;

// A workgroup per (class, chunk of LANES boxes): the runs that start in the
// chunk, one list after another (a workgroup per box would leave all but
// the run starts idle, and lavapipe sets each up all the same). The runs
// but the chunk's last end inside it, so their steps add at most about
// LANES x 52 loop iterations to a pass (within the margin
// ops/nms_passes.h keeps).
void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x;
    uint chunks = (p.boxes_count + LANES - 1u) / LANES;
    if (group >= chunks * (p.classes - 1u)) return;
    uint cls = group / chunks + 1u, box = (group % chunks) * LANES + lane;
    bool starts = box < p.boxes_count && (box == 0u || batch_of[box] != batch_of[box - 1u]);
    if (box < p.boxes_count && !starts) {
        uint list = (cls - 1u) * p.boxes_count + box;
        meta[meta_lengths() + list] = 0u;
        meta[meta_kept() + list] = 0u;
    }
    if (lane == 0u) s_start_count = 0u;
    barrier();
    if (starts) s_starts[atomicAdd(s_start_count, 1u)] = box;
    barrier();
    uint count = s_start_count;
    for (uint i = 0u; i < count; ++i) {
        class_list(lane, s_starts[i], cls);
        barrier();  // every lane done with the list's shared words
    }
}
#endif

#if defined(STAGE_LIMIT)
void main() {
    uint slot = flat_invocation_index();
    if (slot >= lists()) return;
    uint cls = slot / p.boxes_count + 1u, box = slot % p.boxes_count;
    uint first = meta[meta_run_of() + box];
    if (first > box) return;
    uint list = slot - (box - first), step = box - first;
    if (step >= meta[meta_lengths() + list]) return;
    if (p.max_detections >= 0) {
        uint key = float_key(uintBitsToFloat(selected[slot].y)), rank = step;
        for (uint other = 1u; other < p.classes && rank < uint(p.max_detections); ++other) {
            if (other == cls) continue;
            uint other_list = (other - 1u) * p.boxes_count + first;
            rank += nms_count_above(other_list, meta[meta_lengths() + other_list], key, other < cls);
        }
        if (rank >= uint(p.max_detections)) return;
    }
    atomicAdd(meta[meta_kept() + list], 1u);
}
#endif

#if defined(STAGE_WRITE)
shared uint s_total;
shared uint s_sums[LANES];
shared uint s_runs, s_unsorted;

// The runs' batch indices, sorted by the slow path of check_batches: in the
// NMS state words (2 x lists >= 2 x boxes of them), which no pass reads once
// the class passes are done.
uint bitonic_load(uint i) { return meta[meta_state() + i]; }
void bitonic_store(uint i, uint v) { meta[meta_state() + i] = v; }
bool bitonic_before(uint a, uint b) { return a < b; }
#define BITONIC_T uint
#define BITONIC_LANES LANES
#include "bitonic_sort.glsl"

// The batch indices, as NNAPI documents them: an index names a batch, so it
// is not negative, and boxes with the same index are grouped together, so no
// index starts two runs. Each run start's index is compared with the run
// before it: rising indices are grouped (the usual case, one compare a run),
// and only where some index falls are the runs' indices sorted (a power of
// two of them at most 2^16: at most 136 steps of 256 iterations a lane, with
// the rest of this pass inside lavapipe's loop limiter) and neighbours
// compared. A violation is reported; the rows are written as the runs say
// either way, every address from the driver's own counts.
void check_batches(uint lane) {
    if (lane == 0u) {
        s_runs = 0u;
        s_unsorted = 0u;
    }
    barrier();
    for (uint box = lane; box < p.boxes_count; box += LANES) {
        if (meta[meta_run_of() + box] != box) continue;
        int batch = int(meta[meta_run_batch() + box]);
        if (batch < 0) report_invalid_value(p.check_code, RULE_BATCH_INDEX_OUT_OF_RANGE);
        if (box > 0u && batch < int(meta[meta_run_batch() + meta[meta_run_of() + box - 1u]])) s_unsorted = 1u;
        bitonic_store(atomicAdd(s_runs, 1u), uint(batch));
    }
    memoryBarrierBuffer();
    barrier();
    if (s_unsorted == 0u) return;
    uint runs = s_runs, n = 1u;
    while (n < runs) n <<= 1;
    // Padding past every index (an index that equals it, -1, is reported).
    for (uint k = runs + lane; k < n; k += LANES) bitonic_store(k, 0xffffffffu);
    memoryBarrierBuffer();
    barrier();
    bitonic_sort(lane, n);
    for (uint k = lane + 1u; k < runs; k += LANES)
        if (bitonic_load(k) == bitonic_load(k - 1u)) report_invalid_value(p.check_code, RULE_BATCH_INDICES_NOT_GROUPED);
}

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

// Kept entries of the list item t names (runs in box order, classes in
// order inside a run); 0 where box t / (classes - 1) starts no run.
uint kept_at(uint t) {
    uint per_box = p.classes - 1u;
    uint box = t / per_box, cls = t % per_box + 1u;
    if (meta[meta_run_of() + box] != box) return 0u;
    return meta[meta_kept() + (cls - 1u) * p.boxes_count + box];
}

// Output offsets of every list (an exclusive prefix sum in list order);
// the number of rows into the count word.
void place_lists(uint lane) {
    if (lane == 0u) s_total = 0u;
    barrier();
    uint per_box = p.classes - 1u;
    for (uint base = 0u; base < lists(); base += LANES) {
        uint t = base + lane;
        uint value = t < lists() ? kept_at(t) : 0u;
        s_sums[lane] = value;
        barrier();
        for (uint offset = 1u; offset < LANES; offset <<= 1) {
            uint add = lane >= offset ? s_sums[lane - offset] : 0u;
            barrier();
            s_sums[lane] += add;
            barrier();
        }
        if (t < lists() && value > 0u) {
            uint box = t / per_box, cls = t % per_box + 1u;
            meta[meta_offsets() + (cls - 1u) * p.boxes_count + box] = s_total + s_sums[lane] - value;
        }
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
    check_batches(lane);
    place_lists(lane);
    uint rows = s_total;
    for (uint slot = lane; slot < lists(); slot += LANES) {
        uint cls = slot / p.boxes_count + 1u, box = slot % p.boxes_count;
        uint first = meta[meta_run_of() + box];
        if (first > box) continue;
        uint list = slot - (box - first), step = box - first;
        if (step >= meta[meta_kept() + list]) continue;
        uint at = meta[meta_offsets() + list] + step;
        uvec2 entry = selected[slot];
        if (at >= rows || entry.x >= p.boxes_count) continue;
        store_score(at, uintBitsToFloat(entry.y));
        uint from = 4u * (entry.x * p.classes + cls);
        for (uint k = 0u; k < 4u; ++k) {
#if defined(QUANTIZED)
            out_boxes[4u * at + k] = BOX_T(uint(boxes[from + k]));
#else
            out_boxes[4u * at + k] = BOX_T(float(boxes[from + k]));
#endif
        }
        out_classes[at] = int(cls);
        out_batches[at] = int(meta[meta_run_batch() + first]);
    }
    // Rows past the real ones: zero boxes of batch 0, which operations
    // reading every planned row (ROI_ALIGN after this) accept.
    for (uint at = rows + lane; at < lists(); at += LANES) {
        store_score(at, 0.0);
        for (uint k = 0u; k < 4u; ++k) {
#if defined(QUANTIZED)
            out_boxes[4u * at + k] = BOX_T(0u);
#else
            out_boxes[4u * at + k] = BOX_T(0.0);
#endif
        }
        out_classes[at] = 0;
        out_batches[at] = 0;
    }
}
#endif
