"""One rank of test_fsdp.py's boundary job, written as a user writes PyTorch (import ember as torch):
parameters past every boundary (a scalar, rank 5, empty, one element) in 12 units, a non-contiguous
input, 3 ranks: FSDP trains as the plain model does (clip_grad_norm_ included); an inf or NaN
gradient gives the norm torch.linalg.vector_norm gives; float16's largest value survives the gather."""
import math
import ember as torch
import ember.nn as nn
import ember.distributed as dist
from ember.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ModuleWrapPolicy

class Odd(nn.Module):
    """Parameters past the boundaries: a scalar, a rank-5 one, an empty one, one of 1 element."""
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(1.5))
        self.k5 = nn.Parameter(torch.randn(2, 1, 3, 1, 2))
        self.empty = nn.Parameter(torch.zeros(0, 4))
        self.one = nn.Parameter(torch.ones(1))
        self.fc = nn.Linear(4, 4)
    def forward(self, x):
        y = self.fc(x) * self.scale + self.one + self.k5.sum() + self.empty.sum()
        return torch.tanh(y)

def model():
    torch.manual_seed(1)
    return nn.Sequential(*[Odd() for _ in range(11)], nn.Linear(4, 3))   # 12 units: past 8

dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
ref, sharded = model(), FSDP(model(), auto_wrap_policy=ModuleWrapPolicy({Odd, nn.Linear}))
o1 = torch.optim.Adam(ref.parameters(), lr=1e-2)
o2 = torch.optim.Adam(sharded.parameters(), lr=1e-2)
x = torch.randn(12, 4)[:, [3, 1, 2, 0]]          # non-contiguous input
y = torch.randint(0, 3, (12,))
for step in range(4):
    o1.zero_grad(); o2.zero_grad()
    torch.nn.functional.cross_entropy(ref(x), y).backward()
    torch.nn.functional.cross_entropy(sharded(x[r::w]), y[r::w]).backward()
    n1 = torch.nn.utils.clip_grad_norm_(ref.parameters(), 0.5)
    n2 = sharded.clip_grad_norm_(0.5)
    assert math.isclose(float(n1), float(n2), rel_tol=1e-5), (float(n1), float(n2))
    o1.step(); o2.step()
full = sharded.state_dict()
worst = max((full[k] - v).abs().max().item() if v.numel() else 0.0 for k, v in ref.state_dict().items())
assert set(full) == set(ref.state_dict())
assert all(full[k].shape == v.shape for k, v in ref.state_dict().items())
# Boundary values: an inf gradient gives an inf norm, as torch's clip_grad_norm_ does; NaN gives NaN.
for bad in (math.inf, math.nan):
    o2.zero_grad()
    sharded(x[r::w]).sum().backward()
    for p in sharded.parameters():
        if p.grad is not None and p.grad.numel():
            p.grad[0] = bad if r == 0 else p.grad[0]
            break
    n = sharded.clip_grad_norm_(1.0)
    want = torch.linalg.vector_norm(torch.tensor([bad, 1.0])).item()
    assert (math.isnan(n) and math.isnan(want)) or n == want, (bad, n, want)
# fp16's largest value survives the float16 gather exactly.
big = FSDP(nn.Linear(2, 2, bias=False), mixed_precision=MixedPrecision(param_dtype=torch.float16))
big.load_state_dict({"weight": torch.tensor([[65504.0, 0.0], [1.0, -65504.0]])})
out = big(torch.tensor([[1.0, 0.0]]))
assert out.dtype == torch.float16 and out.tolist() == [[65504.0, 1.0]], out
assert worst < 1e-5, worst
print(r, "ok: max |FSDP - plain| after 4 Adam steps =", worst)
