"""F.pad against np.pad for every mode ("reflect" is NumPy's reflect, "replicate" its edge,
"circular" its wrap of the cropped extent, "constant" its constant after a crop), every dtype, the
ranks each mode pads (1 to 3 padded dims, batched or not) and every layout; negative amounts crop.
PyTorch's exact values for the cases NumPy has no word for (a reflection about an entry a crop
removed) are fixtures: tests/python/test_functional_compat.py."""
import numpy as np
from hypothesis import given, strategies as st

import ember
import ember.nn.functional as F
from reference import assert_close
from strategies import ALL_DTYPES, shapes, tensors

NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _crop(a, axis, before, after):
    index = [slice(None)] * a.ndim
    index[axis] = slice(max(-before, 0), a.shape[axis] - max(-after, 0))
    return a[tuple(index)]


@given(data=st.data())
def test_constant_pad_matches_numpy(data):
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=6)), dtypes=ALL_DTYPES))
    a = x.array
    padded = data.draw(st.integers(0, a.ndim))
    amounts, want = [], a
    for i in range(padded):
        axis, n = a.ndim - 1 - i, a.shape[a.ndim - 1 - i]
        before = data.draw(st.integers(-n, 3))
        after = data.draw(st.integers(-(n + min(before, 0)), 3))
        amounts += [before, after]
        want = _crop(want, axis, before, after)
        width = [(0, 0)] * a.ndim
        width[axis] = (max(before, 0), max(after, 0))
        want = np.pad(want, width, constant_values=True if a.dtype == np.bool_ else 2)
    value = True if a.dtype == np.bool_ else 2
    assert_close(F.pad(x.tensor, amounts, value=value), want, dtype=x.tensor.dtype, what=f"pad({amounts})")


@given(data=st.data())
def test_reflect_replicate_circular_match_numpy(data):
    mode = data.draw(st.sampled_from(sorted(NUMPY_MODE)))
    padded, batched = data.draw(st.integers(1, 3)), data.draw(st.booleans())
    lead = (data.draw(st.integers(0, 2)),) if batched else ()
    shape = lead + tuple(data.draw(st.integers(1, 4)) for _ in range(padded + 1))
    x = data.draw(tensors(shape=shape, dtypes=ALL_DTYPES))
    a, amounts, want = x.array, [], x.array
    for i in range(padded):
        axis, n = a.ndim - 1 - i, a.shape[a.ndim - 1 - i]
        if mode == "circular":  # crops allowed: the wrap is of what is left
            before = data.draw(st.integers(-(n - 1), n))
            after = data.draw(st.integers(-(n - max(-before, 0) - 1), n))
        else:
            hi = n - 1 if mode == "reflect" else 4
            before, after = data.draw(st.integers(0, hi)), data.draw(st.integers(0, hi))
        amounts += [before, after]
        want = _crop(want, axis, before, after)
        width = [(0, 0)] * a.ndim
        width[axis] = (max(before, 0), max(after, 0))
        want = np.pad(want, width, mode=NUMPY_MODE[mode])
    assert_close(F.pad(x.tensor, amounts, mode=mode), want, dtype=x.tensor.dtype, what=f"pad({amounts}, {mode})")
