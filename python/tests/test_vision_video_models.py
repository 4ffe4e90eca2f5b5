"""ember.vision.models.video and .optical_flow against torchvision 0.29 (issue 24): every builder's state_dict keys,
order and shapes and its parameter count equal torchvision's (fixtures/torchvision_video_state_dicts.json.gz,
recorded by fixtures/vision/make_tv029_video_fixtures.py, so this runs without torch); the weights enums and
presets; and, where the reference PyTorch (/opt/torch2/py) exists, the same eval outputs as torchvision for the same
(random) weights on tiny clips."""

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
from ember.vision.models import optical_flow, video

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

with gzip.open(os.path.join(HERE, "fixtures", "torchvision_video_state_dicts.json.gz"), "rt") as f:
    TV = json.load(f)

BUILDERS = models.list_models(module=video) + models.list_models(module=optical_flow)


@pytest.fixture
def no_init(monkeypatch):
    """Parameter initialisation off: the keys do not depend on it, and the big models build faster."""
    for name in ("kaiming_normal_", "kaiming_uniform_", "normal_", "trunc_normal_", "uniform_", "xavier_uniform_"):
        monkeypatch.setattr(nn.init, name, lambda t, *args, **kwargs: t)
    monkeypatch.setattr(nn.init, "_default_layer_init", lambda *args, **kwargs: None)


def test_builders_are_torchvisions():
    assert set(BUILDERS) <= set(TV)
    assert {"r3d_18", "mc3_18", "r2plus1d_18"} <= set(BUILDERS)
    assert not set(BUILDERS) & set(models.list_models(module=models))  # subpackages, as in torchvision
    assert models.list_models(module=optical_flow) == ["raft_large", "raft_small"]
    assert models.get_model_builder("r3d_18") is video.r3d_18


@pytest.mark.parametrize("name", BUILDERS)
def test_state_dict_keys_and_shapes(name, no_init):
    model = models.get_model(name)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got == TV[name]["keys"]
    n = sum(p.numel() for p in model.parameters())
    assert n == TV[name]["num_params"]
    for member in models.get_model_weights(name):
        assert member.meta["num_params"] == n


def test_weights_enums_and_meta(tmp_path, monkeypatch):
    w = models.get_model_weights("r2plus1d_18")
    assert w is video.R2Plus1D_18_Weights and w.DEFAULT is w.KINETICS400_V1
    assert repr(w.DEFAULT) == "R2Plus1D_18_Weights.KINETICS400_V1"
    assert models.get_weight("R3D_18_Weights.KINETICS400_V1") is video.R3D_18_Weights.KINETICS400_V1
    meta = video.MC3_18_Weights.DEFAULT.meta
    assert len(meta["categories"]) == 400 and meta["categories"][0] == "abseiling"
    assert meta["_metrics"]["Kinetics-400"]["acc@1"] == 63.96 and meta["min_size"] == (1, 1)
    assert w.DEFAULT.url == "https://download.pytorch.org/models/r2plus1d_18-91a641e6.pth"
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"r3d_18-b3b3357e\.pth is missing"):
        video.r3d_18(weights="KINETICS400_V1")
    with pytest.raises(ValueError, match="expected value 400 but got 10"):
        video.r3d_18(weights="KINETICS400_V1", num_classes=10)


def test_video_classification_preset():
    tf = video.R3D_18_Weights.DEFAULT.transforms()
    assert tf.crop_size == [112, 112] and tf.resize_size == [128, 171]
    rng = np.random.default_rng(0)
    clip = rng.integers(0, 256, (2, 3, 3, 20, 24), dtype=np.uint8)  # [N, T, C, H, W]
    small = video.R3D_18_Weights.DEFAULT.transforms.func(crop_size=(8, 10), resize_size=(16, 24))
    out = small(ember.tensor(clip))
    assert tuple(out.shape) == (2, 3, 3, 8, 10)  # [N, C, T, H, W]
    # frame by frame, the same as resize (no antialias) + crop + normalize of the image functional API
    from ember.vision.transforms import functional as F

    frame = F.resize(ember.tensor(clip[1, 2]), [16, 24], antialias=False)
    frame = F.normalize(F.convert_image_dtype(F.center_crop(frame, [8, 10]), ember.float), small.mean, small.std)
    np.testing.assert_allclose(out[1, :, 2].numpy(), frame.numpy(), rtol=1e-6, atol=1e-6)
    assert tuple(small(ember.tensor(clip[0])).shape) == (3, 3, 8, 10)
    with pytest.raises(ValueError, match=r"VideoClassification expects a \[T, C, H, W\]"):
        small(ember.zeros(3, 20, 24))


