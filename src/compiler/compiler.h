/* The compiler: a valid model's main subgraph -> shapes inferred, dispatches
 * lowered, memory planned. The result drives recording in prepared_model.c. */
#pragma once
#include "graph/dispatch.h"
#include "graph/graph.h"

/* What the device lets the planner do. */
typedef struct vknn_plan_target {
  uint64_t alignment;         /* offset alignment of every binding (storage and texel) */
  uint64_t max_binding_bytes; /* the most one storage-buffer binding may span (0: no limit) */
  uint64_t max_workgroups;    /* the most workgroups one dispatch may have (0: no limit) */
  bool import_pools;  /* constants may be read in place from imported model pools */
  vknn_kernel_target kernels; /* what kernel selection knows of the device */
  /* One per operation of the model compiled, where prepare measured the
   * kernels' variants (runtime/kernel_tuning.h); NULL: kernels for all. */
  const vknn_kernel_target *op_kernels;
  /* One per operation of the model compiled: its index in the model the
   * caller gave (vknn_graph.op_sources); NULL: the same. */
  const uint32_t *op_sources;
} vknn_plan_target;

typedef struct vknn_plan {
  vknn_graph graph;
  vknn_dispatch_list dispatches;
  uint64_t region_size[VKNN_REGION_COUNT]; /* bytes per region; none for VKNN_REGION_POOL */
  /* Shapes depend on the inputs of an execution: only the graph is built
   * (inferred as far as it goes), nothing lowered. */
  bool deferred;
  /* Temporaries stored in the packed arena layout (vknn_pack_arena_tensors). */
  uint32_t packed_tensors;
} vknn_plan;

/* Infers every operation's output shapes; fills supported[k] (may be NULL)
 * for each operation. Returns INVALID_ARGUMENT for shape errors, and
 * GENERAL_FAILURE when an operation is unsupported and supported is NULL. */
vknn_status vknn_compile_infer(vknn_graph *graph, bool *supported);

/* The support query (HAL getSupportedOperations): supported[k] is true
 * only where prepare can succeed for operation k: inference accepts it (or
 * defers it to the execution's shapes), and, with its shapes known, it
 * lowers and its dispatches fit the target's limits (binding range, grid).
 * INVALID_ARGUMENT for shape errors; RESOURCE_EXHAUSTED when memory runs
 * out during the query (not an operation's fault). */
vknn_status vknn_compile_query(const vknn_logger *log, const vknn_model *model,
                               const vknn_plan_target *target, bool *supported);

/* Full compilation. overrides: NULL at prepare (shapes that depend on an
 * execution give a deferred plan), or what an execution knows of each input
 * (every shape must then be known). */
vknn_status vknn_compile(const vknn_logger *log, const vknn_model *model,
                         const vknn_input_override *overrides, const vknn_plan_target *target,
                         vknn_plan *out_plan);
void vknn_plan_release(vknn_plan *plan);

/* Merges activations into their producers (fusion.c). */
void vknn_fuse_activations(vknn_graph *graph);
/* Chains of float unary operations into the elementwise kernel before them. */
void vknn_fuse_elementwise_chains(vknn_graph *graph);
/* A PAD whose output only a convolution reads, padding height and width
 * only, becomes part of that convolution's padding: the convolution reads
 * the PAD's input, and no dispatch is left for the PAD. */
void vknn_fuse_pads(vknn_graph *graph);
/* A CONCATENATION input that a convolution-family operation writes, a
 * temporary only the CONCATENATION reads, is written by that operation
 * directly into its slice of the CONCATENATION's output: no copy is left
 * for it. */
void vknn_fuse_concat_slices(vknn_graph *graph);
/* An ADD of two float tensors of its output's shape, one of them a
 * temporary only the ADD reads, written by a convolution whose kernel can
 * add a tensor to its result (vknn_conv_takes_residual), becomes part of
 * that convolution: it reads the other tensor (the residual, written
 * before it runs) and writes the ADD's output. No dispatch is left for the
 * ADD (MobileNet v2's and ResNet's shortcut connections). */
void vknn_fuse_residual_adds(vknn_graph *graph);

/* Stores in the packed arena layout every temporary of rank 4 (channels a
 * multiple of 4) that all the dispatches binding it can read or write so,
 * their operations' kernel targets allowing it (packed_layout), setting
 * their PACKED_LAYOUT constants (packed_layout.c). */
vknn_status vknn_pack_arena_tensors(vknn_plan *plan);

/* Assigns every bound tensor a region and offset; temporaries whose
 * dispatch intervals do not overlap share arena bytes (memory_planner.c). */
vknn_status vknn_plan_memory(vknn_plan *plan, const vknn_plan_target *target);
/* Bytes a kernel binds for a tensor: whole 32-bit words, at least one. */
uint64_t vknn_plan_binding_bytes(const vknn_tensor *tensor);
/* Whether the device can bind tensor index whole (logged when not). */
bool vknn_plan_binding_fits(const vknn_graph *graph, uint32_t index,
                            const vknn_plan_target *target);
