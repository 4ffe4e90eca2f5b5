"""ember.vision.models' zoo against torchvision 0.29 (issue 24): for all 80 builders, the state_dict keys, order and
shapes and the parameter count equal torchvision's (fixtures/torchvision_state_dicts.json.gz, recorded by
fixtures/vision/make_tv029_fixtures.py, so this runs without torch); the weights enums, list_models/get_model and
the hub-cache loading; and, where the reference PyTorch (/opt/torch2/py) exists, the same eval outputs as torchvision
for the same (random) weights on the smaller variant of each family."""

import gzip
import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import ember
from ember import nn
from ember.vision import models

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

with gzip.open(os.path.join(HERE, "fixtures", "torchvision_state_dicts.json.gz"), "rt") as f:
    TV = json.load(f)


@pytest.fixture
def no_init(monkeypatch):
    """Parameter initialisation off: the keys do not depend on it, drawing the big models' numbers takes seconds, and
    untouched parameters take no memory (vit_h_14 and regnet_y_128gf build in well under 100 MB)."""
    for name in ("kaiming_normal_", "kaiming_uniform_", "normal_", "trunc_normal_", "uniform_", "xavier_uniform_"):
        monkeypatch.setattr(nn.init, name, lambda t, *args, **kwargs: t)
    monkeypatch.setattr(nn.init, "_default_layer_init", lambda *args, **kwargs: None)


def test_list_models_is_torchvisions():
    assert set(models.list_models(module=models)) == set(TV) | {"lenet"}  # segmentation/detection: their own modules
    assert models.list_models(include="densenet*") == ["densenet121", "densenet161", "densenet169", "densenet201"]
    assert models.list_models(include="regnet_y_*", exclude=["*gf"]) == ["regnet_y_400mf", "regnet_y_800mf"]
    assert set(models.list_models()) > set(models.list_models(module=models))
    with pytest.raises(ValueError, match="Unknown model resnet9"):
        models.get_model_builder("resnet9")


@pytest.mark.parametrize("name", sorted(TV))
def test_state_dict_keys_and_shapes(name, no_init):
    model = models.get_model(name)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got == TV[name]["keys"]
    assert sum(p.numel() for p in model.parameters()) == TV[name]["num_params"]
    assert isinstance(model, models.ClassifierMixin)


def test_weights_enums_and_meta():
    w = models.get_model_weights("resnet50")
    assert w is models.ResNet50_Weights and w.DEFAULT is w.IMAGENET1K_V2
    assert [m.name for m in w] == ["IMAGENET1K_V1", "IMAGENET1K_V2"]  # DEFAULT is an alias
    assert repr(w.DEFAULT) == "ResNet50_Weights.IMAGENET1K_V2"
    assert models.get_weight("ResNet50_Weights.IMAGENET1K_V1") is w.IMAGENET1K_V1
    assert w.verify("IMAGENET1K_V1") is w.verify("ResNet50_Weights.IMAGENET1K_V1") is w.IMAGENET1K_V1
    with pytest.raises(TypeError, match="expected ResNet50_Weights but received DenseNet121_Weights"):
        w.verify(models.DenseNet121_Weights.DEFAULT)
    with pytest.raises(ValueError, match="Invalid weight name"):
        models.get_weight("resnet50")
    meta = models.DenseNet121_Weights.IMAGENET1K_V1.meta
    assert len(meta["categories"]) == 1000 and meta["categories"][0] == "tench"
    assert meta["num_params"] == TV["densenet121"]["num_params"]
    assert meta["_metrics"]["ImageNet-1K"]["acc@1"] == 74.434 and meta["min_size"] == (29, 29)
    assert models.DenseNet121_Weights.DEFAULT.url == "https://download.pytorch.org/models/densenet121-a639ec97.pth"
    assert models.get_model_weights(models.vit_b_16).IMAGENET1K_SWAG_E2E_V1.transforms().crop_size == [384]
    # Every enum's num_params is its builder's parameter count (the key test checks those against torchvision), but
    # for the weights without auxiliary heads (googlenet, inception_v3) or at another resolution (ViT's SWAG).
    for name in models.list_models(module=models, exclude=["lenet", "googlenet", "inception_v3", "vit_*"]):
        for member in models.get_model_weights(name):
            assert member.meta["num_params"] == TV[name]["num_params"] or member.meta["categories"] is None, member


def _write_checkpoint(hub_dir, weights, model):
    os.makedirs(os.path.join(hub_dir, "checkpoints"), exist_ok=True)
    path = os.path.join(hub_dir, "checkpoints", os.path.basename(weights.url))
    ember.save(model.state_dict(), path)
    return path


