"""ember.utils.tensorboard: torch.utils.tensorboard's SummaryWriter, writing TensorBoard's event
files through the `tensorboard` package's own writer and protocol buffers (pip install tensorboard),
so TensorBoard reads them as it reads PyTorch's.

    from ember.utils.tensorboard import SummaryWriter
    writer = SummaryWriter()                    # runs/<date>_<host>/
    writer.add_scalar("loss/train", loss.item(), step)
    writer.add_histogram("fc.weight", model.fc.weight, step)
    writer.close()
"""
try:
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: F401
except ImportError as e:  # as PyTorch's: the package is optional, its absence said on import
    raise ImportError("ember.utils.tensorboard needs the tensorboard package (pip install tensorboard)") from e

from .writer import SummaryWriter  # noqa: F401,E402

__all__ = ["SummaryWriter"]
