"""model.predict, the unified inference API (issue 24), for every family of ember.vision.models: each predict equals
a reference pipeline written out here (the preset transform by hand in NumPy where it is a closed form, the forward,
the post-processing) on small random-weight models and tiny uint8 images of different sizes, and its error paths."""

import os
import pickle

import numpy as np
import pytest

import ember
from ember.nn import functional as F
from ember.vision import models
from ember.vision.models import detection, optical_flow, segmentation, video
from ember.vision.transforms import functional as TF

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406])[:, None, None]
IMAGENET_STD = np.array([0.229, 0.224, 0.225])[:, None, None]


def _images(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [ember.tensor(rng.integers(0, 256, s, dtype=np.uint8)) for s in shapes]


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _with_weights(builder, weights, tmp_path, monkeypatch, **kwargs):
    """builder(weights=weights, ...) loading a random checkpoint written into a temporary hub cache."""
    monkeypatch.setattr(ember.hub, "_hub_dir", str(tmp_path))
    os.makedirs(tmp_path / "checkpoints", exist_ok=True)
    ember.manual_seed(0)
    source = builder(**kwargs)
    ember.save(source.state_dict(), str(tmp_path / "checkpoints" / os.path.basename(weights.url)))
    return builder(weights=weights, **kwargs)


# ---------------------------------------------------------------------------- classifiers


def _classification_reference(model, images, resize, crop):
    """resize the shorter side (bilinear, antialias), center crop, /255, normalize; forward; softmax."""
    batch = []
    for im in images:
        h, w = im.shape[-2:]
        size = [resize, int(resize * w / h)] if h <= w else [int(resize * h / w), resize]
        x = TF.resize(im.float(), size, antialias=True).numpy().astype(np.float64)
        if im.dtype == ember.uint8:  # a uint8 image is resized to uint8: rounded
            x = np.clip(np.round(x), 0, 255)
        else:
            x = x * 255
        top, left = int(round((x.shape[1] - crop) / 2.0)), int(round((x.shape[2] - crop) / 2.0))
        x = x[:, top : top + crop, left : left + crop]
        batch.append((x / 255 - IMAGENET_MEAN) / IMAGENET_STD)
    model.eval()
    with ember.no_grad():
        logits = model(ember.tensor(np.stack(batch), dtype=ember.float32)).numpy().astype(np.float64)
    return _softmax(logits, 1)


def test_classifier_uint8_images_of_any_size_default_transform():
    ember.manual_seed(0)
    model = models.squeezenet1_1(num_classes=7)
    images = _images((3, 40, 60), (3, 50, 30), (3, 33, 33))
    model.train()
    labels, scores = model.predict(images, top_k=3)
    assert model.training
    probs = _classification_reference(model, images, 256, 224)
    np.testing.assert_array_equal(labels.numpy(), np.argsort(-probs, 1)[:, :3])
    np.testing.assert_allclose(scores.numpy(), -np.sort(-probs, 1)[:, :3], rtol=1e-3, atol=1e-5)
    # a uint8 batch is the list of its images
    same = _images((3, 36, 48), (3, 36, 48), seed=1)
    l1, s1 = model.predict(ember.stack(same))
    l2, s2 = model.predict(same)
    assert ember.equal(l1, l2) and ember.allclose(s1, s2)


def test_classifier_uses_the_weights_preset(tmp_path, monkeypatch):
    w = models.RegNet_Y_400MF_Weights.IMAGENET1K_V2  # its preset resizes to 232, not the default's 256
    model = _with_weights(models.regnet_y_400mf, w, tmp_path, monkeypatch)
    assert model._predict_transforms is w.transforms
    with ember.no_grad():
        model.fc.weight.mul_(1000.0)  # random features are nearly constant: spread the logits
    images = _images((3, 30, 50), (3, 45, 40), seed=2)
    # float images in [0, 1] get the preset too when the model has weights
    floats = [im.float() / 255 for im in images]
    labels, scores = model.predict(floats)
    probs = _classification_reference(model, floats, 232, 224)  # the preset: resize 232, crop 224
    np.testing.assert_array_equal(labels.numpy(), probs.argmax(1))
    np.testing.assert_allclose(scores.numpy(), probs.max(1), rtol=1e-3, atol=1e-6)
    # the model stays picklable and keeps its preset
    again = pickle.loads(pickle.dumps(model))
    l2, s2 = again.predict(floats)
    assert ember.equal(l2, labels) and ember.allclose(s2, scores)
    # an explicit transforms replaces the preset
    custom = w.transforms(crop_size=64, resize_size=72)
    labels, scores = model.predict(images, transforms=custom)
    probs = _classification_reference(model, images, 72, 64)
    np.testing.assert_array_equal(labels.numpy(), probs.argmax(1))
    np.testing.assert_allclose(scores.numpy(), probs.max(1), rtol=1e-3, atol=1e-6)


def test_classifier_errors():
    model = models.lenet()
    with pytest.raises(TypeError, match="expects float images"):
        model.predict(ember.zeros(1, 1, 28, 28, dtype=ember.uint8), transforms=False)
    with pytest.raises(TypeError, match="uint8 or floating"):
        model.predict([ember.zeros(1, 28, 28, dtype=ember.int32)])
    with pytest.raises(ValueError, match=r"\[C, H, W\]; image 1 is a .* tensor of shape \[28, 28\]"):
        model.predict([ember.rand(1, 28, 28), ember.rand(28, 28)])
    with pytest.raises(ValueError, match="empty list of images"):
        model.predict(())
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        model.predict(ember.rand(1, 1, 28, 28), top_k=0)
    assert model.training


# ---------------------------------------------------------------------------- detection


def _check_detections(got, ref, threshold, sizes):
    assert len(got) == len(ref) == len(sizes)
    for g, r, (h, w) in zip(got, ref, sizes):
        keep = r["scores"].numpy() >= threshold
        assert set(g) == {k for k in r if k != "masks"} | ({"masks"} if "masks" in r else set())
        for k in ("boxes", "labels", "scores", "keypoints", "keypoints_scores"):
            if k in r:
                np.testing.assert_allclose(g[k].numpy(), r[k].numpy()[keep], rtol=1e-4, atol=1e-3, err_msg=k)
        assert g["labels"].dtype == ember.int64
        boxes = g["boxes"].numpy()
        # in the original image's pixels
        assert (boxes[:, [0, 2]] >= -1e-3).all() and (boxes[:, [0, 2]] <= w + 1e-3).all()
        assert (boxes[:, [1, 3]] >= -1e-3).all() and (boxes[:, [1, 3]] <= h + 1e-3).all()
        if "masks" in r:
            assert g["masks"].dtype == ember.bool and tuple(g["masks"].shape) == (int(keep.sum()), h, w)
            np.testing.assert_array_equal(g["masks"].numpy(), r["masks"].numpy()[keep][:, 0] >= 0.5)


def _detect_reference(model, images):
    model.eval()
    with ember.no_grad():
        return model([ember.tensor(im.numpy() / 255.0, dtype=ember.float32) for im in images])


def test_faster_rcnn_boxes_in_original_coordinates():
    ember.manual_seed(0)
    model = detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights_backbone=None, num_classes=3, min_size=64, max_size=128, box_score_thresh=0.0
    )
    images = _images((3, 40, 56), (3, 70, 50), seed=3)
    model.train()
    got = model.predict(images)
    assert model.training
    assert not got[0]["boxes"].requires_grad
    # the pipeline by hand: to float, the model's transform, backbone, rpn, box head, boxes scaled back
    model.eval()
    with ember.no_grad():
        x = [ember.tensor(im.numpy() / 255.0, dtype=ember.float32) for im in images]
        batch, _ = model.transform(x)
        features = model.backbone(batch.tensors)
        proposals, _ = model.rpn(batch, features)
        dets, _ = model.roi_heads(features, proposals, batch.image_sizes)
    for g, d, im, (rh, rw) in zip(got, dets, images, batch.image_sizes):
        h, w = im.shape[-2:]
        ref = d["boxes"].numpy() * np.array([w / rw, h / rh, w / rw, h / rh])
        assert len(ref) > 0
        np.testing.assert_allclose(g["boxes"].numpy(), ref, rtol=1e-4, atol=1e-3)
        np.testing.assert_array_equal(g["labels"].numpy(), d["labels"].numpy())
        np.testing.assert_allclose(g["scores"].numpy(), d["scores"].numpy(), rtol=1e-5)
    threshold = float(np.median(got[0]["scores"].numpy()))
    _check_detections(model.predict(images, score_threshold=threshold), _detect_reference(model, images), threshold,
                      [(40, 56), (70, 50)])  # fmt: skip


