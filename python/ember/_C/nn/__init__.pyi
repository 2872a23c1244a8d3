"""
ember.nn's C++ half: Module and the built-in layers
"""
from __future__ import annotations
from ember._C import Tensor
import collections
import collections.abc
import ember._C
from ember.nn.modules.module import _IncompatibleKeys
import typing
from . import rnn_utils
from . import functional
from . import init
__all__: list = ['AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'AdaptiveAvgPool3d', 'AdaptiveMaxPool1d', 'AdaptiveMaxPool2d', 'AdaptiveMaxPool3d', 'AlphaDropout', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'BCELoss', 'BCEWithLogitsLoss', 'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d', 'Bilinear', 'CELU', 'CTCLoss', 'ChannelShuffle', 'CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d', 'CosineEmbeddingLoss', 'CosineSimilarity', 'CrossEntropyLoss', 'Dropout', 'Dropout1d', 'Dropout2d', 'Dropout3d', 'ELU', 'Embedding', 'EmbeddingBag', 'FeatureAlphaDropout', 'Flatten', 'Fold', 'GELU', 'GLU', 'GRU', 'GRUCell', 'GaussianNLLLoss', 'GroupNorm', 'Hardshrink', 'Hardsigmoid', 'Hardswish', 'Hardtanh', 'HingeEmbeddingLoss', 'HuberLoss', 'Identity', 'InstanceNorm1d', 'InstanceNorm2d', 'InstanceNorm3d', 'KLDivLoss', 'L1Loss', 'LPPool1d', 'LPPool2d', 'LPPool3d', 'LSTM', 'LSTMCell', 'LayerNorm', 'LeakyReLU', 'Linear', 'LocalResponseNorm', 'LogSigmoid', 'LogSoftmax', 'MSELoss', 'MarginRankingLoss', 'MaxPool1d', 'MaxPool2d', 'MaxPool3d', 'Mish', 'ModuleDict', 'ModuleList', 'MultiLabelMarginLoss', 'MultiLabelSoftMarginLoss', 'MultiMarginLoss', 'MultiheadAttention', 'NLLLoss', 'PReLU', 'PairwiseDistance', 'PixelShuffle', 'PixelUnshuffle', 'PoissonNLLLoss', 'RNN', 'RNNBase', 'RNNCell', 'RNNCellBase', 'RReLU', 'ReLU', 'ReLU6', 'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d', 'ReplicationPad3d', 'SELU', 'Sequential', 'SiLU', 'Sigmoid', 'SmoothL1Loss', 'SoftMarginLoss', 'Softmax', 'Softmax2d', 'Softmin', 'Softplus', 'Softshrink', 'Softsign', 'Tanh', 'Tanhshrink', 'Threshold', 'Transformer', 'TransformerDecoder', 'TransformerDecoderLayer', 'TransformerEncoder', 'TransformerEncoderLayer', 'TripletMarginLoss', 'TripletMarginWithDistanceLoss', 'Unflatten', 'Unfold', 'Upsample', 'UpsamplingBilinear2d', 'UpsamplingNearest2d', 'ZeroPad1d', 'ZeroPad2d', 'ZeroPad3d']
class EntryKind:
    """
    What a module attribute name holds (Module._entry).
    
    Members:
    
      Parameter
    
      Buffer
    
      Child
    """
    Buffer: typing.ClassVar[EntryKind]
    Child: typing.ClassVar[EntryKind]
    Parameter: typing.ClassVar[EntryKind]
    __members__: typing.ClassVar[dict[str, EntryKind]]
    @typing.overload
    def __eq__(self, other: EntryKind) -> bool:
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
    def __ne__(self, other: EntryKind) -> bool:
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
class Module:
    """
    The base of every layer, as torch.nn.Module. Subclass it in Python: assigning an nn.Parameter,
    an nn.Module or a buffer name registers it; forward(...) runs through __call__.
    """
    def __call__(self, *args, **kwargs) -> typing.Any:
        ...
    def __deepcopy__(self, memo: dict) -> Module:
        """
        copy.deepcopy(model), as PyTorch's (see nn/_module_copy.py for how and its limits).
        """
    def __delattr__(self, name: str) -> None:
        ...
    def __getattr__(self, name: str) -> typing.Any:
        ...
    def __init__(self, *args, **kwargs) -> None:
        """
        Module(): call super().__init__() first in a subclass.
        """
    def __repr__(self) -> str:
        ...
    def __setattr__(self, name: str, value: typing.Any) -> None:
        ...
    def _entry(self, arg0: str) -> typing.Any:
        ...
    def _has_buffer(self, arg0: str) -> bool:
        ...
    def _has_child(self, arg0: str) -> bool:
        ...
    def _has_hooks(self) -> bool:
        ...
    def _has_parameter(self, arg0: str) -> bool:
        ...
    def _hook_lists(self) -> tuple:
        ...
    def _initialized(self) -> bool:
        ...
    def _is_persistent_buffer(self, arg0: str) -> bool:
        ...
    def _load_state_dict(self, arg0: collections.abc.Sequence[tuple[str, ember._C.Tensor]], arg1: bool) -> tuple[list[str], list[str], str]:
        ...
    def _named_buffers(self, arg0: str, arg1: bool) -> list:
        ...
    def _named_children(self) -> list[tuple[str, Module]]:
        ...
    def _named_parameters(self, arg0: str, arg1: bool) -> list:
        ...
    def _register_buffer(self, arg0: str, arg1: ember._C.Tensor, arg2: bool) -> ember._C.Tensor:
        ...
    def _register_forward_hook(self, arg0: collections.abc.Callable, arg1: bool, arg2: bool, arg3: bool) -> RemovableHandle:
        ...
    def _register_forward_pre_hook(self, arg0: collections.abc.Callable, arg1: bool, arg2: bool) -> RemovableHandle:
        ...
    def _register_full_backward_hook(self, arg0: collections.abc.Callable, arg1: bool) -> RemovableHandle:
        ...
    def _register_module(self, arg0: str, arg1: typing.Any) -> None:
        ...
    def _register_parameter(self, arg0: str, arg1: ember._C.Tensor, arg2: bool) -> ember._C.Tensor:
        ...
    def _replace_buffer(self, arg0: str, arg1: ember._C.Tensor) -> ember._C.Tensor:
        ...
    def _replace_module(self, arg0: str, arg1: typing.Any) -> None:
        ...
    def _replace_parameter(self, arg0: str, arg1: ember._C.Tensor) -> ember._C.Tensor:
        ...
    def _state_dict(self) -> list:
        ...
    def add_module(self, name: str, module: typing.Any) -> None:
        """
        Registers `module` as child `name`.
        """
    def apply(self, fn: collections.abc.Callable) -> Module:
        """
        fn(module) on every descendant, then on this module; returns self.
        """
    def bfloat16(self) -> Module:
        ...
    def buffers(self, recurse: bool = True) -> collections.abc.Iterator[ember._C.Tensor]:
        ...
    def children(self) -> collections.abc.Iterator[Module]:
        ...
    def cpu(self) -> Module:
        ...
    def cuda(self, device: typing.Any = None) -> Module:
        ...
    def double(self) -> Module:
        ...
    def eval(self) -> typing.Any:
        """
        train(False); returns self.
        """
    def extra_repr(self) -> str:
        """
        The settings shown in repr(); override it in Python to show your own.
        """
    def float(self) -> Module:
        ...
    def forward(self, input: ember._C.Tensor) -> ember._C.Tensor:
        """
        The layer's computation; call the module itself (module(x)) rather than this.
        """
    def get_submodule(self, target: str) -> Module:
        """
        The descendant at a dotted path ("encoder.layers.0").
        """
    def half(self) -> Module:
        ...
    def load_state_dict(self, state_dict: typing.Any, strict: bool = True) -> _IncompatibleKeys:
        """
        Copies values in place. strict: any missing or unexpected key is a RuntimeError and nothing changes; otherwise they are returned as (missing_keys, unexpected_keys). A shape mismatch is always a RuntimeError (as in PyTorch).
        """
    def modules(self) -> collections.abc.Iterator[Module]:
        ...
    def named_buffers(self, prefix: str = '', recurse: bool = True, remove_duplicate: bool = True) -> collections.abc.Iterator[tuple[str, Tensor]]:
        ...
    def named_children(self) -> collections.abc.Iterator[tuple[str, Module]]:
        ...
    def named_modules(self, memo: typing.Any = None, prefix: str = '', remove_duplicate: bool = True) -> collections.abc.Iterator[tuple[str, Module]]:
        """
        This module and every descendant, depth first, each once (PyTorch's order).
        """
    def named_parameters(self, prefix: str = '', recurse: bool = True, remove_duplicate: bool = True) -> collections.abc.Iterator[tuple[str, Tensor]]:
        """
        (structured name, parameter) pairs in registration order, each tensor once (remove_duplicate=False: a tied one under each of its names).
        """
    def num_parameters(self, trainable_only: bool = False) -> int:
        ...
    def parameters(self, recurse: bool = True) -> collections.abc.Iterator[ember._C.Tensor]:
        """
        The parameters of named_parameters(); each carries its structured name (relative to this module), under which an optimizer built from them keys its state.
        """
    def register_backward_hook(self, hook: collections.abc.Callable) -> RemovableHandle:
        """
        PyTorch's deprecated form; Ember runs it as register_full_backward_hook.
        """
    def register_buffer(self, name: str, tensor: typing.Any, persistent: bool = True) -> None:
        """
        Registers a buffer: state that is not trained but is moved by to() and, when persistent, saved by state_dict() (running statistics, masks, ...).
        """
    def register_forward_hook(self, hook: collections.abc.Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
        """
        hook(module, args, output) -> None or a new output, after each forward (with_kwargs: hook(module, args, kwargs, output)); always_call also runs it when forward raises.
        """
    def register_forward_pre_hook(self, hook: collections.abc.Callable, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """
        hook(module, args) -> None or new args, before each forward (with_kwargs: hook(module, args, kwargs) -> None or (new_args, new_kwargs)).
        """
    def register_full_backward_hook(self, hook: collections.abc.Callable, prepend: bool = False) -> RemovableHandle:
        """
        hook(module, grad_input, grad_output) -> None or a new grad_input, when the gradients with respect to the module's inputs are computed (see python/src/module_call.cpp for the limits).
        """
    def register_full_backward_pre_hook(self, hook: collections.abc.Callable, prepend: bool = False) -> None:
        ...
    def register_module(self, name: str, module: typing.Any) -> None:
        """
        Registers `module` as child `name` (add_module).
        """
    def register_parameter(self, name: str, param: typing.Any) -> None:
        """
        Registers `param` as parameter `name` (None: an attribute that reads None).
        """
    def requires_grad_(self, requires_grad: bool = True) -> Module:
        ...
    def state_dict(self, *, prefix: str = '', keep_vars: bool = False) -> collections.OrderedDict[str, Tensor]:
        """
        Persistent parameters and buffers by structured name, in registration order, as an OrderedDict; the tensors share memory with the module's (detached unless keep_vars).
        """
    def summary(self) -> str:
        """
        repr() plus the parameter counts.
        """
    def to(self, *args, **kwargs) -> typing.Any:
        """
        to(dtype), to(device), to(tensor): converts parameters and buffers in place; returns self.
        """
    def train(self, mode: bool = True) -> typing.Any:
        """
        Sets training mode here and in every descendant; returns self.
        """
    def zero_grad(self, set_to_none: bool = True) -> None:
        """
        Clears (set_to_none) or zeroes every parameter's gradient.
        """
    @property
    def _type_name(self) -> str:
        ...
    @property
    def training(self) -> bool:
        ...
class Linear(Module):
    """
    y = x W^T + b (torch.nn.Linear).
    """
    def __init__(self, in_features: typing.SupportsInt | typing.SupportsIndex, out_features: typing.SupportsInt | typing.SupportsIndex, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def in_features(self) -> int:
        ...
    @property
    def out_features(self) -> int:
        ...
class Bilinear(Module):
    """
    y = x1^T A x2 + b (torch.nn.Bilinear).
    """
    def __init__(self, in1_features: typing.SupportsInt | typing.SupportsIndex, in2_features: typing.SupportsInt | typing.SupportsIndex, out_features: typing.SupportsInt | typing.SupportsIndex, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input1: ember._C.Tensor, input2: ember._C.Tensor) -> ember._C.Tensor:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def in1_features(self) -> int:
        ...
    @in1_features.setter
    def in1_features(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def in2_features(self) -> int:
        ...
    @in2_features.setter
    def in2_features(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def out_features(self) -> int:
        ...
    @out_features.setter
    def out_features(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Conv2d(Module):
    """
    2-D convolution over [N, C, H, W] (torch.nn.Conv2d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def padding(self) -> typing.Any:
        """
        (h, w), or 'same' / 'valid' when given by name.
        """
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple:
        ...
class Conv1d(Module):
    """
    1-D convolution over [N, C, L] (torch.nn.Conv1d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple[int]:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple[int]:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def padding(self) -> typing.Any:
        """
        (padding,), or 'same' / 'valid' when given by name.
        """
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple[int]:
        ...
class ConvTranspose2d(Module):
    """
    Transposed 2-D convolution over [N, C, H, W] (torch.nn.ConvTranspose2d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, dilation: typing.Any = 1, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, output_size: typing.Any = None) -> ember._C.Tensor:
        """
        The transposed convolution; output_size ([H, W] or the whole shape) picks the output_padding.
        """
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def output_padding(self) -> tuple:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple:
        ...
class MaxPool2d(Module):
    """
    Max pooling over [N, C, H, W] (torch.nn.MaxPool2d).
    """
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        ...
class AvgPool2d(Module):
    """
    Average pooling over [N, C, H, W] (torch.nn.AvgPool2d).
    """
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        ...
class AdaptiveAvgPool2d(Module):
    """
    Averages into output_size bins (torch.nn.AdaptiveAvgPool2d).
    """
    def __init__(self, output_size: typing.Any) -> None:
        ...
class AdaptiveMaxPool2d(Module):
    """
    Maxima over output_size bins (torch.nn.AdaptiveMaxPool2d).
    """
    def __init__(self, output_size: typing.Any, return_indices: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor) -> typing.Any:
        """
        The maxima, and their flat positions with return_indices=True.
        """
    @property
    def output_size(self) -> tuple:
        ...
    @property
    def return_indices(self) -> bool:
        ...
class GroupNorm(Module):
    """
    Normalises each sample over groups of channels (torch.nn.GroupNorm).
    """
    def __init__(self, num_groups: typing.SupportsInt | typing.SupportsIndex, num_channels: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, affine: bool = True, *, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def affine(self) -> bool:
        ...
    @property
    def eps(self) -> float:
        ...
    @property
    def num_channels(self) -> int:
        ...
    @property
    def num_groups(self) -> int:
        ...
class _InstanceNorm(Module):
    def reset_parameters(self) -> None:
        ...
    def reset_running_stats(self) -> None:
        ...
    @property
    def affine(self) -> bool:
        ...
    @property
    def eps(self) -> float:
        ...
    @property
    def momentum(self) -> float:
        ...
    @property
    def num_features(self) -> int:
        ...
    @property
    def track_running_stats(self) -> bool:
        ...
class InstanceNorm1d(_InstanceNorm):
    """
    Normalises each channel of each sample over L (torch.nn.InstanceNorm1d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, affine: bool = False, track_running_stats: bool = False, *, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class InstanceNorm2d(_InstanceNorm):
    """
    Normalises each channel of each sample over H, W (torch.nn.InstanceNorm2d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, affine: bool = False, track_running_stats: bool = False, *, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class InstanceNorm3d(_InstanceNorm):
    """
    Normalises each channel of each sample over D, H, W (torch.nn.InstanceNorm3d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, affine: bool = False, track_running_stats: bool = False, *, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class PReLU(Module):
    """
    max(0, x) + weight * min(0, x) with a learned weight (torch.nn.PReLU).
    """
    def __init__(self, num_parameters: typing.SupportsInt | typing.SupportsIndex = 1, init: typing.SupportsFloat | typing.SupportsIndex = 0.25, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def num_parameters(self) -> int:
        ...
class _BatchNorm(Module):
    def reset_parameters(self) -> None:
        ...
    def reset_running_stats(self) -> None:
        ...
    @property
    def affine(self) -> bool:
        ...
    @property
    def eps(self) -> float:
        ...
    @property
    def momentum(self) -> float | None:
        """
        Each batch's weight in the running statistics; None: their cumulative average.
        """
    @momentum.setter
    def momentum(self, arg1: typing.SupportsFloat | typing.SupportsIndex | None) -> None:
        ...
    @property
    def num_features(self) -> int:
        ...
    @property
    def track_running_stats(self) -> bool:
        ...
class BatchNorm1d(_BatchNorm):
    """
    Batch normalisation over [N, C] or [N, C, L] (torch.nn.BatchNorm1d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex | None = 0.1, affine: bool = True, track_running_stats: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class BatchNorm2d(_BatchNorm):
    """
    Batch normalisation over [N, C, H, W] (torch.nn.BatchNorm2d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex | None = 0.1, affine: bool = True, track_running_stats: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class BatchNorm3d(_BatchNorm):
    """
    Batch normalisation over [N, C, D, H, W] (torch.nn.BatchNorm3d).
    """
    def __init__(self, num_features: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, momentum: typing.SupportsFloat | typing.SupportsIndex | None = 0.1, affine: bool = True, track_running_stats: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class LayerNorm(Module):
    """
    Normalises over the trailing normalized_shape dims (torch.nn.LayerNorm).
    """
    def __init__(self, normalized_shape: typing.Any, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, elementwise_affine: bool = True, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    @property
    def eps(self) -> float:
        ...
    @property
    def normalized_shape(self) -> tuple:
        ...
class Embedding(Module):
    """
    A lookup table of num_embeddings vectors (torch.nn.Embedding).
    """
    @staticmethod
    def from_pretrained(*args, **kwargs):
        """
        (cls: object, embeddings: ember._C.Tensor, freeze: bool = True, padding_idx: object = None, max_norm: object = None, norm_type: typing.SupportsFloat | typing.SupportsIndex = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> object
        
        An Embedding whose weight is embeddings [num_embeddings, embedding_dim], trainable unless freeze.
        """
    def __init__(self, num_embeddings: typing.SupportsInt | typing.SupportsIndex, embedding_dim: typing.SupportsInt | typing.SupportsIndex, padding_idx: typing.SupportsInt | typing.SupportsIndex | None = None, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def embedding_dim(self) -> int:
        ...
    @property
    def num_embeddings(self) -> int:
        ...
    @property
    def padding_idx(self) -> int | None:
        ...
class Dropout(Module):
    """
    Zeroes elements with probability p while training (torch.nn.Dropout).
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
class Flatten(Module):
    """
    Flattens dims start_dim..end_dim (torch.nn.Flatten).
    """
    def __init__(self, start_dim: typing.SupportsInt | typing.SupportsIndex = 1, end_dim: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        ...
class GELU(Module):
    def __init__(self, approximate: str = 'none') -> None:
        ...
class Tanh(Module):
    def __init__(self) -> None:
        ...
class Sigmoid(Module):
    def __init__(self) -> None:
        ...
class LeakyReLU(Module):
    def __init__(self, negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01, inplace: bool = False) -> None:
        ...
    @property
    def negative_slope(self) -> float:
        ...
class Softmax(Module):
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def dim(self) -> int:
        ...
class Identity(Module):
    def __init__(self, *args, **kwargs) -> None:
        ...
class MultiheadAttention(Module):
    """
    torch.nn.MultiheadAttention, same parameter names.
    """
    def __init__(self, embed_dim: typing.SupportsInt | typing.SupportsIndex, num_heads: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.0, bias: bool = True, add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: typing.SupportsInt | typing.SupportsIndex | None = None, vdim: typing.SupportsInt | typing.SupportsIndex | None = None, batch_first: bool = False, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, query: ember._C.Tensor, key: ember._C.Tensor, value: ember._C.Tensor, key_padding_mask: ember._C.Tensor | None = None, need_weights: bool = True, attn_mask: ember._C.Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
        """
        (attn_output, attn_weights or None).
        """
    @property
    def _qkv_same_embed_dim(self) -> bool:
        ...
    @property
    def add_zero_attn(self) -> bool:
        ...
    @property
    def batch_first(self) -> bool:
        ...
    @property
    def bias_k(self) -> typing.Any:
        ...
    @property
    def bias_v(self) -> typing.Any:
        ...
    @property
    def dropout(self) -> float:
        ...
    @property
    def embed_dim(self) -> int:
        ...
    @property
    def head_dim(self) -> int:
        ...
    @property
    def in_proj_bias(self) -> typing.Any:
        ...
    @property
    def in_proj_weight(self) -> typing.Any:
        ...
    @property
    def k_proj_weight(self) -> typing.Any:
        ...
    @property
    def kdim(self) -> int:
        ...
    @property
    def num_heads(self) -> int:
        ...
    @property
    def q_proj_weight(self) -> typing.Any:
        ...
    @property
    def v_proj_weight(self) -> typing.Any:
        ...
    @property
    def vdim(self) -> int:
        ...
class TransformerEncoderLayer(Module):
    """
    torch.nn.TransformerEncoderLayer.
    """
    def __init__(self, d_model: typing.SupportsInt | typing.SupportsIndex, nhead: typing.SupportsInt | typing.SupportsIndex, dim_feedforward: typing.SupportsInt | typing.SupportsIndex = 2048, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.1, activation: typing.Any = 'relu', layer_norm_eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, src: ember._C.Tensor, src_mask: ember._C.Tensor | None = None, src_key_padding_mask: ember._C.Tensor | None = None, is_causal: bool = False) -> ember._C.Tensor:
        ...
    @property
    def norm_first(self) -> bool:
        ...
class TransformerDecoderLayer(Module):
    """
    torch.nn.TransformerDecoderLayer.
    """
    def __init__(self, d_model: typing.SupportsInt | typing.SupportsIndex, nhead: typing.SupportsInt | typing.SupportsIndex, dim_feedforward: typing.SupportsInt | typing.SupportsIndex = 2048, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.1, activation: typing.Any = 'relu', layer_norm_eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, tgt: ember._C.Tensor, memory: ember._C.Tensor, tgt_mask: ember._C.Tensor | None = None, memory_mask: ember._C.Tensor | None = None, tgt_key_padding_mask: ember._C.Tensor | None = None, memory_key_padding_mask: ember._C.Tensor | None = None, tgt_is_causal: bool = False, memory_is_causal: bool = False) -> ember._C.Tensor:
        ...
    @property
    def norm_first(self) -> bool:
        ...
class TransformerEncoder(Module):
    """
    torch.nn.TransformerEncoder: num_layers copies of encoder_layer ("layers.0", ...) and an optional
    final norm. enable_nested_tensor and mask_check are accepted and ignored (Ember has no nested
    tensors: padded positions are computed, never dropped).
    """
    def __init__(self, encoder_layer: typing.Any, num_layers: typing.SupportsInt | typing.SupportsIndex, norm: typing.Any = None, enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        ...
    def forward(self, src: ember._C.Tensor, mask: ember._C.Tensor | None = None, src_key_padding_mask: ember._C.Tensor | None = None, is_causal: bool | None = None) -> ember._C.Tensor:
        ...
    @property
    def norm(self) -> typing.Any:
        ...
    @property
    def num_layers(self) -> int:
        ...
class TransformerDecoder(Module):
    """
    torch.nn.TransformerDecoder: num_layers copies of decoder_layer ("layers.0", ...) and an optional
    final norm.
    """
    def __init__(self, decoder_layer: typing.Any, num_layers: typing.SupportsInt | typing.SupportsIndex, norm: typing.Any = None) -> None:
        ...
    def forward(self, tgt: ember._C.Tensor, memory: ember._C.Tensor, tgt_mask: ember._C.Tensor | None = None, memory_mask: ember._C.Tensor | None = None, tgt_key_padding_mask: ember._C.Tensor | None = None, memory_key_padding_mask: ember._C.Tensor | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> ember._C.Tensor:
        ...
    @property
    def norm(self) -> typing.Any:
        ...
    @property
    def num_layers(self) -> int:
        ...
class Transformer(Module):
    """
    torch.nn.Transformer: an encoder and a decoder stack with PyTorch's parameter names; custom_encoder
    and custom_decoder take a TransformerEncoder / TransformerDecoder (or a subclass).
    """
    @staticmethod
    def generate_square_subsequent_mask(sz: typing.SupportsInt | typing.SupportsIndex, device: typing.Any = None, dtype: ember._C.dtype | None = None) -> ember._C.Tensor:
        """
        [sz, sz]: -inf above the diagonal, 0 elsewhere (position i attends to 0 ... i).
        """
    def __init__(self, d_model: typing.SupportsInt | typing.SupportsIndex = 512, nhead: typing.SupportsInt | typing.SupportsIndex = 8, num_encoder_layers: typing.SupportsInt | typing.SupportsIndex = 6, num_decoder_layers: typing.SupportsInt | typing.SupportsIndex = 6, dim_feedforward: typing.SupportsInt | typing.SupportsIndex = 2048, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.1, activation: typing.Any = 'relu', custom_encoder: typing.Any = None, custom_decoder: typing.Any = None, layer_norm_eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05, batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, src: ember._C.Tensor, tgt: ember._C.Tensor, src_mask: ember._C.Tensor | None = None, tgt_mask: ember._C.Tensor | None = None, memory_mask: ember._C.Tensor | None = None, src_key_padding_mask: ember._C.Tensor | None = None, tgt_key_padding_mask: ember._C.Tensor | None = None, memory_key_padding_mask: ember._C.Tensor | None = None, src_is_causal: bool | None = None, tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> ember._C.Tensor:
        ...
    @property
    def batch_first(self) -> bool:
        ...
    @property
    def d_model(self) -> int:
        ...
    @property
    def nhead(self) -> int:
        ...
class RNNBase(Module):
    """
    What RNN, LSTM and GRU share (torch.nn.RNNBase).
    """
    def flatten_parameters(self) -> None:
        """
        Does nothing: Ember's layers read their parameters where they are (PyTorch compacts them for cuDNN).
        """
    def forward(self, input: typing.Any, hx: typing.Any = None) -> tuple:
        """
        input [T, B, input_size] ([B, T, ...] with batch_first), unbatched [T, input_size] or a PackedSequence -> (output, h_n), for LSTM (output, (h_n, c_n)).
        """
    def reset_parameters(self) -> None:
        ...
    @property
    def _flat_weights(self) -> list:
        ...
    @property
    def _flat_weights_names(self) -> list[str]:
        ...
    @property
    def all_weights(self) -> list:
        ...
    @property
    def batch_first(self) -> bool:
        ...
    @property
    def bias(self) -> bool:
        """
        Whether the layer has biases (a bool, as in PyTorch).
        """
    @property
    def bidirectional(self) -> bool:
        ...
    @property
    def dropout(self) -> float:
        ...
    @property
    def hidden_size(self) -> int:
        ...
    @property
    def input_size(self) -> int:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def num_layers(self) -> int:
        ...
    @property
    def proj_size(self) -> int:
        ...
class RNN(RNNBase):
    """
    Elman RNN, h_t = tanh or relu(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (torch.nn.RNN).
    forward(input, hx=None) -> (output, h_n).
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, num_layers: typing.SupportsInt | typing.SupportsIndex = 1, nonlinearity: str = 'tanh', bias: bool = True, batch_first: bool = False, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.0, bidirectional: bool = False, *, proj_size: typing.SupportsInt | typing.SupportsIndex = 0, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    @property
    def nonlinearity(self) -> str:
        ...
class GRU(RNNBase):
    """
    GRU with gates r, z, n (torch.nn.GRU). forward(input, hx=None) -> (output, h_n).
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, num_layers: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, batch_first: bool = False, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.0, bidirectional: bool = False, *, proj_size: typing.SupportsInt | typing.SupportsIndex = 0, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class LSTM(RNNBase):
    """
    LSTM with gates i, f, g, o (torch.nn.LSTM). forward(input, hx=None), hx = (h_0, c_0), returns
    (output, (h_n, c_n)). proj_size > 0 is refused (NotImplementedError).
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, num_layers: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, batch_first: bool = False, dropout: typing.SupportsFloat | typing.SupportsIndex = 0.0, bidirectional: bool = False, proj_size: typing.SupportsInt | typing.SupportsIndex = 0, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
class RNNCellBase(Module):
    """
    What RNNCell, LSTMCell and GRUCell share (torch.nn.RNNCellBase).
    """
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> bool:
        ...
    @property
    def hidden_size(self) -> int:
        ...
    @property
    def input_size(self) -> int:
        ...
class RNNCell(RNNCellBase):
    """
    One Elman RNN step (torch.nn.RNNCell): forward(input, hx=None) -> h'.
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, bias: bool = True, nonlinearity: str = 'tanh', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, hx: ember._C.Tensor | None = None) -> ember._C.Tensor:
        ...
    @property
    def nonlinearity(self) -> str:
        ...
class GRUCell(RNNCellBase):
    """
    One GRU step (torch.nn.GRUCell): forward(input, hx=None) -> h'.
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, hx: ember._C.Tensor | None = None) -> ember._C.Tensor:
        ...
class LSTMCell(RNNCellBase):
    """
    One LSTM step (torch.nn.LSTMCell): forward(input, hx=None), hx = (h, c) -> (h', c').
    """
    def __init__(self, input_size: typing.SupportsInt | typing.SupportsIndex, hidden_size: typing.SupportsInt | typing.SupportsIndex, bias: bool = True, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, hx: typing.Any = None) -> tuple[ember._C.Tensor, ember._C.Tensor]:
        ...
class Sequential(Module):
    """
    Runs its children in order (torch.nn.Sequential): Sequential(m1, m2, ...) names them "0", "1", ...;
    Sequential(OrderedDict(name=module, ...)) keeps the names. Children may be written in Python.
    """
    @typing.overload
    def __getitem__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Module:
        ...
    @typing.overload
    def __getitem__(self, arg0: slice) -> Sequential:
        ...
    def __init__(self, *args) -> None:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def append(self, module: typing.Any) -> typing.Any:
        ...
class ModuleList(Module):
    """
    An indexable list of registered modules (torch.nn.ModuleList).
    """
    @typing.overload
    def __getitem__(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> Module:
        ...
    @typing.overload
    def __getitem__(self, arg0: slice) -> ModuleList:
        ...
    def __iadd__(self, arg0: collections.abc.Iterable) -> typing.Any:
        ...
    def __init__(self, modules: collections.abc.Iterable | None = None) -> None:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def __setitem__(self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.Any) -> None:
        ...
    def append(self, module: typing.Any) -> typing.Any:
        ...
    def extend(self, modules: collections.abc.Iterable) -> typing.Any:
        ...
class ModuleDict(Module):
    """
    Registered modules by name, in insertion order (torch.nn.ModuleDict).
    """
    def __contains__(self, arg0: str) -> bool:
        ...
    def __getitem__(self, arg0: str) -> Module:
        ...
    def __init__(self, modules: typing.Any | None = None) -> None:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __len__(self) -> int:
        ...
    def __setitem__(self, arg0: str, arg1: typing.Any) -> None:
        ...
    def items(self) -> list:
        ...
    def keys(self) -> list:
        ...
    def update(self, modules: typing.Any) -> None:
        ...
    def values(self) -> list:
        ...
class L1Loss(Module):
    """
    mean |input - target| (torch.nn.L1Loss).
    """
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
class MSELoss(Module):
    """
    mean (input - target)^2 (torch.nn.MSELoss).
    """
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
class CrossEntropyLoss(Module):
    """
    torch.nn.CrossEntropyLoss: log_softmax and nll_loss.
    """
    reduction: str
    def __init__(self, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduce: typing.Any = None, reduction: str = 'mean', label_smoothing: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def ignore_index(self) -> int:
        ...
    @ignore_index.setter
    def ignore_index(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def label_smoothing(self) -> float:
        ...
    @label_smoothing.setter
    def label_smoothing(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class NLLLoss(Module):
    """
    torch.nn.NLLLoss: -input[target], weighted.
    """
    reduction: str
    def __init__(self, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, ignore_index: typing.SupportsInt | typing.SupportsIndex = -100, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def ignore_index(self) -> int:
        ...
    @ignore_index.setter
    def ignore_index(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class BCELoss(Module):
    """
    torch.nn.BCELoss, on probabilities.
    """
    reduction: str
    def __init__(self, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class BCEWithLogitsLoss(Module):
    """
    torch.nn.BCEWithLogitsLoss, on logits.
    """
    reduction: str
    def __init__(self, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean', pos_weight: ember._C.Tensor | None = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def pos_weight(self) -> typing.Any:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class SmoothL1Loss(Module):
    """
    torch.nn.SmoothL1Loss(beta).
    """
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean', beta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def beta(self) -> float:
        ...
    @beta.setter
    def beta(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class HuberLoss(Module):
    """
    torch.nn.HuberLoss(delta).
    """
    reduction: str
    def __init__(self, reduction: str = 'mean', delta: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def delta(self) -> float:
        ...
    @delta.setter
    def delta(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class KLDivLoss(Module):
    """
    torch.nn.KLDivLoss; input holds log-probabilities.
    """
    log_target: bool
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean', log_target: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
class PoissonNLLLoss(Module):
    """
    torch.nn.PoissonNLLLoss.
    """
    full: bool
    log_input: bool
    reduction: str
    def __init__(self, log_input: bool = True, full: bool = False, size_average: typing.Any = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, log_input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def eps(self) -> float:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class GaussianNLLLoss(Module):
    """
    torch.nn.GaussianNLLLoss, called as loss(input, target, var).
    """
    full: bool
    reduction: str
    def __init__(self, *, full: bool = False, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor, var: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def eps(self) -> float:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class MarginRankingLoss(Module):
    """
    torch.nn.MarginRankingLoss(margin).
    """
    reduction: str
    def __init__(self, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class HingeEmbeddingLoss(Module):
    """
    torch.nn.HingeEmbeddingLoss(margin).
    """
    reduction: str
    def __init__(self, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class SoftMarginLoss(Module):
    """
    torch.nn.SoftMarginLoss.
    """
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
class MultiLabelSoftMarginLoss(Module):
    """
    torch.nn.MultiLabelSoftMarginLoss.
    """
    reduction: str
    def __init__(self, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class CosineEmbeddingLoss(Module):
    """
    torch.nn.CosineEmbeddingLoss(margin).
    """
    reduction: str
    def __init__(self, margin: typing.SupportsFloat | typing.SupportsIndex = 0.0, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input1: ember._C.Tensor, input2: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class MultiMarginLoss(Module):
    """
    torch.nn.MultiMarginLoss(p, margin, weight).
    """
    reduction: str
    def __init__(self, p: typing.SupportsInt | typing.SupportsIndex = 1, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, weight: ember._C.Tensor | None = None, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def p(self) -> int:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def weight(self) -> typing.Any:
        ...
class MultiLabelMarginLoss(Module):
    """
    torch.nn.MultiLabelMarginLoss.
    """
    reduction: str
    def __init__(self, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, input: ember._C.Tensor, target: ember._C.Tensor) -> ember._C.Tensor:
        ...
class TripletMarginLoss(Module):
    """
    torch.nn.TripletMarginLoss(margin, p, eps, swap).
    """
    reduction: str
    swap: bool
    def __init__(self, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, swap: bool = False, size_average: typing.Any = None, reduce: typing.Any = None, reduction: str = 'mean') -> None:
        ...
    def forward(self, anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def eps(self) -> float:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class TripletMarginWithDistanceLoss(Module):
    """
    torch.nn.TripletMarginWithDistanceLoss(distance_function, margin, swap).
    """
    reduction: str
    swap: bool
    def __init__(self, *, distance_function: collections.abc.Callable[[ember._C.Tensor, ember._C.Tensor], ember._C.Tensor] | None = None, margin: typing.SupportsFloat | typing.SupportsIndex = 1.0, swap: bool = False, reduction: str = 'mean') -> None:
        ...
    def forward(self, anchor: ember._C.Tensor, positive: ember._C.Tensor, negative: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def margin(self) -> float:
        ...
    @margin.setter
    def margin(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class CTCLoss(Module):
    """
    torch.nn.CTCLoss(blank, reduction, zero_infinity).
    """
    reduction: str
    zero_infinity: bool
    def __init__(self, blank: typing.SupportsInt | typing.SupportsIndex = 0, reduction: str = 'mean', zero_infinity: bool = False) -> None:
        ...
    def forward(self, log_probs: ember._C.Tensor, targets: ember._C.Tensor, input_lengths: typing.Any, target_lengths: typing.Any) -> ember._C.Tensor:
        ...
    @property
    def blank(self) -> int:
        ...
    @blank.setter
    def blank(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class ZeroPad1d(Module):
    """
    torch.nn.ZeroPad1d(padding): the last dim padded with zeros.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ZeroPad2d(Module):
    """
    torch.nn.ZeroPad2d(padding): the last 2 dims padded with zeros.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ZeroPad3d(Module):
    """
    torch.nn.ZeroPad3d(padding): the last 3 dims padded with zeros.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ConstantPad1d(Module):
    """
    torch.nn.ConstantPad1d(padding, value).
    """
    def __init__(self, padding: typing.Any, value: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ConstantPad2d(Module):
    """
    torch.nn.ConstantPad2d(padding, value).
    """
    def __init__(self, padding: typing.Any, value: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ConstantPad3d(Module):
    """
    torch.nn.ConstantPad3d(padding, value).
    """
    def __init__(self, padding: typing.Any, value: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReflectionPad1d(Module):
    """
    torch.nn.ReflectionPad1d(padding): F.pad mode 'reflect'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReflectionPad2d(Module):
    """
    torch.nn.ReflectionPad2d(padding): F.pad mode 'reflect'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReflectionPad3d(Module):
    """
    torch.nn.ReflectionPad3d(padding): F.pad mode 'reflect'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReplicationPad1d(Module):
    """
    torch.nn.ReplicationPad1d(padding): mode 'replicate'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReplicationPad2d(Module):
    """
    torch.nn.ReplicationPad2d(padding): mode 'replicate'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class ReplicationPad3d(Module):
    """
    torch.nn.ReplicationPad3d(padding): mode 'replicate'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class CircularPad1d(Module):
    """
    torch.nn.CircularPad1d(padding): F.pad mode 'circular'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class CircularPad2d(Module):
    """
    torch.nn.CircularPad2d(padding): F.pad mode 'circular'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class CircularPad3d(Module):
    """
    torch.nn.CircularPad3d(padding): F.pad mode 'circular'.
    """
    def __init__(self, padding: typing.Any) -> None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def value(self) -> float:
        ...
class SiLU(Module):
    """
    x * sigmoid(x) (torch.nn.SiLU).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class Mish(Module):
    """
    x * tanh(softplus(x)) (torch.nn.Mish).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class SELU(Module):
    """
    scale * elu(x, alpha), SELU's constants (torch.nn.SELU).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class ReLU6(Module):
    """
    min(max(x, 0), 6) (torch.nn.ReLU6).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class Hardsigmoid(Module):
    """
    clamp(x / 6 + 1/2, 0, 1) (torch.nn.Hardsigmoid).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class Hardswish(Module):
    """
    x * hardsigmoid(x) (torch.nn.Hardswish).
    """
    def __init__(self, inplace: bool = False) -> None:
        ...
class Softsign(Module):
    """
    x / (1 + |x|) (torch.nn.Softsign).
    """
    def __init__(self) -> None:
        ...
class Tanhshrink(Module):
    """
    x - tanh(x) (torch.nn.Tanhshrink).
    """
    def __init__(self) -> None:
        ...
class LogSigmoid(Module):
    """
    log(sigmoid(x)) (torch.nn.LogSigmoid).
    """
    def __init__(self) -> None:
        ...
class Softmax2d(Module):
    """
    softmax over the channels of [N, C, H, W] or [C, H, W] input.
    """
    def __init__(self) -> None:
        ...
class ELU(Module):
    """
    x where > 0, else alpha (e^x - 1) (torch.nn.ELU).
    """
    def __init__(self, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False) -> None:
        ...
    @property
    def alpha(self) -> float:
        ...
    @alpha.setter
    def alpha(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class CELU(Module):
    """
    x where > 0, else alpha (e^(x / alpha) - 1) (torch.nn.CELU).
    """
    def __init__(self, alpha: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False) -> None:
        ...
    @property
    def alpha(self) -> float:
        ...
    @alpha.setter
    def alpha(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Softplus(Module):
    """
    log(1 + e^(beta x)) / beta, linear past threshold (torch.nn.Softplus).
    """
    def __init__(self, beta: typing.SupportsFloat | typing.SupportsIndex = 1.0, threshold: typing.SupportsFloat | typing.SupportsIndex = 20.0) -> None:
        ...
    @property
    def beta(self) -> float:
        ...
    @beta.setter
    def beta(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def threshold(self) -> float:
        ...
    @threshold.setter
    def threshold(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Hardtanh(Module):
    """
    x clamped to [min_val, max_val] (torch.nn.Hardtanh).
    """
    def __init__(self, min_val: typing.SupportsFloat | typing.SupportsIndex = -1.0, max_val: typing.SupportsFloat | typing.SupportsIndex = 1.0, inplace: bool = False, min_value: typing.SupportsFloat | typing.SupportsIndex | None = None, max_value: typing.SupportsFloat | typing.SupportsIndex | None = None) -> None:
        ...
    @property
    def max_val(self) -> float:
        ...
    @max_val.setter
    def max_val(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def min_val(self) -> float:
        ...
    @min_val.setter
    def min_val(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Threshold(Module):
    """
    value where x <= threshold, else x (torch.nn.Threshold).
    """
    def __init__(self, threshold: typing.SupportsFloat | typing.SupportsIndex, value: typing.SupportsFloat | typing.SupportsIndex, inplace: bool = False) -> None:
        ...
    @property
    def threshold(self) -> float:
        ...
    @threshold.setter
    def threshold(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def value(self) -> float:
        ...
    @value.setter
    def value(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class GLU(Module):
    """
    a * sigmoid(b) for the halves a, b of the input along dim (torch.nn.GLU).
    """
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    @property
    def dim(self) -> int:
        ...
    @dim.setter
    def dim(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class LogSoftmax(Module):
    """
    log_softmax along dim (torch.nn.LogSoftmax).
    """
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    @property
    def dim(self) -> int:
        ...
    @dim.setter
    def dim(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Softmin(Module):
    """
    softmax(-x) along dim (torch.nn.Softmin).
    """
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    @property
    def dim(self) -> int:
        ...
    @dim.setter
    def dim(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Softshrink(Module):
    """
    x -+ lambd outside [-lambd, lambd], 0 inside (torch.nn.Softshrink).
    """
    def __init__(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> None:
        ...
    @property
    def lambd(self) -> float:
        ...
    @lambd.setter
    def lambd(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Hardshrink(Module):
    """
    x outside [-lambd, lambd], 0 inside (torch.nn.Hardshrink).
    """
    def __init__(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 0.5) -> None:
        ...
    @property
    def lambd(self) -> float:
        ...
    @lambd.setter
    def lambd(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class RReLU(Module):
    """
    Leaky ReLU with slopes from U(lower, upper) in training, their mean in eval.
    """
    def __init__(self, lower: typing.SupportsFloat | typing.SupportsIndex = 0.125, upper: typing.SupportsFloat | typing.SupportsIndex = 0.3333333333333333, inplace: bool = False) -> None:
        ...
    @property
    def lower(self) -> float:
        ...
    @lower.setter
    def lower(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def upper(self) -> float:
        ...
    @upper.setter
    def upper(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class EmbeddingBag(Module):
    """
    Sums, means or maxima of bags of embeddings (torch.nn.EmbeddingBag).
    """
    @staticmethod
    def from_pretrained(*args, **kwargs):
        """
        (cls: object, embeddings: ember._C.Tensor, freeze: bool = True, max_norm: object = None, norm_type: typing.SupportsFloat | typing.SupportsIndex = 2.0, scale_grad_by_freq: bool = False, mode: str = 'mean', sparse: bool = False, include_last_offset: bool = False, padding_idx: object = None) -> object
        
        An EmbeddingBag over embeddings [num_embeddings, embedding_dim] (shared), trainable unless freeze.
        """
    def __init__(self, num_embeddings: typing.SupportsInt | typing.SupportsIndex, embedding_dim: typing.SupportsInt | typing.SupportsIndex, max_norm: typing.Any = None, norm_type: typing.SupportsFloat | typing.SupportsIndex = 2.0, scale_grad_by_freq: bool = False, mode: str = 'mean', sparse: bool = False, _weight: ember._C.Tensor | None = None, include_last_offset: bool = False, padding_idx: typing.SupportsInt | typing.SupportsIndex | None = None, device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, offsets: ember._C.Tensor | None = None, per_sample_weights: ember._C.Tensor | None = None) -> ember._C.Tensor:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def embedding_dim(self) -> int:
        ...
    @property
    def include_last_offset(self) -> bool:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def num_embeddings(self) -> int:
        ...
    @property
    def padding_idx(self) -> int | None:
        ...
class PixelShuffle(Module):
    """
    [*, C r^2, H, W] -> [*, C, H r, W r] (torch.nn.PixelShuffle).
    """
    def __init__(self, upscale_factor: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def upscale_factor(self) -> int:
        ...
    @upscale_factor.setter
    def upscale_factor(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class PixelUnshuffle(Module):
    """
    The inverse of PixelShuffle (torch.nn.PixelUnshuffle).
    """
    def __init__(self, downscale_factor: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def downscale_factor(self) -> int:
        ...
    @downscale_factor.setter
    def downscale_factor(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class ChannelShuffle(Module):
    """
    ShuffleNet's channel shuffle (torch.nn.ChannelShuffle).
    """
    def __init__(self, groups: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def groups(self) -> int:
        ...
    @groups.setter
    def groups(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Dropout1d(Module):
    """
    Zeroes whole channels of [N, C, L] input while training.
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Dropout2d(Module):
    """
    Zeroes whole channels of [N, C, H, W] input while training.
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Dropout3d(Module):
    """
    Zeroes whole channels of [N, C, D, H, W] input while training.
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class AlphaDropout(Module):
    """
    Dropout that keeps SELU's mean and variance, while training.
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class FeatureAlphaDropout(Module):
    """
    AlphaDropout of whole channels, while training.
    """
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, inplace: bool = False) -> None:
        ...
    @property
    def p(self) -> float:
        ...
    @p.setter
    def p(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class PairwiseDistance(Module):
    """
    ||x1 - x2 + eps||_p along the last dim.
    """
    keepdim: bool
    def __init__(self, p: typing.SupportsFloat | typing.SupportsIndex = 2.0, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-06, keepdim: bool = False) -> None:
        ...
    def forward(self, x1: ember._C.Tensor, x2: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def eps(self) -> float:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def norm(self) -> float:
        ...
    @norm.setter
    def norm(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class CosineSimilarity(Module):
    """
    The cosine between x1 and x2 along dim.
    """
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex = 1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-08) -> None:
        ...
    def forward(self, x1: ember._C.Tensor, x2: ember._C.Tensor) -> ember._C.Tensor:
        ...
    @property
    def dim(self) -> int:
        ...
    @dim.setter
    def dim(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def eps(self) -> float:
        ...
    @eps.setter
    def eps(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class LocalResponseNorm(Module):
    """
    AlexNet's normalisation across channels (torch.nn.LocalResponseNorm).
    """
    def __init__(self, size: typing.SupportsInt | typing.SupportsIndex, alpha: typing.SupportsFloat | typing.SupportsIndex = 0.0001, beta: typing.SupportsFloat | typing.SupportsIndex = 0.75, k: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> None:
        ...
    @property
    def alpha(self) -> float:
        ...
    @alpha.setter
    def alpha(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def beta(self) -> float:
        ...
    @beta.setter
    def beta(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def k(self) -> float:
        ...
    @k.setter
    def k(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def size(self) -> int:
        ...
    @size.setter
    def size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class Unflatten(Module):
    """
    dim split into unflattened_size (torch.nn.Unflatten).
    """
    def __init__(self, dim: typing.SupportsInt | typing.SupportsIndex, unflattened_size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def dim(self) -> int:
        ...
    @property
    def unflattened_size(self) -> tuple:
        ...
class Conv3d(Module):
    """
    3-D convolution over [N, C, D, H, W] (torch.nn.Conv3d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: int | tuple[int, int, int], stride: int | tuple[int, int, int] = 1, padding: typing.Any = 0, dilation: int | tuple[int, int, int] = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def padding(self) -> typing.Any:
        """
        (d, h, w), or 'same' / 'valid' when given by name.
        """
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple:
        ...
class ConvTranspose1d(Module):
    """
    Transposed 1-D convolution over [N, C, L] (torch.nn.ConvTranspose1d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, dilation: typing.Any = 1, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, output_size: typing.Any = None) -> ember._C.Tensor:
        """
        The transposed convolution; output_size (the spatial sizes or the whole shape) picks the output_padding.
        """
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def output_padding(self) -> tuple:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple:
        ...
class ConvTranspose3d(Module):
    """
    Transposed 3-D convolution over [N, C, D, H, W] (torch.nn.ConvTranspose3d).
    """
    def __init__(self, in_channels: typing.SupportsInt | typing.SupportsIndex, out_channels: typing.SupportsInt | typing.SupportsIndex, kernel_size: int | tuple[int, int, int], stride: int | tuple[int, int, int] = 1, padding: int | tuple[int, int, int] = 0, output_padding: int | tuple[int, int, int] = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, bias: bool = True, dilation: int | tuple[int, int, int] = 1, padding_mode: str = 'zeros', device: typing.Any = None, dtype: typing.Any = None) -> None:
        ...
    def forward(self, input: ember._C.Tensor, output_size: typing.Any = None) -> ember._C.Tensor:
        """
        The transposed convolution; output_size (the spatial sizes or the whole shape) picks the output_padding.
        """
    def reset_parameters(self) -> None:
        ...
    @property
    def bias(self) -> typing.Any:
        """
        The bias parameter, or None for a layer built with bias=False.
        """
    @property
    def dilation(self) -> tuple:
        ...
    @property
    def groups(self) -> int:
        ...
    @property
    def in_channels(self) -> int:
        ...
    @property
    def kernel_size(self) -> tuple:
        ...
    @property
    def out_channels(self) -> int:
        ...
    @property
    def output_padding(self) -> tuple:
        ...
    @property
    def padding(self) -> tuple:
        ...
    @property
    def padding_mode(self) -> str:
        ...
    @property
    def stride(self) -> tuple:
        ...
class MaxPool1d(Module):
    """
    Max pooling along the last dim (torch.nn.MaxPool1d).
    """
    ceil_mode: bool
    return_indices: bool
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor) -> typing.Any:
        """
        The maxima, and their flat positions with return_indices=True.
        """
    @property
    def dilation(self) -> int:
        ...
    @dilation.setter
    def dilation(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def kernel_size(self) -> int:
        ...
    @kernel_size.setter
    def kernel_size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def padding(self) -> int:
        ...
    @padding.setter
    def padding(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def stride(self) -> int | None:
        ...
    @stride.setter
    def stride(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class AvgPool1d(Module):
    """
    Average pooling along the last dim (torch.nn.AvgPool1d).
    """
    ceil_mode: bool
    count_include_pad: bool
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        ...
    @property
    def kernel_size(self) -> int:
        ...
    @kernel_size.setter
    def kernel_size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def padding(self) -> int:
        ...
    @padding.setter
    def padding(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def stride(self) -> int | None:
        ...
    @stride.setter
    def stride(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class AdaptiveAvgPool1d(Module):
    """
    Means over output_size windows tiling the last dim.
    """
    def __init__(self, output_size: typing.Any) -> None:
        ...
    @property
    def output_size(self) -> int:
        ...
    @output_size.setter
    def output_size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class AdaptiveMaxPool1d(Module):
    """
    Maxima over output_size windows tiling the last dim.
    """
    return_indices: bool
    def __init__(self, output_size: typing.Any, return_indices: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor) -> typing.Any:
        """
        The maxima, and their flat positions with return_indices=True.
        """
    @property
    def output_size(self) -> int:
        ...
    @output_size.setter
    def output_size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class MaxPool3d(Module):
    """
    Max pooling over [N, C, D, H, W] (torch.nn.MaxPool3d).
    """
    ceil_mode: bool
    dilation: int | tuple[int, int, int]
    kernel_size: int | tuple[int, int, int]
    padding: int | tuple[int, int, int]
    return_indices: bool
    stride: int | tuple[int, int, int] | None
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor) -> typing.Any:
        """
        The maxima, and their flat positions with return_indices=True.
        """
class AvgPool3d(Module):
    """
    Average pooling over [N, C, D, H, W] (torch.nn.AvgPool3d).
    """
    ceil_mode: bool
    count_include_pad: bool
    kernel_size: int | tuple[int, int, int]
    padding: int | tuple[int, int, int]
    stride: int | tuple[int, int, int] | None
    def __init__(self, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    @property
    def divisor_override(self) -> int | None:
        ...
    @divisor_override.setter
    def divisor_override(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class AdaptiveAvgPool3d(Module):
    """
    Means over output_size windows tiling D x H x W.
    """
    def __init__(self, output_size: typing.Any) -> None:
        ...
    @property
    def output_size(self) -> tuple[typing.Any, typing.Any, typing.Any]:
        ...
class AdaptiveMaxPool3d(Module):
    """
    Maxima over output_size windows tiling D x H x W.
    """
    return_indices: bool
    def __init__(self, output_size: typing.Any, return_indices: bool = False) -> None:
        ...
    def forward(self, input: ember._C.Tensor) -> typing.Any:
        """
        The maxima, and their flat positions with return_indices=True.
        """
    @property
    def output_size(self) -> tuple[typing.Any, typing.Any, typing.Any]:
        ...
class LPPool1d(Module):
    """
    Power-average pooling along the last dim (torch.nn.LPPool1d).
    """
    ceil_mode: bool
    def __init__(self, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = None, ceil_mode: bool = False) -> None:
        ...
    @property
    def kernel_size(self) -> int:
        ...
    @kernel_size.setter
    def kernel_size(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def norm_type(self) -> float:
        ...
    @norm_type.setter
    def norm_type(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def stride(self) -> int | None:
        ...
    @stride.setter
    def stride(self, arg1: typing.SupportsInt | typing.SupportsIndex | None) -> None:
        ...
class LPPool2d(Module):
    """
    Power-average pooling over [N, C, H, W] (torch.nn.LPPool2d).
    """
    ceil_mode: bool
    kernel_size: int | tuple[int, int]
    stride: int | tuple[int, int] | None
    def __init__(self, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: int | tuple[int, int], stride: int | tuple[int, int] | None = None, ceil_mode: bool = False) -> None:
        ...
    @property
    def norm_type(self) -> float:
        ...
    @norm_type.setter
    def norm_type(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class LPPool3d(Module):
    """
    Power-average pooling over [N, C, D, H, W] (torch.nn.LPPool3d).
    """
    ceil_mode: bool
    kernel_size: int | tuple[int, int, int]
    stride: int | tuple[int, int, int] | None
    def __init__(self, norm_type: typing.SupportsFloat | typing.SupportsIndex, kernel_size: typing.Any, stride: typing.Any = None, ceil_mode: bool = False) -> None:
        ...
    @property
    def norm_type(self) -> float:
        ...
    @norm_type.setter
    def norm_type(self, arg1: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
class Unfold(Module):
    """
    im2col: every sliding window as a column (torch.nn.Unfold).
    """
    dilation: int | tuple[int, int]
    kernel_size: int | tuple[int, int]
    padding: int | tuple[int, int]
    stride: int | tuple[int, int]
    def __init__(self, kernel_size: int | tuple[int, int], dilation: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0, stride: int | tuple[int, int] = 1) -> None:
        ...
class Fold(Module):
    """
    col2im: columns summed back into planes (torch.nn.Fold).
    """
    dilation: int | tuple[int, int]
    kernel_size: int | tuple[int, int]
    output_size: int | tuple[int, int]
    padding: int | tuple[int, int]
    stride: int | tuple[int, int]
    def __init__(self, output_size: int | tuple[int, int], kernel_size: int | tuple[int, int], dilation: int | tuple[int, int] = 1, padding: int | tuple[int, int] = 0, stride: int | tuple[int, int] = 1) -> None:
        ...
class Upsample(Module):
    """
    F.interpolate as a layer (torch.nn.Upsample).
    """
    def __init__(self, size: typing.Any = None, scale_factor: typing.Any = None, mode: str = 'nearest', align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        ...
    @property
    def align_corners(self) -> bool | None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def recompute_scale_factor(self) -> bool | None:
        ...
    @property
    def scale_factor(self) -> typing.Any:
        ...
    @property
    def size(self) -> typing.Any:
        ...
class UpsamplingNearest2d(Module):
    """
    Upsample(mode='nearest').
    """
    def __init__(self, size: typing.Any = None, scale_factor: typing.Any = None) -> None:
        ...
    @property
    def align_corners(self) -> bool | None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def recompute_scale_factor(self) -> bool | None:
        ...
    @property
    def scale_factor(self) -> typing.Any:
        ...
    @property
    def size(self) -> typing.Any:
        ...
class UpsamplingBilinear2d(Module):
    """
    Upsample(mode='bilinear', align_corners=True).
    """
    def __init__(self, size: typing.Any = None, scale_factor: typing.Any = None) -> None:
        ...
    @property
    def align_corners(self) -> bool | None:
        ...
    @property
    def mode(self) -> str:
        ...
    @property
    def recompute_scale_factor(self) -> bool | None:
        ...
    @property
    def scale_factor(self) -> typing.Any:
        ...
    @property
    def size(self) -> typing.Any:
        ...
class RemovableHandle:
    """
    handle.remove() unregisters the module hook.
    """
    def __enter__(self) -> RemovableHandle:
        ...
    def __exit__(self, *args) -> None:
        ...
    def remove(self) -> None:
        ...
    @property
    def id(self) -> int:
        ...
def _address(arg0: Module) -> int:
    """
    The C++ object's address: identifies a module whatever Python object wraps it.
    """
