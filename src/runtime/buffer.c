/* Driver-managed buffers (memory domains): allocation with role validation,
 * copy_from / copy_to, and the token table executions look them up in. The
 * value lives in mapped Vulkan memory (device-local where the device has
 * such memory); executions copy it like shared memory, under a read-write
 * lock, so concurrent readers never wait on each other. */
#include "runtime/buffer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "memory/memory_pool.h"
#include "model/operand_type.h"
#include "runtime/prepared_model_internal.h"
#include "util/fault_injection.h"

#define TAG "driver"

typedef struct buffer_role {
  uint64_t model_id; /* the prepared model's id: it may be released first */
  uint32_t io_index;
  bool output;
} buffer_role;

struct vknn_buffer {
  vknn_device *device;
  uint32_t token;
  uint32_t refs; /* the table's and each user's; under the table lock */
  pthread_rwlock_t lock;
  int32_t type;
  uint32_t declared_rank; /* the roles' and descriptor's dimensions combined */
  uint32_t declared_dims[VKNN_MAX_RANK];
  bool initialized;
  uint32_t rank;
  uint32_t dims[VKNN_MAX_RANK];
  uint64_t byte_size;
  vknn_vk_buffer storage;
  buffer_role *roles;
  uint32_t role_count;
};

#define FAIL(log, ...)                         \
  do {                                         \
    VKNN_LOG_E(log, TAG, __VA_ARGS__);         \
    return VKNN_STATUS_INVALID_ARGUMENT;       \
  } while (0)

/* ---- the token table ------------------------------------------------------ */

void vknn_buffer_table_init(vknn_buffer_table *table) {
  memset(table, 0, sizeof(*table));
  pthread_mutex_init(&table->lock, NULL);
  /* Tokens start at a random point so that one device's tokens are unlikely
   * to name buffers of another device in the same process. */
  if (getrandom(&table->next_token, sizeof(table->next_token), 0) != sizeof(table->next_token))
    table->next_token = 1;
  table->next_token = (table->next_token >> 1) | 1u;
}

static bool token_live(const vknn_buffer_table *table, uint32_t token) {
  for (uint32_t i = 0; i < table->count; ++i)
    if (table->items[i]->token == token) return true;
  return false;
}

/* The next token: positive as the HAL's int32 (1 to INT32_MAX, then 1
 * again), and none a live buffer holds. */
static uint32_t next_free_token(vknn_buffer_table *table) {
  for (;;) {
    uint32_t token = table->next_token;
    table->next_token = token >= INT32_MAX ? 1 : token + 1;
    if (token >= 1 && token <= INT32_MAX && !token_live(table, token)) return token;
  }
}

static void buffer_free(vknn_buffer *b) {
  vknn_vk_buffer_destroy(&b->device->vk, &b->storage);
  pthread_rwlock_destroy(&b->lock);
  free(b->roles);
  free(b);
}

void vknn_buffer_table_destroy(vknn_buffer_table *table) {
  for (uint32_t i = 0; i < table->count; ++i) buffer_free(table->items[i]);
  free(table->items);
  pthread_mutex_destroy(&table->lock);
}

static vknn_status table_add(vknn_buffer_table *table, vknn_buffer *b) {
  pthread_mutex_lock(&table->lock);
  vknn_status s = VKNN_STATUS_NONE;
  if (table->count == table->capacity) {
    uint32_t capacity = table->capacity ? table->capacity * 2 : 8;
    vknn_buffer **items = vknn_realloc(table->items, capacity * sizeof(*items));
    if (items == NULL) s = VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
    else {
      table->items = items;
      table->capacity = capacity;
    }
  }
  if (s == VKNN_STATUS_NONE) {
    b->token = next_free_token(table);
    b->refs = 1;
    table->items[table->count++] = b;
  }
  pthread_mutex_unlock(&table->lock);
  return s;
}

vknn_buffer *vknn_buffer_acquire(vknn_device *device, uint32_t token) {
  vknn_buffer_table *table = &device->buffers;
  vknn_buffer *found = NULL;
  pthread_mutex_lock(&table->lock);
  for (uint32_t i = 0; i < table->count && found == NULL && token != 0; ++i)
    if (table->items[i]->token == token) found = table->items[i];
  if (found != NULL) found->refs++;
  pthread_mutex_unlock(&table->lock);
  return found;
}

void vknn_buffer_unref(vknn_buffer *b) {
  if (b == NULL) return;
  vknn_buffer_table *table = &b->device->buffers;
  pthread_mutex_lock(&table->lock);
  bool last = --b->refs == 0;
  pthread_mutex_unlock(&table->lock);
  if (last) buffer_free(b);
}

