// Non-maximum suppression as the NNAPI reference takes its steps, shared by
// the detection kernels (box_nms.comp, proposals.comp,
// detection_postprocess.comp).
//
// float_key: a float's bits as a key in the order of the values, always.
//
// With NMS_STEPS (the includer defines NMS_LANES, its workgroup size, and
// NMS_CAPACITY, the candidates one list may hold): a workgroup holds one
// list of candidates in shared memory (box index, score) and
//   nms_gather  takes the candidates in order (the includer's
//               nms_candidate(j, context, box, score) says whether item j
//               is one);
//   nms_run     takes the steps up to a limit: the first highest score is
//               chosen and moved to the front, the includer's
//               nms_mark(lane, start, stop, context) sets s_removed[q] for
//               each candidate q in [start + 1, stop) the choice drops (it
//               may change their scores: soft NMS), and those leave the
//               range in the order the reference's swaps leave them (which
//               decides ties later). The chosen ones are [0, count).
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

shared uint s_box[NMS_CAPACITY];
shared float s_score[NMS_CAPACITY];
shared uint s_removed[NMS_CAPACITY];
shared float s_best_score[NMS_LANES];
shared uint s_best_at[NMS_LANES];
shared uint s_value;

bool nms_candidate(uint j, uvec2 context, out uint box, out float score);
void nms_mark(uint lane, uint start, uint stop, uvec2 context);

// Exclusive prefix sum of each lane's value over the workgroup; the total
// in s_value.
uint lane_prefix(uint lane, uint value) {
    s_best_at[lane] = value;
    barrier();
    for (uint offset = 1u; offset < NMS_LANES; offset <<= 1) {
        uint add = lane >= offset ? s_best_at[lane - offset] : 0u;
        barrier();
        s_best_at[lane] += add;
        barrier();
    }
    uint inclusive = s_best_at[lane];
    if (lane == NMS_LANES - 1u) s_value = inclusive;
    barrier();
    return inclusive - value;
}

// The candidates among items [0, length) into shared memory, in item order
// (at most NMS_CAPACITY); returns their number.
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
            s_box[at] = box;
            s_score[at] = score;
            at++;
        }
    }
    barrier();
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
    for (uint q = start + lane; q < stop; q += NMS_LANES)
        if (better(best, best_at, s_score[q], q)) {
            best = s_score[q];
            best_at = q;
        }
    s_best_score[lane] = best;
    s_best_at[lane] = best_at;
    barrier();
    for (uint width = NMS_LANES / 2u; width > 0u; width >>= 1) {
        if (lane < width && better(s_best_score[lane], s_best_at[lane], s_best_score[lane + width],
                                  s_best_at[lane + width])) {
            s_best_score[lane] = s_best_score[lane + width];
            s_best_at[lane] = s_best_at[lane + width];
        }
        barrier();
    }
    uint chosen = s_best_at[0];
    barrier();
    return chosen;
}

void swap_entries(uint a, uint b) {
    uint box = s_box[a];
    float score = s_score[a];
    s_box[a] = s_box[b];
    s_score[a] = s_score[b];
    s_box[b] = box;
    s_score[b] = score;
}

// The marked entries of [start + 1, stop) leave the range. The reference
// swaps each with the end of the range in turn (a swapped-in entry tested
// in its turn): the kept entries end up in front, the i-th removed one
// among the first places taken by the i-th kept one counted from the end.
// That order is made here in parallel: each lane takes a chunk of places,
// prefix sums count the kept entries before each, s_removed then holds the
// holes' places by rank. Returns the new stop.
uint nms_compact(uint lane, uint start, uint stop) {
    barrier();  // every mark written
    uint first = start + 1u, length = stop - min(stop, first);
    uint per_lane = (length + NMS_LANES - 1u) / NMS_LANES;  // at most 32: a bit each
    uint begin = first + min(lane * per_lane, length), end = first + min((lane + 1u) * per_lane, length);
    uint removed = 0u, kept = 0u;
    for (uint q = begin; q < end; ++q) {
        uint bit = s_removed[q];
        removed |= bit << (q - begin);
        kept += 1u - bit;
    }
    uint kept_before = lane_prefix(lane, kept);  // barriers: every flag read
    uint total = s_value, new_stop = first + total;
    uint k = kept_before;
    for (uint q = begin; q < end; ++q) {
        bool gone = (removed >> (q - begin) & 1u) != 0u;
        if (gone && q < new_stop) s_removed[(q - first) - k] = q;  // the hole's rank
        if (!gone) k++;
    }
    barrier();
    k = kept_before;
    for (uint q = begin; q < end; ++q) {
        if ((removed >> (q - begin) & 1u) != 0u) continue;
        if (q >= new_stop) {
            uint hole = s_removed[total - k - 1u];
            s_box[hole] = s_box[q];
            s_score[hole] = s_score[q];
        }
        k++;
    }
    barrier();
    return new_stop;
}

// The steps over the candidates [0, stop), at most limit choices; returns
// how many were chosen (in the order chosen at [0, count)).
uint nms_run(uint lane, uint stop, uint limit, uvec2 context) {
    uint start = 0u;
    while (start < stop && start < limit) {
        uint chosen = best_place(lane, start, stop);
        if (lane == 0u) swap_entries(start, chosen);
        barrier();
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
// The chosen entries [0, count) sorted by score, then step, into the list
// at base.
void nms_write_sorted(uint lane, uint base, uint count) {
    for (uint q = lane; q < count; q += NMS_LANES) {
        uint key = float_key(s_score[q]), rank = 0u;
        for (uint o = 0u; o < count; ++o) {
            uint other = float_key(s_score[o]);
            if (other > key || (other == key && o < q)) rank++;
        }
        selected[base + rank] = uvec2(s_box[q], floatBitsToUint(s_score[q]));
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
