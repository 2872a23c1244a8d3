#pragma once
// ember::io: checkpoints of tensors, modules, optimizers and nested containers (io/FORMAT.md).
#include "ember/io/serialize.h"
#include "ember/io/value.h"
