"""DataLoader's process workers, as torch.utils.data runs them: each worker is a process (of the
multiprocessing context the loader names: fork by default on Linux, or spawn, forkserver) that
takes (epoch, number, batch indices) from its own queue and sends (epoch, number, batch) back on
its own result pipe; batches travel pickled (a tensor's values as a NumPy array). The main process
sends tasks round-robin, at most prefetch_factor per worker ahead, and hands batches out in task
order.

As in PyTorch: a worker seeds Python's `random`, NumPy's global generator and Ember's default
generator from base_seed + worker_id (base_seed is drawn once per epoch, or once for persistent
workers), runs worker_init_fn(worker_id), and answers get_worker_info(); an error in a worker is
raised again in the main process with the worker's traceback in its message; a worker that dies
(killed, crashed, os._exit) makes the loader raise "DataLoader worker (pid(s) ...) exited
unexpectedly", naming the worker, its pid and its signal or exit code, and stop the other workers;
workers exit when their parent dies. With an IterableDataset, each worker iterates its own copy of
the data set (shard it with get_worker_info(), as in PyTorch) and the loader hands out batches
round-robin until every worker's stream has ended.

NB: why one result pipe per worker, whose write end only that worker holds, rather than one
multiprocessing.Queue that all share (issue 26: the loader hung for ever, timeout or not, when one
of two workers was SIGKILLed while batches streamed, and the other worker never exited):
- a batch bigger than the pipe's buffer is written in pieces. A worker killed in the middle left
  half a message in the shared pipe, and the main process, whose Queue.get() had seen bytes to read,
  waited in recv_bytes() for the rest, which no one would write (the other workers and the main
  process itself held the pipe open for writing, so no end of file came either);
- the killed worker could die holding the queue's write lock, and then the other workers' feeder
  threads waited for it for ever; a worker that then saw its parent gone returned, and its exit
  joined that feeder thread: it never exited.
Here the main process waits (multiprocessing.connection.wait) on the workers' pipes and their
sentinels at once: a dead worker is seen at once, its pipe ends (what it sent whole is still handed
out, a half message is dropped, without blocking), and no worker ever waits for another. A worker
pickles its batch itself (a batch that cannot be pickled is an error raised in the main process,
not a batch lost) and a daemon thread writes it, which the worker never waits for when it exits.
"""
from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import pickle
import queue
import random
import signal
import sys
import threading
import time
import traceback
from multiprocessing import connection
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable, Iterator

from ... import _C

WorkerInfo = collections.namedtuple("WorkerInfo", ["id", "num_workers", "seed", "dataset"])

_info: WorkerInfo | None = None  # set in a worker process
_STATUS_INTERVAL = 1.0  # seconds between a worker's checks that its parent lives
_JOIN_TIMEOUT = 5.0     # seconds a worker has to exit after it was told to (then it is terminated)


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


class _ResultSender:
    """A worker's end of its result pipe: put() pickles in the worker's thread and a daemon thread
    writes, so the worker loads its next batch while the main process has yet to read a big one."""

    def __init__(self, conn: Any, worker_id: int) -> None:
        self.conn, self.pending = conn, queue.SimpleQueue()
        threading.Thread(target=self._write, name=f"ember-data-{worker_id}-sender", daemon=True).start()

    def put(self, data: bytes) -> None:
        self.pending.put(data)

    def _write(self) -> None:
        while True:
            data = self.pending.get()
            try:
                self.conn.send_bytes(data)
            except OSError:  # the main process has closed its end: it reads no more
                return


def _pickled(task_epoch: int, number: int, out: Any, worker_id: int) -> bytes:
    try:
        return ForkingPickler.dumps((task_epoch, number, out))
    except Exception:  # noqa: BLE001  (raised in the main process, as a data set's error is)
        error = ExceptionWrapper(f"in DataLoader worker process {worker_id} while sending batch {number}")
        return ForkingPickler.dumps((task_epoch, number, error))


def _orphaned(watched: int) -> bool:
    """Whether the main process has died: as PyTorch's ManagerWatchdog, this process was adopted
    (its parent pid changed), or the pipe that multiprocessing keeps open from the main process to
    it has ended. NB: a forkserver worker needs the second: its parent is the server, which outlives
    the main process as long as the workers do (they hold the pipe whose end would stop it). Its
    parent pid was once compared with the main process's, and every forkserver worker exited after
    a second without a task."""
    if os.getppid() != watched:
        return True
    parent = multiprocessing.parent_process()
    return parent is not None and not parent.is_alive()


def _worker_loop(fetcher: Any, index_queue: Any, result_conn: Any, worker_id: int, num_workers: int, seed: int,
                 init_fn: Callable | None, dataset: Any, parent_pid: int | None) -> None:
    global _info
    watched = os.getppid()
    if parent_pid is not None and watched != parent_pid:  # the main process died before this one started
        return
    sender = _ResultSender(result_conn, worker_id)
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
                if _orphaned(watched):  # no one will read
                    return
                continue
            if task is None:  # NB: the sender is a daemon: batches still unsent die with this process
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
            sender.put(_pickled(task_epoch, number, out, worker_id))
            del out
    except KeyboardInterrupt:
        pass


