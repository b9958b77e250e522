/* ANeuralNetworksDevice: the one device of this library, vknn's, opened on
 * first use and kept until the library unloads (the NDK has no call that
 * releases a device). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ndk.h"

static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static ANeuralNetworksDevice the_device;
static bool device_open;

/* The device's log lines go wherever the library's go. */
static void forward_log(void *user_data, vknn_log_level level, const char *tag, const char *message) {
  (void)user_data;
  ndk_log_line(level, tag, message);
}

/* Prepared models and buffers still alive: vknn closes a device only after them. */
static atomic_int live_objects;

void ndk_device_hold(void) { atomic_fetch_add(&live_objects, 1); }
void ndk_device_drop(void) { atomic_fetch_sub(&live_objects, 1); }

/* At exit or unload the device is closed, unless the client left objects of
 * it alive (closing it under them would break them). An atexit handler, not a
 * destructor: registered when the device opens, it runs before the handlers
 * registered earlier, such as a leak checker's. */
static void close_device(void) {
  if (!device_open || atomic_load(&live_objects) != 0) return;
  device_open = false;
  vknn_device_close(the_device.vk);
}

/* The library runs in the client's own process, so the key that seals its
 * compilation caches can live in the user's cache folder
 * ($XDG_CACHE_HOME/vknn/cache.key, else ~/.cache/vknn/cache.key), where
 * setCaching's files keep working across runs; VKNN_CACHE_KEY_FILE, if
 * set, names another. NULL: no such folder (a key per process). */
static const char *user_key_file(char *path, size_t size) {
  if (getenv("VKNN_CACHE_KEY_FILE") != NULL) return NULL;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char dir[3072];
  if (xdg != NULL && xdg[0] == '/') {
    snprintf(dir, sizeof(dir), "%s/vknn", xdg);
  } else if (home != NULL && home[0] == '/') {
    snprintf(dir, sizeof(dir), "%s/.cache", home);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return NULL;
    snprintf(dir, sizeof(dir), "%s/.cache/vknn", home);
  } else {
    return NULL;
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) return NULL;
  snprintf(path, size, "%s/cache.key", dir);
  return path;
}

static void open_device(void) {
  char key_file[4096];
  vknn_device_options options = {.log_callback = forward_log,
                                 .cache_key_file = user_key_file(key_file, sizeof(key_file))};
  vknn_status s = vknn_device_open(&options, &the_device.vk);
  if (s != VKNN_STATUS_NONE) {
    ndk_log_error("ANeuralNetworks", "no vknn device: %s", vknn_status_name(s));
    return;
  }
  vknn_device_get_name(the_device.vk, &the_device.name);
  vknn_device_get_version_string(the_device.vk, &the_device.version);
  vknn_device_get_type(the_device.vk, &the_device.type);
  vknn_device_get_supported_extensions(the_device.vk, &the_device.extensions,
                                       &the_device.extension_count);
  if (the_device.extension_count > NDK_MAX_EXTENSIONS) the_device.extension_count = NDK_MAX_EXTENSIONS;
  for (uint32_t i = 0; i < the_device.extension_count; ++i)
    the_device.prefixes[i] = (vknn_extension_prefix){the_device.extensions[i].name, (uint16_t)(i + 1)};
  device_open = true;
  atexit(close_device);
}

int ndk_device_get(ANeuralNetworksDevice **out) {
  pthread_once(&device_once, open_device);
  *out = device_open ? &the_device : NULL;
  return device_open ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_UNAVAILABLE_DEVICE;
}

static bool is_device(const ANeuralNetworksDevice *device) {
  return device != NULL && device == &the_device && device_open;
}

