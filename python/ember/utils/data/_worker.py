"""DataLoader's process workers, as torch.utils.data runs them: each worker is a process (of the
multiprocessing context the loader names: fork by default on Linux, or spawn, forkserver) that
takes (epoch, number, batch indices) from its own queue and puts (epoch, number, batch) on the one
result queue; batches travel pickled (a tensor's values as a NumPy array). The main process sends
tasks round-robin, at most prefetch_factor per worker ahead, and hands batches out in task order.

As in PyTorch: a worker seeds Python's `random`, NumPy's global generator and Ember's default
generator from base_seed + worker_id (base_seed is drawn once per epoch, or once for persistent
workers), runs worker_init_fn(worker_id), and answers get_worker_info(); an error in a worker is
raised again in the main process with the worker's traceback in its message; a worker that dies
(killed, crashed) makes the loader raise instead of hang; workers exit when their parent dies.
With an IterableDataset, each worker iterates its own copy of the data set (shard it with
get_worker_info(), as in PyTorch) and the loader hands out batches round-robin until every worker's
stream has ended.
"""
from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import pickle
import queue
import random
import sys
import time
import traceback
from typing import Any, Callable, Iterator

from ... import _C

WorkerInfo = collections.namedtuple("WorkerInfo", ["id", "num_workers", "seed", "dataset"])

_info: WorkerInfo | None = None  # set in a worker process
_STATUS_INTERVAL = 1.0  # seconds between checks that the workers (or, in a worker, the parent) live
_JOIN_TIMEOUT = 5.0


class MapFetcher:
    """A batch of a map-style data set from its indices (or one sample, without batching)."""

    def __init__(self, dataset: Any, batched: bool, collate_fn: Callable) -> None:
        self.dataset, self.batched, self.collate_fn = dataset, batched, collate_fn

    def __call__(self, indices: Any) -> Any:
        if self.batched:
            return self.collate_fn([self.dataset[i] for i in indices])
        return self.collate_fn(self.dataset[indices])


class IterableFetcher:
    """The next batch of a worker's own pass over an IterableDataset (StopIteration at its end)."""

    def __init__(self, dataset: Any, batch_size: int | None, drop_last: bool, collate_fn: Callable) -> None:
        self.dataset, self.batch_size, self.drop_last, self.collate_fn = dataset, batch_size, drop_last, collate_fn
        self.iterator: Iterator | None = None

    def restart(self) -> None:
        self.iterator = iter(self.dataset)

    def __call__(self, _: Any) -> Any:
        if self.iterator is None:
            self.restart()
        if self.batch_size is None:
            return self.collate_fn(next(self.iterator))
        chunk = list(itertools.islice(self.iterator, self.batch_size))
        if not chunk or (self.drop_last and len(chunk) < self.batch_size):
            raise StopIteration
        return self.collate_fn(chunk)


class _StreamEnded:
    """A worker's answer once its IterableDataset pass has ended."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class _KeyErrorMessage(str):
    # NB: KeyError's str() is the repr of its argument; this keeps the traceback's newlines.
    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception raised in a worker, sent to the main process and raised there again with the
    worker's traceback in its message (its type when it can be pickled and built from a message,
    else RuntimeError)."""

    def __init__(self, where: str) -> None:
        exc_type, exc, _ = sys.exc_info()
        self.message = (f"Caught {exc_type.__name__} {where}.\nOriginal "
                        + "".join(traceback.format_exception(exc_type, exc, exc.__traceback__)))
        try:
            pickle.loads(pickle.dumps(exc_type))
            self.exc_type = exc_type
        except Exception:  # noqa: BLE001  (a class defined in a function, say)
            self.exc_type = RuntimeError

    def reraise(self) -> None:
        message = _KeyErrorMessage(self.message) if self.exc_type is KeyError else self.message
        try:
            exc = self.exc_type(message)
        except Exception:  # noqa: BLE001  (a type that takes other arguments)
            raise RuntimeError(message) from None
        raise exc


def _seed_worker(seed: int) -> None:
    random.seed(seed)
    _C.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        return
    np.random.seed(np.random.SeedSequence(seed).generate_state(4))