def _how_it_died(worker_id: int, process: Any) -> str:
    code = process.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        described = signal.strsignal(-code) or name
        return f"worker {worker_id} (pid {process.pid}) was killed by signal: {described} ({name})"
    return f"worker {worker_id} (pid {process.pid}) exited with code {code}"


def _context(spec: Any) -> Any:
    if spec is None:
        return multiprocessing.get_context()
    if isinstance(spec, str):
        return multiprocessing.get_context(spec)
    return spec


class ProcessWorkers:
    """num_workers worker processes, their task queues and result pipes; batches(tasks) runs one
    epoch on them."""

    def __init__(self, fetcher: Any, num_workers: int, prefetch_factor: int, base_seed: int,
                 init_fn: Callable | None, dataset: Any, context: Any) -> None:
        ctx = _context(context)
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        self.index_queues, self.readers, self.workers = [], [], []
        self.received: collections.deque = collections.deque()  # (epoch, number, batch) read, not yet taken
        self.dead: list[int] = []                                # workers seen to have exited
        self.epoch = 0
        parent_pid = None if ctx.get_start_method() == "forkserver" else os.getpid()  # NB: else the server's child
        try:
            for i in range(num_workers):
                q = ctx.Queue()
                reader, writer = ctx.Pipe(duplex=False)
                w = ctx.Process(target=_worker_loop, name=f"ember-data-{i}", daemon=True,
                                args=(fetcher, q, writer, i, num_workers, base_seed + i, init_fn, dataset,
                                      parent_pid))
                self.index_queues.append(q)
                self.readers.append(reader)
                try:
                    w.start()
                finally:
                    # NB: the worker now holds the only write end (a fork worker started later
                    # inherits none): its pipe ends when it does, even in the middle of a message.
                    writer.close()
                self.workers.append(w)
        except BaseException:
            self.shutdown(terminate=True)
            raise

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
        """The next (epoch, number, batch) a worker sent. RuntimeError once a worker has died (after
        what it sent whole), or when none sent anything for `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.received:
            if self.dead:
                self._raise_dead()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise RuntimeError(f"DataLoader timed out after {timeout} seconds")
            owners = {w.sentinel: i for i, w in enumerate(self.workers)}
            owners.update((r, i) for i, r in enumerate(self.readers) if r is not None)
            for ready in connection.wait(list(owners), left):
                i = owners[ready]
                if ready is self.readers[i]:
                    self._read(i)
                elif i not in self.dead:
                    self.dead.append(i)
                    self._drain(i)
        return self.received.popleft()

    def _read(self, i: int) -> None:
        """One message from worker i's pipe; at its end (the worker has exited) the pipe is closed."""
        try:
            data = self.readers[i].recv_bytes()
        except (EOFError, OSError):  # OSError: the end came in the middle of a message
            self.readers[i].close()
            self.readers[i] = None
            return
        self.received.append(pickle.loads(data))

    def _drain(self, i: int) -> None:
        """What exited worker i sent whole, without ever blocking (a process it started may still
        hold its pipe open)."""
        if self.readers[i] is not None:
            os.set_blocking(self.readers[i].fileno(), False)
        while self.readers[i] is not None:
            self._read(i)  # NB: BlockingIOError is an OSError: nothing more to read

    def _raise_dead(self) -> None:
        dead = [(i, self.workers[i]) for i in self.dead]
        for _, w in dead:
            w.join(_JOIN_TIMEOUT)  # NB: its sentinel can fire a moment before its exit status is known
        self.shutdown(terminate=True)
        codes = ", ".join(f"{w.pid} (exit code {w.exitcode})" for _, w in dead)
        causes = "; ".join(_how_it_died(i, w) for i, w in dead)
        raise RuntimeError(f"DataLoader worker (pid(s) {codes}) exited unexpectedly: {causes}")

    def shutdown(self, terminate: bool = False) -> None:
        """Stops the workers and joins them: each is told to exit and, if it has not within
        _JOIN_TIMEOUT seconds (at once with `terminate`), terminated, then killed."""
        for q in self.index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + (0.0 if terminate else _JOIN_TIMEOUT)
        for w in self.workers:
            w.join(max(0.0, deadline - time.monotonic()))
            if w.exitcode is None:
                w.terminate()
                w.join(_JOIN_TIMEOUT)
            if w.exitcode is None:  # NB: it handles SIGTERM and went on
                w.kill()
                w.join()
        for q in self.index_queues:
            q.cancel_join_thread()
            q.close()
        for r in self.readers:
            if r is not None:
                r.close()
        self.workers, self.index_queues, self.readers, self.dead = [], [], [], []
        self.received.clear()
