/* The device's driver-managed buffers by token (buffer.c). */
#pragma once
#include <pthread.h>

#include "vk/vk_context.h"
#include "vknn/buffer.h"

typedef struct vknn_buffer_table {
  pthread_mutex_t lock;
  vknn_buffer **items;
  uint32_t count;
  uint32_t capacity;
  uint32_t next_token;
} vknn_buffer_table;

void vknn_buffer_table_init(vknn_buffer_table *table);
/* Frees the buffers the client did not release. */
void vknn_buffer_table_destroy(vknn_buffer_table *table);
