/* nnapi-mobilenet: an NNAPI client written only against the NDK header
 * <android/NeuralNetworks.h>. It reads a float model from a conformance JSON
 * file (by default the MobileNet v1 of ../shared/nnapi-cts), builds it with
 * ANeuralNetworksModel_*, weights in one shared memory as an app maps them
 * from its assets, compiles it for the first NNAPI device, runs it once and
 * checks the output against the file's expected values (the conformance
 * criterion for float32: |a - e| <= 1e-5 + 5 ulp * |e|).
 *
 *   nnapi-mobilenet FILE.json
 *
 * Exit status: 0 when the output matches, 1 when it does not, 2 on an error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <android/NeuralNetworks.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                     \
  do {                                                                  \
    int check_result_ = (call);                                         \
    if (check_result_ != ANEURALNETWORKS_NO_ERROR) {                    \
      fprintf(stderr, "nnapi-mobilenet: %s returned %d\n", #call, check_result_); \
      exit(2);                                                          \
    }                                                                   \
  } while (0)

static void fail(const char *what) {
  fprintf(stderr, "nnapi-mobilenet: %s\n", what);
  exit(2);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) fail("cannot open the model file");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text == NULL || fread(text, 1, (size_t)size, f) != (size_t)size) fail("cannot read the model file");
  text[size] = '\0';
  fclose(f);
  return text;
}

static int32_t operand_code(const char *name) {
  static const struct { const char *name; int32_t code; } codes[] = {
      {"FLOAT32", ANEURALNETWORKS_FLOAT32}, {"INT32", ANEURALNETWORKS_INT32},
      {"UINT32", ANEURALNETWORKS_UINT32}, {"TENSOR_FLOAT32", ANEURALNETWORKS_TENSOR_FLOAT32},
      {"TENSOR_INT32", ANEURALNETWORKS_TENSOR_INT32}};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i)
    if (strcmp(codes[i].name, name) == 0) return codes[i].code;
  fail("the model has an operand type this example does not read (float32 and int32 only)");
  return -1;
}

static int32_t operation_code(const char *name) {
  static const struct { const char *name; int32_t code; } codes[] = {
      {"ADD", ANEURALNETWORKS_ADD}, {"AVERAGE_POOL_2D", ANEURALNETWORKS_AVERAGE_POOL_2D},
      {"CONCATENATION", ANEURALNETWORKS_CONCATENATION}, {"CONV_2D", ANEURALNETWORKS_CONV_2D},
      {"DEPTHWISE_CONV_2D", ANEURALNETWORKS_DEPTHWISE_CONV_2D}, {"FULLY_CONNECTED", ANEURALNETWORKS_FULLY_CONNECTED},
      {"LOGISTIC", ANEURALNETWORKS_LOGISTIC}, {"MAX_POOL_2D", ANEURALNETWORKS_MAX_POOL_2D},
      {"RELU", ANEURALNETWORKS_RELU}, {"RELU6", ANEURALNETWORKS_RELU6}, {"RESHAPE", ANEURALNETWORKS_RESHAPE},
      {"SOFTMAX", ANEURALNETWORKS_SOFTMAX}};
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i)
    if (strcmp(codes[i].name, name) == 0) return codes[i].code;
  fail("the model has an operation this example does not know");
  return -1;
}

/* One operand's dimensions and element count. */
typedef struct shape {
  uint32_t rank;
  uint32_t dims[8];
  size_t count;
} shape;

static shape shape_of(const cJSON *operand) {
  shape s = {0, {0}, 1};
  const cJSON *d;
  cJSON_ArrayForEach(d, cJSON_GetObjectItem(operand, "dimensions")) {
    if (s.rank == 8) fail("rank above 8");
    s.dims[s.rank++] = (uint32_t)d->valueint;
    s.count *= (size_t)d->valueint;
  }
  return s;
}

/* Writes the operand's "data" as its type's bytes (4 bytes an element). */
static void encode(const cJSON *operand, int32_t type, uint8_t *out) {
  size_t i = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, cJSON_GetObjectItem(operand, "data")) {
    if (type == ANEURALNETWORKS_FLOAT32 || type == ANEURALNETWORKS_TENSOR_FLOAT32) {
      float f = (float)v->valuedouble;
      memcpy(out + 4 * i, &f, 4);
    } else {
      int32_t n = (int32_t)v->valuedouble;
      memcpy(out + 4 * i, &n, 4);
    }
    i++;
  }
}

