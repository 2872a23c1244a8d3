"""ember.utils.data as PyTorch scripts use it: data sets, samplers, default_collate, random_split,
DataLoader with workers, and its exact mid-epoch resume, checked against plain-Python oracles."""
import collections
import io
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                              RandomSampler, SequentialSampler, Subset, SubsetRandomSampler,
                              TensorDataset, default_collate, get_worker_info, random_split)


def dataset(n):
    return TensorDataset(ember.arange(n).float().reshape(n, 1) * 10, ember.arange(n))


def labels(loader):
    return [y.tolist() for _, y in loader]


def test_tensor_dataset_rows_and_shape_errors():
    ds = dataset(5)
    x, y = ds[3]
    assert x.tolist() == [30.0] and y.item() == 3 and len(ds) == 5
    with pytest.raises(ValueError, match=r"same first dimension, got shapes \[5\], \[4, 2\]"):
        TensorDataset(ember.zeros(5), ember.zeros(4, 2))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), batch=st.integers(1, 12), drop_last=st.booleans(), shuffle=st.booleans(),
       workers=st.sampled_from([0, 1, 3]))
def test_an_epoch_visits_every_sample_once_in_batches_of_the_right_size(n, batch, drop_last, shuffle, workers):
    loader = DataLoader(dataset(n), batch_size=batch, shuffle=shuffle, drop_last=drop_last, num_workers=workers,
                        generator=ember.Generator(7))
    got = labels(loader)
    expect_batches = n // batch if drop_last else -(-n // batch)
    assert len(loader) == expect_batches == len(got)
    flat = [i for b in got for i in b]
    assert all(len(b) == batch for b in got[:-1]) and (not got or 1 <= len(got[-1]) <= batch)
    if drop_last:
        assert len(set(flat)) == len(flat) == expect_batches * batch
    else:
        assert sorted(flat) == list(range(n))
    if not shuffle:
        assert flat == list(range(len(flat)))


def test_shuffle_draws_a_new_order_each_epoch_and_workers_keep_it():
    loader = DataLoader(dataset(50), batch_size=8, shuffle=True, generator=ember.Generator(1))
    first, second = labels(loader), labels(loader)
    assert first != second
    threaded = DataLoader(dataset(50), batch_size=8, shuffle=True, num_workers=3, generator=ember.Generator(1))
    assert labels(threaded) == first and labels(threaded) == second


def test_default_collate_matches_pytorchs_types():
    Point = collections.namedtuple("Point", ["x", "y"])
    batch = [(ember.ones(2) * i, i, float(i), "s%d" % i, {"a": np.full(3, i, np.float32)}, Point(i, [i, i]), True)
             for i in range(4)]
    t, ints, floats, strs, dicts, points, flags = default_collate(batch)
    assert list(t.shape) == [4, 2] and t.dtype == ember.float32
    assert ints.dtype == ember.int64 and ints.tolist() == [0, 1, 2, 3]
    assert floats.dtype == ember.float64 and strs == ["s0", "s1", "s2", "s3"]
    assert list(dicts["a"].shape) == [4, 3] and dicts["a"].dtype == ember.float32
    assert isinstance(points, Point) and points.x.tolist() == [0, 1, 2, 3]
    assert [v.tolist() for v in points.y] == [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert flags.dtype == ember.bool
    with pytest.raises(TypeError, match="found object"):
        default_collate([object()])


def test_random_split_by_counts_and_fractions():
    ds = dataset(10)
    a, b = random_split(ds, [7, 3], generator=ember.Generator(0))
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    parts = random_split(ds, [0.5, 0.3, 0.2], generator=ember.Generator(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    thirds = random_split(dataset(10), [1 / 3, 1 / 3, 1 / 3], generator=ember.Generator(0))
    assert [len(p) for p in thirds] == [4, 3, 3]
    with pytest.raises(ValueError, match=r"sum to 9, the data set has 10"):
        random_split(ds, [5, 4])


def test_subset_and_concat_index_as_pytorch():
    ds = dataset(5)
    sub = Subset(ds, [4, 0])
    assert sub[0][1].item() == 4 and len(sub) == 2
    both = ds + dataset(3)
    assert isinstance(both, ConcatDataset) and len(both) == 8
    assert both[5][1].item() == 0 and both[-1][1].item() == 2 and both[4][1].item() == 4
    with pytest.raises(IndexError, match="index 8 out of range for 8"):
        both[8]


def test_samplers_and_a_batch_sampler_given_to_the_loader():
    ds = dataset(10)
    assert list(SequentialSampler(ds)) == list(range(10))
    assert sorted(RandomSampler(ds, generator=ember.Generator(3))) == list(range(10))
    assert len(list(RandomSampler(ds, replacement=True, num_samples=25))) == 25
    assert sorted(SubsetRandomSampler([1, 5, 7])) == [1, 5, 7]
    loader = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, drop_last=True))
    assert labels(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]] and loader.dataset is ds
    with pytest.raises(ValueError, match="sampler is mutually exclusive with shuffle"):
        DataLoader(ds, shuffle=True, sampler=SequentialSampler(ds))
    with pytest.raises(ValueError, match="batch_sampler is mutually exclusive"):
        DataLoader(ds, batch_size=4, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False))


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return {"x": i * i, "name": f"item{i}"}


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))


