#include "model/model_serialize.h"

#include <stdlib.h>
#include <string.h>

#include "memory/memory_pool.h"
#include "util/fault_injection.h"
#include "util/little_endian.h"

#define TAG "compilation"

static const uint8_t MAGIC[8] = {'V', 'K', 'N', 'N', 'M', 'O', 'D', 'L'};
#define FORMAT_VERSION 1u
/* Limits that keep a hostile length from asking for absurd allocations
 * before the bytes behind it are checked. */
#define MAX_NAME_BYTES 4096u

/* ---- writing ------------------------------------------------------------- */

typedef struct writer {
  uint8_t *bytes;
  size_t size;
  size_t capacity;
  bool ok;
} writer;

static void put(writer *w, const void *data, size_t n) {
  if (!w->ok || n == 0) return;
  if (w->size + n > w->capacity) {
    size_t capacity = w->capacity ? w->capacity : 4096;
    while (capacity < w->size + n) capacity *= 2;
    uint8_t *grown = vknn_realloc(w->bytes, capacity);
    if (grown == NULL) {
      w->ok = false;
      return;
    }
    w->bytes = grown;
    w->capacity = capacity;
  }
  memcpy(w->bytes + w->size, data, n);
  w->size += n;
}

/* Integers are written little-endian whatever the host (util/little_endian.h). */
static void put_u32(writer *w, uint32_t v) {
  uint8_t b[4];
  vknn_le32_put(b, v);
  put(w, b, sizeof(b));
}

static void put_u64(writer *w, uint64_t v) {
  put_u32(w, (uint32_t)v);
  put_u32(w, (uint32_t)(v >> 32));
}

static void put_f32(writer *w, float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  put_u32(w, bits);
}

static void put_u32_array(writer *w, const uint32_t *values, uint32_t count) {
  put_u32(w, count);
  for (uint32_t i = 0; i < count; ++i) put_u32(w, values[i]);
}

/* The model's constants, laid out as one operand_values block: CONSTANT_COPY
 * bytes where they are, then every CONSTANT_REFERENCE value appended. */
typedef struct constants {
  vknn_mapped_pool *pools;
  uint32_t pool_count;
  uint64_t appended; /* bytes after operand_values so far */
} constants;

static vknn_status map_pools(const vknn_logger *log, const vknn_model *model, constants *c) {
  c->pools = vknn_calloc(model->pool_count ? model->pool_count : 1, sizeof(*c->pools));
  if (c->pools == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (; c->pool_count < model->pool_count; ++c->pool_count) {
    vknn_status s = vknn_memory_map(log, &model->pools[c->pool_count], &c->pools[c->pool_count]);
    if (s != VKNN_STATUS_NONE) return s;
  }
  return VKNN_STATUS_NONE;
}

static void unmap_pools(constants *c) {
  for (uint32_t i = 0; i < c->pool_count; ++i) vknn_memory_unmap(&c->pools[i]);
  free(c->pools);
}

static uint64_t align8(uint64_t v) { return (v + 7) & ~(uint64_t)7; }

static void put_location(writer *w, const vknn_model *model, const vknn_operand *o,
                         constants *c) {
  vknn_data_location l = o->location;
  uint32_t lifetime = o->lifetime;
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE) {
    uint64_t offset = align8(model->operand_values_size) + c->appended;
    if (offset > UINT32_MAX) w->ok = false; /* beyond what a location can say */
    l = (vknn_data_location){.pool_index = 0, .offset = (uint32_t)offset, .length = l.length};
    lifetime = VKNN_LIFETIME_CONSTANT_COPY;
    c->appended += align8(l.length);
  }
  put_u32(w, lifetime);
  put_u32(w, l.pool_index);
  put_u32(w, l.offset);
  put_u32(w, l.length);
}

static void put_extra_params(writer *w, const vknn_operand_extra_params *x) {
  put_u32(w, x->kind);
  if (x->kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT) {
    put_u32(w, x->channel_quant.channel_dim);
    put_u32(w, x->channel_quant.scale_count);
    for (uint32_t i = 0; i < x->channel_quant.scale_count; ++i)
      put_f32(w, x->channel_quant.scales[i]);
  } else if (x->kind == VKNN_EXTRA_PARAMS_EXTENSION) {
    if (x->extension.size > UINT32_MAX) w->ok = false;
    put_u32(w, (uint32_t)x->extension.size);
    put(w, x->extension.data, x->extension.size);
  }
}