SMALL_RCNN = {"min_size": 64, "max_size": 96, "box_detections_per_img": 5, "box_score_thresh": 0.0}


@pytest.mark.parametrize(
    "builder, kwargs",
    [
        (detection.maskrcnn_resnet50_fpn, {"num_classes": 3, **SMALL_RCNN}),
        (detection.keypointrcnn_resnet50_fpn, {"num_keypoints": 3, **SMALL_RCNN}),
        (detection.retinanet_resnet50_fpn, {"num_classes": 3, "min_size": 64, "max_size": 96, "score_thresh": 0.0,
                                             "detections_per_img": 8}),
        (detection.fcos_resnet50_fpn, {"num_classes": 3, "min_size": 64, "max_size": 96, "score_thresh": 0.0,
                                       "detections_per_img": 8}),
        (detection.ssdlite320_mobilenet_v3_large, {"num_classes": 3}),
    ],
    ids=["maskrcnn", "keypointrcnn", "retinanet", "fcos", "ssdlite"],
)  # fmt: skip
def test_detectors_match_the_reference(builder, kwargs):
    ember.manual_seed(0)
    model = builder(weights_backbone=None, **kwargs)
    if isinstance(model, detection.SSD):  # its keyword arguments also go to the backbone: set them after
        model.score_thresh, model.detections_per_img = 0.0, 8
        for m in model.modules():  # its small initial weights leave the deep features constant, the scores tied
            if isinstance(m, ember.nn.Conv2d):
                ember.nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
    images = _images((3, 36, 52), (3, 60, 44), seed=4)
    ref = _detect_reference(model, images)
    scores = np.concatenate([r["scores"].numpy() for r in ref])
    assert len(scores) > 0
    threshold = float(np.median(scores))
    got = model.predict(images, score_threshold=threshold)
    _check_detections(got, ref, threshold, [(36, 52), (60, 44)])
    assert sum(len(g["scores"]) for g in got) < len(scores)  # the threshold filtered


