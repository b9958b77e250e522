/* A recorded graph's lifetime and its pool of instances: the first instance
 * is recorded with the graph; more are made only when executions overlap (at
 * most VKNN_MAX_GRAPH_INSTANCES), and the watchdog trims idle ones. */
#include "runtime/recorded_graph_pool.h"

#include <stdlib.h>

#include "runtime/graph_instance.h"
#include "runtime/zero_copy.h"
#include "util/clock.h"

#define TAG "compilation"

/* An instance joins the pool (the caller holds the lock, or is the only
 * user); counted in the device statistics while it lives. */
static void adopt(vknn_recorded_graph *rg, vknn_graph_instance *inst) {
  inst->next = rg->instances;
  rg->instances = inst;
  rg->instance_count++;
  atomic_fetch_add(&rg->device->vk.counters.graph_instances, 1);
}

/* Destroys an instance already unlinked from the pool. */
static void discard(vknn_recorded_graph *rg, vknn_graph_instance *inst) {
  vknn_zero_copy_release(inst); /* its recordings come from the instance's command pool */
  vknn_graph_instance_destroy(inst);
  rg->instance_count--;
  atomic_fetch_sub(&rg->device->vk.counters.graph_instances, 1);
}

static vknn_status create_first_instance(vknn_recorded_graph *rg) {
  vknn_graph_instance *inst = NULL;
  vknn_status s = vknn_graph_instance_create(rg, &inst);
  if (s != VKNN_STATUS_NONE) return s;
  adopt(rg, inst);
  rg->info.barrier_count = inst->recording.barriers;
  return VKNN_STATUS_NONE;
}

/* Destroys every instance, then the shared parts. */
static void destroy(vknn_recorded_graph *rg) {
  if (rg == NULL) return;
  while (rg->instances != NULL) {
    vknn_graph_instance *inst = rg->instances;
    rg->instances = inst->next;
    discard(rg, inst);
  }
  vknn_recorded_graph_free(rg);
}

vknn_status vknn_recorded_graph_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_recorded_graph **out) {
  *out = NULL;
  vknn_recorded_graph *rg = NULL;
  vknn_status s = vknn_recorded_graph_alloc(device, plan, &rg);
  if (s == VKNN_STATUS_NONE) s = create_first_instance(rg);
  if (s != VKNN_STATUS_NONE) {
    destroy(rg);
    return s;
  }
  VKNN_LOG_V(&device->log, TAG, "recorded a graph: %u dispatches, %u barriers",
             rg->info.dispatch_count, rg->info.barrier_count);
  *out = rg;
  return VKNN_STATUS_NONE;
}

void vknn_recorded_graph_retain(vknn_recorded_graph *rg) { atomic_fetch_add(&rg->references, 1); }

void vknn_recorded_graph_unref(vknn_recorded_graph *rg) {
  if (rg != NULL && atomic_fetch_sub(&rg->references, 1) == 1) destroy(rg);
}

/* The idle instance released last (its zero-copy entries are the warmest). */
static vknn_graph_instance *most_recent_idle(const vknn_recorded_graph *rg) {
  vknn_graph_instance *best = NULL;
  for (vknn_graph_instance *i = rg->instances; i != NULL; i = i->next)
    if (!i->busy && (best == NULL || i->idle_since_ns > best->idle_since_ns)) best = i;
  return best;
}

/* Creates an instance without holding the lock; NULL on failure. */
static vknn_graph_instance *add_instance(vknn_recorded_graph *rg, vknn_status *out_status) {
  rg->instances_creating++;
  pthread_mutex_unlock(&rg->instance_lock);
  vknn_graph_instance *inst = NULL;
  *out_status = vknn_graph_instance_create(rg, &inst);
  pthread_mutex_lock(&rg->instance_lock);
  rg->instances_creating--;
  if (inst == NULL) {
    pthread_cond_broadcast(&rg->instance_free); /* waiters may try themselves */
    return NULL;
  }
  inst->busy = true;
  adopt(rg, inst);
  VKNN_LOG_V(&rg->device->log, "execution", "overlapping executions: instance %u created",
             rg->instance_count);
  return inst;
}

vknn_status vknn_recorded_graph_acquire(vknn_recorded_graph *rg, vknn_graph_instance **out) {
  vknn_status s = VKNN_STATUS_NONE;
  bool may_create = true;
  vknn_graph_instance *inst = NULL;
  pthread_mutex_lock(&rg->instance_lock);
  for (;;) {
    inst = most_recent_idle(rg);
    if (inst != NULL) {
      inst->busy = true;
      break;
    }
    if (may_create && rg->instance_count + rg->instances_creating < VKNN_MAX_GRAPH_INSTANCES) {
      inst = add_instance(rg, &s);
      if (inst != NULL) break;
      /* Without memory for another, wait for one of those there are. */
      may_create = false;
      continue;
    }
    /* None left to wait for (the others failed and were discarded). */
    if (rg->instance_count + rg->instances_creating == 0) break;
    pthread_cond_wait(&rg->instance_free, &rg->instance_lock);
  }
  pthread_mutex_unlock(&rg->instance_lock);
  *out = inst;
  return inst != NULL ? VKNN_STATUS_NONE : s;
}

static void unlink_instance(vknn_recorded_graph *rg, vknn_graph_instance *inst) {
  for (vknn_graph_instance **link = &rg->instances; *link != NULL; link = &(*link)->next) {
    if (*link == inst) {
      *link = inst->next;
      return;
    }
  }
}

/* An instance whose submission failed is destroyed, not reused: its fence
 * may be pending or signaled. A waiter may then make a new one. */
void vknn_recorded_graph_release(vknn_recorded_graph *rg, vknn_graph_instance *inst) {
  pthread_mutex_lock(&rg->instance_lock);
  if (inst->unusable) {
    unlink_instance(rg, inst);
    discard(rg, inst);
  } else {
    inst->busy = false;
    inst->idle_since_ns = vknn_now_boottime_ns();
  }
  pthread_cond_signal(&rg->instance_free);
  pthread_mutex_unlock(&rg->instance_lock);
}

uint32_t vknn_recorded_graph_trim(vknn_recorded_graph *rg, uint64_t now_ns, uint64_t idle_ns) {
  uint32_t released = 0;
  pthread_mutex_lock(&rg->instance_lock);
  const vknn_graph_instance *keep = most_recent_idle(rg);
  bool any_busy = false;
  for (vknn_graph_instance *i = rg->instances; i != NULL; i = i->next) any_busy |= i->busy;
  if (any_busy) keep = NULL; /* a busy one stays: every idle one may go */
  for (vknn_graph_instance **link = &rg->instances; *link != NULL;) {
    vknn_graph_instance *inst = *link;
    bool idle = !inst->busy && now_ns - inst->idle_since_ns >= idle_ns;
    if (idle && inst != keep) {
      *link = inst->next;
      /* Counted before the instance count falls: a reader who sees one
       * instance fewer also sees its release. */
      atomic_fetch_add(&rg->device->vk.counters.idle_releases, 1);
      discard(rg, inst);
      released++;
      continue;
    }
    if (!inst->busy) {
      uint32_t entries = vknn_zero_copy_trim(inst, now_ns, idle_ns);
      atomic_fetch_add(&rg->device->vk.counters.idle_releases, entries);
      released += entries;
    }
    link = &inst->next;
  }
  pthread_mutex_unlock(&rg->instance_lock);
  return released;
}
