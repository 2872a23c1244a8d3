"""The smallest cases the property suite shrank its failures to, as named tests. Each expected value is
PyTorch's (checked by hand against torch 2.x when the case was found)."""
import math

import numpy as np

import ember
import ember.nn.functional as F


def test_add_with_alpha_computes_alpha_times_other_in_the_result_dtype():
    # float64 + alpha * float32: PyTorch converts other to float64 before scaling (2.9953190088272095).
    a = ember.tensor(0.0, dtype=ember.float64)
    b = ember.tensor(1.9968793, dtype=ember.float32)
    expected = 1.5 * float(np.float32(1.9968793))
    assert ember.add(a, b, alpha=1.5).item() == expected
    assert ember.sub(a, b, alpha=1.5).item() == -expected


def test_max_min_of_a_tensor_and_a_zero_dim_int_tensor_are_elementwise():
    # torch.max(a, b) with a 0-d integer b is maximum(a, b), not max(a, dim=int(b)).
    a, b = ember.tensor([3, 1, 2]), ember.tensor(2)
    assert ember.max(a, b).tolist() == [3, 2, 2]
    assert ember.min(a, b).tolist() == [2, 1, 2]
    assert a.max(b).tolist() == [3, 2, 2]


def test_zero_dim_int_tensor_does_not_promote_dimensioned_int_tensor():
    assert (ember.ones(3, dtype=ember.int32) + ember.tensor(5)).dtype == ember.int32
    assert (ember.ones(3, dtype=ember.uint8) + ember.tensor(5, dtype=ember.int32)).dtype == ember.uint8
    # The comparison runs in uint8 too: -1 becomes 255.
    assert (ember.tensor(-1, dtype=ember.int32) > ember.tensor([0], dtype=ember.uint8)).tolist() == [True]


def test_std_with_no_degrees_of_freedom_is_inf_where_var_is():
    x = ember.ones(2, 8, dtype=ember.float64)
    x[0, 0] = 0.0
    assert ember.var(x, 0, correction=2)[0].item() == math.inf
    assert ember.std(x, 0, correction=2)[0].item() == math.inf


def test_integer_tensor_divided_by_python_int_is_true_division_of_the_values():
    u = ember.tensor([1, 3], dtype=ember.uint8)
    assert (u / -1).tolist() == [-1.0, -3.0]
    assert ember.div(u, -1).tolist() == [-1.0, -3.0]
    assert (-1 / ember.tensor([2], dtype=ember.uint8)).tolist() == [-0.5]
    assert (ember.tensor([200], dtype=ember.uint8) / 300).tolist()[0] == float(np.float32(200 / 300))
    assert math.isclose((ember.tensor([3], dtype=ember.int32) / (2**33 + 2)).item(), 3 / (2**33 + 2), rel_tol=1e-6)


def test_advanced_index_of_a_tensor_with_an_empty_dim():
    assert ember.zeros(0, 3)[:, [0, 1]].shape == (0, 2)
    assert ember.zeros(2, 0)[[0, 1]].shape == (2, 0)
    assert ember.zeros(0, 1, 1, 1)[..., [0]].shape == (0, 1, 1, 1)


def test_matmul_and_linear_with_empty_inner_dim_and_batch_dims_give_zeros():
    out = ember.matmul(ember.ones(1, 1, 0), ember.ones(0, 2))
    assert out.shape == (1, 1, 2) and out.tolist() == [[[0.0, 0.0]]]
    out = F.linear(ember.ones(1, 1, 0), ember.ones(2, 0))
    assert out.shape == (1, 1, 2) and out.tolist() == [[[0.0, 0.0]]]


def test_tiny_float64_converts_to_true():
    x = ember.tensor([1.9e-49, 1e-300, -1e-45, 0.0], dtype=ember.float64)
    assert x.to(ember.bool).tolist() == [True, True, True, False]
    assert x.bool().tolist() == [True, True, True, False]


def test_std_gradient_at_zero_variance_is_zero():
    # PyTorch masks the 0 / 0 of d std / dx where std == 0.
    x = ember.tensor(0.3287, dtype=ember.float64, requires_grad=True)
    ember.std(x, correction=0).backward()
    assert x.grad.item() == 0.0
    y = ember.full((3,), 2.0, dtype=ember.float64, requires_grad=True)
    ember.std(y).backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]


def test_linspace_of_one_step_is_start():
    # torch.linspace(-1.0, 5.0, 1) and numpy.linspace(-1.0, 5.0, 1) are [-1.0].
    assert ember.linspace(-1.0, 5.0, 1).tolist() == [-1.0]
    assert ember.linspace(2.0, 5.0, 1, dtype=ember.float64).tolist() == [2.0]
