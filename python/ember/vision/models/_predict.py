"""model.predict: the unified inference API of the Chainer paper, one mixin per model family.

Every predict takes raw images (uint8 [C, H, W], or float in [0, 1]) of any size, applies the preprocessing of the
weights the model was built with (``weights.transforms()``, remembered by the builders) or the family's documented
default, runs the model in eval mode without autograd (restoring the previous mode), and returns its answer in the
original image's coordinates: classes and scores, boxes/labels/scores (masks, keypoints), label maps, or flow."""

import ember

from ...nn import functional as F

__all__ = ["ClassifierMixin", "DetectionMixin", "SegmentationMixin", "VideoClassifierMixin", "OpticalFlowMixin"]


def _describe(x):
    if isinstance(x, ember.Tensor):
        return "a %s tensor of shape %s" % (x.dtype, list(x.shape))
    return type(x).__name__


def _check_image(x, what, i, rank, channels=None):
    """x must be a uint8 or floating tensor of the given rank (with channels at dim -3 when given)."""
    if not isinstance(x, ember.Tensor) or x.dim() != rank:
        dims = "[T, C, H, W]" if rank == 4 else "[C, H, W]"
        raise ValueError("predict() expects %s %s; %s %d is %s" % (what, dims, what[:-1], i, _describe(x)))
    if not (x.dtype == ember.uint8 or x.is_floating_point()):
        raise TypeError("predict() expects uint8 or floating %s, got %s at %s %d" % (what, x.dtype, what[:-1], i))
    if channels is not None and x.shape[-3] != channels:
        raise ValueError(
            "predict() expects %d-channel %s, got %s at %s %d" % (channels, what, list(x.shape), what[:-1], i)
        )
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        raise ValueError("predict() got an empty image %s at %s %d" % (list(x.shape), what[:-1], i))
    return x


def _as_list(items, rank, what="images", channels=None):
    """A list (or tuple) of tensors of the given rank, or a batched tensor of rank + 1 (split on dim 0), checked."""
    if isinstance(items, ember.Tensor):
        if items.dim() == rank + 1:
            items = list(items.unbind(0))
        elif items.dim() != rank:
            raise ValueError(
                "predict() expects a list of %s or a batch; got a tensor of shape %s" % (what, list(items.shape))
            )
        else:
            raise ValueError(
                "predict() expects a list of %s or a batch (a leading N dim); got a single tensor of shape %s: "
                "wrap it in a list" % (what, list(items.shape))
            )
    elif isinstance(items, (list, tuple)):
        items = list(items)
    else:
        raise TypeError("predict() expects a list of %s tensors or a batched tensor, got %s" % (what, _describe(items)))
    if not items:
        raise ValueError("predict() got an empty list of %s" % what)
    return [_check_image(x, what, i, rank, channels) for i, x in enumerate(items)]


def _weights_transforms(model):
    """The preset of the weights the model was built with (weights.transforms, set by _api._load), or None."""
    make = getattr(model, "_predict_transforms", None)
    return make() if make is not None else None


def _to_model(model, x):
    """x on the model's device (and in its floating dtype)."""
    param = next(iter(model.parameters()), None)
    if param is not None and (x.device != param.device or (x.is_floating_point() and x.dtype != param.dtype)):
        x = x.to(device=param.device, dtype=param.dtype if x.is_floating_point() else x.dtype)
    return x


class _Eval:
    """with _Eval(model): eval mode and no autograd, the previous mode restored after."""

    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.was_training = self.model.training
        self.model.eval()
        self.grad = ember.no_grad()
        self.grad.__enter__()

    def __exit__(self, *exc):
        self.grad.__exit__(*exc)
        self.model.train(self.was_training)
        return False


def _check_top_k(top_k, classes):
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError("top_k must be a positive int, got %r" % (top_k,))
    if top_k > classes:
        raise ValueError("top_k=%d is more than the %d classes" % (top_k, classes))


def _top_k(logits, top_k):
    if logits.dim() != 2:
        raise RuntimeError(
            "predict() expects the model to return logits [N, classes], got shape %s" % (list(logits.shape),)
        )
    _check_top_k(top_k, logits.shape[1])
    scores, labels = logits.softmax(dim=1).topk(top_k, dim=1)
    if top_k == 1:
        return labels[:, 0], scores[:, 0]
    return labels, scores


def _default_classification():
    from ..transforms._presets import ImageClassification

    return ImageClassification(crop_size=224, resize_size=256)


