/* IF and WHILE at run time (control_flow.c). A prepared model whose main
 * subgraph holds them is a set of programs, one per subgraph it reaches:
 * each a list of steps, a segment (the operations between two IF or WHILE,
 * compiled and recorded at prepare as a prepared model of its own), an IF or
 * a WHILE. An execution runs the steps in order; values pass between
 * segments in host memory, and the one value the host reads is a
 * condition's boolean, once per IF and once per loop iteration. */
#pragma once
#include "runtime/prepared_model_internal.h"

/* Compiles every segment of every subgraph the main one reaches; each is
 * recorded now, or per input shapes when they depend on the execution
 * (specialization.c), which a loop whose values change shape relies on. */
vknn_status vknn_control_flow_create(vknn_prepared_model *pm, const vknn_model *model,
                                     vknn_control_flow **out);
void vknn_control_flow_destroy(vknn_control_flow *cf);

/* Bytes of constants held in host memory: those an IF or WHILE reads
 * directly (a condition, a branch's or loop's input), for tests. */
uint64_t vknn_control_flow_host_constant_bytes(const vknn_control_flow *cf);

/* Runs the model for a request whose pools are mapped (pools[i] for
 * request->pools[i]): inputs copied in, the programs run, outputs and their
 * shapes copied out. A WHILE that loops longer than options->loop_timeout_ns,
 * or a deadline passing between steps, gives MISSED_DEADLINE_TRANSIENT. */
vknn_status vknn_control_flow_run(vknn_control_flow *cf, const vknn_request *request,
                                  const vknn_mapped_pool *pools,
                                  const vknn_execution_options *options,
                                  vknn_output_shape *shapes, uint32_t shape_count,
                                  uint64_t *device_us);
