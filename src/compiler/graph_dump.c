#include "compiler/graph_dump.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define TAG "compilation"

static const char *lifetime_name(vknn_operand_lifetime lifetime) {
  static const char *const names[] = {"temporary", "input",    "output",  "constant",
                                      "constant (pool)", "no value", "subgraph"};
  return (unsigned)lifetime < sizeof(names) / sizeof(names[0]) ? names[lifetime] : "?";
}

static const char *type_name(int32_t type) {
  const char *name = vknn_operand_type_name(type);
  return name != NULL ? name : "extension";
}

static const char *operation_name(int32_t type) {
  const char *name = vknn_operation_type_name(type);
  return name != NULL ? name : "extension";
}

static void print_dims(FILE *out, const uint32_t *dims, uint32_t rank) {
  fputc('[', out);
  for (uint32_t i = 0; i < rank; ++i) fprintf(out, i ? ",%u" : "%u", dims[i]);
  fputc(']', out);
}

static void dump_subgraph(FILE *out, const vknn_subgraph *sg, uint32_t s) {
  fprintf(out, "  subgraph cluster_s%u {\n    label=\"%s\";\n", s, s == 0 ? "main" : "referenced");
  for (uint32_t i = 0; i < sg->operand_count; ++i) {
    const vknn_operand *o = &sg->operands[i];
    fprintf(out, "    s%uo%u [shape=ellipse,label=\"#%u %s\\n", s, i, i, type_name(o->type));
    print_dims(out, o->dimensions, o->dimension_count);
    fprintf(out, " %s\"];\n", lifetime_name(o->lifetime));
  }
  for (uint32_t k = 0; k < sg->operation_count; ++k) {
    const vknn_operation *op = &sg->operations[k];
    fprintf(out, "    s%uop%u [shape=box,style=filled,fillcolor=lightblue,label=\"%u: %s\"];\n", s,
            k, k, operation_name(op->type));
    for (uint32_t i = 0; i < op->input_count; ++i)
      fprintf(out, "    s%uo%u -> s%uop%u [label=\"%u\"];\n", s, op->inputs[i], s, k, i);
    for (uint32_t i = 0; i < op->output_count; ++i)
      fprintf(out, "    s%uop%u -> s%uo%u;\n", s, k, s, op->outputs[i]);
  }
  fputs("  }\n", out);
}

void vknn_graph_dump_model(FILE *out, const vknn_model *model) {
  fputs("digraph model {\n  rankdir=TB;\n  node [fontname=\"monospace\",fontsize=10];\n", out);
  dump_subgraph(out, &model->main, 0);
  for (uint32_t s = 0; s < model->referenced_count; ++s)
    dump_subgraph(out, &model->referenced[s], s + 1);
  fputs("}\n", out);
}

/* The operation that dispatch d lowers, UINT32_MAX when unknown. */
static uint32_t dispatch_operation(const vknn_plan *plan, uint32_t d) {
  return plan->dispatches.items[d].operation;
}

/* What the fusion pass merged into operation k (graph.h's vknn_op_fusion). */
static void print_fusion(FILE *out, const vknn_graph *graph, uint32_t k) {
  const vknn_op_fusion *f = &graph->fusion[k];
  if (f->extra_activation >= 0) fprintf(out, "\\n+ activation %d", f->extra_activation);
  for (uint32_t i = 0; i < f->post_count; ++i)
    fprintf(out, "\\n+ unary code %u", f->post_codes[i]);
  if (f->input_override != UINT32_MAX)
    fprintf(out, "\\n+ PAD %u,%u,%u,%u", f->pad[0], f->pad[1], f->pad[2], f->pad[3]);
  if (f->residual != UINT32_MAX) fprintf(out, "\\n+ ADD of tensor %u", f->residual);
}

static void dump_dispatches(FILE *out, const vknn_plan *plan) {
  const vknn_graph *graph = &plan->graph;
  for (uint32_t d = 0; d < plan->dispatches.count; ++d) {
    const vknn_dispatch *dispatch = &plan->dispatches.items[d];
    fprintf(out, "  d%u [shape=box,style=filled,fillcolor=lightblue,label=\"dispatch %u: %s", d, d,
            vknn_embedded_shaders[dispatch->shader].name);
    uint32_t k = dispatch_operation(plan, d);
    if (k < graph->sg->operation_count) {
      fprintf(out, "\\nop %u %s", k, operation_name(graph->sg->operations[k].type));
      print_fusion(out, graph, k);
    }
    fprintf(out, "\\n%llu invocations\"];\n", (unsigned long long)dispatch->invocations);
    if (d > 0) fprintf(out, "  d%u -> d%u [style=bold,color=gray];\n", d - 1, d);
    for (uint32_t b = 0; b < dispatch->binding_count; ++b) {
      const vknn_binding *binding = &dispatch->bindings[b];
      if (binding->access & VKNN_ACCESS_READ) fprintf(out, "  t%u -> d%u;\n", binding->tensor, d);
      if (binding->access & VKNN_ACCESS_WRITE) fprintf(out, "  d%u -> t%u;\n", d, binding->tensor);
    }
  }
}

