// Typed views of the input (binding 0) and output (binding 1) buffers. The
// element kind is a specialization constant, so one module serves every
// type; the unused views cost nothing once specialized.
// Specialization constants 2 and 3 (constant 1 is the kernel's operation).
// Kinds: 0 float32, 1 float16, 2 int32, 3 uint8, 4 int8, 5 uint16, 6 int16.
layout(constant_id = 2) const int IN_KIND = 0;
layout(constant_id = 3) const int OUT_KIND = 0;

layout(std430, set = 0, binding = 0) readonly buffer InF32 { float in_f32[]; };
layout(std430, set = 0, binding = 0) readonly buffer InF16 { float16_t in_f16[]; };
layout(std430, set = 0, binding = 0) readonly buffer InI32 { int in_i32[]; };
layout(std430, set = 0, binding = 0) readonly buffer InU8 { uint8_t in_u8[]; };
layout(std430, set = 0, binding = 0) readonly buffer InI8 { int8_t in_i8[]; };
layout(std430, set = 0, binding = 0) readonly buffer InU16 { uint16_t in_u16[]; };
layout(std430, set = 0, binding = 0) readonly buffer InI16 { int16_t in_i16[]; };

layout(std430, set = 0, binding = 1) writeonly buffer OutF32 { float out_f32[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutF16 { float16_t out_f16[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutI32 { int out_i32[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutU8 { uint8_t out_u8[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutI8 { int8_t out_i8[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutU16 { uint16_t out_u16[]; };
layout(std430, set = 0, binding = 1) writeonly buffer OutI16 { int16_t out_i16[]; };

bool kind_is_float(int kind) { return kind <= 1; }

float load_float(uint i) {
    if (IN_KIND == 0) return in_f32[i];
    if (IN_KIND == 1) return float(in_f16[i]);
    if (IN_KIND == 2) return float(in_i32[i]);
    if (IN_KIND == 3) return float(uint(in_u8[i]));
    if (IN_KIND == 4) return float(int(in_i8[i]));
    if (IN_KIND == 5) return float(uint(in_u16[i]));
    return float(int(in_i16[i]));
}

int load_int(uint i) {
    if (IN_KIND == 0) return int(in_f32[i]);
    if (IN_KIND == 1) return int(float(in_f16[i]));
    if (IN_KIND == 2) return in_i32[i];
    if (IN_KIND == 3) return int(uint(in_u8[i]));
    if (IN_KIND == 4) return int(in_i8[i]);
    if (IN_KIND == 5) return int(uint(in_u16[i]));
    return int(in_i16[i]);
}

void store_float(uint i, float v) {
    if (OUT_KIND == 0) out_f32[i] = v;
    else if (OUT_KIND == 1) out_f16[i] = float16_t(v);
}

// Stores an integer already clamped to the output kind's range.
void store_int(uint i, int v) {
    if (OUT_KIND == 2) out_i32[i] = v;
    else if (OUT_KIND == 3) out_u8[i] = uint8_t(uint(v));
    else if (OUT_KIND == 4) out_i8[i] = int8_t(v);
    else if (OUT_KIND == 5) out_u16[i] = uint16_t(uint(v));
    else if (OUT_KIND == 6) out_i16[i] = int16_t(v);
}
