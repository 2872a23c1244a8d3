"""save_module / load_module of modules written in Python (ember/_module_types.py): Ember's own
Python layers rebuild from their constructor arguments, a user's class does once registered, and
what cannot be rebuilt is refused with an error naming the module and the argument."""
import pytest

import ember
import ember.nn as nn


def roundtrip(module, tmp_path):
    path = str(tmp_path / "m.ember")
    ember.io.save_module(module, path)
    return ember.io.load_module(path)


def same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert ember.equal(sa[k], sb[k]), k


def test_embers_python_layers_rebuild_with_their_arguments(tmp_path):
    ember.manual_seed(0)
    model = nn.Sequential(
        nn.Conv3d(2, 4, (3, 1, 3), stride=(1, 1, 2), padding=1, padding_mode="replicate", bias=False),
        nn.SiLU(), nn.Dropout3d(0.25), nn.MaxPool3d(2, ceil_mode=True), nn.AvgPool3d((1, 2, 1)),
        nn.AdaptiveAvgPool3d((1, 1, 2)), nn.Flatten(), nn.Linear(8, 5), nn.Mish())
    model.eval()
    back = roundtrip(model, tmp_path)
    assert [type(m).__name__ for m in back] == [type(m).__name__ for m in model]
    conv = back[0]
    assert (conv.kernel_size, conv.stride, conv.padding, conv.padding_mode) == ((3, 1, 3), (1, 1, 2), (1, 1, 1),
                                                                                  "replicate")
    assert conv.bias is None and back[2].p == 0.25 and back[3].ceil_mode
    same_state(model, back)
    back.eval()
    x = ember.randn(2, 2, 5, 4, 6)
    assert ember.equal(model(x), back(x))


def test_loss_modules_keep_their_settings(tmp_path):
    losses = nn.ModuleDict({"ce": nn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum", ignore_index=2),
                            "ctc": nn.CTCLoss(blank=1, zero_infinity=True), "huber": nn.HuberLoss(delta=0.5)})
    back = roundtrip(losses, tmp_path)
    assert back["ce"].label_smoothing == 0.1 and back["ce"].reduction == "sum" and back["ce"].ignore_index == 2
    assert back["ctc"].blank == 1 and back["ctc"].zero_infinity and back["huber"].delta == 0.5
    logits, target = ember.randn(4, 3), ember.tensor([0, 2, 1, 1])
    assert ember.equal(losses["ce"](logits, target), back["ce"](logits, target))
    # A class weight is a buffer: saved, and rebuilt with its shape and dtype before the state fills it.
    weighted = roundtrip(nn.Sequential(nn.CrossEntropyLoss(weight=ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64))),
                         tmp_path)
    assert weighted[0].weight.dtype == ember.float64 and weighted[0].weight.tolist() == [1.0, 2.0, 3.0]


@ember.io.register_module_type
class Block(nn.Module):
    def __init__(self, width, act="relu", *, widths=(2, 3), extra=None):
        super().__init__()
        self.act, self.widths, self.extra = act, widths, extra
        self.fc = nn.Linear(width, widths[0])
        self.out = nn.Linear(widths[0], widths[1])

    def forward(self, x):
        return self.out(getattr(ember, self.act)(self.fc(x)))


@ember.io.register_module_type
class WideBlock(Block):  # a registered subclass: its own arguments are the ones saved
    def __init__(self, depth):
        super().__init__(4, "tanh", widths=(depth, 2))
        self.depth = depth


def test_a_registered_user_class_rebuilds_inside_containers(tmp_path):
    ember.manual_seed(1)
    model = nn.Sequential(Block(4, "tanh", widths=(5, 4), extra={"k": [1, (2, 3)], "none": None}), nn.ReLU(),
                          WideBlock(6))
    model[0].fc.weight.requires_grad_(False)
    back = roundtrip(model, tmp_path)
    assert type(back[0]) is Block and type(back[2]) is WideBlock
    assert back[0].act == "tanh" and back[0].widths == (5, 4)  # a tuple stays a tuple
    assert back[0].extra == {"k": [1, (2, 3)], "none": None}
    assert back[2].depth == 6 and back[2].widths == (6, 2)
    same_state(model, back)
    assert not back[0].fc.weight.requires_grad and back[0].out.weight.requires_grad
    x = ember.randn(3, 4)
    assert ember.equal(model(x), back(x))


def test_an_unregistered_class_saves_and_says_how_to_register_on_load(tmp_path):
    class Unknown(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    path = str(tmp_path / "u.ember")
    ember.io.save_module(nn.Sequential(Unknown()), path)
    with pytest.raises(KeyError, match=r"unknown module type .{0,3}Unknown.{0,3} at .{0,3}0.*from Python with ember.io.register_module_type\(cls\)"):
        ember.io.load_module(path)


def test_arguments_that_cannot_be_saved_are_refused_by_name(tmp_path):
    with pytest.raises(TypeError, match=r"Block\(extra=\.\.\.\) is a Tensor"):
        roundtrip(Block(2, extra=ember.ones(3)), tmp_path)
    with pytest.raises(TypeError, match=r"Block\(extra=\.\.\.\) is a dtype"):
        roundtrip(Block(2, extra=[ember.float32]), tmp_path)

    class Late(nn.Module):
        def __init__(self, n=1):
            super().__init__()
            self.n = n

    early = Late(3)
    ember.io.register_module_type(Late)
    with pytest.raises(TypeError, match=r"this Late was built before ember.io.register_module_type\(Late\)"):
        roundtrip(early, tmp_path)
    assert roundtrip(Late(5), tmp_path).n == 5

    class Starred(nn.Module):
        def __init__(self, *sizes):
            super().__init__()
            self.sizes = sizes

    ember.io.register_module_type(Starred)
    with pytest.raises(TypeError, match=r"Starred was built with extra positional arguments"):
        roundtrip(Starred(1, 2), tmp_path)
    assert roundtrip(Starred(), tmp_path).sizes == ()


def test_registration_errors():
    assert not ember._C.io._has_module_type("Module")  # nn.Module itself is no layer type
    with pytest.raises(KeyError, match="Block"):
        ember.io.register_module_type(Block)  # the name is taken
    with pytest.raises(TypeError, match="expected a subclass of ember.nn.Module"):
        ember.io.register_module_type(int)
    with pytest.raises(TypeError, match="Linear has no __init__ written in Python"):
        ember.io.register_module_type(nn.Linear)
