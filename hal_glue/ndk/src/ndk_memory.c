/* ANeuralNetworksMemory: the client's shared memory (a file descriptor) or a
 * driver-managed buffer made from a memory descriptor (vknn's memory domains),
 * and the copies between them. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "ndk.h"

int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory **memory) {
  NDK_NOT_NULL(memory);
  *memory = NULL;
  NDK_REQUIRE(fd >= 0 && size > 0, ANEURALNETWORKS_BAD_DATA, "fd %d, size %zu", fd, size);
  /* NNAPI: PROT_NONE or any of PROT_READ and PROT_WRITE; a use the
   * protection does not allow fails when the memory is used. */
  NDK_REQUIRE((protect & ~(PROT_READ | PROT_WRITE)) == 0, ANEURALNETWORKS_BAD_DATA,
              "protection %#x is not PROT_NONE or of PROT_READ and PROT_WRITE", (unsigned)protect);
  struct stat st;
  NDK_REQUIRE(fstat(fd, &st) == 0, ANEURALNETWORKS_BAD_DATA, "fd %d is not open", fd);
  NDK_REQUIRE(!S_ISREG(st.st_mode) || (offset <= (size_t)st.st_size && size <= (size_t)st.st_size - offset),
              ANEURALNETWORKS_BAD_DATA, "bytes [%zu, +%zu) are outside the file (%lld bytes)", offset, size,
              (long long)st.st_size);
  ANeuralNetworksMemory *m = ndk_alloc(sizeof(*m));
  if (m == NULL) return ANEURALNETWORKS_OUT_OF_MEMORY;
  /* The memory keeps its own descriptor: the client may close its one. */
  m->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (m->fd < 0) {
    ndk_free(m);
    ndk_log_error(__func__, "cannot duplicate fd %d", fd);
    return ANEURALNETWORKS_BAD_DATA;
  }
  m->kind = NDK_MEMORY_FD;
  m->slot = ndk_next_slot();
  m->size = size;
  m->ints[0] = protect;
  m->ints[1] = (int32_t)(uint32_t)((uint64_t)offset & 0xffffffffu);
  m->ints[2] = (int32_t)(uint32_t)((uint64_t)offset >> 32);
  m->vk = (vknn_memory){"mmap_fd", &m->fd, 1, m->ints, 3, size};
  *memory = m;
  return ANEURALNETWORKS_NO_ERROR;
}

/* AHardwareBuffer is Android's: this build has none to take. */
int ANeuralNetworksMemory_createFromAHardwareBuffer(const AHardwareBuffer *ahwb,
                                                    ANeuralNetworksMemory **memory) {
  NDK_NOT_NULL(ahwb);
  NDK_NOT_NULL(memory);
  *memory = NULL;
  ndk_log_error(__func__, "AHardwareBuffer is not available on this platform");
  return ANEURALNETWORKS_BAD_DATA;
}

void ANeuralNetworksMemory_free(ANeuralNetworksMemory *memory) {
  if (memory == NULL) return;
  ndk_burst_forget_slot(memory->slot);
  if (memory->kind == NDK_MEMORY_FD) {
    close(memory->fd);
  } else {
    vknn_buffer_release(memory->buffer);
    ndk_device_drop();
  }
  ndk_free(memory->roles);
  ndk_free(memory->params);
  ndk_free(memory);
}

bool ndk_memory_has_role(const ANeuralNetworksMemory *memory,
                         const ANeuralNetworksCompilation *compilation, uint32_t index,
                         bool is_input) {
  for (uint32_t i = 0; i < memory->role_count; ++i) {
    const ndk_role *r = &memory->roles[i];
    if (r->compilation_id == compilation->id && r->index == index && r->is_input == is_input) return true;
  }
  return false;
}

/* ---- descriptors ---------------------------------------------------------- */

int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc **desc) {
  NDK_NOT_NULL(desc);
  *desc = ndk_alloc(sizeof(**desc));
  return *desc ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUT_OF_MEMORY;
}

