"""profile, schedule and the trace handler, with torch.profiler's names and meaning.

    from ember.profiler import profile, record_function, ProfilerActivity, schedule

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")          # chrome://tracing, ui.perfetto.dev

    with profile(schedule=schedule(wait=1, warmup=1, active=3, repeat=2),
                 on_trace_ready=tensorboard_trace_handler("./log")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

A profile watches the thread that enters it: every outermost op with its CPU time (and argument
sizes, memory, device time on request), inside the record_function ranges and the backward nodes
around them. With ProfilerActivity.CUDA on a machine with a GPU, each op and range also gets the
device time of the work it queued (timing marks on the streams around it).
"""
from __future__ import annotations

import enum
import gzip
import os
import socket
import time
import warnings
from typing import Any, Callable, Iterable, Optional

from .. import _C
from ._event_list import EventList
from ._record_function import record_function

__all__ = ["profile", "schedule", "ProfilerAction", "ProfilerActivity", "tensorboard_trace_handler",
           "supported_activities"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set:
    """CPU, and CUDA where a device is available."""
    return {ProfilerActivity.CPU} | ({ProfilerActivity.CUDA} if _C._cuda_device_count() > 0 else set())


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """The action for each step: skip_first steps of nothing, then cycles of `wait` steps of
    nothing, `warmup` steps profiled and thrown away, `active` steps recorded (the last one saves:
    on_trace_ready runs), `repeat` cycles (0: until the profile ends). skip_first_wait: the first
    cycle has no wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(f"schedule: wait={wait}, warmup={warmup}, repeat={repeat} and skip_first={skip_first} "
                         f"must be >= 0 and active={active} > 0")
    if warmup == 0:
        warnings.warn("schedule: profiling without warm-up steps may skew the first recorded steps")

    def action(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: Optional[str] = None,
                              use_gzip: bool = False) -> Callable[["profile"], None]:
    """An on_trace_ready that writes each trace to dir_name as
    <worker>.<time in ns>.pt.trace.json[.gz], where TensorBoard's profiler plugin finds it."""
    def handler(prof: "profile") -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json"
        path = os.path.join(dir_name, name)
        if use_gzip:
            with gzip.open(path + ".gz", "wt") as f:
                f.write(prof._chrome_trace())
        else:
            prof.export_chrome_trace(path)

    return handler


class profile:
    """Profiles this thread's ops from __enter__ (or start()) to __exit__ (or stop()), through the
    schedule's steps when one is given."""

    def __init__(self, *, activities: Optional[Iterable[ProfilerActivity]] = None,
                 schedule: Optional[Callable[[int], ProfilerAction]] = None,
                 on_trace_ready: Optional[Callable[["profile"], Any]] = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: Optional[bool] = None) -> None:
        acts = set(activities) if activities is not None else supported_activities()
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile: activities are ProfilerActivity values; got {a!r}")
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        for flag, name in ((with_stack, "with_stack"), (with_flops, "with_flops"), (with_modules, "with_modules")):
            if flag:
                warnings.warn(f"profile: {name}=True: Ember's profiler records no Python stacks, FLOPs or module "
                              f"names; the events have their times, shapes and memory only")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._native: Optional[Any] = None   # the profile of the cycle being recorded
        self._last: Optional[Any] = None     # the last one recorded (what key_averages and the trace read)
        self._step_range: Optional[record_function] = None
        self._warmup = False

    # ---- entering and leaving
    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.stop()
        return False

    def start(self) -> None:
        self._enter(self.current_action)

    def stop(self) -> None:
        self._leave(self.current_action, ProfilerAction.NONE)

    def step(self) -> None:
        """Marks the end of a training step: the schedule moves on (a recorded cycle's last step
        calls on_trace_ready)."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._leave(previous, self.current_action)
        self._enter(self.current_action)

    # ---- what was recorded
    def events(self) -> EventList:
        return EventList(self._recorded().events(), profile_memory=self.profile_memory)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """The events as a Chrome trace (JSON) at `path`; gzip-compressed when it ends in .gz."""
        if str(path).endswith(".gz"):
            with gzip.open(path, "wt") as f:
                f.write(self._chrome_trace())
        else:
            self._recorded().export_chrome_trace(os.fspath(path))

    def _chrome_trace(self) -> str:
        return self._recorded().chrome_trace()

    def _recorded(self) -> Any:
        if self._last is None:
            raise RuntimeError("profile: nothing was recorded yet (the schedule has not reached a recorded step, "
                               "or the profile has not stopped)")
        return self._last

    # ---- the schedule's transitions
    def _enter(self, action: ProfilerAction) -> None:
        if action == ProfilerAction.NONE or self._native is not None:
            return
        self._native = _C.profiler.Profile(record_shapes=self.record_shapes, profile_memory=self.profile_memory,
                                           cuda=ProfilerActivity.CUDA in self.activities)
        self._warmup = action == ProfilerAction.WARMUP
        self._native.start()
        self._open_step()

    def _leave(self, previous: ProfilerAction, action: ProfilerAction) -> None:
        if self._native is None:
            return
        self._close_step()
        ending = (previous == ProfilerAction.RECORD_AND_SAVE or action == ProfilerAction.NONE
                  or (previous in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
                      and action == ProfilerAction.WARMUP))
        if self._warmup and action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            # Warm-up is over: its events are thrown away and recording starts afresh.
            self._native.stop()
            self._native = None
            return
        if not ending:
            self._open_step()
            return
        self._native.stop()
        native, self._native = self._native, None
        if not self._warmup:
            self._last = native
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _open_step(self) -> None:
        # Each step of a scheduled profile is a range of its own, as PyTorch's ProfilerStep#N.
        if self.schedule is not _always_record:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _close_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None
