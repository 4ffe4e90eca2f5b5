"""Transform: the base of transforms.v2. A call flattens its inputs (any nesting of tuples, lists and dicts), picks
the ones to transform (tensors, tv_tensors, PIL images; of plain tensors only the first, and none when an Image,
Video or PIL image is present: torchvision's heuristic), draws one set of parameters from them (make_params) and
applies transform() to each, so an image, its boxes and its masks move together."""

import enum
import numbers

import ember

from ... import tv_tensors
from . import functional as F
from .functional._utils import _get_kernel, _is_pil, _pil_type, is_pure_tensor

__all__ = ["Transform"]


# ---------------------------------------------------------------------------- pytree-lite


def _flatten(obj):
    """(leaves, spec) of nested tuples, lists and dicts (NamedTuples keep their type)."""
    if isinstance(obj, (list, tuple)):
        leaves, specs = [], []
        for o in obj:
            sub, spec = _flatten(o)
            leaves.extend(sub)
            specs.append((len(sub), spec))
        return leaves, (type(obj), specs)
    if isinstance(obj, dict):
        leaves, specs = [], []
        for k, v in obj.items():
            sub, spec = _flatten(v)
            leaves.extend(sub)
            specs.append((k, len(sub), spec))
        return leaves, (dict, specs)
    return [obj], None


def _unflatten(leaves, spec):
    if spec is None:
        return leaves[0]
    kind, specs = spec
    if kind is dict:
        out, i = {}, 0
        for k, n, s in specs:
            out[k] = _unflatten(leaves[i : i + n], s)
            i += n
        return out
    items, i = [], 0
    for n, s in specs:
        items.append(_unflatten(leaves[i : i + n], s))
        i += n
    if hasattr(kind, "_fields"):
        return kind(*items)
    return kind(items)


# ---------------------------------------------------------------------------- helpers shared by the transforms


def check_type(obj, types_or_checks):
    for t in types_or_checks:
        if t is None:
            continue
        if isinstance(t, type):
            if isinstance(obj, t):
                return True
        elif t(obj):
            return True
    return False


def has_any(flat_inputs, *types_or_checks):
    return any(check_type(inpt, types_or_checks) for inpt in flat_inputs)


def has_all(flat_inputs, *types_or_checks):
    return all(any(check_type(inpt, (t,)) for inpt in flat_inputs) for t in types_or_checks)


def _is_image_like(inpt):
    return isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or _is_pil(inpt) or is_pure_tensor(inpt)


def query_size(flat_inputs):
    """The (H, W) shared by the sample's images, videos, masks, boxes and keypoints."""
    sizes = {
        tuple(F.get_size(inpt))
        for inpt in flat_inputs
        if _is_image_like(inpt) or isinstance(inpt, (tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints))
    }
    if not sizes:
        raise TypeError("No image, video, mask, bounding box of keypoint was found in the sample")
    if len(sizes) > 1:
        raise ValueError("Found multiple HxW dimensions in the sample: %s" % ", ".join(str(s) for s in sorted(sizes)))
    return sizes.pop()


def query_chw(flat_inputs):
    chws = {
        tuple(F.get_dimensions(inpt))
        for inpt in flat_inputs
        if isinstance(inpt, (tv_tensors.Image, tv_tensors.Video)) or _is_pil(inpt) or is_pure_tensor(inpt)
    }
    if not chws:
        raise TypeError("No image or video was found in the sample")
    if len(chws) > 1:
        raise ValueError("Found multiple CxHxW dimensions in the sample: %s" % ", ".join(str(s) for s in sorted(chws)))
    return chws.pop()


def get_bounding_boxes(flat_inputs):
    for inpt in flat_inputs:
        if isinstance(inpt, tv_tensors.BoundingBoxes):
            return inpt
    raise ValueError("No bounding boxes were found in the sample")


def get_keypoints(flat_inputs):
    for inpt in flat_inputs:
        if isinstance(inpt, tv_tensors.KeyPoints):
            return inpt
    raise ValueError("No Keypoints were found in the sample.")


def _check_fill_arg(fill):
    if isinstance(fill, dict):
        for v in fill.values():
            _check_fill_arg(v)
    elif fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg, only Numbers, tuples, lists and dicts are allowed.")


