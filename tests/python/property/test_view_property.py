"""Shape ops and joins against NumPy: reshape/view/flatten/permute/transpose/squeeze/unsqueeze/
expand/narrow/select/unbind/split/chunk over any rank and layout, and cat/stack of 1 to 40 tensors
(mixed dtypes, 0-size pieces)."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from reference import assert_close, cast_like_torch, promote_types
from strategies import ALL_DTYPES, MAX_INPUTS, NUMPY_OF, numel, shapes, tensors, valid_dim


@st.composite
def reshapes(draw, shape):
    """A new shape with the same number of elements (possibly one -1)."""
    n = numel(shape)
    if n == 0:
        new = list(draw(shapes(max_dims=4)).__class__((0,)) + tuple(draw(st.lists(st.integers(1, 3), max_size=3))))
    else:
        factors, rest = [], n
        while rest > 1:
            d = draw(st.sampled_from([f for f in range(2, rest + 1) if rest % f == 0]))
            factors.append(d)
            rest //= d
        factors += [1] * draw(st.integers(0, 2))
        new = list(draw(st.permutations(factors))) if factors else []
    if new and n > 0 and draw(st.booleans()):
        new[draw(st.integers(0, len(new) - 1))] = -1
    return tuple(new)


@given(data=st.data())
def test_reshape_view_flatten(data):
    """reshape (any layout) and view (contiguous) give NumPy's reshape; flatten(start, end) merges dims."""
    x = data.draw(tensors())
    new = data.draw(reshapes(x.array.shape))
    expected = x.array.reshape(new)
    assert_close(x.tensor.reshape(*new) if new else x.tensor.reshape(()), expected, dtype=x.tensor.dtype)
    assert_close(ember.reshape(x.tensor, list(new)), expected)
    c = x.tensor.contiguous()
    assert c.is_contiguous()
    assert_close(c.view(new), expected, what="view")
    assert_close(c.reshape_as(ember.zeros(expected.shape)), expected, what="reshape_as")
    assert_close(c.view_as(ember.zeros(expected.shape)), expected, what="view_as")
    rank = x.tensor.ndim
    start = data.draw(valid_dim(rank))
    end = data.draw(valid_dim(rank))
    s, e = start % max(rank, 1), end % max(rank, 1)
    if rank and s <= e:
        shape = x.array.shape
        flat = x.array.reshape(shape[:s] + (numel(shape[s:e + 1]),) + shape[e + 1:])
        assert_close(ember.flatten(x.tensor, start, end), flat, what=f"flatten({start}, {end})")
        assert_close(x.tensor.flatten(start_dim=start, end_dim=end), flat)
    elif rank == 0:
        assert_close(x.tensor.flatten(), x.array.reshape(1), what="flatten of 0-d")


@given(data=st.data())
def test_permute_transpose(data):
    """permute, transpose/swapaxes (negative dims too), t() and .T give NumPy's transposes."""
    x = data.draw(tensors())
    rank = x.tensor.ndim
    perm = data.draw(st.permutations(range(rank)))
    perm = [p - rank if data.draw(st.booleans()) else p for p in perm]
    expected = np.transpose(x.array, [p % rank for p in perm]) if rank else x.array
    assert_close(x.tensor.permute(*perm) if perm else x.tensor.permute(()), expected, dtype=x.tensor.dtype)
    assert_close(ember.permute(x.tensor, list(perm)), expected)
    d0, d1 = data.draw(valid_dim(rank)), data.draw(valid_dim(rank))
    swapped = np.swapaxes(x.array, d0, d1) if rank else x.array
    assert_close(x.tensor.transpose(d0, d1), swapped, what="transpose")
    assert_close(ember.swapaxes(x.tensor, d0, d1), swapped, what="swapaxes")
    assert_close(x.tensor.T, x.array.T, what=".T")
    if rank <= 2:
        assert_close(ember.t(x.tensor), x.array.T, what="t()")


@given(data=st.data())
def test_squeeze_unsqueeze(data):
    """squeeze() drops every size-1 dim, squeeze(d) only d if it has size 1; unsqueeze(d) inserts one
    (d in [-rank-1, rank])."""
    x = data.draw(tensors())
    rank = x.tensor.ndim
    assert_close(x.tensor.squeeze(), np.squeeze(x.array), dtype=x.tensor.dtype, what="squeeze()")
    d = data.draw(valid_dim(rank))
    expected = np.squeeze(x.array, d) if rank and x.array.shape[d] == 1 else x.array
    assert_close(ember.squeeze(x.tensor, d), expected, what=f"squeeze({d})")
    u = data.draw(st.integers(-rank - 1, rank))
    assert_close(x.tensor.unsqueeze(u), np.expand_dims(x.array, u), what=f"unsqueeze({u})")
    assert_close(ember.unsqueeze(x.tensor, u), np.expand_dims(x.array, u))


