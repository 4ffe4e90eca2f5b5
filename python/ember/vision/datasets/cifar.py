"""CIFAR-10 and CIFAR-100: the python-pickle batches (read without running pickle code, _restricted_pickle) or the
binary batches (parsed by ember ops on the file's bytes)."""

import os

import numpy as np

import ember

from ... import _C
from . import _restricted_pickle
from .vision import VisionDataset, _as_pil, _check_index, _no_download

__all__ = ["CIFAR10", "CIFAR100"]

_V = _C._vision
_PIXELS = 3 * 32 * 32


class CIFAR10(VisionDataset):
    """CIFAR-10 from root/cifar-10-batches-py/ (data_batch_1..5, test_batch, batches.meta: the pickled python
    version) or, when that folder is absent, root/cifar-10-batches-bin/ (data_batch_1..5.bin, test_batch.bin,
    batches.meta.txt).

    .data is a uint8 NumPy array [N, 32, 32, 3] and .targets a list of ints, as in torchvision; dataset[i] is
    (image, int label) with image the transform of an RGB PIL image with Pillow (as torchvision), else of a uint8
    [32, 32, 3] array.
    """

    py_folder = "cifar-10-batches-py"
    bin_folder = "cifar-10-batches-bin"
    train_list = ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5"]
    test_list = ["test_batch"]
    meta = {"filename": "batches.meta", "key": "label_names"}
    bin_train_list = [n + ".bin" for n in train_list]
    bin_test_list = ["test_batch.bin"]
    bin_meta = "batches.meta.txt"
    label_key = "labels"
    bin_label_bytes = 1  # the label byte(s) before each image; the last is the one used
    num_classes = 10

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = bool(train)
        py_dir, bin_dir = os.path.join(self.root, self.py_folder), os.path.join(self.root, self.bin_folder)
        if os.path.isdir(py_dir):
            self._load_python(py_dir)
        elif os.path.isdir(bin_dir):
            self._load_binary(bin_dir)
        elif download:
            _no_download(
                type(self).__name__,
                self.root,
                [self.py_folder + "/ (the python version)", "or " + self.bin_folder + "/ (the binary version)"],
            )
        else:
            raise RuntimeError(
                "Dataset not found: %s needs %s or %s (the extracted archive) in %s; ember.vision does "
                "not download." % (type(self).__name__, self.py_folder, self.bin_folder, self.root)
            )
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    # ---- python-pickle batches
    def _load_python(self, folder):
        names = self.train_list if self.train else self.test_list
        data, targets = [], []
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise RuntimeError("%s: missing batch file %s" % (type(self).__name__, path))
            entry = _restricted_pickle.load(path)
            images, labels = self._check_entry(entry, path)
            data.append(images)
            targets.extend(labels)
        self.data = np.ascontiguousarray(np.concatenate(data).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        self.targets = targets
        meta_path = os.path.join(folder, self.meta["filename"])
        if not os.path.isfile(meta_path):
            raise RuntimeError("%s: missing %s" % (type(self).__name__, meta_path))
        meta = _restricted_pickle.load(meta_path)
        names = meta.get(self.meta["key"]) if isinstance(meta, dict) else None
        if not isinstance(names, list) or len(names) != self.num_classes or not all(isinstance(n, str) for n in names):
            raise RuntimeError(
                "%s: %s has no list of %d class names under '%s'"
                % (type(self).__name__, meta_path, self.num_classes, self.meta["key"])
            )
        self.classes = names

    def _check_entry(self, entry, path):
        if not isinstance(entry, dict):
            raise RuntimeError(
                "%s: %s holds a %s, not a batch dict" % (type(self).__name__, path, type(entry).__name__)
            )
        images, labels = entry.get("data"), entry.get(self.label_key)
        if (
            not isinstance(images, np.ndarray)
            or images.dtype != np.uint8
            or images.ndim != 2
            or images.shape[1] != _PIXELS
        ):
            raise RuntimeError(
                "%s: %s: 'data' should be a uint8 array [N, %d], got %s"
                % (type(self).__name__, path, _PIXELS, _describe(images))
            )
        if isinstance(labels, np.ndarray):
            labels = labels.tolist()
        if (
            not isinstance(labels, list)
            or len(labels) != images.shape[0]
            or not all(isinstance(v, int) and 0 <= v < self.num_classes for v in labels)
        ):
            raise RuntimeError(
                "%s: %s: '%s' should be a list of %d ints in [0, %d)"
                % (type(self).__name__, path, self.label_key, images.shape[0], self.num_classes)
            )
        return images, labels

    # ---- binary batches
    def _load_binary(self, folder):
        names = self.bin_train_list if self.train else self.bin_test_list
        record = self.bin_label_bytes + _PIXELS
        images, labels = [], []
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise RuntimeError("%s: missing batch file %s" % (type(self).__name__, path))
            raw = _V.read_file(path)
            if raw.numel() == 0 or raw.numel() % record:
                raise RuntimeError(
                    "%s: %s has %d bytes, not a whole number of %d-byte records (%d label byte(s) + "
                    "3x32x32 pixels)" % (type(self).__name__, path, raw.numel(), record, self.bin_label_bytes)
                )
            rows = raw.view(-1, record)
            labels.append(rows[:, self.bin_label_bytes - 1])
            images.append(rows[:, self.bin_label_bytes :])
        lab = ember.cat(labels).to(ember.int64)
        if lab.numel() and int(lab.max().item()) >= self.num_classes:
            raise RuntimeError(
                "%s: a label in %s is %d, outside [0, %d)"
                % (type(self).__name__, folder, int(lab.max().item()), self.num_classes)
            )
        self.data = ember.cat(images).view(-1, 3, 32, 32).permute(0, 2, 3, 1).contiguous().numpy()
        self.targets = lab.tolist()
        self.classes = self._binary_classes(folder)

    def _binary_classes(self, folder):
        path = os.path.join(folder, self.bin_meta)
        if not os.path.isfile(path):
            raise RuntimeError("%s: missing %s" % (type(self).__name__, path))
        with open(path, encoding="utf-8") as f:
            names = [line.strip() for line in f if line.strip()]
        if len(names) != self.num_classes:
            raise RuntimeError(
                "%s: %s lists %d class names, expected %d" % (type(self).__name__, path, len(names), self.num_classes)
            )
        return names

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img, target = _as_pil(self.data[index].copy()), self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return "Split: %s" % ("Train" if self.train else "Test")


class CIFAR100(CIFAR10):
    """CIFAR-100 (fine labels) from root/cifar-100-python/ (train, test, meta) or root/cifar-100-binary/ (train.bin,
    test.bin, fine_label_names.txt; each record has a coarse and a fine label byte)."""

    py_folder = "cifar-100-python"
    bin_folder = "cifar-100-binary"
    train_list = ["train"]
    test_list = ["test"]
    meta = {"filename": "meta", "key": "fine_label_names"}
    bin_train_list = ["train.bin"]
    bin_test_list = ["test.bin"]
    bin_meta = "fine_label_names.txt"
    label_key = "fine_labels"
    bin_label_bytes = 2
    num_classes = 100


def _describe(x):
    if isinstance(x, np.ndarray):
        return "a %s array of shape %s" % (x.dtype, list(x.shape))
    return "a %s" % type(x).__name__
