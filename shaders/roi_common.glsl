// What ROI_ALIGN and ROI_POOLING share (roi_align.comp, roi_pooling.comp):
// the push constants, the boxes and batch indices, and the element and
// input addressing in either layout. The including kernel defines the
// element type (elem_types.glsl) before this file.
layout(constant_id = 1) const int NCHW = 0;

#if defined(QUANTIZED)
#define BOX_T uint16_t
#define BOX_VALUE(v) float(uint(v))
#else
#define BOX_T STORAGE_T
#define BOX_VALUE(v) float(v)
#endif

layout(std430, set = 0, binding = 1) readonly buffer Boxes { BOX_T boxes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Batches { int batch_of[]; };

layout(push_constant) uniform Params {
    uint batches, in_h, in_w, channels, out_h, out_w, regions;
    int sampling_h, sampling_w;  // ROI_ALIGN: samples per bin (0: adaptive)
    float scale_h, scale_w;      // 1 / stride
    int in_zero, out_zero;
    float multiplier;            // quantized ROI_ALIGN: in_scale / 255 / out_scale
    uint check_code;             // reported for a bad box or batch index
} p;

// Region r's box [x1, y1, x2, y2] as stored (quant16: in 1/8 pixel units).
vec4 load_box(uint r) {
    return vec4(BOX_VALUE(boxes[4u * r]), BOX_VALUE(boxes[4u * r + 1u]),
                BOX_VALUE(boxes[4u * r + 2u]), BOX_VALUE(boxes[4u * r + 3u]));
}

int load_batch(uint r) { return batch_of[r]; }

// The rule a region breaks (runtime_status.glsl; 0: none): its batch index
// names no image of the input, its corners are out of order (as the kernel
// compared them), or its box leaves the image.
uint region_rule(int batch, bool ordered, bool inside) {
    if (batch < 0 || batch >= int(p.batches)) return RULE_BATCH_INDEX_OUT_OF_RANGE;
    if (!ordered) return RULE_BOX_INVERTED;
    return inside ? 0u : RULE_BOX_OUT_OF_RANGE;
}

struct OutputIndex {
    uint region, y, x, c;
};

// The output element i's region, row, column and channel.
OutputIndex output_index(uint i) {
    OutputIndex o;
    if (NCHW == 1) {
        o.x = i % p.out_w;
        uint t = i / p.out_w;
        o.y = t % p.out_h;
        t /= p.out_h;
        o.c = t % p.channels;
        o.region = t / p.channels;
    } else {
        o.c = i % p.channels;
        uint t = i / p.channels;
        o.x = t % p.out_w;
        t /= p.out_w;
        o.y = t % p.out_h;
        o.region = t / p.out_h;
    }
    return o;
}

uint input_offset(uint n, uint c, uint yy, uint xx) {
    if (NCHW == 1) return ((n * p.channels + c) * p.in_h + yy) * p.in_w + xx;
    return ((n * p.in_h + yy) * p.in_w + xx) * p.channels + c;
}
