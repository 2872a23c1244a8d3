"""ember.profiler: per-op CPU times, argument sizes, memory and (with a GPU) device times of this
thread's work, PyTorch's table and a Chrome trace (torch.profiler's API). See profiler.py."""
from ._event_list import EventList  # noqa: F401
from ._record_function import record_function  # noqa: F401
from .profiler import (ProfilerAction, ProfilerActivity, profile, schedule, supported_activities,  # noqa: F401
                       tensorboard_trace_handler)

__all__ = ["profile", "record_function", "schedule", "ProfilerAction", "ProfilerActivity",
           "tensorboard_trace_handler", "supported_activities", "EventList"]