def _worker_loop(fetcher: Any, index_queue: Any, result_queue: Any, worker_id: int, num_workers: int, seed: int,
                 init_fn: Callable | None, dataset: Any, parent_pid: int) -> None:
    global _info
    try:
        _seed_worker(seed)
        _C.set_num_threads(1)  # NB: as PyTorch: the workers share the cores; parallel ops would oversubscribe
        _info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = None
        if init_fn is not None:
            try:
                init_fn(worker_id)
            except Exception:  # noqa: BLE001  (answered to every task, as PyTorch does)
                init_error = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        epoch, ended = None, False
        while True:
            try:
                task = index_queue.get(timeout=_STATUS_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent_pid:  # the main process died: no one will read
                    return
                continue
            if task is None:
                result_queue.cancel_join_thread()  # NB: unread batches must not keep this process alive
                return
            task_epoch, number, indices = task
            if task_epoch != epoch:  # a new epoch of persistent workers: a new pass over the stream
                epoch, ended = task_epoch, False
                if isinstance(fetcher, IterableFetcher):
                    fetcher.restart()
            if init_error is not None:
                out = init_error
            elif ended:
                out = _StreamEnded(worker_id)
            else:
                try:
                    out = fetcher(indices)
                except StopIteration:
                    out, ended = _StreamEnded(worker_id), True
                except Exception:  # noqa: BLE001  (raised again in the main process)
                    out = ExceptionWrapper(f"in DataLoader worker process {worker_id}")
            result_queue.put((task_epoch, number, out))
            del out
    except KeyboardInterrupt:
        pass


def _context(spec: Any) -> Any:
    if spec is None:
        return multiprocessing.get_context()
    if isinstance(spec, str):
        return multiprocessing.get_context(spec)
    return spec


class ProcessWorkers:
    """num_workers worker processes and their queues; batches(tasks) runs one epoch on them."""

    def __init__(self, fetcher: Any, num_workers: int, prefetch_factor: int, base_seed: int,
                 init_fn: Callable | None, dataset: Any, context: Any) -> None:
        ctx = _context(context)
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.result_queue = ctx.Queue()
        self.index_queues, self.workers = [], []
        self.epoch = 0
        for i in range(num_workers):
            q = ctx.Queue()
            w = ctx.Process(target=_worker_loop, name=f"ember-data-{i}", daemon=True,
                            args=(fetcher, q, self.result_queue, i, num_workers, base_seed + i, init_fn, dataset,
                                  os.getpid()))
            w.start()
            self.index_queues.append(q)
            self.workers.append(w)

    def batches(self, tasks: Iterator[Any], timeout: float | None) -> Iterator[Any]:
        """The batches of `tasks` (batch indices; None for an IterableDataset), in their order."""
        self.epoch += 1
        epoch = self.epoch
        active = [True] * self.num_workers
        turn = itertools.cycle(range(self.num_workers))
        results: dict = {}
        sent = 0

        def send() -> bool:
            nonlocal sent
            if not any(active):
                return False
            try:
                indices = next(tasks)
            except StopIteration:
                return False
            worker = next(w for w in turn if active[w])
            self.index_queues[worker].put((epoch, sent, indices))
            sent += 1
            return True

        for _ in range(self.num_workers * self.prefetch_factor):
            if not send():
                break
        handed = 0
        while handed < sent:
            while handed not in results:
                got_epoch, number, out = self._receive(timeout)
                if got_epoch == epoch:  # NB: else left over from an epoch abandoned midway
                    results[number] = out
            out = results.pop(handed)
            handed += 1
            if isinstance(out, _StreamEnded):
                active[out.worker_id] = False
                continue
            send()
            if isinstance(out, ExceptionWrapper):
                out.reraise()
            yield out

    def _receive(self, timeout: float | None) -> tuple:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = _STATUS_INTERVAL if deadline is None else max(0.0, min(_STATUS_INTERVAL, deadline - time.monotonic()))
            try:
                return self.result_queue.get(timeout=wait)
            except queue.Empty:
                dead = [w for w in self.workers if not w.is_alive()]
                if dead:
                    self.shutdown()
                    codes = ", ".join(f"{w.pid} (exit code {w.exitcode})" for w in dead)
                    raise RuntimeError(f"DataLoader worker (pid(s) {codes}) exited unexpectedly") from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None

    def shutdown(self) -> None:
        """Stops the workers (those that do not stop in time are terminated) and closes the queues."""
        for q in self.index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self.workers:
            w.join(_JOIN_TIMEOUT)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in [*self.index_queues, self.result_queue]:
            q.cancel_join_thread()
            q.close()
        self.workers, self.index_queues = [], []
