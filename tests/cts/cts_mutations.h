/* The NN HAL's model mutations (cts_mutations.c): each turns a valid model
 * into an invalid one, or keeps the model and puts the preference or the
 * priority out of range. The validation mode requires INVALID_ARGUMENT for
 * every one of them. */
#pragma once
#include "vknn/vknn.h"

/* A model being mutated: its own copies of every array a mutation edits. */
typedef struct cts_mutant {
  vknn_model model;
  int32_t preference;
  int32_t priority;
  vknn_operand *operands; /* room for the operands mutations add */
  vknn_operation *operations; /* room for one more */
  uint32_t *inputs, *outputs; /* model inputs and outputs, room for two more each */
  void **blocks; /* everything above, freed together */
  uint32_t block_count;
  bool failed; /* out of memory while building */
} cts_mutant;

/* Called with each mutant and a line naming the mutation; returns false to
 * stop the walk. */
typedef bool (*cts_mutant_visitor)(void *context, const cts_mutant *mutant, const char *what);

/* Applies every mutation to a copy of model, one at a time. Returns false
 * when a visitor stopped the walk or memory ran out. */
bool cts_for_each_model_mutation(const vknn_model *model, cts_mutant_visitor visit, void *context);