typedef struct loaded {
  ANeuralNetworksModel *model;
  ANeuralNetworksMemory *weights;
  uint8_t *weight_bytes;
  size_t weight_size;
  int weight_fd;
} loaded;

/* Every constant of CONSTANT_REFERENCE lifetime goes into one shared memory. */
static void map_weights(const cJSON *operands, loaded *l) {
  const cJSON *o;
  l->weight_size = 0;
  cJSON_ArrayForEach(o, operands)
    if (strcmp(cJSON_GetObjectItem(o, "lifetime")->valuestring, "CONSTANT_REFERENCE") == 0)
      l->weight_size += (shape_of(o).count * 4 + 63) & ~(size_t)63;
  if (l->weight_size == 0) return;
  l->weight_fd = memfd_create("weights", MFD_CLOEXEC);
  if (l->weight_fd < 0 || ftruncate(l->weight_fd, (off_t)l->weight_size) != 0) fail("no shared memory");
  l->weight_bytes = mmap(NULL, l->weight_size, PROT_READ | PROT_WRITE, MAP_SHARED, l->weight_fd, 0);
  if (l->weight_bytes == MAP_FAILED) fail("cannot map the shared memory");
  CHECK(ANeuralNetworksMemory_createFromFd(l->weight_size, PROT_READ, l->weight_fd, 0, &l->weights));
}

static void add_operands(const cJSON *operands, loaded *l) {
  const cJSON *o;
  int32_t index = 0;
  size_t offset = 0;
  cJSON_ArrayForEach(o, operands) {
    int32_t type = operand_code(cJSON_GetObjectItem(o, "type")->valuestring);
    shape s = shape_of(o);
    /* NNAPI: dimensions only for a rank above 0. */
    ANeuralNetworksOperandType t = {type, s.rank, s.rank ? s.dims : NULL,
                                    (float)cJSON_GetObjectItem(o, "scale")->valuedouble,
                                    cJSON_GetObjectItem(o, "zeroPoint")->valueint};
    CHECK(ANeuralNetworksModel_addOperand(l->model, &t));
    const char *lifetime = cJSON_GetObjectItem(o, "lifetime")->valuestring;
    if (strcmp(lifetime, "CONSTANT_COPY") == 0) {
      uint8_t value[4 * 64];
      if (s.count > 64) fail("a copied constant above 64 elements");
      encode(o, type, value);
      CHECK(ANeuralNetworksModel_setOperandValue(l->model, index, value, s.count * 4));
    } else if (strcmp(lifetime, "CONSTANT_REFERENCE") == 0) {
      encode(o, type, l->weight_bytes + offset);
      CHECK(ANeuralNetworksModel_setOperandValueFromMemory(l->model, index, l->weights, offset, s.count * 4));
      offset += (s.count * 4 + 63) & ~(size_t)63;
    }
    index++;
  }
}

static uint32_t *index_list(const cJSON *array, uint32_t *count) {
  *count = (uint32_t)cJSON_GetArraySize(array);
  uint32_t *list = calloc(*count + 1, sizeof(uint32_t));
  const cJSON *v;
  uint32_t i = 0;
  cJSON_ArrayForEach(v, array) list[i++] = (uint32_t)v->valueint;
  return list;
}

static void add_operations(const cJSON *operations, ANeuralNetworksModel *model) {
  const cJSON *op;
  cJSON_ArrayForEach(op, operations) {
    uint32_t in_count, out_count;
    uint32_t *in = index_list(cJSON_GetObjectItem(op, "inputs"), &in_count);
    uint32_t *out = index_list(cJSON_GetObjectItem(op, "outputs"), &out_count);
    CHECK(ANeuralNetworksModel_addOperation(model, operation_code(cJSON_GetObjectItem(op, "type")->valuestring),
                                            in_count, in, out_count, out));
    free(in);
    free(out);
  }
}

