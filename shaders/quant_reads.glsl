// 8-bit operands of the quantized tiled kernels, read one value at a time or
// four from one 32-bit word (a tensor read by words holds a multiple of 4
// bytes, and its word indices are whole multiples of 4 elements).
// QUANT_OPERAND(BINDING, Block, name, T) declares binding BINDING as T values
// (uint8_t or int8_t) and as words; READ1_U8/READ1_I8 widen one value,
// READ4_U8/READ4_I8 unpack word i into four values, zero- or sign-extended.
#define QUANT_OPERAND(BINDING, Block, name, T) \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block { T name[]; }; \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block##4 { uint name##4[]; };

ivec4 unpack_u8(uint v) { return ivec4((uvec4(v) >> uvec4(0u, 8u, 16u, 24u)) & 0xffu); }
ivec4 unpack_i8(uint v) { return ivec4(uvec4(v) << uvec4(24u, 16u, 8u, 0u)) >> 24; }

#define READ1_Q(name, i) int(name[i])
#define READ4_U8(name, i) unpack_u8(name##4[i])
#define READ4_I8(name, i) unpack_i8(name##4[i])

// Input and filter signedness of a variant: ELEM_Q8 reads uint8 input and
// filter (FILTER_I8: an int8 per-channel filter), ELEM_Q8S int8 both.
#if defined(ELEM_Q8S)
#define READ4_INPUT(name, i) READ4_I8(name, i)
#else
#define READ4_INPUT(name, i) READ4_U8(name, i)
#endif
#if defined(FILTER_I8) || defined(ELEM_Q8S)
#define FILTER_T int8_t
#define READ4_FILTER(name, i) READ4_I8(name, i)
#else
#define FILTER_T STORAGE_T
#define READ4_FILTER(name, i) READ4_U8(name, i)
#endif
