"""
ember.data's C++ half: idx files, Fashion-MNIST, DataLoader
"""
from __future__ import annotations
import ember._C
import typing
__all__: list[str] = ['DataLoader', 'FashionMNIST', 'read_idx']
class FashionMNIST:
    """
    One split of Fashion-MNIST: images (uint8 [N, 28, 28]) and labels (int64 [N]) read from the idx files
    under root ({train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]).
    """
    classes: typing.ClassVar[list] = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']
    default_root: typing.ClassVar[str] = '/usr/share/datasets/fashion-mnist'
    num_classes: typing.ClassVar[int] = 10
    def __init__(self, root: str = '/usr/share/datasets/fashion-mnist', train: bool = True) -> None:
        ...
    def __len__(self) -> int:
        ...
    @property
    def images(self) -> ember._C.Tensor:
        """
        uint8 [N, 28, 28]
        """
    @images.setter
    def images(self, arg0: ember._C.Tensor) -> None:
        ...
    @property
    def labels(self) -> ember._C.Tensor:
        """
        int64 [N], in [0, 10)
        """
    @labels.setter
    def labels(self, arg0: ember._C.Tensor) -> None:
        ...
class DataLoader:
    """
    Mini-batches of (inputs, targets) rows, in order or shuffled every epoch by the loader's own
    generator; start_epoch() (or resume_epoch(next_batch)) then next() until None.
    state_dict()/load_state_dict() resume mid-epoch exactly.
    """
    def __init__(self, inputs: ember._C.Tensor, targets: ember._C.Tensor, batch_size: typing.SupportsInt | typing.SupportsIndex = 1, shuffle: bool = False, drop_last: bool = False, seed: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        ...
    def __len__(self) -> int:
        ...
    def load_state_dict(self, state_dict: dict) -> None:
        """
        Restores a state_dict() and begins its epoch at its position (the settings must match).
        """
    def next(self) -> typing.Any:
        """
        The next (inputs, targets) of the current epoch, or None once it is over.
        """
    def resume_epoch(self, next_batch: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Continues the epoch whose order the generator draws now (restored from a checkpoint) from batch next_batch.
        """
    def start_epoch(self) -> None:
        """
        Begins the next epoch at its first batch: draws its order when shuffling.
        """
    def state_dict(self) -> dict:
        """
        {'num_samples', 'batch_size', 'shuffle', 'drop_last', 'generator', 'position'}: a snapshot.
        """
    @property
    def batch_size(self) -> int:
        ...
    @property
    def drop_last(self) -> bool:
        ...
    @property
    def generator(self) -> ember._C.Generator:
        """
        The generator the epoch orders are drawn from.
        """
    @property
    def num_batches(self) -> int:
        ...
    @property
    def num_samples(self) -> int:
        ...
    @property
    def order(self) -> typing.Any:
        """
        The current epoch's order of sample indices (None before the first epoch).
        """
    @property
    def position(self) -> int:
        """
        The index in the current epoch of the batch next() returns next.
        """
    @property
    def shuffle(self) -> bool:
        ...
def read_idx(path: str) -> ember._C.Tensor:
    """
    Reads an idx file (gzipped or plain) into a new tensor of its shape and element type.
    """