def test_video_resnet_forward_backward_and_options():
    ember.manual_seed(0)
    model = video.mc3_18(num_classes=5)
    assert model.layer2[0].conv1[0].kernel_size == (1, 3, 3) and model.layer1[0].conv1[0].kernel_size == (3, 3, 3)
    assert model.layer2[0].downsample[0].stride == (1, 2, 2)
    r21 = video.r2plus1d_18()
    assert r21.layer2[0].conv1[0][0].out_channels == (64 * 128 * 27) // (64 * 9 + 3 * 128)  # 230: midplanes
    x = ember.rand(2, 3, 4, 32, 32)
    loss = nn.functional.cross_entropy(model(x), ember.tensor([1, 4]))
    loss.backward()
    assert model.stem[0].weight.grad.shape == (64, 3, 3, 7, 7) and float(model.fc.bias.grad.abs().sum()) > 0
    w = model.layer3[0].conv1[0].weight  # kaiming normal, fan_out = 256 * 9
    assert abs(float(w.std()) * (2.0 / (256 * 9)) ** -0.5 - 1) < 0.05
    assert float(model.fc.bias.abs().max()) == 0.0 and abs(float(model.fc.weight.std()) / 0.01 - 1) < 0.1


# ---------------------------------------------------------------------------- eval outputs vs torchvision

# name -> (builder kwargs, input shape): tiny clips, 4 frames
REFERENCE = {
    "r3d_18": ({"num_classes": 10}, (2, 3, 4, 32, 32)),
    "mc3_18": ({}, (1, 3, 4, 32, 48)),
    "r2plus1d_18": ({"num_classes": 7}, (2, 3, 4, 32, 32)),
    "s3d": ({}, (1, 3, 8, 64, 64)),  # with a 1x2x2 average pooling (both sides): its smallest clip is 16x224x224
    "swin3d_t": ({"num_classes": 10}, (2, 3, 4, 32, 36)),  # 2x8x9 patches: shrunk, padded and shifted windows
    # two images [N, 3, H, W] (the smallest: 128, for the 4-level pyramid), all the flows stacked, 3 updates
    "raft_small": ({}, (1, 3, 128, 144)),
    "raft_large": ({}, (2, 3, 128, 144)),
}
# the average pooling's kernel for the tiny clips, set on both sides
AVGPOOL = {"s3d": (1, 2, 2)}
REFERENCE = {k: v for k, v in REFERENCE.items() if k in BUILDERS}
# MViT wants clips of exactly its temporal_size x spatial_size (16x224x224 for the builders): small MViTs instead, v1's
# and v2's options, with pooled queries and keys/values. key -> (MViT kwargs, input shape)
_MVIT_BLOCKS = [  # num_heads, input_channels, output_channels, kernel_q, kernel_kv, stride_q, stride_kv
    [1, 16, 32, [3, 3, 3], [3, 3, 3], [1, 2, 2], [1, 2, 2]],
    [2, 32, 32, [], [3, 3, 3], [], [1, 2, 2]],
    [2, 32, 48, [3, 3, 3], [3, 3, 3], [1, 1, 1], [1, 1, 1]],
]
_MVIT = {"spatial_size": [32, 32], "temporal_size": 4, "block_setting": _MVIT_BLOCKS, "num_classes": 10}
MVIT = {
    "mvit_v1": (dict(_MVIT, residual_pool=False, residual_with_cls_embed=False, rel_pos_embed=False,
                     proj_after_attn=False), (2, 3, 4, 32, 32)),
    "mvit_v2": (dict(_MVIT, residual_pool=True, residual_with_cls_embed=False, rel_pos_embed=True,
                     proj_after_attn=True), (2, 3, 4, 32, 32)),
    "mvit_v2_cls": (dict(_MVIT, residual_pool=True, residual_with_cls_embed=True, rel_pos_embed=True,
                         proj_after_attn=False), (1, 3, 4, 32, 32)),
}  # fmt: skip

