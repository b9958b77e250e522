/* The kernel verb's recurrent cells (bench_kernel_lstm.c): one LSTM step and
 * a 1000-step UNIDIRECTIONAL_SEQUENCE_LSTM. */
#pragma once
#include <stdbool.h>

/* Whether NAME is one of them (lstm_step, lstm_seq). */
bool bench_kernel_lstm_known(const char *name);
/* The kernel verb for one of them: argv[1] its name, then the options
 * [--iterations N] [--json FILE]. */
int bench_kernel_lstm_main(int argc, char **argv);