class ClassifierMixin:
    """model.predict(images, top_k=1, transforms=None) for an image classifier."""

    def predict(self, images, top_k=1, transforms=None):
        """Labels and softmax scores for images.

        images: a list of [C, H, W] tensors (sizes may differ) or a batch [N, C, H, W], uint8 or float.
        transforms: the per-image preprocessing. None: the preset of the weights the model was built with
        (``weights.transforms()``); without weights, uint8 images get the ImageNet default (resize the shorter side
        to 256, center crop 224, scale to [0, 1], normalize with the ImageNet mean/std) and float images are taken
        as already transformed. False: none (float images of one size). A callable: applied to each image.
        Returns (labels, scores): int64 [N] and the probabilities [N] of the predicted labels, or [N, top_k] each
        (best first) when top_k > 1.
        """
        if isinstance(images, ember.Tensor) and images.dim() != 4:
            raise ValueError(
                "predict() expects a batch [N, C, H, W] (or a list of [C, H, W] tensors), got shape %s"
                % (list(images.shape),)
            )
        if not isinstance(images, (ember.Tensor, list, tuple)):
            raise TypeError(
                "predict() expects a tensor [N, C, H, W] or a list of [C, H, W] tensors, got %s" % type(images).__name__
            )
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError("top_k must be a positive int, got %r" % (top_k,))
        images = _as_list(images, 3)
        if transforms is None:
            transforms = _weights_transforms(self)
        if transforms is None:
            transforms = _default_classification() if any(x.dtype == ember.uint8 for x in images) else False
        if transforms is not False:
            images = [transforms(x) for x in images]
        for x in images:
            if not x.is_floating_point():
                raise TypeError(
                    "predict() expects float images (apply ToTensor/ConvertImageDtype first, or pass transforms), "
                    "got %s" % x.dtype
                )
        if len({tuple(x.shape) for x in images}) != 1:
            raise ValueError(
                "predict() needs images of one size to batch them (pass transforms that resize), got shapes %s"
                % sorted({tuple(x.shape) for x in images})
            )
        batch = _to_model(self, ember.stack(images))
        with _Eval(self):
            logits = self(batch)
        return _top_k(logits, top_k)


class DetectionMixin:
    """model.predict(images, score_threshold=0.0, transforms=None) for a detector (R-CNNs, RetinaNet, FCOS, SSD)."""

    def predict(self, images, score_threshold=0.0, transforms=None, mask_threshold=0.5):
        """Detections for a list of [3, H, W] images of any sizes (uint8 or float in [0, 1]), or a batch.

        transforms: per-image preprocessing; None: the weights' preset (``ObjectDetection``: scale to float in
        [0, 1]); the model's own transform resizes and normalizes, and maps the detections back to each image's
        original size. Returns a list (one per image) of dicts with "boxes" float [K, 4] (x1, y1, x2, y2 in the
        original image's pixels), "labels" int64 [K] and "scores" [K] (best first), only detections with
        score >= score_threshold; Mask R-CNN adds "masks" bool [K, H, W] (the mask probabilities >= mask_threshold,
        at the original size), Keypoint R-CNN "keypoints" [K, num_keypoints, 3] (x, y, visibility) and
        "keypoints_scores" [K, num_keypoints].
        """
        images = _as_list(images, 3, channels=3)
        if isinstance(score_threshold, bool) or not isinstance(score_threshold, (int, float)):
            raise TypeError("score_threshold must be a number, got %r" % (score_threshold,))
        if transforms is None:
            transforms = _weights_transforms(self)
        if transforms is None:
            from ..transforms._presets import ObjectDetection

            transforms = ObjectDetection()
        inputs = [_to_model(self, transforms(x)) for x in images]
        with _Eval(self):
            out = self(inputs)
        results = []
        for det in out:
            keep = det["scores"] >= score_threshold
            r = {k: det[k][keep] for k in ("boxes", "labels", "scores")}
            if "masks" in det:
                r["masks"] = det["masks"][keep][:, 0] >= mask_threshold
            for k in ("keypoints", "keypoints_scores"):
                if k in det:
                    r[k] = det[k][keep]
            results.append(r)
        return results


def _default_segmentation():
    from ..transforms._presets import SemanticSegmentation

    return SemanticSegmentation(resize_size=520)