def test_detection_errors():
    model = detection.ssdlite320_mobilenet_v3_large(weights_backbone=None, num_classes=3)
    with pytest.raises(ValueError, match="empty list of images"):
        model.predict([])
    with pytest.raises(ValueError, match="3-channel images"):
        model.predict([ember.zeros(1, 8, 8, dtype=ember.uint8)])
    with pytest.raises(TypeError, match="uint8 or floating images, got ember.int64"):
        model.predict([ember.zeros(3, 8, 8, dtype=ember.int64)])
    with pytest.raises(ValueError, match=r"empty image \[3, 0, 8\] at image 1"):
        model.predict([ember.zeros(3, 8, 8, dtype=ember.uint8), ember.zeros(3, 0, 8, dtype=ember.uint8)])
    with pytest.raises(ValueError, match="empty list of images"):
        model.predict(ember.zeros(0, 3, 8, 8))
    with pytest.raises(TypeError, match="expects a list of images tensors or a batched tensor, got ndarray"):
        model.predict(np.zeros((1, 3, 8, 8), np.uint8))
    with pytest.raises(ValueError, match="wrap it in a list"):
        model.predict(ember.zeros(3, 8, 8, dtype=ember.uint8))
    with pytest.raises(TypeError, match="score_threshold must be a number"):
        model.predict([ember.zeros(3, 8, 8, dtype=ember.uint8)], score_threshold="0.5")