void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc *desc) {
  if (desc == NULL) return;
  ndk_free(desc->roles);
  ndk_free(desc);
}

/* Merges dimensions into the descriptor's (0: unknown; rank 0: unknown
 * rank); false when they disagree. */
static bool combine_dimensions(ANeuralNetworksMemoryDesc *desc, uint32_t rank, const uint32_t *dimensions) {
  if (rank == 0) return true;
  if (!desc->rank_known) {
    desc->rank = rank;
    desc->rank_known = true;
    memcpy(desc->dimensions, dimensions, rank * sizeof(uint32_t));
    return true;
  }
  if (desc->rank != rank) return false;
  for (uint32_t i = 0; i < rank; ++i) {
    if (desc->dimensions[i] != 0 && dimensions[i] != 0 && desc->dimensions[i] != dimensions[i]) return false;
    if (desc->dimensions[i] == 0) desc->dimensions[i] = dimensions[i];
  }
  return true;
}

static bool same_bytes(const void *a, const void *b, size_t size) { return size == 0 || memcmp(a, b, size) == 0; }

bool ndk_value_type_equal(const ndk_value_type *a, const ndk_value_type *b) {
  return a->type == b->type && a->scale == b->scale && a->zero_point == b->zero_point &&
         a->scale_count == b->scale_count && a->channel_dim == b->channel_dim &&
         same_bytes(a->scales, b->scales, a->scale_count * sizeof(float)) &&
         a->extension_size == b->extension_size &&
         same_bytes(a->extension_data, b->extension_data, a->extension_size);
}

static ndk_value_type value_type_of(const ndk_operand *o) {
  return (ndk_value_type){o->type,       o->scale,        o->zero_point,         o->scales,
                          o->scale_count, o->channel_dim, o->extension_data, o->extension_size};
}

/* NNAPI: every role of a descriptor has the same type, quantization and
 * extraParams. */
static bool same_operand_type(const ndk_operand *a, const ndk_operand *b) {
  ndk_value_type x = value_type_of(a), y = value_type_of(b);
  return ndk_value_type_equal(&x, &y);
}

/* A copy of o's value type whose parameters live in one block (*params). */
static bool copy_value_type(const ndk_operand *o, ndk_value_type *out, void **params) {
  size_t scale_bytes = o->scale_count * sizeof(float);
  *out = value_type_of(o);
  *params = ndk_alloc(scale_bytes + o->extension_size);
  if (*params == NULL) return false;
  uint8_t *p = *params;
  if (scale_bytes) memcpy(p, o->scales, scale_bytes);
  if (o->extension_size) memcpy(p + scale_bytes, o->extension_data, o->extension_size);
  out->scales = (const float *)p;
  out->extension_data = p + scale_bytes;
  return true;
}

