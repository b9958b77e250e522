/* libFuzzer target: model bytes and input values -> prepare, then an
 * execution with the inputs filled from the bytes after the model. */
#include <stdlib.h>
#include <string.h>

#include "cts_case.h"
#include "fuzz_device.h"
#include "fuzz_model_bytes.h"

#define MAX_REQUEST_BYTES (4u << 20) /* larger models are valid, just slow to fuzz */


/* Bytes of an operand as the model declares it; 0 when not fully known. */
static uint64_t declared_bytes(const vknn_operand *o) {
  uint64_t bytes = cts_element_size(o->type);
  for (uint32_t d = 0; d < o->dimension_count; ++d) bytes *= o->dimensions[d];
  return bytes > MAX_REQUEST_BYTES ? 0 : bytes;
}

typedef struct request_memory {
  shared_memory pool;
  vknn_request_argument args[2 * FUZZ_MAX_OPERANDS];
  vknn_request_pool pools[1];
  vknn_request request;
} request_memory;

/* One pool: inputs (filled from the fuzz bytes, repeated), then outputs. */
static bool build_request(const fuzz_model *m, request_memory *r) {
  const vknn_subgraph *sg = &m->model.main;
  uint32_t count = sg->input_count + sg->output_count;
  uint64_t offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t operand = i < sg->input_count ? sg->input_indexes[i]
                                            : sg->output_indexes[i - sg->input_count];
    if (operand >= sg->operand_count) return false;
    uint64_t bytes = declared_bytes(&sg->operands[operand]);
    if (bytes == 0 || offset + bytes > MAX_REQUEST_BYTES) return false;
    r->args[i] = (vknn_request_argument){.location = {0, (uint32_t)offset, (uint32_t)bytes}};
    offset += (bytes + 15) & ~15ull;
  }
  if (shared_memory_create(&r->pool, offset) != 0) return false;
  for (uint64_t b = 0; m->input_size > 0 && b < offset; ++b)
    r->pool.data[b] = m->input_bytes[b % m->input_size];
  r->pools[0] = (vknn_request_pool){.kind = VKNN_REQUEST_POOL_MEMORY, .memory = r->pool.memory};
  r->request = (vknn_request){r->args, sg->input_count, r->args + sg->input_count,
                              sg->output_count, r->pools, 1};
  return true;
}

static void execute(const fuzz_model *m, vknn_prepared_model *pm) {
  request_memory *r = calloc(1, sizeof(*r));
  if (r == NULL) return;
  r->pool.fd = -1;
  if (build_request(m, r)) {
    vknn_output_shape shapes[FUZZ_MAX_OPERANDS];
    vknn_timing timing;
    vknn_prepared_model_execute(pm, &r->request, VKNN_MEASURE_TIMING_YES, NULL, NULL, shapes,
                                FUZZ_MAX_OPERANDS, &timing);
  }
  if (r->pool.data != NULL) shared_memory_destroy(&r->pool);
  free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_model *m = malloc(sizeof(*m));
  if (m == NULL) return 0;
  vknn_prepared_model *pm = NULL;
  if (fuzz_model_decode(data, size, m) == 0 &&
      vknn_device_prepare_model(fuzz_device(), &m->model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                VKNN_PRIORITY_MEDIUM, NULL, &pm) == VKNN_STATUS_NONE) {
    execute(m, pm);
    vknn_prepared_model_release(pm);
  }
  fuzz_model_free(m);
  free(m);
  return 0;
}
