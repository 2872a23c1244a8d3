"""torch.autograd.profiler's older API: profile(use_cuda=..., record_shapes=...) and
record_function, over ember.profiler.

    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        model(x)
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))
"""
from __future__ import annotations

from typing import Any, Optional

from ..profiler import EventList, ProfilerActivity, record_function  # noqa: F401
from ..profiler import profile as _profile

__all__ = ["profile", "record_function", "EventList"]


class profile:
    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: Optional[str] = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = True,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False) -> None:
        self.enabled = enabled
        activities = {ProfilerActivity.CPU}
        if use_cuda or use_device == "cuda":
            activities.add(ProfilerActivity.CUDA)
        self._profile = _profile(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                                 with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)

    def __enter__(self) -> "profile":
        if self.enabled:
            self._profile.start()
        return self

    def __exit__(self, *exc: Any) -> bool:
        if self.enabled:
            self._profile.stop()
        return False

    @property
    def function_events(self) -> EventList:
        return self._profile.events() if self.enabled else EventList()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path: str) -> None:
        self._profile.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self.function_events.self_cpu_time_total

    def __str__(self) -> str:
        return self.table()