static void build(const cJSON *main, loaded *l) {
  const cJSON *operands = cJSON_GetObjectItem(main, "operands");
  CHECK(ANeuralNetworksModel_create(&l->model));
  map_weights(operands, l);
  add_operands(operands, l);
  add_operations(cJSON_GetObjectItem(main, "operations"), l->model);
  uint32_t in_count, out_count;
  uint32_t *in = index_list(cJSON_GetObjectItem(main, "inputIndexes"), &in_count);
  uint32_t *out = index_list(cJSON_GetObjectItem(main, "outputIndexes"), &out_count);
  CHECK(ANeuralNetworksModel_identifyInputsAndOutputs(l->model, in_count, in, out_count, out));
  CHECK(ANeuralNetworksModel_finish(l->model));
  free(in);
  free(out);
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs the model on the file's input values; returns the mismatches. */
static size_t run_and_check(const cJSON *main, ANeuralNetworksCompilation *compilation) {
  const cJSON *operands = cJSON_GetObjectItem(main, "operands");
  const cJSON *in = cJSON_GetArrayItem(operands, cJSON_GetArrayItem(cJSON_GetObjectItem(main, "inputIndexes"), 0)->valueint);
  const cJSON *out = cJSON_GetArrayItem(operands, cJSON_GetArrayItem(cJSON_GetObjectItem(main, "outputIndexes"), 0)->valueint);
  size_t in_count = shape_of(in).count, out_count = shape_of(out).count, bad = 0;
  float *input = calloc(in_count, 4), *output = calloc(out_count, 4), *expected = calloc(out_count, 4);
  encode(in, ANEURALNETWORKS_TENSOR_FLOAT32, (uint8_t *)input);
  encode(out, ANEURALNETWORKS_TENSOR_FLOAT32, (uint8_t *)expected);
  ANeuralNetworksExecution *execution = NULL;
  CHECK(ANeuralNetworksExecution_create(compilation, &execution));
  CHECK(ANeuralNetworksExecution_setInput(execution, 0, NULL, input, in_count * 4));
  CHECK(ANeuralNetworksExecution_setOutput(execution, 0, NULL, output, out_count * 4));
  double start = seconds();
  CHECK(ANeuralNetworksExecution_compute(execution));
  printf("executed in %.1f ms\n", 1e3 * (seconds() - start));
  for (size_t i = 0; i < out_count; ++i) {
    double tolerance = 1e-5 + 5 * 1.1920928955078125e-7 * fabs(expected[i]);
    if (!(fabs((double)output[i] - expected[i]) <= tolerance)) bad++;
    printf("output[%zu] = %.6f (expected %.6f)\n", i, (double)output[i], (double)expected[i]);
  }
  ANeuralNetworksExecution_free(execution);
  free(input);
  free(output);
  free(expected);
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: nnapi-mobilenet FILE.json\n");
    return 2;
  }
  char *text = read_file(argv[1]);
  cJSON *root = cJSON_Parse(text);
  const cJSON *main = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tests"), 0), "main");
  if (main == NULL) fail("not a conformance JSON file");
  ANeuralNetworksDevice *device = NULL;
  const char *name = NULL, *version = NULL;
  CHECK(ANeuralNetworks_getDevice(0, &device));
  CHECK(ANeuralNetworksDevice_getName(device, &name));
  CHECK(ANeuralNetworksDevice_getVersion(device, &version));
  printf("device: %s (%s)\n", name, version);
  loaded l = {.weight_fd = -1};
  build(main, &l);
  ANeuralNetworksCompilation *compilation = NULL;
  double start = seconds();
  CHECK(ANeuralNetworksCompilation_createForDevices(l.model, (const ANeuralNetworksDevice *const *)&device, 1, &compilation));
  CHECK(ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED));
  CHECK(ANeuralNetworksCompilation_finish(compilation));
  printf("compiled in %.1f ms\n", 1e3 * (seconds() - start));
  size_t bad = run_and_check(main, compilation);
  printf("%s: %zu mismatches\n", bad ? "FAILED" : "PASSED", bad);
  ANeuralNetworksCompilation_free(compilation);
  ANeuralNetworksModel_free(l.model);
  ANeuralNetworksMemory_free(l.weights);
  if (l.weight_bytes != NULL) munmap(l.weight_bytes, l.weight_size);
  if (l.weight_fd >= 0) close(l.weight_fd);
  cJSON_Delete(root);
  free(text);
  return bad ? 1 : 0;
}
