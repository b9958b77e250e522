/* vknn: an NNAPI (Neural Networks HAL 1.3) driver on Vulkan compute. */
#ifndef VKNN_H
#define VKNN_H
#include "vknn/types.h"
#include "vknn/device.h"
#include "vknn/prepared_model.h"
#include "vknn/burst.h"
#include "vknn/buffer.h"
#endif
