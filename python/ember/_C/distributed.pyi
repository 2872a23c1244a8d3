"""
ember.distributed's C++ half
"""
from __future__ import annotations
import collections.abc
import ember._C
import typing
__all__: list[str] = ['DistBackendError', 'DistError', 'DistStoreError', 'FileStore', 'PrefixStore', 'ProcessGroup', 'ReduceOp', 'Reducer', 'Store', 'TCPStore', 'Work', 'broadcast_coalesced', 'default_group', 'destroy_process_group', 'get_rank', 'get_world_size', 'init_process_group', 'is_initialized', 'launch', 'new_gloo_group', 'new_group', 'rendezvous']
class DistError(RuntimeError):
    pass
class DistBackendError(DistError):
    pass
class DistStoreError(DistError):
    pass
class ReduceOp:
    """
    Members:
    
      SUM
    
      AVG
    
      PRODUCT
    
      MIN
    
      MAX
    """
    AVG: typing.ClassVar[ReduceOp]
    MAX: typing.ClassVar[ReduceOp]
    MIN: typing.ClassVar[ReduceOp]
    PRODUCT: typing.ClassVar[ReduceOp]
    SUM: typing.ClassVar[ReduceOp]
    __members__: typing.ClassVar[dict[str, ReduceOp]]
    @typing.overload
    def __eq__(self, other: ReduceOp) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ReduceOp) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Work:
    """
    A started operation: wait() for it.
    """
    def is_completed(self) -> bool:
        ...
    def wait(self, timeout: typing.SupportsFloat | typing.SupportsIndex | None = None) -> bool:
        """
        Blocks until done (timeout in seconds); raises on failure.
        """
class Store:
    def add(self, key: str, amount: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
    def check(self, keys: collections.abc.Sequence[str]) -> bool:
        ...
    def get(self, key: str) -> bytes:
        ...
    def set(self, key: str, value: bytes) -> None:
        ...
    def wait(self, keys: collections.abc.Sequence[str], timeout: typing.SupportsFloat | typing.SupportsIndex | None = None) -> None:
        ...
    @property
    def timeout(self) -> float:
        ...
class TCPStore(Store):
    def __init__(self, host_name: str, port: typing.SupportsInt | typing.SupportsIndex, is_master: bool = False, timeout: typing.SupportsFloat | typing.SupportsIndex = 300.0) -> None:
        ...
    @property
    def host(self) -> str:
        ...
    @property
    def port(self) -> int:
        ...
class FileStore(Store):
    def __init__(self, path: str, timeout: typing.SupportsFloat | typing.SupportsIndex = 300.0) -> None:
        ...
class PrefixStore(Store):
    def __init__(self, prefix: str, store: Store) -> None:
        ...
class ProcessGroup:
    def allgather(self, outputs: collections.abc.Sequence[ember._C.Tensor], input: ember._C.Tensor) -> Work:
        ...
    def allreduce(self, tensor: ember._C.Tensor, op: ReduceOp = ...) -> Work:
        ...
    def backend(self) -> str:
        ...
    def barrier(self) -> Work:
        ...
    def broadcast(self, tensor: ember._C.Tensor, src: typing.SupportsInt | typing.SupportsIndex) -> Work:
        ...
    def rank(self) -> int:
        ...
    def recv(self, tensor: ember._C.Tensor, src: typing.SupportsInt | typing.SupportsIndex, tag: typing.SupportsInt | typing.SupportsIndex = 0) -> Work:
        ...
    def reduce_scatter(self, output: ember._C.Tensor, inputs: collections.abc.Sequence[ember._C.Tensor], op: ReduceOp = ...) -> Work:
        ...
    def send(self, tensor: ember._C.Tensor, dst: typing.SupportsInt | typing.SupportsIndex, tag: typing.SupportsInt | typing.SupportsIndex = 0) -> Work:
        ...
    def size(self) -> int:
        ...
    @property
    def timeout(self) -> float:
        ...
class Reducer:
    """
    DDP's gradient buckets (distributed/reducer.h).
    """
    sync: bool
    def __init__(self, params: collections.abc.Sequence[tuple[str, ember._C.Tensor]], group: ProcessGroup, bucket_cap_mb: typing.SupportsFloat | typing.SupportsIndex = 25.0, find_unused_parameters: bool = False) -> None:
        ...
    def bucket_names(self) -> list[list[str]]:
        ...
def broadcast_coalesced(group: ProcessGroup, tensors: collections.abc.Sequence[ember._C.Tensor], src: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
    ...
def default_group() -> ProcessGroup:
    ...
def destroy_process_group() -> None:
    ...
def get_rank() -> int:
    ...
def get_world_size() -> int:
    ...
def init_process_group(backend: str = 'gloo', init_method: str = 'env://', rank: typing.SupportsInt | typing.SupportsIndex = -1, world_size: typing.SupportsInt | typing.SupportsIndex = -1, timeout: typing.SupportsFloat | typing.SupportsIndex | None = None, rendezvous_timeout: typing.SupportsFloat | typing.SupportsIndex | None = None) -> None:
    """
    Timeouts in seconds; None: 1800 for the operations, 300 for the rendezvous (distributed/init.h).
    """
def is_initialized() -> bool:
    ...
def launch(nproc: typing.SupportsInt | typing.SupportsIndex, command: collections.abc.Sequence[str], max_restarts: typing.SupportsInt | typing.SupportsIndex = 0, master_addr: str = '127.0.0.1', master_port: typing.SupportsInt | typing.SupportsIndex = 0, grace: typing.SupportsFloat | typing.SupportsIndex = 5.0, prefix_output: bool = True) -> int:
    """
    Runs a job's ranks (distributed/launcher.h).
    """
def new_gloo_group(store: Store, rank: typing.SupportsInt | typing.SupportsIndex, size: typing.SupportsInt | typing.SupportsIndex, timeout: typing.SupportsFloat | typing.SupportsIndex = 1800.0, hostname: str = '127.0.0.1') -> ProcessGroup:
    ...
def new_group(backend: str = '') -> ProcessGroup:
    ...
def rendezvous(store: Store, rank: typing.SupportsInt | typing.SupportsIndex, world_size: typing.SupportsInt | typing.SupportsIndex, timeout: typing.SupportsFloat | typing.SupportsIndex = 300.0) -> None:
    """
    Meets the other ranks through store, checking WORLD_SIZE and RANK (distributed/rendezvous.h).
    """
