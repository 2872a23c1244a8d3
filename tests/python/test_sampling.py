"""ember.multinomial and Tensor.multinomial: draws repeat under manual_seed and with a seeded
Generator, their frequencies pass a chi-squared test (with and without replacement), samples
without replacement never repeat a category, and bad input gets PyTorch's errors (the messages
torch gives are in tests/fixtures/functional.json; tests/python/test_functional_compat.py checks
them)."""
import numpy as np
import pytest

import ember

# chi-squared quantiles at 0.999 for k - 1 degrees of freedom
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52}


def chi_squared(counts, probs):
    expected = probs * counts.sum()
    return float(((counts - expected) ** 2 / expected).sum())


def test_draws_repeat_under_manual_seed_and_a_generator():
    p = ember.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    ember.manual_seed(123)
    first = ember.multinomial(p, 2)
    ember.manual_seed(123)
    assert ember.equal(ember.multinomial(p, 2), first)
    g1, g2 = ember.Generator().manual_seed(9), ember.Generator().manual_seed(9)
    a = p.multinomial(50, replacement=True, generator=g1)
    b = ember.multinomial(p, 50, True, generator=g2)
    assert ember.equal(a, b)
    assert not ember.equal(ember.multinomial(p, 50, True, generator=g1), a)
    assert a.dtype == ember.int64 and tuple(a.shape) == (2, 50)


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
def test_frequencies_with_replacement_pass_chi_squared(dtype):
    w = np.array([1.0, 3.0, 0.0, 2.0, 4.0])  # unnormalised, one impossible category
    g = ember.Generator().manual_seed(2024)
    draws = ember.multinomial(ember.tensor(w, dtype=dtype), 30000, replacement=True, generator=g).numpy()
    counts = np.bincount(draws, minlength=5)
    assert counts[2] == 0
    keep = w > 0
    assert chi_squared(counts[keep], w[keep] / w.sum()) < CHI2_999[keep.sum() - 1]


def test_first_draw_without_replacement_follows_the_weights_and_never_repeats():
    w = np.array([4.0, 1.0, 2.0, 3.0])
    g = ember.Generator().manual_seed(7)
    draws = ember.multinomial(ember.tensor(w).expand(4000, 4), 3, generator=g).numpy()
    assert all(len(set(row)) == 3 for row in draws)
    counts = np.bincount(draws[:, 0], minlength=4)
    assert chi_squared(counts, w / w.sum()) < CHI2_999[3]
    # The second draw of a row follows the weights left once the first is removed.
    second = np.zeros(4)
    for first in range(4):
        rest = w.copy()
        rest[first] = 0
        second += (draws[:, 0] == first).sum() * rest / rest.sum()
    assert chi_squared(np.bincount(draws[:, 1], minlength=4), second / second.sum()) < CHI2_999[3]


def test_without_replacement_past_the_positive_weights_takes_the_rest_in_order():
    assert ember.multinomial(ember.tensor([0.0, 2.0, 0.0, 0.0]), 3).tolist() == [1, 0, 2]
    assert tuple(ember.multinomial(ember.zeros(0, 4), 2).shape) == (0, 2)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"multinomial: prob_dist must be 1 or 2 dim, got shape \[1, 1, 2\]"):
        ember.multinomial(ember.ones(1, 1, 2), 1)
    with pytest.raises(TypeError, match="multinomial only supports floating-point dtypes for input, got: int64"):
        ember.multinomial(ember.tensor([1, 2]), 1)
    with pytest.raises(ValueError, match=r"without replacement \(3 samples of 2 categories\)"):
        ember.multinomial(ember.tensor([0.5, 0.5]), 3)
    with pytest.raises(ValueError, match=r"element < 0 \(row 0, category 1: -0.1"):
        ember.multinomial(ember.tensor([0.5, -0.1]), 1)
    with pytest.raises(ValueError, match=r"sum of probabilities <= 0\) in row 1"):
        ember.multinomial(ember.tensor([[1.0, 1.0], [0.0, 0.0]]), 1)