# ---------------------------------------------------------------------------- segmentation


def test_segmentation_label_maps_at_the_original_size():
    ember.manual_seed(0)
    model = segmentation.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=4)
    images = _images((3, 20, 28), (3, 26, 18), seed=5)
    model.train()
    labels, scores = model.predict(images, return_scores=True)
    assert model.training
    model.eval()
    for im, lab, sc in zip(images, labels, scores):
        h, w = im.shape[-2:]
        # the VOC default: the shorter side to 520 (bilinear, antialias), /255, normalize
        size = [520, int(520 * w / h)] if h <= w else [int(520 * h / w), 520]
        x = TF.resize(im.float(), size, antialias=True).numpy() / 255
        x = ember.tensor((x - IMAGENET_MEAN) / IMAGENET_STD, dtype=ember.float32)
        with ember.no_grad():
            logits = model(x.unsqueeze(0))["out"]
            logits = F.interpolate(logits, size=(h, w), mode="bilinear", align_corners=False)
        probs = _softmax(logits[0].numpy().astype(np.float64), 0)
        assert lab.dtype == ember.int64 and tuple(lab.shape) == (h, w) and tuple(sc.shape) == (h, w)
        np.testing.assert_allclose(sc.numpy(), probs.max(0), rtol=1e-3, atol=1e-5)
        top2 = np.sort(probs, 0)[-2:]
        clear = top2[1] - top2[0] > 1e-4  # pixels whose argmax is not a near tie
        np.testing.assert_array_equal(lab.numpy()[clear], probs.argmax(0)[clear])
    # the labels alone, and a batch
    same = _images((3, 16, 16), (3, 16, 16), seed=6)
    a = model.predict(ember.stack(same), transforms=lambda im: TF.normalize(im.float() / 255, [0.5] * 3, [0.5] * 3))
    b = model.predict(same, transforms=lambda im: TF.normalize(im.float() / 255, [0.5] * 3, [0.5] * 3))
    assert isinstance(a, list) and all(ember.equal(x, y) for x, y in zip(a, b))


def test_segmentation_errors():
    model = segmentation.lraspp_mobilenet_v3_large(weights_backbone=None, num_classes=2)
    with pytest.raises(ValueError, match="empty list"):
        model.predict([])
    with pytest.raises(ValueError, match="3-channel"):
        model.predict([ember.zeros(4, 8, 8, dtype=ember.uint8)])
    with pytest.raises(TypeError, match="uint8 or floating"):
        model.predict([ember.zeros(3, 8, 8, dtype=ember.bool)])


# ---------------------------------------------------------------------------- video and optical flow


def test_video_classifier_clips_of_any_size():
    ember.manual_seed(0)
    model = video.r3d_18(num_classes=5)
    clips = _images((2, 3, 20, 30), (2, 3, 28, 24), seed=8)
    labels, scores = model.predict(clips, top_k=2)
    batch = []
    for clip in clips:
        # the Kinetics default: frames to 128 x 171 (bilinear, no antialias), center crop 112, /255, normalize
        x = TF.resize(clip.float(), [128, 171], antialias=False).numpy()[:, :, 8:120, 30:142] / 255
        mean = np.array([0.43216, 0.394666, 0.37645])[:, None, None]
        std = np.array([0.22803, 0.22145, 0.216989])[:, None, None]
        batch.append(((x - mean) / std).transpose(1, 0, 2, 3))
    model.eval()
    with ember.no_grad():
        logits = model(ember.tensor(np.stack(batch), dtype=ember.float32)).numpy().astype(np.float64)
    probs = _softmax(logits, 1)
    np.testing.assert_array_equal(labels.numpy(), np.argsort(-probs, 1)[:, :2])
    np.testing.assert_allclose(scores.numpy(), -np.sort(-probs, 1)[:, :2], rtol=1e-3, atol=1e-5)
    with pytest.raises(ValueError, match=r"expects clips \[T, C, H, W\]; clip 0 is"):
        model.predict([ember.zeros(3, 8, 8, dtype=ember.uint8)])
    with pytest.raises(ValueError, match="clips of one shape"):
        model.predict(_images((2, 3, 20, 30), (3, 3, 20, 30)))
    with pytest.raises(ValueError, match="empty list of clips"):
        model.predict([])