def test_weights_load_from_the_hub_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    weights = models.SqueezeNet1_1_Weights.IMAGENET1K_V1
    with pytest.raises(FileNotFoundError) as e:
        models.squeezenet1_1(weights=weights)
    assert "squeezenet1_1-b8a52dc0.pth" in str(e.value) and weights.url in str(e.value)
    ember.manual_seed(0)
    source = models.squeezenet1_1()
    _write_checkpoint(str(tmp_path), weights, source)
    for model in (models.squeezenet1_1(weights=weights), models.get_model("squeezenet1_1", weights="DEFAULT")):
        for (k, a), (_, b) in zip(source.state_dict().items(), model.state_dict().items()):
            assert ember.equal(a, b), k
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 1000 but got 10 instead"):
        models.squeezenet1_1(weights=weights, num_classes=10)
    # torchvision's DenseNet checkpoints use the old key names ("norm.1"): they are renamed while loading.
    dn = models.densenet121()
    old = {
        k.replace("norm1.", "norm.1.").replace("conv2.", "conv.2."): v
        for k, v in dn.state_dict().items()
        if not k.endswith("num_batches_tracked")  # the old checkpoints predate it
    }
    path = os.path.join(str(tmp_path), "checkpoints", "densenet121-a639ec97.pth")
    ember.save(old, path)
    loaded = models.densenet121(weights="DEFAULT")
    assert ember.equal(
        loaded.features.denseblock1.denselayer1.norm1.weight, dn.features.denseblock1.denselayer1.norm1.weight
    )
    # googlenet and inception_v3 with weights drop the auxiliary heads unless asked for, and transform the input.
    g = models.googlenet(aux_logits=True, init_weights=True)
    _write_checkpoint(str(tmp_path), models.GoogLeNet_Weights.DEFAULT, g)
    g2 = models.googlenet(weights="DEFAULT")
    assert g2.aux1 is None and g2.transform_input and not g2.aux_logits


REFERENCE = ["densenet121", "squeezenet1_0", "squeezenet1_1", "googlenet", "inception_v3", "shufflenet_v2_x0_5",
             "mnasnet0_5", "efficientnet_b0", "efficientnet_v2_s", "regnet_y_400mf", "regnet_x_400mf",
             "convnext_tiny", "vit_b_32", "resnet18", "mobilenet_v3_small", "swin_t", "swin_v2_t",
             "maxvit_t"]  # fmt: skip
KWARGS = {"vit_b_32": {"image_size": 64}, "googlenet": {"init_weights": True}, "inception_v3": {"init_weights": True}}
SIZE = {"inception_v3": 80, "maxvit_t": 224}  # MaxViT's windows need a 224 (7 * 32) input

