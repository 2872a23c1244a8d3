from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['cholesky', 'cond', 'det', 'eigh', 'eigvalsh', 'householder_product', 'inv', 'lstsq', 'matrix_exp', 'matrix_norm', 'matrix_power', 'matrix_rank', 'norm', 'pinv', 'qr', 'slogdet', 'solve', 'solve_triangular', 'svd', 'svdvals', 'vector_norm']
def cholesky(A: ember._C.Tensor, *, upper: bool = False) -> ember._C.Tensor:
    """
    L with A = L L^T (lower triangular, positive diagonal) for symmetric positive-definite A [..., n, n], reading its lower triangle; U = L^T when upper. LinAlgError names the first leading minor that is not positive-definite. The gradient is symmetric, as PyTorch's.
    """
def cond(A: ember._C.Tensor, p: typing.Any = None) -> ember._C.Tensor:
    """
    The condition number of each matrix (torch.linalg.cond).
    """
def det(A: ember._C.Tensor) -> ember._C.Tensor:
    """
    The determinant of each matrix of A [..., n, n]: the sign of LU's row permutation times the product of U's diagonal (0 for a singular matrix). Gradient det(A) A^-T, and the cofactor matrix (by the SVD) where A is singular.
    """
def eigh(A: ember._C.Tensor, UPLO: str = 'L') -> typing.Any:
    """
    (eigenvalues, eigenvectors) of symmetric A [..., n, n], reading only its lower (UPLO="L") or upper triangle: eigenvalues ascending, eigenvectors the orthonormal columns of V, A = V diag(L) V^T.
    """
def eigvalsh(A: ember._C.Tensor, UPLO: str = 'L') -> ember._C.Tensor:
    """
    The eigenvalues of symmetric A [..., n, n] (ascending), reading the triangle UPLO names.
    """
def householder_product(A: ember._C.Tensor, tau: ember._C.Tensor) -> ember._C.Tensor:
    """
    The first n columns of H_1 ... H_k for A [..., m, n] (m >= n >= k) and tau [..., k]: H_i = I - tau_i v_i v_i^T with v_i = (0, ..., 0, 1, A[i+1:, i]), as LAPACK's orgqr rebuilds Q from geqrf's reflectors; composed of matmuls, so autograd differentiates it (twice too).
    """
def inv(A: ember._C.Tensor) -> ember._C.Tensor:
    """
    The inverse of each matrix of A [..., n, n], by LU with partial pivoting; LinAlgError naming U's first zero diagonal element for a singular one. Gradient -A^-T G A^-T.
    """
def lstsq(A: ember._C.Tensor, B: ember._C.Tensor, rcond: typing.SupportsFloat | typing.SupportsIndex | None = None, driver: str | None = None) -> typing.Any:
    """
    (solution, residuals, rank, singular_values) of the least-squares problem (torch.linalg.lstsq).
    """
def matrix_exp(A: ember._C.Tensor) -> ember._C.Tensor:
    """
    exp(A) = sum A^k / k! of each matrix of A [..., n, n]: Higham's scaling and squaring with the [13/13] Pade approximant, in float64 (float32 rounded once), composed of matmul and linalg_solve, so autograd differentiates it (twice too). A matrix with a NaN or an inf gives NaN.
    """
def matrix_norm(A: ember._C.Tensor, ord: typing.Any = 'fro', dim: typing.Any = (-2, -1), keepdim: bool = False, *, dtype: ember._C.dtype | None = None) -> ember._C.Tensor:
    """
    The matrix norm over the two dims (torch.linalg.matrix_norm).
    """
def matrix_power(A: ember._C.Tensor, n: typing.Any) -> ember._C.Tensor:
    """
    A^n by repeated squaring (torch.linalg.matrix_power).
    """
def matrix_rank(A: ember._C.Tensor, tol: typing.Any = None, hermitian: bool = False, atol: typing.Any = None, rtol: typing.Any = None) -> ember._C.Tensor:
    """
    How many singular values of each matrix are above the tolerance (torch.linalg.matrix_rank).
    """
def norm(A: ember._C.Tensor, ord: typing.Any = None, dim: typing.Any = None, keepdim: bool = False, *, dtype: ember._C.dtype | None = None) -> ember._C.Tensor:
    """
    A vector norm over one dim, a matrix norm over two (torch.linalg.norm).
    """
def pinv(A: ember._C.Tensor, rcond: typing.Any = None, hermitian: bool = False, atol: typing.Any = None, rtol: typing.Any = None) -> ember._C.Tensor:
    """
    The Moore-Penrose pseudo-inverse of each matrix of A (torch.linalg.pinv).
    """
def qr(A: ember._C.Tensor, mode: str = 'reduced') -> typing.Any:
    """
    (Q, R) with A = Q R, R upper triangular (LAPACK's signs): mode "reduced" gives Q [..., m, k], R [..., k, n]; "complete" Q m x m, R m x n; "r" R alone and an empty Q (not differentiable).
    """
def slogdet(A: ember._C.Tensor) -> typing.Any:
    """
    (sign, logabsdet) with det A = sign * exp(logabsdet): sign 0 and logabsdet -inf for a singular matrix. logabsdet's gradient is A^-T (NaN where A is singular); sign has none.
    """
def solve(A: ember._C.Tensor, B: ember._C.Tensor, *, left: bool = True) -> ember._C.Tensor:
    """
    X with A X = B (X A = B when not left), by LU with partial pivoting; B is [..., n, k], or a batch of vectors [..., n] when it is 1-D or has A's shape without its last dim; batch dims broadcast. LinAlgError for a singular A.
    """
def solve_triangular(A: ember._C.Tensor, B: ember._C.Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> ember._C.Tensor:
    """
    X with A X = B (X A = B when not left) for triangular A [..., n, n], reading only its upper or lower triangle (and not its diagonal when unitriangular); batch dims broadcast. A zero on the diagonal gives inf/NaN, not an error, as PyTorch's.
    """
def svd(A: ember._C.Tensor, full_matrices: bool = True, *, driver: str | None = None) -> typing.Any:
    """
    (U, S, Vh) with A = U diag(S) Vh: S [..., k] descending and non-negative (k = min(m, n)), U [..., m, k] and Vh [..., k, n] orthonormal (m x m and n x n when full_matrices). The vectors' gradients are defined where the singular values are distinct (and nonzero, for a non-square A).
    """
def svdvals(A: ember._C.Tensor, *, driver: str | None = None) -> ember._C.Tensor:
    """
    The singular values of A [..., m, n], descending ([..., min(m, n)]); gradient U diag(gS) Vh.
    """
def vector_norm(x: ember._C.Tensor, ord: typing.SupportsFloat | typing.SupportsIndex = 2.0, dim: typing.Any = None, keepdim: bool = False, *, dtype: ember._C.dtype | None = None) -> ember._C.Tensor:
    """
    (sum |x|^ord)^(1/ord) over dim (torch.linalg.vector_norm).
    """