def test_raft_flow_at_the_original_size():
    ember.manual_seed(0)
    model = optical_flow.raft_small()
    img1, img2 = _images((3, 21, 30), (3, 21, 30), seed=9)
    model.train()
    flow = model.predict(img1, img2, num_flow_updates=2)
    assert model.training and tuple(flow.shape) == (2, 21, 30)

    def prep(im):  # to [-1, 1], padded (edge) on the bottom and right to 128 x 128
        x = np.pad(im.numpy() / 127.5 - 1, ((0, 0), (0, 128 - 21), (0, 128 - 30)), mode="edge")
        return ember.tensor(x[None], dtype=ember.float32)

    model.eval()
    with ember.no_grad():
        ref = model(prep(img1), prep(img2), num_flow_updates=2)[-1][0, :, :21, :30]
    np.testing.assert_allclose(flow.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)
    # a batch gives the same flows
    both = model.predict(ember.stack([img1, img2]), ember.stack([img2, img1]), num_flow_updates=2)
    assert tuple(both.shape) == (2, 2, 21, 30)
    np.testing.assert_allclose(both[0].numpy(), flow.numpy(), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="of one shape"):
        model.predict(img1, img2[:, :20])
    with pytest.raises(ValueError, match="of one rank"):
        model.predict(img1, img2[None])
    with pytest.raises(TypeError, match="uint8 or floating"):
        model.predict(img1.int(), img2.int())


def test_deeplabv3_with_aux_and_a_transforms_callable():
    ember.manual_seed(0)
    model = segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None, num_classes=3, aux_loss=True)
    images = _images((3, 24, 20), (3, 18, 30), seed=10)

    def half(im):  # a custom transform that changes the size: the maps still come back at the original size
        return TF.resize(im.float() / 255, [im.shape[-2] // 2 * 2 + 16, im.shape[-1] // 2 * 2 + 16], antialias=False)

    labels, scores = model.predict(images, return_scores=True, transforms=half)
    model.eval()
    for im, lab, sc in zip(images, labels, scores):
        h, w = im.shape[-2:]
        with ember.no_grad():
            logits = model(half(im).unsqueeze(0))["out"]  # "aux" is not used
            logits = F.interpolate(logits, size=(h, w), mode="bilinear", align_corners=False)
        probs = _softmax(logits[0].numpy().astype(np.float64), 0)
        assert tuple(lab.shape) == (h, w)
        np.testing.assert_allclose(sc.numpy(), probs.max(0), rtol=1e-3, atol=1e-5)
        top2 = np.sort(probs, 0)[-2:]
        clear = top2[1] - top2[0] > 1e-4
        np.testing.assert_array_equal(lab.numpy()[clear], probs.argmax(0)[clear])


def test_every_family_base_class_has_its_predict():
    from ember.vision.models import _predict

    families = {
        _predict.DetectionMixin: [detection.FasterRCNN, detection.MaskRCNN, detection.KeypointRCNN,
                                  detection.RetinaNet, detection.FCOS, detection.SSD],
        _predict.SegmentationMixin: [segmentation.FCN, segmentation.DeepLabV3, segmentation.LRASPP],
        _predict.VideoClassifierMixin: [video.VideoResNet, video.S3D, video.MViT, video.SwinTransformer3d],
        _predict.OpticalFlowMixin: [optical_flow.RAFT],
        _predict.ClassifierMixin: [models.ResNet, models.VisionTransformer, models.MobileNetV3, models.ConvNeXt],
    }  # fmt: skip
    for mixin, classes in families.items():
        for cls in classes:
            assert issubclass(cls, mixin) and cls.predict is mixin.predict, cls
