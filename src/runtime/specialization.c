/* Execution-time specialization of a model whose shapes depend on its
 * inputs: what the request tells about each input (shape, omission, and the
 * value of inputs that can decide shapes) makes a key; the first execution
 * with a key compiles and records the model for it, later ones reuse the
 * recording. The least recently used recording leaves the cache when full. */
#include <stdlib.h>
#include <string.h>

#include "runtime/buffer.h"
#include "compiler/compiler.h"
#include "model/operand_type.h"
#include "runtime/prepared_model_internal.h"
#include "runtime/recorded_graph_pool.h"
#include "util/fault_injection.h"

#define TAG "execution"

/* Integer tensors this small, and scalars, can be parameters that decide a
 * shape (RESHAPE's shape, PAD's paddings, FILL's dims...): their values are
 * part of the key; so can a float32 tensor of one element (EXAMPLE_FIBONACCI's
 * n). Larger tensors are data. */
#define VALUE_KEY_MAX_ELEMENTS 64
#define VALUE_KEY_MAX_BYTES (VALUE_KEY_MAX_ELEMENTS * sizeof(int32_t))

/* Where the values of inputs in driver buffers are read to, one per input. */
typedef uint8_t value_copy[VALUE_KEY_MAX_BYTES];

static bool value_can_decide_shapes(int32_t type, const uint32_t *dims, uint32_t rank) {
  if (vknn_operand_type_is_scalar(type)) return true;
  if (type == VKNN_OPERAND_TENSOR_FLOAT32 && rank > 0)
    return vknn_shape_element_count(dims, rank) == 1;
  return type == VKNN_OPERAND_TENSOR_INT32 && rank > 0 &&
         vknn_shape_element_count(dims, rank) <= VALUE_KEY_MAX_ELEMENTS;
}

/* A value in a driver buffer is copied out (the buffer holds exactly it);
 * one in request memory is read where it lies. */
static vknn_status describe_input(const vknn_io_decl *decl, const vknn_request_argument *arg,
                                  const vknn_mapped_pool *pools, vknn_input_override *o,
                                  uint8_t *copy) {
  memset(o, 0, sizeof(*o));
  o->omitted = arg->has_no_value;
  if (o->omitted) return VKNN_STATUS_NONE;
  o->rank = arg->dimension_count ? arg->dimension_count : decl->declared_rank;
  memcpy(o->dims, arg->dimension_count ? arg->dimensions : decl->declared_dims,
         o->rank * sizeof(uint32_t));
  if (decl->value_is_data || !value_can_decide_shapes(decl->type, o->dims, o->rank))
    return VKNN_STATUS_NONE;
  const vknn_mapped_pool *pool = &pools[arg->location.pool_index];
  uint64_t bytes = vknn_operand_value_bytes(decl->type, o->dims, o->rank);
  if (pool->buffer != NULL && bytes <= VALUE_KEY_MAX_BYTES) {
    vknn_status s = vknn_buffer_read(pool->buffer, copy, bytes);
    if (s == VKNN_STATUS_NONE) o->value = copy;
    return s;
  }
  if (pool->data != NULL && bytes <= arg->location.length)
    o->value = pool->data + arg->location.offset;
  return VKNN_STATUS_NONE;
}

static uint64_t value_size(const vknn_io_decl *decl, const vknn_input_override *o) {
  return o->value == NULL ? 0 : vknn_operand_value_bytes(decl->type, o->dims, o->rank);
}

/* Key: per input, omitted flag, rank, dimensions and value bytes. */
static uint8_t *make_key(const vknn_prepared_model *pm, const vknn_input_override *o,
                         size_t *out_size) {
  size_t size = 0;
  for (uint32_t i = 0; i < pm->input_count; ++i)
    size += 2 + sizeof(o[i].dims) + value_size(&pm->inputs[i], &o[i]);
  uint8_t *key = vknn_malloc(size ? size : 1), *p = key;
  if (key == NULL) return NULL;
  for (uint32_t i = 0; i < pm->input_count; ++i) {
    *p++ = o[i].omitted;
    *p++ = (uint8_t)o[i].rank;
    memset(p, 0, sizeof(o[i].dims));
    memcpy(p, o[i].dims, o[i].rank * sizeof(uint32_t));
    p += sizeof(o[i].dims);
    uint64_t n = value_size(&pm->inputs[i], &o[i]);
    if (n > 0) memcpy(p, o[i].value, n);
    p += n;
  }
  *out_size = size;
  return key;
}

