#pragma once
// Everything in nn/: Module and (as they land) layers, losses and init.
#include "ember/nn/init.h"
#include "ember/nn/module.h"
