"""The base class of ember.vision's datasets (torchvision.datasets.VisionDataset)."""

import os

import numpy as np

from ...utils.data import Dataset
from .. import _pil

__all__ = ["VisionDataset", "StandardTransform"]


class StandardTransform:
    def __init__(self, transform=None, target_transform=None):
        self.transform, self.target_transform = transform, target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body.append("Transform: %r" % (self.transform,))
        if self.target_transform is not None:
            body.append("Target transform: %r" % (self.target_transform,))
        return "\n".join(body)


class VisionDataset(Dataset):
    _repr_indent = 4

    def __init__(self, root, transforms=None, transform=None, target_transform=None):
        if isinstance(root, (str, bytes, os.PathLike)):
            root = os.path.expanduser(os.fspath(root))
        self.root = root
        has_transforms = transforms is not None
        has_separate = transform is not None or target_transform is not None
        if has_transforms and has_separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform, self.target_transform = transform, target_transform
        if has_separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def extra_repr(self):
        return ""

    def __repr__(self):
        head = "Dataset " + self.__class__.__name__
        body = ["Number of datapoints: %d" % self.__len__()]
        if self.root is not None:
            body.append("Root location: %s" % (self.root,))
        body += self.extra_repr().splitlines()
        if self.transforms is not None:
            body += repr(self.transforms).splitlines()
        return "\n".join([head] + [" " * self._repr_indent + line for line in body])


def _no_download(name, where, files):
    raise RuntimeError(
        "%s: download=True is not supported (ember.vision has no network access). Place the files %s in %s "
        "(gzipped or not) and construct the dataset with download=False." % (name, ", ".join(files), where)
    )


def _check_index(index, n):
    if isinstance(index, bool) or not hasattr(index, "__index__"):
        raise TypeError("dataset indices must be integers, not %s" % type(index).__name__)
    index = index.__index__()
    if index < -n or index >= n:
        raise IndexError("index %d is out of range for a dataset of %d samples" % (index, n))
    return index + n if index < 0 else index


def _as_pil(img, mode=None):
    """A uint8 [H, W] or [H, W, C] image (array or ember tensor) as a PIL image when Pillow is installed (what
    torchvision's datasets return), else unchanged."""
    if not _pil.available():
        return img
    arr = img if isinstance(img, np.ndarray) else img.numpy()
    pic = _pil.Image.fromarray(np.ascontiguousarray(arr))
    return pic if mode is None or pic.mode == mode else pic.convert(mode)


def _find_file(name, url, folders, dataset, download):
    """The first folder/name that exists; else a RuntimeError naming the file, where it was looked for, and the URL
    it comes from (download=True changes nothing: ember.vision has no network access)."""
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    raise RuntimeError(
        "Dataset not found: %s needs %s (looked in %s). %sPlace the file there; it comes from %s"
        % (
            dataset,
            name,
            ", ".join(folders),
            "download=True cannot fetch it (ember.vision has no network access). " if download else "",
            url,
        )
    )


def _verify_str_arg(value, arg, valid):
    if not isinstance(value, str):
        raise ValueError("Expected type str for argument %s, but got type %s." % (arg, type(value)))
    if value not in valid:
        raise ValueError(
            "Unknown value '%s' for argument %s. Valid values are {%s}."
            % (value, arg, ", ".join("'%s'" % v for v in valid))
        )
    return value
