#pragma once
// ember::io: checkpoints of tensors, modules, optimizers and nested containers (io/FORMAT.md).
#include "ember/io/architecture.h"
#include "ember/io/async_saver.h"
#include "ember/io/checkpoint_manager.h"
#include "ember/io/module_io.h"
#include "ember/io/optim_io.h"
#include "ember/io/pt_load.h"
#include "ember/io/serialize.h"
#include "ember/io/snapshot.h"
#include "ember/io/training_state.h"
#include "ember/io/value.h"
