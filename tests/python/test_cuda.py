"""The CUDA backend from Python. Without a GPU (or in a build without the backend), every way onto a
device raises a RuntimeError starting "no CUDA device: " that says why, and nothing is left half
moved; the queries answer. The tests marked needs_gpu compare the GPU with the CPU; they are skipped
without a device, and fail instead when EMBER_REQUIRE_CUDA=1 (they have not been run on a GPU yet:
see README, "CUDA")."""
import os

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

HAS_GPU = ember.cuda.is_available()
needs_gpu = pytest.mark.skipif(not HAS_GPU and os.environ.get("EMBER_REQUIRE_CUDA") != "1",
                               reason="no CUDA device (EMBER_REQUIRE_CUDA=1 makes this a failure)")
no_gpu = pytest.mark.skipif(HAS_GPU, reason="this machine has a CUDA device")
NO_DEVICE = "no CUDA device: "


def test_the_queries_agree_with_the_build():
    assert ember.cuda.device_count() == ember._C._cuda_device_count()
    assert ember.cuda.is_available() == (ember.cuda.device_count() > 0)
    assert ember.cuda.is_bf16_supported() == ember.cuda.is_available()
    ember.cuda.empty_cache()
    ember.cuda.seed()
    ember.cuda.seed_all()


@no_gpu
def test_without_a_device_every_way_onto_cuda_says_so():
    assert ember.cuda.is_available() is False and ember.cuda.device_count() == 0
    x = ember.randn(3, requires_grad=True)
    alloc = NO_DEVICE + "cannot allocate memory on cuda:0: "
    why = "the CUDA runtime finds none" if ember._C._cuda_backend_built() else "build with -DEMBER_CUDA=ON"
    for attempt in (lambda: x.cuda(), lambda: x.cuda(0), lambda: x.to("cuda"), lambda: x.to(device="cuda:0"),
                    lambda: x.to(ember.device("cuda")), lambda: ember.zeros(2, device="cuda"),
                    lambda: ember.randn(2, 3, device="cuda:0"), lambda: ember.arange(4, device="cuda"),
                    lambda: ember.tensor([1.0, 2.0], device="cuda"), lambda: x.new_empty(2, device="cuda")):
        with pytest.raises(RuntimeError, match=alloc) as e:
            attempt()
        assert why in str(e.value)
    with pytest.raises(RuntimeError, match=NO_DEVICE + "cannot allocate memory on cuda:2"):
        x.cuda(2)
    assert x.device == ember.device("cpu") and x.requires_grad
    for attempt, what in ((ember.cuda.synchronize, "synchronize"), (ember.cuda.current_device, "ember.cuda.current_device"),
                          (lambda: ember.cuda.set_device(0), "ember.cuda.set_device"),
                          (ember.cuda.get_device_name, "get_device_name"),
                          (ember.cuda.memory_allocated, "memory_allocated")):
        with pytest.raises(RuntimeError, match=NO_DEVICE + what + " on cuda:0"):
            attempt()
    ember.cuda.manual_seed_all(3)  # accepted, as PyTorch does without CUDA


@no_gpu
def test_a_module_that_cannot_move_stays_whole_on_the_cpu():
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    before = {k: v.data_ptr() for k, v in model.state_dict().items()}
    for attempt in (model.cuda, lambda: model.to("cuda"), lambda: model.to(device="cuda:0")):
        with pytest.raises(RuntimeError, match=NO_DEVICE + "cannot allocate memory on cuda:0"):
            attempt()
    assert {k: v.data_ptr() for k, v in model.state_dict().items()} == before
    assert all(v.device == ember.device("cpu") for v in model.state_dict().values())
    assert tuple(model(ember.randn(2, 4)).shape) == (2, 3)


@no_gpu
def test_loading_onto_a_missing_device_fails_before_reading(tmp_path):
    ember.save({"w": ember.ones(2)}, tmp_path / "w.pt")
    for where in ("cuda", "cuda:0", ember.device("cuda"), {"cpu": "cuda:0"}):
        with pytest.raises(RuntimeError, match=NO_DEVICE + "io::load: map_location on cuda:0"):
            ember.load(tmp_path / "w.pt", map_location=where)
    with pytest.raises(RuntimeError, match=NO_DEVICE):
        ember.io.load(tmp_path / "w.pt", map_location="cuda")


def test_cuda_needs_a_cuda_device():
    with pytest.raises(RuntimeError, match="must be cuda device, got cpu"):
        ember.ones(2).cuda("cpu")
    with pytest.raises(ValueError, match="expected a CUDA device"):
        ember.cuda.synchronize("cpu")


# ---- on a GPU


def _pair(shape, seed, lo=-1.0, hi=1.0, dtype=ember.float64):
    g = ember.Generator().manual_seed(seed)
    x = (ember.rand(*shape, dtype=ember.float64, generator=g) * (hi - lo) + lo).to(dtype)
    return x.detach().requires_grad_(True), x.cuda().detach().requires_grad_(True)


