"""SVHN and STL10: digit crops in MATLAB files, and STL-10's binary files."""

import os

import numpy as np

from ._matlab import loadmat
from .vision import VisionDataset, _as_pil, _check_index, _find_file, _verify_str_arg

__all__ = ["SVHN", "STL10"]


class SVHN(VisionDataset):
    """Street View House Numbers, cropped digits: root/<split>_32x32.mat (split train, test or extra), read by
    ember's own MAT reader (no scipy needed). .data is uint8 [N, 3, 32, 32] and .labels int64 [N] with the digit 0
    as label 0 (the files store it as 10), as torchvision."""

    split_list = {
        "train": ["http://ufldl.stanford.edu/housenumbers/train_32x32.mat", "train_32x32.mat"],
        "test": ["http://ufldl.stanford.edu/housenumbers/test_32x32.mat", "test_32x32.mat"],
        "extra": ["http://ufldl.stanford.edu/housenumbers/extra_32x32.mat", "extra_32x32.mat"],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = _verify_str_arg(split, "split", tuple(self.split_list))
        self.url, self.filename = self.split_list[split]
        path = _find_file(self.filename, self.url, [self.root], "SVHN", download)
        mat = loadmat(path)
        x, y = mat.get("X"), mat.get("y")
        if not isinstance(x, np.ndarray) or x.ndim != 4 or x.shape[:3] != (32, 32, 3):
            raise RuntimeError("SVHN: %s has no 'X' array of shape [32, 32, 3, N]" % path)
        if not isinstance(y, np.ndarray) or y.size != x.shape[3]:
            raise RuntimeError("SVHN: %s has no 'y' array of %d labels" % (path, x.shape[3]))
        labels = y.astype(np.int64).reshape(-1)
        if labels.size and (labels.min() < 0 or labels.max() > 10):
            raise RuntimeError("SVHN: %s has labels outside 0..10" % path)
        labels[labels == 10] = 0
        self.data = np.ascontiguousarray(np.transpose(x.astype(np.uint8), (3, 2, 0, 1)))
        self.labels = labels

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img, target = self.data[index], int(self.labels[index])
        img = _as_pil(np.ascontiguousarray(np.transpose(img, (1, 2, 0))))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return "Split: %s" % self.split


class STL10(VisionDataset):
    """STL-10 from root/stl10_binary/ (train_X.bin, train_y.bin, test_X.bin, test_y.bin, unlabeled_X.bin,
    class_names.txt, fold_indices.txt). split: train, train+unlabeled, unlabeled or test; folds: None or 0..9 (the
    training images of that fold). Unlabeled images have label -1. .data is uint8 [N, 3, 96, 96]."""

    base_folder = "stl10_binary"
    url = "http://ai.stanford.edu/~acoates/stl10/stl10_binary.tar.gz"
    filename = "stl10_binary.tar.gz"
    class_names_file = "class_names.txt"
    folds_list_file = "fold_indices.txt"
    splits = ("train", "train+unlabeled", "unlabeled", "test")
    _image_bytes = 3 * 96 * 96

    def __init__(self, root, split="train", folds=None, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = _verify_str_arg(split, "split", self.splits)
        if folds is not None:
            if isinstance(folds, bool) or not isinstance(folds, int):
                raise ValueError("Expected type None or int for argument folds, but got type %s." % type(folds))
            if not 0 <= folds < 10:
                raise ValueError("Value for argument folds should be in the range [0, 10), but got %d." % folds)
        self.folds = folds
        self._download = download
        if self.split in ("train", "train+unlabeled"):
            self.data, self.labels = self._load("train_X.bin", "train_y.bin")
            self._load_folds(folds)
            if self.split == "train+unlabeled":
                extra, _ = self._load("unlabeled_X.bin")
                self.data = np.concatenate((self.data, extra))
                self.labels = np.concatenate((self.labels, np.full(extra.shape[0], -1, dtype=np.int64)))
        elif self.split == "unlabeled":
            self.data, _ = self._load("unlabeled_X.bin")
            self.labels = np.full(self.data.shape[0], -1, dtype=np.int64)
        else:
            self.data, self.labels = self._load("test_X.bin", "test_y.bin")
        class_file = os.path.join(self.root, self.base_folder, self.class_names_file)
        if os.path.isfile(class_file):
            with open(class_file) as f:
                self.classes = f.read().splitlines()

    def _path(self, name):
        return _find_file(
            name,
            self.url + " (inside the archive)",
            [os.path.join(self.root, self.base_folder)],
            "STL10",
            self._download,
        )

    def _load(self, data_file, labels_file=None):
        path = self._path(data_file)
        raw = np.fromfile(path, dtype=np.uint8)
        if raw.size % self._image_bytes:
            raise RuntimeError(
                "STL10: %s holds %d bytes, not a whole number of 3x96x96 images (truncated?)" % (path, raw.size)
            )
        images = raw.reshape(-1, 3, 96, 96).transpose(0, 1, 3, 2)  # stored column-major
        labels = None
        if labels_file is not None:
            lpath = self._path(labels_file)
            labels = np.fromfile(lpath, dtype=np.uint8).astype(np.int64) - 1
            if labels.size != images.shape[0]:
                raise RuntimeError(
                    "STL10: %d images in %s but %d labels in %s" % (images.shape[0], path, labels.size, lpath)
                )
            if labels.size and (labels.min() < 0 or labels.max() > 9):
                raise RuntimeError("STL10: %s has labels outside 1..10" % lpath)
        return np.ascontiguousarray(images), labels

    def _load_folds(self, folds):
        if folds is None:
            return
        path = self._path(self.folds_list_file)
        with open(path) as f:
            lines = f.read().splitlines()
        if folds >= len(lines):
            raise RuntimeError("STL10: %s has %d lines, no fold %d" % (path, len(lines), folds))
        try:
            idx = np.array([int(v) for v in lines[folds].split()], dtype=np.int64)
        except ValueError:
            raise RuntimeError("STL10: line %d of %s is not a list of integers" % (folds + 1, path)) from None
        if idx.size and (idx.min() < 0 or idx.max() >= self.data.shape[0]):
            raise RuntimeError("STL10: fold %d of %s indexes outside the %d images" % (folds, path, self.data.shape[0]))
        self.data, self.labels = self.data[idx], self.labels[idx]

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img, target = self.data[index], int(self.labels[index])
        img = _as_pil(np.ascontiguousarray(np.transpose(img, (1, 2, 0))))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return self.data.shape[0]

    def extra_repr(self):
        return "Split: {split}".format(**self.__dict__)
