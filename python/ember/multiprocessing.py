"""ember.multiprocessing: torch.multiprocessing's names over the standard library's.

    import ember.multiprocessing as mp
    mp.set_start_method("spawn", force=True)
    mp.spawn(train, args=(config,), nprocs=2)        # train(rank, config) in each process

Tensors cross processes by pickling (their values travel as NumPy arrays; see ember.Tensor's
__reduce_ex__), so the sharing strategies PyTorch offers are accepted and change nothing.
"""
from __future__ import annotations

import multiprocessing as _mp
import traceback
from multiprocessing import *  # noqa: F401,F403  (re-exported, as torch.multiprocessing does)
from typing import Any, Callable

__all__ = [name for name in _mp.__all__] + [
    "get_sharing_strategy", "set_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
    "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]

_strategies = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"


def get_all_sharing_strategies() -> set:
    return set(_strategies)


def get_sharing_strategy() -> str:
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Accepted for PyTorch scripts; Ember's tensors cross processes by pickling whatever it is."""
    global _strategy
    if new_strategy not in _strategies:
        raise ValueError(f"set_sharing_strategy: unknown strategy {new_strategy!r} (one of {sorted(_strategies)})")
    _strategy = new_strategy


class ProcessRaisedException(Exception):
    """A spawned process raised: the message holds its traceback."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.error_index, self.pid = error_index, error_pid


class ProcessExitedException(Exception):
    """A spawned process exited with a non-zero code (or a signal) without raising."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int):
        super().__init__(msg)
        self.error_index, self.pid, self.exit_code = error_index, error_pid, exit_code


def _wrap(fn: Callable, i: int, args: tuple, errors: Any) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001  (sent to the parent, which raises it)
        errors.put(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    """The processes start_processes started; join() waits for them and raises the first failure."""

    def __init__(self, processes: list, error_queues: list):
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        for p in self.processes:
            p.join(timeout)
        for i, (p, q) in enumerate(zip(self.processes, self.error_queues)):
            if p.exitcode is None:
                continue
            if not q.empty():
                for other in self.processes:
                    if other.is_alive():
                        other.terminate()
                raise ProcessRaisedException(f"\n\n-- Process {i} terminated with the following error:\n{q.get()}",
                                             i, p.pid)
            if p.exitcode != 0:
                raise ProcessExitedException(f"process {i} terminated with exit code {p.exitcode}", i, p.pid,
                                             p.exitcode)
        return all(p.exitcode is not None for p in self.processes)


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn") -> ProcessContext | None:
    """fn(i, *args) in nprocs processes (i = 0 .. nprocs - 1); with join, waits and raises the first
    failure with its traceback (ProcessRaisedException), else returns the ProcessContext."""
    ctx = _mp.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    context.join()
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn") -> ProcessContext | None:
    """torch.multiprocessing.spawn: start_processes with the 'spawn' start method."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