static int add_role(ANeuralNetworksMemoryDesc *desc, const ANeuralNetworksCompilation *compilation,
                    uint32_t index, float frequency, bool is_input, const char *function) {
  NDK_REQUIRE_IN(function, !desc->finished, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  NDK_REQUIRE_IN(function, compilation->finished && compilation->prepared != NULL, ANEURALNETWORKS_BAD_DATA,
              "the compilation is not finished successfully");
  const ndk_operand *operand = ndk_compilation_io_operand(compilation, index, is_input);
  NDK_REQUIRE_IN(function, operand != NULL, ANEURALNETWORKS_BAD_DATA, "the model has no %s %u",
              is_input ? "input" : "output", index);
  NDK_REQUIRE_IN(function, frequency > 0.f && frequency <= 1.f, ANEURALNETWORKS_BAD_DATA,
              "frequency %g is outside (0, 1]", (double)frequency);
  /* NNAPI: a scalar's memory takes no dimensions. */
  NDK_REQUIRE_IN(function, !ndk_type_is_scalar(operand->type) || !desc->rank_known,
                 ANEURALNETWORKS_BAD_DATA, "the descriptor has dimensions and the operand is a scalar");
  for (uint32_t i = 0; i < desc->role_count; ++i) {
    const ndk_role *r = &desc->roles[i];
    NDK_REQUIRE_IN(function, !(r->compilation == compilation && r->index == index && r->is_input == is_input),
                ANEURALNETWORKS_BAD_DATA, "the role is already given");
    NDK_REQUIRE_IN(function, same_operand_type(ndk_compilation_io_operand(r->compilation, r->index, r->is_input), operand),
                ANEURALNETWORKS_BAD_DATA, "the operand's type differs from the other roles'");
  }
  ANeuralNetworksMemoryDesc saved = *desc;
  if (!combine_dimensions(desc, operand->rank, operand->dimensions)) {
    *desc = saved;
    ndk_log_error(function, "the operand's dimensions disagree with the descriptor's");
    return ANEURALNETWORKS_BAD_DATA;
  }
  if (ndk_reserve((void **)&desc->roles, &desc->role_capacity, desc->role_count + 1, sizeof(ndk_role)) != 0) {
    *desc = saved;
    return ANEURALNETWORKS_OUT_OF_MEMORY;
  }
  desc->roles[desc->role_count++] = (ndk_role){compilation, compilation->id, index, frequency, is_input};
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc *desc,
                                           const ANeuralNetworksCompilation *compilation,
                                           uint32_t index, float frequency) {
  NDK_NOT_NULL(desc);
  NDK_NOT_NULL(compilation);
  return add_role(desc, compilation, index, frequency, true, __func__);
}

int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc *desc,
                                            const ANeuralNetworksCompilation *compilation,
                                            uint32_t index, float frequency) {
  NDK_NOT_NULL(desc);
  NDK_NOT_NULL(compilation);
  return add_role(desc, compilation, index, frequency, false, __func__);
}

