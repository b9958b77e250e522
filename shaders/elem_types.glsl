// Element storage types by variant: ELEM_F32, ELEM_F16, ELEM_Q8 (uint8),
// ELEM_Q8S (int8). QUANTIZED is defined for the 8-bit variants.
#if defined(ELEM_F32)
#define STORAGE_T float
#elif defined(ELEM_F16)
#define STORAGE_T float16_t
#elif defined(ELEM_Q8)
#define STORAGE_T uint8_t
#define QUANTIZED 1
#elif defined(ELEM_Q8S)
#define STORAGE_T int8_t
#define QUANTIZED 1
#endif

// F16_ARITH (with ELEM_F16, devices with shaderFloat16): the hot products and
// their short sums run in float16 (ARITH_T, ARITH_VEC4), in float32 otherwise.
// Each kernel says how far a float16 sum may run before it moves into a
// float32 one.
#if defined(F16_ARITH)
#if !defined(ELEM_F16)
#error F16_ARITH needs ELEM_F16
#endif
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define ARITH_T float16_t
#define ARITH_VEC4 f16vec4
#else
#define ARITH_T float
#define ARITH_VEC4 vec4
#endif
