#include "memory/memory_pool.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A native handle holds at most this many descriptors and as many ints. */
#define HANDLE_MAX_ENTRIES 1024u

static bool is_hardware_buffer(const char *name) {
  return strcmp(name, "hardware_buffer_blob") == 0 || strcmp(name, "hardware_buffer") == 0;
}

vknn_status vknn_memory_validate(const vknn_logger *log, const vknn_memory *memory) {
  if (memory->name == NULL) {
    VKNN_LOG_E(log, "driver", "memory pool without a kind name");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  bool ashmem = strcmp(memory->name, "ashmem") == 0;
  bool mmap_fd = strcmp(memory->name, "mmap_fd") == 0;
  if (!ashmem && !mmap_fd && !is_hardware_buffer(memory->name)) {
    VKNN_LOG_E(log, "driver", "unknown memory pool kind \"%s\"", memory->name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* Every kind: the arrays are read whole when a request is copied. */
  if ((memory->fd_count > 0 && memory->fds == NULL) || (memory->int_count > 0 && memory->ints == NULL) ||
      memory->fd_count > HANDLE_MAX_ENTRIES || memory->int_count > HANDLE_MAX_ENTRIES) {
    VKNN_LOG_E(log, "driver", "%s pool with %u descriptors and %u ints%s", memory->name,
               memory->fd_count, memory->int_count,
               memory->fd_count > HANDLE_MAX_ENTRIES || memory->int_count > HANDLE_MAX_ENTRIES
                   ? ": more than a handle holds"
                   : ", an array of them missing");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((ashmem || mmap_fd) && (memory->fd_count < 1 || memory->fds[0] < 0)) {
    VKNN_LOG_E(log, "driver", "%s pool without a file descriptor", memory->name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (mmap_fd && memory->int_count < 3) {
    VKNN_LOG_E(log, "driver", "mmap_fd pool needs protection and offset ints");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if ((ashmem || mmap_fd) && memory->size == 0) {
    VKNN_LOG_E(log, "driver", "%s pool of size 0", memory->name);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

static vknn_status map_range(const vknn_logger *log, int fd, int prot, int flags, uint64_t offset,
                             uint64_t size, vknn_mapped_pool *out_pool) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    VKNN_LOG_E(log, "driver", "memory pool fd %d: %s", fd, strerror(errno));
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  /* A regular file or memfd must hold the whole range: a mapping beyond its
   * end would fault on access instead of failing here. */
  if (S_ISREG(st.st_mode) && (offset > (uint64_t)st.st_size || size > (uint64_t)st.st_size - offset)) {
    VKNN_LOG_E(log, "driver", "memory pool range [%llu, +%llu) exceeds its file (%lld bytes)",
               (unsigned long long)offset, (unsigned long long)size, (long long)st.st_size);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  long page = sysconf(_SC_PAGESIZE);
  uint64_t aligned = offset - offset % (uint64_t)page;
  /* A file without a size (a device) is bounded by what can be mapped: a
   * length past the address space would wrap and map short. */
  if (aligned > (uint64_t)INT64_MAX || size > (uint64_t)SIZE_MAX - (offset - aligned) ||
      size + (offset - aligned) > (uint64_t)PTRDIFF_MAX) {
    VKNN_LOG_E(log, "driver", "memory pool range [%llu, +%llu) cannot be mapped",
               (unsigned long long)offset, (unsigned long long)size);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  size_t length = (size_t)(size + (offset - aligned));
  void *mapping = mmap(NULL, length, prot, flags, fd, (off_t)aligned);
  if (mapping == MAP_FAILED) {
    VKNN_LOG_E(log, "driver", "mapping a memory pool failed: %s", strerror(errno));
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  *out_pool = (vknn_mapped_pool){.data = (uint8_t *)mapping + (offset - aligned),
                                 .size = size,
                                 .mapping = mapping,
                                 .mapping_size = length,
                                 .writable = (prot & PROT_WRITE) != 0};
  return VKNN_STATUS_NONE;
}

uint64_t vknn_memory_offset(const vknn_memory *memory) {
  if (strcmp(memory->name, "mmap_fd") != 0 || memory->int_count < 3) return 0;
  return (uint64_t)(uint32_t)memory->ints[1] | ((uint64_t)(uint32_t)memory->ints[2] << 32);
}

/* Validates the pool and refuses the kinds this platform cannot map. */
static vknn_status check_mappable(const vknn_logger *log, const vknn_memory *memory) {
  vknn_status status = vknn_memory_validate(log, memory);
  if (status != VKNN_STATUS_NONE) return status;
  if (is_hardware_buffer(memory->name)) {
    VKNN_LOG_E(log, "driver", "%s pools need AHardwareBuffer, absent on this platform",
               memory->name);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  if (strcmp(memory->name, "mmap_fd") == 0 && !(memory->ints[0] & PROT_READ)) {
    VKNN_LOG_E(log, "driver", "mmap_fd pool is not readable");
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

vknn_status vknn_memory_map(const vknn_logger *log, const vknn_memory *memory,
                            vknn_mapped_pool *out_pool) {
  memset(out_pool, 0, sizeof(*out_pool));
  vknn_status status = check_mappable(log, memory);
  if (status != VKNN_STATUS_NONE) return status;
  if (strcmp(memory->name, "ashmem") == 0)
    return map_range(log, memory->fds[0], PROT_READ | PROT_WRITE, MAP_SHARED, 0, memory->size,
                     out_pool);
  int prot = memory->ints[0] & (PROT_READ | PROT_WRITE);
  return map_range(log, memory->fds[0], prot, MAP_SHARED, vknn_memory_offset(memory), memory->size,
                   out_pool);
}

vknn_status vknn_memory_map_private(const vknn_logger *log, const vknn_memory *memory,
                                    vknn_mapped_pool *out_pool) {
  memset(out_pool, 0, sizeof(*out_pool));
  vknn_status status = check_mappable(log, memory);
  if (status != VKNN_STATUS_NONE) return status;
  status = map_range(log, memory->fds[0], PROT_READ | PROT_WRITE, MAP_PRIVATE,
                     vknn_memory_offset(memory), memory->size, out_pool);
  out_pool->writable = false; /* writes would stay private: never write */
  return status;
}

void vknn_memory_unmap(vknn_mapped_pool *pool) {
  if (pool->mapping != NULL) munmap(pool->mapping, pool->mapping_size);
  memset(pool, 0, sizeof(*pool));
}
