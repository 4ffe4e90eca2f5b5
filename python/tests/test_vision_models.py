"""ember.vision.models: state_dict keys and shapes and parameter counts against torchvision 0.14.1's
(fixtures/vision/torchvision_models.json, written from torchvision itself by make_torchvision_fixtures.py),
torchvision's documented parameter counts, forward shapes, initialisation, and the predict API."""

import json
import math
import os

import numpy as np
import pytest

import ember
from ember import nn
from ember.vision import models

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "vision", "torchvision_models.json")) as f:
    TV = json.load(f)

# torchvision's documented num_params (the weights' metadata tables).
DOCUMENTED = {
    "resnet18": 11689512,
    "resnet34": 21797672,
    "resnet50": 25557032,
    "resnet101": 44549160,
    "vgg11": 132863336,
    "vgg16": 138357544,
    "alexnet": 61100840,
    "mobilenet_v2": 3504872,
    "mobilenet_v3_small": 2542856,
}


def _construct(name):
    """The model a fixture entry names: "resnet18" or "resnet18(num_classes=10)"."""
    fn, _, args = name.partition("(")
    kwargs = {}
    for item in filter(None, args.rstrip(")").split(",")):
        key, value = item.split("=")
        kwargs[key] = float(value) if "." in value else int(value)
    return getattr(models, fn)(**kwargs)


@pytest.fixture
def no_init(monkeypatch):
    """Parameter initialisation off: the keys do not depend on it, and drawing VGG's 100M+ random numbers takes
    seconds (test_default_initialisation checks the initialisation)."""
    monkeypatch.setattr(nn.init, "_default_layer_init", lambda *args, **kwargs: None)
    monkeypatch.setattr(nn.init, "kaiming_normal_", lambda t, *args, **kwargs: t)
    monkeypatch.setattr(nn.init, "normal_", lambda t, *args, **kwargs: t)


def test_fixture_covers_every_constructor():
    names = {n.partition("(")[0] for n in TV}
    assert names == {
        "alexnet",
        "resnet18",
        "resnet34",
        "resnet50",
        "resnet101",
        "resnext50_32x4d",
        "wide_resnet50_2",
        "mobilenet_v2",
        "mobilenet_v3_small",
        "mobilenet_v3_large",
    } | {"vgg%d%s" % (d, bn) for d in (11, 13, 16, 19) for bn in ("", "_bn")}


@pytest.mark.parametrize("name", sorted(TV))
def test_state_dict_keys_shapes_and_parameter_count(name, no_init):
    model = _construct(name)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got == TV[name]["keys"]  # same keys, same order, same shapes
    n = sum(p.numel() for p in model.parameters())
    assert n == TV[name]["num_params"]
    if name in DOCUMENTED:
        assert n == DOCUMENTED[name]
    assert isinstance(model, models.ClassifierMixin)


# ---------------------------------------------------------------------------- forward computations vs torchvision

OUTPUTS = dict(np.load(os.path.join(HERE, "fixtures", "vision", "torchvision_outputs.npz")))


def deterministic_state(shapes):
    """Parameters and buffers from a formula (the same as make_torchvision_fixtures.py's), so that ember's and
    torchvision's models can be compared without shipping weights."""
    out = {}
    for j, (key, shape) in enumerate(shapes):
        n = int(np.prod(shape)) if shape else 1
        wave = np.sin(np.arange(n, dtype=np.float64) * 0.7 + j).reshape(shape)
        leaf = key.rsplit(".", 1)[1]
        if leaf == "num_batches_tracked":
            out[key] = np.array(0, np.int64)
        elif leaf == "running_var":
            out[key] = (1.0 + 0.5 * np.abs(wave)).astype(np.float32)
        elif leaf in ("running_mean", "bias"):
            out[key] = (0.1 * wave).astype(np.float32)
        elif len(shape) == 1:
            out[key] = (1.0 + 0.1 * wave).astype(np.float32)
        else:
            out[key] = (wave * (1.5 / np.sqrt(int(np.prod(shape[1:]))))).astype(np.float32)
    return out


def deterministic_input(shape):
    return np.sin(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.013).reshape(shape).astype(np.float32)


