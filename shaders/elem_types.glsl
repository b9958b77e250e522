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
