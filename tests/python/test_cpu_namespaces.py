"""What PyTorch scripts probe and set on a CPU machine: ember.cuda, ember.backends,
ember.accelerator, the default generator's state (get_rng_state), inference_mode, and ember.amp's
autocast and GradScaler on a machine without a GPU."""
import warnings

import numpy as np
import pytest

import ember
from ember import nn


def test_rng_state_round_trips_and_replays_the_same_numbers(tmp_path):
    ember.manual_seed(123)
    ember.randn(5)
    state = ember.get_rng_state()
    assert state.dtype == ember.uint8 and list(state.shape) == [16]
    first = ember.randn(7).numpy()
    ember.save({"rng": state}, tmp_path / "rng.pt")  # scripts keep it in their checkpoints
    ember.randn(100)
    ember.set_rng_state(ember.load(tmp_path / "rng.pt")["rng"])
    np.testing.assert_array_equal(ember.randn(7).numpy(), first)


def test_set_rng_state_names_what_it_expected():
    with pytest.raises(ValueError, match=r"uint8 tensor of 16 elements.*float32 of shape \[16\]"):
        ember.set_rng_state(ember.zeros(16))
    with pytest.raises(ValueError, match=r"shape \[3\]"):
        ember.set_rng_state(ember.zeros(3, dtype=ember.uint8))
    with pytest.raises(TypeError, match="got list"):
        ember.set_rng_state([0] * 16)


def test_initial_seed_and_seed():
    ember.manual_seed(42)
    assert ember.initial_seed() == 42
    s = ember.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 63 and ember.initial_seed() == s


@pytest.mark.skipif(ember.cuda.is_available(), reason="this machine has a CUDA device")
def test_cuda_queries_answer_and_device_calls_say_there_is_no_cuda():
    assert ember.cuda.is_available() is False and ember.cuda.device_count() == 0
    ember.cuda.manual_seed(0)
    ember.cuda.manual_seed_all(0)
    ember.cuda.empty_cache()
    with pytest.raises(RuntimeError, match="no CUDA device: synchronize on cuda:0"):
        ember.cuda.synchronize()
    device = "cuda" if ember.cuda.is_available() else "cpu"
    assert ember.ones(2, device=device).device == ember.device("cpu")


def test_backend_flags_scripts_set_are_accepted():
    ember.backends.cudnn.benchmark = True
    ember.backends.cudnn.deterministic = True
    ember.backends.cuda.matmul.allow_tf32 = True
    # cuDNN is available as in PyTorch: the build has it (its CUDA library loads), GPU or not
    assert ember.backends.cudnn.is_available() is ember._C._cuda_backend_built()
    assert ember.backends.mps.is_available() is False
    assert ember.accelerator.is_available() is False and ember.accelerator.current_accelerator() is None
    ember.backends.cudnn.benchmark = False
    ember.backends.cudnn.deterministic = False


def test_mkldnn_flags_and_allow_winograd():
    mkldnn = ember.backends.mkldnn
    assert mkldnn.is_available() and mkldnn.enabled and mkldnn.allow_winograd  # Winograd is on by default
    mkldnn.deterministic = True  # recorded, as torch's
    # A layer Winograd suits (3x3, stride 1, 64 channels, 512 positions per thread), in float32,
    # against the same layer in float64; with the flag off it takes im2col.
    ember.manual_seed(0)
    x, w = ember.randn(16, 64, 8, 8), ember.randn(64, 64, 3, 3) * 0.05
    exact = ember.nn.functional.conv2d(x.double(), w.double(), padding=1)
    outs = {}
    try:
        for allow in (False, True):
            mkldnn.allow_winograd = allow
            assert ember._C._conv_winograd() is allow
            outs[allow] = ember.nn.functional.conv2d(x, w, padding=1)
            scale = float(exact.abs().max())
            assert float((outs[allow].double() - exact).abs().max()) <= 1e-5 * scale
    finally:
        mkldnn.allow_winograd = True
        mkldnn.deterministic = False
    assert outs[True].shape == outs[False].shape == (16, 64, 8, 8)


