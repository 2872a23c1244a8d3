"""ember.jit from Python: a model class defined here is traced, trains as the eager model trains (bit
for bit), saves, and loads in a process where its class does not exist; its frozen parameter,
non-persistent buffer and tied pair keep their attributes; data-dependent branches warn at their
line; an unregistered tensor that requires grad is refused."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(4 * 4 * 4, 10)
        self.register_buffer("offset", ember.full((4,), 0.1), persistent=False)
        self.gain = nn.Parameter(ember.ones(10), requires_grad=False)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        h = F.max_pool2d(h, 2) + self.offset.view(1, 4, 1, 1)
        h = self.drop(h.flatten(1))
        return self.fc(h) * self.gain


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 6)
        self.proj = nn.Linear(6, 6)
        self.out = nn.Linear(6, 11, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, tokens):
        h = ember.tanh(self.proj(self.emb(tokens)))
        return self.out(h).view(-1, 11)


def make(cls, seed):
    ember.manual_seed(seed)
    return cls()


def train(model, x, y, steps):
    opt = ember.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def same_parameters(a, b):
    pa, pb = dict(a.named_parameters()), dict(b.named_parameters())
    assert list(pa) == list(pb)
    return all(ember.equal(pa[k], pb[k]) for k in pa)


def test_a_traced_model_trains_as_the_eager_model_bit_for_bit():
    eager, source = make(Net, 1), make(Net, 1)
    x = ember.randn(8, 1, 8, 8)
    y = ember.randint(0, 10, (8,))
    before = ember.get_rng_state()
    traced = ember.jit.trace(source, x)  # one forward in training mode, as a call would make
    after = ember.get_rng_state()
    ember.set_rng_state(before)
    eager(x)
    assert ember.equal(ember.get_rng_state(), after)
    assert isinstance(traced, ember.nn.Module)
    state = ember.get_rng_state()
    train(eager, x, y, 10)
    ember.set_rng_state(state)
    train(traced, x, y, 10)
    assert same_parameters(eager, traced)
    assert ember.equal(dict(eager.named_buffers())["bn.running_mean"], dict(traced.named_buffers())["bn.running_mean"])
    eager.eval()
    traced.eval()
    assert ember.equal(eager(x), traced(x))


def test_the_program_loads_where_the_class_does_not_exist(tmp_path):
    model = make(Net, 2)
    x = ember.randn(4, 1, 8, 8)
    traced = ember.jit.trace(model, x)
    traced.save(tmp_path / "net.ember")
    model.eval()
    ember.save({"x": x, "y": model(x), "state": model.state_dict()}, tmp_path / "io.ember")
    script = textwrap.dedent(f"""
        import ember
        m = ember.jit.load({str(tmp_path / "net.ember")!r})
        ref = ember.load({str(tmp_path / "io.ember")!r})
        m.eval()
        assert ember.equal(m(ref["x"]), ref["y"]), "outputs differ"
        assert list(m.state_dict()) == list(ref["state"]), list(m.state_dict())
        assert not m.gain.requires_grad
        assert "offset" not in m.state_dict() and "offset" in dict(m.named_buffers())
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_a_tie_stays_one_tensor_and_loads_back_into_the_class_by_name(tmp_path):
    model = make(TiedLM, 3)
    tokens = ember.randint(0, 11, (2, 5))
    ember.jit.save(ember.jit.trace(model, tokens), tmp_path / "lm.ember")
    loaded = ember.jit.load(tmp_path / "lm.ember")
    assert loaded.out.weight is loaded.emb.weight
    train(loaded, tokens, tokens.flatten(), 3)
    fresh = make(TiedLM, 99)
    fresh.load_state_dict(loaded.state_dict())
    assert same_parameters(fresh, loaded)
    assert ember.equal(fresh(tokens), loaded(tokens))


