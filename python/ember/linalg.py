"""torch.linalg. The factorisations are C++ ops (ops/linalg.cpp; Eigen on the CPU, cuSOLVER on CUDA;
PyTorch's backward formulas in differentiable ops, so double backward works): solve, inv, det and
slogdet (LU with partial pivoting), cholesky, svd, svdvals, eigh, eigvalsh, qr, solve_triangular
and matrix_exp; pinv, matrix_rank, cond, lstsq, matrix_power and the spectral matrix norms are
composed of them (every function is C++, ember._C.linalg). Every function takes any leading batch dims, float32
or float64; gradients are PyTorch's analytic ones (det A * A^-T, -A^-T G A^-T, ...) away from
singular matrices, and det's is the cofactor matrix at a singular one (PyTorch 2.15's is 0).

Errors are PyTorch's: singular matrices make inv and solve raise LinAlgError (a RuntimeError)
naming the first zero diagonal element of U, a matrix that is not positive-definite makes cholesky
name the leading minor that is not. Checking them reads the result on the host, as PyTorch does."""
from ._C import LinAlgError  # noqa: F401  (a RuntimeError; the C++ factorisations raise it)
from ._C.linalg import (  # noqa: F401  (re-exported; svd, eigh, qr, slogdet and lstsq return torch's named tuples)
    cholesky,
    cond,
    det,
    eigh,
    eigvalsh,
    householder_product,
    inv,
    lstsq,
    matrix_exp,
    matrix_norm,
    matrix_power,
    matrix_rank,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    solve_triangular,
    svd,
    svdvals,
    vector_norm,
)

__all__ = ["LinAlgError", "det", "slogdet", "inv", "solve", "cholesky", "vector_norm", "matrix_norm", "norm",
           "svd", "svdvals", "eigh", "eigvalsh", "qr", "solve_triangular", "pinv", "matrix_rank", "cond", "lstsq",
           "matrix_exp", "matrix_power", "householder_product"]