static void put_subgraph(writer *w, const vknn_model *model, const vknn_subgraph *sg,
                         constants *c) {
  put_u32(w, sg->operand_count);
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    const vknn_operand *o = &sg->operands[i];
    put_u32(w, (uint32_t)o->type);
    put_u32_array(w, o->dimensions, o->dimension_count);
    put_u32(w, o->number_of_consumers);
    put_f32(w, o->scale);
    put_u32(w, (uint32_t)o->zero_point);
    put_location(w, model, o, c);
    put_extra_params(w, &o->extra_params);
  }
  put_u32(w, sg->operation_count);
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    put_u32(w, (uint32_t)op->type);
    put_u32_array(w, op->inputs, op->input_count);
    put_u32_array(w, op->outputs, op->output_count);
  }
  put_u32_array(w, sg->input_indexes, sg->input_count);
  put_u32_array(w, sg->output_indexes, sg->output_count);
}

/* The CONSTANT_REFERENCE values, in the order put_location numbered them. */
static void put_referenced_values(writer *w, const vknn_subgraph *sg, const constants *c) {
  static const uint8_t zeros[8];
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    const vknn_operand *o = &sg->operands[i];
    if (o->lifetime != VKNN_LIFETIME_CONSTANT_REFERENCE) continue;
    const vknn_data_location *l = &o->location;
    if (l->pool_index >= c->pool_count ||
        (uint64_t)l->offset + l->length > c->pools[l->pool_index].size) {
      w->ok = false; /* not a valid model: callers validate first */
      return;
    }
    put(w, c->pools[l->pool_index].data + l->offset, l->length);
    put(w, zeros, align8(o->location.length) - o->location.length);
  }
}

static void put_values(writer *w, const vknn_model *model, const constants *c) {
  static const uint8_t zeros[8];
  put_u64(w, align8(model->operand_values_size) + c->appended);
  put(w, model->operand_values, model->operand_values_size);
  put(w, zeros, align8(model->operand_values_size) - model->operand_values_size);
  put_referenced_values(w, &model->main, c);
  for (uint32_t r = 0; r < model->referenced_count; ++r)
    put_referenced_values(w, &model->referenced[r], c);
}

vknn_status vknn_model_serialize(const vknn_logger *log, const vknn_model *model,
                                 uint8_t **out_bytes, size_t *out_size) {
  *out_bytes = NULL;
  *out_size = 0;
  constants c = {0};
  vknn_status s = map_pools(log, model, &c);
  writer w = {.ok = true};
  if (s == VKNN_STATUS_NONE) {
    put(&w, MAGIC, sizeof(MAGIC));
    put_u32(&w, FORMAT_VERSION);
    put_u32(&w, model->relax_computation_float32_to_float16 ? 1 : 0);
    put_u32(&w, model->extension_name_to_prefix_count);
    for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i) {
      const vknn_extension_prefix *e = &model->extension_name_to_prefix[i];
      size_t length = strlen(e->name);
      if (length > MAX_NAME_BYTES) w.ok = false;
      put_u32(&w, e->prefix);
      put_u32(&w, (uint32_t)length);
      put(&w, e->name, length);
    }
    put_u32(&w, model->referenced_count);
    put_subgraph(&w, model, &model->main, &c);
    for (uint32_t r = 0; r < model->referenced_count; ++r)
      put_subgraph(&w, model, &model->referenced[r], &c);
    put_values(&w, model, &c);
    if (!w.ok) s = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  }
  unmap_pools(&c);
  if (s != VKNN_STATUS_NONE) {
    free(w.bytes);
    VKNN_LOG_E(log, TAG, "cannot serialize the model for the cache (%s)", vknn_status_name(s));
    return s;
  }
  *out_bytes = w.bytes;
  *out_size = w.size;
  return VKNN_STATUS_NONE;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
  const uint8_t *p;
  size_t left;
  bool ok;
  const char *error; /* the first thing found wrong */
  vknn_model_owned *owned;
} reader;

