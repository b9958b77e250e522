/* LSH_PROJECTION: each bit of the output is the sign of a weighted sum over
 * the input's rows of farmhash fingerprints of (seed, row), as the NNAPI
 * reference computes it. Kernel: shaders/lsh_projection.comp (64-bit integer
 * and double arithmetic: devices without them report it unsupported). */
#include <string.h>

#include "ops/op_common.h"
#include "ops/known_dims.h"
#include "model/operand_type.h"

/* The reference's LSHProjectionType values. */
enum {
  LSH_SPARSE_DEPRECATED = 1, /* signatures without the per-function offset */
  LSH_DENSE = 2,
  LSH_SPARSE = 3,
};

#define LSH_GROUP 64 /* lanes of a workgroup, a power of two (the kernel's tree) */

static bool check_input_type(const vknn_logger *log, const vknn_operand *input) {
  if (input->type == VKNN_OPERAND_TENSOR_FLOAT32 || input->type == VKNN_OPERAND_TENSOR_FLOAT16 ||
      input->type == VKNN_OPERAND_TENSOR_INT32 || input->type == VKNN_OPERAND_TENSOR_QUANT8_ASYMM)
    return true;
  VKNN_LOG_E(log, "model", "LSH_PROJECTION: an input of type %s is not allowed",
             vknn_operand_type_name(input->type));
  return false;
}

/* Hash functions: a 2-D float tensor; the weights (optional) of its type, 1-D. */
static bool check_hash_and_weights(const vknn_logger *log, const vknn_operation *op,
                                   const vknn_operand *hash, const vknn_operand *weights) {
  if (hash->type != VKNN_OPERAND_TENSOR_FLOAT32 && hash->type != VKNN_OPERAND_TENSOR_FLOAT16) {
    VKNN_LOG_E(log, "model", "LSH_PROJECTION: hash functions of type %s are not allowed",
               vknn_operand_type_name(hash->type));
    return false;
  }
  if (!vknn_op_check_rank(log, op, "the hash functions", hash, 2)) return false;
  if (weights->lifetime == VKNN_LIFETIME_NO_VALUE) return true;
  return vknn_op_check_type(log, op, "the weights", weights, hash->type) &&
         vknn_op_check_rank(log, op, "the weights", weights, 1);
}

static vknn_status validate_lsh_projection(const vknn_logger *log, const vknn_model *model,
                                           const vknn_subgraph *sg, const vknn_operation *op) {
  (void)model;
  if (!vknn_op_check_counts(log, sg, op, 4, 4, 1)) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_operand *input = &sg->operands[op->inputs[1]];
  bool ok = check_hash_and_weights(log, op, &sg->operands[op->inputs[0]],
                                   &sg->operands[op->inputs[2]]) &&
            check_input_type(log, input) &&
            vknn_op_check_type(log, op, "the type", &sg->operands[op->inputs[3]],
                               VKNN_OPERAND_INT32) &&
            vknn_op_check_type(log, op, "the output", &sg->operands[op->outputs[0]],
                               VKNN_OPERAND_TENSOR_INT32) &&
            vknn_op_check_rank(log, op, "the output", &sg->operands[op->outputs[0]], 1);
  return ok ? VKNN_STATUS_NONE : VKNN_STATUS_INVALID_ARGUMENT;
}

static uint32_t ceil_log2(uint32_t v) {
  uint32_t bits = 0;
  while (bits < 32 && (1ull << bits) < v) ++bits;
  return bits;
}

/* What the lowering needs, read from the operation's tensors. */
typedef struct lsh_shape {
  int32_t type;
  uint32_t functions, bits; /* the hash tensor's [functions, bits] */
  uint32_t rows, row_bytes; /* the input's first dimension, bytes of one row */
  bool weighted;
} lsh_shape;

/* The type; given as a model input, it is compiled per execution with its
 * value. */
static vknn_status read_type(vknn_graph *graph, const vknn_operation *op, int32_t *out_type) {
  vknn_status s = vknn_op_require_constant_params(graph, op, 3, 1);
  if (s != VKNN_STATUS_NONE) return s;
  if (!vknn_graph_const_i32_list(graph, op, 3, 1, out_type)) return VKNN_STATUS_GENERAL_FAILURE;
  if (*out_type == LSH_SPARSE_DEPRECATED || *out_type == LSH_DENSE || *out_type == LSH_SPARSE)
    return VKNN_STATUS_NONE;
  VKNN_LOG_E(graph->log, "model",
             "LSH_PROJECTION: type %d is not 1 (sparse, deprecated), 2 (dense) or 3 (sparse)",
             *out_type);
  return VKNN_STATUS_INVALID_ARGUMENT;
}

