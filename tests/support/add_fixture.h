/* The fixture of the execution tests: a device (validation layer on, errors
 * captured), the ADD model of test_model.h prepared, and its request. */
#pragma once
#include "support/test_model.h"

typedef struct add_fixture {
  vknn_device *device;
  test_log log;
  test_model model;
  vknn_prepared_model *pm;
  test_request r;
  uint32_t request_dims[2][VKNN_MAX_RANK]; /* room for request dimensions */
  vknn_output_shape shapes[1];
  vknn_timing timing;
} add_fixture;

/* cmocka setup: edit (may be NULL) changes the model before prepare. */
int add_fixture_setup(void **state, void (*edit)(test_model *model));
/* The same on a device opened with options (its log fields and validation
 * are the fixture's). */
int add_fixture_setup_with(void **state, void (*edit)(test_model *model), vknn_device_options options);
/* cmocka teardown: fails when the validation layer reported anything. */
int add_fixture_teardown(void **state);

/* Model edit: both inputs [0, 3] (batch unknown), the output of unknown shape. */
void add_fixture_batch_unknown(test_model *model);
/* The ADD model with add_fixture_batch_unknown's edit (m holds it), prepared
 * on device; NULL when prepare fails. */
vknn_prepared_model *add_fixture_prepare_batch_unknown(vknn_device *device, test_model *m);
/* Request: both inputs given `batch` rows of 3 (dimensions and lengths). */
void add_fixture_set_batch(add_fixture *f, uint32_t batch);
