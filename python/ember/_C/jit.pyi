"""
ember.jit's C++ half: traced programs and their files
"""
from __future__ import annotations
import ember._C.nn
import typing
__all__: list[str] = ['TracedModule', 'load', 'save']
class TracedModule(ember._C.nn.Module):
    """
    A module whose forward replays a traced program (ember.jit.trace, ember.jit.load): its parameters and
    buffers keep the names of the module traced, and train()/eval() choose the program traced in that mode.
    """
    def _program(self, training: bool) -> typing.Any:
        """
        The program traced in that mode as its document (io/FORMAT.md, section 8).
        """
    def forward(self, *args) -> typing.Any:
        """
        The program of the current mode run on the inputs.
        """
    def save(self, f: typing.Any) -> None:
        """
        ember.jit.save(self, f): f a path (str or os.PathLike).
        """
    @property
    def code(self) -> str:
        """
        The current mode's program, one op per line.
        """
    @property
    def graph(self) -> str:
        """
        The same as code.
        """
def _is_tracing() -> bool:
    """
    True inside a forward being traced.
    """
def _op_names() -> list[str]:
    """
    Every op a program may name.
    """
def _trace(module: typing.Any, example_inputs: typing.Any, check: bool = True, check_tolerance: typing.SupportsFloat | typing.SupportsIndex = 1e-05) -> TracedModule:
    ...
def load(f: str) -> TracedModule:
    ...
def save(m: TracedModule, f: str) -> None:
    ...
