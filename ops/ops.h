#pragma once
// Every differentiable op, as free functions (ember::add, ember::matmul, ...).
#include "ember/ops/binary.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"
