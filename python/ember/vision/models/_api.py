"""What every ember.vision model shares: the unified inference API (Chainer's model.predict), the registry of builders
(list_models, get_model, ...) and torchvision's weights enums, whose checkpoints load from the hub cache (no
downloads: a missing file is an error naming the file and its URL)."""

import enum
import fnmatch
import functools
import json
import os
import warnings

import ember
from ember import hub

from ._predict import ClassifierMixin

__all__ = [
    "ClassifierMixin",
    "Weights",
    "WeightsEnum",
    "register_model",
    "list_models",
    "get_model",
    "get_model_builder",
    "get_model_weights",
    "get_weight",
]


class Weights:
    """A checkpoint of torchvision's: its URL, the preprocessing its model expects (``transforms()``) and its
    metadata (``categories``, ``num_params``, ``_metrics``, ``min_size``, ``recipe``, ...)."""

    def __init__(self, url, transforms, meta):
        self.url = url
        self.transforms = transforms
        self.meta = meta

    def __eq__(self, other):
        if not isinstance(other, Weights):
            return NotImplemented
        return self.url == other.url and self.meta == other.meta

    def __hash__(self):
        return hash(self.url)

    def __repr__(self):
        return "Weights(url=%r, transforms=%r, meta={...})" % (self.url, self.transforms)


class WeightsEnum(enum.Enum):
    """The weights of one architecture, with torchvision's member names (``IMAGENET1K_V1``, ``DEFAULT``, ...)."""

    @classmethod
    def verify(cls, obj):
        """obj as a member of this enum: a member, its name ("IMAGENET1K_V1" or "ResNet50_Weights.IMAGENET1K_V1"), or
        None."""
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(
                    f"Invalid Weight class provided; expected {cls.__name__} but received {obj.__class__.__name__}."
                )
        return obj

    def get_state_dict(self, *args, **kwargs):
        """The checkpoint's state dict, read from the hub cache (``<ember.hub.get_dir()>/checkpoints/<file>``, the
        file name of torchvision's URL). ember.vision does not download: a missing file raises FileNotFoundError
        naming the file and the URL to fetch it from."""
        path = os.path.join(hub.get_dir(), "checkpoints", os.path.basename(self.url))
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{self!r}: the checkpoint {path} is missing. ember.vision does not download weights: fetch "
                f"{self.url} into {os.path.dirname(path)} (or set TORCH_HOME / EMBER_HOME to a hub folder holding it)"
            )
        return ember.load(path, map_location="cpu")

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


def _make_enums():
    """The *_Weights enums of torchvision 0.29, from weights.json (written by
    python/tests/fixtures/vision/make_tv029_fixtures.py): name -> enum, and builder name -> enum."""
    from ..transforms import _presets

    by_name, by_builder = {}, {}
    # weights.json: the classification enums; weights_dense.json: segmentation and detection's (written by
    # make_tv029_dense_fixtures.py); weights_video.json: video classification and optical flow's (written by
    # make_tv029_video_fixtures.py); each with its own table of categories.
    for file in ("weights.json", "weights_dense.json", "weights_video.json"):
        with open(os.path.join(os.path.dirname(__file__), file)) as f:
            _add_enums(json.load(f), by_name, by_builder, _presets)
    return by_name, by_builder


def _add_enums(data, by_name, by_builder, _presets):
    for enum_name, entry in data["enums"].items():
        members = []
        for member, w in entry["weights"].items():
            tf = dict(w["transforms"])
            cls = getattr(_presets, tf.pop("class"))
            meta = dict(w["meta"])
            meta["categories"] = data["categories"].get(meta["categories"]) if meta["categories"] else None
            meta = {k: tuple(v) if k == "min_size" else v for k, v in meta.items()}
            members.append((member, Weights(w["url"], functools.partial(cls, **tf), meta)))
        members.append(("DEFAULT", dict(members)[entry["default"]]))  # an alias: the same value
        e = WeightsEnum(enum_name, members, module=__name__.rsplit(".", 1)[0])
        by_name[enum_name] = e
        by_builder[entry["builder"]] = e