int ndk_device_check_list(const char *function, const ANeuralNetworksDevice *const *devices,
                          uint32_t count) {
  if (devices == NULL) {
    ndk_log_error(function, "devices is NULL");
    return ANEURALNETWORKS_UNEXPECTED_NULL;
  }
  if (count == 0) {
    ndk_log_error(function, "no devices");
    return ANEURALNETWORKS_BAD_DATA;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (devices[i] == NULL) {
      ndk_log_error(function, "devices[%u] is NULL", i);
      return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    if (!is_device(devices[i])) {
      ndk_log_error(function, "devices[%u] is not a device of this library", i);
      return ANEURALNETWORKS_BAD_DATA;
    }
    for (uint32_t j = 0; j < i; ++j)
      if (devices[j] == devices[i]) {
        ndk_log_error(function, "devices[%u] is given twice", i);
        return ANEURALNETWORKS_BAD_DATA;
      }
  }
  return ANEURALNETWORKS_NO_ERROR;
}

vknn_device *vknn_ndk_device(const ANeuralNetworksDevice *device) {
  return is_device(device) ? device->vk : NULL;
}

int ANeuralNetworks_getDeviceCount(uint32_t *numDevices) {
  NDK_NOT_NULL(numDevices);
  ANeuralNetworksDevice *device;
  *numDevices = ndk_device_get(&device) == ANEURALNETWORKS_NO_ERROR ? 1 : 0;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice **device) {
  NDK_NOT_NULL(device);
  *device = NULL;
  ANeuralNetworksDevice *d;
  int r = ndk_device_get(&d);
  NDK_REQUIRE(r == ANEURALNETWORKS_NO_ERROR && devIndex == 0, ANEURALNETWORKS_BAD_DATA,
              "no device %u (%u devices)", devIndex, r == ANEURALNETWORKS_NO_ERROR ? 1u : 0u);
  *device = d;
  return ANEURALNETWORKS_NO_ERROR;
}

#define NDK_DEVICE_ARG(device)                                                      \
  NDK_NOT_NULL(device);                                                             \
  NDK_REQUIRE(is_device(device), ANEURALNETWORKS_BAD_DATA, "not a device of this library")

int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice *device, const char **name) {
  NDK_NOT_NULL(name);
  NDK_DEVICE_ARG(device);
  /* NNAPI device names are "<vendor>-<kind>"; the Vulkan device's name is in
   * the version string. */
  *name = "vknn-gpu";
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice *device, int32_t *type) {
  NDK_NOT_NULL(type);
  NDK_DEVICE_ARG(device);
  *type = (int32_t)device->type; /* vknn_device_type has the DeviceTypeCode values */
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice *device, const char **version) {
  NDK_NOT_NULL(version);
  NDK_DEVICE_ARG(device);
  *version = device->version;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice *device,
                                          int64_t *featureLevel) {
  NDK_NOT_NULL(featureLevel);
  NDK_DEVICE_ARG(device);
  *featureLevel = NDK_FEATURE_LEVEL;
  return ANEURALNETWORKS_NO_ERROR;
}

/* The device is ready once opened: nothing to wait for. */
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice *device) {
  NDK_DEVICE_ARG(device);
  return ANEURALNETWORKS_NO_ERROR;
}

/* The device's extension of a name, or -1. */
static int extension_index(const char *name) {
  for (uint32_t i = 0; i < the_device.extension_count; ++i)
    if (strcmp(the_device.extensions[i].name, name) == 0) return (int)i;
  return -1;
}

int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice *device,
                                              const char *extensionName,
                                              bool *isExtensionSupported) {
  NDK_NOT_NULL(extensionName);
  NDK_NOT_NULL(isExtensionSupported);
  NDK_DEVICE_ARG(device);
  *isExtensionSupported = extension_index(extensionName) >= 0;
  return ANEURALNETWORKS_NO_ERROR;
}

int ndk_extension_prefix(const char *function, const char *name, uint16_t *out_prefix) {
  ANeuralNetworksDevice *device;
  int r = ndk_device_get(&device);
  if (r != ANEURALNETWORKS_NO_ERROR) return r;
  int index = extension_index(name);
  NDK_REQUIRE_IN(function, index >= 0, ANEURALNETWORKS_BAD_DATA,
                 "no device supports the extension %s", name);
  *out_prefix = the_device.prefixes[index].prefix;
  return ANEURALNETWORKS_NO_ERROR;
}

/* The device's extension of a type's prefix; NULL for none. */
static const vknn_extension *extension_of_type(int32_t type) {
  ANeuralNetworksDevice *device;
  uint32_t prefix = VKNN_EXTENSION_PREFIX(type);
  if (prefix == 0 || ndk_device_get(&device) != ANEURALNETWORKS_NO_ERROR) return NULL;
  return prefix <= the_device.extension_count ? &the_device.extensions[prefix - 1] : NULL;
}

const vknn_extension_operand_type *ndk_extension_operand_info(int32_t type) {
  const vknn_extension *e = extension_of_type(type);
  for (uint32_t i = 0; e != NULL && i < e->operand_type_count; ++i)
    if (e->operand_types[i].type == VKNN_EXTENSION_CODE(type)) return &e->operand_types[i];
  return NULL;
}

bool ndk_extension_operation_known(int32_t type) { return extension_of_type(type) != NULL; }

void ndk_extension_table(const vknn_extension_prefix **out_table, uint32_t *out_count) {
  ANeuralNetworksDevice *device;
  bool open = ndk_device_get(&device) == ANEURALNETWORKS_NO_ERROR;
  *out_table = the_device.prefixes;
  *out_count = open ? the_device.extension_count : 0;
}

uint64_t ANeuralNetworks_getDefaultLoopTimeout(void) { return VKNN_LOOP_TIMEOUT_DEFAULT_NS; }
uint64_t ANeuralNetworks_getMaximumLoopTimeout(void) { return VKNN_LOOP_TIMEOUT_MAXIMUM_NS; }
