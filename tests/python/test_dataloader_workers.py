"""DataLoader's process workers (ember/utils/data/_worker.py), against PyTorch's contract: batches
in the sampler's order from fork and spawn workers, worker_init_fn and get_worker_info() in each
worker, seeds base_seed + worker_id for random / NumPy / Ember, errors raised again with the
worker's traceback, no hang when a worker dies or stalls, persistent workers, IterableDataset
sharding, and tensors of every dtype arriving whole. Data sets are module-level so that spawned
workers can unpickle them."""
import multiprocessing
import os
import random
import signal
import time

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.tensor([i * i]), i


class WhoLoads(Dataset):
    """(sample index, worker id, worker pid, the worker's seed, draws from its three generators)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "pid": os.getpid(), "seed": info.seed, "n": info.num_workers,
                "random": random.random(), "numpy": float(np.random.rand()), "ember": ember.rand(1).item()}


class Broken(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"sample {i} is broken")
        if i == 4:
            raise ZeroDivisionError("division in sample 4")
        return i


class Dies(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3)
        return i


class Stream(IterableDataset):
    """0 .. n-1, each worker taking every num_workers-th element (PyTorch's sharding recipe)."""

    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def record_init(worker_id):
    info = get_worker_info()
    assert info.id == worker_id
    os.environ["EMBER_TEST_INIT"] = str(worker_id)


class InitSeen(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.environ.get("EMBER_TEST_INIT", "none")


def failing_init(worker_id):
    raise RuntimeError(f"init of worker {worker_id} failed")


def flat(batches):
    return [v for b in batches for v in b.tolist()]


@pytest.mark.parametrize("context", [None, "fork", "spawn"])
def test_process_workers_hand_out_batches_in_the_samplers_order(context):
    n = 23 if context != "spawn" else 9
    loader = DataLoader(Squares(n), batch_size=4, shuffle=True, num_workers=2, multiprocessing_context=context,
                        generator=ember.Generator(3), prefetch_factor=3, pin_memory=True)
    serial = DataLoader(Squares(n), batch_size=4, shuffle=True, generator=ember.Generator(3))
    with pytest.warns(UserWarning, match="no accelerator is found"):  # pin_memory=True changes nothing, as torch's
        got = list(loader)
    want = list(serial)
    assert [y.tolist() for _, y in got] == [y.tolist() for _, y in want]
    assert all(x.tolist() == w.tolist() for (x, _), (w, _) in zip(got, want))
    assert multiprocessing.active_children() == []


def test_each_worker_is_a_process_seeded_from_base_seed_plus_its_id():
    def load():
        return list(DataLoader(WhoLoads(), batch_size=2, num_workers=2, generator=ember.Generator(9)))

    first, again = load(), load()
    samples = [{k: (v[j].item() if isinstance(v, ember.Tensor) else v[j]) for k, v in b.items()}
               for b in first for j in range(2)]
    assert {s["id"] for s in samples} == {0, 1} and all(s["n"] == 2 for s in samples)
    assert all(s["pid"] != os.getpid() for s in samples) and len({s["pid"] for s in samples}) == 2
    seeds = {s["id"]: s["seed"] for s in samples}
    assert seeds[1] == seeds[0] + 1
    for s in samples:  # batches alternate between the workers: each worker's first draw is its seed's
        if s["i"] in (0, 2):
            assert s["random"] == random.Random(s["seed"]).random()
    for key in ("random", "numpy", "ember"):
        assert [b[key].tolist() for b in first] == [b[key].tolist() for b in again]
    next_epoch = list(DataLoader(WhoLoads(), batch_size=2, num_workers=2, generator=ember.Generator(10)))
    assert [b["random"].tolist() for b in next_epoch] != [b["random"].tolist() for b in first]


def first_as_tensor(batch):
    return ember.tensor([int(batch[0])])


def test_worker_init_fn_runs_in_each_worker_and_its_errors_reach_the_loop():
    assert flat(DataLoader(InitSeen(), batch_size=1, num_workers=2, worker_init_fn=record_init,
                           collate_fn=first_as_tensor)) == [0, 1, 0, 1]
    assert "EMBER_TEST_INIT" not in os.environ
    with pytest.raises(RuntimeError, match=r"(?s)in DataLoader worker process 0.*init of worker 0 failed"):
        list(DataLoader(InitSeen(), num_workers=1, worker_init_fn=failing_init))


def test_errors_in_workers_are_raised_again_with_the_workers_traceback():
    with pytest.raises(KeyError) as caught:
        list(DataLoader(Broken(), batch_size=1, num_workers=2))
    message = str(caught.value)
    assert "Caught KeyError in DataLoader worker process 1" in message
    assert "sample 3 is broken" in message and "in __getitem__" in message
    loader = DataLoader(Broken(), batch_size=1, num_workers=2, sampler=[4])
    with pytest.raises(ZeroDivisionError, match="division in sample 4"):
        list(loader)
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_makes_the_loader_raise_not_hang():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+ \(exit code -9\)\) exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))
    assert time.monotonic() - start < 20
    assert multiprocessing.active_children() == []