def test_a_data_dependent_branch_warns_at_its_line():
    class Branchy(nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # the line the warning names
                return x * 2
            return x

    with pytest.warns(UserWarning, match="jit.trace") as caught:
        ember.jit.trace(Branchy(), ember.ones(3), check_trace=False)
    assert any(w.filename == __file__ for w in caught)


def test_an_unregistered_tensor_that_requires_grad_is_refused():
    class Loose(nn.Module):
        def __init__(self):
            super().__init__()
            object.__setattr__(self, "w", ember.randn(3, requires_grad=True))

        def forward(self, x):
            return x * self.w

    with pytest.raises(ValueError, match="register"):
        ember.jit.trace(Loose(), ember.ones(3))


def test_tracing_a_function_and_is_tracing():
    seen = []

    def f(a, b):
        seen.append(ember.jit.is_tracing())
        return a * b + 1, {"sum": (a + b).sum()}

    traced = ember.jit.trace(f, (ember.ones(2), ember.full((2,), 3.0)))
    out, extra = traced(ember.full((2,), 2.0), ember.ones(2))
    assert ember.equal(out, ember.full((2,), 3.0))
    assert extra["sum"].item() == 6.0
    assert True in seen and not ember.jit.is_tracing()


def test_save_refuses_an_untraced_module(tmp_path):
    with pytest.raises(TypeError, match="ember.jit.trace"):
        ember.jit.save(Net(), tmp_path / "x.ember")


def test_ember_save_of_a_traced_module_loads_the_module(tmp_path):
    model = make(Net, 4)
    x = ember.randn(2, 1, 8, 8)
    traced = ember.jit.trace(model, x)
    ember.save({"model": traced, "epoch": 3}, tmp_path / "ckpt.ember")
    back = ember.load(tmp_path / "ckpt.ember")
    assert back["epoch"] == 3 and isinstance(back["model"], ember.jit.TracedModule)
    model.eval()
    back["model"].eval()
    assert ember.equal(back["model"](x), model(x))


def test_the_program_prints_its_ops():
    traced = ember.jit.trace(make(Net, 5), ember.randn(2, 1, 8, 8))
    code = traced.code
    assert "conv2d" in code and "nn.linear" in code and "batch_norm" in code
    traced.eval()
    assert "dropout" in traced.code


def test_ember_save_of_a_rebuildable_module_gives_the_module_back_and_of_another_says_how_to_save_it(tmp_path):
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    seq[2].weight.requires_grad_(False)
    ember.save(seq, tmp_path / "seq.ember")
    back = ember.load(tmp_path / "seq.ember")
    assert isinstance(back, nn.Sequential)
    x = ember.randn(5, 3)
    assert ember.equal(back(x), seq(x)) and not back[2].weight.requires_grad
    # inside a container a module is its state, as an optimizer's is: load_state_dict takes it back
    ember.save({"model": seq, "step": 7}, tmp_path / "ckpt.ember")
    ckpt = ember.load(tmp_path / "ckpt.ember")
    assert isinstance(ckpt["model"], dict) and ckpt["step"] == 7

    @ember.io.register_module_type
    class Scaled(nn.Module):
        def __init__(self, width=3, factor=2.0):
            super().__init__()
            self.fc = nn.Linear(width, width)
            self.factor = factor

        def forward(self, x):
            return self.fc(x) * self.factor

    scaled = Scaled(3, 0.5)
    ember.save(scaled, tmp_path / "scaled.ember")
    again = ember.load(tmp_path / "scaled.ember")
    assert type(again) is Scaled and again.factor == 0.5 and ember.equal(again(x), scaled(x))

    # any other module: an error naming the type and the two ways, and nothing written
    with pytest.raises(TypeError, match=r"Net cannot be saved whole.*ember.jit.trace.*register_module_type.*state_dict"):
        ember.save(Net(), tmp_path / "net.ember")
    assert not (tmp_path / "net.ember").exists()
    holder = nn.Sequential(nn.Linear(2, 2), Net())
    with pytest.raises(TypeError, match=r"Net \('1' in Sequential\) cannot be saved whole"):
        ember.save(holder, tmp_path / "holder.ember")
    # a Python subclass of a built-in type would come back as the built-in one, without its forward
    class Doubled(nn.Linear):
        def forward(self, x):
            return super().forward(x) * 2

    with pytest.raises(TypeError, match=r"Doubled cannot be saved whole"):
        ember.save(Doubled(3, 2), tmp_path / "doubled.ember")
    with pytest.raises(TypeError, match=r"Doubled \('0' in Sequential\) cannot be saved whole"):
        ember.save(nn.Sequential(Doubled(3, 2)), tmp_path / "doubled.ember")
    ember.save(Net().state_dict(), tmp_path / "state.ember")
    assert isinstance(ember.load(tmp_path / "state.ember"), dict)


def test_autocast_and_the_checkpoint_manager_treat_a_traced_module_as_any_module(tmp_path):
    model = make(Net, 6)
    x = ember.randn(3, 1, 8, 8)
    traced = ember.jit.trace(model, x)
    model.eval()
    traced.eval()
    with ember.autocast("cpu", dtype=ember.bfloat16):
        want, got = model(x), traced(x)
    assert got.dtype == want.dtype and ember.equal(got, want)
    assert not ember.equal(got, traced(x))  # the products ran in bfloat16 inside the region

    opt = ember.optim.AdamW(traced.parameters(), lr=1e-3)
    traced.train()
    F.cross_entropy(traced(x), ember.tensor([1, 2, 3])).backward()
    opt.step()
    manager = ember.io.CheckpointManager(tmp_path / "run", keep_last=2)
    manager.save({"model": traced.state_dict(), "opt": opt.state_dict()}, step=1)
    step, _, state = manager.restore()
    fresh = make(Net, 7)
    fresh.load_state_dict(state["model"])
    assert step == 1 and same_parameters(fresh, traced)


def test_ddp_wraps_a_traced_module_as_any_module(tmp_path):
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel as DDP

    x, y = ember.randn(4, 1, 8, 8), ember.tensor([1, 2, 3, 4])
    plain, wrapped = (ember.jit.trace(make(Net, 8), x) for _ in range(2))
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1, timeout=10)
    try:
        model = DDP(wrapped)
        for m in (plain, model):
            ember.manual_seed(9)
            train(m, x, y, 3)
    finally:
        dist.destroy_process_group()
    assert same_parameters(plain, wrapped)


