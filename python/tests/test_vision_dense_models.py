"""ember.vision.models.segmentation and .detection against torchvision 0.29 (issue 24): every builder's state_dict
keys, order and shapes and its parameter count equal torchvision's (fixtures/torchvision_dense_state_dicts.json.gz,
recorded by fixtures/vision/make_tv029_dense_fixtures.py, so this runs without torch); the weights enums and the
registry; and, where the reference PyTorch (/opt/torch2/py) exists, the same eval outputs (and train-mode losses) as
torchvision for the same random weights and inputs."""

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
from ember.vision.models import detection, segmentation

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")

with gzip.open(os.path.join(HERE, "fixtures", "torchvision_dense_state_dicts.json.gz"), "rt") as f:
    TV = json.load(f)


@pytest.fixture
def no_init(monkeypatch):
    """Parameter initialisation off: the keys do not depend on it and drawing the numbers takes seconds."""
    for name in ("kaiming_normal_", "kaiming_uniform_", "normal_", "trunc_normal_", "uniform_", "xavier_uniform_"):
        monkeypatch.setattr(nn.init, name, lambda t, *args, **kwargs: t)
    monkeypatch.setattr(nn.init, "_default_layer_init", lambda *args, **kwargs: None)


@pytest.mark.parametrize("key", sorted(TV))
def test_state_dict_keys_and_shapes(key, no_init):
    name, _, variant = key.partition(":")
    kwargs = {"aux_loss": True} if variant == "aux_loss" else {}
    model = models.get_model(name, weights_backbone=None, **kwargs)
    got = [[k, list(v.shape)] for k, v in model.state_dict().items()]
    assert got == TV[key]["keys"]
    assert sum(p.numel() for p in model.parameters()) == TV[key]["num_params"]


def test_registry_and_weights():
    seg = models.list_models(module=segmentation)
    assert seg == sorted(k for k in TV if ":" not in k and ("lraspp" in k or "fcn_" in k or "deeplab" in k))
    assert set(models.list_models()) >= set(seg) | set(models.list_models(module=detection))
    assert "fcn_resnet50" not in models.list_models(module=models)
    w = models.get_model_weights("deeplabv3_resnet50")
    assert w is segmentation.DeepLabV3_ResNet50_Weights and w.DEFAULT is w.COCO_WITH_VOC_LABELS_V1
    assert len(w.DEFAULT.meta["categories"]) == 21 and w.DEFAULT.meta["categories"][0] == "__background__"
    assert w.DEFAULT.meta["num_params"] == TV["deeplabv3_resnet50:aux_loss"]["num_params"]
    assert w.DEFAULT.meta["_metrics"]["COCO-val2017-VOC-labels"]["miou"] == 66.4
    assert w.DEFAULT.transforms().resize_size == [520]
    assert models.get_weight("FCN_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1").url.endswith(
        "fcn_resnet50_coco-1167a1af.pth"
    )
    assert not hasattr(models, "FCN_ResNet50_Weights")  # in the subpackage, as torchvision
    with pytest.raises(ValueError, match="The parameter 'num_classes' expected value 21 but got 5 instead"):
        segmentation.fcn_resnet50(weights="DEFAULT", num_classes=5)
    with pytest.raises(NotImplementedError, match="does not use auxiliary loss"):
        segmentation.lraspp_mobilenet_v3_large(weights_backbone=None, aux_loss=True)
    with pytest.raises(FileNotFoundError, match="resnet50-0676ba61.pth"):
        segmentation.fcn_resnet50()  # the default backbone weights come from the hub cache


