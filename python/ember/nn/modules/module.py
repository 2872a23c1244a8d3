"""ember.nn.Module (ember.nn.Parameter is parameter.py's).

ember.nn.Module is the C++ class ember._C.nn.Module, whose whole Python API is bound in C++
(python/src/module_protocol.cpp): attribute registration, the traversals, state_dict as an
OrderedDict, __call__ and the hooks. It has to be that one class, not a Python subclass of it,
because modules built in C++ (the built-in layers, the children a TransformerEncoderLayer makes,
what ember.io.load_module rebuilds) reach Python as instances of the C++ classes and must be
nn.Module instances with the whole API, as in PyTorch. Subclass Module as in PyTorch:

    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ember.nn.Linear(4, 2)               # registered child
            self.scale = ember.nn.Parameter(ember.ones(2))  # registered parameter
            self.register_buffer("mean", ember.zeros(2))   # registered buffer (saved, moved)

        def forward(self, x):
            return self.fc(x) * self.scale - self.mean

Registration rules (PyTorch's): assigning a Parameter registers (or replaces) a parameter, a Module
registers (or replaces) a child, a Tensor assigned to a buffer's name replaces the buffer.
Assigning a plain Tensor to any other name keeps it as an ordinary attribute, which is neither
saved by state_dict() nor moved by to(): Ember warns (UserWarning) and points to register_buffer.
A plain list or dict of modules is not registered either (use ModuleList / ModuleDict): Ember
warns there too, where PyTorch is silent.

A module written in Python and held by a C++ container (a Sequential, a ModuleList, a parent
module) is kept alive, Python attributes included, as long as the container holds it.
"""
from ... import _C
from ..._C.nn import RemovableHandle  # noqa: F401  (what register_*_hook return)

Module = _C.nn.Module
_IncompatibleKeys = _C.nn._IncompatibleKeys