void vknn_buffer_release(vknn_buffer *b) {
  if (b == NULL) return;
  vknn_buffer_table *table = &b->device->buffers;
  pthread_mutex_lock(&table->lock);
  for (uint32_t i = 0; i < table->count; ++i) {
    if (table->items[i] != b) continue;
    table->items[i] = table->items[--table->count];
    break;
  }
  pthread_mutex_unlock(&table->lock);
  vknn_buffer_unref(b);
}

/* ---- allocation ------------------------------------------------------------ */

/* Merges dimensions b into a (rank 0: unknown); false on a conflict. */
static bool combine_dims(uint32_t *rank, uint32_t *dims, uint32_t b_rank, const uint32_t *b_dims) {
  if (b_rank == 0) return true;
  if (*rank == 0) {
    *rank = b_rank;
    memcpy(dims, b_dims, b_rank * sizeof(uint32_t));
    return true;
  }
  if (*rank != b_rank) return false;
  for (uint32_t d = 0; d < b_rank; ++d) {
    if (dims[d] != 0 && b_dims[d] != 0 && dims[d] != b_dims[d]) return false;
    if (dims[d] == 0) dims[d] = b_dims[d];
  }
  return true;
}

typedef struct allocate_args {
  vknn_prepared_model *const *models;
  uint32_t model_count;
  const vknn_buffer_role *roles[2]; /* inputs, outputs */
  uint32_t role_counts[2];
} allocate_args;

static vknn_status check_models(vknn_device *device, const allocate_args *a) {
  if (a->model_count == 0 || a->models == NULL) FAIL(&device->log, "allocate: no prepared models");
  for (uint32_t i = 0; i < a->model_count; ++i) {
    if (a->models[i] == NULL) FAIL(&device->log, "allocate: prepared model %u is NULL", i);
    if (a->models[i]->device != device)
      FAIL(&device->log, "allocate: prepared model %u belongs to another device", i);
  }
  return VKNN_STATUS_NONE;
}

static vknn_status check_role(vknn_device *device, const allocate_args *a, int dir, uint32_t i) {
  const char *what = dir ? "output" : "input";
  const vknn_buffer_role *r = &a->roles[dir][i];
  if (r->model_index >= a->model_count)
    FAIL(&device->log, "allocate: %s role %u names model %u of %u", what, i, r->model_index,
         a->model_count);
  const vknn_prepared_model *pm = a->models[r->model_index];
  uint32_t io_count = dir ? pm->output_count : pm->input_count;
  if (r->io_index >= io_count)
    FAIL(&device->log, "allocate: %s role %u names %s %u of %u", what, i, what, r->io_index,
         io_count);
  if (!(r->frequency > 0.f && r->frequency <= 1.f))
    FAIL(&device->log, "allocate: %s role %u has frequency %g outside (0, 1]", what, i,
         (double)r->frequency);
  /* The same prepared model may be listed twice: roles are told apart by
   * the model itself, not its index in the list. */
  for (uint32_t j = 0; j < i; ++j)
    if (a->models[a->roles[dir][j].model_index] == pm && a->roles[dir][j].io_index == r->io_index)
      FAIL(&device->log, "allocate: %s role %u is given twice", what, i);
  return VKNN_STATUS_NONE;
}

static const vknn_io_decl *role_decl(const allocate_args *a, int dir, uint32_t i) {
  const vknn_buffer_role *r = &a->roles[dir][i];
  const vknn_prepared_model *pm = a->models[r->model_index];
  return dir ? &pm->outputs[r->io_index] : &pm->inputs[r->io_index];
}

/* Every role's operand agrees with the first on type, scale and zero point,
 * and all dimensions combine. */
static vknn_status check_operands(vknn_device *device, const allocate_args *a, vknn_buffer *b) {
  const vknn_io_decl *first = NULL;
  for (int dir = 0; dir < 2; ++dir) {
    for (uint32_t i = 0; i < a->role_counts[dir]; ++i) {
      const vknn_io_decl *d = role_decl(a, dir, i);
      if (first == NULL) first = d;
      if (d->type != first->type || d->scale != first->scale || d->zero_point != first->zero_point)
        FAIL(&device->log, "allocate: the roles' operands differ in type or quantization");
      if (!combine_dims(&b->declared_rank, b->declared_dims, d->declared_rank, d->declared_dims))
        FAIL(&device->log, "allocate: the roles' dimensions do not agree");
    }
  }
  b->type = first->type;
  return VKNN_STATUS_NONE;
}