@given(data=st.data())
def test_expand_broadcast_to(data):
    """expand / expand_as / broadcast_to give NumPy's broadcast_to (new leading dims, -1 keeps a dim)."""
    x = data.draw(tensors(shape=data.draw(shapes(max_dims=5))))
    shape = x.array.shape
    target = [data.draw(st.integers(0, 3)) if s == 1 else s for s in shape]
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = lead + target
    expected = np.broadcast_to(x.array, target)
    args = list(lead) + [-1 if t == s and data.draw(st.booleans()) else t for s, t in zip(shape, target[len(lead):])]
    assert_close(x.tensor.expand(*args) if args else x.tensor.expand(()), expected, dtype=x.tensor.dtype)
    assert_close(x.tensor.expand_as(ember.zeros(target)), expected, what="expand_as")
    assert_close(ember.broadcast_to(x.tensor, target), expected, what="broadcast_to")


@given(data=st.data())
def test_narrow_select_unbind(data):
    """narrow(dim, start, length), select(dim, i) (negative i too) and unbind(dim) slice like NumPy."""
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1))))
    rank = x.tensor.ndim
    dim = data.draw(valid_dim(rank))
    size = x.array.shape[dim]
    start = data.draw(st.integers(0, size))
    length = data.draw(st.integers(0, size - start))
    expected = np.take(x.array, np.arange(start, start + length), axis=dim)
    assert_close(x.tensor.narrow(dim, start, length), expected, dtype=x.tensor.dtype, what="narrow")
    assert_close(ember.narrow(x.tensor, dim, start, length), expected)
    if size:
        i = data.draw(st.integers(-size, size - 1))
        assert_close(x.tensor.select(dim, i), np.take(x.array, i, axis=dim), what=f"select({dim}, {i})")
        assert_close(ember.select(x.tensor, dim, i), np.take(x.array, i, axis=dim))
    parts = ember.unbind(x.tensor, dim)
    assert len(parts) == size
    for i, p in enumerate(parts):
        assert_close(p, np.take(x.array, i, axis=dim), what=f"unbind part {i}")


