#include "shared_memory.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int shared_memory_create(shared_memory *out, size_t size) {
  memset(out, 0, sizeof(*out));
  if (size == 0) size = 1;
  out->fd = memfd_create("vknn-pool", MFD_CLOEXEC);
  if (out->fd < 0) return -1;
  if (ftruncate(out->fd, (off_t)size) != 0) {
    close(out->fd);
    return -1;
  }
  void *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, out->fd, 0);
  if (data == MAP_FAILED) {
    close(out->fd);
    return -1;
  }
  out->data = data;
  out->size = size;
  out->memory = (vknn_memory){.name = "ashmem", .fds = &out->fd, .fd_count = 1, .size = size};
  return 0;
}

void shared_memory_destroy(shared_memory *memory) {
  if (memory->data != NULL) munmap(memory->data, memory->size);
  if (memory->fd >= 0) close(memory->fd);
  memset(memory, 0, sizeof(*memory));
  memory->fd = -1;
}
