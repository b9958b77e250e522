// Non-maximum suppression as the NNAPI reference takes its steps, shared by
// the detection kernels (box_nms.comp, proposals.comp,
// detection_postprocess.comp).
//
// float_key: a float's bits as a key in the order of the values, always.
//
// With NMS_STEPS (the includer defines NMS_LANES, its workgroup size, and
// NMS_CAPACITY, the candidates one list may hold): a workgroup holds one
// list of candidates (box index, score) in shared memory, or, with
// NMS_LIST_IN_BUFFER, in buffers of the includer (coherent `nms_entries`,
// uvec2 of box and score bits, and `nms_marks`, uint; the workgroup's list
// starts at nms_list, which it sets before the first step): a list too
// long for shared memory. Either way the list is read and written through
// entry_box, entry_score, set_entry, mark_at and set_mark, and
//   nms_gather  takes the candidates in order (the includer's
//               nms_candidate(j, context, box, score) says whether item j
//               is one);
//   nms_run     takes the steps from `start` up to a limit of choices
//               (the choices [0, start) made, the candidates [start,
//               stop) still open): the first highest score is
//               chosen and moved to the front, the includer's
//               nms_mark(lane, start, stop, context) calls set_mark(q, 1 or
//               0) for each candidate q in [start + 1, stop) (1: the choice
//               drops it; it may change their scores: soft NMS), and those
//               leave the range in the order the reference's swaps leave
//               them (which decides ties later). The chosen ones are
//               [0, count).
// With the list in buffers, the steps may be spread over several
// dispatches, each resuming from the (start, stop) the one before it left
// (src/ops/nms_passes.h: lavapipe cuts a loop short once an invocation has
// taken 65535 loop iterations).
// With NMS_SORTED_LISTS (the includer declares `selected`, uvec2 entries
// of box and score bits): nms_write_sorted writes the chosen entries sorted
// by score, then by step; with NMS_SEARCH_LISTS, nms_count_above searches
// such a list.

// A float's bits as an unsigned key in the order of the values (-0 == +0).
uint float_key(float v) {
    uint bits = v == 0.0 ? 0u : floatBitsToUint(v);
    return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
}

#if defined(NMS_STEPS)
const uint NMS_NONE = 0xffffffffu;

#if defined(NMS_LIST_IN_BUFFER)
uint nms_list;  // the first place of the workgroup's list in the buffers

uint entry_box(uint q) { return nms_entries[nms_list + q].x; }
float entry_score(uint q) { return uintBitsToFloat(nms_entries[nms_list + q].y); }
void set_entry(uint q, uint box, float score) { nms_entries[nms_list + q] = uvec2(box, floatBitsToUint(score)); }
uint mark_at(uint q) { return nms_marks[nms_list + q]; }
void set_mark(uint q, uint value) { nms_marks[nms_list + q] = value; }

// Every lane's list writes visible to the workgroup, then the barrier.
void nms_barrier() {
    memoryBarrierBuffer();
    barrier();
}
#else
shared uint s_box[NMS_CAPACITY];
shared float s_score[NMS_CAPACITY];
shared uint s_removed[NMS_CAPACITY];

uint entry_box(uint q) { return s_box[q]; }
float entry_score(uint q) { return s_score[q]; }
void set_entry(uint q, uint box, float score) {
    s_box[q] = box;
    s_score[q] = score;
}
uint mark_at(uint q) { return s_removed[q]; }
void set_mark(uint q, uint value) { s_removed[q] = value; }
void nms_barrier() { barrier(); }
#endif

// The marks of a lane's places in nms_compact, a bit each, in words.
const uint NMS_MARK_WORDS = (NMS_CAPACITY + 32u * NMS_LANES - 1u) / (32u * NMS_LANES);

shared float s_best_score[NMS_LANES];
shared uint s_best_at[NMS_LANES];
shared uint s_value;

bool nms_candidate(uint j, uvec2 context, out uint box, out float score);
void nms_mark(uint lane, uint start, uint stop, uvec2 context);

