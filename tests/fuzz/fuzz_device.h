/* The device every fuzz input runs on: opened once, with no log output,
 * closed at exit. */
#pragma once
#include "vknn/vknn.h"

vknn_device *fuzz_device(void);
