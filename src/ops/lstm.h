/* The LSTM cell shared by LSTM (one step), UNIDIRECTIONAL_SEQUENCE_LSTM and
 * BIDIRECTIONAL_SEQUENCE_LSTM (src/ops/lstm.c, sequence_lstm.c): where a
 * cell's operands sit among an operation's inputs, their signature rules,
 * and the lowering of one direction over a sequence to dispatches of the
 * matrix kernels (vknn_lower_matmul) and shaders/lstm_gates.comp. */
#pragma once
#include "ops/op_common.h"
#include "ops/known_dims.h"

#define VKNN_LSTM_NONE UINT32_MAX

/* Input positions of one cell's operands in an operation (VKNN_LSTM_NONE:
 * the operation has no such input). Gates in the order input, forget, cell,
 * output; peepholes input, forget, output. */
#define VKNN_LSTM_SLOT_COUNT 27
typedef union vknn_lstm_slots {
  struct {
    uint32_t in_w[4], rec_w[4], peep[3], bias[4], proj_w, proj_b, h_in, c_in, ln[4], aux_w[4];
  };
  uint32_t all[VKNN_LSTM_SLOT_COUNT]; /* the same, as one array */
} vknn_lstm_slots;
_Static_assert(sizeof(vknn_lstm_slots) == VKNN_LSTM_SLOT_COUNT * sizeof(uint32_t),
               "vknn_lstm_slots is an array of positions");

static inline const uint32_t *vknn_lstm_slot_array(const vknn_lstm_slots *s) { return s->all; }

/* Presence of an optional operand: 1 given, 0 omitted, -1 not known until an
 * execution (a model input may be omitted by the request). */
typedef int8_t vknn_presence;

/* The signature rules of a cell in a model (sg): types (every tensor of
 * input 0's type, float32 or float16), ranks, and which optional operands
 * may be omitted together (CIFG, peephole, projection, layer normalization,
 * auxiliary weights). name: the cell, for the log ("", "forward ",
 * "backward "). */
bool vknn_lstm_check_cell(const vknn_logger *log, const vknn_subgraph *sg,
                          const vknn_operation *op, const vknn_lstm_slots *slots,
                          const char *name);
/* The presence rules alone, on the presence of each slot. */
bool vknn_lstm_check_presence(const vknn_logger *log, const vknn_operation *op,
                              const vknn_lstm_slots *slots, const vknn_presence *present,
                              const char *name);
/* Input 0: given, TENSOR_FLOAT32 or TENSOR_FLOAT16, of the rank (logged when not). */
bool vknn_lstm_check_input(const vknn_logger *log, const vknn_subgraph *sg,
                           const vknn_operation *op, uint32_t rank);
/* The scalar parameters: the activation (INT32), the two clipping thresholds
 * (FLOAT32, or FLOAT16 with float16 tensors) at positions act, act + 1, act + 2. */
bool vknn_lstm_check_scalars(const vknn_logger *log, const vknn_subgraph *sg,
                             const vknn_operation *op, uint32_t act);

/* One cell's operands as graph tensors (VKNN_LSTM_NONE: omitted), and
 * whether their shapes are all known (the operation waits for an execution
 * when not: vknn_graph_defer). */
typedef struct vknn_lstm_cell {
  vknn_lstm_slots t; /* the operands' tensors (VKNN_LSTM_NONE: omitted) */
  uint32_t units, output_size; /* 0: not known yet */
  bool cifg, peephole, layer_norm;
  bool shapes_known;
} vknn_lstm_cell;

/* Reads a cell from op in a graph: defers (vknn_graph_defer) while an
 * optional operand's presence is unknown; INVALID_ARGUMENT (logged) when
 * presence rules or shapes disagree. input_size and aux_size (0: none) are
 * what the weights must take; batches what the states hold. Shapes are
 * checked before they are all known: a dimension 0 there, in an operand or
 * in batches, input_size or aux_size, is not known yet and agrees with any
 * (the operation waits for the rest when out->shapes_known is false). */
