/* The prepared model object (see prepared_model.c). */
#pragma once
#include "runtime/pool_mappings.h"
#include <pthread.h>

#include "runtime/device_internal.h"
#include "memory/memory_pool.h"
#include "compiler/model_copy.h"
#include "runtime/recorded_graph.h"
#include "vknn/prepared_model.h"

/* A model input or output as the model declares it. */
typedef struct vknn_io_decl {
  int32_t type;
  float scale;
  int32_t zero_point;
  uint32_t declared_rank; /* 0: unknown rank */
  uint32_t declared_dims[VKNN_MAX_RANK]; /* 0: unknown dimension */
  /* An input the model reads only as data: its value stays out of the
   * specialization key (vknn_operand_read_only_as_data). */
  bool value_is_data;
} vknn_io_decl;

/* Recorded graphs of a model compiled per execution, one per distinct set of
 * input shapes (and values of the inputs that can decide shapes). */
#define VKNN_SPECIALIZATION_CAPACITY 8
typedef struct vknn_specialization {
  uint8_t *key;
  size_t key_size;
  vknn_recorded_graph *graph;
  uint64_t last_use;    /* the cache's clock, for eviction */
  uint64_t last_use_ns; /* for the watchdog */
} vknn_specialization;

/* The programs of a model with IF or WHILE (runtime/control_flow.c). */
typedef struct vknn_control_flow vknn_control_flow;

struct vknn_prepared_model {
  vknn_device *device;
  uint64_t id; /* unique on its device: buffer roles name it */
  vknn_priority priority;
  vknn_execution_preference preference; /* as given at prepare; no effect yet */
  /* Guards choosing a recorded graph (the specialization cache) and
   * last; executions run outside it, each on its own graph instance. */
  pthread_mutex_t lock;
  /* On the device watchdog's list; its trim is vknn_prepared_model_trim. */
  vknn_watched watched;
  /* Executions queued or running on the executor; release waits for 0. */
  pthread_mutex_t pending_lock;
  pthread_cond_t pending_done;
  uint32_t pending;
  /* Shapes known at prepare: the graph recorded then. */
  vknn_recorded_graph *recorded;
  /* Shapes known only per execution: the model, compiled again per shapes. */
  bool deferred;
  vknn_model_copy model;
  vknn_specialization specializations[VKNN_SPECIALIZATION_CAPACITY];
  uint32_t specialization_count;
  uint64_t use_clock;
  vknn_recorded_graph *last; /* the graph the last execution ran (info, profiling) */
  /* IF or WHILE in the main subgraph: executions run these programs, whose
   * segments are prepared models of their own; recorded and model unused. */
  vknn_control_flow *control_flow;
  /* Request pools kept mapped across executions (pool_mappings.c). */
  vknn_pool_mappings pool_mappings;
  vknn_io_decl *inputs;
  uint32_t input_count;
  vknn_io_decl *outputs;
  uint32_t output_count;
};

/* A prepared model from a compiled plan: recorded now, or a model copy kept
 * for per-execution compilation when the plan is deferred. Watched by the
 * device's watchdog until released. */
vknn_status vknn_prepared_model_create(vknn_device *device, const vknn_plan *plan,
                                       vknn_priority priority,
                                       vknn_execution_preference preference,
                                       vknn_prepared_model **out);

/* A prepared model for a model whose main subgraph holds IF or WHILE
 * (control_flow.h). */
vknn_status vknn_prepared_model_create_control_flow(vknn_device *device, const vknn_model *model,
                                                    vknn_priority priority,
                                                    vknn_execution_preference preference,
                                                    vknn_prepared_model **out);

/* The recorded graph for a request's input shapes (specialization.c): the
 * one recorded at prepare, or one compiled and recorded for these shapes the
 * first time they occur. The caller holds pm->lock; pools[i] maps
 * request->pools[i]. */
