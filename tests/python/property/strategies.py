"""Hypothesis strategies shared by the property suite: shapes (rank 0 to 8, some 0-size dims, few
elements so that runs stay fast), broadcastable shape pairs, dtypes, Python scalars, and *layouts*:
a NumPy array made into an Ember tensor that is contiguous, permuted, sliced with steps (a view into
a bigger buffer) or expanded (stride 0), so every op sees non-contiguous inputs.

A drawn tensor comes as a `Drawn(tensor, array)`: the NumPy array holds exactly the values the tensor
shows, in the tensor's dtype; the tests compute their oracle from it in float64.

Values include the boundary values where ops have their edge cases (`boundary_values`: +-0, +-1,
subnormals, the smallest normal, the largest finite value, +-inf, NaN; the integer dtypes' extremes) and
exact ties (arrays of one to three distinct values), so the oracles must follow PyTorch's semantics
there (torch_rules.py); a test narrows them only where PyTorch's own answer is undefined or depends on
the order of float additions, and says why.
"""
from __future__ import annotations

import math
import os
from typing import NamedTuple, Optional

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember

MAX_NUMEL = 64  # elements of one drawn tensor: keeps a default run fast
# NB: EMBER_PROPERTY_MAX_RANK=6 and EMBER_PROPERTY_MAX_INPUTS=6 hide the failures of 7-8-D tensors and of
# many-input joins while hunting for other bugs; the suite itself always runs with the defaults.
MAX_RANK = int(os.environ.get("EMBER_PROPERTY_MAX_RANK", "8"))
MAX_INPUTS = int(os.environ.get("EMBER_PROPERTY_MAX_INPUTS", "40"))  # tensors joined by cat/stack, clipped

# Ember dtype <-> NumPy dtype, for the dtypes Ember computes in (float16 and bfloat16 are storage-only).
NUMPY_OF = {
    ember.bool: np.dtype(np.bool_),
    ember.uint8: np.dtype(np.uint8),
    ember.int32: np.dtype(np.int32),
    ember.int64: np.dtype(np.int64),
    ember.float32: np.dtype(np.float32),
    ember.float64: np.dtype(np.float64),
}
EMBER_OF = {v: k for k, v in NUMPY_OF.items()}
FLOAT_DTYPES = [ember.float32, ember.float64]
INT_DTYPES = [ember.uint8, ember.int32, ember.int64]
ALL_DTYPES = [ember.bool] + INT_DTYPES + FLOAT_DTYPES

LAYOUTS = ("contiguous", "permuted", "strided", "expanded")


def is_float(dtype) -> bool:
    return dtype in (ember.float32, ember.float64)


def numel(shape) -> int:
    return math.prod(shape)


# ---- shapes

