#pragma once
// Everything in core/: tensors, dtypes, devices, creation, random generators, threads.
#include "ember/core/backend.h"
#include "ember/core/copy.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/generator.h"
#include "ember/core/parallel.h"
#include "ember/core/scalar.h"
#include "ember/core/shape.h"
#include "ember/core/tensor.h"
#include "ember/core/warning.h"
