"""SummaryWriter: PyTorch's, over the tensorboard package's EventFileWriter (one event file per
writer, flushed every flush_secs and on flush()/close())."""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary


class SummaryWriter:
    """Writes scalars, histograms, images, text and hyperparameters to an event file in log_dir
    (default runs/<date>_<host><comment>), which TensorBoard reads: tensorboard --logdir runs."""

    def __init__(self, log_dir: str | os.PathLike | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self._writer: EventFileWriter | None = None
        self._children: dict[str, EventFileWriter] = {}  # add_scalars' writers, one per series
        self._open()

    def _open(self) -> None:
        self._writer = EventFileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
        if self.purge_step is not None:
            # TensorBoard drops the events at and after this step that an earlier run left (a
            # resumed run rewrites them): the SessionLog START event says from where.
            from tensorboard.compat.proto.event_pb2 import SessionLog
            self._writer.add_event(Event(step=self.purge_step, wall_time=time.time(),
                                         session_log=SessionLog(status=SessionLog.START)))
            self.purge_step = None

    def get_logdir(self) -> str:
        return self.log_dir

    def _event(self, summary_proto, global_step: Any = None, walltime: float | None = None,
               writer: EventFileWriter | None = None) -> None:
        if self._writer is None:
            self._open()  # PyTorch's writer reopens after close()
        event = Event(summary=summary_proto, wall_time=time.time() if walltime is None else float(walltime))
        if global_step is not None:
            event.step = int(summary.to_numpy(global_step))
        (writer or self._writer).add_event(event)

    def add_scalar(self, tag: str, scalar_value: Any, global_step: Any = None, walltime: float | None = None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        self._event(summary.scalar(tag, scalar_value, double_precision=double_precision), global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step: Any = None,
                    walltime: float | None = None) -> None:
        """Each series in a run of its own (log_dir/<main_tag>_<tag>), so TensorBoard draws them on
        one chart under main_tag."""
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self.log_dir, f"{main_tag}_{tag}".replace("/", "_"))
            child = self._children.get(path)
            if child is None:
                child = self._children[path] = EventFileWriter(path, self.max_queue, self.flush_secs,
                                                               self.filename_suffix)
            self._event(summary.scalar(main_tag, value), global_step, walltime, writer=child)

    def add_histogram(self, tag: str, values: Any, global_step: Any = None, bins: Any = "tensorflow",
                      walltime: float | None = None, max_bins: int | None = None) -> None:
        self._event(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: Any = None, walltime: float | None = None,
                  dataformats: str = "CHW") -> None:
        self._event(summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: Any = None, walltime: float | None = None,
                   dataformats: str = "NCHW") -> None:
        self._event(summary.images(tag, img_tensor, dataformats), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: Any = None, walltime: float | None = None) -> None:
        self._event(summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None,
                    run_name: str | None = None, global_step: Any = None) -> None:
        """One run's hyperparameters and its final metrics, in a run of its own (log_dir/<run_name>,
        default the time), as PyTorch's: TensorBoard's HPARAMS tab lists each call as a row."""
        run = os.path.join(self.log_dir, run_name or str(time.time()))
        with SummaryWriter(run) as writer:
            for proto in summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete):
                writer._event(proto, global_step)
            for tag, value in metric_dict.items():
                writer.add_scalar(tag, value, global_step)

    def flush(self) -> None:
        for writer in [self._writer, *self._children.values()]:
            if writer is not None:
                writer.flush()

    def close(self) -> None:
        for writer in [self._writer, *self._children.values()]:
            if writer is not None:
                writer.close()
        self._writer, self._children = None, {}

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