// Exclusive prefix sum of each lane's value over the workgroup; the total
// in s_value.
uint lane_prefix(uint lane, uint value) {
    s_best_at[lane] = value;
    nms_barrier();
    for (uint offset = 1u; offset < NMS_LANES; offset <<= 1) {
        uint add = lane >= offset ? s_best_at[lane - offset] : 0u;
        nms_barrier();
        s_best_at[lane] += add;
        nms_barrier();
    }
    uint inclusive = s_best_at[lane];
    if (lane == NMS_LANES - 1u) s_value = inclusive;
    nms_barrier();
    return inclusive - value;
}

// The candidates among items [0, length) into the list, in item order (at
// most NMS_CAPACITY); returns their number.
uint nms_gather(uint lane, uint length, uvec2 context) {
    uint per_lane = (length + NMS_LANES - 1u) / NMS_LANES;
    uint begin = min(lane * per_lane, length), end = min(begin + per_lane, length);
    uint mine = 0u, box;
    float score;
    for (uint j = begin; j < end; ++j)
        if (nms_candidate(j, context, box, score)) mine++;
    uint at = lane_prefix(lane, mine);
    uint total = min(s_value, NMS_CAPACITY);
    for (uint j = begin; j < end && at < NMS_CAPACITY; ++j) {
        if (nms_candidate(j, context, box, score)) {
            set_entry(at, box, score);
            at++;
        }
    }
    nms_barrier();
    return total;
}

// b replaces a as the best: a higher score, or the same at an earlier place.
bool better(float a, uint a_at, float b, uint b_at) {
    if (b_at == NMS_NONE) return false;
    return a_at == NMS_NONE || a < b || (a == b && b_at < a_at);
}

// The place of the first highest score in [start, stop).
uint best_place(uint lane, uint start, uint stop) {
    float best = 0.0;
    uint best_at = NMS_NONE;
    for (uint q = start + lane; q < stop; q += NMS_LANES) {
        float score = entry_score(q);
        if (better(best, best_at, score, q)) {
            best = score;
            best_at = q;
        }
    }
    s_best_score[lane] = best;
    s_best_at[lane] = best_at;
    nms_barrier();
    for (uint width = NMS_LANES / 2u; width > 0u; width >>= 1) {
        if (lane < width && better(s_best_score[lane], s_best_at[lane], s_best_score[lane + width],
                                  s_best_at[lane + width])) {
            s_best_score[lane] = s_best_score[lane + width];
            s_best_at[lane] = s_best_at[lane + width];
        }
        nms_barrier();
    }
    uint chosen = s_best_at[0];
    nms_barrier();
    return chosen;
}

void swap_entries(uint a, uint b) {
    uint box = entry_box(a);
    float score = entry_score(a);
    set_entry(a, entry_box(b), entry_score(b));
    set_entry(b, box, score);
}

// Whether place begin + i is marked, from the lane's bits.
bool marked(uint bits[NMS_MARK_WORDS], uint i) { return (bits[i >> 5] >> (i & 31u) & 1u) != 0u; }

// The marked entries of [start + 1, stop) leave the range. The reference
// swaps each with the end of the range in turn (a swapped-in entry tested
// in its turn): the kept entries end up in front, the i-th removed one
// among the first places taken by the i-th kept one counted from the end.
// That order is made here in parallel: each lane takes a chunk of places
// (its marks kept as bits, since the holes overwrite them), prefix sums
// count the kept entries before each, the marks then hold the holes'
// places by rank. Returns the new stop.
uint nms_compact(uint lane, uint start, uint stop) {
    nms_barrier();  // every mark written
    uint first = start + 1u, length = stop - min(stop, first);
    uint per_lane = (length + NMS_LANES - 1u) / NMS_LANES;  // at most 32 * NMS_MARK_WORDS
    uint begin = first + min(lane * per_lane, length), end = first + min((lane + 1u) * per_lane, length);
    uint bits[NMS_MARK_WORDS];
    for (uint w = 0u; w < NMS_MARK_WORDS; ++w) bits[w] = 0u;
    uint kept = 0u;
    for (uint q = begin; q < end; ++q) {
        uint bit = mark_at(q);
        bits[(q - begin) >> 5] |= bit << ((q - begin) & 31u);
        kept += 1u - bit;
    }
    uint kept_before = lane_prefix(lane, kept);  // barriers: every mark read
    uint total = s_value, new_stop = first + total;
    uint k = kept_before;
    for (uint q = begin; q < end; ++q) {
        bool gone = marked(bits, q - begin);
        if (gone && q < new_stop) set_mark((q - first) - k, q);  // the hole's rank
        if (!gone) k++;
    }
    nms_barrier();
    k = kept_before;
    for (uint q = begin; q < end; ++q) {
        if (marked(bits, q - begin)) continue;
        if (q >= new_stop) {
            uint hole = mark_at(total - k - 1u);
            set_entry(hole, entry_box(q), entry_score(q));
        }
        k++;
    }
    nms_barrier();
    return new_stop;
}

