/*
 * vknn's additions to the NNAPI C API of libneuralnetworks.so, for tests and
 * tools on a desktop: where the library's log goes, and the vknn device
 * behind the NNAPI device. A client written only against the NDK never needs
 * them.
 */
#ifndef VKNN_NDK_PUBLIC_H
#define VKNN_NDK_PUBLIC_H

#include "android/NeuralNetworks.h"
#include "vknn/device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every log line of the library and of its vknn device goes to callback
 * (NULL: back to stderr, errors only, as vknn logs by default). */
void vknn_ndk_set_log_callback(vknn_log_callback callback, void *user_data);

/* The vknn device behind an NNAPI device (for its validation-message count
 * and statistics); NULL for NULL. */
vknn_device *vknn_ndk_device(const ANeuralNetworksDevice *device);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_NDK_PUBLIC_H */