WEIGHTS, _WEIGHTS_OF = _make_enums()
BUILTIN_MODELS = {}


def register_model(name=None):
    """Registers a model builder under name (default: the function's name) for list_models and get_model."""

    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn

    return wrapper


def list_models(module=None, include=None, exclude=None):
    """Returns the sorted names of the registered models, optionally those of one module (``models``) and filtered
    by Unix-shell-style wildcards (``include="resnet*"``, ``exclude=["*_bn"]``)."""
    names = {
        k
        for k, v in BUILTIN_MODELS.items()
        if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__ or v.__module__ == module.__name__
    }
    if include:
        include = [include] if isinstance(include, str) else include
        names = set().union(*(fnmatch.filter(names, f) for f in include))
    if exclude:
        for f in [exclude] if isinstance(exclude, str) else exclude:
            names -= set(fnmatch.filter(names, f))
    return sorted(names)


def get_model_builder(name):
    """Returns the builder of the model called name (``"resnet50"``)."""
    name = name.lower()
    try:
        return BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name, **config):
    """Builds the model called name with the builder's keyword arguments (``weights``, ``num_classes``, ...)."""
    return get_model_builder(name)(**config)


def get_model_weights(name):
    """Returns the weights enum of a model, given by name (``"resnet50"``) or by its builder."""
    key = name if isinstance(name, str) else getattr(name, "__name__", None)
    if isinstance(name, str):
        get_model_builder(name)
    if key not in _WEIGHTS_OF:
        raise ValueError(f"The weights enum of '{key}' couldn't be retrieved: torchvision has no weights for it.")
    return _WEIGHTS_OF[key]


def get_weight(name):
    """Returns the weights enum member named ``"<Enum>.<member>"`` (``"ResNet50_Weights.IMAGENET1K_V2"``)."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    if enum_name not in WEIGHTS or not any(e is WEIGHTS[enum_name] for e in _available_enums()):
        raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be retrieved.")
    return WEIGHTS[enum_name][value_name]


def _available_enums():
    """The enums of the registered builders (weights.json also lists models that ember does not build)."""
    return [e for name, e in _WEIGHTS_OF.items() if name in BUILTIN_MODELS]


def _ovewrite_named_param(kwargs, param, new_value):
    """Sets kwargs[param] (torchvision's spelling); a different value given by the caller is an error."""
    if param in kwargs and kwargs[param] != new_value:
        raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    kwargs[param] = new_value


def _resolve(name, weights, kwargs):
    """The builder name's weights as an enum member (or None) and its kwargs, num_classes set from the weights'
    categories. pretrained=True is torchvision's legacy spelling of weights=DEFAULT."""
    enum_cls = _WEIGHTS_OF.get(name)
    if kwargs.pop("pretrained", False):
        if enum_cls is None:
            raise ValueError(f"{name}: there are no pretrained weights for this model")
        warnings.warn(
            f"The parameter 'pretrained' is deprecated, please use 'weights' instead ({enum_cls.__name__}.DEFAULT).",
            UserWarning,
            stacklevel=3,
        )
        weights = weights or enum_cls.DEFAULT
    if weights is None:
        return None, kwargs
    if enum_cls is None:
        raise ValueError(f"{name}: there are no pretrained weights for this model; weights must be None")
    weights = enum_cls.verify(weights)
    if weights.meta["categories"] is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    return weights, kwargs


def _load(model, weights, progress=True, fix=None):
    """model with weights' state dict loaded (after fix(state_dict) where the checkpoint's keys are older)."""
    if weights is not None:
        state = weights.get_state_dict(progress=progress)
        model.load_state_dict(fix(state) if fix else state)
        # model.predict applies the preset (the partial, not the enum member: the model stays picklable)
        model._predict_transforms = weights.transforms
    return model


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
