// Where a convolution kernel stores element o of its output (its flat,
// row-major index): in its own tensor (SLICED == 0), or in a slice of a
// larger tensor (SLICED == 1): the output of a CONCATENATION that the
// kernel writes directly instead of a copy (compiler/fusion.c). The slice is
// rows of p.out_row elements, p.out_stride elements apart, the first at
// p.out_offset. The including kernel declares SLICED and the three push
// constants.
uint slice_index(uint o) {
    if (SLICED == 0) return o;
    return (o / p.out_row) * p.out_stride + p.out_offset + o % p.out_row;
}