@given(data=st.data())
def test_split_chunk(data):
    """split(size) / split(sizes) / chunk(n) cut like PyTorch: pieces of split_size (the last smaller),
    of the given sizes, or ceil(size / n) (fewer pieces when that divides the dim)."""
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=1))))
    dim = data.draw(valid_dim(x.tensor.ndim))
    size = x.array.shape[dim]
    step = data.draw(st.integers(1, max(size, 1) + 1))
    bounds = list(range(step, size, step))
    pieces = ember.split(x.tensor, step, dim)
    expected = np.split(x.array, bounds, axis=dim) if size else [x.array]
    assert len(pieces) == len(expected), (len(pieces), len(expected))
    for p, e in zip(pieces, expected):
        assert_close(p, e, dtype=x.tensor.dtype, what="split(int)")
    sizes = []
    rest = size
    while rest:
        sizes.append(data.draw(st.integers(0, rest)) if len(sizes) < 5 else rest)
        rest -= sizes[-1]
    sizes += [0] * data.draw(st.integers(0 if sizes else 1, 1))
    cuts = np.cumsum(sizes)[:-1] if sizes else []
    expected = np.split(x.array, cuts, axis=dim)
    pieces = x.tensor.split(sizes, dim)
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_close(p, e, what=f"split({sizes})")
    n = data.draw(st.integers(1, 5))
    per = -(-size // n) if size else 0
    chunks = ember.chunk(x.tensor, n, dim)
    expected = np.split(x.array, list(range(per, size, per)), axis=dim) if per else [x.array] * (1 if size == 0 else 0)
    if size == 0:
        expected = [x.array] * n  # PyTorch: n empty chunks
    assert len(chunks) == len(expected), (len(chunks), len(expected), size, n)
    for p, e in zip(chunks, expected):
        assert_close(p, e, what=f"chunk({n})")


@st.composite
def pieces_to_join(draw, stack: bool, max_count: int = MAX_INPUTS):
    """1 to max_count tensors of shapes equal except (for cat) along dim, some of size 0 there, of mixed
    dtypes and layouts; returns (drawn pieces, dim)."""
    count = draw(st.integers(1, max_count))
    base = list(draw(shapes(min_dims=1, max_dims=4, max_numel=12, allow_empty=False)))
    dim = draw(valid_dim(len(base) + (1 if stack else 0)))
    mixed = draw(st.booleans())
    dtype = draw(st.sampled_from(ALL_DTYPES))
    out = []
    for _ in range(count):
        shape = list(base)
        if not stack:
            shape[dim] = draw(st.integers(0, 3))
        piece_dtype = draw(st.sampled_from(ALL_DTYPES)) if mixed else dtype
        out.append(draw(tensors(shape=tuple(shape), dtype=piece_dtype)))
    return out, dim


def _joined_dtype(parts):
    dtype = None
    for p in parts:
        dtype = promote_types(dtype, p.tensor.dtype)
    return dtype


@pytest.mark.parametrize("name", ["cat", "concat"])
@given(data=st.data())
def test_cat_many_inputs(name, data):
    """cat of 1 to 40 tensors (0-size pieces, mixed dtypes, any layout) is NumPy's concatenate in the
    promoted dtype."""
    parts, dim = data.draw(pieces_to_join(stack=False))
    dtype = _joined_dtype(parts)
    expected = np.concatenate([p.array.astype(NUMPY_OF[dtype]) for p in parts], axis=dim)
    assert_close(getattr(ember, name)([p.tensor for p in parts], dim), expected, dtype=dtype,
                 what=f"{name} of {len(parts)}")


@given(data=st.data())
def test_stack_many_inputs(data):
    """stack of 1 to 40 tensors (mixed dtypes, any layout) along any dim is NumPy's stack."""
    parts, dim = data.draw(pieces_to_join(stack=True))
    dtype = _joined_dtype(parts)
    expected = np.stack([p.array.astype(NUMPY_OF[dtype]) for p in parts], axis=dim)
    assert_close(ember.stack([p.tensor for p in parts], dim), expected, dtype=dtype, what=f"stack of {len(parts)}")


@given(data=st.data())
def test_views_share_storage(data):
    """Writing through a view (transpose, narrow, select, reshape of a contiguous tensor, unsqueeze,
    expand, split) changes the base tensor where NumPy's view of the same base would."""
    x = data.draw(tensors(shape=data.draw(shapes(min_dims=2, max_dims=4, allow_empty=False)),
                          dtypes=[ember.float32, ember.int64], layouts=("contiguous",)))
    base = x.tensor.clone()
    ref = x.array.copy()
    how = data.draw(st.sampled_from(["transpose", "narrow", "select", "reshape", "unsqueeze", "split", "T"]))
    view, nview = {
        "transpose": lambda: (base.transpose(0, 1), ref.swapaxes(0, 1)),
        "narrow": lambda: (base.narrow(1, 0, 1), ref[:, 0:1]),
        "select": lambda: (base.select(0, 0), ref[0]),
        "reshape": lambda: (base.reshape(-1), ref.reshape(-1)),
        "unsqueeze": lambda: (base.unsqueeze(0), ref[None]),
        "split": lambda: (base.split(1, 0)[0], ref[0:1]),
        "T": lambda: (base.T, ref.T),
    }[how]()
    view.fill_(7)
    nview[...] = 7
    assert_close(base, ref, what=f"base after writing through {how}")
    del view, nview


@given(data=st.data())
def test_clone_contiguous_to(data):
    """clone and contiguous keep the values of any layout; to(dtype) / .float() / ... convert like NumPy's
    astype (floats to ints truncate toward zero, anything non-zero to bool is True)."""
    x = data.draw(tensors())
    assert_close(x.tensor.clone(), x.array, dtype=x.tensor.dtype, what="clone")
    c = x.tensor.contiguous()
    assert c.is_contiguous()
    assert_close(c, x.array, what="contiguous")
    target = data.draw(st.sampled_from(ALL_DTYPES))
    a = x.array
    if a.dtype.kind == "f" and NUMPY_OF[target].kind in "iu":
        # NB: a float outside the integer type's range (inf, NaN, negative for uint8) converts to an
        # undefined value in C++ and in PyTorch; those become 0 here.
        info = np.iinfo(NUMPY_OF[target])
        with np.errstate(invalid="ignore"):
            a = np.trunc(a)
            defined = (a >= max(info.min, -2.0 ** 63)) & (a < min(info.max + 1.0, 2.0 ** 63))
        if not defined.all():
            a = np.where(defined, a, 0).astype(a.dtype)
            x = x._replace(tensor=ember.tensor(a, dtype=x.tensor.dtype))
    assert_close(x.tensor.to(target), cast_like_torch(a, target) if target != ember.bool else a != 0, dtype=target,
                 what=f"to({target})")
    method = {ember.float32: "float", ember.float64: "double", ember.int64: "long", ember.int32: "int",
              ember.bool: "bool", ember.uint8: "byte"}[target]
    assert getattr(x.tensor, method)().dtype == target
    assert_close(x.tensor.to(dtype=target), getattr(x.tensor, method)(), what=method)