// The steps from start over the candidates [start, stop) until limit
// choices in all; returns how many are chosen (in the order chosen at [0,
// count)), stop the end of the candidates still open.
uint nms_run(uint lane, uint start, inout uint stop, uint limit, uvec2 context) {
    while (start < stop && start < limit) {
        uint chosen = best_place(lane, start, stop);
        if (lane == 0u) swap_entries(start, chosen);
        nms_barrier();
        nms_mark(lane, start, stop, context);
        stop = nms_compact(lane, start, stop);
        start++;
    }
    return start;
}

// The reference's intersection over union of two corner boxes, in its order
// (a division by a zero union gives NaN as there, which no threshold meets).
float nms_iou(vec4 a, vec4 b) {
    precise float area_a = (a.z - a.x) * (a.w - a.y);
    precise float area_b = (b.z - b.x) * (b.w - b.y);
    precise float w = max(min(a.z, b.z) - max(a.x, b.x), 0.0);
    precise float h = max(min(a.w, b.w) - max(a.y, b.y), 0.0);
    precise float inter = w * h;
    precise float uni = area_a + area_b - inter;
    return uni > 0.0 ? nearest_quotient(inter, uni) : inter / uni;
}

#if defined(NMS_SORTED_LISTS)
// Whether no chosen score of [0, count) is above the one before it. Hard
// NMS over scores that are not negative always chooses so (a step takes
// the highest score left and the others keep theirs or drop to 0); soft
// NMS may not (a NaN IoU decays a score to NaN, a negative score rises).
bool nms_chosen_in_order(uint lane, uint count) {
    bool rises = false;
    for (uint q = lane + 1u; q < count; q += NMS_LANES)
        rises = rises || float_key(entry_score(q)) > float_key(entry_score(q - 1u));
    nms_barrier();  // every earlier read of s_value done
    if (lane == 0u) s_value = 0u;
    nms_barrier();
    if (rises) atomicOr(s_value, 1u);
    nms_barrier();
    bool in_order = s_value == 0u;
    nms_barrier();
    return in_order;
}

// The chosen entries [0, count) sorted by score, then step, into the list
// at base: copied when in order already, otherwise each ranked by counting
// (count^2 / NMS_LANES loop iterations a lane: the driver bounds count for
// the cases that may need it, lavapipe's loop limiter, ops/nms_passes.h).
void nms_write_sorted(uint lane, uint base, uint count) {
    if (nms_chosen_in_order(lane, count)) {
        for (uint q = lane; q < count; q += NMS_LANES)
            selected[base + q] = uvec2(entry_box(q), floatBitsToUint(entry_score(q)));
        return;
    }
    for (uint q = lane; q < count; q += NMS_LANES) {
        float score = entry_score(q);
        uint key = float_key(score), rank = 0u;
        for (uint o = 0u; o < count; ++o) {
            uint other = float_key(entry_score(o));
            if (other > key || (other == key && o < q)) rank++;
        }
        selected[base + rank] = uvec2(entry_box(q), floatBitsToUint(score));
    }
}
#endif
#endif

#if defined(NMS_SEARCH_LISTS)
// Entries of the list at base (n of them, sorted by key, highest first)
// whose key is above key, or not below it when at_or_above.
uint nms_count_above(uint base, uint n, uint key, bool at_or_above) {
    uint lo = 0u, hi = n;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        uint other = float_key(uintBitsToFloat(selected[base + mid].y));
        if (other > key || (at_or_above && other == key)) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}
#endif