/* Operations that left no dispatch of their own, pointed at the one they joined. */
static void dump_fused_away(FILE *out, const vknn_plan *plan) {
  const vknn_graph *graph = &plan->graph;
  for (uint32_t k = 0; k < graph->sg->operation_count; ++k) {
    if (!graph->fusion[k].fused_away) continue;
    fprintf(out, "  f%u [shape=box,style=dashed,label=\"op %u %s\\nfused\"];\n", k, k,
            operation_name(graph->sg->operations[k].type));
    const vknn_operation *op = &graph->sg->operations[k];
    for (uint32_t j = 0; j < graph->sg->operation_count; ++j) {
      const vknn_op_fusion *f = &graph->fusion[j];
      bool into = (f->output_override != UINT32_MAX && f->output_override == op->outputs[0]) ||
                  (f->input_override != UINT32_MAX && f->input_override == op->inputs[0]);
      if (j != k && into) fprintf(out, "  f%u -> op_%u [style=dashed];\n", k, j);
    }
  }
}

static bool tensor_bound(const vknn_plan *plan, uint32_t t) {
  for (uint32_t d = 0; d < plan->dispatches.count; ++d)
    for (uint32_t b = 0; b < plan->dispatches.items[d].binding_count; ++b)
      if (plan->dispatches.items[d].bindings[b].tensor == t) return true;
  return false;
}

static const char *region_name(vknn_region region) {
  static const char *const names[] = {"none", "constants", "arena", "inputs", "outputs", "pool"};
  return (unsigned)region < VKNN_REGION_COUNT ? names[region] : "?";
}

static void dump_tensor(FILE *out, const vknn_graph *graph, uint32_t t) {
  const vknn_tensor *tensor = &graph->tensors[t];
  fprintf(out, "    t%u [shape=ellipse,label=\"t%u %s", t, t, type_name(tensor->type));
  print_dims(out, tensor->dims, tensor->rank);
  fprintf(out, "\\n@%llu +%llu bytes", (unsigned long long)tensor->offset,
          (unsigned long long)tensor->byte_size);
  if (tensor->alias_of != UINT32_MAX) fprintf(out, "\\nview of t%u", tensor->alias_of);
  if (tensor->first_dispatch >= 0)
    fprintf(out, "\\nlives d%d..d%d", tensor->first_dispatch, tensor->last_dispatch);
  fputs("\"];\n", out);
}

/* One cluster per memory region, its size in the label. */
static void dump_regions(FILE *out, const vknn_plan *plan) {
  const vknn_graph *graph = &plan->graph;
  for (uint32_t r = 0; r < VKNN_REGION_COUNT; ++r) {
    fprintf(out, "  subgraph cluster_r%u {\n    label=\"%s", r, region_name(r));
    if (r != VKNN_REGION_POOL && r != VKNN_REGION_NONE)
      fprintf(out, " (%llu bytes)", (unsigned long long)plan->region_size[r]);
    fputs("\";\n", out);
    for (uint32_t t = 0; t < graph->tensor_count; ++t)
      if (graph->tensors[t].region == r && tensor_bound(plan, t)) dump_tensor(out, graph, t);
    fputs("  }\n", out);
  }
}

/* Anchors for fused operations' edges: the first dispatch of each operation. */
static void dump_operation_anchors(FILE *out, const vknn_plan *plan) {
  for (uint32_t d = 0; d < plan->dispatches.count; ++d) {
    uint32_t k = dispatch_operation(plan, d);
    if (k != UINT32_MAX && (d == 0 || dispatch_operation(plan, d - 1) != k))
      fprintf(out, "  op_%u [shape=point];\n  op_%u -> d%u [style=dotted];\n", k, k, d);
  }
}

void vknn_graph_dump_plan(FILE *out, const vknn_plan *plan) {
  fputs("digraph plan {\n  rankdir=TB;\n  node [fontname=\"monospace\",fontsize=10];\n", out);
  if (plan->deferred) {
    fputs("  deferred [shape=note,label=\"shapes depend on the execution:\\n"
          "compiled per execution\"];\n}\n", out);
    return;
  }
  dump_regions(out, plan);
  dump_dispatches(out, plan);
  dump_operation_anchors(out, plan);
  dump_fused_away(out, plan);
  fputs("}\n", out);
}

/* Opens dir/<kind>-N.dot; exclusive (a new N) for the model file. */
static FILE *open_dump(const char *dir, const char *kind, uint32_t n, bool exclusive) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s-%u.dot", dir, kind, n);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC), 0644);
  if (fd < 0) return NULL;
  FILE *file = fdopen(fd, "w");
  if (file == NULL) close(fd);
  return file;
}

static bool write_dump(FILE *file, const vknn_model *model, const vknn_plan *plan) {
  if (plan != NULL) vknn_graph_dump_plan(file, plan);
  else vknn_graph_dump_model(file, model);
  bool failed = ferror(file) != 0;
  return fclose(file) == 0 && !failed;
}

void vknn_graph_dump_files(const vknn_logger *log, const char *dir, const vknn_model *model,
                           const vknn_plan *plan) {
  FILE *file = NULL;
  uint32_t n = 0;
  for (; n < 100000 && file == NULL; ++n) {
    file = open_dump(dir, "model", n, true);
    if (file == NULL && errno != EEXIST) break;
  }
  if (file == NULL || !write_dump(file, model, NULL)) {
    VKNN_LOG_E(log, TAG, "VKNN_GRAPH_DUMP: cannot write a model file in %s: %s", dir,
               strerror(errno));
    return;
  }
  --n;
  if (plan == NULL) return;
  file = open_dump(dir, "plan", n, false);
  if (file == NULL || !write_dump(file, model, plan))
    VKNN_LOG_E(log, TAG, "VKNN_GRAPH_DUMP: cannot write %s/plan-%u.dot: %s", dir, n,
               strerror(errno));
}
