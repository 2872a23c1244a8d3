"""EventList: what profile.events() and profile.key_averages() return (torch.autograd's
profiler_util names), with table() and the totals. Its items are ember._C.profiler.Event (one op or
range: name, cpu_time_total, self_cpu_time_total, input_shapes, cpu_memory_usage, ...) or
EventAverage (the events of one key added up: key, count, cpu_time, ...); times in microseconds,
memory in bytes. The adding up and the table are C++'s (profiler/key_averages.h)."""
from __future__ import annotations

from typing import Any, Iterable, Optional

from .. import _C

__all__ = ["EventList"]


class EventList(list):
    def __init__(self, items: Iterable[Any] = (), *, profile_memory: bool = False) -> None:
        super().__init__(items)
        self._profile_memory = profile_memory

    def _averaged(self) -> bool:
        return bool(self) and isinstance(self[0], _C.profiler.EventAverage)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> "EventList":
        """The events added up by name (and by argument sizes), in the order each first started."""
        if self._averaged():
            raise TypeError("key_averages: this list is averaged already")
        if group_by_stack_n:
            raise ValueError("key_averages: group_by_stack_n: Ember's profiler records no stacks")
        return EventList(_C.profiler.key_averages(list(self), group_by_input_shape),
                         profile_memory=self._profile_memory)

    def table(self, sort_by: Optional[str] = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: Optional[str] = None,
              top_level_events_only: bool = False) -> str:
        """PyTorch's table: self and total CPU times with their shares, the average and the calls
        (memory columns when the profile recorded memory). sort_by: cpu_time_total,
        self_cpu_time_total, cpu_time, count, cpu_memory_usage, self_cpu_memory_usage, and the
        cuda_* columns; largest first."""
        rows = self if self._averaged() else self.key_averages()
        text = _C.profiler.table(list(rows), sort_by=sort_by or "", row_limit=row_limit,
                                 show_memory=self._profile_memory, max_name_column_width=max_name_column_width)
        return (header + "\n" + text) if header else text

    @property
    def self_cpu_time_total(self) -> float:
        """Microseconds: the self CPU time of every event, the table's footer."""
        return sum(e.self_cpu_time_total for e in self)

    def __str__(self) -> str:
        return self.table()
