// Packed 8-bit dot products (VK_KHR_shader_integer_dot_product, SPIR-V
// OpUDot / OpSDot / OpSUDot with the 4x8-bit packed format), for the
// quantized matrix kernels' INTEGER_DOT variants. Each takes two 32-bit
// words of four 8-bit values and returns the sum of the four products.
// Signedness by variant, as quant_reads.glsl reads them: ELEM_Q8 unsigned
// input and filter (FILTER_I8: a signed filter), ELEM_Q8S signed both.
//   dot_input_filter(x, w): sum of x_i * w_i
//   dot_input_ones(x), dot_filter_ones(w): the sum of the four values
#extension GL_EXT_spirv_intrinsics : require

const uint ONES_4X8 = 0x01010101u;
const int PACKED_4X8 = 0; // PackedVectorFormat4x8Bit

spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_4x8(uint a, uint b, spirv_literal int format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4451)
uint udot_4x8(uint a, uint b, spirv_literal int format);
// The first operand signed, the second unsigned.
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int sudot_4x8(uint a, uint b, spirv_literal int format);

#if defined(ELEM_Q8S)
int dot_input_filter(uint x, uint w) { return sdot_4x8(x, w, PACKED_4X8); }
int dot_input_ones(uint x) { return sdot_4x8(x, ONES_4X8, PACKED_4X8); }
int dot_filter_ones(uint w) { return sdot_4x8(w, ONES_4X8, PACKED_4X8); }
#elif defined(FILTER_I8)
int dot_input_filter(uint x, uint w) { return sudot_4x8(w, x, PACKED_4X8); }
int dot_input_ones(uint x) { return int(udot_4x8(x, ONES_4X8, PACKED_4X8)); }
int dot_filter_ones(uint w) { return sdot_4x8(w, ONES_4X8, PACKED_4X8); }
#else
int dot_input_filter(uint x, uint w) { return int(udot_4x8(x, w, PACKED_4X8)); }
int dot_input_ones(uint x) { return int(udot_4x8(x, ONES_4X8, PACKED_4X8)); }
int dot_filter_ones(uint w) { return int(udot_4x8(w, ONES_4X8, PACKED_4X8)); }
#endif