int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc *desc, uint32_t rank,
                                            const uint32_t *dimensions) {
  NDK_NOT_NULL(desc);
  NDK_REQUIRE(dimensions != NULL || rank == 0, ANEURALNETWORKS_UNEXPECTED_NULL, "dimensions is NULL");
  NDK_REQUIRE(!desc->finished, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  NDK_REQUIRE(rank <= VKNN_MAX_RANK, ANEURALNETWORKS_BAD_DATA, "rank %u is above %d", rank, VKNN_MAX_RANK);
  const ndk_role *first = desc->role_count ? &desc->roles[0] : NULL;
  NDK_REQUIRE(rank == 0 || first == NULL ||
                  !ndk_type_is_scalar(ndk_compilation_io_operand(first->compilation, first->index, first->is_input)->type),
              ANEURALNETWORKS_BAD_DATA, "a scalar's memory takes no dimensions");
  ANeuralNetworksMemoryDesc saved = *desc;
  if (!combine_dimensions(desc, rank, dimensions)) {
    *desc = saved;
    ndk_log_error(__func__, "the dimensions disagree with the roles'");
    return ANEURALNETWORKS_BAD_DATA;
  }
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc *desc) {
  NDK_NOT_NULL(desc);
  NDK_REQUIRE(!desc->finished, ANEURALNETWORKS_BAD_STATE, "the descriptor is finished");
  NDK_REQUIRE(desc->role_count > 0, ANEURALNETWORKS_BAD_DATA, "the descriptor has no role");
  desc->finished = true;
  return ANEURALNETWORKS_NO_ERROR;
}

/* The descriptor's roles as vknn buffer roles over a list of distinct
 * prepared models. */
static vknn_status allocate_buffer(const ANeuralNetworksMemoryDesc *desc, vknn_prepared_model **models,
                                   vknn_buffer_role *inputs, vknn_buffer_role *outputs,
                                   ANeuralNetworksMemory *m) {
  uint32_t model_count = 0, input_count = 0, output_count = 0;
  for (uint32_t i = 0; i < desc->role_count; ++i) {
    const ndk_role *r = &desc->roles[i];
    uint32_t k = 0;
    while (k < model_count && models[k] != r->compilation->prepared) k++;
    if (k == model_count) models[model_count++] = r->compilation->prepared;
    vknn_buffer_role role = {k, r->index, r->frequency};
    if (r->is_input) inputs[input_count++] = role;
    else outputs[output_count++] = role;
  }
  return vknn_device_allocate(desc->roles[0].compilation->device->vk, desc->dimensions, desc->rank,
                              models, model_count, inputs, input_count, outputs, output_count,
                              &m->buffer, &m->token);
}

int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc *desc,
                                         ANeuralNetworksMemory **memory) {
  NDK_NOT_NULL(memory);
  *memory = NULL;
  NDK_NOT_NULL(desc);
  NDK_REQUIRE(desc->finished, ANEURALNETWORKS_BAD_STATE, "the descriptor is not finished");
  size_t n = desc->role_count;
  ANeuralNetworksMemory *m = ndk_alloc(sizeof(*m));
  vknn_prepared_model **models = ndk_alloc(n * sizeof(*models));
  vknn_buffer_role *inputs = ndk_alloc(n * sizeof(*inputs)), *outputs = ndk_alloc(n * sizeof(*outputs));
  ndk_role *roles = ndk_alloc(n * sizeof(*roles));
  /* The memory may outlive the compilations (only the descriptor may not):
   * it keeps their ids and a copy of the operand type, never a pointer to them. */
  const ndk_role *first = &desc->roles[0];
  bool typed = m != NULL && copy_value_type(ndk_compilation_io_operand(first->compilation, first->index, first->is_input),
                                            &m->value_type, &m->params);
  int r = (typed && models && inputs && outputs && roles) ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUT_OF_MEMORY;
  if (r == ANEURALNETWORKS_NO_ERROR) {
    vknn_status s = allocate_buffer(desc, models, inputs, outputs, m);
    r = ndk_result_of(s);
    if (r != ANEURALNETWORKS_NO_ERROR) ndk_log_error(__func__, "vknn cannot allocate the buffer: %s", vknn_status_name(s));
  }
  ndk_free(models);
  ndk_free(inputs);
  ndk_free(outputs);
  if (r != ANEURALNETWORKS_NO_ERROR) {
    ndk_free(roles);
    if (m != NULL) ndk_free(m->params);
    ndk_free(m);
    return r;
  }
  memcpy(roles, desc->roles, n * sizeof(*roles));
  for (size_t i = 0; i < n; ++i) roles[i].compilation = NULL;
  m->rank = desc->rank; /* 0 while unknown */
  memcpy(m->dimensions, desc->dimensions, sizeof(m->dimensions));
  ndk_device_hold();
  m->kind = NDK_MEMORY_DEVICE;
  m->slot = ndk_next_slot();
  m->fd = -1;
  m->roles = roles;
  m->role_count = (uint32_t)n;
  *memory = m;
  return ANEURALNETWORKS_NO_ERROR;
}

/* ---- copies --------------------------------------------------------------- */

/* Maps a descriptor memory's range (mmap needs a page-aligned offset). */
static uint8_t *map_range(const ANeuralNetworksMemory *m, int prot, void **base, size_t *base_len) {
  uint64_t offset = (uint64_t)(uint32_t)m->ints[1] | ((uint64_t)(uint32_t)m->ints[2] << 32);
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), aligned = offset - offset % page;
  *base_len = m->size + (size_t)(offset - aligned);
  *base = mmap(NULL, *base_len, prot, MAP_SHARED, m->fd, (off_t)aligned);
  return *base == MAP_FAILED ? NULL : (uint8_t *)*base + (offset - aligned);
}

#define COPY "ANeuralNetworksMemory_copy"

