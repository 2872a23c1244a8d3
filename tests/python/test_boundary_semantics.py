"""PyTorch's semantics at the boundaries, for the ops Ember composes in Python (issue 27): NaN,
+-inf, 0, ties, zero-size and 0-d inputs, integer and bool dtypes kept, float32 operands mixed with
float64 ones computed in float64, and the in-place methods. The values come from torch 2.15
(tests/fixtures/boundary.json, written by make_boundary_fixtures.py): output shape, dtype and
values, and the gradient of every floating input. What PyTorch refuses is checked here directly."""
import math

import pytest

import ember
import ember.nn.functional as F

import fixture_replay as fr

CASES = fr.load_cases("boundary.json")
# (output rtol, gradient rtol, atol) per dtype; integer and bool results are exact.
TOLERANCES = {"float64": (1e-10, 1e-8, 1e-12), "float32": (1e-6, 1e-5, 1e-6), "int64": (0, 0, 0), "int32": (0, 0, 0),
              "uint8": (0, 0, 0), "bool": (0, 0, 0)}


# Cases computed in float32 whose float64 operand's gradient is that float32 result cast up.
IN_FLOAT32 = {"xlogy float32 with 0-d float64", "addcmul 0-d float64 with float32",
              "cosine_similarity float32 with 0-d float64"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    tolerances = dict(TOLERANCES, float64=TOLERANCES["float32"]) if name in IN_FLOAT32 else TOLERANCES
    fr.replay(CASES[name], {"T": ember, "F": F, "inf": math.inf, "nan": math.nan}, by_dtype=tolerances)


# torch.Tensor's public methods ending in "_" (torch 2.15: 162).
TORCH_INPLACE = """
abs_ absolute_ acos_ acosh_ add_ addbmm_ addcdiv_ addcmul_ addmm_ addmv_ addr_ apply_ arccos_ arccosh_ arcsin_
arcsinh_ arctan2_ arctan_ arctanh_ as_strided_ asin_ asinh_ atan2_ atan_ atanh_ baddbmm_ bernoulli_
bitwise_and_ bitwise_left_shift_ bitwise_not_ bitwise_or_ bitwise_right_shift_ bitwise_xor_ cauchy_ ceil_
clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ copy_ copysign_ cos_ cosh_ cumprod_ cumsum_ deg2rad_ detach_
digamma_ div_ divide_ eq_ erf_ erfc_ erfinv_ exp2_ exp_ expm1_ exponential_ fill_ fill_diagonal_ fix_
float_power_ floor_ floor_divide_ fmod_ frac_ gcd_ ge_ geometric_ greater_ greater_equal_ gt_ heaviside_
hypot_ i0_ igamma_ igammac_ index_add_ index_copy_ index_fill_ index_put_ index_reduce_ lcm_ ldexp_ le_ lerp_
less_ less_equal_ lgamma_ log10_ log1p_ log2_ log_ log_normal_ logical_and_ logical_not_ logical_or_
logical_xor_ logit_ lt_ map2_ map_ masked_fill_ masked_scatter_ mul_ multiply_ mvlgamma_ nan_to_num_ ne_ neg_
negative_ nextafter_ normal_ not_equal_ polygamma_ pow_ put_ rad2deg_ random_ reciprocal_ relu_ remainder_
renorm_ requires_grad_ resize_ resize_as_ resize_as_sparse_ round_ rsqrt_ scatter_ scatter_add_
scatter_reduce_ set_ sgn_ share_memory_ sigmoid_ sign_ sin_ sinc_ sinh_ sparse_resize_
sparse_resize_and_clear_ sqrt_ square_ squeeze_ sub_ subtract_ swapaxes_ swapdims_ t_ tan_ tanh_ transpose_
tril_ triu_ true_divide_ trunc_ uniform_ unsqueeze_ xlogy_ zero_
""".split()
# Those Ember lacks: the out-of-place op is missing (addbmm, addmv, addr, conj_physical, copysign,
# float_power, gcd, lcm, ldexp, nextafter, renorm, sgn), or the method changes what self is rather
# than its values (as_strided_, set_, sparse layouts).
NOT_YET = {"addbmm_", "addmv_", "addr_", "conj_physical_", "copysign_", "float_power_", "gcd_", "lcm_", "ldexp_",
           "nextafter_", "renorm_", "sgn_", "as_strided_", "set_", "resize_as_sparse_", "sparse_resize_",
           "sparse_resize_and_clear_"}


def test_every_inplace_method_of_torch_is_there_but_the_listed_ones():
    assert len(TORCH_INPLACE) == 162
    assert sorted(n for n in TORCH_INPLACE if not hasattr(ember.Tensor, n)) == sorted(NOT_YET)


def test_random_fills_draw_their_distributions():
    ember.manual_seed(0)
    g = ember.zeros(20000, dtype=ember.int64).geometric_(0.25)
    assert g.dtype == ember.int64 and g.min().item() >= 1
    assert g.to(ember.float64).mean().item() == pytest.approx(4.0, rel=0.05)  # 1 / p
    c = ember.zeros(20001, dtype=ember.float64).cauchy_(2., 3.)
    assert c.median().item() == pytest.approx(2., abs=0.15)
    assert (c - 2).abs().median().item() == pytest.approx(3., rel=0.05)  # the half-width is sigma
    x = ember.zeros(20000, dtype=ember.float64).log_normal_(1., .5)
    assert x.min().item() > 0
    assert x.log().mean().item() == pytest.approx(1., abs=0.02)
    assert x.log().std().item() == pytest.approx(.5, rel=0.03)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
        ember.zeros(2).geometric_(1.5)


def test_map2_runs_a_python_callable_on_three_tensors():
    out = ember.tensor([1., 2.]).map2_(ember.tensor([10., 20.]), ember.tensor(100.), lambda s, a, b: s + a * b)
    assert out.tolist() == [1001., 2002.]


def test_fill_diagonal_refuses_what_torch_refuses():
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        ember.zeros(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        ember.zeros(2, 3, 3).fill_diagonal_(1)


def test_fixtures_cover_every_added_inplace_method():
    exprs = " ".join(c["strings"]["expr"] for c in CASES.values())
    for name in ("sin_", "fmod_", "remainder_", "cumsum_", "eq_", "logical_xor_", "addmm_", "igammac_", "clip_",
                 "subtract_", "divide_", "tril_", "hypot_", "heaviside_", "fill_diagonal_", "baddbmm_"):
        assert f".{name}(" in exprs, name


# ---- what PyTorch refuses

@pytest.mark.parametrize("call", [
    lambda t: t.sqrt_(), lambda t: t.exp_(), lambda t: t.sigmoid_(), lambda t: t.pow_(1.5), lambda t: t.sin_(),
    lambda t: t.true_divide_(2), lambda t: t.fmod_(2.5), lambda t: t.hypot_(ember.tensor([1.])),
    lambda t: t.clip_(-.5, .5), lambda t: t.xlogy_(2), lambda t: t.reciprocal_()])
def test_inplace_float_result_into_int_tensor_is_refused(call):
    t = ember.tensor([4, 9])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        call(t)
    assert t.tolist() == [4, 9]


def test_inplace_int_result_into_bool_tensor_is_refused():
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        ember.tensor([True, False]).pow_(2)


def test_binary_cross_entropy_refuses_values_outside_0_1():
    for bad in (1.5, -0.1, math.nan):
        with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
            F.binary_cross_entropy(ember.tensor([bad]), ember.tensor([1.]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(ember.tensor([.5]), ember.tensor([2.]))


def test_cosine_similarity_refuses_integer_inputs():
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"):
        F.cosine_similarity(ember.tensor([1, 2]), ember.tensor([1, 2]), dim=0)


def test_hardtanh_refuses_bool_and_negative_bounds_on_uint8():
    with pytest.raises(NotImplementedError, match="Bool inputs not supported for hardtanh"):
        F.relu6(ember.tensor([True]))
    with pytest.raises(RuntimeError, match="cannot do hardtanh on an unsigned type with negative limits"):
        F.hardtanh(ember.tensor([1], dtype=ember.uint8))
    with pytest.raises(ValueError, match=r"hardtanh: min_val \(2\) must not exceed max_val \(1\)"):
        F.hardtanh(ember.tensor([1.0]), 2.0, 1.0)


def test_take_refuses_indices_out_of_range():
    for index in (2, -3):
        with pytest.raises(IndexError, match=f"out of range: tried to access index {index} on a tensor of 2 elements"):
            ember.take(ember.tensor([1, 2]), ember.tensor([0, index]))


def test_median_refuses_an_empty_reduction_dim_and_bool():
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 1 to have non-zero size"):
        ember.zeros(2, 0).median(1)
    with pytest.raises(NotImplementedError):
        ember.tensor([True, False]).median()


def test_movedim_on_0d_checks_the_dim():
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        ember.movedim(ember.tensor(3.), 1, 0)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        ember.zeros(2, 3).movedim(2, 0)


def test_unflatten_refuses_an_ambiguous_or_wrong_split():
    with pytest.raises(RuntimeError, match="ambiguous"):
        ember.zeros(3, 0).unflatten(-1, (-1, 0))
    with pytest.raises(RuntimeError, match=r"don't multiply up to the size of dim 1 \(6\)"):
        ember.zeros(2, 6).unflatten(1, (2, 2))


def test_tensordot_refuses_mismatched_contracted_dims():
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        ember.tensordot(ember.zeros(2, 3), ember.zeros(2, 3), dims=1)


def test_addcdiv_refuses_integer_division():
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        ember.addcdiv(ember.tensor([1, 2]), ember.tensor([3, 4]), ember.tensor([5, 6]))


def test_nanmean_refuses_integer_input():
    with pytest.raises(RuntimeError, match="expected input to have floating point or complex dtype but got Long"):
        ember.nanmean(ember.tensor([1, 2]))


def test_index_fill_refuses_a_value_tensor_with_dims():
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor"):
        ember.zeros(3).index_fill(0, ember.tensor([0]), ember.ones(1))


def test_binary_cross_entropy_of_a_saturated_sigmoid_trains():
    # The siamese-network case of the issue: a logit whose sigmoid rounds to 1 gets gradient 0
    # (sigmoid's derivative there), not NaN, so an optimizer step leaves it finite.
    z = ember.tensor([20.], requires_grad=True)
    loss = ember.nn.BCELoss()(ember.sigmoid(z), ember.tensor([0.]))
    loss.backward()
    assert loss.item() == pytest.approx(100.)
    assert z.grad.tolist() == [0.]
