"""wrap_dataset_for_transforms_v2 (torchvision.datasets'): a dataset whose samples come out as tv_tensors, so that
transforms.v2 moves boxes and masks with the image. Classification datasets pass through; VOCSegmentation's mask
becomes a Mask; VOCDetection and CocoDetection targets gain "boxes" (XYXY BoundingBoxes) and "labels"; CelebA's bbox
becomes BoundingBoxes; OxfordIIITPet's segmentation a Mask. The dataset's transform/target_transform/transforms are
moved onto the wrapper and run after the wrapping, as torchvision does."""

import collections
import contextlib
from copy import copy

import ember

from . import cifar, folder, imagesets, mnist, vision, voc_coco

__all__ = ["wrap_dataset_for_transforms_v2"]


def _tv():
    """tv_tensors and transforms.v2.functional (imported when a wrapper is made: they belong to transforms.v2)."""
    from .. import tv_tensors
    from ..transforms.v2 import functional as F2

    return tv_tensors, F2


def wrap_dataset_for_transforms_v2(dataset, target_keys=None):
    """Wraps an ember.vision dataset for transforms.v2 (see the module's docstring). target_keys (CocoDetection and
    VOCDetection only): the target's keys to return, "all", or None for the defaults."""
    if not (
        target_keys is None
        or target_keys == "all"
        or (isinstance(target_keys, collections.abc.Collection) and all(isinstance(k, str) for k in target_keys))
    ):
        raise ValueError(
            "`target_keys` can be None, 'all', or a collection of strings denoting the keys to be returned, but got "
            "%r" % (target_keys,)
        )
    cls = type(dataset)
    wrapped_cls = type("Wrapped" + cls.__name__, (_Wrapper, cls), {})
    return wrapped_cls(dataset, target_keys)


_FACTORIES = {}


def _register(*classes):
    def decorate(factory):
        for c in classes:
            _FACTORIES[c] = factory
        return factory

    return decorate


class _Wrapper:
    def __init__(self, dataset, target_keys):
        cls = type(dataset)
        if not isinstance(dataset, vision.VisionDataset):
            raise TypeError(
                "This wrapper is meant for subclasses of `torchvision.datasets.VisionDataset`, but got a '%s' "
                "instead." % cls.__name__
            )
        factory = None
        for c in cls.mro():
            if c in _FACTORIES:
                factory = _FACTORIES[c]
                if target_keys is not None and c not in (voc_coco.CocoDetection, voc_coco.VOCDetection):
                    raise ValueError(
                        "`target_keys` is currently only supported for `CocoDetection`, `VOCDetection`, `Kitti`, "
                        "and `WIDERFace`, but got %s." % c.__name__
                    )
                break
            if c is vision.VisionDataset:
                break
        if factory is None:
            raise TypeError("No wrapper exists for dataset class %s. Please wrap the output yourself." % cls.__name__)
        self._dataset, self._target_keys = dataset, target_keys
        self._wrapper = factory(dataset, target_keys)
        self.transform, dataset.transform = dataset.transform, None
        self.target_transform, dataset.target_transform = dataset.target_transform, None
        self.transforms, dataset.transforms = dataset.transforms, None

    def __getattr__(self, item):
        with contextlib.suppress(AttributeError):
            return object.__getattribute__(self, item)
        return getattr(self._dataset, item)

    def __getitem__(self, idx):
        sample = self._wrapper(idx, self._dataset[idx])
        if self.transforms is not None:
            sample = self.transforms(*sample)
        return sample

    def __len__(self):
        return len(self._dataset)

    def __reduce__(self):
        dataset = copy(self._dataset)
        dataset.transform, dataset.transforms = self.transform, self.transforms
        dataset.target_transform = self.target_transform
        return wrap_dataset_for_transforms_v2, (dataset, self._target_keys)


def _parse_keys(target_keys, available, default):
    if target_keys is None:
        return set(default)
    if target_keys == "all":
        return set(available)
    keys = set(target_keys)
    extra = keys - set(available)
    if extra:
        raise ValueError("Target keys %s are not available" % sorted(extra))
    return keys


def _dict_of_lists(dicts):
    out = collections.defaultdict(list)
    for d in dicts:
        for k, v in d.items():
            out[k].append(v)
    return dict(out)


def _size(image):
    _, F2 = _tv()
    return tuple(F2.get_size(image))


@_register(cifar.CIFAR10, cifar.CIFAR100, mnist.MNIST, mnist.FashionMNIST, folder.DatasetFolder, folder.ImageFolder)
@_register(voc_coco.CocoCaptions)
def _identity(dataset, target_keys):
    return lambda idx, sample: sample


def _mask(pic):
    """A mask image as a [1, H, W] Mask (torchvision's Mask of a PIL image: pil_to_tensor's layout)."""
    import numpy as np

    tv, _ = _tv()
    if isinstance(pic, np.ndarray):  # without Pillow the datasets give [H, W] arrays
        return tv.Mask(ember.from_numpy(np.ascontiguousarray(pic))[None])
    if isinstance(pic, ember.Tensor):
        return tv.Mask(pic)
    from ..transforms import functional as F1

    return tv.Mask(F1.pil_to_tensor(pic).contiguous())