static int copy_fd_to_fd(const ANeuralNetworksMemory *src, const ANeuralNetworksMemory *dst) {
  NDK_REQUIRE_IN(COPY, src->size == dst->size, ANEURALNETWORKS_BAD_DATA, "sizes differ (%zu and %zu bytes)", src->size,
              dst->size);
  NDK_REQUIRE_IN(COPY, dst->ints[0] & PROT_WRITE, ANEURALNETWORKS_BAD_DATA, "the destination is not writable");
  void *sbase, *dbase;
  size_t slen, dlen;
  uint8_t *s = map_range(src, PROT_READ, &sbase, &slen);
  uint8_t *d = map_range(dst, PROT_READ | PROT_WRITE, &dbase, &dlen);
  if (s != NULL && d != NULL) memcpy(d, s, src->size);
  if (s != NULL) munmap(sbase, slen);
  if (d != NULL) munmap(dbase, dlen);
  NDK_REQUIRE_IN(COPY, s != NULL && d != NULL, ANEURALNETWORKS_UNMAPPABLE, "cannot map the memories");
  return ANEURALNETWORKS_NO_ERROR;
}

/* Between two driver buffers: through a shared-memory pool of the value's size. */
static int copy_buffer_to_buffer(const ANeuralNetworksMemory *src, const ANeuralNetworksMemory *dst) {
  /* NNAPI: the bytes keep their meaning only between equal types. */
  NDK_REQUIRE_IN(COPY, ndk_value_type_equal(&src->value_type, &dst->value_type), ANEURALNETWORKS_BAD_DATA,
                 "the memories' operand types differ");
  vknn_output_shape shape;
  vknn_status s = vknn_buffer_get_shape(src->buffer, &shape);
  size_t size = ndk_element_size(src->value_type.type);
  for (uint32_t i = 0; i < shape.rank; ++i) size *= shape.dimensions[i];
  NDK_REQUIRE_IN(COPY, s == VKNN_STATUS_NONE && size > 0, ANEURALNETWORKS_BAD_DATA, "the source holds no value");
  int fd = memfd_create("vknn-ndk-copy", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
    close(fd);
    fd = -1;
  }
  NDK_REQUIRE_IN(COPY, fd >= 0, ANEURALNETWORKS_OUT_OF_MEMORY, "no memory for the copy");
  vknn_memory pool = {"ashmem", &fd, 1, NULL, 0, size};
  s = vknn_buffer_copy_to(src->buffer, &pool);
  if (s == VKNN_STATUS_NONE) s = vknn_buffer_copy_from(dst->buffer, &pool, shape.dimensions, shape.rank);
  close(fd);
  NDK_REQUIRE_IN(COPY, s == VKNN_STATUS_NONE, ndk_result_of(s), "the copy failed: %s", vknn_status_name(s));
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory *src, const ANeuralNetworksMemory *dst) {
  NDK_NOT_NULL(src);
  NDK_NOT_NULL(dst);
  /* As the NNAPI runtime: a copy onto itself does nothing, and a driver
   * buffer never written has nothing to copy. */
  if (src == dst) return ANEURALNETWORKS_NO_ERROR;
  NDK_REQUIRE(src->kind != NDK_MEMORY_DEVICE || vknn_buffer_is_written(src->buffer), ANEURALNETWORKS_BAD_DATA,
              "the source memory was never written");
  if (src->kind == NDK_MEMORY_FD && dst->kind == NDK_MEMORY_FD) return copy_fd_to_fd(src, dst);
  if (src->kind == NDK_MEMORY_DEVICE && dst->kind == NDK_MEMORY_DEVICE) return copy_buffer_to_buffer(src, dst);
  vknn_status s = src->kind == NDK_MEMORY_FD ? vknn_buffer_copy_from(dst->buffer, &src->vk, NULL, 0)
                                             : vknn_buffer_copy_to(src->buffer, &dst->vk);
  NDK_REQUIRE(s == VKNN_STATUS_NONE, ndk_result_of(s), "the copy failed: %s", vknn_status_name(s));
  return ANEURALNETWORKS_NO_ERROR;
}