/* NNAPI bounds the bits of a hash function, and of a sparse signature. */
static vknn_status check_bits(vknn_graph *graph, const lsh_shape *s) {
  if (s->bits > 32) {
    VKNN_LOG_E(graph->log, "model", "LSH_PROJECTION: %u bits per hash function, at most 32",
               s->bits);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (s->type != LSH_DENSE && s->bits + ceil_log2(s->functions) > 32) {
    VKNN_LOG_E(graph->log, "model",
               "LSH_PROJECTION: sparse signatures of %u bits for %u hash functions exceed 32 bits",
               s->bits, s->functions);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The reference takes the weights with DENSE and only then, one per input
 * row: as far as the rows and the weights are known (ops/known_dims.h: 0
 * not known yet). */
static vknn_status check_weights(vknn_graph *graph, const lsh_shape *s, const vknn_tensor *weights) {
  bool dense = s->type == LSH_DENSE;
  if (dense != s->weighted) {
    VKNN_LOG_E(graph->log, "model", "LSH_PROJECTION: the weights must be %s with type %d",
               dense ? "given" : "omitted", s->type);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (s->weighted && !vknn_dims_fit(weights, 1, s->rows, 0)) {
    VKNN_LOG_E(graph->log, "model", "LSH_PROJECTION: %u weights for %u input rows",
               vknn_known_dim(weights, 1, 0), s->rows);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  return VKNN_STATUS_NONE;
}

/* The type, the hash functions and the weights are checked before the
 * operation waits for the input's shape: a model whose input shape an
 * execution gives still has them checked at prepare. */
static vknn_status read_params(vknn_graph *graph, const vknn_operation *op, lsh_shape *out) {
  const vknn_tensor *hash = &graph->tensors[op->inputs[0]];
  const vknn_tensor *input = &graph->tensors[op->inputs[1]];
  const vknn_tensor *weights = &graph->tensors[op->inputs[2]];
  vknn_status s = read_type(graph, op, &out->type);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 0);
  if (s != VKNN_STATUS_NONE) return s;
  if (hash->rank != 2) {
    VKNN_LOG_E(graph->log, "model", "LSH_PROJECTION: hash functions of rank %u (2 expected)", hash->rank);
    return VKNN_STATUS_INVALID_ARGUMENT;
  }
  out->functions = hash->dims[0];
  out->bits = hash->dims[1];
  s = check_bits(graph, out);
  if (s != VKNN_STATUS_NONE) return s;
  /* The reference requires the weights with one type and their omission
   * with the others: a model input may be either until an execution says. */
  if (vknn_presence_waits(graph, weights))
    return vknn_graph_defer(graph, op, "whether the weights are omitted is known at execution");
  out->rows = input->rank != 0 ? input->dims[0] : 0;
  out->weighted = weights->lifetime != VKNN_LIFETIME_NO_VALUE;
  return check_weights(graph, out, weights);
}

static vknn_status read_shape(vknn_graph *graph, const vknn_operation *op, lsh_shape *out) {
  const vknn_tensor *input = &graph->tensors[op->inputs[1]];
  vknn_status s = read_params(graph, op, out);
  if (s == VKNN_STATUS_NONE) s = vknn_op_require_input_shape(graph, op, 1);
  if (s == VKNN_STATUS_NONE && out->weighted) s = vknn_op_require_input_shape(graph, op, 2);
  if (s != VKNN_STATUS_NONE) return s;
  uint64_t bytes = vknn_operand_value_bytes(input->type, input->dims, input->rank);
  out->row_bytes = (uint32_t)(bytes / input->dims[0]);
  if (bytes > UINT32_MAX - 4 || (uint64_t)out->functions * out->bits > UINT32_MAX) {
    VKNN_LOG_E(graph->log, "compilation",
               "LSH_PROJECTION: an input of %llu bytes or %u x %u bits is too large",
               (unsigned long long)bytes, out->functions, out->bits);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  return VKNN_STATUS_NONE;
}

/* Output: [functions] (sparse) or [functions * bits] (dense), TENSOR_INT32. */
static vknn_status infer_lsh_projection(vknn_graph *graph, const vknn_operation *op) {
  lsh_shape shape;
  vknn_status s = read_shape(graph, op, &shape);
  if (s != VKNN_STATUS_NONE) return s;
  if (!graph->kernels.int64_float64) {
    VKNN_LOG_E(graph->log, "compilation",
               "LSH_PROJECTION: the device lacks 64-bit integer and float arithmetic");
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  uint32_t count = shape.type == LSH_DENSE ? shape.functions * shape.bits : shape.functions;
  return vknn_op_set_output_shape(graph, op, 0, &count, 1);
}

typedef struct lsh_projection_params {
  uint32_t rows, row_bytes;
  uint32_t num_bits, bits_per_group, groups;
  uint32_t has_weights, add_function_offset;
} lsh_projection_params;
VKNN_PUSH_LAYOUT(lsh_projection, lsh_projection_params);

static vknn_status lower_lsh_projection(vknn_graph *graph, const vknn_operation *op,
                                        vknn_dispatch_list *out_list) {
  lsh_shape shape;
  vknn_status s = read_shape(graph, op, &shape);
  if (s != VKNN_STATUS_NONE) return s;
  bool dense = shape.type == LSH_DENSE;
  lsh_projection_params p = {shape.rows,
                             shape.row_bytes,
                             shape.bits,
                             dense ? 1 : shape.bits,
                             dense ? shape.functions * shape.bits : shape.functions,
                             shape.weighted,
                             shape.type == LSH_SPARSE};
  vknn_dispatch *d = vknn_dispatch_list_add(out_list);
  if (d == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  bool f16 = graph->tensors[op->inputs[0]].type == VKNN_OPERAND_TENSOR_FLOAT16;
  d->shader = f16 ? VKNN_SHADER_LSH_PROJECTION_F16 : VKNN_SHADER_LSH_PROJECTION_F32;
  d->local_size = LSH_GROUP;
  vknn_dispatch_bind(d, op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->inputs[1], VKNN_ACCESS_READ);
  /* Without weights the kernel reads none: the hash functions stand in. */
  vknn_dispatch_bind(d, shape.weighted ? op->inputs[2] : op->inputs[0], VKNN_ACCESS_READ);
  vknn_dispatch_bind(d, op->outputs[0], VKNN_ACCESS_WRITE);
  memcpy(d->push, &p, sizeof(p));
  d->push_size = sizeof(p);
  d->invocations = (uint64_t)p.groups * LSH_GROUP;
  return VKNN_STATUS_NONE;
}

const vknn_op_def vknn_op_lsh_projection = {VKNN_OPERATION_LSH_PROJECTION, false,
                                            validate_lsh_projection, infer_lsh_projection,
                                            lower_lsh_projection};
