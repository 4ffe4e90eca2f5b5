"""ember.vision.models.optical_flow: torchvision 0.29's RAFT (raft_large, raft_small) with its builder names,
state_dict keys and *_Weights enums. model(image1, image2) returns the list of flow estimates, one per update."""

from .. import _api
from .raft import RAFT, raft_large, raft_small

_ENUMS = {
    e.__name__: e
    for name, e in _api._WEIGHTS_OF.items()
    if name in _api.BUILTIN_MODELS and _api.BUILTIN_MODELS[name].__module__.rsplit(".", 1)[0] == __name__
}
globals().update(_ENUMS)

__all__ = ["RAFT", "raft_large", "raft_small", *sorted(_ENUMS)]
