#include "cts_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cts_values.h"

/* Every allocation of a case, freed together. */
struct cts_arena {
  void **blocks;
  size_t count, capacity;
};

/* Takes ownership of p (freed with the arena); returns p, or NULL (p freed). */
static void *arena_adopt(cts_arena *arena, void *p) {
  if (p == NULL) return NULL;
  if (arena->count == arena->capacity) {
    size_t capacity = arena->capacity ? arena->capacity * 2 : 64;
    void **blocks = realloc(arena->blocks, capacity * sizeof(void *));
    if (blocks == NULL) {
      free(p);
      return NULL;
    }
    arena->blocks = blocks;
    arena->capacity = capacity;
  }
  arena->blocks[arena->count++] = p;
  return p;
}

static void *arena_alloc(cts_arena *arena, size_t count, size_t size) {
  return arena_adopt(arena, calloc(count ? count : 1, size ? size : 1));
}

static void arena_free(cts_arena *arena) {
  if (arena == NULL) return;
  for (size_t i = 0; i < arena->count; ++i) free(arena->blocks[i]);
  free(arena->blocks);
  free(arena);
}

int32_t cts_operand_type_from_name(const char *name) {
  for (int32_t t = VKNN_OPERAND_FLOAT32; t <= VKNN_OPERAND_SUBGRAPH; ++t)
    if (strcmp(vknn_operand_type_name(t), name) == 0) return t;
  return -1;
}

int32_t cts_operation_type_from_name(const char *name) {
#define CTS_MATCH_(n, value) \
  if (strcmp(name, #n) == 0) return value;
  VKNN_OPERATION_LIST(CTS_MATCH_)
#undef CTS_MATCH_
  return -1;
}

static int32_t lifetime_from_name(const char *name) {
  static const char *const names[] = {"TEMPORARY_VARIABLE", "SUBGRAPH_INPUT", "SUBGRAPH_OUTPUT",
                                      "CONSTANT_COPY",      "CONSTANT_REFERENCE", "NO_VALUE",
                                      "SUBGRAPH"};
  for (int32_t i = 0; i < 7; ++i)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

static const char *str_field(const cJSON *obj, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(item) ? item->valuestring : "";
}

static double num_field(const cJSON *obj, const char *key) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(item) ? item->valuedouble : 0.0;
}

static bool bool_field(const cJSON *obj, const char *key) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static uint32_t *index_array(cts_arena *arena, const cJSON *array, uint32_t *out_count) {
  *out_count = (uint32_t)cJSON_GetArraySize(array);
  uint32_t *values = arena_alloc(arena, *out_count, sizeof(uint32_t));
  const cJSON *item;
  uint32_t i = 0;
  if (values != NULL) cJSON_ArrayForEach(item, array) values[i++] = (uint32_t)item->valuedouble;
  return values;
}

/* Byte buffers being laid out: operandValues, the constant pool, the inputs. */
typedef struct byte_builder {
  uint8_t *data;
  size_t size, capacity;
} byte_builder;

static size_t builder_append(byte_builder *b, size_t size) {
  size_t offset = (b->size + 7) & ~(size_t)7;
  if (offset + size > b->capacity) {
    size_t capacity = (offset + size) * 2 + 64;
    uint8_t *data = realloc(b->data, capacity);
    if (data == NULL) return SIZE_MAX;
    memset(data + b->capacity, 0, capacity - b->capacity);
    b->data = data;
    b->capacity = capacity;
  }
  b->size = offset + size;
  return offset;
}

typedef struct builder {
  cts_arena *arena;
  cts_case *c;
  byte_builder values, references;
  const char *error;
} builder;

static size_t value_bytes(int32_t type, const cJSON *data) {
  return cts_element_size(type) * (size_t)cJSON_GetArraySize(data);
}

/* ---- extensions (tests/data/README.md) ----------------------------------- */

/* The extension operand types whose values the runner can write and read. */
static const struct {
  const char *extension;
  uint16_t code;
  int32_t value_type;
} extension_values[] = {
    {"com.example.fibonacci", 0, CTS_TYPE_INT64}, /* EXAMPLE_INT64 */
    {"com.example.fibonacci", 1, CTS_TYPE_INT64}, /* EXAMPLE_TENSOR_QUANT64_ASYMM */
};

int32_t cts_value_type(const vknn_model *model, int32_t type) {
  uint32_t prefix = VKNN_EXTENSION_PREFIX(type);
  if (prefix == 0) return type;
  for (uint32_t i = 0; i < model->extension_name_to_prefix_count; ++i) {
    const vknn_extension_prefix *e = &model->extension_name_to_prefix[i];
    if (e->prefix != prefix) continue;
    for (size_t v = 0; v < sizeof(extension_values) / sizeof(extension_values[0]); ++v)
      if (strcmp(extension_values[v].extension, e->name) == 0 &&
          extension_values[v].code == VKNN_EXTENSION_CODE(type))
        return extension_values[v].value_type;
  }
  return type;
}

/* "extensionNameToPrefix": [{"name": ..., "prefix": ...}, ...]. */
static int load_extension_names(builder *b, const cJSON *list) {
  vknn_model *m = &b->c->model;
  m->extension_name_to_prefix_count = (uint32_t)cJSON_GetArraySize(list);
  vknn_extension_prefix *names = arena_alloc(b->arena, m->extension_name_to_prefix_count,
                                             sizeof(vknn_extension_prefix));
  if (names == NULL) return -1;
  uint32_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, list) {
    names[i].name = str_field(item, "name");
    names[i++].prefix = (uint16_t)num_field(item, "prefix");
  }
  m->extension_name_to_prefix = names;
  return 0;
}

/* A type given by name (the HAL's) or as a number (an extension's). */
static int32_t type_field(const cJSON *obj, bool operation) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "type");
  if (cJSON_IsNumber(item)) return (int32_t)item->valuedouble;
  const char *name = cJSON_IsString(item) ? item->valuestring : "";
  return operation ? cts_operation_type_from_name(name) : cts_operand_type_from_name(name);
}