TORCH_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    from torchvision import models
    torch.manual_seed(0)
    torch.set_num_threads(1)
    out_dir, cases, avgpool = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
    mvit = json.loads(sys.argv[4])
    outputs = {}
    for name, (kwargs, shape) in {**cases, **mvit}.items():
        if name in mvit:
            blocks = [models.video.mvit.MSBlockConfig(*b) for b in kwargs["block_setting"]]
            model = models.video.MViT(**dict(kwargs, block_setting=blocks, spatial_size=tuple(kwargs["spatial_size"])))
        else:
            model = models.get_model(name, **kwargs)
        with torch.no_grad():  # batch statistics and zero-initialized tensors made random, so the test sees them
            for k, v in model.state_dict().items():
                if k.endswith("running_mean"):
                    v.normal_(0, 0.1)
                elif k.endswith("running_var"):
                    v.uniform_(0.5, 1.5)
                elif v.is_floating_point() and v.numel() and not v.any():
                    v.normal_(0, 0.02)
        if name in avgpool:
            model.avgpool.kernel_size = tuple(avgpool[name])
        model.eval()
        torch.save(model.state_dict(), f"{out_dir}/{name}.pth")
        x = torch.from_numpy(np.random.default_rng(1).normal(size=shape).astype(np.float32))
        with torch.no_grad():
            if name.startswith("raft"):
                outputs[name] = torch.stack(model(x, x.flip(-1).roll(5, -2), num_flow_updates=3)).numpy()
            else:
                outputs[name] = model(x).numpy()
    np.savez(f"{out_dir}/outputs.npz", **outputs)
    """
)


@pytest.fixture(scope="module")
def torchvision_outputs(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    out = tmp_path_factory.mktemp("tvvideo")
    script = out / "ref.py"
    script.write_text(TORCH_SCRIPT)
    args = [str(out), json.dumps(REFERENCE), json.dumps(AVGPOOL), json.dumps(MVIT)]
    subprocess.run([TORCH_PY, str(script), *args], check=True, timeout=600, env=dict(os.environ, PYTHONPATH=""))
    return out, dict(np.load(out / "outputs.npz"))


@needs_torch
@pytest.mark.parametrize("name", sorted(REFERENCE) + sorted(MVIT))
def test_eval_outputs_match_torchvision(name, torchvision_outputs, no_init):
    out_dir, outputs = torchvision_outputs
    if name in MVIT:
        kwargs, shape = MVIT[name]
        blocks = [video.mvit.MSBlockConfig(*b) for b in kwargs["block_setting"]]
        model = video.MViT(**dict(kwargs, block_setting=blocks))
    else:
        kwargs, shape = REFERENCE[name]
        model = models.get_model(name, **kwargs)
    model.load_state_dict(ember.load(str(out_dir / f"{name}.pth")))
    if name in AVGPOOL:
        model.avgpool.kernel_size = AVGPOOL[name]
    model.eval()
    x = ember.tensor(np.random.default_rng(1).normal(size=shape).astype(np.float32))
    with ember.no_grad():
        if name.startswith("raft"):
            got = ember.stack(model(x, x.flip(-1).roll(5, -2), num_flow_updates=3)).numpy()
        else:
            got = model(x).numpy()
    ref = outputs[name]
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_mvit_errors(no_init):
    kwargs, _ = MVIT["mvit_v2"]
    model = video.MViT(**dict(kwargs, block_setting=[video.mvit.MSBlockConfig(*b) for b in kwargs["block_setting"]]))
    with pytest.raises(
        ValueError, match=r"MViT: the clip makes a \[2, 8, 12\] grid of patches but the model was built"
    ):
        model(ember.zeros(1, 3, 4, 32, 48))
    with pytest.raises(TypeError, match="got multiple values for keyword argument 'rel_pos_embed'"):
        video.mvit_v2_s(rel_pos_embed=False)
    with pytest.raises(ValueError, match="The configuration parameter can't be empty"):
        video.MViT((32, 32), 4, [], False, False, False, False)


def test_raft_weights_presets_and_hub_cache(tmp_path, monkeypatch):
    w = optical_flow.Raft_Small_Weights
    assert models.get_model_weights("raft_small") is w and w.DEFAULT is w.C_T_V2
    assert [m.name for m in optical_flow.Raft_Large_Weights] == [
        "C_T_V1", "C_T_V2", "C_T_SKHT_V1", "C_T_SKHT_V2", "C_T_SKHT_K_V1", "C_T_SKHT_K_V2"
    ]  # fmt: skip
    assert optical_flow.Raft_Large_Weights.DEFAULT is optical_flow.Raft_Large_Weights.C_T_SKHT_V2
    meta = w.C_T_V2.meta
    assert meta["categories"] is None and meta["min_size"] == (128, 128) and meta["num_params"] == 990162
    # OpticalFlow: both images to float in [-1, 1]
    img = np.random.default_rng(3).integers(0, 256, (2, 3, 8, 8), dtype=np.uint8)
    a, b = w.DEFAULT.transforms()(ember.tensor(img), ember.tensor(img[::-1].copy()))
    np.testing.assert_allclose(a.numpy(), img / 127.5 - 1, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), img[::-1] / 127.5 - 1, atol=1e-6)
    # weights= loads the file from the hub cache
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"raft_small_C_T_V2-01064c6d\.pth is missing"):
        optical_flow.raft_small(weights="DEFAULT")
    ember.manual_seed(0)
    source = optical_flow.raft_small()
    os.makedirs(tmp_path / "checkpoints")
    ember.save(source.state_dict(), str(tmp_path / "checkpoints" / os.path.basename(w.DEFAULT.url)))
    loaded = models.get_model("raft_small", weights="C_T_V2")
    for (k, x), (_, y) in zip(source.state_dict().items(), loaded.state_dict().items()):
        assert ember.equal(x, y), k


def test_raft_errors_and_backward():
    ember.manual_seed(0)
    model = optical_flow.raft_small()
    x = ember.rand(1, 3, 128, 128)
    with pytest.raises(ValueError, match=r"input images should have the same shape, instead got \(128, 128\)"):
        model(x, ember.rand(1, 3, 128, 136))
    with pytest.raises(ValueError, match="input image H and W should be divisible by 8, instead got 130"):
        model(ember.rand(1, 3, 130, 128), ember.rand(1, 3, 130, 128))
    with pytest.raises(ValueError, match=r"H and W of feature maps should be at least 16; .*at least 8 \* 16 = 128"):
        model(ember.rand(1, 3, 64, 128), ember.rand(1, 3, 64, 128))
    with pytest.raises(ValueError, match="The expected number of layers is 5, instead got 4"):
        optical_flow.raft.FeatureEncoder(layers=(1, 2, 3, 4))
    with pytest.raises(ValueError, match="kernel_size should either 1 or 2, instead got 3"):
        optical_flow.raft.RecurrentBlock(input_size=2, hidden_size=2, kernel_size=(3, 3, 3), padding=(1, 1, 1))
    flows = model(x, x.roll(3, -1), num_flow_updates=2)
    assert len(flows) == 2 and tuple(flows[-1].shape) == (1, 2, 128, 128)
    flows[-1].abs().mean().backward()  # the flow's gradient reaches both encoders (not through the coordinates)
    assert float(model.feature_encoder.convnormrelu[0].weight.grad.abs().sum()) > 0
    assert float(model.context_encoder.convnormrelu[0].weight.grad.abs().sum()) > 0


def test_upsample_flow_and_coords_grid():
    from ember.vision.models.optical_flow._utils import make_coords_grid, upsample_flow

    g = make_coords_grid(2, 3, 4).numpy()
    assert g.shape == (2, 2, 3, 4) and g[1, 0, 2, 3] == 3 and g[1, 1, 2, 3] == 2  # x then y
    rng = np.random.default_rng(4)
    flow = rng.normal(size=(1, 2, 3, 4)).astype(np.float32)
    # a mask that puts all the weight on the centre of the 3x3 neighbourhood: each coarse pixel repeated 2x2, x2
    mask = np.full((1, 9, 2, 2, 3, 4), -1e4, np.float32)
    mask[:, 4] = 0
    up = upsample_flow(ember.tensor(flow), ember.tensor(mask.reshape(1, 36, 3, 4)), factor=2).numpy()
    np.testing.assert_allclose(up, 2 * flow.repeat(2, axis=2).repeat(2, axis=3), rtol=1e-6)
