"""
Ember's C++ core: tensors, ops and autograd (import `ember`, not this module)
"""
from __future__ import annotations
import collections.abc
import numpy
import typing
from . import return_types
from . import linalg
from . import _autograd
from . import nn
from . import optim
from . import io
from . import jit
from . import data
from . import distributed
from . import fft
from . import profiler
__all__: list[str] = ['Generator', 'LinAlgError', 'Node', 'RemovableHandle', 'Tensor', 'abs', 'absolute', 'acos', 'acosh', 'adaptive_avg_pool2d', 'adaptive_max_pool2d', 'add', 'addcdiv', 'addcmul', 'addmm', 'all', 'allclose', 'amax', 'amin', 'angle', 'any', 'arange', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctan2', 'arctanh', 'argmax', 'argmin', 'argsort', 'argwhere', 'as_strided', 'asin', 'asinh', 'atan', 'atan2', 'atanh', 'autocast', 'autocast_decrement_nesting', 'autocast_increment_nesting', 'avg_pool2d', 'baddbmm', 'bartlett_window', 'batch_norm', 'bfloat16', 'bincount', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_or', 'bitwise_right_shift', 'bitwise_xor', 'blackman_window', 'bmm', 'bool', 'broadcast_tensors', 'broadcast_to', 'bucketize', 'can_cast', 'cartesian_prod', 'cat', 'cdist', 'cdouble', 'ceil', 'cfloat', 'cholesky', 'chunk', 'clamp', 'clamp_max', 'clamp_min', 'clear_autocast_cache', 'clip', 'clone', 'combinations', 'complex', 'complex128', 'complex64', 'concat', 'conj', 'conj_physical', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'cos', 'cosh', 'count_nonzero', 'cross', 'cummax', 'cummin', 'cumprod', 'cumsum', 'data', 'default_generator', 'deg2rad', 'det', 'device', 'diag', 'diag_embed', 'diagonal', 'diff', 'digamma', 'dist', 'distributed', 'div', 'divide', 'dot', 'double', 'dropout', 'dtype', 'einsum', 'embedding', 'empty', 'empty_like', 'eq', 'equal', 'erf', 'erfc', 'erfinv', 'exp', 'exp2', 'expm1', 'eye', 'fft', 'fill_diagonal_', 'fix', 'flatten', 'flip', 'float', 'float16', 'float32', 'float64', 'floor', 'floor_divide', 'fmax', 'fmin', 'fmod', 'frac', 'from_numpy', 'full', 'full_like', 'gather', 'ge', 'gelu', 'geqrf', 'ger', 'get_autocast_cpu_dtype', 'get_autocast_dtype', 'get_autocast_gpu_dtype', 'get_default_device', 'get_default_dtype', 'get_num_threads', 'get_printoptions', 'greater', 'greater_equal', 'group_norm', 'gru', 'gru_cell', 'gt', 'half', 'hamming_window', 'hann_window', 'heaviside', 'histc', 'hypot', 'i0', 'igamma', 'igammac', 'imag', 'index_add', 'index_copy', 'index_fill', 'index_put', 'index_reduce', 'index_select', 'instance_norm', 'int', 'int16', 'int32', 'int64', 'int8', 'inverse', 'io', 'is_autocast_available', 'is_autocast_cache_enabled', 'is_autocast_cpu_enabled', 'is_autocast_enabled', 'isclose', 'isfinite', 'isinf', 'isnan', 'istft', 'jit', 'kron', 'kthvalue', 'layer_norm', 'le', 'leaky_relu', 'lerp', 'less', 'less_equal', 'lgamma', 'linalg', 'linspace', 'log', 'log10', 'log1p', 'log2', 'log_softmax', 'logcumsumexp', 'logdet', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logit', 'logspace', 'logsumexp', 'long', 'lstm', 'lstm_cell', 'lt', 'manual_seed', 'masked_fill', 'masked_scatter', 'masked_select', 'matmul', 'matrix_exp', 'matrix_power', 'max', 'max_pool2d', 'maximum', 'mean', 'median', 'meshgrid', 'min', 'minimum', 'mm', 'mode', 'moveaxis', 'movedim', 'msort', 'mul', 'multinomial', 'multiply', 'mv', 'mvlgamma', 'nan_to_num', 'nanmean', 'nansum', 'narrow', 'ne', 'neg', 'negative', 'nn', 'nonzero', 'norm', 'not_equal', 'one_hot', 'ones', 'ones_like', 'optim', 'outer', 'pad', 'permute', 'pinverse', 'polar', 'polygamma', 'pow', 'prelu', 'prod', 'profiler', 'promote_types', 'put', 'qr', 'quantile', 'rad2deg', 'rand', 'rand_like', 'randint', 'randint_like', 'randn', 'randn_like', 'randperm', 'real', 'reciprocal', 'relu', 'remainder', 'repeat', 'repeat_interleave', 'reshape', 'result_type', 'return_types', 'rnn_relu', 'rnn_relu_cell', 'rnn_tanh', 'rnn_tanh_cell', 'roll', 'round', 'rsqrt', 'scalar_tensor', 'scaled_dot_product_attention', 'scatter', 'scatter_add', 'scatter_reduce', 'searchsorted', 'select', 'set_autocast_cache_enabled', 'set_autocast_dtype', 'set_autocast_enabled', 'set_default_device', 'set_default_dtype', 'set_num_threads', 'set_printoptions', 'short', 'sigmoid', 'sign', 'signbit', 'sin', 'sinc', 'sinh', 'slogdet', 'softmax', 'sort', 'split', 'split_with_sizes', 'sqrt', 'square', 'squeeze', 'stack', 'std', 'std_mean', 'stft', 'sub', 'subtract', 'sum', 'sum_to_size', 'svd', 'swapaxes', 't', 'take', 'take_along_dim', 'tan', 'tanh', 'tensor_split', 'tile', 'topk', 'trace', 'transpose', 'tril', 'triu', 'true_divide', 'trunc', 'uint8', 'unbind', 'unflatten', 'unique', 'unsqueeze', 'upsample_bicubic2d', 'upsample_bilinear2d', 'upsample_linear1d', 'upsample_nearest1d', 'upsample_nearest2d', 'upsample_nearest_exact1d', 'upsample_nearest_exact2d', 'var', 'var_mean', 'view_as_complex', 'view_as_real', 'where', 'xlogy', 'zeros', 'zeros_like']
class LinAlgError(RuntimeError):
    """
    A matrix the factorisation cannot handle (torch.linalg.LinAlgError).
    """
class dtype:
    """
    An element type: ember.float32, ember.int64, ... (as torch.dtype)
    """
    def __eq__(self, arg0: typing.Any) -> bool:
        ...
    def __getstate__(self) -> str:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, arg0: str) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def is_complex(self) -> bool:
        ...
    @property
    def is_floating_point(self) -> bool:
        ...
    @property
    def itemsize(self) -> int:
        """
        Bytes per element.
        """