def test_segmentation_weights_load(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    os.makedirs(tmp_path / "checkpoints")
    ember.manual_seed(0)
    source = segmentation.lraspp_mobilenet_v3_large(weights_backbone=None)
    w = segmentation.LRASPP_MobileNet_V3_Large_Weights.DEFAULT
    ember.save(source.state_dict(), str(tmp_path / "checkpoints" / os.path.basename(w.url)))
    model = models.get_model("lraspp_mobilenet_v3_large", weights="DEFAULT")
    for (k, a), (_, b) in zip(source.state_dict().items(), model.state_dict().items()):
        assert ember.equal(a, b), k


def test_segmentation_outputs_and_aux():
    ember.manual_seed(0)
    model = segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None, num_classes=3, aux_loss=True).eval()
    x = ember.randn(2, 3, 40, 48)
    with ember.no_grad():
        out = model(x)
    assert list(out) == ["out", "aux"] and out["out"].shape == (2, 3, 40, 48) and out["aux"].shape == (2, 3, 40, 48)
    # The model is its backbone's features, the head and a bilinear upsampling: recompute "out" from the parts.
    with ember.no_grad():
        feats = model.backbone(x)
        ref = ember.nn.functional.interpolate(model.classifier(feats["out"]), size=(40, 48), mode="bilinear")
    np.testing.assert_allclose(out["out"].numpy(), ref.numpy(), rtol=1e-6, atol=1e-6)
    assert feats["out"].shape[-2:] == (3, 3) and feats["aux"].shape[-2:] == (5, 6)  # output strides 16 and 8