static vknn_specialization *find(vknn_prepared_model *pm, const uint8_t *key, size_t size) {
  for (uint32_t i = 0; i < pm->specialization_count; ++i) {
    vknn_specialization *sp = &pm->specializations[i];
    if (sp->key_size == size && memcmp(sp->key, key, size) == 0) return sp;
  }
  return NULL;
}

static void release_entry(vknn_prepared_model *pm, vknn_specialization *sp) {
  if (pm->last == sp->graph) pm->last = NULL;
  vknn_recorded_graph_unref(sp->graph); /* a running execution keeps its own reference */
  free(sp->key);
  memset(sp, 0, sizeof(*sp));
}

/* A free entry, evicting the least recently used one when full. */
static vknn_specialization *free_entry(vknn_prepared_model *pm) {
  if (pm->specialization_count < VKNN_SPECIALIZATION_CAPACITY)
    return &pm->specializations[pm->specialization_count++];
  vknn_specialization *oldest = &pm->specializations[0];
  for (uint32_t i = 1; i < pm->specialization_count; ++i)
    if (pm->specializations[i].last_use < oldest->last_use) oldest = &pm->specializations[i];
  release_entry(pm, oldest);
  return oldest;
}

static vknn_status specialize(vknn_prepared_model *pm, const vknn_input_override *overrides,
                              vknn_recorded_graph **out) {
  vknn_device *device = pm->device;
  vknn_plan plan;
  vknn_plan_target target = vknn_recorded_graph_target(device);
  target.op_sources = pm->model.op_sources;
  vknn_status s = vknn_compile(&device->log, &pm->model.model, overrides, &target, &plan);
  if (s != VKNN_STATUS_NONE) return s;
  s = vknn_recorded_graph_create(device, &plan, out);
  vknn_plan_release(&plan);
  return s;
}

vknn_status vknn_prepared_model_select_graph(vknn_prepared_model *pm, const vknn_request *request,
                                             const vknn_mapped_pool *pools,
                                             vknn_recorded_graph **out_graph) {
  if (!pm->deferred) {
    *out_graph = pm->recorded;
    return VKNN_STATUS_NONE;
  }
  uint32_t n = pm->input_count ? pm->input_count : 1;
  vknn_input_override *overrides = vknn_calloc(n, sizeof(*overrides));
  value_copy *copies = vknn_calloc(n, sizeof(*copies));
  vknn_status s = overrides && copies ? VKNN_STATUS_NONE : VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  for (uint32_t i = 0; i < pm->input_count && s == VKNN_STATUS_NONE; ++i)
    s = describe_input(&pm->inputs[i], &request->inputs[i], pools, &overrides[i], copies[i]);
  size_t key_size = 0;
  uint8_t *key = s == VKNN_STATUS_NONE ? make_key(pm, overrides, &key_size) : NULL;
  if (s == VKNN_STATUS_NONE && key == NULL) s = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  vknn_specialization *sp = s == VKNN_STATUS_NONE ? find(pm, key, key_size) : NULL;
  if (s == VKNN_STATUS_NONE && sp == NULL) {
    vknn_recorded_graph *graph = NULL;
    s = specialize(pm, overrides, &graph);
    if (s == VKNN_STATUS_NONE) {
      sp = free_entry(pm);
      *sp = (vknn_specialization){.key = key, .key_size = key_size, .graph = graph};
      key = NULL;
    }
  }
  if (sp != NULL) {
    sp->last_use = ++pm->use_clock;
    sp->last_use_ns = vknn_now_boottime_ns();
    *out_graph = sp->graph;
  }
  free(key);
  free(overrides);
  free(copies);
  return s;
}

void vknn_prepared_model_release_specializations(vknn_prepared_model *pm) {
  for (uint32_t i = 0; i < pm->specialization_count; ++i)
    release_entry(pm, &pm->specializations[i]);
  pm->specialization_count = 0;
}

uint32_t vknn_prepared_model_trim_specializations(vknn_prepared_model *pm, uint64_t now_ns,
                                                  uint64_t idle_ns) {
  uint32_t released = 0;
  for (uint32_t i = 0; i < pm->specialization_count;) {
    vknn_specialization *sp = &pm->specializations[i];
    if (sp->last_use == pm->use_clock || now_ns - sp->last_use_ns < idle_ns) {
      ++i;
      continue;
    }
    release_entry(pm, sp);
    *sp = pm->specializations[--pm->specialization_count];
    memset(&pm->specializations[pm->specialization_count], 0, sizeof(*sp));
    released++;
  }
  return released;
}
