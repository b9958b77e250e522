/* A recorded graph's lifetime and its pool of graph instances
 * (recorded_graph_pool.c). */
#pragma once
#include "runtime/recorded_graph.h"

/* Most instances of one graph: executions beyond wait for a free one. */
#define VKNN_MAX_GRAPH_INSTANCES 4

/* Uploads the constants of a plan and creates its first instance (which
 * records the command buffers). One reference, the caller's. */
vknn_status vknn_recorded_graph_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_recorded_graph **out);
void vknn_recorded_graph_retain(vknn_recorded_graph *rg);
/* Drops a reference; the last one destroys the graph and its instances. */
void vknn_recorded_graph_unref(vknn_recorded_graph *rg);

/* An idle instance for one execution: the most recently used, else a new
 * one (recorded now: overlapping executions are rare and this happens once
 * per level of overlap), else, at VKNN_MAX_GRAPH_INSTANCES, the first to be
 * released. */
vknn_status vknn_recorded_graph_acquire(vknn_recorded_graph *rg, vknn_graph_instance **out);
void vknn_recorded_graph_release(vknn_recorded_graph *rg, vknn_graph_instance *inst);

/* Watchdog: destroys instances idle for idle_ns or more (all but the most
 * recently used one) and the zero-copy entries of idle instances unused that
 * long. Returns how many things it released, each already counted in the
 * device's idle_releases. */
uint32_t vknn_recorded_graph_trim(vknn_recorded_graph *rg, uint64_t now_ns, uint64_t idle_ns);