@needs_gpu
@pytest.mark.parametrize("op", [
    lambda x: x.exp().sum(), lambda x: F.softmax(x, dim=-1), lambda x: F.gelu(x), lambda x: x.relu() * 3,
    lambda x: x.t().matmul(x), lambda x: x.max(dim=0).values, lambda x: F.log_softmax(x.t(), dim=0),
    lambda x: x[1:, ::2].sin(), lambda x: x.cumsum(1), lambda x: F.layer_norm(x, (5,)),
])
def test_ops_forward_and_backward_match_the_cpu(op):
    xc, xg = _pair((4, 5), 1)
    yc, yg = op(xc), op(xg)
    assert yg.device == ember.device("cuda:0")
    np.testing.assert_allclose(yg.cpu().detach().numpy(), yc.detach().numpy(), rtol=1e-10, atol=1e-10)
    g = ember.randn(*yc.shape, dtype=ember.float64)
    yc.backward(g)
    yg.backward(g.cuda())
    np.testing.assert_allclose(xg.grad.cpu().numpy(), xc.grad.numpy(), rtol=1e-10, atol=1e-10)


@needs_gpu
def test_a_cnn_trains_alike_on_both_devices():
    def run(device):
        ember.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * 4 * 4, 10)).to(device)
        opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        gen = ember.Generator()
        losses = []
        for _ in range(5):
            x = ember.randn(8, 1, 8, 8, generator=gen).to(device)
            y = ember.randint(0, 10, (8,), generator=gen).to(device)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    np.testing.assert_allclose(run("cuda"), run("cpu"), rtol=1e-4)


@needs_gpu
def test_checkpoints_cross_devices(tmp_path):
    model = nn.Linear(3, 2).cuda()
    ember.save({"model": model.state_dict()}, tmp_path / "m.pt")
    on_cpu = ember.load(tmp_path / "m.pt", map_location="cpu")["model"]
    assert all(t.device == ember.device("cpu") for t in on_cpu.values())
    back = ember.load(tmp_path / "m.pt", map_location="cuda")["model"]
    assert all(t.device == ember.device("cuda:0") for t in back.values())
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(on_cpu[k].numpy(), v.cpu().numpy())
    with pytest.raises(RuntimeError, match="cuda:0"):
        model.weight.detach().numpy()  # host memory only: .cpu() first


@needs_gpu
def test_device_calls_and_memory_queries():
    ember.cuda.synchronize()
    ember.cuda.synchronize(0)
    assert ember.cuda.current_device() == 0 and ember.cuda.get_device_name(0)
    t = ember.empty(1 << 20, device="cuda")
    assert ember.cuda.memory_allocated() >= 4 << 20 and ember.cuda.memory_reserved() >= ember.cuda.memory_allocated()
    assert t.new_empty(3).device == ember.device("cuda:0") and t.new_tensor([1, 2]).device == ember.device("cuda:0")
    del t
    ember.cuda.empty_cache()


@needs_gpu
def test_a_cpu_scalar_joins_gpu_tensors_as_in_pytorch():
    x = ember.randn(3, 4, device="cuda", requires_grad=True)
    s = ember.tensor(2.0, requires_grad=True)
    y = (x * s).sum()
    assert y.device.type == "cuda"
    y.backward()
    assert s.grad.device.type == "cpu"
    np.testing.assert_allclose(s.grad.item(), x.detach().sum().item(), rtol=1e-5)
    with pytest.raises(ValueError, match="different devices"):
        x + ember.ones(4)


@needs_gpu
def test_autocast_on_cuda_follows_pytorchs_cuda_lists():
    # the CUDA lists differ from the CPU's: exp, softmax, sum and the norms go to float32, and addcmul,
    # atan2 and index_put to the widest input (tests/python/test_autocast.py checks the CPU's per op)
    x = ember.randn(4, 8, device="cuda")
    lin = nn.Linear(8, 8).cuda()
    with ember.autocast("cuda"):
        h = lin(x)
        assert h.dtype == ember.float16 and ember.get_autocast_dtype("cuda") == ember.float16
        assert ember.exp(h).dtype == ember.float32 and F.softmax(h, 1).dtype == ember.float32
        assert h.sum().dtype == ember.float32 and F.layer_norm(h, (8,)).dtype == ember.float32
        assert ember.addcmul(h, h, x).dtype == ember.float32 and ember.atan2(h, h).dtype == ember.float16
        assert ember.cat([h, h]).dtype == ember.float16  # cat is on the CPU's promote list only
        loss = F.mse_loss(h, x)
        assert loss.dtype == ember.float32
    loss.backward()
    assert lin.weight.grad.dtype == ember.float32
    with ember.autocast("cuda", dtype=ember.bfloat16):
        assert lin(x).dtype == ember.bfloat16
    lstm = nn.LSTM(8, 8).cuda()
    with ember.autocast("cuda"):  # cuDNN's layer in PyTorch, cast whole
        assert lstm(x.unsqueeze(1))[0].dtype == ember.float16
    with ember.autocast("cpu"):  # a CPU region leaves CUDA tensors alone
        assert lin(x).dtype == ember.float32