static vknn_status check_allocate(vknn_device *device, const allocate_args *a, vknn_buffer *b) {
  if (a->role_counts[0] + a->role_counts[1] == 0) FAIL(&device->log, "allocate: no roles");
  for (int dir = 0; dir < 2; ++dir)
    if (a->role_counts[dir] > 0 && a->roles[dir] == NULL)
      FAIL(&device->log, "allocate: the %s role list is NULL", dir ? "output" : "input");
  vknn_status s = check_models(device, a);
  for (int dir = 0; dir < 2 && s == VKNN_STATUS_NONE; ++dir)
    for (uint32_t i = 0; i < a->role_counts[dir] && s == VKNN_STATUS_NONE; ++i)
      s = check_role(device, a, dir, i);
  return s == VKNN_STATUS_NONE ? check_operands(device, a, b) : s;
}

static vknn_status record_roles(vknn_buffer *b, const allocate_args *a) {
  b->role_count = a->role_counts[0] + a->role_counts[1];
  b->roles = vknn_calloc(b->role_count, sizeof(buffer_role));
  if (b->roles == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  uint32_t n = 0;
  for (int dir = 0; dir < 2; ++dir)
    for (uint32_t i = 0; i < a->role_counts[dir]; ++i)
      b->roles[n++] = (buffer_role){a->models[a->roles[dir][i].model_index]->id,
                                    a->roles[dir][i].io_index, dir == 1};
  return VKNN_STATUS_NONE;
}

vknn_status vknn_device_allocate(vknn_device *device, const uint32_t *desc_dimensions,
                                 uint32_t desc_rank, vknn_prepared_model *const *prepared_models,
                                 uint32_t model_count, const vknn_buffer_role *input_roles,
                                 uint32_t input_role_count, const vknn_buffer_role *output_roles,
                                 uint32_t output_role_count, vknn_buffer **out_buffer,
                                 uint32_t *out_token) {
  if (out_buffer != NULL) *out_buffer = NULL;
  if (out_token != NULL) *out_token = 0;
  if (device == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  if (out_buffer == NULL || out_token == NULL) FAIL(&device->log, "allocate: no place for the buffer or its token");
  if (desc_rank > VKNN_MAX_RANK || (desc_rank > 0 && desc_dimensions == NULL))
    FAIL(&device->log, "allocate: invalid descriptor dimensions");
  if (vknn_device_check_lost(device, "driver") != VKNN_STATUS_NONE)
    return VKNN_STATUS_DEVICE_UNAVAILABLE;
  vknn_buffer *b = vknn_calloc(1, sizeof(*b));
  if (b == NULL) return VKNN_STATUS_RESOURCE_EXHAUSTED_TRANSIENT;
  b->device = device;
  pthread_rwlock_init(&b->lock, NULL);
  b->declared_rank = desc_rank;
  if (desc_rank > 0) memcpy(b->declared_dims, desc_dimensions, desc_rank * sizeof(uint32_t));
  allocate_args a = {prepared_models, model_count, {input_roles, output_roles},
                     {input_role_count, output_role_count}};
  vknn_status s = check_allocate(device, &a, b);
  if (s == VKNN_STATUS_NONE && desc_rank > 0 && vknn_operand_type_is_scalar(b->type)) {
    VKNN_LOG_E(&device->log, TAG, "allocate: %u dimensions given for a scalar operand", desc_rank);
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  uint64_t fixed = vknn_operand_value_bytes(b->type, b->declared_dims, b->declared_rank);
  if (s == VKNN_STATUS_NONE && fixed > VKNN_MAX_TENSOR_BYTES) {
    VKNN_LOG_E(&device->log, TAG, "allocate: a value of more than 4 GiB");
    s = VKNN_STATUS_INVALID_ARGUMENT;
  }
  if (s == VKNN_STATUS_NONE) s = record_roles(b, &a);
  if (s == VKNN_STATUS_NONE && fixed > 0)
    s = vknn_vk_buffer_create(&device->vk, fixed, VKNN_BUFFER_MAPPED_DEVICE, &b->storage);
  if (s == VKNN_STATUS_NONE) s = table_add(&device->buffers, b);
  if (s != VKNN_STATUS_NONE) {
    buffer_free(b);
    return s;
  }
  *out_buffer = b;
  *out_token = b->token;
  return VKNN_STATUS_NONE;
}

/* ---- values ---------------------------------------------------------------- */

bool vknn_buffer_has_role(const vknn_buffer *b, const vknn_prepared_model *pm, uint32_t io_index,
                          bool output) {
  for (uint32_t i = 0; i < b->role_count; ++i)
    if (b->roles[i].model_id == pm->id && b->roles[i].io_index == io_index && b->roles[i].output == output)
      return true;
  return false;
}

void vknn_buffer_get_state(vknn_buffer *b, vknn_buffer_shape *out) {
  pthread_rwlock_rdlock(&b->lock);
  out->initialized = b->initialized;
  out->rank = b->initialized ? b->rank : b->declared_rank;
  memcpy(out->dims, b->initialized ? b->dims : b->declared_dims, sizeof(out->dims));
  out->byte_size = b->byte_size;
  out->fixed_size = vknn_operand_value_bytes(b->type, b->declared_dims, b->declared_rank);
  out->declared_rank = b->declared_rank;
  memcpy(out->declared_dims, b->declared_dims, sizeof(out->declared_dims));
  pthread_rwlock_unlock(&b->lock);
}

vknn_status vknn_buffer_read(vknn_buffer *b, void *dst, uint64_t size) {
  pthread_rwlock_rdlock(&b->lock);
  vknn_status s = VKNN_STATUS_NONE;
  if (!b->initialized) {
    VKNN_LOG_E(&b->device->log, "execution", "driver buffer %u was never written", b->token);
    s = VKNN_STATUS_GENERAL_FAILURE;
  } else if (b->byte_size != size) {
    VKNN_LOG_E(&b->device->log, "execution", "driver buffer %u changed size", b->token);
    s = VKNN_STATUS_GENERAL_FAILURE;
  } else {
    memcpy(dst, b->storage.mapped, size);
  }
  pthread_rwlock_unlock(&b->lock);
  return s;
}

/* Caller holds the write lock. Grows the storage when the value needs more. */
static vknn_status store(vknn_buffer *b, const void *src, uint64_t size, const uint32_t *dims,
                         uint32_t rank) {
  if (b->storage.size < size) {
    vknn_vk_buffer grown;
    vknn_status s = vknn_vk_buffer_create(&b->device->vk, size, VKNN_BUFFER_MAPPED_DEVICE, &grown);
    if (s != VKNN_STATUS_NONE) return s;
    vknn_vk_buffer_destroy(&b->device->vk, &b->storage);
    b->storage = grown;
  }
  memcpy(b->storage.mapped, src, size);
  b->rank = rank;
  memset(b->dims, 0, sizeof(b->dims));
  if (rank > 0) memcpy(b->dims, dims, rank * sizeof(uint32_t));
  b->byte_size = size;
  b->initialized = true;
  return VKNN_STATUS_NONE;
}

/* A value's shape must agree with the dimensions the buffer was allocated
 * with (HAL IDevice::allocate: the buffer may take outputs of different
 * shapes, within those dimensions). */
static bool shape_fits_declared(const vknn_buffer *b, const uint32_t *dims, uint32_t rank) {
  uint32_t combined_rank = b->declared_rank, combined[VKNN_MAX_RANK];
  memcpy(combined, b->declared_dims, sizeof(combined));
  return combine_dims(&combined_rank, combined, rank, dims) &&
         (b->declared_rank == 0 || rank == b->declared_rank);
}

vknn_status vknn_buffer_write(vknn_buffer *b, const void *src, uint64_t size,
                              const uint32_t *dims, uint32_t rank) {
  if (!shape_fits_declared(b, dims, rank)) {
    VKNN_LOG_E(&b->device->log, "execution",
               "an output's shape disagrees with the driver buffer's dimensions (token %u)", b->token);
    return VKNN_STATUS_GENERAL_FAILURE;
  }
  pthread_rwlock_wrlock(&b->lock);
  vknn_status s = store(b, src, size, dims, rank);
  pthread_rwlock_unlock(&b->lock);
  return s;
}

/* The shape copy_from gives the value: its dimensions over the declared
 * ones. Dimensions given are given in full (HAL IBuffer::copyFrom). */
static vknn_status copy_from_shape(const vknn_buffer *b, const uint32_t *dims, uint32_t rank,
                                   uint32_t *out_rank, uint32_t *out_dims) {
  const vknn_logger *log = &b->device->log;
  if (rank > VKNN_MAX_RANK || (rank > 0 && dims == NULL)) FAIL(log, "copy_from: invalid dimensions");
  for (uint32_t d = 0; d < rank; ++d)
    if (dims[d] == 0) FAIL(log, "copy_from: dimension %u is left unspecified", d);
  *out_rank = b->declared_rank;
  memcpy(out_dims, b->declared_dims, sizeof(b->declared_dims));
  if (!combine_dims(out_rank, out_dims, rank, dims))
    FAIL(log, "copy_from: dimensions do not agree with the buffer's");
  bool scalar = vknn_operand_type_is_scalar(b->type);
  uint64_t bytes = vknn_operand_value_bytes(b->type, out_dims, *out_rank);
  if (bytes == 0 || (scalar && rank > 0)) FAIL(log, "copy_from: the value's shape is not fully known");
  if (bytes > VKNN_MAX_TENSOR_BYTES) FAIL(log, "copy_from: a value of more than 4 GiB");
  return VKNN_STATUS_NONE;
}

void vknn_buffer_forget(vknn_buffer *b) {
  pthread_rwlock_wrlock(&b->lock);
  b->initialized = false;
  pthread_rwlock_unlock(&b->lock);
}

static vknn_status copy_from(vknn_buffer *b, const vknn_memory *memory, const uint32_t *dimensions,
                             uint32_t rank) {
  const vknn_logger *log = &b->device->log;
  uint32_t value_rank, value_dims[VKNN_MAX_RANK];
  if (memory == NULL) FAIL(log, "copy_from: no memory");
  vknn_status s = vknn_memory_validate(log, memory);
  if (s == VKNN_STATUS_NONE) s = copy_from_shape(b, dimensions, rank, &value_rank, value_dims);
  if (s != VKNN_STATUS_NONE) return s;
  uint64_t size = vknn_operand_value_bytes(b->type, value_dims, value_rank);
  if (memory->size != size) FAIL(log, "copy_from: memory of %llu bytes for a value of %llu",
                                 (unsigned long long)memory->size, (unsigned long long)size);
  vknn_mapped_pool pool;
  s = vknn_memory_map(log, memory, &pool);
  if (s != VKNN_STATUS_NONE) return s;
  s = vknn_buffer_write(b, pool.data, size, value_dims, value_rank);
  vknn_memory_unmap(&pool);
  return s;
}

/* A failed copy leaves the buffer unwritten (HAL IDevice::allocate). */
vknn_status vknn_buffer_copy_from(vknn_buffer *b, const vknn_memory *memory,
                                  const uint32_t *dimensions, uint32_t rank) {
  if (b == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_status s = vknn_device_check_lost(b->device, TAG);
  if (s == VKNN_STATUS_NONE) s = copy_from(b, memory, dimensions, rank);
  if (s != VKNN_STATUS_NONE) vknn_buffer_forget(b);
  return s;
}

vknn_status vknn_buffer_copy_to(vknn_buffer *b, const vknn_memory *memory) {
  if (b == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  const vknn_logger *log = &b->device->log;
  if (memory == NULL) FAIL(log, "copy_to: no memory");
  vknn_status s = vknn_device_check_lost(b->device, TAG);
  if (s == VKNN_STATUS_NONE) s = vknn_memory_validate(log, memory);
  if (s != VKNN_STATUS_NONE) return s;
  vknn_mapped_pool pool;
  s = vknn_memory_map(log, memory, &pool);
  if (s != VKNN_STATUS_NONE) return s;
  pthread_rwlock_rdlock(&b->lock);
  if (!b->initialized) {
    VKNN_LOG_E(log, TAG, "copy_to: driver buffer %u was never written", b->token);
    s = VKNN_STATUS_GENERAL_FAILURE;
  } else if (memory->size != b->byte_size) {
    VKNN_LOG_E(log, TAG, "copy_to: memory of %llu bytes for a value of %llu",
               (unsigned long long)memory->size, (unsigned long long)b->byte_size);
    s = VKNN_STATUS_INVALID_ARGUMENT;
  } else if (!pool.writable) {
    VKNN_LOG_E(log, TAG, "copy_to: the memory is read-only");
    s = VKNN_STATUS_INVALID_ARGUMENT;
  } else {
    memcpy(pool.data, b->storage.mapped, b->byte_size);
  }
  pthread_rwlock_unlock(&b->lock);
  vknn_memory_unmap(&pool);
  return s;
}

vknn_status vknn_buffer_get_shape(const vknn_buffer *b, vknn_output_shape *out) {
  if (b == NULL || out == NULL) return VKNN_STATUS_INVALID_ARGUMENT;
  vknn_buffer_shape state;
  vknn_buffer_get_state((vknn_buffer *)b, &state);
  memset(out, 0, sizeof(*out));
  out->rank = state.initialized ? state.rank : 0;
  memcpy(out->dimensions, state.dims, out->rank * sizeof(uint32_t));
  out->is_sufficient = true;
  return VKNN_STATUS_NONE;
}

bool vknn_buffer_is_written(const vknn_buffer *b) {
  if (b == NULL) return false;
  vknn_buffer_shape state;
  vknn_buffer_get_state((vknn_buffer *)b, &state);
  return state.initialized;
}