/* "extensionData": the bytes of the operand's extraParams.extension. */
static int load_extension_data(builder *b, vknn_operand *o, const cJSON *bytes) {
  size_t count = (size_t)cJSON_GetArraySize(bytes);
  uint8_t *data = arena_alloc(b->arena, count, 1);
  if (data == NULL) return -1;
  size_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, bytes) data[i++] = (uint8_t)item->valuedouble;
  o->extra_params.kind = VKNN_EXTRA_PARAMS_EXTENSION;
  o->extra_params.extension.data = data;
  o->extra_params.extension.size = count;
  return 0;
}

static int load_constant(builder *b, vknn_operand *o, const cJSON *data) {
  byte_builder *target = o->lifetime == VKNN_LIFETIME_CONSTANT_COPY ? &b->values : &b->references;
  int32_t type = cts_value_type(&b->c->model, o->type);
  size_t size = value_bytes(type, data);
  size_t offset = builder_append(target, size);
  if (offset == SIZE_MAX) return -1;
  cts_encode_values(type, data, target->data + offset);
  o->location = (vknn_data_location){0, (uint32_t)offset, (uint32_t)size};
  return 0;
}

static int load_channel_quant(builder *b, vknn_operand *o, const cJSON *quant) {
  const cJSON *scales = cJSON_GetObjectItemCaseSensitive(quant, "scales");
  uint32_t count = (uint32_t)cJSON_GetArraySize(scales);
  float *values = arena_alloc(b->arena, count, sizeof(float));
  if (values == NULL) return -1;
  uint32_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, scales) values[i++] = (float)item->valuedouble;
  o->extra_params.kind = VKNN_EXTRA_PARAMS_CHANNEL_QUANT;
  o->extra_params.channel_quant.scales = values;
  o->extra_params.channel_quant.scale_count = count;
  o->extra_params.channel_quant.channel_dim = (uint32_t)num_field(quant, "channelDim");
  return 0;
}

