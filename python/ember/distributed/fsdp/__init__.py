"""ember.distributed.fsdp: torch.distributed.fsdp's FullyShardedDataParallel and its options
(fully_sharded_data_parallel.py) and the auto-wrap policies (wrap.py)."""
from .fully_sharded_data_parallel import (BackwardPrefetch, CPUOffload, FullyShardedDataParallel, MixedPrecision,
                                          ShardingStrategy)
from .wrap import ModuleWrapPolicy, size_based_auto_wrap_policy, transformer_auto_wrap_policy

__all__ = ["FullyShardedDataParallel", "MixedPrecision", "ShardingStrategy", "BackwardPrefetch", "CPUOffload",
           "ModuleWrapPolicy", "size_based_auto_wrap_policy", "transformer_auto_wrap_policy"]
