"""One rank of the FSDP jobs tests/python/test_fsdp.py starts with python -m ember.distributed.run (or,
for "single", one plain process). The model is the GPT of tutorials/gpt_autocast/train.py, each
Block an FSDP unit; every rank trains on its rows of the same global batches.

    fsdp_worker.py single STEPS            the unwrapped model in one process: the reference
    fsdp_worker.py train STEPS [bf16|recompute]
                                           FSDP training (bf16: MixedPrecision's bfloat16
                                           parameters; recompute: each Block under activation
                                           checkpointing); rank 0 prints the losses, the gathered
                                           parameters' digest and the memory figures
    fsdp_worker.py save DIR                3 steps, a sharded checkpoint (model and AdamW state) to
                                           DIR, 2 steps more (their losses printed)
    fsdp_worker.py resume DIR              loads DIR on this job's world size, trains the 2 steps
    fsdp_worker.py plain DIR               loads DIR into the unwrapped model, without FSDP or a
                                           process group, and prints its parameters' digest

Prints "result <json>" lines the test reads."""
import hashlib
import importlib.util
import json
import os
import sys

import ember
import ember.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("gpt_tutorial",
                                               os.path.join(ROOT, "tutorials", "gpt_autocast", "train.py"))
gpt_tutorial = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gpt_tutorial)
GPT, Block = gpt_tutorial.GPT, gpt_tutorial.Block

VOCAB, T, BATCH = 37, 16, 8


class RecomputedGPT(GPT):
    """The tutorial's GPT with each Block's activations recomputed in backward."""

    def forward(self, idx):
        from ember.utils.checkpoint import checkpoint
        x = self.wte(idx) + self.wpe(ember.arange(idx.shape[1]))
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return self.head(self.ln_f(x))


def make_model(recompute=False):
    ember.manual_seed(0)
    return (RecomputedGPT if recompute else GPT)(VOCAB, T, width=64, layers=3, heads=4)


def batch(step):
    # Arithmetic sequences from random starts: the next token is learnable from the last.
    g = ember.Generator().manual_seed(100 + step)
    start = ember.randint(0, VOCAB, (BATCH, 1), generator=g)
    window = (start + 7 * ember.arange(T + 1)) % VOCAB
    return window[:, :-1], window[:, 1:]


def local_rows(t):
    import ember.distributed as dist
    if not dist.is_initialized():
        return t
    n, r = dist.get_world_size(), dist.get_rank()
    per = BATCH // n
    return t[r * per:(r + 1) * per]


def digest(state):
    h = hashlib.sha256()
    for name in sorted(state):
        h.update(name.encode())
        h.update(state[name].detach().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


def step(model, opt, i, amp_dtype=None):
    import ember.distributed as dist
    x, y = (local_rows(t) for t in batch(i))
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
    loss.backward()
    opt.step()
    value = loss.detach().clone()
    if dist.is_initialized():
        dist.all_reduce(value)
        value = value / dist.get_world_size()
    return value.item()


def wrapped(amp_dtype=None, recompute=False):
    import ember.distributed as dist
    from ember.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ModuleWrapPolicy
    dist.init_process_group("gloo")
    ember.cpu.reset_peak_memory_stats()
    before = ember.cpu.memory_allocated()
    model = make_model(recompute)
    numel = sum(p.numel() for p in model.parameters())
    full_bytes = ember.cpu.memory_allocated() - before
    mp = MixedPrecision(param_dtype=amp_dtype) if amp_dtype is not None else None
    fsdp = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Block}), mixed_precision=mp)
    memory = {"full_bytes": full_bytes, "numel": numel, "sharded_bytes": ember.cpu.memory_allocated() - before}
    return fsdp, memory


def result(**values):
    import ember.distributed as dist
    if not dist.is_initialized() or dist.get_rank() == 0:
        print("result " + json.dumps(values), flush=True)


def resume(model, opt, path):
    """Loads the checkpoint at path as PyTorch's DCP does, then trains steps 3 and 4."""
    from ember.distributed import checkpoint as dcp
    from ember.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
    model_sd, optim_sd = get_state_dict(model, opt)
    state = {"model": model_sd, "optim": optim_sd}
    dcp.load(state, checkpoint_id=path)
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
    loaded = digest(model.state_dict())
    losses = [step(model, opt, i) for i in range(3, 5)]
    result(digest=loaded, losses=losses)


def main():
    mode = sys.argv[1]
    if mode == "single":
        model = make_model()
        opt = ember.optim.AdamW(model.parameters(), lr=1e-2)
        losses = [step(model, opt, i) for i in range(int(sys.argv[2]))]
        result(losses=losses, digest=digest(model.state_dict()),
               state={k: v.reshape(-1)[:4].tolist() for k, v in model.state_dict().items()})
        return
    import ember.distributed as dist
    from ember.distributed import checkpoint as dcp
    from ember.distributed.checkpoint.state_dict import get_state_dict
    if mode == "plain":
        model = make_model()
        resume(model, ember.optim.AdamW(model.parameters(), lr=1e-2), sys.argv[2])
        return
    flags = sys.argv[3:] if mode == "train" else []
    fsdp, memory = wrapped(ember.bfloat16 if "bf16" in flags else None, "recompute" in flags)
    opt = ember.optim.AdamW(fsdp.parameters(), lr=1e-2)
    if mode == "train":
        ember.cpu.reset_peak_memory_stats()
        base = ember.cpu.memory_allocated()
        losses = [step(fsdp, opt, i) for i in range(int(sys.argv[2]))]
        memory["step_peak_bytes"] = ember.cpu.max_memory_allocated() - base
        memory["param_bytes_per_rank"] = sum(p.numel() * p.element_size() for p in fsdp.parameters())
        full = fsdp.state_dict()
        names = sorted(n for n, _ in opt.state_dict()["state"].items())
        result(losses=losses, digest=digest(full), memory=memory, optim_names=names,
               state={k: v.reshape(-1)[:4].tolist() for k, v in full.items()})
    elif mode == "save":
        losses = [step(fsdp, opt, i) for i in range(3)]
        model_sd, optim_sd = get_state_dict(fsdp, opt)
        dcp.save({"model": model_sd, "optim": optim_sd}, checkpoint_id=sys.argv[2])
        saved = digest(fsdp.state_dict())
        losses = [step(fsdp, opt, i) for i in range(3, 5)]
        result(digest=saved, losses=losses)
    elif mode == "resume":
        resume(fsdp, opt, sys.argv[2])
    else:
        raise SystemExit(f"unknown mode {mode}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