class SegmentationMixin:
    """model.predict(images, return_scores=False, transforms=None) for a semantic segmentation model."""

    def predict(self, images, return_scores=False, transforms=None):
        """Per-pixel labels for a list of [3, H, W] images of any sizes (uint8 or float in [0, 1]), or a batch.

        transforms: per-image preprocessing; None: the weights' preset, or without weights the VOC default
        (resize the shorter side to 520, scale to [0, 1], normalize with the ImageNet mean/std). The logits ("out")
        are upsampled (bilinear) to the original size before the softmax and argmax. Returns a list of int64 [H, W]
        label maps, and with return_scores=True (labels, scores): the maps and the lists of float [H, W]
        probabilities of the chosen labels.
        """
        images = _as_list(images, 3, channels=3)
        if transforms is None:
            transforms = _weights_transforms(self)
        if transforms is None:
            transforms = _default_segmentation()
        labels, scores = [], []
        with _Eval(self):
            for x in images:
                logits = self(_to_model(self, transforms(x)).unsqueeze(0))["out"]
                logits = F.interpolate(logits, size=tuple(x.shape[-2:]), mode="bilinear", align_corners=False)
                score, label = logits.softmax(dim=1)[0].max(dim=0)
                labels.append(label)
                scores.append(score)
        return (labels, scores) if return_scores else labels


def _default_video():
    from ..transforms._presets import VideoClassification

    return VideoClassification(crop_size=(112, 112), resize_size=(128, 171))


class VideoClassifierMixin:
    """model.predict(clips, top_k=1, transforms=None) for a video classifier."""

    def predict(self, clips, top_k=1, transforms=None):
        """Labels and softmax scores for clips [T, C, H, W] (uint8 or float in [0, 1]; a list, sizes may differ,
        or a batch [N, T, C, H, W]).

        transforms: per-clip preprocessing returning [C, T, H, W]; None: the weights' preset, or without weights the
        Kinetics default (frames resized to 128 x 171, center crop 112, normalized with the Kinetics mean/std).
        Returns (labels, scores) as ClassifierMixin.predict does.
        """
        clips = _as_list(clips, 4, what="clips")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError("top_k must be a positive int, got %r" % (top_k,))
        if transforms is None:
            transforms = _weights_transforms(self)
        if transforms is None:
            transforms = _default_video()
        clips = [transforms(c) for c in clips]
        if len({tuple(c.shape) for c in clips}) != 1:
            raise ValueError(
                "predict() needs clips of one shape after the transforms to batch them, got %s"
                % sorted({tuple(c.shape) for c in clips})
            )
        batch = _to_model(self, ember.stack(clips))
        with _Eval(self):
            logits = self(batch)
        return _top_k(logits, top_k)


class OpticalFlowMixin:
    """model.predict(img1, img2, num_flow_updates=12, transforms=None) for an optical flow model (RAFT)."""

    def predict(self, img1, img2, num_flow_updates=12, transforms=None):
        """The flow from img1 to img2 ([3, H, W] each, or batches [N, 3, H, W]; uint8 or float in [0, 1]; any H, W).

        transforms: the pair's preprocessing; None: the weights' preset (``OpticalFlow``: both to [-1, 1]). The
        pair is padded (replicating the border) on the bottom and right to multiples of 8 (at least 128, RAFT's
        smallest) and the flow is cropped back. Returns the last estimate, float [2, H, W] (or [N, 2, H, W]), in
        pixels of the original image.
        """
        single = isinstance(img1, ember.Tensor) and img1.dim() == 3
        pair = []
        for name, im in (("img1", img1), ("img2", img2)):
            if not isinstance(im, ember.Tensor) or im.dim() != (3 if single else 4):
                raise ValueError(
                    "predict() expects img1 and img2 of one rank, [3, H, W] or [N, 3, H, W]; %s is %s"
                    % (name, _describe(im))
                )
            pair.append(_check_image(im, "images", 1 if name == "img1" else 2, im.dim(), channels=3))
        if tuple(img1.shape) != tuple(img2.shape):
            raise ValueError(
                "predict() expects img1 and img2 of one shape, got %s and %s" % (list(img1.shape), list(img2.shape))
            )
        if transforms is None:
            transforms = _weights_transforms(self)
        if transforms is None:
            from ..transforms._presets import OpticalFlow

            transforms = OpticalFlow()
        a, b = transforms(*pair)
        if single:
            a, b = a.unsqueeze(0), b.unsqueeze(0)
        h, w = a.shape[-2:]
        ph, pw = max(-(-h // 8) * 8, 128) - h, max(-(-w // 8) * 8, 128) - w
        if ph or pw:
            a = F.pad(a, (0, pw, 0, ph), mode="replicate")
            b = F.pad(b, (0, pw, 0, ph), mode="replicate")
        with _Eval(self):
            flow = self(_to_model(self, a), _to_model(self, b), num_flow_updates=num_flow_updates)[-1]
        flow = flow[:, :, :h, :w]
        return flow[0] if single else flow
