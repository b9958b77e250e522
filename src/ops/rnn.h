/* The basic RNN cell shared by RNN, UNIDIRECTIONAL_SEQUENCE_RNN (rnn.c)
 * and BIDIRECTIONAL_SEQUENCE_RNN (bidirectional_rnn.c): signature checks,
 * shape checks, and the lowering of one direction over a sequence. */
#pragma once
#include "ops/op_common.h"
#include "ops/known_dims.h"

#define VKNN_NONE_TENSOR UINT32_MAX

/* Sequences longer than this are reported unsupported: every step records
 * two dispatches at prepare. */
#define VKNN_RNN_MAX_STEPS 4096u

/* What every direction of one operation shares. */
typedef struct vknn_rnn_sequence {
  int32_t type; /* TENSOR_FLOAT32 or TENSOR_FLOAT16 */
  uint32_t batch, steps;
  bool time_major; /* rows of input and output are [step, batch], else [batch, step] */
  float act_min, act_max;
} vknn_rnn_sequence;

/* One cell run over the sequence, forward or reversed. Tensors are graph
 * tensor indices; VKNN_NONE_TENSOR where absent. */
typedef struct vknn_rnn_direction {
  uint32_t input, input_size; /* the sequence it reads ([rows, input_size]) */
  uint32_t aux_input, aux_size, aux_weights; /* cross-linking, or none */
  uint32_t weights, recurrent, bias, hidden_in;
  uint32_t units;
  bool reverse;
  uint32_t output, out_width, out_col; /* rows of out_width elements, from column out_col */
  uint32_t state_out;                  /* the last step's state, or none */
} vknn_rnn_direction;

/* Signature checks (logged, tag "model"). A float tensor type: every tensor
 * of the cell must have it. */
bool vknn_rnn_check_float(const vknn_logger *log, const vknn_operation *op, const char *what,
                          const vknn_operand *operand, int32_t type);
/* A tensor operand of the given type and rank (rank 0 in the model: unknown). */
bool vknn_rnn_check_tensor(const vknn_logger *log, const vknn_operation *op, const char *what,
                           const vknn_operand *operand, int32_t type, uint32_t rank);

/* Checks the cell's shapes as far as their dimensions are known
 * (ops/known_dims.h: 0 is not known yet, in an operand or in seq->batch,
 * dir->input_size or dir->aux_size): weights [units, input_size], recurrent
 * [units, units], bias [units], hidden_in [batch, units], auxiliary weights
 * [units, aux_size] (INVALID_ARGUMENT, logged, when they disagree). Fills
 * dir->units from the first of those operands that gives it (0: none yet).
 * Exact once every shape is known. */
vknn_status vknn_rnn_check_cell(vknn_graph *graph, const vknn_operation *op,
                                const vknn_rnn_sequence *seq, vknn_rnn_direction *dir);

/* The fused activation: one of NNAPI's codes (INVALID_ARGUMENT, logged, when
 * not). The operations read and check their scalar parameters before they
 * wait for shapes, so that a model whose shapes an execution gives still has
 * them checked at prepare. */
vknn_status vknn_rnn_check_activation(const vknn_graph *graph, const vknn_operation *op,
                                      int32_t activation);

/* The sequence's extent as far as the input's dimensions are known (0: not
 * known yet): steps and batch from the input (RNN's of rank 2, the others' of
 * rank 3, time-major or not), the bounds of an activation already checked;
 * GENERAL_FAILURE (logged) past the limits. The input's rank is checked once
 * its shape is known (vknn_rnn_require_sequence). */
vknn_status vknn_rnn_read_sequence(vknn_graph *graph, const vknn_operation *op, uint32_t input,
                                   int32_t activation, bool time_major, vknn_rnn_sequence *seq);

/* Input i's shape known (else the operation waits for an execution:
 * vknn_graph_defer), of the rank: a rank the model leaves unknown passed the
 * signature checks, and the cell's checks took its dimensions as unknown. */
vknn_status vknn_rnn_require_sequence(vknn_graph *graph, const vknn_operation *op, uint32_t i,
                                      uint32_t rank);

/* Appends one direction's dispatches: the input projection of every step as
 * one matrix product (with the bias), the auxiliary input's likewise, then
 * per step a matrix product of the previous state with the recurrent
 * weights and the step kernel (shaders/rnn_step.comp). */
vknn_status vknn_lower_rnn_direction(vknn_graph *graph, const vknn_rnn_sequence *seq,
                                     const vknn_rnn_direction *dir, vknn_dispatch_list *out_list);
