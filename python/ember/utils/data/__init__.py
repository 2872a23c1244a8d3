"""ember.utils.data: PyTorch's data-loading API (torch.utils.data) over Python data sets.

    train = TensorDataset(images, labels)
    train, val = random_split(train, [0.9, 0.1], generator=ember.Generator(0))
    loader = DataLoader(train, batch_size=64, shuffle=True, num_workers=2)
    for x, y in loader:
        ...
        ember.save({"loader": loader.state_dict(), ...}, path)    # at any batch
    loader.load_state_dict(ember.load(path)["loader"])            # the next epoch goes on from there

What PyTorch lacks: a DataLoader's state_dict() resumes an epoch exactly, mid-way (the same
order, the batch after the saved one; see DataLoader).
"""
from .dataloader import DataLoader, default_collate, get_worker_info
from .dataset import ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .distributed import DistributedSampler
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler
from .weighted_sampler import WeightedRandomSampler

__all__ = ["DataLoader", "default_collate", "get_worker_info", "Dataset", "IterableDataset",
           "TensorDataset", "Subset", "ConcatDataset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "BatchSampler", "DistributedSampler",
           "WeightedRandomSampler"]