static int load_operand(builder *b, const cJSON *json, vknn_operand *o) {
  o->type = type_field(json, false);
  int32_t lifetime = lifetime_from_name(str_field(json, "lifetime"));
  if (o->type == -1 || lifetime < 0) {
    b->error = "unknown operand type or lifetime";
    return -1;
  }
  o->lifetime = (vknn_operand_lifetime)lifetime;
  o->dimensions = index_array(b->arena, cJSON_GetObjectItemCaseSensitive(json, "dimensions"),
                              &o->dimension_count);
  o->scale = (float)num_field(json, "scale");
  o->zero_point = (int32_t)num_field(json, "zeroPoint");
  o->number_of_consumers = (uint32_t)num_field(json, "numberOfConsumers");
  if (o->type == VKNN_OPERAND_TENSOR_FLOAT16) b->c->has_float16 = true;
  const cJSON *quant = cJSON_GetObjectItemCaseSensitive(json, "channelQuant");
  if (cJSON_IsObject(quant) && load_channel_quant(b, o, quant) != 0) return -1;
  const cJSON *extension_data = cJSON_GetObjectItemCaseSensitive(json, "extensionData");
  if (cJSON_IsArray(extension_data) && load_extension_data(b, o, extension_data) != 0) return -1;
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(json, "data");
  if (o->lifetime == VKNN_LIFETIME_CONSTANT_COPY || o->lifetime == VKNN_LIFETIME_CONSTANT_REFERENCE)
    return load_constant(b, o, data);
  if (o->lifetime == VKNN_LIFETIME_SUBGRAPH)
    o->location.offset = (uint32_t)cJSON_GetArrayItem(data, 0)->valuedouble;
  return 0;
}

static int load_subgraph(builder *b, const cJSON *json, vknn_subgraph *sg) {
  const cJSON *operands = cJSON_GetObjectItemCaseSensitive(json, "operands");
  const cJSON *operations = cJSON_GetObjectItemCaseSensitive(json, "operations");
  sg->operand_count = (uint32_t)cJSON_GetArraySize(operands);
  sg->operation_count = (uint32_t)cJSON_GetArraySize(operations);
  vknn_operand *ops = arena_alloc(b->arena, sg->operand_count, sizeof(vknn_operand));
  vknn_operation *operations_out = arena_alloc(b->arena, sg->operation_count, sizeof(vknn_operation));
  if (ops == NULL || operations_out == NULL) return -1;
  uint32_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, operands) if (load_operand(b, item, &ops[i++]) != 0) return -1;
  i = 0;
  cJSON_ArrayForEach(item, operations) {
    vknn_operation *op = &operations_out[i++];
    op->type = type_field(item, true);
    op->inputs = index_array(b->arena, cJSON_GetObjectItemCaseSensitive(item, "inputs"), &op->input_count);
    op->outputs = index_array(b->arena, cJSON_GetObjectItemCaseSensitive(item, "outputs"), &op->output_count);
  }
  sg->operands = ops;
  sg->operations = operations_out;
  sg->input_indexes = index_array(b->arena, cJSON_GetObjectItemCaseSensitive(json, "inputIndexes"),
                                  &sg->input_count);
  sg->output_indexes = index_array(b->arena, cJSON_GetObjectItemCaseSensitive(json, "outputIndexes"),
                                   &sg->output_count);
  return 0;
}

static const cJSON *operand_json(const cJSON *subgraph, uint32_t index) {
  return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(subgraph, "operands"), (int)index);
}

/* Inputs go to one pool; an input with no data is omitted (hasNoValue). */
static int load_inputs(builder *b, const cJSON *main_json) {
  cts_case *c = b->c;
  const vknn_subgraph *sg = &c->model.main;
  byte_builder bytes = {0};
  c->input_count = sg->input_count;
  c->inputs = arena_alloc(b->arena, sg->input_count, sizeof(vknn_request_argument));
  if (c->inputs == NULL) return -1;
  for (uint32_t i = 0; i < sg->input_count; ++i) {
    const vknn_operand *o = &sg->operands[sg->input_indexes[i]];
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(operand_json(main_json, sg->input_indexes[i]), "data");
    if (!cJSON_IsArray(data) || cJSON_GetArraySize(data) == 0) {
      c->inputs[i].has_no_value = true;
      continue;
    }
    int32_t type = cts_value_type(&c->model, o->type);
    size_t size = value_bytes(type, data);
    size_t offset = builder_append(&bytes, size);
    if (offset == SIZE_MAX) return -1;
    cts_encode_values(type, data, bytes.data + offset);
    c->inputs[i].location = (vknn_data_location){0, (uint32_t)offset, (uint32_t)size};
    c->inputs[i].dimension_count = o->dimension_count;
    c->inputs[i].dimensions = o->dimensions;
  }
  int rc = shared_memory_create(&c->input_pool, bytes.size);
  if (rc == 0 && bytes.size) memcpy(c->input_pool.data, bytes.data, bytes.size);
  free(bytes.data);
  return rc;
}

