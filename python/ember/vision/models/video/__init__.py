"""ember.vision.models.video: torchvision 0.29's video classification models (clips [N, 3, T, H, W] -> Kinetics-400
logits), with its builder names, state_dict keys and *_Weights enums."""

from .. import _api
from .mvit import MViT, mvit_v1_b, mvit_v2_s
from .resnet import VideoResNet, mc3_18, r2plus1d_18, r3d_18
from .s3d import S3D, s3d
from .swin_transformer import SwinTransformer3d, swin3d_b, swin3d_s, swin3d_t

_ENUMS = {
    e.__name__: e
    for name, e in _api._WEIGHTS_OF.items()
    if name in _api.BUILTIN_MODELS and _api.BUILTIN_MODELS[name].__module__.rsplit(".", 1)[0] == __name__
}
globals().update(_ENUMS)

__all__ = [
    "VideoResNet",
    "S3D",
    "MViT",
    "SwinTransformer3d",
    *sorted(k for k, v in _api.BUILTIN_MODELS.items() if v.__module__.rsplit(".", 1)[0] == __name__),
    *sorted(_ENUMS),
]
