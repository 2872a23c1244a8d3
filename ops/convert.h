#pragma once
// Differentiable copies: clone, and conversion to another dtype or device (to), declared from the
// op table (ember/ops/functions.h).
#include "ember/ops/functions.h"