static int load_expected(builder *b, const cJSON *json, const vknn_operand *o, cts_expected *e) {
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(json, "data");
  e->type = cts_value_type(&b->c->model, o->type);
  e->rank = o->dimension_count < VKNN_MAX_RANK ? o->dimension_count : VKNN_MAX_RANK;
  memcpy(e->dims, o->dimensions, e->rank * sizeof(uint32_t));
  e->ignored = bool_field(json, "isIgnored");
  e->count = (size_t)cJSON_GetArraySize(data);
  e->values = arena_alloc(b->arena, e->count, sizeof(double));
  e->is_nan = arena_alloc(b->arena, e->count, 1);
  if (e->values == NULL || e->is_nan == NULL) return -1;
  size_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, data) {
    e->is_nan[i] = cJSON_IsString(item) && strcmp(item->valuestring, "nan") == 0;
    e->values[i++] = cts_json_number(item);
  }
  return 0;
}

/* Every output gets room for exactly its expected value. */
static int load_outputs(builder *b, const cJSON *main_json) {
  cts_case *c = b->c;
  const vknn_subgraph *sg = &c->model.main;
  c->output_count = sg->output_count;
  c->outputs = arena_alloc(b->arena, sg->output_count, sizeof(vknn_request_argument));
  c->expected = arena_alloc(b->arena, sg->output_count, sizeof(cts_expected));
  if (c->outputs == NULL || c->expected == NULL) return -1;
  byte_builder layout = {0};
  for (uint32_t i = 0; i < sg->output_count; ++i) {
    const vknn_operand *o = &sg->operands[sg->output_indexes[i]];
    const cJSON *json = operand_json(main_json, sg->output_indexes[i]);
    if (load_expected(b, json, o, &c->expected[i]) != 0) return -1;
    size_t size = value_bytes(c->expected[i].type, cJSON_GetObjectItemCaseSensitive(json, "data"));
    size_t offset = builder_append(&layout, size);
    if (offset == SIZE_MAX) return -1;
    c->outputs[i].location = (vknn_data_location){1, (uint32_t)offset, (uint32_t)size};
  }
  int rc = shared_memory_create(&c->output_pool, layout.size);
  free(layout.data);
  return rc;
}

static int finish_pools(builder *b) {
  cts_case *c = b->c;
  c->model.operand_values = arena_adopt(b->arena, b->values.data);
  c->model.operand_values_size = c->model.operand_values ? b->values.size : 0;
  int rc = 0;
  if (b->references.size > 0) {
    rc = shared_memory_create(&c->constant_pool, b->references.size);
    if (rc == 0) memcpy(c->constant_pool.data, b->references.data, b->references.size);
    c->model.pools = &c->constant_pool.memory;
    c->model.pool_count = 1;
  }
  free(b->references.data);
  if (rc != 0) return rc;
  c->request_pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = c->input_pool.memory};
  c->request_pools[1] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = c->output_pool.memory};
  c->request = (vknn_request){c->inputs, c->input_count, c->outputs, c->output_count, c->request_pools, 2};
  return 0;
}

static int load_referenced(builder *b, const cJSON *referenced) {
  cts_case *c = b->c;
  c->model.referenced_count = (uint32_t)cJSON_GetArraySize(referenced);
  vknn_subgraph *subgraphs = arena_alloc(b->arena, c->model.referenced_count, sizeof(vknn_subgraph));
  if (subgraphs == NULL) return -1;
  uint32_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, referenced) if (load_subgraph(b, item, &subgraphs[i++]) != 0) return -1;
  c->model.referenced = subgraphs;
  return 0;
}