@_register(voc_coco.VOCSegmentation)
def _segmentation(dataset, target_keys):
    def wrap(idx, sample):
        image, mask = sample
        return image, _mask(mask)

    return wrap


VOC_DETECTION_CATEGORIES = [
    "__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
    "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor",
]  # fmt: skip
_VOC_INDEX = {name: i for i, name in enumerate(VOC_DETECTION_CATEGORIES)}


@_register(voc_coco.VOCDetection)
def _voc_detection(dataset, target_keys):
    keys = _parse_keys(target_keys, {"annotation", "boxes", "labels"}, {"boxes", "labels"})

    def wrap(idx, sample):
        tv, _ = _tv()
        image, target = sample
        objects = _dict_of_lists(target["annotation"]["object"])
        if "annotation" not in keys:
            target = {}
        if "boxes" in keys:
            boxes = [[int(b[k]) for k in ("xmin", "ymin", "xmax", "ymax")] for b in objects.get("bndbox", [])]
            target["boxes"] = tv.BoundingBoxes(
                ember.tensor(boxes, dtype=ember.int64).reshape(-1, 4),
                format=tv.BoundingBoxFormat.XYXY,
                canvas_size=_size(image),
            )
        if "labels" in keys:
            target["labels"] = ember.tensor([_VOC_INDEX[n] for n in objects.get("name", [])], dtype=ember.int64)
        return image, target

    return wrap


@_register(voc_coco.CocoDetection)
def _coco_detection(dataset, target_keys):
    available = {"segmentation", "area", "iscrowd", "image_id", "bbox", "category_id", "boxes", "masks", "labels"}
    keys = _parse_keys(target_keys, available, {"image_id", "boxes", "labels"})

    def to_mask(segmentation, canvas_size):
        try:
            from pycocotools import mask as coco_mask
        except ImportError:
            raise ImportError("CocoDetection masks (target key 'masks') need pycocotools, as in torchvision") from None
        if isinstance(segmentation, dict):
            if not isinstance(segmentation["counts"], str):
                segmentation = coco_mask.frPyObjects(segmentation, *canvas_size)
        elif isinstance(segmentation, list):
            segmentation = coco_mask.merge(coco_mask.frPyObjects(segmentation, *canvas_size))
        else:
            raise ValueError("COCO segmentation expected to be a dict or a list, got %s" % type(segmentation))
        return ember.from_numpy(coco_mask.decode(segmentation))

    def wrap(idx, sample):
        tv, F2 = _tv()
        image_id = dataset.ids[idx]
        image, target = sample
        if not target:
            return image, dict(image_id=image_id)
        canvas = _size(image)
        batched = _dict_of_lists(target)
        out = {}
        if "image_id" in keys:
            out["image_id"] = image_id
        if "boxes" in keys:
            xywh = tv.BoundingBoxes(
                ember.tensor(batched["bbox"]).reshape(-1, 4), format=tv.BoundingBoxFormat.XYWH, canvas_size=canvas
            )
            out["boxes"] = F2.convert_bounding_box_format(xywh, new_format=tv.BoundingBoxFormat.XYXY)
        if "masks" in keys:
            out["masks"] = tv.Mask(ember.stack([to_mask(s, canvas) for s in batched["segmentation"]]))
        if "labels" in keys:
            out["labels"] = ember.tensor(batched["category_id"])
        for k in keys - {"image_id", "boxes", "masks", "labels"}:
            out[k] = batched[k]
        return image, out

    return wrap


def _by_type(target, target_types, wrappers):
    items = list(target) if isinstance(target, (tuple, list)) else [target]
    out = tuple(wrappers.get(t, lambda v: v)(v) for t, v in zip(target_types, items))
    return out[0] if len(out) == 1 else out


@_register(imagesets.CelebA)
def _celeba(dataset, target_keys):
    if any(t in dataset.target_type for t in ("attr", "landmarks")):
        raise RuntimeError(
            "`CelebA` dataset with `target_type=['attr', 'landmarks', ...]` is currently not supported by this wrapper."
        )

    def wrap(idx, sample):
        tv, F2 = _tv()
        image, target = sample

        def boxes(item):
            b = tv.BoundingBoxes(item, format=tv.BoundingBoxFormat.XYWH, canvas_size=_size(image))
            return F2.convert_bounding_box_format(b, new_format=tv.BoundingBoxFormat.XYXY)

        return image, _by_type(target, dataset.target_type, {"bbox": boxes})

    return wrap


@_register(imagesets.OxfordIIITPet)
def _pet(dataset, target_keys):
    def wrap(idx, sample):
        image, target = sample
        if target is not None:
            target = _by_type(target, dataset._target_types, {"segmentation": _mask})
        return image, target

    return wrap
