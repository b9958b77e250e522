#include "runtime/cache_key.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAG "compilation"

static bool draw_random(uint8_t *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = getrandom(out + done, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += (size_t)n;
  }
  return true;
}

/* One key per process, drawn the first time a device needs it. */
static pthread_once_t process_key_once = PTHREAD_ONCE_INIT;
static uint8_t process_key[VKNN_CACHE_KEY_SIZE];
static bool process_key_ok;

static void draw_process_key(void) {
  process_key_ok = draw_random(process_key, sizeof(process_key));
}

static bool read_exactly(int fd, uint8_t *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += (size_t)n;
  }
  uint8_t extra;
  return read(fd, &extra, 1) == 0; /* nothing after the key */
}

static bool write_exactly(int fd, const uint8_t *bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += (size_t)n;
  }
  return true;
}

/* A new key file, written whole under a temporary name and then linked to
 * its own: another process never sees it half written, and of two that
 * make it at once, the second takes the first's (link fails with EEXIST). */
static void make_key_file(const char *path) {
  char temporary[PATH_MAX];
  if (snprintf(temporary, sizeof(temporary), "%s.XXXXXX", path) >= (int)sizeof(temporary)) return;
  int fd = mkostemp(temporary, O_CLOEXEC); /* mode 0600 */
  if (fd < 0) return;
  uint8_t key[VKNN_CACHE_KEY_SIZE];
  bool written = draw_random(key, sizeof(key)) && write_exactly(fd, key, sizeof(key)) && fsync(fd) == 0;
  close(fd);
  if (written) (void)link(temporary, path);
  unlink(temporary);
}

/* A key only this process's user could have written or read: a file of
 * its own (not a link), no access for group or others. */
static bool private_file(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

static bool key_from_file(const vknn_logger *log, const char *path, uint8_t out[VKNN_CACHE_KEY_SIZE]) {
  if (access(path, F_OK) != 0) make_key_file(path);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  const char *why = fd < 0 ? strerror(errno) : !private_file(fd) ? "not private to this user"
                  : !read_exactly(fd, out, VKNN_CACHE_KEY_SIZE) ? "size" : NULL;
  if (fd >= 0) close(fd);
  if (why != NULL)
    VKNN_LOG_E(log, TAG, "cache key file %s: no key of %d bytes there (%s); caches are sealed "
               "with this process's key", path, VKNN_CACHE_KEY_SIZE, why);
  return why == NULL;
}

vknn_status vknn_cache_key_choose(const vknn_logger *log, const uint8_t *given, const char *file,
                                  uint8_t out[VKNN_CACHE_KEY_SIZE]) {
  if (given != NULL) {
    memcpy(out, given, VKNN_CACHE_KEY_SIZE);
    return VKNN_STATUS_NONE;
  }
  const char *path = file != NULL ? file : getenv("VKNN_CACHE_KEY_FILE");
  if (path != NULL && path[0] != '\0' && key_from_file(log, path, out)) return VKNN_STATUS_NONE;
  pthread_once(&process_key_once, draw_process_key);
  if (!process_key_ok) {
    VKNN_LOG_E(log, TAG, "no random bytes for the compilation-cache key");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  memcpy(out, process_key, VKNN_CACHE_KEY_SIZE);
  return VKNN_STATUS_NONE;
}
