// A bitonic sort of n entries (n a power of two) by one workgroup of
// BITONIC_LANES lanes, the entries in a buffer (shaders/proposals.comp's
// lists, box_nms.comp's batch indices). The includer defines BITONIC_T, the
// entry type, and before this file the functions
//   BITONIC_T bitonic_load(uint i);
//   void bitonic_store(uint i, BITONIC_T v);
//   bool bitonic_before(BITONIC_T a, BITONIC_T b);  // a goes before b
// The entries end in bitonic_before's order (equal ones in no particular
// order: a total order decides every place). log2(n) (log2(n) + 1) / 2 steps
// of n / 2 compare-exchanges shared by the lanes, a barrier after each: for
// 2^16 entries 136 steps of 256 loop iterations a lane.
void bitonic_sort(uint lane, uint n) {
    for (uint size = 2u; size <= n; size <<= 1) {
        for (uint stride = size >> 1; stride > 0u; stride >>= 1) {
            for (uint t = lane; t < n / 2u; t += BITONIC_LANES) {
                uint i = 2u * stride * (t / stride) + t % stride, j = i + stride;
                BITONIC_T a = bitonic_load(i), b = bitonic_load(j);
                bool forwards = (i & size) == 0u;  // this block's direction (the last block: all)
                if (forwards ? bitonic_before(b, a) : bitonic_before(a, b)) {
                    bitonic_store(i, b);
                    bitonic_store(j, a);
                }
            }
            memoryBarrierBuffer();
            barrier();
        }
    }
}
