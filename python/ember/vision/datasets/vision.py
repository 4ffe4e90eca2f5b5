"""The base class of ember.vision's datasets (torchvision.datasets.VisionDataset)."""

import os

from ...utils.data import Dataset

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
