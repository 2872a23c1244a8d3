"""ember.optim: optimizers with PyTorch's constructor signatures (torch.optim).

Ember keys parameters and optimizer state by NAME, never by position, so a checkpoint lands on the
right parameter after the model gained, lost or reordered parameters. So an optimizer takes named
parameters:

    opt = ember.optim.Adam(model.named_parameters(), lr=1e-3)
    opt = ember.optim.SGD([{"params": model.body.named_parameters(prefix="body"), "lr": 0.1},
                           {"params": [("head.w", w)]}], lr=0.01, momentum=0.9)

`params` is an iterable of (name, tensor) pairs (what Module.named_parameters() yields, or a
dict name -> tensor), or a list of param-group dicts whose "params" is such an iterable. Plain
tensors work too, as in PyTorch: those of Module.parameters() carry their structured names, so

    opt = ember.optim.SGD(model.parameters(), lr=0.1)        # state keyed "fc.weight", ...
    opt = ember.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)

key state by name as well. Where a name is missing (a tensor made by hand) or two tensors would
share one (groups from model.a.parameters() and model.b.parameters() both hold "weight"), every
parameter is keyed by its position instead, "#0", "#1", ... over all groups, as PyTorch keys
them; state_dict() then says "keyed_by": "position", and loading such state into an optimizer
whose parameters differ in number or shape is a ValueError, never a silent swap.

opt.param_groups is a list of dict-like views: opt.param_groups[0]["lr"] = 0.01 writes the new lr
into the optimizer. state_dict() is {"type", "param_groups": [{..., "params": [names]}], "state":
{name: {"step": ..., ...}}}, plain containers that ember.io.save writes as they are.
opt.state[p] (or opt.state["fc.weight"]) reads a parameter's state.

Every built-in optimizer also takes master_weights=True (off by default; not in PyTorch): each
float16 or bfloat16 parameter then steps through a float32 copy kept in its state as "master", with
float32 moments, and receives the copy rounded once per step, so updates smaller than half the
parameter's ulp accumulate instead of rounding away (pure-bf16 training):

    model.to(ember.bfloat16)
    opt = ember.optim.AdamW(model.parameters(), lr=1e-4, master_weights=True)

Checkpoints save "master" by name like any other state; a parameter written by anything but the
optimizer (load_state_dict of the model, an in-place edit) restarts its master from its values.

An optimizer written in Python subclasses Optimizer as in PyTorch:

    class MySGD(ember.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr))

        @ember.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.state[p]["steps"] = self.state[p].get("steps", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])

Its state is a dict per parameter keyed by the tensor itself (a tensor is one Python object), and
state_dict() keys it by parameter name like the built-in optimizers' (see Optimizer.__init__).
"""
from .._C.optim import (  # noqa: F401  (re-exported; torch's signatures: python/src/optim_api.cpp)
    ASGD,
    LBFGS,
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    NAdam,
    Optimizer,
    ParamGroup,
    RAdam,
    RMSprop,
    Rprop,
)
from . import lr_scheduler, swa_utils  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "LBFGS", "Rprop", "ASGD", "ParamGroup", "lr_scheduler", "swa_utils"]