TORCH_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    from torchvision import models
    torch.manual_seed(0)
    torch.set_num_threads(1)
    out_dir, names = sys.argv[1], sys.argv[2].split(",")
    kwargs, sizes = json.loads(sys.argv[3]), json.loads(sys.argv[4])
    outputs = {}
    for name in names:
        model = models.get_model(name, **kwargs.get(name, {}))
        with torch.no_grad():  # batch statistics and zero-initialized heads made random, so the test sees them
            for k, v in model.state_dict().items():
                if k.endswith("running_mean"):
                    v.normal_(0, 0.1)
                elif k.endswith("running_var"):
                    v.uniform_(0.5, 1.5)
                elif v.is_floating_point() and v.numel() and not v.any():
                    v.normal_(0, 0.02)
        model.eval()
        torch.save(model.state_dict(), f"{out_dir}/{name}.pth")
        s = sizes.get(name, 64)
        x = torch.from_numpy(np.random.default_rng(1).normal(size=(2, 3, s, s)).astype(np.float32))
        with torch.no_grad():
            outputs[name] = model(x).numpy()
    np.savez(f"{out_dir}/outputs.npz", **outputs)
    """
)


@pytest.fixture(scope="module")
def torchvision_outputs(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    out = tmp_path_factory.mktemp("tvzoo")
    script = out / "ref.py"
    script.write_text(TORCH_SCRIPT)
    args = [str(out), ",".join(REFERENCE), json.dumps(KWARGS), json.dumps(SIZE)]
    subprocess.run([TORCH_PY, str(script), *args], check=True, timeout=600, env=dict(os.environ, PYTHONPATH=""))
    return out, dict(np.load(out / "outputs.npz"))


@needs_torch
@pytest.mark.parametrize("name", REFERENCE)
def test_eval_outputs_match_torchvision(name, torchvision_outputs, no_init):
    out_dir, outputs = torchvision_outputs
    model = models.get_model(name, **KWARGS.get(name, {}))
    model.load_state_dict(ember.load(str(out_dir / f"{name}.pth")))
    model.eval()
    s = SIZE.get(name, 64)
    x = ember.tensor(np.random.default_rng(1).normal(size=(2, 3, s, s)).astype(np.float32))
    with ember.no_grad():
        got = model(x).numpy()
    ref = outputs[name]
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


@needs_torch
def test_transforms_match_torchvision(tmp_path):
    img = np.random.default_rng(2).integers(0, 256, (3, 300, 260), dtype=np.uint8)
    np.save(tmp_path / "img.npy", img)
    script = (
        "import sys, numpy as np, torch\n"
        "from torchvision.models import ResNet50_Weights, ViT_B_16_Weights\n"
        "x = torch.from_numpy(np.load(sys.argv[1]))\n"
        "np.savez(sys.argv[2], a=ResNet50_Weights.DEFAULT.transforms()(x).numpy(),"
        " b=ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1.transforms()(x).numpy())\n"
    )
    subprocess.run([TORCH_PY, "-c", script, str(tmp_path / "img.npy"), str(tmp_path / "out.npz")], check=True)
    ref = np.load(tmp_path / "out.npz")
    x = ember.tensor(img)
    a = models.ResNet50_Weights.DEFAULT.transforms()(x).numpy()
    b = models.ViT_B_16_Weights.IMAGENET1K_SWAG_E2E_V1.transforms()(x).numpy()
    assert a.shape == ref["a"].shape == (3, 224, 224) and b.shape == ref["b"].shape == (3, 384, 384)
    np.testing.assert_allclose(a, ref["a"], atol=2e-2)  # uint8 resize rounding may differ by one level
    np.testing.assert_allclose(b, ref["b"], atol=2e-2)
    assert np.abs(a - ref["a"]).mean() < 1e-3


@needs_torch
def test_interpolate_embeddings_matches_torchvision(tmp_path):
    from ember.vision.models import vision_transformer

    pos = np.random.default_rng(4).normal(size=(1, 17, 8)).astype(np.float32)  # class token + a 4x4 grid
    np.save(tmp_path / "pos.npy", pos)
    script = (
        "import sys, numpy as np, torch\n"
        "from torchvision.models.vision_transformer import interpolate_embeddings\n"
        "s = {'encoder.pos_embedding': torch.from_numpy(np.load(sys.argv[1])), 'heads.head.weight': torch.zeros(1)}\n"
        "out = interpolate_embeddings(96, 16, s, reset_heads=True)\n"
        "np.save(sys.argv[2], out['encoder.pos_embedding'].numpy()); assert list(out) == ['encoder.pos_embedding']\n"
    )
    subprocess.run([TORCH_PY, "-c", script, str(tmp_path / "pos.npy"), str(tmp_path / "out.npy")], check=True)
    state = {"encoder.pos_embedding": ember.tensor(pos), "heads.head.weight": ember.zeros(1)}
    out = vision_transformer.interpolate_embeddings(96, 16, state, reset_heads=True)
    assert list(out) == ["encoder.pos_embedding"]
    np.testing.assert_allclose(
        out["encoder.pos_embedding"].numpy(), np.load(tmp_path / "out.npy"), rtol=1e-5, atol=1e-6
    )


@needs_torch
def test_mnasnet_first_layout_checkpoints_load(tmp_path):
    # torchvision's own conversion (the version-1 metadata) loads a checkpoint with the unscaled stem; ember tells it
    # by the stem's shape. Both models must give the same outputs.
    script = textwrap.dedent(
        """
        import sys, numpy as np, torch
        from torchvision.models import mnasnet
        torch.manual_seed(0)
        src = mnasnet.mnasnet0_5()
        m = mnasnet._BN_MOMENTUM
        stem = [torch.nn.Conv2d(3, 32, 3, padding=1, stride=2, bias=False), torch.nn.BatchNorm2d(32, momentum=m),
                torch.nn.ReLU(inplace=True), torch.nn.Conv2d(32, 32, 3, padding=1, stride=1, groups=32, bias=False),
                torch.nn.BatchNorm2d(32, momentum=m), torch.nn.ReLU(inplace=True),
                torch.nn.Conv2d(32, 16, 1, padding=0, stride=1, bias=False), torch.nn.BatchNorm2d(16, momentum=m),
                mnasnet._stack(16, 16, 3, 2, 3, 3, m)]
        for i, layer in enumerate(stem):
            src.layers[i] = layer
        state = src.state_dict()
        state._metadata[""]["version"] = 1
        model = mnasnet.mnasnet0_5()
        model.load_state_dict(state)  # torchvision converts its stem
        model.eval()
        torch.save(dict(model.state_dict()), sys.argv[1])
        x = torch.from_numpy(np.random.default_rng(5).normal(size=(1, 3, 64, 64)).astype(np.float32))
        with torch.no_grad():
            np.save(sys.argv[2], model(x).numpy())
        """
    )
    subprocess.run(
        [TORCH_PY, "-c", script, str(tmp_path / "v1.pth"), str(tmp_path / "out.npy")],
        check=True,
        env=dict(os.environ, PYTHONPATH=""),
    )
    model = models.mnasnet0_5()
    with pytest.warns(UserWarning, match="A new version of MNASNet"):
        model.load_state_dict(ember.load(str(tmp_path / "v1.pth")))
    assert model.layers[0].out_channels == 32 and model._version == 1
    x = ember.tensor(np.random.default_rng(5).normal(size=(1, 3, 64, 64)).astype(np.float32))
    with ember.no_grad():
        got = model.eval()(x).numpy()
    np.testing.assert_allclose(got, np.load(tmp_path / "out.npy"), rtol=1e-4, atol=1e-5)
