#pragma once
// Ember's umbrella header: #include <ember/ember.h>.
#include "ember/autograd/autograd.h"
#include "ember/core/core.h"
#include "ember/data/data.h"
#include "ember/distributed/distributed.h"
#include "ember/io/io.h"
#include "ember/jit/jit.h"
#include "ember/nn/nn.h"
#include "ember/ops/ops.h"
#include "ember/optim/optim.h"
#include "ember/profiler/profiler.h"
