// 8-bit operands of the quantized tiled kernels, read one value at a time or
// four at once, two ways (as operand_reads.glsl does for the float ones):
// - storage buffers (the default): a view of 8-bit values and one of 32-bit
//   words, each word unpacked into four values, zero- or sign-extended (a
//   tensor read by words holds a multiple of 4 bytes, and its word indices
//   are whole multiples of 4 elements);
// - TEXEL_READS: a storage texel buffer of R8 or R8G8B8A8 UINT / SINT texels
//   (the view's format, picked by the driver per tensor; declared once per
//   format, as in operand_reads.glsl), which the load widens itself: one
//   inlined gather on lavapipe.
// QUANT_INPUT(BINDING, name) and QUANT_FILTER(BINDING, name) declare the
// operands; READ1_Q(name, i) reads value i as an int, READ4_INPUT(name, i)
// and READ4_FILTER(name, i) values 4i..4i+3 as an ivec4. Signedness by
// variant: ELEM_Q8 reads uint8 input and filter (FILTER_I8: an int8
// per-channel filter), ELEM_Q8S int8 both.
#if defined(FILTER_I8) || defined(ELEM_Q8S)
#define FILTER_T int8_t
#define FILTER_TEXELS(BINDING, name) SIGNED_TEXELS(BINDING, name)
#else
#define FILTER_T STORAGE_T
#define FILTER_TEXELS(BINDING, name) UNSIGNED_TEXELS(BINDING, name)
#endif
#if defined(ELEM_Q8S)
#define INPUT_TEXELS(BINDING, name) SIGNED_TEXELS(BINDING, name)
#else
#define INPUT_TEXELS(BINDING, name) UNSIGNED_TEXELS(BINDING, name)
#endif

#if defined(TEXEL_READS)
#define UNSIGNED_TEXELS(BINDING, name) \
    layout(set = 0, binding = BINDING, r8ui) uniform readonly uimageBuffer name; \
    layout(set = 0, binding = BINDING, rgba8ui) uniform readonly uimageBuffer name##4;
#define SIGNED_TEXELS(BINDING, name) \
    layout(set = 0, binding = BINDING, r8i) uniform readonly iimageBuffer name; \
    layout(set = 0, binding = BINDING, rgba8i) uniform readonly iimageBuffer name##4;
#define QUANT_INPUT(BINDING, name) INPUT_TEXELS(BINDING, name)
#define QUANT_FILTER(BINDING, name) FILTER_TEXELS(BINDING, name)
#define READ1_Q(name, i) int(imageLoad(name, int(i)).x)
#define READ4_INPUT(name, i) ivec4(imageLoad(name##4, int(i)))
#define READ4_FILTER(name, i) ivec4(imageLoad(name##4, int(i)))
#else
#define QUANT_OPERAND(BINDING, Block, name, T) \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block { T name[]; }; \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block##4 { uint name##4[]; };
#define QUANT_INPUT(BINDING, name) QUANT_OPERAND(BINDING, Input, name, STORAGE_T)
#define QUANT_FILTER(BINDING, name) QUANT_OPERAND(BINDING, Filter, name, FILTER_T)

ivec4 unpack_u8(uint v) { return ivec4((uvec4(v) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu); }
ivec4 unpack_i8(uint v) { return ivec4(uvec4(v) << uvec4(24u, 16u, 8u, 0u)) >> 24; }

#define READ1_Q(name, i) int(name[i])
#if defined(ELEM_Q8S)
#define READ4_INPUT(name, i) unpack_i8(name##4[i])
#else
#define READ4_INPUT(name, i) unpack_u8(name##4[i])
#endif
#if defined(FILTER_I8) || defined(ELEM_Q8S)
#define READ4_FILTER(name, i) unpack_i8(name##4[i])
#else
#define READ4_FILTER(name, i) unpack_u8(name##4[i])
#endif
#endif
