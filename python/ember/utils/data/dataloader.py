"""DataLoader: batches of a data set, loaded in parallel when num_workers > 0, that resumes an epoch
exactly from its state_dict().

Workers are threads of this process, not processes: samples never go through pickle, Ember's ops
release the GIL, and so do NumPy's and most decoders; a data set whose __getitem__ is pure Python
gains nothing from them. Batches arrive in the sampler's order whatever the worker count.

Exact resume: state_dict() holds the sampler's state (for the random samplers, the seed of the
current epoch's order) and the number of batches handed out in that epoch; after
load_state_dict(), the next `for ... in loader` rebuilds the same order and starts at the batch
after the last one handed out, without loading the skipped ones. A sampler without state_dict()
is assumed to repeat its order (SequentialSampler does).
"""
from __future__ import annotations

import collections
import itertools
import queue
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator

from ... import _C
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_worker = threading.local()
WorkerInfo = collections.namedtuple("WorkerInfo", ["id", "num_workers", "seed", "dataset"])


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker thread: (id, num_workers, seed, dataset); elsewhere None."""
    return getattr(_worker, "info", None)


def default_collate(batch: Sequence[Any]) -> Any:
    """Stacks a list of samples into a batch as PyTorch's default_collate does: tensors and NumPy
    arrays are stacked on a new first dim, Python ints / floats / bools become int64 / float64 /
    bool tensors, strings stay a list, and dicts, named tuples, tuples and lists are collated field
    by field (a tuple of fields comes back as a list, as in PyTorch)."""
    import numpy as np

    elem = batch[0]
    if isinstance(elem, _C.Tensor):
        return _C.stack(list(batch))
    if isinstance(elem, np.ndarray):
        return _C.stack([_C.from_numpy(np.ascontiguousarray(b)) for b in batch])
    if isinstance(elem, np.generic):
        return _C.from_numpy(np.asarray(batch))
    if isinstance(elem, bool):
        return _tensor(batch, "bool")
    if isinstance(elem, int):
        return _tensor(batch, "int64")
    if isinstance(elem, float):
        return _tensor(batch, "float64")
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("default_collate: each element in the batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(f"default_collate: batches must contain tensors, NumPy arrays, numbers, dicts or lists; "
                    f"found {type(elem).__name__}")


def _tensor(values: Sequence[Any], dtype: str) -> _C.Tensor:
    import numpy as np

    return _C.from_numpy(np.asarray(values, dtype=dtype))


class DataLoader:
    """torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
    timeout=0, worker_init_fn=None, generator=None, prefetch_factor=None, persistent_workers=False);
    see the module docstring for workers and resume. len(loader) is the number of batches."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None,
                 generator: _C.Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be a non-negative int, got {num_workers!r}")
        if prefetch_factor is not None and num_workers == 0:
            raise ValueError("DataLoader: prefetch_factor is for num_workers > 0 only")
        self.dataset, self.num_workers, self.timeout = dataset, num_workers, timeout or None
        self.pin_memory, self.drop_last, self.worker_init_fn = pin_memory, drop_last, worker_init_fn
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.persistent_workers, self.generator = persistent_workers, generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError("DataLoader: an IterableDataset takes no shuffle, sampler or batch_sampler "
                             "(its __iter__ decides the order)")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler is mutually exclusive with batch_size, shuffle, "
                                 "sampler and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("DataLoader: batch_size=None (no batching) is mutually exclusive with drop_last")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler is mutually exclusive with shuffle")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None else (lambda x: x))
        self._served = 0        # batches handed out in the current epoch
        self._skip = 0          # batches to skip at the next epoch's start (after load_state_dict)
        self._in_epoch = False

    # ---- sizes
    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # TypeError when the stream has no length, as in PyTorch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    # ---- iteration
    def _index_batches(self) -> Iterator[Any]:
        # NB: a resumed epoch re-creates the saved order here (the sampler was told its seed).
        source = self.batch_sampler if self.batch_sampler is not None else self.sampler
        return iter(source)

    def _fetch(self, indices: Any) -> Any:
        if self.batch_sampler is None:
            return self.collate_fn(self.dataset[indices])
        return self.collate_fn([self.dataset[i] for i in indices])

    def _stream_batches(self) -> Iterator[Any]:
        it = iter(self.dataset)
        if self.batch_size is None:
            yield from (self.collate_fn(x) for x in it)
            return
        while True:
            chunk = list(itertools.islice(it, self.batch_size))
            if not chunk or (self.drop_last and len(chunk) < self.batch_size):
                return
            yield self.collate_fn(chunk)

    def __iter__(self) -> Iterator[Any]:
        skip, self._skip = self._skip, 0
        self._served, self._in_epoch = skip, True
        if self._iterable:
            batches = self._stream_batches()
            for _ in range(skip):
                next(batches, None)
            return self._hand_out(batches)
        indices = self._index_batches()
        for _ in range(skip):
            next(indices, None)
        if self.num_workers == 0:
            return self._hand_out(self._fetch(i) for i in indices)
        return self._hand_out(self._parallel(indices))

    def _hand_out(self, batches: Iterator[Any]) -> Iterator[Any]:
        for batch in batches:
            self._served += 1
            yield batch
        self._in_epoch = False

    def _parallel(self, indices: Iterator[Any]) -> Iterator[Any]:
        # num_workers threads take (sequence number, batch indices) from a queue; results are
        # handed out in sequence order, at most num_workers * prefetch_factor batches ahead.
        tasks: queue.SimpleQueue = queue.SimpleQueue()
        results: dict = {}
        done = threading.Condition()
        # NB: not drawn from the default generator (PyTorch draws it), which would make a resumed
        # epoch's random numbers differ from the uninterrupted run's.
        seed = _C.default_generator().initial_seed()

        def work(worker_id: int) -> None:
            _worker.info = WorkerInfo(worker_id, self.num_workers, seed + worker_id, self.dataset)
            failed = None
            if self.worker_init_fn is not None:
                try:
                    self.worker_init_fn(worker_id)
                except BaseException as e:  # NB: reported with the first batch this worker takes
                    failed = e
            while (task := tasks.get()) is not None:
                number, batch_indices = task
                try:
                    if failed is not None:
                        raise failed
                    out = (True, self._fetch(batch_indices))
                except BaseException as e:
                    out = (False, e)
                with done:
                    results[number] = out
                    done.notify_all()

        workers = [threading.Thread(target=work, args=(i,), name=f"ember-data-{i}", daemon=True)
                   for i in range(self.num_workers)]
        for w in workers:
            w.start()
        submitted = 0
        try:
            for batch_indices in itertools.islice(indices, self.num_workers * self.prefetch_factor):
                tasks.put((submitted, batch_indices))
                submitted += 1
            for number in itertools.count():
                if number == submitted:
                    return
                with done:
                    if not done.wait_for(lambda: number in results, timeout=self.timeout):
                        raise RuntimeError(f"DataLoader: no batch from the workers in {self.timeout} s (timeout)")
                    ok, value = results.pop(number)
                for batch_indices in itertools.islice(indices, 1):
                    tasks.put((submitted, batch_indices))
                    submitted += 1
                if not ok:
                    raise value
                yield value
        finally:
            for _ in workers:
                tasks.put(None)  # each worker ends after its current batch

    # ---- exact resume
    def state_dict(self) -> dict:
        """{"sampler": the sampler's state (if it has one), "batches_served": batches handed out in
        the current epoch (0 between epochs)}: plain values ember.save writes."""
        state: dict = {"batches_served": self._served if self._in_epoch else 0}
        sampler = self.sampler
        if isinstance(getattr(self.batch_sampler, "sampler", None), Sampler):
            sampler = self.batch_sampler.sampler
        if self._in_epoch and sampler is not None and hasattr(sampler, "state_dict"):
            if getattr(sampler, "_resumes_itself", False):
                # NB: a DistributedSampler keeps its own position (samples the whole job consumed),
                # which stays right when the job resumes on another number of ranks; skipping
                # batches would not.
                samples = min(self._served * (self.batch_size or 1), len(sampler))
                state["sampler"] = sampler.state_dict(samples)
                state["batches_served"] = 0
            else:
                state["sampler"] = sampler.state_dict()
        return state

    def load_state_dict(self, state: Mapping) -> None:
        """The next `for ... in loader` continues the saved epoch after its last handed-out batch
        (or, for a state saved between epochs, begins a new one)."""
        served = state.get("batches_served", 0)
        if not isinstance(served, int) or served < 0:
            raise ValueError(f"DataLoader.load_state_dict: batches_served must be a non-negative int, got {served!r}")
        sampler = self.sampler
        if isinstance(getattr(self.batch_sampler, "sampler", None), Sampler):
            sampler = self.batch_sampler.sampler
        if "sampler" in state:
            if sampler is None or not hasattr(sampler, "load_state_dict"):
                raise ValueError("DataLoader.load_state_dict: the state holds a sampler state, but this loader's "
                                 f"sampler ({type(sampler).__name__}) takes none")
            sampler.load_state_dict(state["sampler"])
        self._skip = served
        self._served, self._in_epoch = 0, False