def test_a_stalled_worker_times_out():
    with pytest.raises(RuntimeError, match="timed out after 0.5 seconds"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.5))


def test_persistent_workers_serve_every_epoch_and_survive_a_break():
    loader = DataLoader(WhoLoads(), batch_size=2, num_workers=2, persistent_workers=True)
    pids = [{p for b in loader for p in b["pid"].tolist()} for _ in range(2)]
    assert pids[0] == pids[1] and len(pids[0]) == 2
    for _ in loader:
        break
    assert [b["i"].tolist() for b in loader] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert {p for b in loader for p in b["pid"].tolist()} == pids[0]
    fresh = DataLoader(WhoLoads(), batch_size=2, num_workers=2)
    assert {p for b in fresh for p in b["pid"].tolist()} != {p for b in fresh for p in b["pid"].tolist()}
    del loader
    assert multiprocessing.active_children() == []


def test_an_iterable_dataset_is_read_by_each_worker_as_in_pytorch():
    sharded = DataLoader(Stream(10), batch_size=2, num_workers=3)
    got = [b.tolist() for b in sharded]
    assert sorted(v for b in got for v in b) == list(range(10))
    assert got[:3] == [[0, 3], [1, 4], [2, 5]]  # round-robin over the workers
    duplicated = DataLoader(Stream(4, shard=False), batch_size=None, num_workers=2)
    assert sorted(int(v) for v in duplicated) == [0, 0, 1, 1, 2, 2, 3, 3]
    dropped = DataLoader(Stream(10), batch_size=3, drop_last=True, num_workers=2)
    assert [b.tolist() for b in dropped] == [[0, 2, 4], [1, 3, 5]]


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64,
                                   ember.uint8, ember.bool])
def test_tensors_of_every_dtype_arrive_whole(dtype):
    data = (ember.arange(24).reshape(6, 2, 2) % 3).to(dtype)
    loader = DataLoader(TensorDataset(data), batch_size=4, num_workers=2)
    batches = [x for (x,) in loader]
    assert [b.dtype for b in batches] == [dtype, dtype] and [b.shape for b in batches] == [(4, 2, 2), (2, 2, 2)]
    assert ember.cat(batches).float().tolist() == data.float().tolist()


def test_bad_arguments_name_themselves():
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(Squares(2), persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor is for num_workers > 0 only"):
        DataLoader(Squares(2), prefetch_factor=2)
    with pytest.raises(ValueError, match="worker_type must be 'process' or 'thread', got 'fiber'"):
        DataLoader(Squares(2), num_workers=1, worker_type="fiber")
    with pytest.raises(ValueError, match="timeout must be non-negative"):
        DataLoader(Squares(2), timeout=-1)
