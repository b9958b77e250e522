/* The device's watchdog (watchdog.c): a thread that, every half idle
 * period, releases what prepared models keep cached but have not used for a
 * whole idle period (extra graph instances, zero-copy imports of the
 * caller's memory, recordings for input shapes no longer seen). Started with
 * the first prepared model it watches. */
#pragma once
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/lazy_thread.h"
#include "vknn/types.h"

/* What the watchdog watches: an object that can release what it has left
 * idle. Embedded in the watched object (prepared models, today); trim is
 * called on the watchdog's thread with the watchdog's lock held. */
typedef struct vknn_watched vknn_watched;
struct vknn_watched {
  void (*trim)(vknn_watched *self, uint64_t now_ns, uint64_t idle_ns);
  vknn_watched *prev, *next;
};

typedef struct vknn_watchdog {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  vknn_lazy_thread worker;
  uint64_t idle_ns;
  vknn_watched *watched; /* linked through next / prev */
} vknn_watchdog;

/* Default idle period when the device options give none. */
#define VKNN_DEFAULT_IDLE_RELEASE_MS 5000

void vknn_watchdog_init(vknn_watchdog *w, uint64_t idle_ns);
/* Stops the thread; every prepared model must be unwatched already. */
void vknn_watchdog_destroy(vknn_watchdog *w);

vknn_status vknn_watchdog_watch(vknn_watchdog *w, vknn_watched *item);
/* After this returns the watchdog no longer touches item. */
void vknn_watchdog_unwatch(vknn_watchdog *w, vknn_watched *item);