def test_inference_mode_as_context_and_decorator():
    x = ember.ones(2, requires_grad=True)
    with ember.inference_mode():
        assert not ember.is_grad_enabled() and not (x * 2).requires_grad
    assert ember.is_grad_enabled()

    @ember.inference_mode()
    def predict(t):
        return t * 3

    assert not predict(x).requires_grad and ember.is_grad_enabled()
    with ember.inference_mode(False):
        assert ember.is_grad_enabled() and (x * 2).requires_grad


def train(steps, scaler=None, amp_enabled=False):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = ember.optim.SGD(model.named_parameters(), lr=0.1)
    x, y = ember.randn(16, 4), ember.randint(0, 2, (16,))
    for _ in range(steps):
        opt.zero_grad()
        with ember.autocast(device_type="cpu", dtype=ember.bfloat16, enabled=amp_enabled):
            loss = nn.functional.cross_entropy(model(x), y)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_a_disabled_amp_loop_trains_exactly_as_a_plain_one():
    plain = train(5)
    scaler = ember.amp.GradScaler(enabled=False)
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    for a, b in zip(plain, train(5, scaler=scaler)):
        np.testing.assert_array_equal(a, b)


def test_a_cuda_grad_scaler_without_a_device_warns_and_turns_itself_off():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = ember.amp.GradScaler()
    assert not scaler.is_enabled()


def test_disabled_autocast_changes_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ember.autocast(device_type="cpu", enabled=False):
            assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype == ember.float32

        @ember.autocast(device_type="cpu", enabled=False)
        def f(t):
            return t + 1

        assert f(ember.ones(1)).item() == 2.0


def test_an_amp_loop_on_a_cpu_machine_trains_in_bfloat16_and_keeps_float32_parameters():
    # the loop PyTorch scripts write (tests/python/test_autocast.py checks each op against PyTorch)
    plain = train(5)
    mixed = train(5, scaler=ember.amp.GradScaler("cpu"), amp_enabled=True)
    for a, b in zip(plain, mixed):
        assert b.dtype == np.float32
        np.testing.assert_allclose(a, b, atol=0.02)
    with pytest.warns(UserWarning, match="'cuda', but CUDA is not available"):
        with ember.autocast(device_type="cuda"):
            pass


def test_backends_are_modules_scripts_import_by_name():
    import importlib
    for name in ("cudnn", "cuda", "mps", "mkldnn", "openmp", "cpu"):
        module = importlib.import_module(f"ember.backends.{name}")
        assert getattr(ember.backends, name) is module
    import ember.backends.cudnn as cudnn  # the line in many ImageNet scripts
    cudnn.benchmark = True
    assert ember.backends.cudnn.benchmark is True
    cudnn.benchmark = False
    version = cudnn.version()
    assert version is None if not cudnn.is_available() else (isinstance(version, int) and version >= 8000)
    assert ember.backends.cuda.is_built() is cudnn.is_available()
    assert ember.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    flags = open("/proc/cpuinfo").read()
    if "avx2" in flags and "fma" in flags:
        assert ember.backends.cpu.get_cpu_capability() != "DEFAULT"


def test_device_and_layout_probes_of_a_tensor():
    x = ember.ones(2)
    assert x.is_cpu and not x.is_cuda
    for probe in ("is_xpu", "is_mps", "is_meta", "is_ipu", "is_xla", "is_hpu", "is_maia", "is_mtia", "is_vulkan",
                  "is_mkldnn", "is_nested", "is_quantized", "is_sparse", "is_sparse_csr"):
        assert getattr(x, probe) is False, probe


def test_cuda_submodules_scripts_import_by_name():
    import importlib
    from ember.cuda.amp import GradScaler, autocast  # noqa: F401
    from ember.cuda.random import manual_seed_all
    from ember.cuda.memory import memory_allocated  # noqa: F401
    manual_seed_all(3)
    for name in ("amp", "random", "memory"):
        assert importlib.import_module(f"ember.cuda.{name}") is getattr(ember.cuda, name)
    assert ember.cuda.random.manual_seed is ember.cuda.manual_seed