def test_a_python_forward_that_fails_at_another_batch_gives_a_program_of_its_traced_batch():
    class Prob(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.tensor([0.0, 1.0, 0.5]))

        def forward(self, y):  # y must match w: only batch 3 works
            return F.binary_cross_entropy(self.w.clamp(0, 1), y)

    model = Prob()
    y = ember.tensor([0.0, 1.0, 1.0])
    traced = ember.jit.trace(model, y)
    traced(y).backward()
    grad = model.w.grad.clone()
    model.w.grad = None
    model(y).backward()
    assert ember.equal(grad, model.w.grad) and not ember.isnan(grad).any()
    with pytest.raises(ValueError, match=r"holds its dim 0 at 3, the size it was traced at"):
        traced(ember.ones(4))


def load_compat(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"compat_{name}",
                                                  os.path.join(os.path.dirname(__file__), "..", "compat", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_batch_and_the_sequence_length_both_follow_the_input():
    gpt = load_compat("gpt")
    ember.manual_seed(4)
    model = gpt.GPT(65, 16, 2, 2, 32, 0.1)  # block size 16, traced at it: the program follows shorter sequences
    traced = ember.jit.trace(model, ember.randint(0, 65, (3, 16)))
    assert [d["at"] for d in traced._program(True)["dims"]] == [[[0, 0]], [[0, 1]]]
    model.eval(), traced.eval()
    for batch, seq in ((3, 16), (1, 1), (5, 9), (2, 16)):
        x = ember.randint(0, 65, (batch, seq))
        assert ember.equal(traced(x)[0], model(x)[0]), (batch, seq)
    # train mode: dropout and the loss, under one seed, bit for bit
    model.train(), traced.train()
    x = ember.randint(0, 65, (2, 7))
    ember.manual_seed(5)
    got = traced(x)[0]
    ember.manual_seed(5)
    assert ember.equal(got, model(x)[0])


def test_noise_drawn_in_the_forward_is_drawn_afresh_by_the_program():
    class Reparameterize(nn.Module):  # the VAE of pytorch/examples: eps ~ N(0, 1) each call
        def __init__(self):
            super().__init__()
            self.mu, self.logvar = nn.Linear(4, 2), nn.Linear(4, 2)

        def forward(self, x):
            mu, logvar = self.mu(x), self.logvar(x)
            std = ember.exp(0.5 * logvar)
            return mu + ember.randn_like(std) * std

    model = Reparameterize()
    traced = ember.jit.trace(model, ember.randn(3, 4))
    x = ember.randn(5, 4)
    ember.manual_seed(12)
    want = model(x)
    ember.manual_seed(12)
    got = traced(x)
    assert ember.equal(got, want) and not ember.equal(traced(x), want)
    assert "factory.randn" in traced.code


def test_a_dim_the_program_holds_fixed_is_refused_by_name():
    traced = ember.jit.trace(nn.Linear(6, 2), ember.randn(4, 6))
    assert traced(ember.randn(9, 6)).shape == (9, 2)
    with pytest.raises(ValueError, match=r"input 0 has shape \[9, 5\], but the program holds its dim 1 at 6"):
        traced(ember.randn(9, 5))