@needs_gpu
@pytest.mark.parametrize("dtype,ulps", [(ember.bfloat16, 2 ** -7), (ember.float16, 2 ** -10)])
def test_16bit_products_and_convolutions_match_the_cpu_to_an_ulp(dtype, ulps):
    # tensor cores on the GPU (where the device has them), float32 GEMMs rounded once on the CPU:
    # the sums run in other orders, so a result may differ by about an ulp of its dtype
    ember.manual_seed(0)
    a, b = ember.randn(3, 64, 96).to(dtype), ember.randn(96, 80).to(dtype)
    x, w = ember.randn(2, 8, 12, 12).to(dtype), ember.randn(16, 8, 3, 3).to(dtype)
    for name, fn, args in [("matmul", ember.matmul, (a, b)), ("conv2d", lambda x, w: F.conv2d(x, w, padding=1), (x, w))]:
        want = fn(*args).float()
        got = fn(*(t.cuda() for t in args))
        assert got.dtype == dtype, name
        np.testing.assert_allclose(got.cpu().float().numpy(), want.numpy(), rtol=2 * ulps, atol=2 * ulps, err_msg=name)


def _complex_pair(shape, seed, dtype):
    gen = ember.Generator().manual_seed(seed)
    z = ember.randn(*shape, dtype=dtype, generator=gen)
    return z, z.cuda()


@needs_gpu
@pytest.mark.parametrize("dtype,tol", [(ember.complex64, 2e-6), (ember.complex128, 1e-13)])
def test_complex_math_matches_the_cpu(dtype, tol):
    """The complex kernels (cuda/kernels/complex.cu) against the CPU's std::complex, with gradients."""
    (zc, zg), (wc, wg) = _complex_pair((5, 7), 1, dtype), _complex_pair((7,), 2, dtype)
    real = ember.float32 if dtype == ember.complex64 else ember.float64
    rc = ember.rand(5, 7, dtype=real) + 0.1
    cases = [lambda z, w, r: z * w, lambda z, w, r: z / (w + 0.5), lambda z, w, r: z.exp(), lambda z, w, r: z.log(),
             lambda z, w, r: z.sqrt(), lambda z, w, r: z.reciprocal(), lambda z, w, r: z.abs(),
             lambda z, w, r: z.angle(), lambda z, w, r: ember.complex(r, r * 2), lambda z, w, r: ember.polar(r, r),
             lambda z, w, r: z @ z.mT, lambda z, w, r: (z * 1j - w.conj()).sum(0)]
    for f in cases:
        yc, yg = f(zc, wc, rc), f(zg, wg, rc.cuda())
        assert yg.device == ember.device("cuda:0") and yg.dtype == yc.dtype
        np.testing.assert_allclose(yg.cpu().numpy(), yc.numpy(), rtol=tol, atol=tol)
    zc.requires_grad_()
    zg = zc.detach().cuda().requires_grad_()
    for z in (zc, zg):
        (z.exp() * z.abs() / (z + 3)).angle().sum().backward()
    np.testing.assert_allclose(zg.grad.cpu().numpy(), zc.grad.numpy(), rtol=100 * tol, atol=100 * tol)


@needs_gpu
@pytest.mark.parametrize("n", [1, 2, 7, 8, 13, 64, 1040])
def test_ffts_on_cufft_match_the_cpu(n):
    """ember.fft on cuFFT (cuda/fft_kernel.cpp) against the CPU's, every kind, norm and precision,
    gradients included; length 1 (no cuFFT) and odd and prime lengths."""
    for dtype, tol in ((ember.float32, 2e-4), (ember.float64, 1e-11)):
        gen = ember.Generator().manual_seed(n)
        x = ember.randn(3, n, dtype=dtype, generator=gen)
        z = ember.complex(x, x.flip(-1))
        for f in (lambda t: ember.fft.fft(t), lambda t: ember.fft.ifft(t, norm="ortho"),
                  lambda t: ember.fft.rfft(t.real if t.is_complex() else t, norm="forward"),
                  lambda t: ember.fft.irfft(ember.fft.rfft(t.real if t.is_complex() else t), n=n),
                  lambda t: ember.fft.fft2(t), lambda t: ember.fft.rfftn(t.real if t.is_complex() else t)):
            for arg in (x, z):
                yc, yg = f(arg), f(arg.cuda())
                assert yg.device == ember.device("cuda:0")
                np.testing.assert_allclose(yg.cpu().numpy(), yc.numpy(), rtol=tol, atol=tol * max(n, 1))
        xc = x.clone().requires_grad_()
        xg = x.clone().cuda().requires_grad_()
        for t in (xc, xg):
            ember.fft.irfft(ember.fft.rfft(t) * 1j, n=n).pow(2).sum().backward()
        np.testing.assert_allclose(xg.grad.cpu().numpy(), xc.grad.numpy(), rtol=tol, atol=tol * max(n, 1))