static void fail(reader *r, const char *error) {
  if (r->ok) r->error = error;
  r->ok = false;
}

static const uint8_t *take(reader *r, size_t n) {
  if (!r->ok) return NULL;
  if (r->left < n) {
    fail(r, "truncated");
    return NULL;
  }
  const uint8_t *p = r->p;
  r->p += n;
  r->left -= n;
  return p;
}

static uint32_t get_u32(reader *r) {
  const uint8_t *b = take(r, 4);
  return b == NULL ? 0 : vknn_le32_get(b);
}

static uint64_t get_u64(reader *r) {
  uint64_t low = get_u32(r);
  return low | (uint64_t)get_u32(r) << 32;
}

static float get_f32(reader *r) {
  uint32_t bits = get_u32(r);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

/* A zeroed block of count elements owned by the result; NULL for count 0.
 * Each element stands for at least min_bytes of input, so a count the
 * remaining bytes cannot hold fails before anything is allocated. */
static void *own(reader *r, uint64_t count, size_t element_size, size_t min_bytes) {
  if (!r->ok || count == 0) return NULL;
  if (min_bytes > 0 && count > r->left / min_bytes) {
    fail(r, "a count larger than the bytes left");
    return NULL;
  }
  vknn_model_owned *o = r->owned;
  void **blocks = vknn_realloc(o->blocks, (o->block_count + 1) * sizeof(void *));
  void *p = blocks != NULL ? vknn_calloc(count, element_size) : NULL;
  if (blocks != NULL) o->blocks = blocks;
  if (p == NULL) {
    fail(r, "out of memory");
    return NULL;
  }
  o->blocks[o->block_count++] = p;
  return p;
}

static const uint32_t *get_u32_array(reader *r, uint32_t *out_count) {
  uint32_t count = get_u32(r);
  uint32_t *values = own(r, count, sizeof(uint32_t), 4);
  for (uint32_t i = 0; r->ok && i < count; ++i) values[i] = get_u32(r);
  *out_count = r->ok ? count : 0;
  return values;
}

static void get_extra_params(reader *r, vknn_operand_extra_params *x) {
  uint32_t kind = get_u32(r);
  x->kind = (vknn_extra_params_kind)kind;
  if (kind == VKNN_EXTRA_PARAMS_CHANNEL_QUANT) {
    x->channel_quant.channel_dim = get_u32(r);
    uint32_t count = get_u32(r);
    float *scales = own(r, count, sizeof(float), 4);
    for (uint32_t i = 0; r->ok && i < count; ++i) scales[i] = get_f32(r);
    x->channel_quant.scales = scales;
    x->channel_quant.scale_count = r->ok ? count : 0;
  } else if (kind == VKNN_EXTRA_PARAMS_EXTENSION) {
    uint32_t size = get_u32(r);
    uint8_t *data = own(r, size, 1, 1);
    const uint8_t *src = take(r, size);
    if (src != NULL && data != NULL) memcpy(data, src, size);
    x->extension.data = data;
    x->extension.size = r->ok ? size : 0;
  } else if (kind != VKNN_EXTRA_PARAMS_NONE) {
    fail(r, "an unknown kind of extra parameters");
  }
}

/* Fields of at least this many bytes make up one operand and one operation. */
#define OPERAND_MIN_BYTES 40u
#define OPERATION_MIN_BYTES 12u

static void get_operand(reader *r, vknn_operand *o) {
  o->type = (int32_t)get_u32(r);
  o->dimensions = get_u32_array(r, &o->dimension_count);
  o->number_of_consumers = get_u32(r);
  o->scale = get_f32(r);
  o->zero_point = (int32_t)get_u32(r);
  o->lifetime = (vknn_operand_lifetime)get_u32(r);
  o->location.pool_index = get_u32(r);
  o->location.offset = get_u32(r);
  o->location.length = get_u32(r);
  get_extra_params(r, &o->extra_params);
}

static void get_subgraph(reader *r, vknn_subgraph *sg) {
  uint32_t operand_count = get_u32(r);
  vknn_operand *operands = own(r, operand_count, sizeof(vknn_operand), OPERAND_MIN_BYTES);
  for (uint32_t i = 0; r->ok && i < operand_count; ++i) get_operand(r, &operands[i]);
  sg->operands = operands;
  sg->operand_count = r->ok ? operand_count : 0;
  uint32_t operation_count = get_u32(r);
  vknn_operation *ops = own(r, operation_count, sizeof(vknn_operation), OPERATION_MIN_BYTES);
  for (uint32_t k = 0; r->ok && k < operation_count; ++k) {
    ops[k].type = (int32_t)get_u32(r);
    ops[k].inputs = get_u32_array(r, &ops[k].input_count);
    ops[k].outputs = get_u32_array(r, &ops[k].output_count);
  }
  sg->operations = ops;
  sg->operation_count = r->ok ? operation_count : 0;
  sg->input_indexes = get_u32_array(r, &sg->input_count);
  sg->output_indexes = get_u32_array(r, &sg->output_count);
}

static void get_extension_names(reader *r, vknn_model *m) {
  uint32_t count = get_u32(r);
  vknn_extension_prefix *prefixes = own(r, count, sizeof(*prefixes), 8);
  for (uint32_t i = 0; r->ok && i < count; ++i) {
    uint32_t prefix = get_u32(r);
    uint32_t length = get_u32(r);
    if (prefix > UINT16_MAX) fail(r, "an extension prefix above 16 bits");
    if (length > MAX_NAME_BYTES) fail(r, "an extension name too long");
    char *name = own(r, (uint64_t)length + 1, 1, 0);
    const uint8_t *src = take(r, length);
    if (!r->ok) break;
    memcpy(name, src, length);
    prefixes[i] = (vknn_extension_prefix){.name = name, .prefix = (uint16_t)prefix};
  }
  m->extension_name_to_prefix = prefixes;
  m->extension_name_to_prefix_count = r->ok ? count : 0;
}

static void get_header(reader *r, vknn_model *m) {
  const uint8_t *magic = take(r, sizeof(MAGIC));
  if (magic != NULL && memcmp(magic, MAGIC, sizeof(MAGIC)) != 0) fail(r, "not a vknn model");
  if (r->ok && get_u32(r) != FORMAT_VERSION) fail(r, "another format version");
  uint32_t relaxed = get_u32(r);
  if (relaxed > 1) fail(r, "a relaxed flag other than 0 or 1");
  m->relax_computation_float32_to_float16 = relaxed == 1;
}

static void get_values(reader *r, vknn_model *m) {
  uint64_t size = get_u64(r);
  if (size > r->left) fail(r, "constant values beyond the end");
  uint8_t *values = own(r, size, 1, 1);
  const uint8_t *src = take(r, (size_t)size);
  if (src != NULL && values != NULL) memcpy(values, src, (size_t)size);
  m->operand_values = values;
  m->operand_values_size = r->ok ? (size_t)size : 0;
}

vknn_status vknn_model_deserialize(const vknn_logger *log, const uint8_t *bytes, size_t size,
                                   vknn_model_owned *out) {
  memset(out, 0, sizeof(*out));
  reader r = {.p = bytes, .left = size, .ok = true, .owned = out};
  vknn_model *m = &out->model;
  get_header(&r, m);
  get_extension_names(&r, m);
  uint32_t referenced_count = get_u32(&r);
  get_subgraph(&r, &m->main);
  vknn_subgraph *referenced = own(&r, referenced_count, sizeof(vknn_subgraph), 16);
  for (uint32_t i = 0; r.ok && i < referenced_count; ++i) get_subgraph(&r, &referenced[i]);
  m->referenced = referenced;
  m->referenced_count = r.ok ? referenced_count : 0;
  get_values(&r, m);
  if (r.ok && r.left != 0) fail(&r, "bytes after the end");
  if (r.ok) return VKNN_STATUS_NONE;
  bool no_memory = strcmp(r.error, "out of memory") == 0;
  VKNN_LOG_E(log, TAG, "the cached model is malformed: %s", r.error);
  vknn_model_owned_free(out);
  return no_memory ? VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT : VKNN_STATUS_INVALID_ARGUMENT;
}

void vknn_model_owned_free(vknn_model_owned *owned) {
  for (uint32_t i = 0; i < owned->block_count; ++i) free(owned->blocks[i]);
  free(owned->blocks);
  memset(owned, 0, sizeof(*owned));
}
