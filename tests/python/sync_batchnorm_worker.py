"""One rank of the SyncBatchNorm job tests/python/test_misc_gaps.py starts with
python -m ember.distributed.run --nproc 2: each rank normalises its slice of one batch (the slices
of different sizes) and checks, against BatchNorm on the whole batch in this process, the output
slice, the input gradient slice, the weight/bias gradients summed over the ranks and the running
statistics. Prints "ok <rank> sync_batchnorm <case>" per case; a mismatch raises."""
import numpy as np

import ember
import ember.distributed as dist
import ember.nn as nn


def close(got, want, what):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-11, err_msg=what)


def check(case, shape, cuts, momentum, affine):
    r, n = dist.get_rank(), dist.get_world_size()
    g = ember.Generator(11)  # the same batch and cotangent on every rank
    x = ember.randn(*shape, generator=g, dtype=ember.float64)
    cot = ember.randn(*shape, generator=g, dtype=ember.float64)
    w = ember.randn(shape[1], generator=g, dtype=ember.float64)
    b = ember.randn(shape[1], generator=g, dtype=ember.float64)

    # the oracle: batch_norm over the concatenated batch, in one process
    ref = nn.BatchNorm1d(shape[1], momentum=momentum, affine=affine).double() if len(shape) <= 3 else \
        nn.BatchNorm2d(shape[1], momentum=momentum, affine=affine).double()
    sync = nn.SyncBatchNorm(shape[1], momentum=momentum, affine=affine).double()
    if affine:
        with ember.no_grad():
            for m in (ref, sync):
                m.weight.copy_(w)
                m.bias.copy_(b)
    xr = x.clone().requires_grad_()
    (ref(xr) * cot).sum().backward()
    yr = ref(x.clone())  # a second step: the running statistics after two updates

    lo, hi = cuts[r], cuts[r + 1]
    xs = x[lo:hi].clone().requires_grad_()
    y = sync(xs)
    (y * cot[lo:hi]).sum().backward()
    y2 = sync(x[lo:hi].clone())
    # the outputs and input gradient this rank owns
    ref2 = nn.BatchNorm1d(shape[1], momentum=momentum, affine=affine).double() if len(shape) <= 3 else \
        nn.BatchNorm2d(shape[1], momentum=momentum, affine=affine).double()
    if affine:
        with ember.no_grad():
            ref2.weight.copy_(w)
            ref2.bias.copy_(b)
    close(y, ref2(x.clone())[lo:hi], f"{case}: output")
    close(xs.grad, xr.grad[lo:hi], f"{case}: grad.input")
    close(y2, yr[lo:hi], f"{case}: second output")
    close(sync.running_mean, ref.running_mean, f"{case}: running_mean")
    close(sync.running_var, ref.running_var, f"{case}: running_var")
    assert sync.num_batches_tracked.item() == 2
    if affine:
        for name in ("weight", "bias"):
            total = getattr(sync, name).grad.clone()
            dist.all_reduce(total)
            close(total, getattr(ref, name).grad, f"{case}: grad.{name} summed over the ranks")
    sync.eval()  # eval: the running statistics, no communication
    close(sync(x[lo:hi]), ref.eval()(x)[lo:hi], f"{case}: eval output")
    print(f"ok {r} sync_batchnorm {case}", flush=True)


def main():
    dist.init_process_group("gloo")
    check("3-D uneven", (7, 3, 4), [0, 3, 7], 0.1, True)
    check("2-D", (8, 5), [0, 4, 8], 0.3, True)
    check("4-D affine=False", (5, 2, 3, 2), [0, 1, 5], 0.1, False)
    check("one rank empty", (6, 3, 2), [0, 0, 6], 0.1, True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