int cts_case_load(const cJSON *test, cts_case *out, const char **error) {
  memset(out, 0, sizeof(*out));
  out->constant_pool.fd = out->input_pool.fd = out->output_pool.fd = -1;
  out->arena = calloc(1, sizeof(cts_arena));
  builder b = {.arena = out->arena, .c = out, .error = "out of memory"};
  if (out->arena == NULL) return *error = b.error, -1;
  out->name = str_field(test, "name");
  out->expect_failure = bool_field(test, "expectFailure");
  out->relaxed = bool_field(test, "isRelaxed");
  out->multinomial_tolerance = num_field(test, "expectedMultinomialDistributionTolerance");
  out->model.relax_computation_float32_to_float16 = out->relaxed;
  const cJSON *main_json = cJSON_GetObjectItemCaseSensitive(test, "main");
  int rc = load_extension_names(&b, cJSON_GetObjectItemCaseSensitive(test, "extensionNameToPrefix"));
  if (rc == 0) rc = load_subgraph(&b, main_json, &out->model.main);
  if (rc == 0) rc = load_referenced(&b, cJSON_GetObjectItemCaseSensitive(test, "referenced"));
  if (rc == 0) rc = load_inputs(&b, main_json);
  if (rc == 0) rc = load_outputs(&b, main_json);
  if (rc == 0) rc = finish_pools(&b);
  else free(b.values.data), free(b.references.data);
  if (rc != 0) {
    *error = b.error;
    cts_case_free(out);
  }
  return rc;
}

void cts_case_reset_outputs(cts_case *c) {
  /* A pattern no expected value is likely to equal. */
  memset(c->output_pool.data, 0xa5, c->output_pool.size);
}

void cts_case_free(cts_case *c) {
  shared_memory_destroy(&c->constant_pool);
  shared_memory_destroy(&c->input_pool);
  shared_memory_destroy(&c->output_pool);
  arena_free(c->arena);
  c->arena = NULL;
}

static void mask_subgraph(const cJSON *subgraph, uint64_t mask[2]) {
  const cJSON *op;
  cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(subgraph, "operations")) {
    int32_t type = cts_operation_type_from_name(str_field(op, "type"));
    if (type >= 0 && type < 128) mask[type / 64] |= 1ull << (type % 64);
  }
}

void cts_case_operation_mask(const cJSON *test, uint64_t mask[2]) {
  mask[0] = mask[1] = 0;
  mask_subgraph(cJSON_GetObjectItemCaseSensitive(test, "main"), mask);
  const cJSON *sg;
  cJSON_ArrayForEach(sg, cJSON_GetObjectItemCaseSensitive(test, "referenced")) mask_subgraph(sg, mask);
}

int cts_case_make_outputs_dynamic(cts_case *c) {
  vknn_operand *operands = (vknn_operand *)c->model.main.operands; /* owned by the case */
  for (uint32_t i = 0; i < c->model.main.output_count; ++i) {
    vknn_operand *o = &operands[c->model.main.output_indexes[i]];
    uint32_t *zeros = arena_alloc(c->arena, o->dimension_count, sizeof(uint32_t));
    if (zeros == NULL) return -1;
    o->dimensions = zeros;
  }
  return 0;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text != NULL) text[size] = '\0';
  fclose(f);
  return text;
}

cJSON *cts_parse_file(const char *path) {
  char *text = read_text(path);
  cJSON *json = text ? cJSON_Parse(text) : NULL;
  free(text);
  return json;
}

size_t cts_element_size(int32_t type) {
  switch (type) {
    case CTS_TYPE_INT64: return 8;
    case VKNN_OPERAND_FLOAT32: case VKNN_OPERAND_INT32: case VKNN_OPERAND_UINT32:
    case VKNN_OPERAND_TENSOR_FLOAT32: case VKNN_OPERAND_TENSOR_INT32: return 4;
    case VKNN_OPERAND_FLOAT16: case VKNN_OPERAND_TENSOR_FLOAT16:
    case VKNN_OPERAND_TENSOR_QUANT16_SYMM: case VKNN_OPERAND_TENSOR_QUANT16_ASYMM: return 2;
    case VKNN_OPERAND_SUBGRAPH: return 0;
    default: return 1;
  }
}