def test_a_python_dataset_a_collate_fn_and_a_stream():
    loader = DataLoader(Squares(), batch_size=4)
    first = next(iter(loader))
    assert first["x"].tolist() == [0, 1, 4, 9] and first["name"] == ["item0", "item1", "item2", "item3"]
    sizes = DataLoader(Squares(), batch_size=4, collate_fn=len)
    assert list(sizes) == [4, 2]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError(f"sample {i} is broken")
        return i


def test_thread_workers_run_in_parallel_threads_and_their_errors_reach_the_loop():
    seen = []

    def init(worker_id):
        seen.append((worker_id, threading.current_thread().name))

    class Info(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            info = get_worker_info()
            return info.num_workers if info is not None else -1

    loader = DataLoader(Info(), batch_size=4, num_workers=2, worker_init_fn=init, worker_type="thread")
    assert [b.tolist() for b in loader] == [[2] * 4] * 2
    assert sorted(w for w, _ in seen) == [0, 1] and all(name.startswith("ember-data") for _, name in seen)
    assert get_worker_info() is None
    with pytest.raises(KeyError, match="sample 5 is broken"):
        list(DataLoader(Failing(), batch_size=2, num_workers=2, worker_type="thread"))


def run_epochs(loader, epochs, stop_at=None):
    """Labels of each batch over `epochs` epochs; with stop_at=(epoch, batch), stops after handing
    out that batch and returns (labels so far, the loader's state, the global RNG state)."""
    out = []
    for epoch in range(epochs):
        for k, (_, y) in enumerate(loader):
            out.append(y.tolist())
            ember.randn(3)  # the training step draws from the default generator too
            if stop_at == (epoch, k):
                buffer = io.BytesIO()
                ember.save({"loader": loader.state_dict(), "rng": ember.get_rng_state()}, buffer)
                return out, buffer
    return out, None


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), batch=st.integers(1, 8), drop_last=st.booleans(),
       workers=st.sampled_from([(0, "process"), (2, "process"), (2, "thread")]), own_generator=st.booleans(),
       data=st.data())
def test_a_loader_resumed_from_its_state_dict_goes_on_exactly(n, batch, drop_last, workers, own_generator, data):
    def make():
        g = ember.Generator(11) if own_generator else None
        return DataLoader(dataset(n), batch_size=batch, shuffle=True, drop_last=drop_last,
                          num_workers=workers[0], worker_type=workers[1], generator=g)

    per_epoch = len(make())
    if per_epoch == 0:
        return
    epoch = data.draw(st.integers(0, 2))
    k = data.draw(st.integers(0, per_epoch - 1))
    ember.manual_seed(5)
    straight, _ = run_epochs(make(), 4)

    ember.manual_seed(5)
    loader = make()
    head, buffer = run_epochs(loader, 4, stop_at=(epoch, k))
    buffer.seek(0)
    ckpt = ember.load(buffer)
    resumed = make()  # a new process would build everything again
    ember.set_rng_state(ckpt["rng"])
    resumed.load_state_dict(ckpt["loader"])
    tail = []
    for _ in range(epoch, 4):
        for _, y in resumed:
            tail.append(y.tolist())
            ember.randn(3)
    assert head + tail == straight


def test_a_state_saved_between_epochs_starts_the_next_one():
    loader = DataLoader(dataset(6), batch_size=2, shuffle=True, generator=ember.Generator(2))
    labels(loader)
    state = loader.state_dict()
    assert state == {"batches_served": 0, "epoch": 1}
    loader.load_state_dict(state)
    assert sorted(i for b in labels(loader) for i in b) == list(range(6))
    with pytest.raises(ValueError, match="batches_served must be a non-negative int, got -1"):
        loader.load_state_dict({"batches_served": -1})
