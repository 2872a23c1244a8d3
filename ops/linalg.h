#pragma once
// The matrix factorisations: linalg_svd, linalg_svdvals, linalg_eigh, linalg_eigvalsh, linalg_qr
// and linalg_solve_triangular (declared from the op table, ember/ops/functions.h). Each flattens
// A's batch dims into the [B, m, n] stack its kernel (core/kernels/linalg.h) factors, raises
// LinAlgError for a matrix the kernel could not factor (reading the kernel's info on the host),
// and records a backward written in differentiable ops (PyTorch's formulas), so double backward
// works. Empty matrices give PyTorch's results without a kernel call (identities for the vectors).
#include "ember/core/kernels/linalg.h"
#include "ember/ops/functions.h"