class device:
    """
    Where a tensor lives: ember.device('cpu'), ember.device('cuda:0')
    """
    def __enter__(self) -> device:
        ...
    def __eq__(self, arg0: typing.Any) -> bool:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __hash__(self) -> int:
        ...
    @typing.overload
    def __init__(self, type: str) -> None:
        ...
    @typing.overload
    def __init__(self, type: str, index: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    @property
    def index(self) -> typing.Any:
        ...
    @property
    def type(self) -> str:
        ...
_dtype: typing.TypeAlias = dtype
_device: typing.TypeAlias = device

class Tensor:
    """
    A multi-dimensional array with autograd, as torch.Tensor. Make one with ember.tensor(data),
    ember.zeros(2, 3), ember.from_numpy(array), ...; a tensor is one Python object (t.grad is t.grad;
    Python attributes set on it stay), and views (reshape, transpose, indexing with ints and slices)
    share its storage.
    """
    @staticmethod
    def __iand__(*args, **kwargs):
        """
        bitwise_and_(*args, **kwargs)
        Overloaded function.
        
        1. bitwise_and_(self: object, other: ember._C.Tensor) -> object
        
        In place: self & other bit by bit (integer and bool tensors).
        
        2. bitwise_and_(self: object, other: bool | int | float) -> object
        """
    @staticmethod
    def __ilshift__(*args, **kwargs):
        """
        bitwise_left_shift_(*args, **kwargs)
        Overloaded function.
        
        1. bitwise_left_shift_(self: object, other: ember._C.Tensor) -> object
        
        In place: self << other (integer tensors), as PyTorch: a shift by a negative count or by the bit width or more gives 0; the bits shifted out are dropped (no overflow error).
        
        2. bitwise_left_shift_(self: object, other: bool | int | float) -> object
        """
    @staticmethod
    def __init_subclass__(*args, **kwargs):
        """
        (arg0: object, **kwargs) -> None
        """
    @staticmethod
    def __ior__(*args, **kwargs):
        """
        bitwise_or_(*args, **kwargs)
        Overloaded function.
        
        1. bitwise_or_(self: object, other: ember._C.Tensor) -> object
        
        In place: self | other bit by bit (integer and bool tensors).
        
        2. bitwise_or_(self: object, other: bool | int | float) -> object
        """
    @staticmethod
    def __irshift__(*args, **kwargs):
        """
        bitwise_right_shift_(*args, **kwargs)
        Overloaded function.
        
        1. bitwise_right_shift_(self: object, other: ember._C.Tensor) -> object
        
        In place: self >> other (integer tensors), arithmetic for signed dtypes; a shift by a negative count or by the bit width or more gives the sign fill (0 or -1).
        
        2. bitwise_right_shift_(self: object, other: bool | int | float) -> object
        """
    @staticmethod
    def __ixor__(*args, **kwargs):
        """
        bitwise_xor_(*args, **kwargs)
        Overloaded function.
        
        1. bitwise_xor_(self: object, other: ember._C.Tensor) -> object
        
        In place: self ^ other bit by bit (integer and bool tensors).
        
        2. bitwise_xor_(self: object, other: bool | int | float) -> object
        """
    @staticmethod
    def __repr__(*args, **kwargs):
        """
        PyTorch's printout of the tensor.
        """
    @staticmethod
    def __str__(*args, **kwargs):
        """
        PyTorch's printout of the tensor.
        """
    @staticmethod
    def clip_(*args, **kwargs):
        """
        clamp_(self: object, min: bool | int | float | None = None, max: bool | int | float | None = None) -> object
        """
    @staticmethod
    def divide_(*args, **kwargs):
        """
        div_(*args, **kwargs)
        Overloaded function.
        
        1. div_(self: object, other: object) -> object
        
        2. div_(self: object, other: object, *, rounding_mode: str | None) -> object
        """
    @staticmethod
    def multiply_(*args, **kwargs):
        """
        mul_(self: object, other: object) -> object
        """
    @staticmethod
    def subtract_(*args, **kwargs):
        """
        sub_(*args, **kwargs)
        Overloaded function.
        
        1. sub_(self: object, other: object) -> object
        
        2. sub_(self: object, other: ember._C.Tensor, *, alpha: object) -> object
        
        3. sub_(self: object, other: bool | int | float, *, alpha: object) -> object
        """
    @staticmethod
    def true_divide_(*args, **kwargs):
        """
        div_(*args, **kwargs)
        Overloaded function.
        
        1. div_(self: object, other: object) -> object
        
        2. div_(self: object, other: object, *, rounding_mode: str | None) -> object
        """
    def __abs__(self) -> Tensor:
        ...
    @typing.overload
    def __add__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __add__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __add__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    @typing.overload
    def __and__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __and__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __array__(self, dtype: typing.Any = None, copy: typing.Any = None) -> typing.Any:
        ...
    def __bool__(self) -> bool:
        ...
    def __deepcopy__(self, memo: dict) -> typing.Any:
        ...
    @typing.overload
    def __eq__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __eq__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __eq__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    def __float__(self) -> float:
        ...
    def __floordiv__(self, arg0: typing.Any) -> Tensor:
        ...
    def __format__(self, arg0: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def __ge__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __ge__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __getitem__(self, index: typing.Any) -> Tensor:
        """
        t[1], t[:, 1:3], t[::2], t[None], t[..., 0], t[mask], t[index_tensor], t[[0, 2]]. Ints, slices,
        None and ... give views sharing storage; bool masks and index tensors give copies.
        """
    @typing.overload
    def __gt__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __gt__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __hash__(self) -> int:
        """
        By identity, as PyTorch's (== compares values, elementwise).
        """
    def __iadd__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __ifloordiv__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __imul__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, data: Tensor) -> None:
        """
        A new tensor sharing data's memory, cut from the graph (data.detach()).
        """
    def __int__(self) -> int:
        ...
    def __invert__(self) -> Tensor:
        ...
    def __isub__(self, arg0: typing.Any) -> typing.Any:
        ...
    def __iter__(self) -> collections.abc.Iterator:
        ...
    def __itruediv__(self, arg0: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def __le__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __le__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __len__(self) -> int:
        ...
    @typing.overload
    def __lshift__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __lshift__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __lt__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __lt__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __matmul__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __mod__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __mod__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __mul__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __mul__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __mul__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    @typing.overload
    def __ne__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __ne__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __ne__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    def __neg__(self) -> Tensor:
        ...
    @typing.overload
    def __or__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __or__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __pos__(self) -> Tensor:
        ...
    @typing.overload
    def __pow__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __pow__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __radd__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __radd__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    def __rand__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __reduce_ex__(self, protocol: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        ...
    def __rfloordiv__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __rlshift__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __rmod__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rmul__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rmul__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    def __ror__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __rpow__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __rrshift__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rshift__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __rshift__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rsub__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rsub__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    @typing.overload
    def __rtruediv__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __rtruediv__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    def __rxor__(self, arg0: bool | int | float) -> Tensor:
        ...
    def __setitem__(self, index: typing.Any, value: typing.Any) -> None:
        """
        t[i] = 0, t[:, 1:] = other (broadcast), t[mask] = 0.0, t[idx] = values: writes in place.
        """
    @typing.overload
    def __sub__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __sub__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __sub__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    @typing.overload
    def __truediv__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __truediv__(self, arg0: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def __truediv__(self, arg0: complex | typing.SupportsComplex | typing.SupportsFloat | typing.SupportsIndex) -> Tensor:
        ...
    @typing.overload
    def __xor__(self, arg0: Tensor) -> Tensor:
        ...
    @typing.overload
    def __xor__(self, arg0: bool | int | float) -> Tensor:
        ...
    def _is_same(self, arg0: Tensor) -> bool:
        """
        True when both are the same tensor (not merely equal).
        """
    def abs(self) -> Tensor:
        """
        |self| in self's dtype (bool refused, as on PyTorch's CPU).
        """
    def abs_(self) -> typing.Any:
        """
        In place: |self| in self's dtype (bool refused, as on PyTorch's CPU).
        """
    def absolute(self) -> Tensor:
        """
        |self| in self's dtype (bool refused, as on PyTorch's CPU).
        """
    def absolute_(self) -> typing.Any:
        """
        In place: |self| in self's dtype (bool refused, as on PyTorch's CPU).
        """
    def acos(self) -> Tensor:
        """
        Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def acos_(self) -> typing.Any:
        """
        In place: Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def acosh(self) -> Tensor:
        """
        Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
        """
    def acosh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
        """
    @typing.overload
    def add(self, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self + alpha * other, broadcast, in the promoted dtype.
        """
    @typing.overload
    def add(self, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self + alpha * other for a Python number other.
        """
    @typing.overload
    def add_(self, other: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def add_(self, other: Tensor, *, alpha: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def add_(self, other: bool | int | float, *, alpha: typing.Any) -> typing.Any:
        ...
    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> Tensor:
        """
        self + value * tensor1 / tensor2, the three cast to the dtype they promote to first; integer tensor1 and tensor2 are refused, as PyTorch refuses them.
        """
    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> typing.Any:
        """
        In place: self + value * tensor1 / tensor2, the three cast to the dtype they promote to first; integer tensor1 and tensor2 are refused, as PyTorch refuses them.
        """
    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> Tensor:
        """
        self + value * tensor1 * tensor2, the three cast to the dtype they promote to first (value does not take part; an integer dtype truncates it). float32 and narrower round once, as PyTorch's fused multiply-add. Each gradient is taken at the broadcast shape, then summed to its operand's.
        """
    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> typing.Any:
        """
        In place: self + value * tensor1 * tensor2, the three cast to the dtype they promote to first (value does not take part; an integer dtype truncates it). float32 and narrower round once, as PyTorch's fused multiply-add. Each gradient is taken at the broadcast shape, then summed to its operand's.
        """
    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> Tensor:
        """
        beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape.
        """
    def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> typing.Any:
        """
        In place: beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape.
        """
    @typing.overload
    def all(self) -> Tensor:
        """
        Whether every entry is nonzero (a 0-d bool).
        """
    @typing.overload
    def all(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> Tensor:
        ...
    @typing.overload
    def all(self, dim: typing.Any, keepdim: bool = False) -> Tensor:
        """
        all over the dims given (every dim when None; an empty list reduces none: each entry's truth).
        """
    def allclose(self, other: Tensor, rtol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-08, equal_nan: bool = False) -> bool:
        """
        Whether isclose holds everywhere (self and other broadcast).
        """
    def amax(self, dim: typing.Any = (), keepdim: bool = False) -> Tensor:
        """
        Maximum over dim (every dim when empty), values only; the gradient is shared evenly among the maximal elements. NaN propagates.
        """
    def amin(self, dim: typing.Any = (), keepdim: bool = False) -> Tensor:
        """
        Minimum over dim (every dim when empty), values only; see amax.
        """
    def angle(self) -> Tensor:
        """
        The argument of each complex element in radians, in its real dtype; of a real tensor 0 or pi (NaN kept).
        """
    @typing.overload
    def any(self) -> Tensor:
        """
        Whether any entry is nonzero (a 0-d bool).
        """
    @typing.overload
    def any(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> Tensor:
        ...
    @typing.overload
    def any(self, dim: typing.Any, keepdim: bool = False) -> Tensor:
        """
        any over the dims given (every dim when None; an empty list reduces none: each entry's truth).
        """
    def apply_(self, callable: typing.Any) -> typing.Any:
        """
        In place: every element x becomes callable(x). Slow: CPU only.
        """
    def arccos(self) -> Tensor:
        """
        Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def arccos_(self) -> typing.Any:
        """
        In place: Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def arccosh(self) -> Tensor:
        """
        Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
        """
    def arccosh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
        """
    def arcsin(self) -> Tensor:
        """
        Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def arcsin_(self) -> typing.Any:
        """
        In place: Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def arcsinh(self) -> Tensor:
        """
        Inverse hyperbolic sine. Integer tensors compute in float32.
        """
    def arcsinh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic sine. Integer tensors compute in float32.
        """
    def arctan(self) -> Tensor:
        """
        Arctangent. Integer tensors compute in float32.
        """
    def arctan2(self, other: Tensor) -> Tensor:
        """
        The angle of (other, self) in (-pi, pi], broadcast; integer inputs compute in float32.
        """
    def arctan2_(self, other: Tensor) -> typing.Any:
        """
        In place: The angle of (other, self) in (-pi, pi], broadcast; integer inputs compute in float32.
        """
    def arctan_(self) -> typing.Any:
        """
        In place: Arctangent. Integer tensors compute in float32.
        """
    def arctanh(self) -> Tensor:
        """
        Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
        """
    def arctanh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
        """
    def argmax(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
        """
        Index (int64) of the maximum along dim, or into the flattened tensor without dim.
        """
    def argmin(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
        """
        Index (int64) of the minimum along dim, or into the flattened tensor without dim.
        """
    def argsort(self, dim: typing.SupportsInt | typing.SupportsIndex = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
        """
        int64 indices that sort self along dim; NaN sorts above every number; equal entries keep their order (the sort is always stable).
        """
    def argwhere(self) -> Tensor:
        """
        The coordinates of the nonzero entries, one row each in row-major order: [n, self.dim()].
        """
    def as_strided(self, size: typing.Any, stride: typing.Any, storage_offset: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        A view of self's storage with the given sizes, strides (in elements, >= 0) and storage offset (self's when None); elements may repeat (sliding windows). Refused when it would reach past the storage. Gradient: each element's gradient added back at its storage position (ops/view_history.cpp).
        """
    def asin(self) -> Tensor:
        """
        Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def asin_(self) -> typing.Any:
        """
        In place: Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
        """
    def asinh(self) -> Tensor:
        """
        Inverse hyperbolic sine. Integer tensors compute in float32.
        """
    def asinh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic sine. Integer tensors compute in float32.
        """
    def atan(self) -> Tensor:
        """
        Arctangent. Integer tensors compute in float32.
        """
    def atan2(self, other: Tensor) -> Tensor:
        """
        The angle of (other, self) in (-pi, pi], broadcast; integer inputs compute in float32.
        """
    def atan2_(self, other: Tensor) -> typing.Any:
        """
        In place: The angle of (other, self) in (-pi, pi], broadcast; integer inputs compute in float32.
        """
    def atan_(self) -> typing.Any:
        """
        In place: Arctangent. Integer tensors compute in float32.
        """
    def atanh(self) -> Tensor:
        """
        Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
        """
    def atanh_(self) -> typing.Any:
        """
        In place: Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
        """
    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None, create_graph: bool = False) -> None:
        """
        Accumulates d self / d leaf into every leaf's .grad; gradient is needed unless self has one element.
        """
    def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> Tensor:
        """
        beta * self + alpha * (batch1 @ batch2) for 3-D batches, self broadcast.
        """
    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> typing.Any:
        """
        In place: beta * self + alpha * (batch1 @ batch2) for 3-D batches, self broadcast.
        """
    @typing.overload
    def bernoulli_(self, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with 1 where a U[0, 1) draw is below p, else 0.
        """
    @typing.overload
    def bernoulli_(self, p: Tensor, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with 1 where a U[0, 1) draw is below p (a tensor broadcast to self's shape), else 0.
        """
    def bfloat16(self) -> Tensor:
        ...
    def bincount(self, weights: Tensor | None = None, minlength: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        How often each value of a 1-D tensor of non-negative integers occurs (int64), or the sum of weights at each value; at least minlength entries.
        """
    @typing.overload
    def bitwise_and(self, other: Tensor) -> Tensor:
        """
        self & other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_and(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def bitwise_and_(self, other: Tensor) -> typing.Any:
        """
        In place: self & other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_and_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def bitwise_left_shift(self, other: Tensor) -> Tensor:
        """
        self << other (integer tensors), as PyTorch: a shift by a negative count or by the bit width or more gives 0; the bits shifted out are dropped (no overflow error).
        """
    @typing.overload
    def bitwise_left_shift(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def bitwise_left_shift_(self, other: Tensor) -> typing.Any:
        """
        In place: self << other (integer tensors), as PyTorch: a shift by a negative count or by the bit width or more gives 0; the bits shifted out are dropped (no overflow error).
        """
    @typing.overload
    def bitwise_left_shift_(self, other: bool | int | float) -> typing.Any:
        ...
    def bitwise_not(self) -> Tensor:
        """
        ~self: every bit flipped (integer tensors), logical not (bool tensors).
        """
    def bitwise_not_(self) -> typing.Any:
        """
        In place: ~self: every bit flipped (integer tensors), logical not (bool tensors).
        """
    @typing.overload
    def bitwise_or(self, other: Tensor) -> Tensor:
        """
        self | other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_or(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def bitwise_or_(self, other: Tensor) -> typing.Any:
        """
        In place: self | other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_or_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def bitwise_right_shift(self, other: Tensor) -> Tensor:
        """
        self >> other (integer tensors), arithmetic for signed dtypes; a shift by a negative count or by the bit width or more gives the sign fill (0 or -1).
        """
    @typing.overload
    def bitwise_right_shift(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def bitwise_right_shift_(self, other: Tensor) -> typing.Any:
        """
        In place: self >> other (integer tensors), arithmetic for signed dtypes; a shift by a negative count or by the bit width or more gives the sign fill (0 or -1).
        """
    @typing.overload
    def bitwise_right_shift_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def bitwise_xor(self, other: Tensor) -> Tensor:
        """
        self ^ other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_xor(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def bitwise_xor_(self, other: Tensor) -> typing.Any:
        """
        In place: self ^ other bit by bit (integer and bool tensors).
        """
    @typing.overload
    def bitwise_xor_(self, other: bool | int | float) -> typing.Any:
        ...
    def bmm(self, mat2: Tensor) -> Tensor:
        """
        Batched product of 3-D tensors [B, n, k] @ [B, k, m].
        """
    def bool(self) -> Tensor:
        ...
    def broadcast_to(self, size: typing.Any) -> Tensor:
        """
        expand(size).
        """
    def byte(self) -> Tensor:
        ...
    def cauchy_(self, median: typing.SupportsFloat | typing.SupportsIndex = 0, sigma: typing.SupportsFloat | typing.SupportsIndex = 1, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with draws of Cauchy(median, sigma) (floating tensors).
        """
    def cdouble(self) -> Tensor:
        ...
    def ceil(self) -> Tensor:
        """
        The smallest integer >= self; integer tensors as they are. Gradient zero.
        """
    def ceil_(self) -> typing.Any:
        """
        In place: The smallest integer >= self; integer tensors as they are. Gradient zero.
        """
    def cfloat(self) -> Tensor:
        ...
    def char(self) -> Tensor:
        ...
    def cholesky(self, upper: bool = False) -> Tensor:
        """
        linalg.cholesky (PyTorch's older form, upper positional).
        """
    def chunk(self, chunks: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
        """
        split into pieces of ceil(size / chunks): at most chunks views.
        """
    @typing.overload
    def clamp(self, min: bool | int | float | None = None, max: bool | int | float | None = None) -> Tensor:
        """
        min(max(self, min), max) elementwise; at least one bound must be given. A floating bound on an integer tensor gives float32; NaN stays NaN. The gradient passes where min < self < max (PyTorch's: none at a bound).
        """
    @typing.overload
    def clamp(self, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:
        """
        clamp with tensor bounds (broadcast, promoted): maximum(self, min) or minimum(self, max) with one bound; with two, PyTorch's clamp.Tensor: NaN in any gives NaN (gradient to self), min > max gives max.
        """
    @typing.overload
    def clamp(self, min: typing.Any = None, max: typing.Any = None) -> Tensor:
        ...
    def clamp_(self, min: bool | int | float | None = None, max: bool | int | float | None = None) -> typing.Any:
        ...
    @typing.overload
    def clamp_max(self, max: bool | int | float) -> Tensor:
        """
        clamp(self, max=max).
        """
    @typing.overload
    def clamp_max(self, max: Tensor) -> Tensor:
        """
        clamp(self, max=max) with a tensor bound (broadcast, promoted).
        """
    @typing.overload
    def clamp_max_(self, max: bool | int | float) -> typing.Any:
        """
        In place: clamp(self, max=max).
        """
    @typing.overload
    def clamp_max_(self, max: Tensor) -> typing.Any:
        """
        In place: clamp(self, max=max) with a tensor bound (broadcast, promoted).
        """
    @typing.overload
    def clamp_min(self, min: bool | int | float) -> Tensor:
        """
        clamp(self, min=min).
        """
    @typing.overload
    def clamp_min(self, min: Tensor) -> Tensor:
        """
        clamp(self, min=min) with a tensor bound (broadcast, promoted).
        """
    @typing.overload
    def clamp_min_(self, min: bool | int | float) -> typing.Any:
        """
        In place: clamp(self, min=min).
        """
    @typing.overload
    def clamp_min_(self, min: Tensor) -> typing.Any:
        """
        In place: clamp(self, min=min) with a tensor bound (broadcast, promoted).
        """
    @typing.overload
    def clip(self, min: bool | int | float | None = None, max: bool | int | float | None = None) -> Tensor:
        """
        min(max(self, min), max) elementwise; at least one bound must be given. A floating bound on an integer tensor gives float32; NaN stays NaN. The gradient passes where min < self < max (PyTorch's: none at a bound).
        """
    @typing.overload
    def clip(self, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:
        """
        clamp with tensor bounds (broadcast, promoted): maximum(self, min) or minimum(self, max) with one bound; with two, PyTorch's clamp.Tensor: NaN in any gives NaN (gradient to self), min > max gives max.
        """
    @typing.overload
    def clip(self, min: typing.Any = None, max: typing.Any = None) -> Tensor:
        ...
    def clone(self) -> Tensor:
        """
        A contiguous copy that stays in the graph.
        """
    def conj(self) -> Tensor:
        """
        The complex conjugate, as a new tensor (not PyTorch's lazy conjugate view); a real tensor itself.
        """
    def conj_physical(self) -> Tensor:
        """
        The complex conjugate, as a new tensor (not PyTorch's lazy conjugate view); a real tensor itself.
        """
    def contiguous(self) -> Tensor:
        """
        self when contiguous, else a contiguous copy.
        """
    @typing.overload
    def copy_(self, src: Tensor) -> typing.Any:
        ...
    @typing.overload
    def copy_(self, src: bool | int | float) -> typing.Any:
        ...
    def cos(self) -> Tensor:
        """
        Cosine (radians). Integer tensors compute in float32.
        """
    def cos_(self) -> typing.Any:
        """
        In place: Cosine (radians). Integer tensors compute in float32.
        """
    def cosh(self) -> Tensor:
        """
        Hyperbolic cosine. Integer tensors compute in float32.
        """
    def cosh_(self) -> typing.Any:
        """
        In place: Hyperbolic cosine. Integer tensors compute in float32.
        """
    def count_nonzero(self, dim: typing.Any = None) -> Tensor:
        """
        The number of nonzero entries over dim (every dim when None), int64.
        """
    def cpu(self) -> Tensor:
        ...
    def cross(self, other: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        The cross product of 3-vectors along dim (None: the first dim of size 3); self and other broadcast and must have one dtype.
        """
    def cuda(self, device: typing.Any = None, non_blocking: bool = False, memory_format: typing.Any = None) -> Tensor:
        ...
    def cummax(self, dim: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        The running maximum along dim and where it was last taken (a tie moves the index on; NaN is the maximum from where it appears).
        """
    def cummin(self, dim: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        The running minimum along dim and where it was last taken (as cummax).
        """
    def cumprod(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
        """
        Running products along dim; integer and bool tensors multiply in int64 unless dtype says otherwise. The gradient is exact where entries are 0.
        """
    def cumprod_(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> typing.Any:
        """
        In place: Running products along dim; integer and bool tensors multiply in int64 unless dtype says otherwise. The gradient is exact where entries are 0.
        """
    def cumsum(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
        """
        Running sums along dim; integer and bool tensors sum in int64 (as PyTorch) unless dtype says otherwise. Gradient: the reversed running sum of the gradient.
        """
    def cumsum_(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> typing.Any:
        """
        In place: Running sums along dim; integer and bool tensors sum in int64 (as PyTorch) unless dtype says otherwise. Gradient: the reversed running sum of the gradient.
        """
    def data_ptr(self) -> int:
        ...
    def deg2rad(self) -> Tensor:
        """
        self * pi / 180; integer and bool tensors compute in the default float dtype.
        """
    def deg2rad_(self) -> typing.Any:
        """
        In place: self * pi / 180; integer and bool tensors compute in the default float dtype.
        """
    def det(self) -> Tensor:
        """
        linalg.det.
        """
    def detach(self) -> Tensor:
        """
        Same data (shared storage), cut from the graph.
        """
    def detach_(self) -> typing.Any:
        """
        Cuts the tensor from the graph in place: a leaf that needs no gradient.
        """
    def diag(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        A 1-D tensor made the given diagonal of a square matrix, or a copy of a 2-D tensor's diagonal.
        """
    def diag_embed(self, offset: typing.SupportsInt | typing.SupportsIndex = 0, dim1: typing.SupportsInt | typing.SupportsIndex = -2, dim2: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
        """
        Zeros with the last dim of self on the diagonal (i, i + offset) of two new dims dim1 and dim2 (of the result), each of size self.size(-1) + |offset|.
        """
    def diagonal(self, offset: typing.SupportsInt | typing.SupportsIndex = 0, dim1: typing.SupportsInt | typing.SupportsIndex = 0, dim2: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
        """
        A view of the entries (i, i + offset) of dims dim1 and dim2, which are removed; the diagonal is the last dim.
        """
    def diff(self, n: typing.SupportsInt | typing.SupportsIndex = 1, dim: typing.SupportsInt | typing.SupportsIndex = -1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
        """
        The n-th forward difference along dim, prepend and append joined first; of a bool tensor, whether neighbours differ (logical_xor).
        """
    def digamma(self) -> Tensor:
        """
        The logarithmic derivative of Gamma, psi(self): -inf at +0 (+inf at -0), NaN at the negative integers. Integer tensors compute in float32. Gradient: polygamma(1, self).
        """
    def digamma_(self) -> typing.Any:
        """
        In place: The logarithmic derivative of Gamma, psi(self): -inf at +0 (+inf at -0), NaN at the negative integers. Integer tensors compute in float32. Gradient: polygamma(1, self).
        """
    def dim(self) -> int:
        ...
    def dist(self, other: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2) -> Tensor:
        """
        The p-norm of self - other, flattened (inf: the largest difference; 0: the number of entries that differ). The gradient is 0 where the difference is 0.
        """
    @typing.overload
    def div(self, other: Tensor) -> Tensor:
        """
        True division, broadcast: integer inputs give float32.
        """
    @typing.overload
    def div(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def div(self, other: Tensor, *, rounding_mode: str | None) -> Tensor:
        """
        div with a rounding_mode: None is true division, "trunc" rounds the quotient toward zero and "floor" down (floor_divide, Python's //). Both keep integer inputs integer; their gradient is zero.
        """
    @typing.overload
    def div(self, other: bool | int | float, *, rounding_mode: str | None) -> Tensor:
        ...
    @typing.overload
    def div_(self, other: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def div_(self, other: typing.Any, *, rounding_mode: str | None) -> typing.Any:
        ...
    @typing.overload
    def divide(self, other: Tensor) -> Tensor:
        """
        True division, broadcast: integer inputs give float32.
        """
    @typing.overload
    def divide(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def divide(self, other: Tensor, *, rounding_mode: str | None) -> Tensor:
        """
        div with a rounding_mode: None is true division, "trunc" rounds the quotient toward zero and "floor" down (floor_divide, Python's //). Both keep integer inputs integer; their gradient is zero.
        """
    @typing.overload
    def divide(self, other: bool | int | float, *, rounding_mode: str | None) -> Tensor:
        ...
    def dot(self, tensor: Tensor) -> Tensor:
        """
        The inner product of two 1-D tensors of one length (a 0-d tensor).
        """
    def double(self) -> Tensor:
        ...
    def element_size(self) -> int:
        ...
    @typing.overload
    def eq(self, other: Tensor) -> Tensor:
        """
        self == other elementwise, as a bool tensor (NaN != NaN).
        """
    @typing.overload
    def eq(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def eq_(self, other: Tensor) -> typing.Any:
        """
        In place: self == other elementwise, as a bool tensor (NaN != NaN).
        """
    @typing.overload
    def eq_(self, other: bool | int | float) -> typing.Any:
        ...
    def equal(self, other: Tensor) -> bool:
        """
        Whether self and other have the same shape and equal elements (NaN is unequal).
        """
    def erf(self) -> Tensor:
        """
        The Gauss error function (GELU's building block).
        """
    def erf_(self) -> typing.Any:
        """
        In place: The Gauss error function (GELU's building block).
        """
    def erfc(self) -> Tensor:
        """
        1 - erf(self), without the cancellation for large self. Integer tensors compute in float32.
        """
    def erfc_(self) -> typing.Any:
        """
        In place: 1 - erf(self), without the cancellation for large self. Integer tensors compute in float32.
        """
    def erfinv(self) -> Tensor:
        """
        The inverse of erf: +-inf at +-1, NaN outside [-1, 1]. Integer tensors compute in float32. Gradient: sqrt(pi) / 2 * exp(erfinv(self)^2).
        """
    def erfinv_(self) -> typing.Any:
        """
        In place: The inverse of erf: +-inf at +-1, NaN outside [-1, 1]. Integer tensors compute in float32. Gradient: sqrt(pi) / 2 * exp(erfinv(self)^2).
        """
    def exp(self) -> Tensor:
        """
        e^self; integer tensors compute in float32.
        """
    def exp2(self) -> Tensor:
        """
        2^self; integer and bool tensors compute in the default float dtype.
        """
    def exp2_(self) -> typing.Any:
        """
        In place: 2^self; integer and bool tensors compute in the default float dtype.
        """
    def exp_(self) -> typing.Any:
        """
        In place: e^self; integer tensors compute in float32.
        """
    def expand(self, *args) -> Tensor:
        """
        expand(3, -1): size-1 dims broadcast (and leading dims added) without copying.
        """
    def expand_as(self, other: Tensor) -> Tensor:
        """
        expand(other's shape).
        """
    def expm1(self) -> Tensor:
        """
        e^self - 1, accurate for small self. Integer tensors compute in float32.
        """
    def expm1_(self) -> typing.Any:
        """
        In place: e^self - 1, accurate for small self. Integer tensors compute in float32.
        """
    def exponential_(self, lambd: typing.SupportsFloat | typing.SupportsIndex = 1, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with draws of Exp(lambd): -log(1 - u) / lambd (floating tensors).
        """
    def fill_(self, value: typing.Any) -> typing.Any:
        ...
    def fill_diagonal_(self, fill_value: bool | int | float, wrap: bool = False) -> typing.Any:
        """
        Sets the main diagonal (the elements whose indices are all equal) to fill_value; a tall matrix with wrap starts it again every columns + 1 rows, as PyTorch's.
        """
    def fix(self) -> Tensor:
        """
        self rounded toward zero; integer tensors as they are. Gradient zero.
        """
    def fix_(self) -> typing.Any:
        """
        In place: self rounded toward zero; integer tensors as they are. Gradient zero.
        """
    def flatten(self, start_dim: typing.SupportsInt | typing.SupportsIndex = 0, end_dim: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
        """
        Dims start_dim..end_dim merged into one.
        """
    def flip(self, dims: typing.Any) -> Tensor:
        """
        A copy with the order of the entries along each of dims reversed.
        """
    def float(self) -> Tensor:
        ...
    def floor(self) -> Tensor:
        """
        The largest integer <= self; integer tensors are returned as they are (a copy). Gradient zero.
        """
    def floor_(self) -> typing.Any:
        """
        In place: The largest integer <= self; integer tensors are returned as they are (a copy). Gradient zero.
        """
    @typing.overload
    def floor_divide(self, other: Tensor) -> Tensor:
        """
        floor(self / other) as Python's //, broadcast, in the promoted dtype (integers stay integers; floats as PyTorch's, exact where self - fmod(self, other) is); integer division by zero is an error. Piecewise constant: the result records no gradient.
        """
    @typing.overload
    def floor_divide(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def floor_divide_(self, other: Tensor) -> typing.Any:
        """
        In place: floor(self / other) as Python's //, broadcast, in the promoted dtype (integers stay integers; floats as PyTorch's, exact where self - fmod(self, other) is); integer division by zero is an error. Piecewise constant: the result records no gradient.
        """
    @typing.overload
    def floor_divide_(self, other: bool | int | float) -> typing.Any:
        ...
    def fmax(self, other: Tensor) -> Tensor:
        """
        maximum, except that a NaN loses to a number (two NaNs give self) and two zeros give self's. A tie shares the gradient half and half, as maximum's; a NaN operand gets none.
        """
    def fmin(self, other: Tensor) -> Tensor:
        """
        minimum, except that a NaN loses to a number (two NaNs give self) and two zeros give self's. A tie shares the gradient half and half, as minimum's; a NaN operand gets none.
        """
    @typing.overload
    def fmod(self, other: Tensor) -> Tensor:
        """
        self - trunc(self / other) * other, broadcast: the sign of self, as C's fmod; integer division by zero is an error. Gradient: 1 and -trunc(self / other).
        """
    @typing.overload
    def fmod(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def fmod_(self, other: Tensor) -> typing.Any:
        """
        In place: self - trunc(self / other) * other, broadcast: the sign of self, as C's fmod; integer division by zero is an error. Gradient: 1 and -trunc(self / other).
        """
    @typing.overload
    def fmod_(self, other: bool | int | float) -> typing.Any:
        ...
    def frac(self) -> Tensor:
        """
        self - trunc(self), with self's sign. Floating tensors only.
        """
    def frac_(self) -> typing.Any:
        """
        In place: self - trunc(self), with self's sign. Floating tensors only.
        """
    def gather(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
        """
        out[i][j] = self[index[i][j]][j] (dim 0), ...; out has index's shape.
        """
    @typing.overload
    def ge(self, other: Tensor) -> Tensor:
        """
        self >= other elementwise, as a bool tensor.
        """
    @typing.overload
    def ge(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def ge_(self, other: Tensor) -> typing.Any:
        """
        In place: self >= other elementwise, as a bool tensor.
        """
    @typing.overload
    def ge_(self, other: bool | int | float) -> typing.Any:
        ...
    def geometric_(self, p: typing.SupportsFloat | typing.SupportsIndex, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with the number of Bernoulli(p) trials up to the first success (1, 2, ...).
        """
    def geqrf(self) -> typing.Any:
        """
        LAPACK's geqrf of each matrix of self [..., m, n]: a holds R on and above the diagonal and the Householder vectors below it (their leading 1 implied), tau [..., min(m, n)] their scales. Not differentiable, as PyTorch's.
        """
    def ger(self, vec2: Tensor) -> Tensor:
        """
        The outer product of two 1-D tensors: out[i][j] = self[i] * vec2[j].
        """
    @typing.overload
    def greater(self, other: Tensor) -> Tensor:
        """
        self > other elementwise, as a bool tensor.
        """
    @typing.overload
    def greater(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def greater_(self, other: Tensor) -> typing.Any:
        """
        In place: self > other elementwise, as a bool tensor.
        """
    @typing.overload
    def greater_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def greater_equal(self, other: Tensor) -> Tensor:
        """
        self >= other elementwise, as a bool tensor.
        """
    @typing.overload
    def greater_equal(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def greater_equal_(self, other: Tensor) -> typing.Any:
        """
        In place: self >= other elementwise, as a bool tensor.
        """
    @typing.overload
    def greater_equal_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def gt(self, other: Tensor) -> Tensor:
        """
        self > other elementwise, as a bool tensor.
        """
    @typing.overload
    def gt(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def gt_(self, other: Tensor) -> typing.Any:
        """
        In place: self > other elementwise, as a bool tensor.
        """
    @typing.overload
    def gt_(self, other: bool | int | float) -> typing.Any:
        ...
    def half(self) -> Tensor:
        ...
    def heaviside(self, values: Tensor) -> Tensor:
        """
        values where self is 0, else 1 where self > 0 and 0 elsewhere (NaN too), in the dtype the two promote to. self gets a zero gradient (a step's, almost everywhere), values grad where self is 0.
        """
    def heaviside_(self, values: Tensor) -> typing.Any:
        """
        In place: values where self is 0, else 1 where self > 0 and 0 elsewhere (NaN too), in the dtype the two promote to. self gets a zero gradient (a step's, almost everywhere), values grad where self is 0.
        """
    def histc(self, bins: typing.SupportsInt | typing.SupportsIndex = 100, min: bool | int | float = 0, max: bool | int | float = 0) -> Tensor:
        """
        Histogram of bins equal bins over [min, max] (the data's range when min == max) in self's dtype; entries outside are ignored, the right edge is in the last bin.
        """
    def hypot(self, other: Tensor) -> Tensor:
        """
        sqrt(self^2 + other^2) without overflow or underflow in between (float32 and narrower in float64), inf where either is infinite (even against NaN, as C's hypot); in the dtype the two promote to, which must be floating, as PyTorch's. Gradients grad self / r and grad other / r.
        """
    def hypot_(self, other: Tensor) -> typing.Any:
        """
        In place: sqrt(self^2 + other^2) without overflow or underflow in between (float32 and narrower in float64), inf where either is infinite (even against NaN, as C's hypot); in the dtype the two promote to, which must be floating, as PyTorch's. Gradients grad self / r and grad other / r.
        """
    def i0(self) -> Tensor:
        """
        The modified Bessel function of the first kind of order 0 (even), computed in double and rounded once; NaN at +-inf and inf past |x| = 709.8, as PyTorch's. Integer tensors compute in float32. Gradient: special_i1(self).
        """
    def i0_(self) -> typing.Any:
        """
        In place: The modified Bessel function of the first kind of order 0 (even), computed in double and rounded once; NaN at +-inf and inf past |x| = 709.8, as PyTorch's. Integer tensors compute in float32. Gradient: special_i1(self).
        """
    def igamma(self, other: Tensor) -> Tensor:
        """
        The regularised lower incomplete gamma function P(self, other) (ember.special.gammainc), broadcast, computed in double and rounded once; integer inputs are refused, as PyTorch's. Differentiable in other only: other^(self - 1) e^-other / Gamma(self).
        """
    def igamma_(self, other: Tensor) -> typing.Any:
        """
        In place: The regularised lower incomplete gamma function P(self, other) (ember.special.gammainc), broadcast, computed in double and rounded once; integer inputs are refused, as PyTorch's. Differentiable in other only: other^(self - 1) e^-other / Gamma(self).
        """
    def igammac(self, other: Tensor) -> Tensor:
        """
        The regularised upper incomplete gamma function Q(self, other) = 1 - P(self, other) (ember.special.gammaincc); as igamma otherwise.
        """
    def igammac_(self, other: Tensor) -> typing.Any:
        """
        In place: The regularised upper incomplete gamma function Q(self, other) = 1 - P(self, other) (ember.special.gammaincc); as igamma otherwise.
        """
    def index_add(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
        """
        A copy of self with alpha * source.select(dim, i) added to self.select(dim, index[i]).
        """
    def index_add_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: bool | int | float = 1) -> typing.Any:
        """
        In place: A copy of self with alpha * source.select(dim, i) added to self.select(dim, index[i]).
        """
    def index_copy(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> Tensor:
        """
        A copy of self with self.select(dim, index[i]) replaced by source.select(dim, i) for every i.
        """
    def index_copy_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> typing.Any:
        """
        In place: A copy of self with self.select(dim, index[i]) replaced by source.select(dim, i) for every i.
        """
    @typing.overload
    def index_fill(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: Tensor) -> Tensor:
        """
        A copy of self with the slices index names along dim (a negative index counts from the end) set to value, a 0-d tensor cast to self's dtype; value's gradient sums the filled elements'.
        """
    @typing.overload
    def index_fill(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> Tensor:
        """
        index_fill with a number (cast to self's dtype).
        """
    @typing.overload
    def index_fill_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: Tensor) -> typing.Any:
        """
        In place: A copy of self with the slices index names along dim (a negative index counts from the end) set to value, a 0-d tensor cast to self's dtype; value's gradient sums the filled elements'.
        """
    @typing.overload
    def index_fill_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> typing.Any:
        """
        In place: index_fill with a number (cast to self's dtype).
        """
    def index_put(self, indices: collections.abc.Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
        """
        A copy of self with self[indices] = values (+= with accumulate).
        """
    def index_put_(self, indices: collections.abc.Sequence[Tensor], values: Tensor, accumulate: bool = False) -> typing.Any:
        """
        In place: self[indices] = values, or += with accumulate (where repeated indices add up).
        """
    def index_reduce(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        A copy of self with source.select(dim, i) reduced into self.select(dim, index[i]) for every i, by "prod", "mean", "amax" or "amin" (scatter_reduce with index spread over source's other dims).
        """
    def index_reduce_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> typing.Any:
        """
        In place: A copy of self with source.select(dim, i) reduced into self.select(dim, index[i]) for every i, by "prod", "mean", "amax" or "amin" (scatter_reduce with index spread over source's other dims).
        """
    def index_select(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
        """
        The entries index (1-D or 0-d) of dim: index_select(x, 0, idx) picks rows.
        """
    def int(self) -> Tensor:
        ...
    def inverse(self) -> Tensor:
        """
        linalg.inv.
        """
    def is_complex(self) -> bool:
        ...
    def is_contiguous(self) -> bool:
        ...
    def is_floating_point(self) -> bool:
        ...
    def is_pinned(self, device: typing.Any = None) -> bool:
        """
        False: Ember never allocates page-locked memory.
        """
    def is_shared(self) -> bool:
        """
        True after share_memory_() and for CUDA tensors, as in torch.
        """
    def isclose(self, other: Tensor, rtol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-08, equal_nan: bool = False) -> Tensor:
        """
        |self - other| <= atol + rtol * |other| elementwise, broadcast (equal infinities are close, NaN only with equal_nan); integers within a tolerance compare in the default float dtype.
        """
    def isfinite(self) -> Tensor:
        """
        Where self is neither NaN nor infinite (bool); true everywhere for integer tensors.
        """
    def isinf(self) -> Tensor:
        """
        Where self is +inf or -inf (bool).
        """
    def isnan(self) -> Tensor:
        """
        Where self is NaN (bool); false everywhere for integer tensors.
        """
    def istft(self, n_fft: typing.SupportsInt | typing.SupportsIndex, hop_length: typing.SupportsInt | typing.SupportsIndex | None = None, win_length: typing.SupportsInt | typing.SupportsIndex | None = None, window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None, length: typing.SupportsInt | typing.SupportsIndex | None = None, return_complex: bool = False) -> Tensor:
        """
        The inverse of stft: each frame transformed back, windowed and overlap-added, divided by the overlap-added squared window (which must not vanish: the NOLA condition); length trims or zero-pads the result.
        """
    def item(self) -> typing.Any:
        """
        The value of a one-element tensor as a Python number.
        """
    def kron(self, other: Tensor) -> Tensor:
        """
        The Kronecker product; the dims of the one with fewer are counted from the right.
        """
    def kthvalue(self, k: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = -1, keepdim: bool = False) -> typing.Any:
        """
        The k-th smallest entry (k from 1) along dim and its index.
        """
    @typing.overload
    def le(self, other: Tensor) -> Tensor:
        """
        self <= other elementwise, as a bool tensor.
        """
    @typing.overload
    def le(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def le_(self, other: Tensor) -> typing.Any:
        """
        In place: self <= other elementwise, as a bool tensor.
        """
    @typing.overload
    def le_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def lerp(self, end: Tensor, weight: Tensor) -> Tensor:
        """
        self + weight * (end - self) where |weight| < 0.5, else end - (end - self) * (1 - weight): PyTorch's two forms, each exact at its own end. All three broadcast; a bool weight counts as 0 and 1. Gradients grad (1 - weight), grad weight and grad (end - self).
        """
    @typing.overload
    def lerp(self, end: Tensor, weight: bool | int | float) -> Tensor:
        """
        lerp with a number weight (gradients grad (1 - weight) and grad weight).
        """
    @typing.overload
    def lerp_(self, end: Tensor, weight: Tensor) -> typing.Any:
        """
        In place: self + weight * (end - self) where |weight| < 0.5, else end - (end - self) * (1 - weight): PyTorch's two forms, each exact at its own end. All three broadcast; a bool weight counts as 0 and 1. Gradients grad (1 - weight), grad weight and grad (end - self).
        """
    @typing.overload
    def lerp_(self, end: Tensor, weight: bool | int | float) -> typing.Any:
        """
        In place: lerp with a number weight (gradients grad (1 - weight) and grad weight).
        """
    @typing.overload
    def less(self, other: Tensor) -> Tensor:
        """
        self < other elementwise, as a bool tensor.
        """
    @typing.overload
    def less(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def less_(self, other: Tensor) -> typing.Any:
        """
        In place: self < other elementwise, as a bool tensor.
        """
    @typing.overload
    def less_(self, other: bool | int | float) -> typing.Any:
        ...
    @typing.overload
    def less_equal(self, other: Tensor) -> Tensor:
        """
        self <= other elementwise, as a bool tensor.
        """
    @typing.overload
    def less_equal(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def less_equal_(self, other: Tensor) -> typing.Any:
        """
        In place: self <= other elementwise, as a bool tensor.
        """
    @typing.overload
    def less_equal_(self, other: bool | int | float) -> typing.Any:
        ...
    def lgamma(self) -> Tensor:
        """
        log |Gamma(self)|: +inf at 0 and the negative integers. Integer tensors compute in float32. Gradient: digamma(self).
        """
    def lgamma_(self) -> typing.Any:
        """
        In place: log |Gamma(self)|: +inf at 0 and the negative integers. Integer tensors compute in float32. Gradient: digamma(self).
        """
    def log(self) -> Tensor:
        """
        Natural logarithm: log(0) = -inf, log(x < 0) = nan.
        """
    def log10(self) -> Tensor:
        """
        Base-10 logarithm. Integer tensors compute in float32.
        """
    def log10_(self) -> typing.Any:
        """
        In place: Base-10 logarithm. Integer tensors compute in float32.
        """
    def log1p(self) -> Tensor:
        """
        log(1 + self), accurate for small self. Integer tensors compute in float32.
        """
    def log1p_(self) -> typing.Any:
        """
        In place: log(1 + self), accurate for small self. Integer tensors compute in float32.
        """
    def log2(self) -> Tensor:
        """
        Base-2 logarithm. Integer tensors compute in float32.
        """
    def log2_(self) -> typing.Any:
        """
        In place: Base-2 logarithm. Integer tensors compute in float32.
        """
    def log_(self) -> typing.Any:
        """
        In place: Natural logarithm: log(0) = -inf, log(x < 0) = nan.
        """
    def log_normal_(self, mean: typing.SupportsFloat | typing.SupportsIndex = 1, std: typing.SupportsFloat | typing.SupportsIndex = 2, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with exp of draws of N(mean, std^2) (floating tensors).
        """
    def log_softmax(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
        """
        self - logsumexp(self, dim): the log of softmax without its underflow, in dtype when given (self cast first).
        """
    def logcumsumexp(self, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        log(cumsum(exp(self))) along dim without overflow; floating tensors only.
        """
    def logdet(self) -> Tensor:
        """
        log det(self): NaN where the determinant is negative, -inf where it is 0.
        """
    def logical_and(self, other: Tensor) -> Tensor:
        """
        Nonzero-ness of self and other combined (any dtypes, broadcast).
        """
    def logical_and_(self, other: Tensor) -> typing.Any:
        """
        In place: Nonzero-ness of self and other combined (any dtypes, broadcast).
        """
    def logical_not(self) -> Tensor:
        """
        True where self is zero (any dtype; NaN is nonzero).
        """
    def logical_not_(self) -> typing.Any:
        """
        In place: True where self is zero (any dtype; NaN is nonzero).
        """
    def logical_or(self, other: Tensor) -> Tensor:
        """
        Nonzero-ness of self or other (any dtypes, broadcast).
        """
    def logical_or_(self, other: Tensor) -> typing.Any:
        """
        In place: Nonzero-ness of self or other (any dtypes, broadcast).
        """
    def logical_xor(self, other: Tensor) -> Tensor:
        """
        (self != 0) xor (other != 0), broadcast; bool.
        """
    def logical_xor_(self, other: Tensor) -> typing.Any:
        """
        In place: (self != 0) xor (other != 0), broadcast; bool.
        """
    def logit(self, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
        """
        log(p / (1 - p)), p = self clamped to [eps, 1 - eps] when eps is given. PyTorch's gradient grad / (x (1 - x)): grad * inf at 0 and 1, NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it.
        """
    def logit_(self, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> typing.Any:
        """
        In place: log(p / (1 - p)), p = self clamped to [eps, 1 - eps] when eps is given. PyTorch's gradient grad / (x (1 - x)): grad * inf at 0 and 1, NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it.
        """
    def logsumexp(self, dim: typing.Any, keepdim: bool = False) -> Tensor:
        """
        log(sum(exp(self))) over dim, as m + log(sum(exp(self - m))) with m the max, so it neither overflows nor underflows. Integer inputs give float32.
        """
    def long(self) -> Tensor:
        ...
    @typing.overload
    def lt(self, other: Tensor) -> Tensor:
        """
        self < other elementwise, as a bool tensor.
        """
    @typing.overload
    def lt(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def lt_(self, other: Tensor) -> typing.Any:
        """
        In place: self < other elementwise, as a bool tensor.
        """
    @typing.overload
    def lt_(self, other: bool | int | float) -> typing.Any:
        ...
    def map2_(self, x: Tensor, y: Tensor, callable: typing.Any) -> typing.Any:
        """
        In place: every element s becomes callable(s, a, b), a and b x's and y's (broadcast). Slow: CPU only.
        """
    def map_(self, tensor: Tensor, callable: typing.Any) -> typing.Any:
        """
        In place: every element x becomes callable(x, y), y tensor's (broadcast) at its position. Slow: CPU only.
        """
    @typing.overload
    def masked_fill(self, mask: Tensor, value: bool | int | float) -> Tensor:
        """
        self with value where the bool mask holds (broadcast); the gradient flows where it does not.
        """
    @typing.overload
    def masked_fill(self, mask: Tensor, value: Tensor) -> Tensor:
        """
        masked_fill with a 0-d tensor's value.
        """
    @typing.overload
    def masked_fill_(self, mask: Tensor, value: bool | int | float) -> typing.Any:
        """
        In place: self with value where the bool mask holds (broadcast); the gradient flows where it does not.
        """
    @typing.overload
    def masked_fill_(self, mask: Tensor, value: Tensor) -> typing.Any:
        """
        In place: masked_fill with a 0-d tensor's value.
        """
    def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor:
        """
        A copy of self (broadcast with the bool mask) whose elements where mask holds are source's first ones, in row-major order; source has self's dtype and at least as many elements as mask has true.
        """
    def masked_scatter_(self, mask: Tensor, source: Tensor) -> typing.Any:
        """
        In place: A copy of self (broadcast with the bool mask) whose elements where mask holds are source's first ones, in row-major order; source has self's dtype and at least as many elements as mask has true.
        """
    def masked_select(self, mask: Tensor) -> Tensor:
        """
        The entries of self where the bool mask (broadcast with self) is true, as a 1-D copy.
        """
    def matmul(self, other: Tensor) -> Tensor:
        """
        Matrix product with PyTorch's rules: 1-D operands get a dim added (and removed again), N-D operands multiply their last two dims batched over the broadcast of the rest.
        """
    def matrix_exp(self) -> Tensor:
        """
        linalg.matrix_exp.
        """
    def matrix_power(self, n: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        linalg.matrix_power.
        """
    @typing.overload
    def max(self) -> Tensor:
        """
        The largest element as a 0-d tensor; empty tensors refused.
        """
    @typing.overload
    def max(self, other: Tensor) -> Tensor:
        """
        maximum(self, other).
        """
    @typing.overload
    def max(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
        """
        (values, int64 indices) of the maximum along dim; the first maximum wins ties and gets the gradient.
        """
    def maximum(self, other: Tensor) -> Tensor:
        """
        Elementwise max (NaN wins); where equal, the gradient is split evenly.
        """
    def mean(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        Mean over dim (every dim when empty), of a floating tensor (or of self in dtype).
        """
    @typing.overload
    def median(self) -> Tensor:
        """
        The lower median of every entry (a 0-d tensor), NaN where there is a NaN (an empty tensor's: NaN, an integer dtype's lowest value). The gradient is split evenly among the entries equal to it.
        """
    @typing.overload
    def median(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
        """
        (values, indices) of the lower median along dim; a slice with a NaN gives NaN and the index of its first NaN. The gradient goes to the median's entry.
        """
    @typing.overload
    def min(self) -> Tensor:
        """
        The smallest element as a 0-d tensor; empty tensors refused.
        """
    @typing.overload
    def min(self, other: Tensor) -> Tensor:
        """
        minimum(self, other).
        """
    @typing.overload
    def min(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
        """
        (values, int64 indices) of the minimum along dim; see max.dim.
        """
    def minimum(self, other: Tensor) -> Tensor:
        """
        Elementwise min (NaN wins); where equal, the gradient is split evenly.
        """
    def mm(self, mat2: Tensor) -> Tensor:
        """
        Product of two matrices (2-D tensors).
        """
    def mode(self, dim: typing.SupportsInt | typing.SupportsIndex = -1, keepdim: bool = False) -> typing.Any:
        """
        (values, int64 indices): the most frequent value along dim (the smallest of equally frequent ones) and the index of its last occurrence, as PyTorch's CPU kernel; the gradient goes to that entry.
        """
    def moveaxis(self, source: typing.Any, destination: typing.Any) -> Tensor:
        """
        A view with dims source moved to positions destination, the other dims keeping their order.
        """
    def movedim(self, source: typing.Any, destination: typing.Any) -> Tensor:
        """
        A view with dims source moved to positions destination, the other dims keeping their order.
        """
    def msort(self) -> Tensor:
        """
        self sorted along its first dim (sort(self, 0).values).
        """
    @typing.overload
    def mul(self, other: Tensor) -> Tensor:
        """
        self * other, broadcast, in the promoted dtype.
        """
    @typing.overload
    def mul(self, other: bool | int | float) -> Tensor:
        ...
    def mul_(self, other: typing.Any) -> typing.Any:
        ...
    def multinomial(self, num_samples: typing.SupportsInt | typing.SupportsIndex, replacement: bool = False, *, generator: Generator | None = None) -> Tensor:
        """
        num_samples category indices drawn from each row of weights self (1-D or 2-D, non-negative, not necessarily normalised), without replacement unless replacement=True.
        """
    @typing.overload
    def multiply(self, other: Tensor) -> Tensor:
        """
        self * other, broadcast, in the promoted dtype.
        """
    @typing.overload
    def multiply(self, other: bool | int | float) -> Tensor:
        ...
    def mv(self, vec: Tensor) -> Tensor:
        """
        [n, m] @ [m] -> [n].
        """
    def mvlgamma(self, p: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        log of the multivariate gamma function of dimension p, p (p - 1) / 4 log(pi) + the sum over j < p of lgamma(self - j / 2) (ember.special.multigammaln). Integer tensors compute in float32.
        """
    def mvlgamma_(self, p: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        In place: log of the multivariate gamma function of dimension p, p (p - 1) / 4 log(pi) + the sum over j < p of lgamma(self - j / 2) (ember.special.multigammaln). Integer tensors compute in float32.
        """
    def nan_to_num(self, nan: typing.SupportsFloat | typing.SupportsIndex | None = None, posinf: typing.SupportsFloat | typing.SupportsIndex | None = None, neginf: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
        """
        NaN, +inf and -inf replaced by nan (0 when None), posinf and neginf (the dtype's largest and lowest finite values when None); integer and bool tensors come back as a copy. Gradient grad where self is finite, else 0 (NaN where grad is).
        """
    def nan_to_num_(self, nan: typing.SupportsFloat | typing.SupportsIndex | None = None, posinf: typing.SupportsFloat | typing.SupportsIndex | None = None, neginf: typing.SupportsFloat | typing.SupportsIndex | None = None) -> typing.Any:
        """
        In place: NaN, +inf and -inf replaced by nan (0 when None), posinf and neginf (the dtype's largest and lowest finite values when None); integer and bool tensors come back as a copy. Gradient grad where self is finite, else 0 (NaN where grad is).
        """
    def nanmean(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        The mean of the entries that are not NaN (floating tensors only); NaN where every entry is.
        """
    def nansum(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        sum with NaN counted as 0. Gradient grad where self is not NaN, else 0 (NaN where grad is), as PyTorch's.
        """
    def narrow(self, dim: typing.SupportsInt | typing.SupportsIndex, start: typing.SupportsInt | typing.SupportsIndex, length: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        Entries [start, start + length) of dim, as a view.
        """
    def ndimension(self) -> int:
        ...
    @typing.overload
    def ne(self, other: Tensor) -> Tensor:
        """
        self != other elementwise, as a bool tensor.
        """
    @typing.overload
    def ne(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def ne_(self, other: Tensor) -> typing.Any:
        """
        In place: self != other elementwise, as a bool tensor.
        """
    @typing.overload
    def ne_(self, other: bool | int | float) -> typing.Any:
        ...
    def neg(self) -> Tensor:
        """
        -self; bool tensors are refused (use logical_not).
        """
    def neg_(self) -> typing.Any:
        """
        In place: -self; bool tensors are refused (use logical_not).
        """
    def negative(self) -> Tensor:
        """
        -self; bool tensors are refused (use logical_not).
        """
    def negative_(self) -> typing.Any:
        """
        In place: -self; bool tensors are refused (use logical_not).
        """
    def nelement(self) -> int:
        ...
    def new_empty(self, *args, dtype: _dtype | None = None, device: typing.Any = None, requires_grad: bool = False) -> Tensor:
        ...
    def new_full(self, size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], fill_value: bool | int | float) -> Tensor:
        ...
    def new_ones(self, *args) -> Tensor:
        ...
    def new_tensor(self, data: typing.Any, dtype: _dtype | None = None, device: typing.Any = None, requires_grad: bool = False) -> Tensor:
        ...
    def new_zeros(self, *args) -> Tensor:
        ...
    def nonzero(self, *, as_tuple: bool = False) -> typing.Any:
        """
        Coordinates of the nonzero elements, one row each in row-major order: [n, input.dim()]; with as_tuple=True one 1-D tensor per dim.
        """
    @typing.overload
    def norm(self, p: typing.SupportsFloat | typing.SupportsIndex = 2, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        Vector p-norm over dim (every dim when empty): p = 2, 1, inf, -inf (min |x|), 0 (count of nonzeros) or any p. Floating. Where the norm is 0 the gradient is 0.
        """
    @typing.overload
    def norm(self, p: str, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        torch.norm's matrix orders: "fro", the 2-norm of the entries over dim (at most two dims; every entry when None), and "nuc", the nuclear norm of the matrices over dim (the last two when None). dtype casts self first.
        """
    def normal_(self, mean: typing.SupportsFloat | typing.SupportsIndex = 0, std: typing.SupportsFloat | typing.SupportsIndex = 1, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with draws of N(mean, std^2) (floating tensors).
        """
    @typing.overload
    def not_equal(self, other: Tensor) -> Tensor:
        """
        self != other elementwise, as a bool tensor.
        """
    @typing.overload
    def not_equal(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def not_equal_(self, other: Tensor) -> typing.Any:
        """
        In place: self != other elementwise, as a bool tensor.
        """
    @typing.overload
    def not_equal_(self, other: bool | int | float) -> typing.Any:
        ...
    def numel(self) -> int:
        ...
    def numpy(self, force: bool = False) -> numpy.ndarray:
        """
        The tensor's values as a NumPy array that shares its memory (no copy), for CPU tensors of any
        layout: writes to either are seen by the other, and the array keeps the tensor alive. A tensor
        that requires grad is refused (call .detach() first); bfloat16 has no NumPy dtype (TypeError:
        convert with .float() first). force=True copies instead (detached, on the CPU).
        """
    def outer(self, vec2: Tensor) -> Tensor:
        """
        The outer product of two 1-D tensors: out[i][j] = self[i] * vec2[j].
        """
    def permute(self, *args) -> Tensor:
        """
        A view with the dims reordered: permute(0, 2, 1).
        """
    def pin_memory(self, device: typing.Any = None) -> typing.Any:
        """
        The tensor itself where a CUDA device exists (raises without one, as torch's).
        """
    def pinverse(self, rcond: typing.SupportsFloat | typing.SupportsIndex = 1e-15) -> Tensor:
        """
        linalg.pinv with rtol = rcond.
        """
    def polygamma(self, n: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        polygamma(n, self): Tensor.polygamma(n) and polygamma_(n).
        """
    def polygamma_(self, n: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        In place: polygamma(n, self): Tensor.polygamma(n) and polygamma_(n).
        """
    @typing.overload
    def pow(self, exponent: Tensor) -> Tensor:
        """
        self ** exponent elementwise, broadcast; integer powers of integers stay integer.
        """
    @typing.overload
    def pow(self, exponent: bool | int | float) -> Tensor:
        """
        self ** exponent. Integer tensors with an integer exponent stay integer (negative exponents are refused there); a floating exponent gives float32.
        """
    @typing.overload
    def pow_(self, exponent: Tensor) -> typing.Any:
        """
        In place: self ** exponent elementwise, broadcast; integer powers of integers stay integer.
        """
    @typing.overload
    def pow_(self, exponent: bool | int | float) -> typing.Any:
        """
        In place: self ** exponent. Integer tensors with an integer exponent stay integer (negative exponents are refused there); a floating exponent gives float32.
        """
    def prelu(self, weight: Tensor) -> Tensor:
        """
        self where self > 0, else weight * self, with weight of one element or one per channel (dim 1).
        """
    @typing.overload
    def prod(self, *, dtype: _dtype | None = None) -> Tensor:
        """
        The product of every entry (1 for an empty tensor); integer and bool tensors multiply in int64 (wrapping), as PyTorch, unless dtype says otherwise. The gradient is exact where entries are 0.
        """
    @typing.overload
    def prod(self, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        ...
    def put(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        """
        A copy of self with its elements at the flat row-major positions index (negative ones count from the end) set to source's, in order, or with accumulate added to (repeated positions add up).
        """
    def put_(self, index: Tensor, source: Tensor, accumulate: bool = False) -> typing.Any:
        """
        In place: A copy of self with its elements at the flat row-major positions index (negative ones count from the end) set to source's, in order, or with accumulate added to (repeated positions add up).
        """
    def qr(self, some: bool = True) -> typing.Any:
        """
        linalg.qr with mode 'reduced' (some) or 'complete'.
        """
    @typing.overload
    def quantile(self, q: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, interpolation: str = 'linear') -> Tensor:
        """
        The q-th quantiles (q 0-d or 1-D, in [0, 1]) of the flattened self or along dim, between the two nearest sorted values as interpolation says (linear, lower, higher, nearest, midpoint); NaN where a slice holds NaN. A 1-D q adds a leading dim. Linear interpolation is lerp, so q gets a gradient too.
        """
    @typing.overload
    def quantile(self, q: typing.SupportsFloat | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, interpolation: str = 'linear') -> Tensor:
        ...
    def rad2deg(self) -> Tensor:
        """
        self * 180 / pi; integer and bool tensors compute in the default float dtype.
        """
    def rad2deg_(self) -> typing.Any:
        """
        In place: self * 180 / pi; integer and bool tensors compute in the default float dtype.
        """
    def random_(self, from_: typing.SupportsInt | typing.SupportsIndex = 0, to: typing.SupportsInt | typing.SupportsIndex | None = None, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with integers drawn uniformly from [from_, to); random_(n) draws from [0, n), random_() from 0 to the largest integer self's dtype holds exactly (2^24 for float32), as PyTorch's.
        """
    def reciprocal(self) -> Tensor:
        """
        1 / self. Integer tensors compute in float32.
        """
    def reciprocal_(self) -> typing.Any:
        """
        In place: 1 / self. Integer tensors compute in float32.
        """
    def register_hook(self, hook: collections.abc.Callable) -> RemovableHandle:
        """
        hook(grad) -> new grad or None, run when the gradient of this tensor is computed.
        """
    def relu(self) -> Tensor:
        """
        max(self, 0); NaN stays NaN; integer dtypes kept, bool refused.
        """
    def relu_(self) -> typing.Any:
        """
        In place: max(self, 0); NaN stays NaN; integer dtypes kept, bool refused.
        """
    @typing.overload
    def remainder(self, other: Tensor) -> Tensor:
        """
        self - floor(self / other) * other, broadcast: the sign of other, as Python's % (and PyTorch's); integer division by zero is an error. Gradient: 1 and -floor(self / other).
        """
    @typing.overload
    def remainder(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def remainder_(self, other: Tensor) -> typing.Any:
        """
        In place: self - floor(self / other) * other, broadcast: the sign of other, as Python's % (and PyTorch's); integer division by zero is an error. Gradient: 1 and -floor(self / other).
        """
    @typing.overload
    def remainder_(self, other: bool | int | float) -> typing.Any:
        ...
    def repeat(self, *args) -> Tensor:
        """
        self tiled repeats[d] times along each dim (leading repeats add dims), as a copy.
        """
    @typing.overload
    def repeat_interleave(self, repeats: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex | None = None, *, output_size: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        Each entry along dim repeated `repeats` times in place (of the flattened tensor without dim).
        """
    @typing.overload
    def repeat_interleave(self, repeats: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, *, output_size: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        Entry i along dim (of the flattened self without dim) repeated repeats[i] times; a one-entry repeats counts for all. output_size, when given, must be the result's length. The gradient sums the copies.
        """
    def requires_grad_(self, requires_grad: bool = True) -> typing.Any:
        ...
    def reshape(self, *args) -> Tensor:
        """
        reshape(2, -1) or reshape((2, -1)): a view when the layout allows, else a copy.
        """
    def reshape_as(self, other: Tensor) -> Tensor:
        """
        reshape(other's shape).
        """
    def resize_(self, *args) -> typing.Any:
        """
        Gives the tensor a new shape (contiguous), keeping its elements in order; grows its storage if needed.
        """
    def resize_as_(self, other: Tensor) -> typing.Any:
        ...
    def retain_grad(self) -> None:
        ...
    def roll(self, shifts: typing.Any, dims: typing.Any = ()) -> Tensor:
        """
        Entries shifted along dims by shifts (wrapping around); with no dims, the flattened tensor is rolled and the shape restored.
        """
    @typing.overload
    def round(self) -> Tensor:
        """
        The nearest integer, halves to even (as PyTorch and NumPy); integer tensors as they are. Gradient zero.
        """
    @typing.overload
    def round(self, *, decimals: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        round(self * 10^decimals) / 10^decimals (decimals < 0: round(self / 10^-decimals) * 10^-decimals), in self's dtype as PyTorch's (0.05 rounds to 0.0 in float32). Floating tensors, unless decimals is 0. Gradient zero.
        """
    @typing.overload
    def round_(self) -> typing.Any:
        """
        In place: The nearest integer, halves to even (as PyTorch and NumPy); integer tensors as they are. Gradient zero.
        """
    @typing.overload
    def round_(self, *, decimals: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        """
        In place: round(self * 10^decimals) / 10^decimals (decimals < 0: round(self / 10^-decimals) * 10^-decimals), in self's dtype as PyTorch's (0.05 rounds to 0.0 in float32). Floating tensors, unless decimals is 0. Gradient zero.
        """
    def rsqrt(self) -> Tensor:
        """
        1 / sqrt(self).
        """
    def rsqrt_(self) -> typing.Any:
        """
        In place: 1 / sqrt(self).
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
        """
        A copy of self with src's elements written where index names along dim: out[index[i][j]][j] = src[i][j] (dim 0). src has self's dtype; index is no larger than src, nor than self outside dim.
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> Tensor:
        """
        scatter with every written element value (cast to self's dtype: 2.7 is 2 in an integer tensor).
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str) -> Tensor:
        """
        scatter that combines instead of writing: reduce "add" is scatter_add, "multiply" multiplies src's elements into self's (scatter_reduce with "sum" and "prod" cover this and more).
        """
    @typing.overload
    def scatter(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float, *, reduce: str) -> Tensor:
        """
        scatter with reduce, every element sent being value.
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> typing.Any:
        """
        In place: A copy of self with src's elements written where index names along dim: out[index[i][j]][j] = src[i][j] (dim 0). src has self's dtype; index is no larger than src, nor than self outside dim.
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> typing.Any:
        """
        In place: scatter with every written element value (cast to self's dtype: 2.7 is 2 in an integer tensor).
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str) -> typing.Any:
        """
        In place: scatter that combines instead of writing: reduce "add" is scatter_add, "multiply" multiplies src's elements into self's (scatter_reduce with "sum" and "prod" cover this and more).
        """
    @typing.overload
    def scatter_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float, *, reduce: str) -> typing.Any:
        """
        In place: scatter with reduce, every element sent being value.
        """
    def scatter_add(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
        """
        A copy of self with src added at the positions index names along dim.
        """
    def scatter_add_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> typing.Any:
        """
        In place: A copy of self with src added at the positions index names along dim.
        """
    def scatter_reduce(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
        """
        A copy of self with src's elements reduced into the positions index names along dim: reduce is "sum", "prod", "mean" (floored for integers), "amax" or "amin"; include_self=False leaves self's own value out where anything is sent. The gradient is PyTorch's: prod's divides out the element (the exclusive product where it is the one 0); amax's and amin's share grad among the elements equal to the result.
        """
    def scatter_reduce_(self, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> typing.Any:
        """
        In place: A copy of self with src's elements reduced into the positions index names along dim: reduce is "sum", "prod", "mean" (floored for integers), "amax" or "amin"; include_self=False leaves self's own value out where anything is sent. The gradient is PyTorch's: prod's divides out the element (the exclusive product where it is the one 0); amax's and amin's share grad among the elements equal to the result.
        """
    def select(self, dim: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        Entry index of dim, that dim removed, as a view.
        """
    def share_memory_(self) -> typing.Any:
        """
        Marks the tensor shared and returns it.
        """
    def short(self) -> Tensor:
        ...
    def sigmoid(self) -> Tensor:
        """
        1 / (1 + e^-self); integer tensors compute in float32.
        """
    def sigmoid_(self) -> typing.Any:
        """
        In place: 1 / (1 + e^-self); integer tensors compute in float32.
        """
    def sign(self) -> Tensor:
        """
        -1, 0 or 1 in self's dtype (sign(nan) = 0, as in PyTorch); its gradient is zero.
        """
    def sign_(self) -> typing.Any:
        """
        In place: -1, 0 or 1 in self's dtype (sign(nan) = 0, as in PyTorch); its gradient is zero.
        """
    def signbit(self) -> Tensor:
        """
        Whether the sign bit is set (true for -0.0 and negative numbers; integers: self < 0); bool.
        """
    def sin(self) -> Tensor:
        """
        Sine (radians). Integer tensors compute in float32.
        """
    def sin_(self) -> typing.Any:
        """
        In place: Sine (radians). Integer tensors compute in float32.
        """
    def sinc(self) -> Tensor:
        """
        sin(pi self) / (pi self), 1 at 0; integers in the default float dtype. PyTorch's gradient (pi x cos(pi x) - sin(pi x)) / (pi x^2), computed in float64 for float32 and narrower, 0 where pi x^2 is 0.
        """
    def sinc_(self) -> typing.Any:
        """
        In place: sin(pi self) / (pi self), 1 at 0; integers in the default float dtype. PyTorch's gradient (pi x cos(pi x) - sin(pi x)) / (pi x^2), computed in float64 for float32 and narrower, 0 where pi x^2 is 0.
        """
    def sinh(self) -> Tensor:
        """
        Hyperbolic sine. Integer tensors compute in float32.
        """
    def sinh_(self) -> typing.Any:
        """
        In place: Hyperbolic sine. Integer tensors compute in float32.
        """
    def size(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        """
        The shape as a tuple, or the size of one dim.
        """
    def slogdet(self) -> typing.Any:
        """
        linalg.slogdet.
        """
    def softmax(self, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
        """
        exp(self) / sum(exp(self)) along dim, computed stably, in dtype when given (self cast first). Floating tensors only.
        """
    def sort(self, dim: typing.SupportsInt | typing.SupportsIndex = -1, descending: bool = False, *, stable: bool = False) -> typing.Any:
        """
        (values, indices) of self sorted along dim (see argsort); the gradient flows back to where each value came from.
        """
    @typing.overload
    def split(self, split_size_or_sections: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
        """
        Views of split_size entries along dim (the last may be smaller), or of the given sizes.
        """
    @typing.overload
    def split(self, split_size_or_sections: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
        ...
    def split_with_sizes(self, split_sizes: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
        """
        Views with the given sizes along dim; they must add up to self.size(dim).
        """
    def sqrt(self) -> Tensor:
        """
        Square root (nan below 0).
        """
    def sqrt_(self) -> typing.Any:
        """
        In place: Square root (nan below 0).
        """
    def square(self) -> Tensor:
        """
        self * self, in self's dtype (bool gives int64, as PyTorch).
        """
    def square_(self) -> typing.Any:
        """
        In place: self * self, in self's dtype (bool gives int64, as PyTorch).
        """
    @typing.overload
    def squeeze(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        Size-1 dims removed (only dim, when given and of size 1).
        """
    @typing.overload
    def squeeze(self, dim: typing.Any) -> Tensor:
        """
        Those of the dims `dim` that have size 1 removed (a dim named twice is refused); Python's squeeze with a tuple.
        """
    def squeeze_(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        ...
    def std(self, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        sqrt(var(input, dim, ...)).
        """
    def stft(self, n_fft: typing.SupportsInt | typing.SupportsIndex, hop_length: typing.SupportsInt | typing.SupportsIndex | None = None, win_length: typing.SupportsInt | typing.SupportsIndex | None = None, window: Tensor | None = None, center: bool = True, pad_mode: str = 'reflect', normalized: bool = False, onesided: bool | None = None, return_complex: bool | None = None) -> Tensor:
        """
        The short-time Fourier transform of a signal [L] or batch [B, L] (ops/spectral.cpp): frames of n_fft samples every hop_length (n_fft/4), windowed (rectangular by default), as [B,] freq, frames; center pads n_fft/2 each side.
        """
    def storage_offset(self) -> int:
        ...
    def stride(self, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        """
        Strides in elements.
        """
    @typing.overload
    def sub(self, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self - alpha * other, broadcast, in the promoted dtype.
        """
    @typing.overload
    def sub(self, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self - alpha * other for a Python number other.
        """
    @typing.overload
    def sub_(self, other: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def sub_(self, other: Tensor, *, alpha: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def sub_(self, other: bool | int | float, *, alpha: typing.Any) -> typing.Any:
        ...
    @typing.overload
    def subtract(self, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self - alpha * other, broadcast, in the promoted dtype.
        """
    @typing.overload
    def subtract(self, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
        """
        self - alpha * other for a Python number other.
        """
    def sum(self, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
        """
        Sum over dim (every dim when empty), computed in dtype when given. Integer and bool sums accumulate in int64.
        """
    def sum_to_size(self, *args) -> Tensor:
        """
        self summed to `size`, which self must broadcast from (the dims that are 1 there, and leading ones).
        """
    def svd(self, some: bool = True, compute_uv: bool = True) -> typing.Any:
        """
        (U, S, V) with self = U diag(S) V^T (V, not linalg.svd's Vh); some=False gives the full U and V. Without compute_uv, U and V are zero-filled m x m and n x n matrices, as PyTorch's.
        """
    def swapaxes(self, axis0: typing.SupportsInt | typing.SupportsIndex, axis1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        transpose(axis0, axis1).
        """
    def swapaxes_(self, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def swapdims_(self, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def t(self) -> Tensor:
        """
        Transpose of a tensor with at most 2 dims (the tensor itself below 2).
        """
    def t_(self) -> typing.Any:
        ...
    def take(self, index: Tensor) -> Tensor:
        """
        self's entries at the flat row-major positions index, in index's shape; a negative index counts from the end. An index outside [-numel, numel) is an IndexError naming it.
        """
    def take_along_dim(self, indices: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        gather along dim, self and indices broadcast against each other outside it (of the flattened self, at the flattened indices, when dim is None).
        """
    def tan(self) -> Tensor:
        """
        Tangent (radians). Integer tensors compute in float32.
        """
    def tan_(self) -> typing.Any:
        """
        In place: Tangent (radians). Integer tensors compute in float32.
        """
    def tanh(self) -> Tensor:
        """
        Hyperbolic tangent; integer tensors compute in float32.
        """
    def tanh_(self) -> typing.Any:
        """
        In place: Hyperbolic tangent; integer tensors compute in float32.
        """
    @typing.overload
    def tensor_split(self, tensor_indices_or_sections: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
        """
        Views of self along dim: `sections` parts of nearly equal size (the first size % sections one longer), or the parts between the given indices (each clamped to the size), or as a tensor of either (0-d: sections, 1-D int64: indices).
        """
    @typing.overload
    def tensor_split(self, sections: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
        ...
    @typing.overload
    def tensor_split(self, indices: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
        ...
    def tile(self, *args) -> Tensor:
        """
        self repeated dims[d] times along each dim; fewer dims than self.dim() count from the right (PyTorch's rule), more add leading dims.
        """
    def to(self, *args, **kwargs) -> Tensor:
        """
        A copy in another dtype and/or on another device (the tensor itself if already so; copy=True copies anyway): to(dtype), to(device, dtype), to(other).
        """
    def tolist(self) -> typing.Any:
        """
        The values as nested Python lists (a number for a 0-d tensor).
        """
    def topk(self, k: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = -1, largest: bool = True, sorted: bool = True) -> typing.Any:
        """
        The k largest (or smallest) entries along dim and their indices, in sorted order.
        """
    def trace(self) -> Tensor:
        """
        The sum of a matrix's diagonal.
        """
    def transpose(self, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view with dim0 and dim1 swapped.
        """
    def transpose_(self, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def tril(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        The lower triangle of the last two dims (j - i <= diagonal), zeros above.
        """
    def tril_(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> typing.Any:
        """
        In place: The lower triangle of the last two dims (j - i <= diagonal), zeros above.
        """
    def triu(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
        """
        The upper triangle of the last two dims (j - i >= diagonal), zeros below.
        """
    def triu_(self, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> typing.Any:
        """
        In place: The upper triangle of the last two dims (j - i >= diagonal), zeros below.
        """
    @typing.overload
    def true_divide(self, other: Tensor) -> Tensor:
        """
        True division, broadcast: integer inputs give float32.
        """
    @typing.overload
    def true_divide(self, other: bool | int | float) -> Tensor:
        ...
    def trunc(self) -> Tensor:
        """
        self rounded toward zero; integer tensors as they are. Gradient zero.
        """
    def trunc_(self) -> typing.Any:
        """
        In place: self rounded toward zero; integer tensors as they are. Gradient zero.
        """
    def type(self, dtype: _dtype | None = None) -> typing.Any:
        ...
    def type_as(self, other: Tensor) -> Tensor:
        """
        self in other's dtype, on other's device.
        """
    def unbind(self, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
        """
        Every entry of dim, as views (select).
        """
    def unflatten(self, dim: typing.SupportsInt | typing.SupportsIndex, sizes: typing.Any) -> Tensor:
        """
        self with dim split into sizes; one size may be -1 (inferred from the others, while that is determined: not where another size is 0).
        """
    def unfold(self, dimension: typing.SupportsInt | typing.SupportsIndex, size: typing.SupportsInt | typing.SupportsIndex, step: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A view of the windows of `size` elements every `step` along dimension: that dim counts the windows, a new last dim holds each one's elements (windows that overlap share elements).
        """
    def uniform_(self, from_: typing.SupportsFloat | typing.SupportsIndex = 0, to: typing.SupportsFloat | typing.SupportsIndex = 1, *, generator: Generator | None = None) -> typing.Any:
        """
        Fills self with draws of U[from_, to) (floating tensors; PyTorch's `from`).
        """
    def unique(self, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
        """
        The distinct values (ascending), with their inverse indices and counts when asked.
        """
    def unsqueeze(self, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
        """
        A size-1 dim inserted at dim.
        """
    def unsqueeze_(self, dim: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
        ...
    def var(self, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
        """
        sum((x - mean)^2) / (N - correction) over dim (correction 1, or unbiased=True).
        """
    def view(self, *args) -> Tensor:
        """
        Same storage with a new shape (one entry may be -1); fails if that would need a copy.
        """
    def view_as(self, other: Tensor) -> Tensor:
        """
        view(other's shape).
        """
    def where(self, condition: Tensor, other: typing.Any) -> Tensor:
        ...
    @typing.overload
    def xlogy(self, other: Tensor) -> Tensor:
        """
        self * log(other), 0 where self is 0 unless other is NaN (0 log 0 = 0), broadcast, in the dtype the two promote to (integers: the default float dtype). PyTorch's gradients: xlogy(grad, other) to self (0 where self is 0 and other <= 0) and grad self / other to other.
        """
    @typing.overload
    def xlogy(self, other: bool | int | float) -> Tensor:
        ...
    @typing.overload
    def xlogy_(self, other: Tensor) -> typing.Any:
        """
        In place: self * log(other), 0 where self is 0 unless other is NaN (0 log 0 = 0), broadcast, in the dtype the two promote to (integers: the default float dtype). PyTorch's gradients: xlogy(grad, other) to self (0 where self is 0 and other <= 0) and grad self / other to other.
        """
    @typing.overload
    def xlogy_(self, other: bool | int | float) -> typing.Any:
        ...
    def zero_(self) -> typing.Any:
        ...
    @property
    def T(self) -> Tensor:
        """
        The dims reversed (the transpose of a matrix).
        """
    @property
    def _version(self) -> int:
        """
        The in-place write counter of the tensor's storage (shared with its views).
        """
    @property
    def data(self) -> Tensor:
        """
        A detached view of the same data.
        """
    @property
    def device(self) -> device:
        ...
    @property
    def dtype(self) -> _dtype:
        ...
    @property
    def grad(self) -> typing.Any:
        """
        The accumulated gradient (None until backward reaches this leaf).
        """
    @grad.setter
    def grad(self, arg1: Tensor | None) -> None:
        ...
    @property
    def grad_fn(self) -> Node:
        ...
    @property
    def imag(self) -> Tensor:
        ...
    @property
    def is_cpu(self) -> bool:
        ...
    @property
    def is_cuda(self) -> bool:
        ...
    @property
    def is_hpu(self) -> bool:
        ...
    @property
    def is_ipu(self) -> bool:
        ...
    @property
    def is_leaf(self) -> bool:
        ...
    @property
    def is_maia(self) -> bool:
        ...
    @property
    def is_meta(self) -> bool:
        ...
    @property
    def is_mkldnn(self) -> bool:
        ...
    @property
    def is_mps(self) -> bool:
        ...
    @property
    def is_mtia(self) -> bool:
        ...
    @property
    def is_nested(self) -> bool:
        ...
    @property
    def is_quantized(self) -> bool:
        ...
    @property
    def is_sparse(self) -> bool:
        ...
    @property
    def is_sparse_csr(self) -> bool:
        ...
    @property
    def is_vulkan(self) -> bool:
        ...
    @property
    def is_xla(self) -> bool:
        ...
    @property
    def is_xpu(self) -> bool:
        ...
    @property
    def itemsize(self) -> int:
        ...
    @property
    def mT(self) -> Tensor:
        """
        The last two dims swapped (a batch of matrices transposed).
        """
    @property
    def nbytes(self) -> int:
        ...
    @property
    def ndim(self) -> int:
        ...
    @property
    def real(self) -> Tensor:
        ...
    @property
    def requires_grad(self) -> bool:
        """
        Whether gradients are computed for this tensor (settable on leaves).
        """
    @requires_grad.setter
    def requires_grad(self, arg1: bool) -> None:
        ...
    @property
    def retains_grad(self) -> bool:
        ...
    @property
    def shape(self) -> tuple:
        ...
class Generator:
    """
    Counter-based random numbers (Philox 4x32-10). g = ember.Generator().manual_seed(0);
    ember.randn(3, generator=g). get_state() / set_state() save and replay the stream.
    """
    def __init__(self, seed: typing.SupportsInt | typing.SupportsIndex | None = None) -> None:
        ...
    def get_state(self) -> tuple[int, int]:
        """
        (seed, counter): restore with set_state to draw the same numbers again.
        """
    def initial_seed(self) -> int:
        ...
    def load_state_dict(self, state_dict: dict) -> None:
        """
        Restores a state_dict(), or what ember.io.load gives back for a saved generator.
        """
    def manual_seed(self, seed: typing.SupportsInt | typing.SupportsIndex) -> Generator:
        ...
    def set_state(self, state: tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    def state_dict(self) -> typing.Any:
        """
        The state as ember.io saves a generator: {'type': 'Generator', 'seed': ..., 'counter': ...}.
        """
class Node:
    """
    A node of the backward graph (Tensor.grad_fn).
    """
    def __repr__(self) -> str:
        ...
    def name(self) -> str:
        ...
    @property
    def next_functions(self) -> tuple:
        ...
class RemovableHandle:
    """
    handle.remove() unregisters the hook.
    """
    def __enter__(self) -> RemovableHandle:
        ...
    def __exit__(self, *args) -> None:
        ...
    def remove(self) -> None:
        ...
class _AutocastWrapped:
    def __call__(self, *args, **kwargs) -> typing.Any:
        ...
    def __get__(self, instance: typing.Any, owner: typing.Any = None) -> typing.Any:
        ...
class autocast:
    """
    `with ember.autocast(device_type="cpu", dtype=ember.bfloat16, enabled=use_amp):`, or as a decorator.
    dtype defaults to the device type's (bfloat16 on "cpu", float16 on "cuda"); enabled=False makes a
    region without autocast inside one with it; cache_enabled casts each float32 parameter once per
    outermost region. As PyTorch's: "cuda" without a CUDA device, and a CPU dtype other than float16
    or bfloat16, warn and disable autocast.
    """
    def __call__(self, fn: typing.Any) -> typing.Any:
        ...
    def __enter__(self) -> typing.Any:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self, device_type: typing.Any, dtype: _dtype | None = None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        ...
    @property
    def _cache_enabled(self) -> bool:
        ...
    @property
    def _enabled(self) -> bool:
        ...
    @property
    def device(self) -> str:
        ...
    @property
    def fast_dtype(self) -> _dtype:
        ...
def _affine_grid(theta: Tensor, size: typing.Any, align_corners: bool | None = None) -> Tensor:
    """
    The sampling grid [N, H, W, 2] of the affine maps theta [N, 2, 3] for an output of size [N, C, H, W]: grid[n, h, w] = theta[n] @ (x_w, y_h, 1), x and y the pixel centres in [-1, 1] (the corners with align_corners).
    """
def _autocast_any_enabled() -> bool:
    ...
def _autocast_call(op: str, fn: collections.abc.Callable, *args, **kwargs) -> typing.Any:
    """
    fn(*args, **kwargs) under op's autocast policy (ember._amp_op).
    """
def _autocast_decrement_nesting() -> int:
    ...
def _autocast_increment_nesting() -> int:
    ...
def _autocast_policy(op: str, device_type: str) -> typing.Any:
    """
    The op's autocast policy on a device type, or None.
    """
def _autocast_policy_names() -> list[str]:
    ...
def _autocast_state(device_type: str) -> tuple[bool, _dtype, bool]:
    """
    (enabled, dtype, cache_enabled) of this thread's autocast for a device type.
    """
def _check_device(device: _device, what: str) -> None:
    """
    Raises 'no CUDA device: <what> on <device>: ...' unless the device can be used.
    """
def _clear_autocast_cache() -> None:
    ...
def _conv_winograd() -> bool:
    """
    Whether CPU float32 3x3 stride-1 convolutions with 64+ channels may use Winograd's algorithm.
    """
def _cpu_capability() -> str:
    """
    The widest vector extension of this CPU that PyTorch's names cover: AVX512, AVX2 or DEFAULT.
    """
def _cpu_max_memory_allocated() -> int:
    """
    The most _cpu_memory_allocated held since the reset.
    """
def _cpu_memory_allocated() -> int:
    """
    Bytes held by live CPU storages (core/storage.h).
    """
def _cpu_reset_peak_memory_stats() -> None:
    """
    Starts the peak over from what is held now.
    """
def _cuda_backend_built() -> bool:
    """
    Whether this build has the CUDA backend.
    """
def _cuda_device_count() -> int:
    """
    Usable CUDA devices (0 without one).
    """
def _cuda_empty_cache() -> None:
    """
    Returns the CUDA allocator's cached blocks to the driver.
    """
def _cuda_get_device_name(index: typing.SupportsInt | typing.SupportsIndex = 0) -> str:
    """
    The name of cuda:index.
    """
def _cuda_memory_allocated(index: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
    """
    Bytes held by live tensors on cuda:index.
    """
def _cuda_memory_reserved(index: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
    """
    Bytes the allocator holds on cuda:index (live and cached).
    """
def _cuda_synchronize(index: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
    """
    Waits for the kernels queued on cuda:index (-1: every device).
    """
def _cuda_target(device: typing.Any = None) -> device:
    ...
def _cudnn_version() -> int:
    """
    cuDNN's version (cudnnGetVersion()).
    """
def _default_device() -> _device | None:
    """
    The default device, None while it is the CPU.
    """
def _fft_c2c(input: Tensor, dim: typing.Any, normalization: typing.SupportsInt | typing.SupportsIndex, forward: bool) -> Tensor:
    """
    The complex DFT of input over dim (forward: e^-2pi i jk/n; else e^+2pi i jk/n), normalization 0: none, 1: 1/sqrt(n), 2: 1/n.
    """
def _fft_c2r(input: Tensor, dim: typing.Any, normalization: typing.SupportsInt | typing.SupportsIndex, last_dim_size: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    The real inverse DFT over dim of a Hermitian spectrum whose last dim holds bins 0..last_dim_size/2.
    """
def _fft_r2c(input: Tensor, dim: typing.Any, normalization: typing.SupportsInt | typing.SupportsIndex, onesided: bool) -> Tensor:
    """
    The forward DFT of the real input over dim: the last dim's n/2+1 bins when onesided, else all n.
    """
def _grid_sample(input: Tensor, grid: Tensor, mode: str = 'bilinear', padding_mode: str = 'zeros', align_corners: bool | None = None) -> Tensor:
    """
    output[n, c, h, w] = input[n, c] sampled at grid[n, h, w] = (x, y) in [-1, 1], bilinear or nearest (half to even); outside the input zeros, the border's value or the reflection's. Both input and grid get gradients.
    """
def _hardtanh(input: Tensor, min_val: typing.SupportsFloat | typing.SupportsIndex = -1.0, max_val: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> Tensor:
    """
    input clamped to [min_val, max_val] in one pass; its gradient passes strictly between the bounds (and at NaN), 0 at and past them, as PyTorch's hardtanh. An integer tensor is clamped to the bounds truncated to integers and stays integer; bool is refused, and so is min_val > max_val.
    """
def _install_batched_dispatch(arg0: typing.Any, arg1: typing.Any) -> None:
    """
    ember.func's hook: batched_type's instances reach dispatcher(name, args, kwargs) from every op binding.
    """
def _rebuild_tensor(arg0: typing.Any, arg1: typing.Any, arg2: bool, arg3: bool, arg4: typing.Any) -> typing.Any:
    ...
def _set_autocast_state(device_type: str, enabled: bool, dtype: _dtype, cache_enabled: bool) -> None:
    ...
def _set_conv_winograd(enabled: bool) -> None:
    """
    Allows or forbids Winograd's algorithm for CPU convolutions (ember.backends.mkldnn.allow_winograd).
    """
def _set_vmap_depth(arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    How many vmaps are running (Module.__call__ asks ember.func's dispatcher while any is).
    """
def _special_i0e(input: Tensor) -> Tensor:
    """
    exp(-|x|) i0(x), which does not overflow (ember.special.i0e). Integer tensors compute in float32. Gradient: special_i1e(input) - sign(input) special_i0e(input).
    """
def _special_i1(input: Tensor) -> Tensor:
    """
    The modified Bessel function of the first kind of order 1 (odd; ember.special.i1). Integer tensors compute in float32. Gradient: i0(input) - special_i1(input) / input, 1/2 at 0.
    """
def _special_i1e(input: Tensor) -> Tensor:
    """
    exp(-|x|) i1(x) (ember.special.i1e). Integer tensors compute in float32. Gradient: special_i0e(input) - special_i1e(input) (sign(input) + 1 / input), 1/2 at 0.
    """
def _special_ndtr(input: Tensor) -> Tensor:
    """
    The standard normal CDF, erfc(-input / sqrt 2) / 2 (ember.special.ndtr): accurate in the lower tail, where 1 + erf would round to 0. Integer tensors compute in float32.
    """
def _special_ndtri(input: Tensor) -> Tensor:
    """
    The inverse of ndtr (ember.special.ndtri): -inf at 0, inf at 1, NaN outside [0, 1]; accurate in both tails (Newton's method on log ndtr, in float64). Integer tensors compute in float32. Gradient sqrt(2 pi) exp(ndtri(input)^2 / 2).
    """
def _standard_gamma_grad(self: Tensor, output: Tensor) -> Tensor:
    """
    dz/dalpha at Gamma(alpha, 1) draws z (torch._standard_gamma_grad), computed in double.
    """
def _tensor_object_state(arg0: Tensor) -> tuple[bool, bool, int]:
    """
    (has an object, the tensor owns it, C++ handles): for tests of the object's lifetime.
    """
def _tensordot(a: Tensor, b: Tensor, dims_a: typing.Any, dims_b: typing.Any) -> Tensor:
    """
    The contraction of a's dims_a with b's dims_b (pairwise equal sizes): the free dims of a, then those of b. a and b must have one dtype. Python's tensordot(a, b, dims) builds the two lists.
    """
def _throw(kind: str, message: str) -> None:
    """
    Throws the named ember exception (tests the mapping).
    """
def abs(input: Tensor) -> Tensor:
    """
    |input| in input's dtype (bool refused, as on PyTorch's CPU).
    """
def absolute(input: Tensor) -> Tensor:
    """
    |input| in input's dtype (bool refused, as on PyTorch's CPU).
    """
def acos(input: Tensor) -> Tensor:
    """
    Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
    """
def acosh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
    """
def adaptive_avg_pool2d(input: Tensor, output_size: typing.Any) -> Tensor:
    """
    Means over output_size windows that tile the input: output_size 1 is global average pooling.
    """
def adaptive_max_pool2d(input: Tensor, output_size: typing.Any, return_indices: bool = False) -> typing.Any:
    """
    Maxima over output_size windows that tile the input (and their flat positions with return_indices=True).
    """
@typing.overload
def add(input: Tensor, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input + alpha * other, broadcast, in the promoted dtype.
    """
@typing.overload
def add(input: Tensor, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input + alpha * other for a Python number other.
    """
def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> Tensor:
    """
    input + value * tensor1 / tensor2, the three cast to the dtype they promote to first; integer tensor1 and tensor2 are refused, as PyTorch refuses them.
    """
def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: bool | int | float = 1) -> Tensor:
    """
    input + value * tensor1 * tensor2, the three cast to the dtype they promote to first (value does not take part; an integer dtype truncates it). float32 and narrower round once, as PyTorch's fused multiply-add. Each gradient is taken at the broadcast shape, then summed to its operand's.
    """
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> Tensor:
    """
    beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape.
    """
@typing.overload
def all(input: Tensor) -> Tensor:
    """
    Whether every entry is nonzero (a 0-d bool).
    """
@typing.overload
def all(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> Tensor:
    ...
@typing.overload
def all(input: Tensor, dim: typing.Any, keepdim: bool = False) -> Tensor:
    """
    all over the dims given (every dim when None; an empty list reduces none: each entry's truth).
    """
def allclose(input: Tensor, other: Tensor, rtol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-08, equal_nan: bool = False) -> bool:
    """
    Whether isclose holds everywhere (input and other broadcast).
    """
def amax(input: Tensor, dim: typing.Any = (), keepdim: bool = False) -> Tensor:
    """
    Maximum over dim (every dim when empty), values only; the gradient is shared evenly among the maximal elements. NaN propagates.
    """
def amin(input: Tensor, dim: typing.Any = (), keepdim: bool = False) -> Tensor:
    """
    Minimum over dim (every dim when empty), values only; see amax.
    """
def angle(input: Tensor) -> Tensor:
    """
    The argument of each complex element in radians, in its real dtype; of a real tensor 0 or pi (NaN kept).
    """
@typing.overload
def any(input: Tensor) -> Tensor:
    """
    Whether any entry is nonzero (a 0-d bool).
    """
@typing.overload
def any(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> Tensor:
    ...
@typing.overload
def any(input: Tensor, dim: typing.Any, keepdim: bool = False) -> Tensor:
    """
    any over the dims given (every dim when None; an empty list reduces none: each entry's truth).
    """
def arange(start: bool | int | float, end: bool | int | float | None = None, step: bool | int | float = 1, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    arange(5), arange(1, 10, 2): int64 unless a bound or the step is a float (then float32).
    """
def arccos(input: Tensor) -> Tensor:
    """
    Arccosine: nan outside [-1, 1]. Integer tensors compute in float32.
    """
def arccosh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic cosine: nan below 1. Integer tensors compute in float32.
    """
def arcsin(input: Tensor) -> Tensor:
    """
    Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
    """
def arcsinh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic sine. Integer tensors compute in float32.
    """
def arctan(input: Tensor) -> Tensor:
    """
    Arctangent. Integer tensors compute in float32.
    """
def arctan2(input: Tensor, other: Tensor) -> Tensor:
    """
    The angle of (other, input) in (-pi, pi], broadcast; integer inputs compute in float32.
    """
def arctanh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
    """
def argmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
    """
    Index (int64) of the maximum along dim, or into the flattened tensor without dim.
    """
def argmin(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False) -> Tensor:
    """
    Index (int64) of the minimum along dim, or into the flattened tensor without dim.
    """
def argsort(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """
    int64 indices that sort input along dim; NaN sorts above every number; equal entries keep their order (the sort is always stable).
    """
def argwhere(input: Tensor) -> Tensor:
    """
    The coordinates of the nonzero entries, one row each in row-major order: [n, input.dim()].
    """
def as_strided(input: Tensor, size: typing.Any, stride: typing.Any, storage_offset: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    A view of input's storage with the given sizes, strides (in elements, >= 0) and storage offset (input's when None); elements may repeat (sliding windows). Refused when it would reach past the storage. Gradient: each element's gradient added back at its storage position (ops/view_history.cpp).
    """
def asin(input: Tensor) -> Tensor:
    """
    Arcsine: nan outside [-1, 1]. Integer tensors compute in float32.
    """
def asinh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic sine. Integer tensors compute in float32.
    """
def atan(input: Tensor) -> Tensor:
    """
    Arctangent. Integer tensors compute in float32.
    """
def atan2(input: Tensor, other: Tensor) -> Tensor:
    """
    The angle of (other, input) in (-pi, pi], broadcast; integer inputs compute in float32.
    """
def atanh(input: Tensor) -> Tensor:
    """
    Inverse hyperbolic tangent: +-inf at +-1, nan beyond. Integer tensors compute in float32.
    """
def autocast_decrement_nesting() -> int:
    ...
def autocast_increment_nesting() -> int:
    ...
def avg_pool2d(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Window means; count_include_pad counts zero padding in the divisor, divisor_override replaces it.
    """
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: bool | int | float = 1, alpha: bool | int | float = 1) -> Tensor:
    """
    beta * input + alpha * (batch1 @ batch2) for 3-D batches, input broadcast.
    """
def bartlett_window(window_length: typing.SupportsInt | typing.SupportsIndex, periodic: bool = True, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    Normalizes each channel (dim 1) with the batch statistics in training (updating the running ones in place) or the running statistics in evaluation, then scales by weight and adds bias.
    """
def bincount(input: Tensor, weights: Tensor | None = None, minlength: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    How often each value of a 1-D tensor of non-negative integers occurs (int64), or the sum of weights at each value; at least minlength entries.
    """
@typing.overload
def bitwise_and(input: Tensor, other: Tensor) -> Tensor:
    """
    input & other bit by bit (integer and bool tensors).
    """
@typing.overload
def bitwise_and(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def bitwise_left_shift(input: Tensor, other: Tensor) -> Tensor:
    """
    input << other (integer tensors), as PyTorch: a shift by a negative count or by the bit width or more gives 0; the bits shifted out are dropped (no overflow error).
    """
@typing.overload
def bitwise_left_shift(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def bitwise_not(input: Tensor) -> Tensor:
    """
    ~input: every bit flipped (integer tensors), logical not (bool tensors).
    """
@typing.overload
def bitwise_or(input: Tensor, other: Tensor) -> Tensor:
    """
    input | other bit by bit (integer and bool tensors).
    """
@typing.overload
def bitwise_or(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def bitwise_right_shift(input: Tensor, other: Tensor) -> Tensor:
    """
    input >> other (integer tensors), arithmetic for signed dtypes; a shift by a negative count or by the bit width or more gives the sign fill (0 or -1).
    """
@typing.overload
def bitwise_right_shift(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def bitwise_xor(input: Tensor, other: Tensor) -> Tensor:
    """
    input ^ other bit by bit (integer and bool tensors).
    """
@typing.overload
def bitwise_xor(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def blackman_window(window_length: typing.SupportsInt | typing.SupportsIndex, periodic: bool = True, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """
    Batched product of 3-D tensors [B, n, k] @ [B, k, m].
    """
def broadcast_tensors(*args) -> tuple:
    """
    The tensors expanded (as views) to their common broadcast shape.
    """
def broadcast_to(input: Tensor, size: typing.Any) -> Tensor:
    """
    expand(size).
    """
def bucketize(input: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """
    For each value, the index of the bucket of the sorted 1-D boundaries it falls in: searchsorted (boundaries, input, right).
    """
def can_cast(from_: _dtype, to: _dtype) -> bool:
    """
    Whether a value of dtype from_ may be cast to `to` (PyTorch's rule).
    """
def cartesian_prod(*args) -> Tensor:
    """
    Every combination of the 1-D tensors' entries, one per row (itertools.product's order).
    """
def cat(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Concatenation along dim, in the promoted dtype; sizes must match outside dim; 1-D tensors of shape [0] are skipped (PyTorch's legacy rule).
    """
def cdist(x1: Tensor, x2: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2, compute_mode: str = 'use_mm_for_euclid_dist_if_necessary') -> Tensor:
    """
    The p-norm distances between the rows of x1 [*, P, M] and of x2 [*, R, M]: [*, P, R]. PyTorch's gradients: for p = 2, 0 where a distance is 0; for p = 1, grad * sign(x1 - x2); p = 0 counts the differing entries (NaN where one is NaN) with a zero gradient.
    """
def ceil(input: Tensor) -> Tensor:
    """
    The smallest integer >= input; integer tensors as they are. Gradient zero.
    """
def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """
    linalg.cholesky (PyTorch's older form, upper positional).
    """
def chunk(input: Tensor, chunks: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
    """
    split into pieces of ceil(size / chunks): at most chunks views.
    """
@typing.overload
def clamp(input: Tensor, min: bool | int | float | None = None, max: bool | int | float | None = None) -> Tensor:
    """
    min(max(input, min), max) elementwise; at least one bound must be given. A floating bound on an integer tensor gives float32; NaN stays NaN. The gradient passes where min < input < max (PyTorch's: none at a bound).
    """
@typing.overload
def clamp(input: Tensor, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:
    """
    clamp with tensor bounds (broadcast, promoted): maximum(input, min) or minimum(input, max) with one bound; with two, PyTorch's clamp.Tensor: NaN in any gives NaN (gradient to input), min > max gives max.
    """
@typing.overload
def clamp(input: Tensor, min: typing.Any = None, max: typing.Any = None) -> Tensor:
    ...
@typing.overload
def clamp_max(input: Tensor, max: bool | int | float) -> Tensor:
    """
    clamp(input, max=max).
    """
@typing.overload
def clamp_max(input: Tensor, max: Tensor) -> Tensor:
    """
    clamp(input, max=max) with a tensor bound (broadcast, promoted).
    """
@typing.overload
def clamp_min(input: Tensor, min: bool | int | float) -> Tensor:
    """
    clamp(input, min=min).
    """
@typing.overload
def clamp_min(input: Tensor, min: Tensor) -> Tensor:
    """
    clamp(input, min=min) with a tensor bound (broadcast, promoted).
    """
def clear_autocast_cache() -> None:
    ...
@typing.overload
def clip(input: Tensor, min: bool | int | float | None = None, max: bool | int | float | None = None) -> Tensor:
    """
    min(max(input, min), max) elementwise; at least one bound must be given. A floating bound on an integer tensor gives float32; NaN stays NaN. The gradient passes where min < input < max (PyTorch's: none at a bound).
    """
@typing.overload
def clip(input: Tensor, min: Tensor | None = None, max: Tensor | None = None) -> Tensor:
    """
    clamp with tensor bounds (broadcast, promoted): maximum(input, min) or minimum(input, max) with one bound; with two, PyTorch's clamp.Tensor: NaN in any gives NaN (gradient to input), min > max gives max.
    """
@typing.overload
def clip(input: Tensor, min: typing.Any = None, max: typing.Any = None) -> Tensor:
    ...
def clone(input: Tensor) -> Tensor:
    """
    A contiguous copy that stays in the graph.
    """
def combinations(input: Tensor, r: typing.SupportsInt | typing.SupportsIndex = 2, with_replacement: bool = False) -> Tensor:
    """
    The r-entry combinations of a 1-D tensor's entries, one per row (itertools' order).
    """
def complex(real: Tensor, imag: Tensor) -> Tensor:
    """
    real + i imag, broadcast: float32 parts make complex64, float64 parts complex128.
    """
def concat(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Concatenation along dim, in the promoted dtype; sizes must match outside dim; 1-D tensors of shape [0] are skipped (PyTorch's legacy rule).
    """
def conj(input: Tensor) -> Tensor:
    """
    The complex conjugate, as a new tensor (not PyTorch's lazy conjugate view); a real tensor itself.
    """
def conj_physical(input: Tensor) -> Tensor:
    """
    The complex conjugate, as a new tensor (not PyTorch's lazy conjugate view); a real tensor itself.
    """
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    1-D cross-correlation of [N, C, L] (or [C, L]) with weight [O, C / groups, k] and optional bias [O]; padding may also be "valid" or "same".
    """
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, dilation: typing.Any = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    2-D cross-correlation of [N, C, H, W] (or [C, H, W]) with weight [O, C / groups, kH, kW] and optional bias [O]; padding may also be "valid" or "same".
    """
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | tuple[int, int, int] = 1, padding: typing.Any = 0, dilation: int | tuple[int, int, int] = 1, groups: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    3-D cross-correlation of [N, C, D, H, W] (or [C, D, H, W]) with weight [O, C / groups, kD, kH, kW]; padding may also be "valid" or "same".
    """
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, dilation: typing.Any = 1) -> Tensor:
    """
    The transposed 1-D convolution of [N, Cin, L] (or [Cin, L]) with weight [Cin, Cout / groups, k].
    """
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: typing.Any = 1, padding: typing.Any = 0, output_padding: typing.Any = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, dilation: typing.Any = 1) -> Tensor:
    """
    The transposed 2-D convolution (conv2d's gradient in its input) of [N, Cin, H, W] (or [Cin, H, W]) with weight [Cin, Cout / groups, kH, kW] and optional bias [Cout].
    """
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: int | tuple[int, int, int] = 1, padding: int | tuple[int, int, int] = 0, output_padding: int | tuple[int, int, int] = 0, groups: typing.SupportsInt | typing.SupportsIndex = 1, dilation: int | tuple[int, int, int] = 1) -> Tensor:
    """
    The transposed 3-D convolution of [N, Cin, D, H, W] (or 4-D) with weight [Cin, Cout / groups, kD, kH, kW].
    """
def cos(input: Tensor) -> Tensor:
    """
    Cosine (radians). Integer tensors compute in float32.
    """
def cosh(input: Tensor) -> Tensor:
    """
    Hyperbolic cosine. Integer tensors compute in float32.
    """
def count_nonzero(input: Tensor, dim: typing.Any = None) -> Tensor:
    """
    The number of nonzero entries over dim (every dim when None), int64.
    """
def cross(input: Tensor, other: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    The cross product of 3-vectors along dim (None: the first dim of size 3); input and other broadcast and must have one dtype.
    """
def cummax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    """
    The running maximum along dim and where it was last taken (a tie moves the index on; NaN is the maximum from where it appears).
    """
def cummin(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    """
    The running minimum along dim and where it was last taken (as cummax).
    """
def cumprod(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
    """
    Running products along dim; integer and bool tensors multiply in int64 unless dtype says otherwise. The gradient is exact where entries are 0.
    """
def cumsum(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
    """
    Running sums along dim; integer and bool tensors sum in int64 (as PyTorch) unless dtype says otherwise. Gradient: the reversed running sum of the gradient.
    """
def default_generator() -> Generator:
    """
    The generator random ops use when none is passed.
    """
def deg2rad(input: Tensor) -> Tensor:
    """
    input * pi / 180; integer and bool tensors compute in the default float dtype.
    """
def det(input: Tensor) -> Tensor:
    """
    linalg.det.
    """
def diag(input: Tensor, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    A 1-D tensor made the given diagonal of a square matrix, or a copy of a 2-D tensor's diagonal.
    """
def diag_embed(input: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0, dim1: typing.SupportsInt | typing.SupportsIndex = -2, dim2: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    """
    Zeros with the last dim of input on the diagonal (i, i + offset) of two new dims dim1 and dim2 (of the result), each of size input.size(-1) + |offset|.
    """
def diagonal(input: Tensor, offset: typing.SupportsInt | typing.SupportsIndex = 0, dim1: typing.SupportsInt | typing.SupportsIndex = 0, dim2: typing.SupportsInt | typing.SupportsIndex = 1) -> Tensor:
    """
    A view of the entries (i, i + offset) of dims dim1 and dim2, which are removed; the diagonal is the last dim.
    """
def diff(input: Tensor, n: typing.SupportsInt | typing.SupportsIndex = 1, dim: typing.SupportsInt | typing.SupportsIndex = -1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
    """
    The n-th forward difference along dim, prepend and append joined first; of a bool tensor, whether neighbours differ (logical_xor).
    """
def digamma(input: Tensor) -> Tensor:
    """
    The logarithmic derivative of Gamma, psi(input): -inf at +0 (+inf at -0), NaN at the negative integers. Integer tensors compute in float32. Gradient: polygamma(1, input).
    """
def dist(input: Tensor, other: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2) -> Tensor:
    """
    The p-norm of input - other, flattened (inf: the largest difference; 0: the number of entries that differ). The gradient is 0 where the difference is 0.
    """
@typing.overload
def div(input: Tensor, other: Tensor) -> Tensor:
    """
    True division, broadcast: integer inputs give float32.
    """
@typing.overload
def div(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def div(input: Tensor, other: Tensor, *, rounding_mode: str | None) -> Tensor:
    """
    div with a rounding_mode: None is true division, "trunc" rounds the quotient toward zero and "floor" down (floor_divide, Python's //). Both keep integer inputs integer; their gradient is zero.
    """
@typing.overload
def div(input: Tensor, other: bool | int | float, *, rounding_mode: str | None) -> Tensor:
    ...
@typing.overload
def divide(input: Tensor, other: Tensor) -> Tensor:
    """
    True division, broadcast: integer inputs give float32.
    """
@typing.overload
def divide(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def divide(input: Tensor, other: Tensor, *, rounding_mode: str | None) -> Tensor:
    """
    div with a rounding_mode: None is true division, "trunc" rounds the quotient toward zero and "floor" down (floor_divide, Python's //). Both keep integer inputs integer; their gradient is zero.
    """
@typing.overload
def divide(input: Tensor, other: bool | int | float, *, rounding_mode: str | None) -> Tensor:
    ...
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """
    The inner product of two 1-D tensors of one length (a 0-d tensor).
    """
def dropout(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 0.5, training: bool = True, *, generator: Generator | None = None) -> Tensor:
    """
    Zeroes each element with probability p and scales the rest by 1 / (1 - p) in training; the mask comes from generator (the default one when None).
    """
def einsum(*args) -> Tensor:
    """
    einsum(equation, *operands): sums of products of the operands' entries as the equation names them (PyTorch's syntax: subscripts a-zA-Z, ... for the dims not named, -> and the output, or the implicit output); also einsum(equation, [operands]) and the sublist form einsum(op0, [0, 1], op1, [1, 2], [0, 2]).
    """
def embedding(weight: Tensor, input: Tensor, padding_idx: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Rows of weight [V, D] for integer indices of any shape (input.shape + [D]); the row padding_idx gets no gradient.
    """
def empty(*args, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    Uninitialised values: empty(2, 3).
    """
def empty_like(input: Tensor, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
@typing.overload
def eq(input: Tensor, other: Tensor) -> Tensor:
    """
    input == other elementwise, as a bool tensor (NaN != NaN).
    """
@typing.overload
def eq(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def equal(input: Tensor, other: Tensor) -> bool:
    """
    Whether input and other have the same shape and equal elements (NaN is unequal).
    """
def erf(input: Tensor) -> Tensor:
    """
    The Gauss error function (GELU's building block).
    """
def erfc(input: Tensor) -> Tensor:
    """
    1 - erf(input), without the cancellation for large input. Integer tensors compute in float32.
    """
def erfinv(input: Tensor) -> Tensor:
    """
    The inverse of erf: +-inf at +-1, NaN outside [-1, 1]. Integer tensors compute in float32. Gradient: sqrt(pi) / 2 * exp(erfinv(input)^2).
    """
def exp(input: Tensor) -> Tensor:
    """
    e^input; integer tensors compute in float32.
    """
def exp2(input: Tensor) -> Tensor:
    """
    2^input; integer and bool tensors compute in the default float dtype.
    """
def expm1(input: Tensor) -> Tensor:
    """
    e^input - 1, accurate for small input. Integer tensors compute in float32.
    """
def eye(n: typing.SupportsInt | typing.SupportsIndex, m: typing.SupportsInt | typing.SupportsIndex | None = None, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def fill_diagonal_(input: Tensor, fill_value: bool | int | float, wrap: bool = False) -> Tensor:
    """
    Sets the main diagonal (the elements whose indices are all equal) to fill_value; a tall matrix with wrap starts it again every columns + 1 rows, as PyTorch's.
    """
def fix(input: Tensor) -> Tensor:
    """
    input rounded toward zero; integer tensors as they are. Gradient zero.
    """
def flatten(input: Tensor, start_dim: typing.SupportsInt | typing.SupportsIndex = 0, end_dim: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    """
    Dims start_dim..end_dim merged into one.
    """
def flip(input: Tensor, dims: typing.Any) -> Tensor:
    """
    A copy with the order of the entries along each of dims reversed.
    """
def floor(input: Tensor) -> Tensor:
    """
    The largest integer <= input; integer tensors are returned as they are (a copy). Gradient zero.
    """
@typing.overload
def floor_divide(input: Tensor, other: Tensor) -> Tensor:
    """
    floor(input / other) as Python's //, broadcast, in the promoted dtype (integers stay integers; floats as PyTorch's, exact where input - fmod(input, other) is); integer division by zero is an error. Piecewise constant: the result records no gradient.
    """
@typing.overload
def floor_divide(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def floor_divide(self: bool | int | float, other: Tensor) -> Tensor:
    """
    floor_divide for a Python number self (number // tensor in Python).
    """
def fmax(input: Tensor, other: Tensor) -> Tensor:
    """
    maximum, except that a NaN loses to a number (two NaNs give input) and two zeros give input's. A tie shares the gradient half and half, as maximum's; a NaN operand gets none.
    """
def fmin(input: Tensor, other: Tensor) -> Tensor:
    """
    minimum, except that a NaN loses to a number (two NaNs give input) and two zeros give input's. A tie shares the gradient half and half, as minimum's; a NaN operand gets none.
    """
@typing.overload
def fmod(input: Tensor, other: Tensor) -> Tensor:
    """
    input - trunc(input / other) * other, broadcast: the sign of input, as C's fmod; integer division by zero is an error. Gradient: 1 and -trunc(input / other).
    """
@typing.overload
def fmod(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def frac(input: Tensor) -> Tensor:
    """
    input - trunc(input), with input's sign. Floating tensors only.
    """
def from_numpy(array: typing.Any) -> Tensor:
    """
    A tensor that shares the array's memory (no copy): writes to either are seen by the other, and the
    tensor keeps the array alive. Supported dtypes: bool, uint8, int8, int16, int32, int64, float16,
    float32, float64, complex64, complex128; negative strides are refused (copy with ember.tensor(a)
    instead).
    """
def full(size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], fill_value: bool | int | float, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    full((2, 3), 7.0); the dtype follows the value (bool, int64, float32) unless given.
    """
def full_like(input: Tensor, fill_value: bool | int | float, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
def gather(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
    """
    out[i][j] = input[index[i][j]][j] (dim 0), ...; out has index's shape.
    """
@typing.overload
def ge(input: Tensor, other: Tensor) -> Tensor:
    """
    input >= other elementwise, as a bool tensor.
    """
@typing.overload
def ge(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def gelu(input: Tensor, approximate: str = 'none') -> Tensor:
    """
    input * Phi(input) with Phi the standard normal CDF (approximate="none"), or PyTorch's tanh approximation (approximate="tanh"). Floating tensors only.
    """
def geqrf(input: Tensor) -> typing.Any:
    """
    LAPACK's geqrf of each matrix of input [..., m, n]: a holds R on and above the diagonal and the Householder vectors below it (their leading 1 implied), tau [..., min(m, n)] their scales. Not differentiable, as PyTorch's.
    """
def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """
    The outer product of two 1-D tensors: out[i][j] = input[i] * vec2[j].
    """
def get_autocast_cpu_dtype() -> _dtype:
    ...
def get_autocast_dtype(device_type: str) -> _dtype:
    """
    The 16-bit dtype autocast on device_type casts to (bfloat16 on "cpu", float16 on "cuda" by default).
    """
def get_autocast_gpu_dtype() -> _dtype:
    ...
def get_default_device() -> device:
    """
    The device factories use without device= (torch.get_default_device): cpu unless set_default_device or a `with ember.device(...)` block chose another.
    """
def get_default_dtype() -> _dtype:
    """
    The dtype factories create and Python floats take.
    """
def get_num_threads() -> int:
    """
    Threads Ember's CPU ops use, the caller included (default: OMP_NUM_THREADS, else the CPUs this process may run on).
    """
def get_printoptions() -> dict:
    """
    The print options as a dict, which set_printoptions(**options) restores.
    """
@typing.overload
def greater(input: Tensor, other: Tensor) -> Tensor:
    """
    input > other elementwise, as a bool tensor.
    """
@typing.overload
def greater(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def greater_equal(input: Tensor, other: Tensor) -> Tensor:
    """
    input >= other elementwise, as a bool tensor.
    """
@typing.overload
def greater_equal(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def group_norm(input: Tensor, num_groups: typing.SupportsInt | typing.SupportsIndex, weight: Tensor | None = None, bias: Tensor | None = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    Normalizes each sample over groups of num_groups consecutive channels (and the spatial dims) of [N, C, *], then scales by weight [C] and adds bias [C].
    """
@typing.overload
def gru(input: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """
    (output, h_n) of a stack of GRU layers (gates r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn))).
    """
@typing.overload
def gru(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor]:
    """
    gru over a packed batch (see rnn_tanh.data).
    """
def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """
    One GRU step: the new h from input [B, input_size] and hx [B, hidden].
    """
@typing.overload
def gt(input: Tensor, other: Tensor) -> Tensor:
    """
    input > other elementwise, as a bool tensor.
    """
@typing.overload
def gt(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def hamming_window(window_length: typing.SupportsInt | typing.SupportsIndex, periodic: bool = True, alpha: typing.SupportsFloat | typing.SupportsIndex = 0.54, beta: typing.SupportsFloat | typing.SupportsIndex = 0.46, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def hann_window(window_length: typing.SupportsInt | typing.SupportsIndex, periodic: bool = True, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """
    values where input is 0, else 1 where input > 0 and 0 elsewhere (NaN too), in the dtype the two promote to. input gets a zero gradient (a step's, almost everywhere), values grad where input is 0.
    """
def histc(input: Tensor, bins: typing.SupportsInt | typing.SupportsIndex = 100, min: bool | int | float = 0, max: bool | int | float = 0) -> Tensor:
    """
    Histogram of bins equal bins over [min, max] (the data's range when min == max) in input's dtype; entries outside are ignored, the right edge is in the last bin.
    """
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """
    sqrt(input^2 + other^2) without overflow or underflow in between (float32 and narrower in float64), inf where either is infinite (even against NaN, as C's hypot); in the dtype the two promote to, which must be floating, as PyTorch's. Gradients grad input / r and grad other / r.
    """
def i0(input: Tensor) -> Tensor:
    """
    The modified Bessel function of the first kind of order 0 (even), computed in double and rounded once; NaN at +-inf and inf past |x| = 709.8, as PyTorch's. Integer tensors compute in float32. Gradient: special_i1(input).
    """
def igamma(input: Tensor, other: Tensor) -> Tensor:
    """
    The regularised lower incomplete gamma function P(input, other) (ember.special.gammainc), broadcast, computed in double and rounded once; integer inputs are refused, as PyTorch's. Differentiable in other only: other^(input - 1) e^-other / Gamma(input).
    """
def igammac(input: Tensor, other: Tensor) -> Tensor:
    """
    The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other) (ember.special.gammaincc); as igamma otherwise.
    """
def imag(input: Tensor) -> Tensor:
    """
    The imaginary parts of a complex tensor (a view).
    """
def index_add(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
    """
    A copy of input with alpha * source.select(dim, i) added to input.select(dim, index[i]).
    """
def index_copy(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor) -> Tensor:
    """
    A copy of input with input.select(dim, index[i]) replaced by source.select(dim, i) for every i.
    """
@typing.overload
def index_fill(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: Tensor) -> Tensor:
    """
    A copy of input with the slices index names along dim (a negative index counts from the end) set to value, a 0-d tensor cast to input's dtype; value's gradient sums the filled elements'.
    """
@typing.overload
def index_fill(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> Tensor:
    """
    index_fill with a number (cast to input's dtype).
    """
def index_put(input: Tensor, indices: collections.abc.Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """
    A copy of input with input[indices] = values (+= with accumulate).
    """
def index_reduce(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """
    A copy of input with source.select(dim, i) reduced into input.select(dim, index[i]) for every i, by "prod", "mean", "amax" or "amin" (scatter_reduce with index spread over source's other dims).
    """
def index_select(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor) -> Tensor:
    """
    The entries index (1-D or 0-d) of dim: index_select(x, 0, idx) picks rows.
    """
def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None, weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True, momentum: typing.SupportsFloat | typing.SupportsIndex = 0.1, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    Normalizes each channel of each sample of [N, C, *] over the spatial dims (use_input_stats, updating the running statistics averaged over the batch) or with the running statistics.
    """
def inverse(input: Tensor) -> Tensor:
    """
    linalg.inv.
    """
def is_autocast_available(device_type: str) -> bool:
    """
    True for "cpu" and "cuda", the device types Ember's autocast has lists for.
    """
def is_autocast_cache_enabled() -> bool:
    ...
def is_autocast_cpu_enabled() -> bool:
    ...
def is_autocast_enabled(device_type: str | None = None) -> bool:
    """
    Whether autocast is on for device_type on this thread ("cuda" when not given, as in PyTorch).
    """
def isclose(input: Tensor, other: Tensor, rtol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-08, equal_nan: bool = False) -> Tensor:
    """
    |input - other| <= atol + rtol * |other| elementwise, broadcast (equal infinities are close, NaN only with equal_nan); integers within a tolerance compare in the default float dtype.
    """
def isfinite(input: Tensor) -> Tensor:
    """
    Where input is neither NaN nor infinite (bool); true everywhere for integer tensors.
    """
def isinf(input: Tensor) -> Tensor:
    """
    Where input is +inf or -inf (bool).
    """
def isnan(input: Tensor) -> Tensor:
    """
    Where input is NaN (bool); false everywhere for integer tensors.
    """
def istft(input: Tensor, n_fft: typing.SupportsInt | typing.SupportsIndex, hop_length: typing.SupportsInt | typing.SupportsIndex | None = None, win_length: typing.SupportsInt | typing.SupportsIndex | None = None, window: Tensor | None = None, center: bool = True, normalized: bool = False, onesided: bool | None = None, length: typing.SupportsInt | typing.SupportsIndex | None = None, return_complex: bool = False) -> Tensor:
    """
    The inverse of stft: each frame transformed back, windowed and overlap-added, divided by the overlap-added squared window (which must not vanish: the NOLA condition); length trims or zero-pads the result.
    """
def kron(input: Tensor, other: Tensor) -> Tensor:
    """
    The Kronecker product; the dims of the one with fewer are counted from the right.
    """
def kthvalue(input: Tensor, k: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = -1, keepdim: bool = False) -> typing.Any:
    """
    The k-th smallest entry (k from 1) along dim and its index.
    """
def layer_norm(input: Tensor, normalized_shape: typing.Any, weight: Tensor | None = None, bias: Tensor | None = None, eps: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> Tensor:
    """
    Normalizes over the last dims (normalized_shape), then scales by weight and adds bias.
    """
@typing.overload
def le(input: Tensor, other: Tensor) -> Tensor:
    """
    input <= other elementwise, as a bool tensor.
    """
@typing.overload
def le(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def leaky_relu(input: Tensor, negative_slope: typing.SupportsFloat | typing.SupportsIndex = 0.01) -> Tensor:
    """
    input where input > 0, else negative_slope * input. Floating tensors only.
    """
@typing.overload
def lerp(input: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    """
    input + weight * (end - input) where |weight| < 0.5, else end - (end - input) * (1 - weight): PyTorch's two forms, each exact at its own end. All three broadcast; a bool weight counts as 0 and 1. Gradients grad (1 - weight), grad weight and grad (end - input).
    """
@typing.overload
def lerp(input: Tensor, end: Tensor, weight: bool | int | float) -> Tensor:
    """
    lerp with a number weight (gradients grad (1 - weight) and grad weight).
    """
@typing.overload
def less(input: Tensor, other: Tensor) -> Tensor:
    """
    input < other elementwise, as a bool tensor.
    """
@typing.overload
def less(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def less_equal(input: Tensor, other: Tensor) -> Tensor:
    """
    input <= other elementwise, as a bool tensor.
    """
@typing.overload
def less_equal(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def lgamma(input: Tensor) -> Tensor:
    """
    log |Gamma(input)|: +inf at 0 and the negative integers. Integer tensors compute in float32. Gradient: digamma(input).
    """
def linspace(start: typing.SupportsFloat | typing.SupportsIndex, end: typing.SupportsFloat | typing.SupportsIndex, steps: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    ...
def log(input: Tensor) -> Tensor:
    """
    Natural logarithm: log(0) = -inf, log(x < 0) = nan.
    """
def log10(input: Tensor) -> Tensor:
    """
    Base-10 logarithm. Integer tensors compute in float32.
    """
def log1p(input: Tensor) -> Tensor:
    """
    log(1 + input), accurate for small input. Integer tensors compute in float32.
    """
def log2(input: Tensor) -> Tensor:
    """
    Base-2 logarithm. Integer tensors compute in float32.
    """
def log_softmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
    """
    input - logsumexp(input, dim): the log of softmax without its underflow, in dtype when given (input cast first).
    """
def logcumsumexp(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    log(cumsum(exp(input))) along dim without overflow; floating tensors only.
    """
def logdet(input: Tensor) -> Tensor:
    """
    log det(input): NaN where the determinant is negative, -inf where it is 0.
    """
def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """
    Nonzero-ness of input and other combined (any dtypes, broadcast).
    """
def logical_not(input: Tensor) -> Tensor:
    """
    True where input is zero (any dtype; NaN is nonzero).
    """
def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """
    Nonzero-ness of input or other (any dtypes, broadcast).
    """
def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """
    (input != 0) xor (other != 0), broadcast; bool.
    """
def logit(input: Tensor, eps: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    log(p / (1 - p)), p = input clamped to [eps, 1 - eps] when eps is given. PyTorch's gradient grad / (x (1 - x)): grad * inf at 0 and 1, NaN outside [0, 1] without eps, 0 outside [eps, 1 - eps] with it.
    """
def logspace(start: typing.SupportsFloat | typing.SupportsIndex, end: typing.SupportsFloat | typing.SupportsIndex, steps: typing.SupportsInt | typing.SupportsIndex, base: typing.SupportsFloat | typing.SupportsIndex = 10.0, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    base ** linspace(start, end, steps): logspace(0, 2, 3) is [1, 10, 100].
    """
def logsumexp(input: Tensor, dim: typing.Any, keepdim: bool = False) -> Tensor:
    """
    log(sum(exp(input))) over dim, as m + log(sum(exp(input - m))) with m the max, so it neither overflows nor underflows. Integer inputs give float32.
    """
@typing.overload
def lstm(input: Tensor, hx: collections.abc.Sequence[Tensor], params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """
    (output, h_n, c_n) of a stack of LSTM layers (gates i, f, g, o) from hx = [h_0, c_0]; one GEMM for the input projection of the whole sequence, then one GEMM and one fused cell step per time step.
    """
@typing.overload
def lstm(data: Tensor, batch_sizes: Tensor, hx: collections.abc.Sequence[Tensor], params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor, Tensor]:
    """
    lstm over a packed batch (see rnn_tanh.data): (output data, h_n, c_n).
    """
def lstm_cell(input: Tensor, hx: collections.abc.Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """
    One LSTM step: (h, c) from input [B, input_size] and hx = [h, c], each [B, hidden].
    """
@typing.overload
def lt(input: Tensor, other: Tensor) -> Tensor:
    """
    input < other elementwise, as a bool tensor.
    """
@typing.overload
def lt(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def manual_seed(seed: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Seeds the default generator.
    """
@typing.overload
def masked_fill(input: Tensor, mask: Tensor, value: bool | int | float) -> Tensor:
    """
    input with value where the bool mask holds (broadcast); the gradient flows where it does not.
    """
@typing.overload
def masked_fill(input: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    """
    masked_fill with a 0-d tensor's value.
    """
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """
    A copy of input (broadcast with the bool mask) whose elements where mask holds are source's first ones, in row-major order; source has input's dtype and at least as many elements as mask has true.
    """
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """
    The entries of input where the bool mask (broadcast with input) is true, as a 1-D copy.
    """
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """
    Matrix product with PyTorch's rules: 1-D operands get a dim added (and removed again), N-D operands multiply their last two dims batched over the broadcast of the rest.
    """
def matrix_exp(input: Tensor) -> Tensor:
    """
    linalg.matrix_exp.
    """
def matrix_power(input: Tensor, n: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    linalg.matrix_power.
    """
@typing.overload
def max(input: Tensor) -> Tensor:
    """
    The largest element as a 0-d tensor; empty tensors refused.
    """
@typing.overload
def max(input: Tensor, other: Tensor) -> Tensor:
    """
    maximum(input, other).
    """
@typing.overload
def max(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
    """
    (values, int64 indices) of the maximum along dim; the first maximum wins ties and gets the gradient.
    """
def max_pool2d(input: Tensor, kernel_size: typing.Any, stride: typing.Any = None, padding: typing.Any = 0, dilation: typing.Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> typing.Any:
    """
    Window maxima over the last two dims (and their flat positions with return_indices=True).
    """
def maximum(input: Tensor, other: Tensor) -> Tensor:
    """
    Elementwise max (NaN wins); where equal, the gradient is split evenly.
    """
def mean(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    Mean over dim (every dim when empty), of a floating tensor (or of input in dtype).
    """
@typing.overload
def median(input: Tensor) -> Tensor:
    """
    The lower median of every entry (a 0-d tensor), NaN where there is a NaN (an empty tensor's: NaN, an integer dtype's lowest value). The gradient is split evenly among the entries equal to it.
    """
@typing.overload
def median(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
    """
    (values, indices) of the lower median along dim; a slice with a NaN gives NaN and the index of its first NaN. The gradient goes to the median's entry.
    """
def meshgrid(*args, indexing: str = 'ij') -> tuple:
    """
    Coordinate grids of 0-D or 1-D tensors, as views: with "ij" output k varies along dim k, "xy" swaps the first two dims (NumPy's default).
    """
@typing.overload
def min(input: Tensor) -> Tensor:
    """
    The smallest element as a 0-d tensor; empty tensors refused.
    """
@typing.overload
def min(input: Tensor, other: Tensor) -> Tensor:
    """
    minimum(input, other).
    """
@typing.overload
def min(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False) -> typing.Any:
    """
    (values, int64 indices) of the minimum along dim; see max.dim.
    """
def minimum(input: Tensor, other: Tensor) -> Tensor:
    """
    Elementwise min (NaN wins); where equal, the gradient is split evenly.
    """
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """
    Product of two matrices (2-D tensors).
    """
def mode(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = -1, keepdim: bool = False) -> typing.Any:
    """
    (values, int64 indices): the most frequent value along dim (the smallest of equally frequent ones) and the index of its last occurrence, as PyTorch's CPU kernel; the gradient goes to that entry.
    """
def moveaxis(input: Tensor, source: typing.Any, destination: typing.Any) -> Tensor:
    """
    A view with dims source moved to positions destination, the other dims keeping their order.
    """
def movedim(input: Tensor, source: typing.Any, destination: typing.Any) -> Tensor:
    """
    A view with dims source moved to positions destination, the other dims keeping their order.
    """
def msort(input: Tensor) -> Tensor:
    """
    input sorted along its first dim (sort(input, 0).values).
    """
@typing.overload
def mul(input: Tensor, other: Tensor) -> Tensor:
    """
    input * other, broadcast, in the promoted dtype.
    """
@typing.overload
def mul(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def multinomial(input: Tensor, num_samples: typing.SupportsInt | typing.SupportsIndex, replacement: bool = False, *, generator: Generator | None = None) -> Tensor:
    """
    num_samples category indices drawn from each row of weights input (1-D or 2-D, non-negative, not necessarily normalised), without replacement unless replacement=True.
    """
@typing.overload
def multiply(input: Tensor, other: Tensor) -> Tensor:
    """
    input * other, broadcast, in the promoted dtype.
    """
@typing.overload
def multiply(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """
    [n, m] @ [m] -> [n].
    """
def mvlgamma(input: Tensor, p: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    log of the multivariate gamma function of dimension p, p (p - 1) / 4 log(pi) + the sum over j < p of lgamma(input - j / 2) (ember.special.multigammaln). Integer tensors compute in float32.
    """
def nan_to_num(input: Tensor, nan: typing.SupportsFloat | typing.SupportsIndex | None = None, posinf: typing.SupportsFloat | typing.SupportsIndex | None = None, neginf: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    NaN, +inf and -inf replaced by nan (0 when None), posinf and neginf (the dtype's largest and lowest finite values when None); integer and bool tensors come back as a copy. Gradient grad where input is finite, else 0 (NaN where grad is).
    """
def nanmean(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    The mean of the entries that are not NaN (floating tensors only); NaN where every entry is.
    """
def nansum(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    sum with NaN counted as 0. Gradient grad where input is not NaN, else 0 (NaN where grad is), as PyTorch's.
    """
def narrow(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, start: typing.SupportsInt | typing.SupportsIndex, length: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    Entries [start, start + length) of dim, as a view.
    """
@typing.overload
def ne(input: Tensor, other: Tensor) -> Tensor:
    """
    input != other elementwise, as a bool tensor.
    """
@typing.overload
def ne(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def neg(input: Tensor) -> Tensor:
    """
    -input; bool tensors are refused (use logical_not).
    """
def negative(input: Tensor) -> Tensor:
    """
    -input; bool tensors are refused (use logical_not).
    """
def nonzero(input: Tensor, *, as_tuple: bool = False) -> typing.Any:
    """
    Coordinates of the nonzero elements, one row each in row-major order: [n, input.dim()]; with as_tuple=True one 1-D tensor per dim.
    """
@typing.overload
def norm(input: Tensor, p: typing.SupportsFloat | typing.SupportsIndex = 2, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    Vector p-norm over dim (every dim when empty): p = 2, 1, inf, -inf (min |x|), 0 (count of nonzeros) or any p. Floating. Where the norm is 0 the gradient is 0.
    """
@typing.overload
def norm(input: Tensor, p: str, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    torch.norm's matrix orders: "fro", the 2-norm of the entries over dim (at most two dims; every entry when None), and "nuc", the nuclear norm of the matrices over dim (the last two when None). dtype casts input first.
    """
@typing.overload
def not_equal(input: Tensor, other: Tensor) -> Tensor:
    """
    input != other elementwise, as a bool tensor.
    """
@typing.overload
def not_equal(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def one_hot(input: Tensor, num_classes: typing.SupportsInt | typing.SupportsIndex = -1) -> Tensor:
    """
    int64 [..., num_classes] with a 1 at each entry's class (num_classes -1: max + 1); classes must be in [0, num_classes).
    """
def ones(*args, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    ones(2, 3) or ones((2, 3)).
    """
def ones_like(input: Tensor, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """
    The outer product of two 1-D tensors: out[i][j] = input[i] * vec2[j].
    """
def pad(input: Tensor, pad: typing.Any, mode: str = 'constant', value: bool | int | float | None = None) -> Tensor:
    """
    Pads the last len(pad) / 2 dims, pad = (left, right, top, bottom, ...) from the last dim backwards (negative amounts crop): mode "constant" (with value, default 0), "reflect", "replicate" or "circular".
    """
def permute(input: Tensor, dims: typing.Any) -> Tensor:
    """
    A view with the dims reordered: permute(0, 2, 1).
    """
def pinverse(input: Tensor, rcond: typing.SupportsFloat | typing.SupportsIndex = 1e-15) -> Tensor:
    """
    linalg.pinv with rtol = rcond.
    """
def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """
    abs (cos(angle) + i sin(angle)), broadcast: float32 parts make complex64, float64 parts complex128.
    """
def polygamma(n: typing.SupportsInt | typing.SupportsIndex, self: Tensor) -> Tensor:
    """
    The n-th derivative of digamma (n >= 0; n = 0 is digamma). Integer tensors compute in float32. Gradient: polygamma(n + 1, self).
    """
@typing.overload
def pow(input: Tensor, exponent: Tensor) -> Tensor:
    """
    input ** exponent elementwise, broadcast; integer powers of integers stay integer.
    """
@typing.overload
def pow(input: Tensor, exponent: bool | int | float) -> Tensor:
    """
    input ** exponent. Integer tensors with an integer exponent stay integer (negative exponents are refused there); a floating exponent gives float32.
    """
@typing.overload
def pow(self: bool | int | float, exponent: Tensor) -> Tensor:
    """
    self ** exponent for a Python number self.
    """
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """
    input where input > 0, else weight * input, with weight of one element or one per channel (dim 1).
    """
@typing.overload
def prod(input: Tensor, *, dtype: _dtype | None = None) -> Tensor:
    """
    The product of every entry (1 for an empty tensor); integer and bool tensors multiply in int64 (wrapping), as PyTorch, unless dtype says otherwise. The gradient is exact where entries are 0.
    """
@typing.overload
def prod(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    ...
def promote_types(type1: _dtype, type2: _dtype) -> _dtype:
    """
    The smallest dtype both type1 and type2 convert to without losing their category.
    """
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """
    A copy of input with its elements at the flat row-major positions index (negative ones count from the end) set to source's, in order, or with accumulate added to (repeated positions add up).
    """
def qr(input: Tensor, some: bool = True) -> typing.Any:
    """
    linalg.qr with mode 'reduced' (some) or 'complete'.
    """
@typing.overload
def quantile(input: Tensor, q: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, interpolation: str = 'linear') -> Tensor:
    """
    The q-th quantiles (q 0-d or 1-D, in [0, 1]) of the flattened input or along dim, between the two nearest sorted values as interpolation says (linear, lower, higher, nearest, midpoint); NaN where a slice holds NaN. A 1-D q adds a leading dim. Linear interpolation is lerp, so q gets a gradient too.
    """
@typing.overload
def quantile(input: Tensor, q: typing.SupportsFloat | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex | None = None, keepdim: bool = False, *, interpolation: str = 'linear') -> Tensor:
    ...
def rad2deg(input: Tensor) -> Tensor:
    """
    input * 180 / pi; integer and bool tensors compute in the default float dtype.
    """
def rand(*args, generator: Generator | None = None, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    Uniform in [0, 1): rand(2, 3, generator=g).
    """
def rand_like(input: Tensor, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
@typing.overload
def randint(low: typing.SupportsInt | typing.SupportsIndex, high: typing.SupportsInt | typing.SupportsIndex, size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, generator: Generator | None = None, dtype: _dtype | None = None, device: _device | None = None) -> Tensor:
    """
    Uniform integers in [low, high): randint(0, 10, (3,)).
    """
@typing.overload
def randint(high: typing.SupportsInt | typing.SupportsIndex, size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, generator: Generator | None = None, dtype: _dtype | None = None, device: _device | None = None) -> Tensor:
    ...
def randint_like(input: Tensor, low: typing.SupportsInt | typing.SupportsIndex = 0, high: typing.SupportsInt | typing.SupportsIndex | None = None, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    randint(low, high) of input's shape and dtype (randint_like(t, high) with one bound).
    """
def randn(*args, generator: Generator | None = None, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    Standard normal: randn(2, 3).
    """
def randn_like(input: Tensor, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
def randperm(n: typing.SupportsInt | typing.SupportsIndex, *, generator: Generator | None = None, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    A random permutation of range(n) (int64).
    """
def real(input: Tensor) -> Tensor:
    """
    The real parts of a complex tensor (a view); a real tensor itself.
    """
def reciprocal(input: Tensor) -> Tensor:
    """
    1 / input. Integer tensors compute in float32.
    """
def relu(input: Tensor) -> Tensor:
    """
    max(input, 0); NaN stays NaN; integer dtypes kept, bool refused.
    """
@typing.overload
def remainder(input: Tensor, other: Tensor) -> Tensor:
    """
    input - floor(input / other) * other, broadcast: the sign of other, as Python's % (and PyTorch's); integer division by zero is an error. Gradient: 1 and -floor(input / other).
    """
@typing.overload
def remainder(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def remainder(self: bool | int | float, other: Tensor) -> Tensor:
    """
    remainder for a Python number self (other % ... in Python).
    """
def repeat(input: Tensor, repeats: typing.Any) -> Tensor:
    """
    input tiled repeats[d] times along each dim (leading repeats add dims), as a copy.
    """
@typing.overload
def repeat_interleave(input: Tensor, repeats: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex | None = None, *, output_size: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Each entry along dim repeated `repeats` times in place (of the flattened tensor without dim).
    """
@typing.overload
def repeat_interleave(input: Tensor, repeats: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None, *, output_size: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Entry i along dim (of the flattened input without dim) repeated repeats[i] times; a one-entry repeats counts for all. output_size, when given, must be the result's length. The gradient sums the copies.
    """
@typing.overload
def repeat_interleave(repeats: Tensor, *, output_size: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Each index i of the 1-D counts repeated repeats[i] times (int64): [0, 1, 1] for [1, 2].
    """
def reshape(input: Tensor, shape: typing.Any) -> Tensor:
    """
    reshape(2, -1) or reshape((2, -1)): a view when the layout allows, else a copy.
    """
@typing.overload
def result_type(tensor1: ..., tensor2: ...) -> _dtype:
    """
    The dtype an arithmetic op of the two operands computes in.
    """
@typing.overload
def result_type(tensor1: ..., tensor2: bool | int | float) -> _dtype:
    ...
@typing.overload
def result_type(tensor1: bool | int | float, tensor2: ...) -> _dtype:
    ...
@typing.overload
def rnn_relu(input: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """
    rnn_tanh with relu in place of tanh.
    """
@typing.overload
def rnn_relu(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor]:
    """
    rnn_relu over a packed batch (see rnn_tanh.data).
    """
def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """
    rnn_tanh_cell with relu in place of tanh.
    """
@typing.overload
def rnn_tanh(input: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
    """
    (output, h_n) of a stack of Elman RNN layers, h = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh), over input [T, B, input_size] ([B, T, input_size] with batch_first); dropout between layers in train.
    """
@typing.overload
def rnn_tanh(data: Tensor, batch_sizes: Tensor, hx: Tensor, params: collections.abc.Sequence[Tensor], has_biases: bool, num_layers: typing.SupportsInt | typing.SupportsIndex, dropout: typing.SupportsFloat | typing.SupportsIndex, train: bool, bidirectional: bool) -> tuple[Tensor, Tensor]:
    """
    rnn_tanh over a packed batch: (output data [N, directions * hidden], h_n), each sequence run for its own length only.
    """
def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """
    One Elman RNN step: tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh), input [B, input_size], hx [B, hidden].
    """
def roll(input: Tensor, shifts: typing.Any, dims: typing.Any = ()) -> Tensor:
    """
    Entries shifted along dims by shifts (wrapping around); with no dims, the flattened tensor is rolled and the shape restored.
    """
@typing.overload
def round(input: Tensor) -> Tensor:
    """
    The nearest integer, halves to even (as PyTorch and NumPy); integer tensors as they are. Gradient zero.
    """
@typing.overload
def round(input: Tensor, *, decimals: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    round(input * 10^decimals) / 10^decimals (decimals < 0: round(input / 10^-decimals) * 10^-decimals), in input's dtype as PyTorch's (0.05 rounds to 0.0 in float32). Floating tensors, unless decimals is 0. Gradient zero.
    """
def rsqrt(input: Tensor) -> Tensor:
    """
    1 / sqrt(input).
    """
def scalar_tensor(value: bool | int | float, *, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    A 0-d tensor (float32 unless dtype= says otherwise).
    """
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: typing.SupportsFloat | typing.SupportsIndex = 0.0, is_causal: bool = False, *, scale: typing.SupportsFloat | typing.SupportsIndex | None = None, enable_gqa: bool = False) -> Tensor:
    """
    softmax(query key^T * scale + mask) value over the last two dims, batched over the broadcast of the others: attn_mask is bool (True = takes part) or floating (added), is_causal hides later keys, scale defaults to 1 / sqrt(E), enable_gqa shares key/value heads (dim -3) among query heads; a query row with every key masked out gives zeros. Fused on CPU unless dropout_p > 0.
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
    """
    A copy of input with src's elements written where index names along dim: out[index[i][j]][j] = src[i][j] (dim 0). src has input's dtype; index is no larger than src, nor than input outside dim.
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float) -> Tensor:
    """
    scatter with every written element value (cast to input's dtype: 2.7 is 2 in an integer tensor).
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, *, reduce: str) -> Tensor:
    """
    scatter that combines instead of writing: reduce "add" is scatter_add, "multiply" multiplies src's elements into input's (scatter_reduce with "sum" and "prod" cover this and more).
    """
@typing.overload
def scatter(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, value: bool | int | float, *, reduce: str) -> Tensor:
    """
    scatter with reduce, every element sent being value.
    """
def scatter_add(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor) -> Tensor:
    """
    A copy of input with src added at the positions index names along dim.
    """
def scatter_reduce(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    """
    A copy of input with src's elements reduced into the positions index names along dim: reduce is "sum", "prod", "mean" (floored for integers), "amax" or "amin"; include_self=False leaves input's own value out where anything is sent. The gradient is PyTorch's: prod's divides out the element (the exclusive product where it is the one 0); amax's and amin's share grad among the elements equal to the result.
    """
@typing.overload
def searchsorted(sorted_sequence: Tensor, input: Tensor, *, out_int32: bool = False, right: bool = False, side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """
    Where each value would be inserted into the sorted last dim of sorted_sequence (1-D, or with input's leading dims): the leftmost place, or the rightmost with right (side="right"); sorter gives the order of an unsorted sequence. PyTorch's binary search: NaN values land after every boundary.
    """
@typing.overload
def searchsorted(sorted_sequence: Tensor, input: bool | int | float, *, out_int32: bool = False, right: bool = False, side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    ...
def select(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    Entry index of dim, that dim removed, as a view.
    """
def set_autocast_cache_enabled(enabled: bool) -> None:
    ...
def set_autocast_dtype(device_type: str, dtype: _dtype) -> None:
    ...
def set_autocast_enabled(device_type: typing.Any, enabled: typing.Any = None) -> None:
    ...
def set_default_device(device: typing.Any) -> None:
    """
    Makes `device` (a device, 'cpu', 'cuda', 'cuda:1', an index, or None = cpu) the default of the factories and of the layers built from now on (torch.set_default_device).
    """
def set_default_dtype(d: _dtype) -> None:
    """
    The dtype factories create and Python floats take (float32 by default; floating dtypes only).
    """
def set_num_threads(threads: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Sets the number of threads Ember's CPU ops use (at least 1).
    """
def set_printoptions(precision: typing.SupportsInt | typing.SupportsIndex | None = None, threshold: typing.SupportsFloat | typing.SupportsIndex | None = None, edgeitems: typing.SupportsInt | typing.SupportsIndex | None = None, linewidth: typing.SupportsInt | typing.SupportsIndex | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """
    How tensors print from now on (torch.set_printoptions): `profile` ("default", "short", "full")
    sets the first four options, then each option given overrides it. sci_mode=None (also when left out)
    lets each tensor choose its notation; True or False forces it.
    """
def sigmoid(input: Tensor) -> Tensor:
    """
    1 / (1 + e^-input); integer tensors compute in float32.
    """
def sign(input: Tensor) -> Tensor:
    """
    -1, 0 or 1 in input's dtype (sign(nan) = 0, as in PyTorch); its gradient is zero.
    """
def signbit(input: Tensor) -> Tensor:
    """
    Whether the sign bit is set (true for -0.0 and negative numbers; integers: input < 0); bool.
    """
def sin(input: Tensor) -> Tensor:
    """
    Sine (radians). Integer tensors compute in float32.
    """
def sinc(input: Tensor) -> Tensor:
    """
    sin(pi input) / (pi input), 1 at 0; integers in the default float dtype. PyTorch's gradient (pi x cos(pi x) - sin(pi x)) / (pi x^2), computed in float64 for float32 and narrower, 0 where pi x^2 is 0.
    """
def sinh(input: Tensor) -> Tensor:
    """
    Hyperbolic sine. Integer tensors compute in float32.
    """
def slogdet(input: Tensor) -> typing.Any:
    """
    linalg.slogdet.
    """
def softmax(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, *, dtype: _dtype | None = None) -> Tensor:
    """
    exp(input) / sum(exp(input)) along dim, computed stably, in dtype when given (input cast first). Floating tensors only.
    """
def sort(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = -1, descending: bool = False, *, stable: bool = False) -> typing.Any:
    """
    (values, indices) of input sorted along dim (see argsort); the gradient flows back to where each value came from.
    """
@typing.overload
def split(input: Tensor, split_size_or_sections: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
    """
    Views of split_size entries along dim (the last may be smaller), or of the given sizes.
    """
@typing.overload
def split(input: Tensor, split_size_or_sections: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
    ...
def split_with_sizes(input: Tensor, split_sizes: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    Views with the given sizes along dim; they must add up to input.size(dim).
    """
def sqrt(input: Tensor) -> Tensor:
    """
    Square root (nan below 0).
    """
def square(input: Tensor) -> Tensor:
    """
    input * input, in input's dtype (bool gives int64, as PyTorch).
    """
@typing.overload
def squeeze(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    Size-1 dims removed (only dim, when given and of size 1).
    """
@typing.overload
def squeeze(input: Tensor, dim: typing.Any) -> Tensor:
    """
    Those of the dims `dim` that have size 1 removed (a dim named twice is refused); Python's squeeze with a tuple.
    """
def stack(tensors: collections.abc.Sequence[Tensor], dim: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Same-shaped tensors joined along a new dim.
    """
def std(input: Tensor, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    sqrt(var(input, dim, ...)).
    """
def std_mean(input: Tensor, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> tuple[Tensor, Tensor]:
    """
    (std, mean) over dim in one call, past a sum's overflow as PyTorch's Welford pass.
    """
def stft(input: Tensor, n_fft: typing.SupportsInt | typing.SupportsIndex, hop_length: typing.SupportsInt | typing.SupportsIndex | None = None, win_length: typing.SupportsInt | typing.SupportsIndex | None = None, window: Tensor | None = None, center: bool = True, pad_mode: str = 'reflect', normalized: bool = False, onesided: bool | None = None, return_complex: bool | None = None) -> Tensor:
    """
    The short-time Fourier transform of a signal [L] or batch [B, L] (ops/spectral.cpp): frames of n_fft samples every hop_length (n_fft/4), windowed (rectangular by default), as [B,] freq, frames; center pads n_fft/2 each side.
    """
@typing.overload
def sub(input: Tensor, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input - alpha * other, broadcast, in the promoted dtype.
    """
@typing.overload
def sub(input: Tensor, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input - alpha * other for a Python number other.
    """
@typing.overload
def subtract(input: Tensor, other: Tensor, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input - alpha * other, broadcast, in the promoted dtype.
    """
@typing.overload
def subtract(input: Tensor, other: bool | int | float, *, alpha: bool | int | float = 1) -> Tensor:
    """
    input - alpha * other for a Python number other.
    """
def sum(input: Tensor, dim: typing.Any = None, keepdim: bool = False, *, dtype: _dtype | None = None) -> Tensor:
    """
    Sum over dim (every dim when empty), computed in dtype when given. Integer and bool sums accumulate in int64.
    """
def sum_to_size(input: Tensor, size: typing.Any) -> Tensor:
    """
    input summed to `size`, which input must broadcast from (the dims that are 1 there, and leading ones).
    """
def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> typing.Any:
    """
    (U, S, V) with input = U diag(S) V^T (V, not linalg.svd's Vh); some=False gives the full U and V. Without compute_uv, U and V are zero-filled m x m and n x n matrices, as PyTorch's.
    """
def swapaxes(input: Tensor, axis0: typing.SupportsInt | typing.SupportsIndex, axis1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    transpose(axis0, axis1).
    """
def t(input: Tensor) -> Tensor:
    """
    Transpose of a tensor with at most 2 dims (the tensor itself below 2).
    """
def take(input: Tensor, index: Tensor) -> Tensor:
    """
    input's entries at the flat row-major positions index, in index's shape; a negative index counts from the end. An index outside [-numel, numel) is an IndexError naming it.
    """
def take_along_dim(input: Tensor, indices: Tensor, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    gather along dim, input and indices broadcast against each other outside it (of the flattened input, at the flattened indices, when dim is None).
    """
def tan(input: Tensor) -> Tensor:
    """
    Tangent (radians). Integer tensors compute in float32.
    """
def tanh(input: Tensor) -> Tensor:
    """
    Hyperbolic tangent; integer tensors compute in float32.
    """
@typing.overload
def tensor_split(input: Tensor, tensor_indices_or_sections: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    Views of input along dim: `sections` parts of nearly equal size (the first size % sections one longer), or the parts between the given indices (each clamped to the size), or as a tensor of either (0-d: sections, 1-D int64: indices).
    """
@typing.overload
def tensor_split(input: Tensor, sections: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    ...
@typing.overload
def tensor_split(input: Tensor, indices: typing.Any, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    ...
def tile(input: Tensor, dims: typing.Any) -> Tensor:
    """
    input repeated dims[d] times along each dim; fewer dims than input.dim() count from the right (PyTorch's rule), more add leading dims.
    """
def topk(input: Tensor, k: typing.SupportsInt | typing.SupportsIndex, dim: typing.SupportsInt | typing.SupportsIndex = -1, largest: bool = True, sorted: bool = True) -> typing.Any:
    """
    The k largest (or smallest) entries along dim and their indices, in sorted order.
    """
def trace(input: Tensor) -> Tensor:
    """
    The sum of a matrix's diagonal.
    """
def transpose(input: Tensor, dim0: typing.SupportsInt | typing.SupportsIndex, dim1: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A view with dim0 and dim1 swapped.
    """
def tril(input: Tensor, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The lower triangle of the last two dims (j - i <= diagonal), zeros above.
    """
def triu(input: Tensor, diagonal: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    The upper triangle of the last two dims (j - i >= diagonal), zeros below.
    """
@typing.overload
def true_divide(input: Tensor, other: Tensor) -> Tensor:
    """
    True division, broadcast: integer inputs give float32.
    """
@typing.overload
def true_divide(input: Tensor, other: bool | int | float) -> Tensor:
    ...
def trunc(input: Tensor) -> Tensor:
    """
    input rounded toward zero; integer tensors as they are. Gradient zero.
    """
def unbind(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple[Tensor, ...]:
    """
    Every entry of dim, as views (select).
    """
def unflatten(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex, sizes: typing.Any) -> Tensor:
    """
    input with dim split into sizes; one size may be -1 (inferred from the others, while that is determined: not where another size is 0).
    """
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: typing.SupportsInt | typing.SupportsIndex | None = None) -> typing.Any:
    """
    The distinct values of input (ascending), with their inverse indices and counts when asked.
    """
def unsqueeze(input: Tensor, dim: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    A size-1 dim inserted at dim.
    """
def upsample_bicubic2d(input: Tensor, output_size: typing.Any, align_corners: bool, scales_h: typing.SupportsFloat | typing.SupportsIndex | None = None, scales_w: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    Bicubic interpolation (Keys, a = -0.75, edges replicated) of [N, C, H, W] (or [C, H, W]) to output_size, with upsample_bilinear2d's source positions.
    """
def upsample_bilinear2d(input: Tensor, output_size: typing.Any, align_corners: bool, scales_h: typing.SupportsFloat | typing.SupportsIndex | None = None, scales_w: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    Bilinear interpolation of [N, C, H, W] (or [C, H, W]) to output_size, with PyTorch's source positions (corner pixels aligned, or pixel centres from scales or the size ratio).
    """
def upsample_linear1d(input: Tensor, output_size: typing.SupportsInt | typing.SupportsIndex, align_corners: bool, scales: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    Linear interpolation of [N, C, L] (or [C, L]) to output_size, with PyTorch's source positions (corner pixels aligned, or pixel centres from scales or the size ratio).
    """
def upsample_nearest1d(input: Tensor, output_size: typing.SupportsInt | typing.SupportsIndex, scales: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    Nearest-neighbour resampling of [N, C, L] (or [C, L]) to output_size: source index floor(i * scale), scale = 1 / scales or L / output_size, as PyTorch.
    """
def upsample_nearest2d(input: Tensor, output_size: typing.Any, scales_h: typing.SupportsFloat | typing.SupportsIndex | None = None, scales_w: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    Nearest-neighbour resampling of [N, C, H, W] (or [C, H, W]) to output_size: source index floor(i * scale), scale = 1 / scales or in / out per dim, as PyTorch.
    """
def upsample_nearest_exact1d(input: Tensor, output_size: typing.SupportsInt | typing.SupportsIndex, scales: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    upsample_nearest1d with source index floor((i + 0.5) * scale) (PyTorch's 'nearest-exact').
    """
def upsample_nearest_exact2d(input: Tensor, output_size: typing.Any, scales_h: typing.SupportsFloat | typing.SupportsIndex | None = None, scales_w: typing.SupportsFloat | typing.SupportsIndex | None = None) -> Tensor:
    """
    upsample_nearest2d with source index floor((i + 0.5) * scale) (PyTorch's 'nearest-exact').
    """
def var(input: Tensor, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> Tensor:
    """
    sum((x - mean)^2) / (N - correction) over dim (correction 1, or unbiased=True).
    """
def var_mean(input: Tensor, dim: typing.Any = None, unbiased: bool | None = None, keepdim: bool = False, *, correction: typing.SupportsInt | typing.SupportsIndex | None = None) -> tuple[Tensor, Tensor]:
    """
    (var, mean) over dim in one call, past a sum's overflow as PyTorch's Welford pass.
    """
def view_as_complex(input: Tensor) -> Tensor:
    """
    A float32/float64 tensor whose last dim is 2 with stride 1 seen as complex64/complex128: a view.
    """
def view_as_real(input: Tensor) -> Tensor:
    """
    A complex tensor's bytes as its real dtype with a trailing dim of 2 (real, imaginary): a view.
    """
@typing.overload
def where(condition: Tensor, input: typing.Any, other: typing.Any) -> Tensor:
    """
    input where condition holds, else other (either may be a Python number).
    """
@typing.overload
def where(condition: Tensor) -> tuple:
    """
    where(condition): nonzero(condition, as_tuple=True).
    """
@typing.overload
def xlogy(input: Tensor, other: Tensor) -> Tensor:
    """
    input * log(other), 0 where input is 0 unless other is NaN (0 log 0 = 0), broadcast, in the dtype the two promote to (integers: the default float dtype). PyTorch's gradients: xlogy(grad, other) to input (0 where input is 0 and other <= 0) and grad input / other to other.
    """
@typing.overload
def xlogy(input: Tensor, other: bool | int | float) -> Tensor:
    ...
@typing.overload
def xlogy(self: bool | int | float, other: Tensor) -> Tensor:
    ...
def zeros(*args, dtype: _dtype | None = None, device: _device | None = None, requires_grad: bool = False) -> Tensor:
    """
    zeros(2, 3) or zeros((2, 3)): float32 unless dtype= says otherwise.
    """
def zeros_like(input: Tensor, *, dtype: _dtype | None = None, requires_grad: bool = False) -> Tensor:
    ...
bfloat16: dtype
bool: dtype
cdouble: dtype
cfloat: dtype
complex128: dtype
complex64: dtype
double: dtype
float: dtype
float16: dtype
float32: dtype
float64: dtype
half: dtype
int: dtype
int16: dtype
int32: dtype
int64: dtype
int8: dtype
long: dtype
short: dtype
uint8: dtype