TORCH_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    from torchvision import models
    torch.manual_seed(0)
    torch.set_num_threads(1)
    out_dir, cases = sys.argv[1], json.loads(sys.argv[2])
    outputs = {}

    def with_masks(spec, targets):
        # The targets as NumPy arrays (float64 boxes, float32 keypoints, int64 labels), with "masks" (uint8 [N, H, W],
        # each box's inside set) when the case asks for them.
        dtypes = {"labels": np.int64, "keypoints": np.float32}
        out = []
        for t, size in zip(targets, spec["sizes"]):
            t = {k: np.asarray(v, dtype=dtypes.get(k, np.float64)) for k, v in t.items()}
            if spec.get("masks"):
                t["masks"] = np.zeros((len(t["boxes"]),) + tuple(size[1:]), dtype=np.uint8)
                for j, (x1, y1, x2, y2) in enumerate(t["boxes"]):
                    t["masks"][j, int(y1):int(y2), int(x1):int(x2)] = 1
            out.append(t)
        return out

    def flat(prefix, v):
        if isinstance(v, torch.Tensor):
            outputs[prefix] = v.detach().numpy()
        elif isinstance(v, dict):
            for k, x in v.items():
                flat(f"{prefix}/{k}", x)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                flat(f"{prefix}/{i}", x)

    for case, spec in cases.items():
        model = models.get_model(spec["name"], weights_backbone=None, **spec.get("kwargs", {}))
        for k, v in spec.get("attrs", {}).items():
            setattr(model, k, v)
        with torch.no_grad():  # batch statistics and zero-initialized layers made random, so the test sees them
            if spec.get("kaiming"):  # (small initial weights leave deep features constant and the scores tied)
                for m in model.modules():
                    if isinstance(m, torch.nn.Conv2d):
                        torch.nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            for k, v in model.state_dict().items():
                if v.is_floating_point() and any(k.startswith(p) for p in spec.get("shrink", ())):  # (else ties)
                    v.mul_(0.01)
                if k.endswith("running_mean"):
                    v.normal_(0, 0.1)
                elif k.endswith("running_var"):
                    v.uniform_(0.5, 1.5)
                elif v.is_floating_point() and v.numel() and not v.any():
                    v.normal_(0, 0.02)
        torch.save(model.state_dict(), f"{out_dir}/{case}.pth")
        rng = np.random.default_rng(1)
        images = [torch.from_numpy(rng.uniform(size=s).astype(np.float32)) for s in spec["sizes"]]
        if spec.get("batch"):
            images = torch.stack(images)
        targets = spec.get("targets")
        if targets is not None:
            # Training runs in float64, so that no proposal lands on the other side of a threshold (an IoU,
            # NMS, top-k) than in torchvision for a rounding difference: the losses are then comparable.
            targets = [{k: torch.from_numpy(v) for k, v in t.items()} for t in with_masks(spec, targets)]
            model.double().train()
            torch.manual_seed(2)
            flat(case + "/train", model([im.double() for im in images], targets))
            model.float()
        model.eval()
        with torch.no_grad():
            flat(case + "/eval", model(images))
    np.savez(f"{out_dir}/outputs.npz", **outputs)
    """
)

CASES = {
    "deeplabv3_resnet50": {"name": "deeplabv3_resnet50", "kwargs": {"aux_loss": True, "num_classes": 5},
                           "sizes": [[3, 64, 64], [3, 64, 64]], "batch": True},
    "deeplabv3_mobilenet_v3_large": {"name": "deeplabv3_mobilenet_v3_large", "kwargs": {"aux_loss": True},
                                     "sizes": [[3, 72, 56]], "batch": True},
    "lraspp_mobilenet_v3_large": {"name": "lraspp_mobilenet_v3_large", "sizes": [[3, 64, 80]], "batch": True},
}  # fmt: skip
# Detection: few classes (so that random heads score above box_score_thresh), small images resized to 64-128 px,
# and samplers whose batch holds every anchor and proposal (so the sampling draws nothing random and the train-mode
# losses are comparable).
SIZES = {"min_size": 64, "max_size": 128}
ONE_STAGE = {**SIZES, "score_thresh": 0.0, "topk_candidates": 100, "detections_per_img": 50}  # random heads: p ~ 0.01
SMALL = {
    **SIZES,
    "rpn_batch_size_per_image": 100000,
    "box_batch_size_per_image": 100000,
    "box_positive_fraction": 0.5,
    "rpn_post_nms_top_n_train": 300,
    "rpn_post_nms_top_n_test": 300,
    "box_detections_per_img": 20,  # the mask and keypoint heads run on every detection: keep them few
}
TARGETS = [
    {"boxes": [[4.0, 6.0, 40.0, 50.0], [30.0, 10.0, 70.0, 40.0]], "labels": [1, 2]},
    {"boxes": [[10.0, 12.0, 30.0, 60.0]], "labels": [3]},
]
DET = {"sizes": [[3, 64, 80], [3, 72, 60]], "targets": TARGETS}
CASES.update({
    "fasterrcnn_resnet50_fpn": {"name": "fasterrcnn_resnet50_fpn", "kwargs": {"num_classes": 4, **SMALL}, **DET},
    "fasterrcnn_resnet50_fpn_v2": {"name": "fasterrcnn_resnet50_fpn_v2", "kwargs": {"num_classes": 4, **SMALL},
                                   **DET},
    "fasterrcnn_mobilenet_v3_large_320_fpn": {"name": "fasterrcnn_mobilenet_v3_large_320_fpn",
                                              "kwargs": {"num_classes": 4, **SMALL}, **DET},
    "maskrcnn_resnet50_fpn": {"name": "maskrcnn_resnet50_fpn", "kwargs": {"num_classes": 4, **SMALL}, **DET,
                              "masks": True},
    "maskrcnn_resnet50_fpn_v2": {"name": "maskrcnn_resnet50_fpn_v2", "kwargs": {"num_classes": 4, **SMALL}, **DET,
                                 "masks": True},
    "keypointrcnn_resnet50_fpn": {
        "name": "keypointrcnn_resnet50_fpn", "kwargs": {"num_keypoints": 3, **SMALL}, "sizes": DET["sizes"],
        "targets": [{"boxes": [[4.0, 6.0, 40.0, 50.0], [30.0, 10.0, 70.0, 40.0]], "labels": [1, 1],
                     "keypoints": [[[10.0, 20.0, 1.0], [30.0, 40.0, 1.0], [5.0, 5.0, 0.0]],
                                   [[40.0, 20.0, 1.0], [65.0, 35.0, 1.0], [50.0, 30.0, 1.0]]]},
                    {"boxes": [[10.0, 12.0, 30.0, 60.0]], "labels": [1],
                     "keypoints": [[[12.0, 15.0, 1.0], [28.0, 58.0, 1.0], [20.0, 30.0, 1.0]]]}]},
    "retinanet_resnet50_fpn": {"name": "retinanet_resnet50_fpn", "kwargs": {"num_classes": 4, **ONE_STAGE}, **DET},
    "retinanet_resnet50_fpn_v2": {"name": "retinanet_resnet50_fpn_v2", "kwargs": {"num_classes": 4, **ONE_STAGE},
                                  **DET},
    "fcos_resnet50_fpn": {"name": "fcos_resnet50_fpn", "kwargs": {"num_classes": 4, "score_thresh": 0.05, **SIZES},
                          **DET},
    # SSD resizes to 300 x 300 (VGG-16 there costs seconds): eval only, one image; SSDlite trains too.
    "ssd300_vgg16": {"name": "ssd300_vgg16", "kwargs": {"num_classes": 4}, "sizes": [[3, 64, 80]],
                     "shrink": ["head.classification_head"]},
    "ssdlite320_mobilenet_v3_large": {"name": "ssdlite320_mobilenet_v3_large", "kwargs": {"num_classes": 4}, **DET,
                                      "kaiming": True},
})  # fmt: skip


@pytest.fixture(scope="module")
def torchvision_outputs(tmp_path_factory):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    out = tmp_path_factory.mktemp("tvdense")
    script = out / "ref.py"
    script.write_text(TORCH_SCRIPT)
    subprocess.run(
        [TORCH_PY, str(script), str(out), json.dumps(CASES)],
        check=True,
        timeout=600,
        env=dict(os.environ, PYTHONPATH=""),
    )
    return out, dict(np.load(out / "outputs.npz"))


# The same target masks on the ember side (the helper's source is the reference script's).
_ns = {"np": np}
exec(TORCH_SCRIPT[TORCH_SCRIPT.index("def with_masks") : TORCH_SCRIPT.index("def flat")], _ns)
with_masks = _ns["with_masks"]


def _flat(prefix, v, outputs):
    if isinstance(v, ember.Tensor):
        outputs[prefix] = v.detach().numpy()
    elif isinstance(v, dict):
        for k, x in v.items():
            _flat(f"{prefix}/{k}", x, outputs)
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _flat(f"{prefix}/{i}", x, outputs)
    return outputs


def _run_case(case, out_dir):
    spec = CASES[case]
    model = models.get_model(spec["name"], weights_backbone=None, **spec.get("kwargs", {}))
    for k, v in spec.get("attrs", {}).items():
        setattr(model, k, v)
    model.load_state_dict(ember.load(str(out_dir / f"{case}.pth")))
    rng = np.random.default_rng(1)
    images = [ember.tensor(rng.uniform(size=s).astype(np.float32)) for s in spec["sizes"]]
    if spec.get("batch"):
        images = ember.stack(images)
    got = {}
    targets = spec.get("targets")
    if targets is not None:
        targets = [{k: ember.tensor(v) for k, v in t.items()} for t in with_masks(spec, targets)]
        model.double().train()
        ember.manual_seed(2)
        _flat(case + "/train", model([im.double() for im in images], targets), got)
        model.float()
    model.eval()
    with ember.no_grad():
        _flat(case + "/eval", model(images), got)
    return got


def _align_detections(got, ref):
    """Reorders each image's detections in got like ref's and returns {prefix: rows of ref that tie}. Detections
    whose scores agree to float rounding may come out of the sort (and NMS) in either order, so each of ref's is
    paired with the closest unused detection of the same label in got. Where scores tie exactly (random heads give
    saturated, repeated scores: SSD's), which of the tied boxes survive NMS and the top-k cut is arbitrary in both
    libraries: those rows are compared by their scores only (the sorted scores must still agree)."""
    loose = {}
    for key in [k for k in ref if k.endswith("/scores") and k.replace("/scores", "/boxes") in ref]:
        base = key[: -len("scores")]
        if got[key].shape != ref[key].shape:
            continue
        boxes_g, boxes_r = got[base + "boxes"], ref[base + "boxes"]
        labels_g, labels_r = got[base + "labels"], ref[base + "labels"]
        scale = max(np.abs(boxes_r).max(initial=0), 1.0)
        cost = np.abs(boxes_r[:, None] - boxes_g[None]).max(axis=2) / scale
        cost += np.abs(ref[key][:, None] - got[key][None]) + (labels_r[:, None] != labels_g[None]) * 1e9
        perm, used = [], set()
        for j in range(len(boxes_r)):
            order = [k for k in np.argsort(cost[j], kind="stable") if k not in used]
            perm.append(order[0])
            used.add(order[0])
        for k in [k for k in got if k.startswith(base)]:
            got[k] = got[k][np.asarray(perm, dtype=np.int64)]
        scores = ref[key]
        loose[base] = (scores[:, None] == scores[None]).sum(1) > 1
    return loose


def _compare(got, ref, key, loose):
    g, r = got[key], ref[key]
    assert g.shape == r.shape, key
    base = key[: key.rindex("/") + 1]
    if base in loose and len(r) == len(loose[base]):
        if key.endswith("/scores"):
            g, r = np.sort(g), np.sort(r)
        else:
            g, r = g[~loose[base]], r[~loose[base]]
    if r.dtype.kind in "iu":
        np.testing.assert_array_equal(g, r, err_msg=key)
    else:
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4 * max(np.abs(r).max(initial=0), 1e-3), err_msg=key)


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_match_torchvision(case, torchvision_outputs, no_init):
    out_dir, outputs = torchvision_outputs
    got = _run_case(case, out_dir)
    ref = {k: v for k, v in outputs.items() if k.startswith(case + "/")}
    assert sorted(got) == sorted(ref)
    loose = _align_detections(got, ref)
    for k in ref:
        _compare(got, ref, k, loose)


def test_box_coder_against_closed_form():
    from ember.vision.models.detection._utils import BoxCoder, BoxLinearCoder

    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 50, (6, 2))
    anchors = np.concatenate([xy, xy + rng.uniform(4, 30, (6, 2))], 1).astype(np.float32)
    xy = rng.uniform(0, 50, (6, 2))
    gt = np.concatenate([xy, xy + rng.uniform(4, 30, (6, 2))], 1).astype(np.float32)
    coder = BoxCoder((10.0, 10.0, 5.0, 5.0))
    codes = coder.encode_single(ember.tensor(gt), ember.tensor(anchors)).numpy()
    wa, ha = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    wg, hg = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    expected = np.stack(
        [
            10 * ((gt[:, 0] + wg / 2) - (anchors[:, 0] + wa / 2)) / wa,
            10 * ((gt[:, 1] + hg / 2) - (anchors[:, 1] + ha / 2)) / ha,
            5 * np.log(wg / wa),
            5 * np.log(hg / ha),
        ],
        1,
    )
    np.testing.assert_allclose(codes, expected, rtol=1e-5, atol=1e-5)
    decoded = coder.decode(ember.tensor(codes), [ember.tensor(anchors)]).numpy()
    assert decoded.shape == (6, 1, 4)
    np.testing.assert_allclose(decoded[:, 0], gt, rtol=1e-5, atol=1e-4)
    # Large dw/dh are clamped to log(1000 / 16) before exp.
    big = coder.decode_single(ember.tensor([[0.0, 0.0, 100.0, 100.0]]), ember.tensor([[0.0, 0.0, 2.0, 2.0]])).numpy()
    np.testing.assert_allclose(big[0, 2] - big[0, 0], 2 * 1000 / 16, rtol=1e-5)
    linear = BoxLinearCoder(normalize_by_size=True)
    rel = linear.encode(ember.tensor(anchors), ember.tensor(gt))
    np.testing.assert_allclose(linear.decode(rel, ember.tensor(anchors)).numpy(), gt, rtol=1e-5, atol=1e-4)
    with pytest.raises(AssertionError, match="list or tuple"):
        coder.decode(ember.tensor(codes), ember.tensor(anchors))


def test_anchor_generator_against_closed_form():
    from ember.vision.models.detection.anchor_utils import AnchorGenerator
    from ember.vision.models.detection.image_list import ImageList

    gen = AnchorGenerator(((16, 32),), ((0.5, 1.0),))
    assert gen.num_anchors_per_location() == [4]
    images = ImageList(ember.zeros(2, 3, 32, 48), [(32, 48), (30, 40)])
    anchors = gen(images, [ember.zeros(2, 8, 4, 6)])
    assert len(anchors) == 2 and anchors[0].shape == (4 * 6 * 4, 4)
    base = []
    for r in (0.5, 1.0):
        for s in (16, 32):
            w, h = s / np.sqrt(r), s * np.sqrt(r)
            base.append(np.round([-w / 2, -h / 2, w / 2, h / 2]))
    expected = [np.array([x, y, x, y]) * 8 + b for y in range(4) for x in range(6) for b in base]
    np.testing.assert_allclose(anchors[0].numpy(), np.array(expected), atol=1e-6)
    with pytest.raises(AssertionError, match="number of feature maps"):
        gen(images, [ember.zeros(2, 8, 4, 6), ember.zeros(2, 8, 2, 3)])


def test_matcher_and_sampler():
    from ember.vision.models.detection._utils import BalancedPositiveNegativeSampler, Matcher

    iou = ember.tensor([[0.9, 0.5, 0.1, 0.2], [0.1, 0.35, 0.05, 0.6]])
    assert Matcher(0.7, 0.3)(iou).tolist() == [0, -2, -1, -2]
    # Low-quality matches give each ground truth its best prediction back (column 3 for row 1).
    assert Matcher(0.7, 0.3, allow_low_quality_matches=True)(iou).tolist() == [0, -2, -1, 1]
    with pytest.raises(ValueError, match="No ground-truth boxes"):
        Matcher(0.7, 0.3)(ember.zeros(0, 4))
    with pytest.raises(AssertionError, match="low_threshold should be <= high_threshold"):
        Matcher(0.3, 0.7)
    labels = ember.tensor([1, 0, 0, -1, 2, 0, 0, 1])
    ember.manual_seed(0)
    pos, neg = BalancedPositiveNegativeSampler(4, 0.5)([labels])
    pos, neg = pos[0].numpy().astype(bool), neg[0].numpy().astype(bool)
    assert pos.sum() == 2 and neg.sum() == 2 and not (pos & neg).any()
    assert (labels.numpy()[pos] >= 1).all() and (labels.numpy()[neg] == 0).all()


def test_detection_errors():
    model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None, num_classes=3, min_size=64)
    # torchvision's checks here are torch._assert: AssertionError.
    with pytest.raises(AssertionError, match="targets should not be none when in training mode"):
        model([ember.rand(3, 40, 40)])
    with pytest.raises(AssertionError, match="All bounding boxes should have positive height and width"):
        model([ember.rand(3, 40, 40)], [{"boxes": ember.tensor([[5.0, 5.0, 5.0, 9.0]]), "labels": ember.tensor([1])}])
    with pytest.raises(AssertionError, match=r"shape \[N, 4\]"):
        model([ember.rand(3, 40, 40)], [{"boxes": ember.tensor([1.0, 2.0, 3.0, 4.0]), "labels": ember.tensor([1])}])
    model.eval()
    with pytest.raises(TypeError, match="Expected input images to be of floating type"):
        model([ember.zeros(3, 40, 40, dtype=ember.uint8)])
    with pytest.raises(ValueError, match="3d tensors of shape"):
        model([ember.rand(1, 3, 40, 40)])
    with pytest.raises(ValueError, match="num_classes should not be None when box_predictor is not specified"):
        detection.FasterRCNN(model.backbone)
    with pytest.raises(ValueError, match="backbone should contain an attribute out_channels"):
        detection.FasterRCNN(nn.ReLU(), num_classes=2)
    from ember.vision.models.detection.backbone_utils import _validate_trainable_layers

    with pytest.warns(UserWarning, match="has no effect"):  # without weights every layer trains
        assert _validate_trainable_layers(False, 2, 5, 3) == 5
    with pytest.raises(ValueError, match=r"Trainable backbone layers should be in the range \[0,5\]"):
        _validate_trainable_layers(True, 7, 5, 3)
    with pytest.raises(TypeError, match="expected FasterRCNN_ResNet50_FPN_Weights"):
        detection.fasterrcnn_resnet50_fpn(weights=detection.RetinaNet_ResNet50_FPN_Weights.COCO_V1)


def test_detection_weights_backbone_from_the_hub(tmp_path, monkeypatch):
    """weights_backbone reads the backbone's checkpoint from the hub cache, freezes its batch norms and all but the
    last trainable_backbone_layers stages (torchvision's defaults: 3 of 6)."""
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    os.makedirs(tmp_path / "checkpoints")
    w = models.MobileNet_V3_Large_Weights.IMAGENET1K_V1
    ember.manual_seed(1)
    source = models.mobilenet_v3_large()
    ember.save(source.state_dict(), str(tmp_path / "checkpoints" / os.path.basename(w.url)))
    model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(num_classes=3)
    body = model.backbone.body
    assert ember.equal(body["0"][0].weight, source.features[0][0].weight)
    assert isinstance(body["0"][1], models.detection.backbone_utils.FrozenBatchNorm2d)
    assert not body["0"][0].weight.requires_grad and body["16"][0].weight.requires_grad
    assert (
        detection.FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.DEFAULT.transforms()(
            ember.full((3, 2, 2), 255, dtype=ember.uint8)
        ).tolist()
        == [[[1.0, 1.0], [1.0, 1.0]]] * 3
    )


@needs_torch
def test_presets_match_torchvision(tmp_path):
    img = np.random.default_rng(2).integers(0, 256, (3, 60, 50), dtype=np.uint8)
    np.save(tmp_path / "img.npy", img)
    script = (
        "import sys, numpy as np, torch\n"
        "from torchvision.models.segmentation import FCN_ResNet50_Weights\n"
        "from torchvision.models.detection import FCOS_ResNet50_FPN_Weights\n"
        "x = torch.from_numpy(np.load(sys.argv[1]))\n"
        "np.savez(sys.argv[2], a=FCN_ResNet50_Weights.DEFAULT.transforms()(x).numpy(),"
        " b=FCOS_ResNet50_FPN_Weights.DEFAULT.transforms()(x).numpy())\n"
    )
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run([TORCH_PY, "-c", script, str(tmp_path / "img.npy"), str(tmp_path / "out.npz")], check=True, env=env)
    ref = np.load(tmp_path / "out.npz")
    x = ember.tensor(img)
    seg = segmentation.FCN_ResNet50_Weights.DEFAULT.transforms()
    assert repr(seg).startswith("SemanticSegmentation(\n    resize_size=[520]")
    # PyTorch resizes uint8 images in fixed point: a few pixels (0.03% here) round to the next level.
    got, level = seg(x).numpy(), 1 / 255 / 0.224  # one uint8 level after the smallest std
    assert got.shape == ref["a"].shape == (3, 624, 520)
    np.testing.assert_allclose(got, ref["a"], atol=1.01 * level)
    assert (np.abs(got - ref["a"]) > 1e-4).mean() < 1e-3
    det = detection.FCOS_ResNet50_FPN_Weights.DEFAULT.transforms()
    assert repr(det) == "ObjectDetection()"
    np.testing.assert_allclose(det(x).numpy(), ref["b"], rtol=1e-6, atol=1e-6)


def test_old_checkpoint_layouts_load():
    from ember.vision.models.detection.mask_rcnn import MaskRCNNHeads
    from ember.vision.models.detection.retinanet import RetinaNetRegressionHead
    from ember.vision.models.detection.rpn import RPNHead

    ember.manual_seed(0)
    for module, rename in [
        (RPNHead(8, 3), {"conv.0.0.": "conv."}),
        (MaskRCNNHeads(8, (8, 8), 1), {"0.0.": "mask_fcn1.", "1.0.": "mask_fcn2."}),
        (RetinaNetRegressionHead(8, 2), {f"conv.{i}.0.": f"conv.{2 * i}." for i in range(4)}),
    ]:
        state = module.state_dict()
        old = {}
        for k, v in state.items():
            for new_prefix, old_prefix in rename.items():
                if k.startswith(new_prefix):
                    k = old_prefix + k[len(new_prefix) :]
                    break
            old[k] = v.clone() + 1
        assert set(old) != set(state)
        module.load_state_dict(old)
        for k, v in module.state_dict().items():
            assert ember.equal(v, state[k] if k.endswith("num_batches_tracked") else _old_value(old, rename, k)), k


def _old_value(old, rename, k):
    for new_prefix, old_prefix in rename.items():
        if k.startswith(new_prefix):
            return old[old_prefix + k[len(new_prefix) :]]
    return old[k]


def test_train_step_gradients_and_eps():
    """One training step: the losses reach the heads and the trainable backbone layers (all of them without
    backbone weights); overwrite_eps sets every FrozenBatchNorm2d's eps (torchvision's COCO_V1 fix)."""
    from ember.vision.models.detection._utils import overwrite_eps
    from ember.vision.ops import FrozenBatchNorm2d

    ember.manual_seed(0)
    model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(weights_backbone=None, num_classes=3, min_size=64)
    images = [ember.rand(3, 64, 80)]
    targets = [{"boxes": ember.tensor([[4.0, 6.0, 40.0, 50.0]]), "labels": ember.tensor([1])}]
    losses = model(images, targets)
    assert all(v.dim() == 0 and float(v) >= 0 for v in losses.values())
    sum(losses.values()).backward()
    for p in (model.rpn.head.cls_logits.weight, model.roi_heads.box_predictor.cls_score.weight,
              model.backbone.fpn.inner_blocks[0][0].weight, model.backbone.body["0"][0].weight):  # fmt: skip
        assert p.grad is not None and float(p.grad.abs().sum()) > 0
    assert sum(isinstance(m, FrozenBatchNorm2d) for m in model.modules()) == 0
    # With weights the builders freeze the batch norms; mobilenet_backbone's default norm is FrozenBatchNorm2d.
    backbone = models.detection.backbone_utils.mobilenet_backbone(
        backbone_name="mobilenet_v3_large", weights=None, fpn=True, trainable_layers=2
    )
    norms = [m for m in backbone.modules() if isinstance(m, FrozenBatchNorm2d)]
    assert norms and all(m.eps == 1e-5 for m in norms)
    overwrite_eps(backbone, 0.0)
    assert all(m.eps == 0.0 for m in norms)
    trainable = {n.split(".")[1] for n, p in backbone.body.named_parameters(prefix="body") if p.requires_grad}
    assert trainable == {"13", "14", "15", "16"}  # the last two of 6 stages (C4 from block 13, C5 the last)


def test_legacy_pretrained_flags_and_fpn_backbone(tmp_path, monkeypatch):
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    with pytest.warns(UserWarning, match="'pretrained_backbone' is deprecated"):
        model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(pretrained_backbone=False, num_classes=3)
    assert not any(isinstance(m, models.detection.backbone_utils.FrozenBatchNorm2d) for m in model.modules())
    with pytest.warns(UserWarning, match="weights=KeypointRCNN_ResNet50_FPN_Weights.COCO_V1"):
        with pytest.raises(FileNotFoundError, match="keypointrcnn_resnet50_fpn_coco-fc266e95.pth"):
            detection.keypointrcnn_resnet50_fpn(pretrained=True)
    with pytest.raises(FileNotFoundError, match="keypointrcnn_resnet50_fpn_coco-9f466800.pth"):
        detection.keypointrcnn_resnet50_fpn(pretrained="legacy")
    from ember.vision.models.detection.backbone_utils import resnet_fpn_backbone

    ember.manual_seed(0)
    backbone = resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5)
    with ember.no_grad():
        out = backbone(ember.rand(1, 3, 64, 64))
    assert [(k, tuple(v.shape)) for k, v in out.items()] == [
        ("0", (1, 256, 16, 16)),
        ("1", (1, 256, 8, 8)),
        ("2", (1, 256, 4, 4)),
        ("3", (1, 256, 2, 2)),
        ("pool", (1, 256, 1, 1)),
    ]
    with pytest.raises(ValueError, match=r"Each returned layer should be in the range \[1,4\]"):
        resnet_fpn_backbone(backbone_name="resnet18", weights=None, returned_layers=[0, 1])