vknn_status vknn_prepared_model_select_graph(vknn_prepared_model *pm, const vknn_request *request,
                                             const vknn_mapped_pool *pools,
                                             vknn_recorded_graph **out_graph);
void vknn_prepared_model_release_specializations(vknn_prepared_model *pm);
/* Watchdog: releases what the model has not used for idle_ns: recordings of
 * other input shapes (all but the most recent), extra graph instances and
 * zero-copy entries. Counts each release in the device statistics. */
void vknn_prepared_model_trim(vknn_prepared_model *pm, uint64_t now_ns, uint64_t idle_ns);
uint32_t vknn_prepared_model_trim_specializations(vknn_prepared_model *pm, uint64_t now_ns,
                                                  uint64_t idle_ns);

/* What an execution's call asked for, as every path passes it on. */
typedef struct vknn_execution_options {
  vknn_measure_timing measure;
  vknn_deadline deadline;
  /* How long a WHILE may loop: the HAL's default when the call gives none,
   * the maximum when it gives more (runtime/control_flow.c). */
  uint64_t loop_timeout_ns;
  /* When the driver saw the call: driver time runs from here. */
  uint64_t call_ns;
  /* The execution waited in the executor's queue: a deadline that passed
   * meanwhile was missed while the driver was busy (TRANSIENT). */
  bool queued;
  /* A segment run by control flow (control_flow.c): an output too small for
   * a shape seen the first time is grown and the segment run again, so it
   * is not logged as the caller's error. */
  bool segment;
  /* A segment's: where its operations stand in the caller's model, for the
   * log of a value out of range (NULL: the prepared model is the caller's). */
  const vknn_segment_origin *origin;
} vknn_execution_options;

/* The options of a call, stamped with the time now; entry points call it
 * first. deadline and loop_timeout may be NULL; pm too (nothing logged). */
vknn_execution_options vknn_execution_options_make(const vknn_prepared_model *pm,
                                                   vknn_measure_timing measure,
                                                   const vknn_deadline *deadline,
                                                   const vknn_duration *loop_timeout);

/* The steps every execution path shares (execution.c). validate checks the
 * arguments and the request (and that the device is not lost); run executes
 * with the request's pools already mapped (pools[i] for request->pools[i]);
 * run_mapping maps them first. */
vknn_status vknn_execution_validate(vknn_prepared_model *pm, const vknn_request *request,
                                    vknn_measure_timing measure, const vknn_output_shape *shapes,
                                    uint32_t shape_count);
vknn_status vknn_execution_run(vknn_prepared_model *pm, const vknn_request *request,
                               const vknn_mapped_pool *pools, const vknn_execution_options *options,
                               vknn_output_shape *out_shapes, uint32_t shape_count,
                               vknn_timing *out_timing);
vknn_status vknn_execution_run_mapping(vknn_prepared_model *pm, const vknn_request *request,
                                       const vknn_execution_options *options,
                                       vknn_output_shape *out_shapes, uint32_t shape_count,
                                       vknn_timing *out_timing);

/* Counts an execution that outlives its call (execution_async.c). */
void vknn_prepared_model_retain_pending(vknn_prepared_model *pm);
void vknn_prepared_model_release_pending(vknn_prepared_model *pm);

/* Checks a request against the prepared model: argument counts, pools,
 * locations inside their pools, dimensions compatible with the model. */
vknn_status vknn_validate_request(const vknn_prepared_model *pm, const vknn_request *request);

/* The first dimension of an argument's shape that neither the request nor
 * the model gives (the request's dimensions over the model's):
 * VKNN_SHAPE_KNOWN when the shape is known in full (a scalar's always is),
 * VKNN_RANK_UNKNOWN when not even the rank is. */
#define VKNN_SHAPE_KNOWN UINT32_MAX
#define VKNN_RANK_UNKNOWN (UINT32_MAX - 1)
uint32_t vknn_argument_unknown_dimension(const vknn_io_decl *decl, const vknn_request_argument *arg);