@st.composite
def shapes(draw, min_dims: int = 0, max_dims: int = MAX_RANK, min_side: int = 1, max_side: int = 4,
           max_numel: int = MAX_NUMEL, allow_empty: bool = True) -> tuple:
    """A shape of min_dims..max_dims dims whose numel is at most max_numel; with allow_empty, about
    one shape in ten has a 0-size dim (shrinking goes towards non-empty shapes)."""
    rank = draw(st.integers(min_dims, max_dims))
    sides, budget = [], max_numel
    for _ in range(rank):
        side = draw(st.integers(min_side, max(min_side, min(max_side, budget))))
        sides.append(side)
        budget = max(1, budget // max(side, 1))
    order = draw(st.permutations(range(rank))) if rank > 1 else list(range(rank))
    sides = [sides[i] for i in order]
    if allow_empty and rank > 0 and draw(st.integers(0, 9)) == 9:
        sides[draw(st.integers(0, rank - 1))] = 0
    return tuple(sides)


@st.composite
def broadcastable_shapes(draw, n: int = 2, min_dims: int = 0, max_dims: int = MAX_RANK,
                         allow_empty: bool = True) -> list:
    """n shapes that broadcast together: each one is the common shape with leading dims dropped and
    some dims set to 1."""
    common = draw(shapes(min_dims=min_dims, max_dims=max_dims, allow_empty=allow_empty))
    out = []
    for _ in range(n):
        drop = draw(st.integers(0, len(common)))
        s = [1 if draw(st.integers(0, 3)) == 0 else side for side in common[drop:]]
        out.append(tuple(s))
    return out


def valid_dim(rank: int):
    """A dim of a tensor of that rank, negative or not (0-d tensors accept 0 and -1)."""
    r = max(rank, 1)
    return st.integers(-r, r - 1)


@st.composite
def dim_tuples(draw, rank: int):
    """None, one dim, or a tuple of distinct dims (some negative) of a tensor of that rank."""
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or rank == 0:
        return None if kind == "none" else draw(valid_dim(rank)) if kind == "int" else ()
    if kind == "int":
        return draw(valid_dim(rank))
    dims = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    return tuple(d - rank if draw(st.booleans()) else d for d in dims)


def normalise_dims(dims, rank: int) -> tuple:
    """The axes NumPy should reduce for Ember's dim argument (None or () means every dim)."""
    if dims is None or dims == ():
        return tuple(range(rank))
    if isinstance(dims, int):
        dims = (dims,)
    return tuple(sorted(d % max(rank, 1) for d in dims)) if rank > 0 else ()


# ---- values

DEFAULT_LO, DEFAULT_HI = -8.0, 8.0  # the range of the ordinary values when a test gives none


def boundary_values(dtype, lo=None, hi=None, nonfinite: bool = True, exclude_zero: bool = False,
                    nan: bool = True, huge: bool = True) -> list:
    """The values where ops have their edge cases, in the dtype: for floats +-0, +-1, the smallest
    subnormal, the smallest normal, the largest finite value, +-inf and NaN; for integers 0, +-1 and
    the dtype's smallest and largest; False and True. With lo or hi given only the finite ones inside
    [lo, hi] count (with lo and hi themselves, the edges of the test's domain); nonfinite=False drops
    inf and NaN, nan=False NaN alone. huge=False drops the largest finite float: for the ops that sum
    (or multiply, or raise to a power) in the dtype, where max + max - max is inf or max depending on
    the order of the additions, so that neither PyTorch nor Ember has one answer for a float64 oracle
    to give."""
    if dtype == ember.bool:
        return [False, True]
    np_dtype = NUMPY_OF[dtype]
    ranged = lo is not None or hi is not None
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        values = [0, 1, -1, int(info.min), int(info.max)] if not ranged else [0, 1, -1]
        values += [int(math.ceil(lo)), int(math.floor(hi))] if ranged else []
        values = [v for v in values if max(lo, info.min) <= v <= min(hi, info.max)]
    else:
        info = np.finfo(np_dtype)
        finite = [0.0, -0.0, 1.0, -1.0, float(info.smallest_subnormal), -float(info.smallest_subnormal),
                  float(info.tiny), -float(info.tiny)] + ([float(info.max), -float(info.max)] if huge else [])
        if ranged:  # the domain's edges
            finite += [_inwards(np_dtype.type, v, lo, hi) for v in (lo, hi) if math.isfinite(v)]
        values = [v for v in finite if lo <= v <= hi] + (
            [math.inf, -math.inf] + ([math.nan] if nan else []) if nonfinite else [])
    if exclude_zero:
        values = [v for v in values if v != 0]
    unique = {}  # NB: keyed with the sign, since -0.0 == 0.0
    for v in values:
        unique.setdefault((v, math.copysign(1, v) if isinstance(v, float) else 1), v)
    return list(unique.values())


def _inwards(cast, v: float, lo: float, hi: float) -> float:
    """v rounded into the float dtype `cast`, then moved one ulp into [lo, hi] if rounding left it."""
    r = cast(v)
    if float(r) < lo:
        r = np.nextafter(r, cast(math.inf))
    elif float(r) > hi:
        r = np.nextafter(r, cast(-math.inf))
    return float(r)


def _ordinary(dtype, lo, hi):
    if dtype == ember.bool:
        return st.booleans()
    if dtype == ember.uint8:
        return st.integers(max(0, int(lo)), 15)
    if dtype in (ember.int32, ember.int64):
        return st.integers(max(int(lo), -15), min(int(hi), 15))
    width = 32 if dtype == ember.float32 else 64
    if width == 32:  # bounds representable in float32, inside [lo, hi]
        lo, hi = (float(np.nextafter(np.float32(v), np.float32(toward)) if float(np.float32(v)) != v and
                        (float(np.float32(v)) < v) == (toward > 0) else np.float32(v))
                  for v, toward in ((lo, np.inf), (hi, -np.inf)))
    return st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def elements(dtype, lo=None, hi=None, exclude_zero: bool = False, boundary: bool = True, **boundary_kwargs):
    """Element values of a dtype: floats representable in the dtype, small ints (so that products fit
    in uint8), bools; all in [lo, hi] (default [-8, 8]). With boundary, some draws are
    boundary_values(dtype, lo, hi, ...) instead (all of them when no range is given)."""
    ordinary = _ordinary(dtype, DEFAULT_LO if lo is None else lo, DEFAULT_HI if hi is None else hi)
    if exclude_zero:
        ordinary = ordinary.filter(lambda v: v != 0)
    specials = boundary_values(dtype, lo, hi, exclude_zero=exclude_zero, **boundary_kwargs) if boundary else []
    return _mix(ordinary, specials, 1) if specials else ordinary


def _mix(ordinary, specials, weight: int):
    """ordinary, or (weight in six draws) one of the specials, the non-finite ones as often as the
    others together; shrinks towards the ordinary values."""
    finite = [v for v in specials if not isinstance(v, float) or math.isfinite(v)]
    groups = [st.sampled_from(g) for g in ([v for v in specials if v not in finite], finite) if g]
    # NB: one_of picks a branch uniformly and shrinks towards the first (flatmap would cost a draw more)
    return st.one_of([ordinary] * (6 - weight) + [groups[k % len(groups)] for k in range(weight)])


@st.composite
def arrays(draw, dtype, shape, lo=None, hi=None, exclude_zero: bool = False, boundary: bool = True,
           **boundary_kwargs):
    """A NumPy array of that Ember dtype and shape. With boundary, about three arrays in ten have some
    boundary values among their elements and three in ten are made of one to three values only (ties,
    boundary values among them or not); the others have ordinary values only (Hypothesis' arrays repeat
    a fill value too)."""
    ordinary = elements(dtype, lo, hi, exclude_zero, boundary=False)
    specials = boundary_values(dtype, lo, hi, exclude_zero=exclude_zero, **boundary_kwargs) \
        if boundary and numel(shape) else []
    flavour = draw(st.integers(0, 9)) if specials else 0
    if flavour >= 7:  # ties: a few values, each used many times (placed by a seed: one draw, not numel)
        pool = draw(st.lists(_mix(ordinary, specials, 3), min_size=1, max_size=3))
        picks = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(0, len(pool), numel(shape))
        return hnp_array_of(dtype, shape, [pool[i] for i in picks])
    return draw(hnp.arrays(NUMPY_OF[dtype], shape, elements=_mix(ordinary, specials, 2) if flavour >= 4 else ordinary))


def hnp_array_of(dtype, shape, values) -> np.ndarray:
    """values (a flat list) as an array of that Ember dtype and shape."""
    return np.array(values, dtype=NUMPY_OF[dtype]).reshape(shape)


class Drawn(NamedTuple):
    """A tensor and the NumPy array of the values it shows (same dtype and shape). A "strided" tensor
    is a view of `buffer[index]`, a bigger NumPy array whose memory it shares."""
    tensor: ember.Tensor
    array: np.ndarray
    buffer: Optional[np.ndarray] = None
    index: Optional[tuple] = None


def _expand_dims_of(draw, shape) -> list:
    return [d for d, side in enumerate(shape) if side > 1 and draw(st.booleans())]


@st.composite
def layout(draw, array: np.ndarray, layouts=LAYOUTS, requires_grad: bool = False) -> Drawn:
    """The array as an Ember tensor in a drawn layout. "expanded" turns some dims into stride-0
    broadcasts of their first slice, so the values (returned with the tensor) may change."""
    kind = draw(st.sampled_from(layouts)) if array.ndim > 0 else "contiguous"
    shape = array.shape
    big = index = None
    if kind == "permuted" and array.ndim > 1:
        perm = draw(st.permutations(range(array.ndim)))
        inverse = np.argsort(perm)
        t = ember.tensor(np.ascontiguousarray(array.transpose(perm))).permute(*[int(i) for i in inverse])
    elif kind == "strided":
        steps = [draw(st.integers(1, 3)) for _ in shape]
        offsets = [draw(st.integers(0, 2)) for _ in shape]
        big = np.zeros([o + max(n, 1) * s for n, s, o in zip(shape, steps, offsets)], array.dtype)
        index = tuple(slice(o, o + n * s, s) for n, s, o in zip(shape, steps, offsets))
        view = big[index]
        view[...] = array
        t = ember.from_numpy(view)  # a view into big: strides, data offset
    elif kind == "expanded":
        dims = _expand_dims_of(draw, shape)
        small = array[tuple(slice(0, 1) if d in dims else slice(None) for d in range(array.ndim))]
        array = np.broadcast_to(small, shape).copy()
        t = ember.tensor(np.ascontiguousarray(small)).expand(*shape)
    else:
        t = ember.tensor(array)
    assert tuple(t.shape) == shape, (t.shape, shape)
    if requires_grad:
        t = t.detach()
        t.requires_grad_(True)
    return Drawn(t, array, big, index)


@st.composite
def tensors(draw, shape=None, dtype=None, dtypes=ALL_DTYPES, layouts=LAYOUTS, requires_grad: bool = False,
            **element_kwargs) -> Drawn:
    """A tensor of a drawn (or given) shape and dtype in a drawn layout, with its values."""
    if shape is None:
        shape = draw(shapes())
    if dtype is None:
        dtype = draw(st.sampled_from(dtypes))
    array = draw(arrays(dtype, shape, **element_kwargs))
    return draw(layout(array, layouts=layouts, requires_grad=requires_grad))


def python_scalars(dtype=None):
    """A Python bool, int or float (of the kind dtype asks for, when given); one float in six is a
    boundary value of float32 (inf and NaN among them)."""
    if dtype == "bool" or dtype is bool:
        return st.booleans()
    if dtype == "int" or dtype is int:
        return st.integers(-15, 15)
    floats = _mix(st.floats(-8, 8, allow_nan=False, width=32), boundary_values(ember.float32), 1)
    if dtype == "float" or dtype is float:
        return floats
    return st.one_of(st.booleans(), st.integers(-15, 15), floats)


def seeds():
    """A seed for NumPy's generator: for data whose exact values do not matter to shrinking."""
    return st.integers(0, 2**32 - 1)


# ---- indexing keys

@st.composite
def index_keys(draw, shape):
    """An index for a tensor of that shape, as (ember key, list of items with NumPy arrays): ints (negative
    too), slices (steps > 0, out-of-range bounds), None, one Ellipsis, and either int index lists/tensors
    of one common shape or one bool mask."""
    rank = len(shape)
    advanced = draw(st.sampled_from(["none", "ints", "mask"]))
    index_shape = draw(st.sampled_from([(1,), (2,), (3,), (2, 2), (0,)]))
    use_ellipsis = draw(st.booleans())
    ell_start = draw(st.integers(0, rank)) if use_ellipsis else rank
    ell_end = draw(st.integers(ell_start, rank)) if use_ellipsis else rank
    items, d, mask_used = [], 0, False
    while d < rank:
        if d == ell_start and use_ellipsis:
            items.append(Ellipsis)
            d = ell_end
            use_ellipsis = False
            continue
        limit = ell_start if d < ell_start else rank
        size = shape[d]
        kinds = ["slice", "full"] + (["int"] if size else [])
        if advanced == "ints" and size:
            kinds += ["array", "list"]
        if advanced == "mask" and not mask_used:
            kinds.append("mask")
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "full":
            items.append(slice(None))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 2, size + 2)
            items.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3))))
        elif kind in ("array", "list"):
            values = np.array(draw(st.lists(st.integers(-size, size - 1), min_size=int(np.prod(index_shape)),
                                            max_size=int(np.prod(index_shape)))), np.int64).reshape(index_shape)
            if kind == "list" and values.size:
                items.append(values.tolist())
            else:
                items.append(ember.tensor(values, dtype=draw(st.sampled_from([ember.int64, ember.int32]))))
        else:
            span = draw(st.integers(1, limit - d))
            mask = draw(st.lists(st.booleans(), min_size=int(np.prod(shape[d:d + span])),
                                 max_size=int(np.prod(shape[d:d + span]))))
            items.append(ember.tensor(np.array(mask, bool).reshape(shape[d:d + span])))
            mask_used = True
            d += span
            continue
        d += 1
    if use_ellipsis:
        items.append(Ellipsis)
    if Ellipsis not in items and items and draw(st.booleans()):  # trailing full slices may be left out
        while items and items[-1] == slice(None):
            items.pop()
    for _ in range(draw(st.integers(0, max(0, min(2, MAX_RANK - rank))))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0], items
    return tuple(items), items


