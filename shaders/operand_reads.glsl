// Read-only operands of the float kernels, read one of two ways:
// - storage buffers (the default): a scalar and a vec4 view of one binding;
// - TEXEL_READS: a storage texel buffer (imageBuffer, read only), whose view
//   format the driver picks per tensor: R32/R16 SFLOAT for scalar reads,
//   R32G32B32A32 / R16G16B16A16 SFLOAT for vec4 reads
//   (src/runtime/graph_recording.c). Each binding is declared twice, once per
//   format, and a kernel reads it through the declaration of its view's
//   format only. On lavapipe an image load is one inlined gather per vector
//   of lanes, where a storage buffer load is a loop over the lanes with a
//   bounds check each and a uniform texel fetch a call into a fetch function
//   that makes the caller spill its registers; the device's preference picks
//   the way (docs/perf.md).
// OPERAND(BINDING, Block, name) declares the binding; READ1(name, i) reads
// element i as a float, READ4(name, i) elements 4i..4i+3 as a vec4 (a tensor
// read with READ4 is bound with a four-component format); READ1_ARITH and
// READ4_ARITH read the same as ARITH_T and ARITH_VEC4 (elem_types.glsl),
// straight from float16 storage where the variant has it. Callers keep
// indices inside the tensor either way.
#if defined(TEXEL_READS)
#if defined(ELEM_F16)
#define TEXEL_FORMAT_1 r16f
#define TEXEL_FORMAT_4 rgba16f
#else
#define TEXEL_FORMAT_1 r32f
#define TEXEL_FORMAT_4 rgba32f
#endif
#define OPERAND(BINDING, Block, name) \
    layout(set = 0, binding = BINDING, TEXEL_FORMAT_1) uniform readonly imageBuffer name; \
    layout(set = 0, binding = BINDING, TEXEL_FORMAT_4) uniform readonly imageBuffer name##4;
#define READ1(name, i) imageLoad(name, int(i)).x
#define READ4(name, i) imageLoad(name##4, int(i))
#define READ1_ARITH(name, i) ARITH_T(READ1(name, i))
#define READ4_ARITH(name, i) ARITH_VEC4(READ4(name, i))
#else
#if defined(ELEM_F16)
#define OPERAND_VEC4 f16vec4
#else
#define OPERAND_VEC4 vec4
#endif
#define OPERAND(BINDING, Block, name) \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block { STORAGE_T name[]; }; \
    layout(std430, set = 0, binding = BINDING) readonly buffer Block##4 { OPERAND_VEC4 name##4[]; };
#define READ1(name, i) float(name[i])
#define READ4(name, i) vec4(name##4[i])
#define READ1_ARITH(name, i) ARITH_T(name[i])
#define READ4_ARITH(name, i) ARITH_VEC4(name##4[i])
#endif
