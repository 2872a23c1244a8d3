#pragma once
// ember::jit: a module's forward traced into a program, saved with its state and loaded without
// the module's class, in C++ or Python (python/ember/jit.py).
#include "ember/jit/op_registry.h"
#include "ember/jit/program.h"
#include "ember/jit/program_file.h"
#include "ember/jit/trace.h"
#include "ember/jit/traced_module.h"