def _as_numpy_item(item):
    if isinstance(item, ember.Tensor):
        return item.numpy()
    if isinstance(item, list):
        return np.array(item, np.int64)
    return item


def torch_getitem(array, items):
    """NumPy's indexing made to follow PyTorch: ints (and slices, None, Ellipsis) apply first as views,
    then the advanced indices (int arrays, bool masks) together."""
    stage1, stage2, advanced = [], [], False
    for item in map(_as_numpy_item, items):
        if item is None:
            stage1.append(None)
            stage2.append(slice(None))
        elif item is Ellipsis:
            stage1.append(Ellipsis)
            stage2.append(Ellipsis)
        elif isinstance(item, int):
            stage1.append(item)
        elif isinstance(item, slice):
            stage1.append(item)
            stage2.append(slice(None))
        else:
            advanced = True
            stage1.extend([slice(None)] * (item.ndim if item.dtype == np.bool_ else 1))
            stage2.append(item)
    out = array[tuple(stage1)]
    consumed = sum(item.ndim if isinstance(item, np.ndarray) and item.dtype == np.bool_ else 1
                   for item in stage2 if item is not Ellipsis)
    if any(item is Ellipsis for item in stage2) and out.ndim == consumed:
        # NB: an Ellipsis of no dims separates no advanced indices in PyTorch (x[:, i, ..., j] on a 2-D
        # tensor keeps them in place); NumPy's would move them to the front
        stage2 = [item for item in stage2 if item is not Ellipsis]
    return out[tuple(stage2)] if advanced else out