FORWARD = {
    "resnet18": (models.resnet18, {}, (1, 3, 64, 64)),
    "resnet50_dilated": (
        models.resnet50,
        {"num_classes": 10, "replace_stride_with_dilation": [False, True, True]},
        (1, 3, 32, 32),
    ),
    "mobilenet_v2": (models.mobilenet_v2, {"num_classes": 10}, (2, 3, 32, 32)),
    "mobilenet_v3_small": (models.mobilenet_v3_small, {}, (1, 3, 48, 48)),
    "mobilenet_v3_large": (models.mobilenet_v3_large, {"num_classes": 10, "width_mult": 0.75}, (1, 3, 32, 32)),
    "alexnet": (models.alexnet, {"num_classes": 10}, (1, 3, 64, 64)),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torchvision(name, no_init):
    fn, kwargs, in_shape = FORWARD[name]
    model = fn(**kwargs).eval()
    state = deterministic_state([(k, tuple(v.shape)) for k, v in model.state_dict().items()])
    model.load_state_dict({k: ember.from_numpy(v) for k, v in state.items()})
    with ember.no_grad():
        out = model(ember.from_numpy(deterministic_input(in_shape))).numpy()
    ref = OUTPUTS[name]
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-4 * np.abs(ref).max())


def test_lenet():
    model = models.lenet()
    assert [(k, tuple(v.shape)) for k, v in model.state_dict().items()] == [
        ("conv1.weight", (6, 1, 5, 5)),
        ("conv1.bias", (6,)),
        ("conv2.weight", (16, 6, 5, 5)),
        ("conv2.bias", (16,)),
        ("fc1.weight", (120, 400)),
        ("fc1.bias", (120,)),
        ("fc2.weight", (84, 120)),
        ("fc2.bias", (84,)),
        ("fc3.weight", (10, 84)),
        ("fc3.bias", (10,)),
    ]
    assert sum(p.numel() for p in model.parameters()) == 61706
    assert tuple(model(ember.rand(2, 1, 28, 28)).shape) == (2, 10)
    rgb32 = models.LeNet(num_classes=4, in_channels=3, padding=0)
    assert tuple(rgb32(ember.rand(1, 3, 32, 32)).shape) == (1, 4)
    with pytest.raises(ValueError, match="LeNet expects 28x28 inputs"):
        model(ember.rand(1, 1, 40, 40))


def test_forward_backward_small_resnet():
    model = models.resnet18(num_classes=4)
    x = ember.rand(2, 3, 32, 32)
    loss = nn.functional.cross_entropy(model(x), ember.tensor([3, 0]))
    loss.backward()
    assert model.conv1.weight.grad is not None and model.fc.bias.grad.shape == (4,)


def test_resnet_options(no_init):
    # Dilation instead of stride (the forward pass is compared with torchvision's in test_forward_matches_torchvision).
    model = models.resnet50(replace_stride_with_dilation=[False, True, True], num_classes=2)
    assert model.layer4[1].conv2.dilation == (4, 4) and model.layer3[0].conv2.dilation == (1, 1)
    assert model.layer4[0].conv2.dilation == (2, 2) and model.layer4[0].conv2.stride == (1, 1)
    assert model.layer2[0].conv2.stride == (2, 2) and model.layer4[0].downsample[0].stride == (1, 1)
    z = models.resnet18(zero_init_residual=True)
    assert all(float(b.bn2.weight.abs().sum()) == 0 for layer in (z.layer1, z.layer4) for b in layer)
    z50 = models.resnet50(zero_init_residual=True)
    assert float(z50.layer2[0].bn3.weight.abs().sum()) == 0 and float(z50.layer2[0].bn2.weight.sum()) > 0
    gn = models.resnet18(norm_layer=lambda c: nn.GroupNorm(2, c))
    assert isinstance(gn.bn1, nn.GroupNorm) and "bn1.running_mean" not in gn.state_dict()
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1 and base_width=64"):
        models.resnet18(groups=2)
    with pytest.raises(NotImplementedError, match="Dilation > 1 not supported in BasicBlock"):
        models.resnet18(replace_stride_with_dilation=[False, False, True])
    with pytest.raises(ValueError, match="replace_stride_with_dilation should be None or a 3-element tuple"):
        models.resnet50(replace_stride_with_dilation=[True])


def test_default_initialisation():
    ember.manual_seed(0)
    r = models.resnet18()
    w = r.layer3[0].conv1.weight  # [256, 128, 3, 3]: kaiming normal, fan_out = 256 * 9, ReLU gain
    std = math.sqrt(2.0 / (256 * 9))
    assert abs(float(w.std()) / std - 1) < 0.02 and abs(float(w.mean())) < 0.05 * std
    assert float(r.bn1.weight.min()) == 1.0 and float(r.bn1.bias.abs().max()) == 0.0
    # torchvision leaves ResNet's fc at nn.Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert float(r.fc.weight.abs().max()) <= 1 / math.sqrt(512)
    m = models.mobilenet_v3_small()
    lin = m.classifier[0].weight
    assert abs(float(lin.std()) / 0.01 - 1) < 0.02 and float(m.classifier[0].bias.abs().max()) == 0.0
    bn = m.features[1].block[0][1]
    assert bn.eps == 0.001 and bn.momentum == 0.01
    assert float(m.features[0][0].weight.abs().sum()) > 0 and m.features[0][0].bias is None


