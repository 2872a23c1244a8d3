#pragma once
// Everything in autograd/: grad mode, the engine (backward, grad), gradcheck and the print options.
#include "ember/autograd/backward_hooks.h"
#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/gradcheck.h"
#include "ember/autograd/node.h"
#include "ember/autograd/print_options.h"
