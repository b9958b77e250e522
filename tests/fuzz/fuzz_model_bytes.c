#include "fuzz_model_bytes.h"

#include <stdlib.h>
#include <string.h>

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
  const uint8_t *p;
  size_t left;
  bool ok;
} reader;

static const uint8_t *take(reader *r, size_t n) {
  if (!r->ok || r->left < n) {
    r->ok = false;
    return NULL;
  }
  const uint8_t *p = r->p;
  r->p += n;
  r->left -= n;
  return p;
}

static uint32_t read_uint(reader *r, size_t n) {
  const uint8_t *p = take(r, n);
  uint32_t v = 0;
  for (size_t i = 0; p != NULL && i < n; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static float read_f32(reader *r) {
  uint32_t bits = read_uint(r, 4);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

/* Appends n bytes from the reader to a growing block; returns the offset. */
static uint32_t append(reader *r, uint8_t **block, size_t *size, size_t n) {
  const uint8_t *src = take(r, n);
  size_t offset = (*size + 7) & ~(size_t)7;
  uint8_t *grown = src ? realloc(*block, offset + n + 1) : NULL;
  if (grown == NULL) {
    r->ok = false;
    return 0;
  }
  memset(grown + *size, 0, offset - *size);
  memcpy(grown + offset, src, n);
  *block = grown;
  *size = offset + n;
  return (uint32_t)offset;
}

static void read_channel_quant(reader *r, fuzz_model *m, uint32_t i) {
  vknn_operand *o = &m->operands[i];
  o->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  o->extra_params.channel_quant.channel_dim = read_uint(r, 1);
  uint32_t count = read_uint(r, 2);
  m->scales[i] = calloc(count ? count : 1, sizeof(float));
  if (m->scales[i] == NULL) r->ok = false;
  for (uint32_t c = 0; r->ok && c < count; ++c) m->scales[i][c] = read_f32(r);
  o->extra_params.channel_quant.scales = m->scales[i];
  o->extra_params.channel_quant.scale_count = count;
}

static void read_operand(reader *r, fuzz_model *m, uint32_t i) {
  vknn_operand *o = &m->operands[i];
  o->type = (int32_t)read_uint(r, 4);
  o->lifetime = (vknn_operand_lifetime)read_uint(r, 1);
  o->dimension_count = read_uint(r, 1) % (FUZZ_MAX_RANK + 1);
  for (uint32_t d = 0; d < o->dimension_count; ++d) m->dims[i][d] = read_uint(r, 2);
  o->dimensions = m->dims[i];
  o->scale = read_f32(r);
  o->zero_point = (int32_t)read_uint(r, 4);
  o->number_of_consumers = read_uint(r, 2);
  if (read_uint(r, 1)) read_channel_quant(r, m, i);
  bool copy = o->lifetime == VKNN_LIFETIME_CONSTANT_COPY;
  if (copy || o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE) {
    uint32_t length = read_uint(r, 4);
    uint32_t offset = copy ? append(r, &m->values, &m->values_size, length)
                           : append(r, &m->references, &m->references_size, length);
    o->location = (vknn_data_location){0, offset, length};
  }
}

static uint32_t read_list(reader *r, uint32_t *list, uint32_t max) {
  uint32_t n = read_uint(r, 1) % (max + 1);
  for (uint32_t i = 0; i < n; ++i) list[i] = read_uint(r, 2);
  return n;
}

static void read_operation(reader *r, fuzz_model *m, uint32_t k) {
  vknn_operation *op = &m->operations[k];
  op->type = (int32_t)read_uint(r, 4);
  op->input_count = read_list(r, m->op_args[k][0], FUZZ_MAX_OP_ARGS);
  op->output_count = read_list(r, m->op_args[k][1], FUZZ_MAX_OP_ARGS);
  op->inputs = m->op_args[k][0];
  op->outputs = m->op_args[k][1];
}

/* Constants by reference live in one memfd pool, as the framework passes them. */
static int make_constant_pool(fuzz_model *m) {
  if (m->references_size == 0) return 0;
  if (shared_memory_create(&m->constant_pool, m->references_size) != 0) return -1;
  memcpy(m->constant_pool.data, m->references, m->references_size);
  m->model.pools = &m->constant_pool.memory;
  m->model.pool_count = 1;
  return 0;
}

int fuzz_model_decode(const uint8_t *data, size_t size, fuzz_model *m) {
  memset(m, 0, sizeof(*m));
  m->constant_pool.fd = -1;
  reader r = {data, size, true};
  vknn_subgraph *sg = &m->model.main;
  m->model.relax_computation_float32_to_float16 = read_uint(&r, 1) & 1;
  sg->operand_count = read_uint(&r, 1);
  for (uint32_t i = 0; i < sg->operand_count && r.ok; ++i) read_operand(&r, m, i);
  sg->operation_count = read_uint(&r, 1);
  for (uint32_t k = 0; k < sg->operation_count && r.ok; ++k) read_operation(&r, m, k);
  sg->input_count = read_list(&r, m->inputs, FUZZ_MAX_OPERANDS);
  sg->output_count = read_list(&r, m->outputs, FUZZ_MAX_OPERANDS);
  sg->operands = m->operands;
  sg->operations = m->operations;
  sg->input_indexes = m->inputs;
  sg->output_indexes = m->outputs;
  m->model.operand_values = m->values;
  m->model.operand_values_size = m->values_size;
  m->input_bytes = r.p;
  m->input_size = r.left;
  return r.ok && make_constant_pool(m) == 0 ? 0 : -1;
}

void fuzz_model_free(fuzz_model *m) {
  for (uint32_t i = 0; i < FUZZ_MAX_OPERANDS; ++i) free(m->scales[i]);
  free(m->values);
  free(m->references);
  if (m->constant_pool.data != NULL) shared_memory_destroy(&m->constant_pool);
}

/* ---- writing ------------------------------------------------------------- */

typedef struct writer {
  uint8_t *data;
  size_t size, capacity;
  bool ok;
} writer;

static void put(writer *w, const void *src, size_t n) {
  if (!w->ok) return;
  if (w->size + n > w->capacity) {
    size_t capacity = (w->size + n) * 2 + 256;
    uint8_t *data = realloc(w->data, capacity);
    if (data == NULL) {
      w->ok = false;
      return;
    }
    w->data = data;
    w->capacity = capacity;
  }
  memcpy(w->data + w->size, src, n);
  w->size += n;
}

static void put_uint(writer *w, uint32_t v, size_t n) {
  uint8_t bytes[4];
  for (size_t i = 0; i < n; ++i) bytes[i] = (uint8_t)(v >> (8 * i));
  put(w, bytes, n);
}

static void put_f32(writer *w, float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  put_uint(w, bits, 4);
}

static void put_operand(writer *w, const vknn_model *model, const uint8_t *const *pool_data,
                        const vknn_operand *o) {
  put_uint(w, (uint32_t)o->type, 4);
  put_uint(w, (uint32_t)o->lifetime, 1);
  put_uint(w, o->dimension_count, 1);
  for (uint32_t d = 0; d < o->dimension_count; ++d) put_uint(w, o->dimensions[d], 2);
  put_f32(w, o->scale);
  put_uint(w, (uint32_t)o->zero_point, 4);
  put_uint(w, o->number_of_consumers, 2);
  bool channel = o->extra_params.kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  put_uint(w, channel, 1);
  if (channel) {
    put_uint(w, o->extra_params.channel_quant.channel_dim, 1);
    put_uint(w, o->extra_params.channel_quant.scale_count, 2);
    for (uint32_t c = 0; c < o->extra_params.channel_quant.scale_count; ++c)
      put_f32(w, o->extra_params.channel_quant.scales[c]);
  }
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY || o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE) {
    put_uint(w, o->location.length, 4);
    const uint8_t *base = o->lifetime == VKNN_LIFETIME_CONSTANT_COPY
                              ? model->operand_values
                              : pool_data[o->location.pool_index];
    put(w, base + o->location.offset, o->location.length);
  }
}

static void put_list(writer *w, const uint32_t *list, uint32_t n) {
  put_uint(w, n, 1);
  for (uint32_t i = 0; i < n; ++i) put_uint(w, list[i], 2);
}

static bool fits(const vknn_subgraph *sg) {
  for (uint32_t k = 0; k < sg->operation_count; ++k)
    if (sg->operations[k].input_count > FUZZ_MAX_OP_ARGS ||
        sg->operations[k].output_count > FUZZ_MAX_OP_ARGS)
      return false;
  return sg->operand_count <= FUZZ_MAX_OPERANDS && sg->operation_count <= FUZZ_MAX_OPERATIONS;
}

int fuzz_model_encode(const vknn_model *model, const uint8_t *const *pool_data,
                      const uint8_t *inputs, size_t input_size, uint8_t **out, size_t *out_size) {
  const vknn_subgraph *sg = &model->main;
  if (!fits(sg)) return -1;
  writer w = {.ok = true};
  put_uint(&w, model->relax_computation_float32_to_float16, 1);
  put_uint(&w, sg->operand_count, 1);
  for (uint32_t i = 0; i < sg->operand_count; ++i) put_operand(&w, model, pool_data, &sg->operands[i]);
  put_uint(&w, sg->operation_count, 1);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    put_uint(&w, (uint32_t)sg->operations[k].type, 4);
    put_list(&w, sg->operations[k].inputs, sg->operations[k].input_count);
    put_list(&w, sg->operations[k].outputs, sg->operations[k].output_count);
  }
  put_list(&w, sg->input_indexes, sg->input_count);
  put_list(&w, sg->output_indexes, sg->output_count);
  put(&w, inputs, input_size);
  *out = w.data;
  *out_size = w.size;
  return w.ok ? 0 : -1;
}
