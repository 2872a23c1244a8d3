"""Every public function of ember, ember.linalg, ember.special and ember.nn.functional is a C++ op
that Python binds (issue 30), so a C++ program has it too, except the documented Python ones: the
API boundary and process-wide switches, which stay in Python as in PyTorch; one-line forwards that
only rename or wrap a C++ op's result (named tuples, optional results); and the list still to be
ported, which may only shrink: a function ported to C++ must leave it, and no new Python function
may join it."""
from __future__ import annotations

import inspect

import ember
import ember.linalg
import ember.nn.functional as F
import ember.special

# Python by design: conversions at the API boundary (Python numbers, NumPy arrays, files) and the
# switches and state of the process, as in PyTorch.
BOUNDARY_AND_SWITCHES = {
    "ember": {
        "tensor", "as_tensor", "is_tensor", "numel", "load", "save", "result_type", "is_complex",
        "is_floating_point", "detach", "compile", "get_float32_matmul_precision", "set_float32_matmul_precision",
        "get_rng_state", "set_rng_state", "initial_seed", "seed",
        "is_grad_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
        "get_default_dtype", "use_deterministic_algorithms",
        "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
        "get_deterministic_debug_mode", "set_deterministic_debug_mode",
        "vmap",  # ember.func's transform (Python, as torch.vmap), re-exported
    },
}

# One-line forwards to a C++ op: PyTorch's older names and argument spellings, results wrapped in
# PyTorch's named tuples, unique's optional results, tensordot's dims.
FORWARDS = {
    "ember": {
        "tensordot",
    },
    "ember.special": {"expit", "gammainc", "gammaincc", "log_softmax", "softmax", "logsumexp"},
    "ember.nn.functional": {"flatten", "hardtanh", "embedding", "upsample", "upsample_bilinear", "upsample_nearest"},
}

# Still composed in Python (none left): a function listed here is to move into the C++ op table.
NOT_YET_IN_CPP: dict = {}

MODULES = {"ember": ember, "ember.linalg": ember.linalg, "ember.special": ember.special, "ember.nn.functional": F}


def _python_functions(module) -> set[str]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return {n for n in names if inspect.isfunction(getattr(module, n, None))}


def test_every_function_is_cpp_or_listed():
    for name, module in MODULES.items():
        python = _python_functions(module)
        listed = (BOUNDARY_AND_SWITCHES.get(name, set()) | FORWARDS.get(name, set()) |
                  NOT_YET_IN_CPP.get(name, set()))
        assert not python - listed, f"{name}: Python functions missing a C++ op: {sorted(python - listed)}"
        assert not listed - python, f"{name}: listed but not a public Python function (now C++?): {sorted(listed - python)}"


def test_the_composites_moved_from_python_are_cpp():
    moved = ["lerp", "addcmul", "addcdiv", "isclose", "nan_to_num", "hypot", "sinc", "logit", "xlogy", "signbit",
             "heaviside", "nansum", "nanmean", "count_nonzero", "trace", "median", "quantile", "var_mean",
             "std_mean", "dot", "mv", "kron", "cross", "dist", "cdist", "tile", "movedim", "moveaxis", "unflatten",
             "take", "take_along_dim", "msort", "cartesian_prod", "combinations", "searchsorted", "bucketize"]
    for name in moved:
        assert getattr(ember, name) is getattr(ember._C, name), name
    for name in ("vector_norm", "matrix_norm", "norm", "cond"):
        assert not inspect.isfunction(getattr(ember.linalg, name)), name
    for name in ("sinc", "logit", "xlogy"):
        assert getattr(ember.special, name) is getattr(ember._C, name), name
    for name, op in (("ndtr", "_special_ndtr"), ("ndtri", "_special_ndtri"), ("multigammaln", "mvlgamma")):
        assert getattr(ember.special, name) is getattr(ember._C, op), name
    for name in ("lerp", "addcmul", "quantile", "nan_to_num", "take_along_dim"):
        assert not inspect.isfunction(getattr(ember.Tensor, name)), f"Tensor.{name} is patched in from Python"


def test_the_tensor_methods_moved_from_python_are_cpp():
    for name in ("allclose", "equal", "clamp_min", "clamp_max", "index_put", "diff", "not_equal", "greater_equal",
                 "unique", "det", "logdet", "slogdet", "inverse", "cholesky", "svd", "qr", "matrix_exp", "matrix_power",
                 "pinverse"):
        assert getattr(ember, name) is getattr(ember._C, name), name
    methods = ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "not_equal_", "less_", "less_equal_", "greater_",
               "greater_equal_", "logical_and_", "logical_or_", "logical_xor_", "logical_not_", "bitwise_and_",
               "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_",
               "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "clamp_min_", "clamp_max_",
               "polygamma_", "polygamma", "multiply_", "divide_", "true_divide_", "subtract_", "clip_",
               "fill_diagonal_", "normal_", "uniform_", "bernoulli_", "exponential_", "cauchy_", "log_normal_",
               "geometric_", "random_", "index_put_", "index_put", "unfold", "diff", "sum_to_size", "allclose",
               "equal", "split_with_sizes", "unique", "det", "logdet", "slogdet", "inverse", "cholesky", "svd", "qr",
               "matrix_exp", "matrix_power", "pinverse", "apply_", "map_", "map2_", "pin_memory", "is_pinned",
               "share_memory_", "is_shared", "to", "cuda", "type_as", "new_tensor", "new_empty", "__format__",
               "__reduce_ex__", "__deepcopy__", "__repr__", "__str__"]
    for name in methods:
        assert not inspect.isfunction(getattr(ember.Tensor, name)), f"Tensor.{name} is patched in from Python"


def test_the_call_forms_moved_from_python_are_cpp():
    # tuple dims, decimals, tensor repeats, string norms, rounding modes, list results, factories
    moved = ["all", "any", "round", "repeat_interleave", "norm", "div", "divide", "tensor_split", "broadcast_tensors",
             "meshgrid", "logspace", "randint_like", "mode", "clamp", "clip"]
    for name in moved:
        assert getattr(ember, name) is getattr(ember._C, name), name
    for name in ("all", "any", "round", "repeat_interleave", "norm", "div", "divide", "div_", "tensor_split",
                 "__floordiv__", "__rfloordiv__", "__ifloordiv__"):
        assert not inspect.isfunction(getattr(ember.Tensor, name)), f"Tensor.{name} is patched in from Python"
