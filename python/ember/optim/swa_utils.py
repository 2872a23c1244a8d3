"""torch.optim.swa_utils: stochastic weight averaging and exponential moving averages of a model
(C++: optim/swa_utils.h).

    swa_model = AveragedModel(model)                       # or multi_avg_fn=get_ema_multi_avg_fn(0.999)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(...):
        train(model, optimizer)
        swa_model.update_parameters(model); swa_scheduler.step()
    update_bn(loader, swa_model)
"""
from .._C.optim import (  # noqa: F401  (re-exported)
    SWALR,
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]
