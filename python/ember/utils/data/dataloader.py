"""DataLoader: batches of a data set, loaded in parallel when num_workers > 0, that resumes an epoch
exactly from its state_dict().

Workers are processes by default, as in PyTorch (ember/utils/data/_worker.py: fork or spawn per
multiprocessing_context, worker_init_fn, per-worker seeds base_seed + worker_id, get_worker_info(),
errors raised again with the worker's traceback, RuntimeError for a dead worker, persistent_workers,
prefetch_factor): scripts count on their semantics (a worker's own copy of the data set, seeded
random augmentations, IterableDataset sharding by worker id), and a __getitem__ written in Python
runs in parallel only there. worker_type="thread" runs them as threads of this process instead:
samples never go through pickle and nothing needs to be picklable, and Ember's ops, NumPy and most
decoders release the GIL, so a data set that does its work there gains as much; an IterableDataset
is then read by the main thread. pin_memory=True changes nothing and warns, as torch's without an
accelerator (_pin_memory.py). Batches
arrive in the sampler's order whatever the workers.

Exact resume: state_dict() holds the sampler's state (for the random samplers, the seed of the
current epoch's order), the number of batches handed out in that epoch and the epoch's index
(from which the workers' seeds come); after load_state_dict(), the next `for ... in loader`
rebuilds the same order (and worker seeds) and starts at the batch after the last one handed
out, without loading the skipped ones (an IterableDataset's skipped batches are loaded and
dropped). A sampler without state_dict() is assumed to repeat its order (SequentialSampler does).
"""
from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Iterator

from ... import _C
from ._pin_memory import warn_pin_memory
from . import _worker
from ._worker import IterableFetcher, MapFetcher, ProcessWorkers, WorkerInfo
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

_worker_thread = threading.local()


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker (process or thread): (id, num_workers, seed, dataset); elsewhere None."""
    return getattr(_worker_thread, "info", None) or _worker._info


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


def _mix(seed: int, epoch: int) -> int:
    """A 62-bit seed from (seed, epoch) (SplitMix64's finalizer): far apart for neighbours."""
    mask = (1 << 64) - 1
    z = (seed * 0x9E3779B97F4A7C15 + epoch + 1) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return (z ^ (z >> 31)) >> 2


def _unbatched(sample: Any) -> Any:
    # NB: a module-level function, so that spawned workers can unpickle it.
    return sample


class DataLoader:
    """torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
    timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None,
    prefetch_factor=None, persistent_workers=False), and worker_type="process" or "thread"; see
    the module docstring for workers and resume. len(loader) is the number of batches."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: _C.Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True,
                 worker_type: str = "process") -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be a non-negative int, got {num_workers!r}")
        if prefetch_factor is not None and num_workers == 0:
            raise ValueError("DataLoader: prefetch_factor is for num_workers > 0 only")
        if prefetch_factor is not None and (not isinstance(prefetch_factor, int) or prefetch_factor < 1):
            raise ValueError(f"DataLoader: prefetch_factor must be a positive int, got {prefetch_factor!r}")
        if persistent_workers and num_workers == 0:
            raise ValueError("DataLoader: persistent_workers option needs num_workers > 0")
        if worker_type not in ("process", "thread"):
            raise ValueError(f"DataLoader: worker_type must be 'process' or 'thread', got {worker_type!r}")
        if timeout < 0:
            raise ValueError(f"DataLoader: timeout must be non-negative, got {timeout!r}")
        self.dataset, self.num_workers, self.timeout = dataset, num_workers, timeout or None
        self.pin_memory, self.drop_last, self.worker_init_fn = pin_memory, drop_last, worker_init_fn
        self.pin_memory_device = pin_memory_device
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.persistent_workers, self.generator = persistent_workers, generator
        self.multiprocessing_context, self.worker_type = multiprocessing_context, worker_type
        self._workers: ProcessWorkers | None = None  # persistent process workers
        self._base_seed = 0                          # the current epoch's: workers get base + id
        self._epochs_begun = 0
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
            default_collate if batch_size is not None or batch_sampler is not None else _unbatched)
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

    def _fetcher(self) -> Any:
        if self._iterable:
            return IterableFetcher(self.dataset, self.batch_size, self.drop_last, self.collate_fn)
        return MapFetcher(self.dataset, self.batch_sampler is not None, self.collate_fn)

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
        warn_pin_memory(self)  # torch: pinned memory needs an accelerator
        skip, self._skip = self._skip, 0
        self._served, self._in_epoch = skip, True
        processes = self.num_workers > 0 and self.worker_type == "process"
        self._base_seed = self._epoch_base_seed()
        if self._iterable:
            batches = self._process_batches(itertools.repeat(None)) if processes else self._stream_batches()
            for _ in range(skip):
                next(batches, None)
            return self._hand_out(batches)
        indices = self._index_batches()
        for _ in range(skip):
            next(indices, None)
        if self.num_workers == 0:
            fetch = self._fetcher()
            return self._hand_out(fetch(i) for i in indices)
        return self._hand_out(self._process_batches(indices) if processes else self._parallel(indices))

    def _epoch_base_seed(self) -> int:
        # NB: PyTorch draws it from the generator when an epoch begins. Ember derives it from the
        # generator's seed and the epoch's index instead, without drawing: a draw would make the
        # order of a loader with workers differ from one without, and a resumed run's random
        # numbers differ from the uninterrupted run's. It differs per epoch and per seed, and a
        # resumed epoch gets it back. Persistent workers keep the seed they started with.
        epoch, self._epochs_begun = self._epochs_begun, self._epochs_begun + 1
        if self.persistent_workers and self._workers is not None and self._workers.workers:
            return self._base_seed
        source = self.generator if self.generator is not None else _C.default_generator()
        return _mix(source.initial_seed(), epoch)

    def _process_batches(self, tasks: Iterator[Any]) -> Iterator[Any]:
        workers = self._workers
        if workers is None or not workers.workers:  # none yet, or shut down after a worker died
            workers = ProcessWorkers(self._fetcher(), self.num_workers, self.prefetch_factor, self._base_seed,
                                     self.worker_init_fn, self.dataset, self.multiprocessing_context)
            if self.persistent_workers:
                self._workers = workers
        try:
            yield from workers.batches(tasks, self.timeout)
        finally:
            # NB: persistent workers outlive an epoch left midway (a break) or an error in the
            # data set, as PyTorch's do; the results they still send for it are dropped.
            if not self.persistent_workers:
                workers.shutdown()

    def __del__(self) -> None:
        workers = getattr(self, "_workers", None)
        if workers is not None:
            workers.shutdown()

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
        seed = self._base_seed

        fetch = self._fetcher()

        def work(worker_id: int) -> None:
            _worker_thread.info = WorkerInfo(worker_id, self.num_workers, seed + worker_id, self.dataset)
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
                    out = (True, fetch(batch_indices))
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
        the current epoch (0 between epochs), "epoch": the epoch's index}: plain values ember.save
        writes."""
        state: dict = {"batches_served": self._served if self._in_epoch else 0}
        # NB: the index of the current epoch (or, between epochs, of the next): worker seeds
        state["epoch"] = self._epochs_begun - 1 if self._in_epoch else self._epochs_begun
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
        epoch = state.get("epoch", self._epochs_begun)
        if not isinstance(epoch, int) or epoch < 0:
            raise ValueError(f"DataLoader.load_state_dict: epoch must be a non-negative int, got {epoch!r}")
        self._epochs_begun = epoch
        self._served, self._in_epoch = 0, False