def test_state_dict_round_trip_and_strict_keys():
    a, b = models.mobilenet_v3_small(num_classes=3), models.mobilenet_v3_small(num_classes=3)
    b.load_state_dict(a.state_dict())
    x = ember.rand(1, 3, 32, 32)
    a.eval(), b.eval()
    with ember.no_grad():
        assert ember.equal(a(x), b(x))
    sd = a.state_dict()
    sd["classifier.3.weightz"] = sd.pop("classifier.3.weight")
    with pytest.raises(RuntimeError, match="classifier.3.weight"):
        b.load_state_dict(sd)


def test_weights_argument(tmp_path, monkeypatch):
    # Weights load from the hub cache only (test_vision_zoo.py loads them); without the file the error names it.
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"resnet18-f37072fd\.pth is missing.*https://download\.pytorch\.org"):
        models.resnet18(weights="IMAGENET1K_V1")
    with pytest.warns(UserWarning, match="'pretrained' is deprecated"), pytest.raises(FileNotFoundError):
        models.mobilenet_v2(pretrained=True)
    with pytest.raises(ValueError, match="no pretrained weights"):
        models.lenet(weights="IMAGENET1K_V1")
    assert models.lenet(weights=None, progress=False).fc3.out_features == 10


# ---------------------------------------------------------------------------- predict


def test_predict_batch_list_and_top_k():
    ember.manual_seed(1)
    model = models.lenet()
    x = ember.rand(4, 1, 28, 28)
    model.eval()
    with ember.no_grad():
        logits = model(x).numpy().astype(np.float64)
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    model.train()
    labels, scores = model.predict(x)
    assert model.training  # the previous mode is restored
    assert labels.dtype == ember.int64 and tuple(labels.shape) == (4,) and tuple(scores.shape) == (4,)
    np.testing.assert_array_equal(labels.numpy(), probs.argmax(1))
    np.testing.assert_allclose(scores.numpy(), probs.max(1), rtol=1e-5)
    assert not scores.requires_grad
    l2, s2 = model.predict([x[i] for i in range(4)])
    assert ember.equal(l2, labels) and ember.allclose(s2, scores)
    top, top_scores = model.predict(x, top_k=3)
    assert tuple(top.shape) == (4, 3) and tuple(top_scores.shape) == (4, 3)
    np.testing.assert_array_equal(top.numpy(), np.argsort(-probs, 1)[:, :3])
    np.testing.assert_allclose(top_scores.numpy(), -np.sort(-probs, 1)[:, :3], rtol=1e-5)
    model.eval()
    model.predict(x)
    assert not model.training


def test_predict_uses_eval_mode():
    model = models.mobilenet_v3_small(num_classes=5).train()  # dropout and batch statistics in training
    x = ember.rand(3, 3, 32, 32)
    a = model.predict(x, top_k=5)[1]
    b = model.predict(x[:1], top_k=5)[1]
    assert ember.allclose(a[:1], b, atol=1e-6)  # per-sample results: eval mode, running statistics
    assert model.training
    assert float(a.sum(dim=1).sub(1).abs().max()) < 1e-5


def test_predict_errors():
    model = models.lenet()
    with pytest.raises(ValueError, match=r"expects a batch \[N, C, H, W\]"):
        model.predict(ember.rand(1, 28, 28))
    with pytest.raises(TypeError, match="expects float images"):
        model.predict(ember.zeros(1, 1, 28, 28, dtype=ember.uint8), transforms=False)
    with pytest.raises(ValueError, match="top_k=11 is more than the 10 classes"):
        model.predict(ember.rand(1, 1, 28, 28), top_k=11)
    with pytest.raises(ValueError, match="images of one size"):
        model.predict([ember.rand(1, 28, 28), ember.rand(1, 32, 32)])
    with pytest.raises(ValueError, match="empty list"):
        model.predict([])
    with pytest.raises(TypeError, match="expects a tensor"):
        model.predict(np.zeros((1, 1, 28, 28), np.float32))
    assert model.training