vknn_status vknn_lstm_read_cell(vknn_graph *graph, const vknn_operation *op,
                                const vknn_lstm_slots *slots, uint32_t batches,
                                uint32_t input_size, uint32_t aux_size, const char *name,
                                vknn_lstm_cell *out);

/* The activation and clipping parameters at positions act..act + 2: constant
 * (GENERAL_FAILURE, logged, when not), valid (INVALID_ARGUMENT when not). */
typedef struct vknn_lstm_params {
  int32_t activation;
  float cell_clip, proj_clip;
} vknn_lstm_params;
vknn_status vknn_lstm_read_params(vknn_graph *graph, const vknn_operation *op, uint32_t act,
                                  vknn_lstm_params *out);

/* One direction over a sequence. Rows of input (and aux_input, of the same
 * layout) and of the sequence output: time-major [steps, batches, ...] or
 * batch-major [batches, steps, ...]. */
typedef struct vknn_lstm_run {
  vknn_lstm_cell cell;
  vknn_lstm_params params;
  uint32_t input, aux_input; /* aux_input: VKNN_LSTM_NONE, or read through cell.aux_w */
  uint32_t steps, batches, input_size, aux_size;
  bool time_major, reverse;
  uint32_t output;              /* sequence output, or VKNN_LSTM_NONE */
  uint32_t out_width, out_col;  /* its row width and this direction's first column */
  uint32_t h_out, c_out;        /* final states, or VKNN_LSTM_NONE */
  uint32_t scratch;             /* LSTM's scratch buffer, or VKNN_LSTM_NONE */
} vknn_lstm_run;

/* Appends the dispatches of a run: the weights gathered into one matrix per
 * product (at prepare when they are constants, else by copies in the
 * graph), the input projection of every step, then per step the recurrent
 * product, the gate kernel and the projection. */
vknn_status vknn_lstm_lower(vknn_graph *graph, const vknn_lstm_run *run,
                            vknn_dispatch_list *out_list);

/* Slots of LSTM (27 inputs; 23 without layer normalization) and of
 * UNIDIRECTIONAL_SEQUENCE_LSTM (its layer normalization weights at 24-27). */
void vknn_lstm_single_slots(const vknn_operation *op, vknn_lstm_slots *out);

/* The cell of LSTM or UNIDIRECTIONAL_SEQUENCE_LSTM (their slots) into a run
 * whose sequence fields and parameters are set (vknn_lstm_read_params at 20,
 * read first: they are checked before the shapes); sets its output width.
 * Defers while a shape of the cell is unknown. */
vknn_status vknn_lstm_read_single(vknn_graph *graph, const vknn_operation *op,
                                  vknn_lstm_run *run);

/* A block of a matrix being assembled: src [rows, cols] at (row, col). */
typedef struct vknn_lstm_block {
  uint32_t src, rows, cols, row, col;
} vknn_lstm_block;

/* Gathers blocks into one [rows, width] matrix of type: a constant built
 * now when every block is a constant (the usual model: weights do not
 * change), else a temporary (with the first block's encoding) filled by copy
 * dispatches at every execution (weights given as model inputs or computed).
 * Parts no block covers are zero in a constant and unwritten in a temporary
 * (the kernels do not read them). Also used by the quantized LSTM cells. */
vknn_status vknn_lstm_assemble(vknn_graph *graph, int32_t type, const vknn_lstm_block *b,
                               uint32_t count, uint32_t rows, uint32_t width, uint32_t *out_tensor,
                               vknn_dispatch_list *out_list);

/* Lowers the one run an operation's reader describes. */
typedef vknn_status (*vknn_lstm_reader)(vknn_graph *graph, const vknn_operation *op,
                                        vknn_lstm_run *run);
vknn_status vknn_lstm_lower_op(vknn_graph *graph, const vknn_operation *op,
                               vknn_lstm_reader read, vknn_dispatch_list *out_list);
