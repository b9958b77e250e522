/* The vknn request of an execution. vknn reads and writes request values in
 * shared memory pools only, so arguments given as pointers travel through a
 * pool of the library (the scratch pool: pool 0 when there is one), copied in
 * before the execution and out after it, as the NNAPI runtime does; memories
 * are pools of their own (a driver buffer by its token). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ndk.h"

void ndk_scratch_release(ndk_scratch *scratch) {
  if (scratch->data != NULL) munmap(scratch->data, scratch->size);
  if (scratch->fd >= 0) close(scratch->fd);
  *scratch = (ndk_scratch){.fd = -1};
}

/* A new pool when the old one is too small: a new slot too, since a burst
 * keeps the mapping of each slot it has seen. */
static int scratch_reserve(ndk_scratch *scratch, size_t size) {
  if (scratch->data != NULL && scratch->size >= size) return 0;
  ndk_scratch_release(scratch);
  int fd = memfd_create("vknn-ndk-arguments", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  void *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) {
    close(fd);
    return -1;
  }
  *scratch = (ndk_scratch){fd, data, size, ndk_next_slot()};
  return 0;
}

static size_t lay_out_pointers(ndk_request *r, const ndk_argument *args, uint32_t count, size_t first,
                               size_t total) {
  for (uint32_t i = 0; i < count; ++i) {
    if (args[i].kind != NDK_ARGUMENT_POINTER) continue;
    total = (total + NDK_ARGUMENT_ALIGNMENT - 1) & ~(size_t)(NDK_ARGUMENT_ALIGNMENT - 1);
    r->scratch_offsets[first + i] = total;
    total += args[i].length;
  }
  return total;
}

static uint32_t memory_pool(ndk_request *r, const ANeuralNetworksMemory *memory, uint32_t *pool_count) {
  for (uint32_t i = 0; i < *pool_count; ++i)
    if (r->slots[i] == memory->slot) return i;
  vknn_request_pool *pool = &r->pools[*pool_count];
  if (memory->kind == NDK_MEMORY_FD) *pool = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = memory->vk};
  else *pool = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_TOKEN, .token = memory->token};
  r->slots[*pool_count] = memory->slot;
  return (*pool_count)++;
}

static void set_argument(ndk_request *r, const ndk_argument *a, size_t scratch_offset, uint32_t *pool_count,
                         vknn_request_argument *out) {
  memset(out, 0, sizeof(*out));
  out->dimension_count = a->rank;
  out->dimensions = a->dimensions;
  switch (a->kind) {
    case NDK_ARGUMENT_POINTER:
      out->location = (vknn_data_location){0, (uint32_t)scratch_offset, (uint32_t)a->length};
      break;
    case NDK_ARGUMENT_MEMORY:
      out->location = (vknn_data_location){memory_pool(r, a->memory, pool_count), (uint32_t)a->offset,
                                           (uint32_t)a->length};
      break;
    default: out->has_no_value = true; break;
  }
}

int ndk_request_build(ndk_request *r, const ndk_argument *inputs, uint32_t input_count,
                      const ndk_argument *outputs, uint32_t output_count, ndk_scratch *scratch) {
  uint32_t n = input_count + output_count;
  memset(r, 0, sizeof(*r));
  r->own_scratch.fd = -1;
  r->arguments = ndk_alloc(n * sizeof(*r->arguments));
  r->pools = ndk_alloc((n + 1) * sizeof(*r->pools));
  r->slots = ndk_alloc((n + 1) * sizeof(*r->slots));
  r->scratch_offsets = ndk_alloc(n * sizeof(size_t));
  if (!r->arguments || !r->pools || !r->slots || !r->scratch_offsets) return ANEURALNETWORKS_OUT_OF_MEMORY;
  size_t total = lay_out_pointers(r, inputs, input_count, 0, 0);
  total = lay_out_pointers(r, outputs, output_count, input_count, total);
  uint32_t pool_count = 0;
  r->scratch = scratch != NULL ? scratch : &r->own_scratch;
  if (total > 0) {
    if (scratch_reserve(r->scratch, total) != 0) return ANEURALNETWORKS_OUT_OF_MEMORY;
    r->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY,
                                      .memory = {"ashmem", &r->scratch->fd, 1, NULL, 0, r->scratch->size}};
    r->slots[0] = r->scratch->slot;
    pool_count = 1;
  }
  for (uint32_t i = 0; i < input_count; ++i) {
    set_argument(r, &inputs[i], r->scratch_offsets[i], &pool_count, &r->arguments[i]);
    if (inputs[i].kind == NDK_ARGUMENT_POINTER && inputs[i].length > 0)
      memcpy(r->scratch->data + r->scratch_offsets[i], inputs[i].buffer, inputs[i].length);
  }
  for (uint32_t i = 0; i < output_count; ++i)
    set_argument(r, &outputs[i], r->scratch_offsets[input_count + i], &pool_count, &r->arguments[input_count + i]);
  r->request = (vknn_request){r->arguments, input_count, r->arguments + input_count, output_count, r->pools,
                              pool_count};
  return ANEURALNETWORKS_NO_ERROR;
}

void ndk_request_copy_outputs(const ndk_request *r, const ndk_argument *outputs, uint32_t input_count,
                              uint32_t output_count) {
  for (uint32_t i = 0; i < output_count; ++i)
    if (outputs[i].kind == NDK_ARGUMENT_POINTER && outputs[i].length > 0) /* zero rows: no buffer */
      memcpy(outputs[i].buffer, r->scratch->data + r->scratch_offsets[input_count + i], outputs[i].length);
}

void ndk_request_release(ndk_request *r) {
  ndk_free(r->arguments);
  ndk_free(r->pools);
  ndk_free(r->slots);
  ndk_free(r->scratch_offsets);
  if (r->scratch == &r->own_scratch) ndk_scratch_release(&r->own_scratch);
  memset(r, 0, sizeof(*r));
  r->own_scratch.fd = -1;
}