def _convert_fill_arg(fill):
    if fill is None or isinstance(fill, (int, float)):
        return fill
    return [float(v) for v in fill]


def _setup_fill_arg(fill):
    _check_fill_arg(fill)
    if isinstance(fill, dict):
        return {k: _convert_fill_arg(v) for k, v in fill.items()}
    return {"others": _convert_fill_arg(fill)}


def _get_fill(fill_dict, inpt_type):
    if inpt_type in fill_dict:
        return fill_dict[inpt_type]
    return fill_dict.get("others")


def _setup_number_or_seq(arg, name):
    if not isinstance(arg, (int, float, list, tuple)) or isinstance(arg, bool):
        raise TypeError("%s should be a number or a sequence of numbers. Got %s" % (name, type(arg).__name__))
    if isinstance(arg, (list, tuple)) and len(arg) not in (1, 2):
        raise ValueError("If %s is a sequence its length should be 1 or 2. Got %d" % (name, len(arg)))
    if isinstance(arg, (int, float)):
        arg = [float(arg), float(arg)]
    elif len(arg) == 1:
        arg = [float(arg[0])] * 2
    else:
        arg = [float(a) for a in arg]
    for a in arg:
        if a <= 0:
            raise ValueError("%s should be a sequence of positive numbers" % name)
    return arg


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, (list, tuple)):
        raise TypeError("%s should be a sequence of length %s." % (name, msg))
    if len(x) not in req_sizes:
        raise ValueError("%s should be a sequence of length %s." % (name, msg))


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError("If %s is a single number, it must be positive." % name)
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return int(size[0]), int(size[0])
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(error_msg)
    return int(size[0]), int(size[1])


def _rand():
    return float(ember.rand(1).item())


def _uniform(lo, hi):
    return float(ember.empty(1).uniform_(float(lo), float(hi)).item())


def _randint(lo, hi):
    return int(ember.randint(int(lo), int(hi), (1,)).item())


# ---------------------------------------------------------------------------- Transform


class Transform(ember.nn.Module):
    """Base class of the v2 transforms: override make_params(flat_inputs) and transform(inpt, params)."""

    _transformed_types = (ember.Tensor,)

    def __init__(self):
        super().__init__()

    @classmethod
    def _types(cls):
        pil = _pil_type()
        return cls._transformed_types + ((pil,) if pil is not None and ember.Tensor in cls._transformed_types else ())

    def check_inputs(self, flat_inputs):
        pass

    def make_params(self, flat_inputs):
        return dict()

    def _call_kernel(self, functional, inpt, *args, **kwargs):
        kernel = _get_kernel(functional, type(inpt), allow_passthrough=True)
        return kernel(inpt, *args, **kwargs)

    def transform(self, inpt, params):
        raise NotImplementedError

    def _needs_transform_list(self, flat_inputs):
        transform_pure = not has_any(flat_inputs, tv_tensors.Image, tv_tensors.Video, _is_pil)
        out = []
        types = self._types()
        for inpt in flat_inputs:
            needs = True
            if not check_type(inpt, types):
                needs = False
            elif is_pure_tensor(inpt):
                if transform_pure:
                    transform_pure = False
                else:
                    needs = False
            out.append(needs)
        return out

    def _apply(self, inputs, checked=False):
        flat, spec = _flatten(inputs)
        if not checked:
            self.check_inputs(flat)
        needs = self._needs_transform_list(flat)
        params = self.make_params([x for x, n in zip(flat, needs) if n])
        out = [self.transform(x, params) if n else x for x, n in zip(flat, needs)]
        return _unflatten(out, spec)

    def forward(self, *inputs):
        return self._apply(inputs if len(inputs) > 1 else inputs[0])

    def extra_repr(self):
        extra = []
        for name, value in self.__dict__.items():
            if name.startswith("_") or name == "training":
                continue
            if not isinstance(value, (bool, int, float, str, tuple, list, enum.Enum)):
                continue
            extra.append("%s=%s" % (name, value))
        return ", ".join(extra)


class _RandomApplyTransform(Transform):
    """A transform applied with probability p (one draw per call, for the whole sample)."""

    def __init__(self, p=0.5):
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat, _ = _flatten(inputs)
        self.check_inputs(flat)
        if _rand() >= self.p:
            return inputs
        return self._apply(inputs, checked=True)
