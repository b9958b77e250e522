#include "support/add_fixture.h"

#include <stdlib.h>

int add_fixture_setup(void **state, void (*edit)(test_model *model)) {
  return add_fixture_setup_with(state, edit, (vknn_device_options){0});
}

int add_fixture_setup_with(void **state, void (*edit)(test_model *model), vknn_device_options options) {
  add_fixture *f = calloc(1, sizeof(*f));
  if (f == NULL) return -1;
  *state = f;
  options.log_callback = test_log_callback;
  options.log_user_data = &f->log;
  options.enable_validation = true;
  if (vknn_device_open(&options, &f->device) != VKNN_STATUS_NONE) return -1;
  test_model_init_add(&f->model, VKNN_OPERAND_TENSOR_FLOAT32);
  if (edit != NULL) edit(&f->model);
  if (vknn_device_prepare_model(f->device, &f->model.model, VKNN_PREFER_FAST_SINGLE_ANSWER,
                                VKNN_PRIORITY_MEDIUM, NULL, &f->pm) != VKNN_STATUS_NONE)
    return -1;
  return test_request_init_add(&f->r);
}

void add_fixture_batch_unknown(test_model *m) {
  m->dims[0][0] = m->dims[1][0] = 0;
  m->dims[3][0] = m->dims[3][1] = 0;
}

vknn_prepared_model *add_fixture_prepare_batch_unknown(vknn_device *device, test_model *m) {
  test_model_init_add(m, VKNN_OPERAND_TENSOR_FLOAT32);
  add_fixture_batch_unknown(m);
  vknn_prepared_model *pm = NULL;
  if (vknn_device_prepare_model(device, &m->model, VKNN_PREFER_FAST_SINGLE_ANSWER, VKNN_PRIORITY_MEDIUM, NULL,
                                &pm) != VKNN_STATUS_NONE)
    return NULL;
  return pm;
}

void add_fixture_set_batch(add_fixture *f, uint32_t batch) {
  for (int i = 0; i < 2; ++i) {
    f->request_dims[i][0] = batch;
    f->request_dims[i][1] = 3;
    f->r.inputs[i].dimension_count = 2;
    f->r.inputs[i].dimensions = f->request_dims[i];
    f->r.inputs[i].location.length = batch * 12;
  }
}

int add_fixture_teardown(void **state) {
  add_fixture *f = *state;
  if (f == NULL) return -1;
  uint64_t messages = f->device ? vknn_device_get_validation_message_count(f->device) : 1;
  vknn_prepared_model_release(f->pm);
  test_request_release(&f->r);
  vknn_device_close(f->device);
  free(f);
  return messages == 0 ? 0 : -1;
}
