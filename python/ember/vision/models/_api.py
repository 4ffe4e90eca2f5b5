"""What every ember.vision model shares: the unified inference API (Chainer's model.predict) and the handling of
torchvision's `weights` / `pretrained` arguments (no downloads: weights are loaded from a file by the user)."""

import ember

__all__ = ["ClassifierMixin"]


class ClassifierMixin:
    """model.predict(images, top_k=1) for an image classifier (the Chainer paper's unified inference API)."""

    def predict(self, images, top_k=1):
        """Labels and softmax scores for a batch of images.

        images: a float tensor [N, C, H, W] or a list of [C, H, W] tensors (already transformed as the model
        expects, e.g. ToTensor + Normalize). Runs in eval mode without autograd and restores the previous mode.
        Returns (labels, scores): int64 [N] and the probabilities [N] of the predicted labels, or [N, top_k] each
        (best first) when top_k > 1.
        """
        if isinstance(images, (list, tuple)):
            if not images:
                raise ValueError("predict() got an empty list of images")
            for i, im in enumerate(images):
                if not isinstance(im, ember.Tensor) or im.dim() != 3:
                    raise ValueError(
                        "predict() expects [C, H, W] tensors in a list; item %d is %s"
                        % (
                            i,
                            "a tensor of shape %s" % (list(im.shape),)
                            if isinstance(im, ember.Tensor)
                            else type(im).__name__,
                        )
                    )
            if len({tuple(im.shape) for im in images}) != 1:
                raise ValueError(
                    "predict() needs images of one size to batch them, got shapes %s"
                    % sorted({tuple(im.shape) for im in images})
                )
            images = ember.stack(list(images))
        if not isinstance(images, ember.Tensor):
            raise TypeError(
                "predict() expects a tensor [N, C, H, W] or a list of [C, H, W] tensors, got %s" % type(images).__name__
            )
        if images.dim() != 4:
            raise ValueError(
                "predict() expects a batch [N, C, H, W] (or a list of [C, H, W] tensors), got shape %s"
                % (list(images.shape),)
            )
        if not images.is_floating_point():
            raise TypeError(
                "predict() expects float images (apply ToTensor/ConvertImageDtype first), got %s" % images.dtype
            )
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError("top_k must be a positive int, got %r" % (top_k,))
        param = next(iter(self.parameters()), None)
        if param is not None and (images.device != param.device or images.dtype != param.dtype):
            images = images.to(device=param.device, dtype=param.dtype)
        was_training = self.training
        self.eval()
        try:
            with ember.no_grad():
                logits = self(images)
        finally:
            self.train(was_training)
        if logits.dim() != 2:
            raise RuntimeError(
                "predict() expects the model to return logits [N, classes], got shape %s" % (list(logits.shape),)
            )
        if top_k > logits.shape[1]:
            raise ValueError("top_k=%d is more than the %d classes" % (top_k, logits.shape[1]))
        probs = logits.softmax(dim=1)
        scores, labels = probs.topk(top_k, dim=1)
        if top_k == 1:
            return labels[:, 0], scores[:, 0]
        return labels, scores


def _check_weights(name, weights, kwargs):
    """weights=None builds a randomly initialized model; anything else asks for a download ember cannot do."""
    pretrained = kwargs.pop("pretrained", False)
    if weights is not None or pretrained:
        raise RuntimeError(
            "%s: pretrained weights (weights=%r%s) cannot be downloaded: ember.vision has no network access. Build "
            "the model with weights=None and load a torchvision-format checkpoint yourself, e.g. "
            "model.load_state_dict(ember.load('%s.pth'))"
            % (name, weights, ", pretrained=True" if pretrained else "", name)
        )
    return kwargs


def _kaiming_conv(module):
    """torchvision's initialisation of conv, batch/group norm and linear layers (shared by VGG, ResNet, MobileNet):
    conv weights kaiming-normal (fan_out, ReLU gain), zero biases; norm weights 1 and biases 0."""
    from ... import nn

    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
