"""MNIST and Fashion-MNIST from their IDX files (gzipped or not), parsed in C++ (ember/vision/idx.cpp)."""

import os
import string

import ember

from ... import _C
from .vision import VisionDataset, _as_pil, _check_index

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST"]

_V = _C._vision


class MNIST(VisionDataset):
    """The MNIST digits: root holds train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
    t10k-labels-idx1-ubyte (each optionally .gz), directly or in torchvision's layout root/MNIST/raw/.

    .data is a uint8 tensor [N, 28, 28] and .targets an int64 tensor [N], as in torchvision. dataset[i] is
    (image, int label), where image is the transform of a PIL "L" image when Pillow is installed (as torchvision),
    else of a uint8 [28, 28] tensor (transforms.ToTensor turns either into a float [1, 28, 28] in [0, 1]).
    """

    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]
    _files = {
        True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
        False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    }

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = bool(train)
        image_name, label_name = self._names()
        image_file, label_file = self._find(image_name), self._find(label_name)
        if image_file is None or label_file is None:
            missing = [n for n, f in ((image_name, image_file), (label_name, label_file)) if f is None]
            raise RuntimeError(
                "Dataset not found: %s has no %s (looked in %s and %s, with and without .gz). %s"
                "Place the IDX files there; they come from %s"
                % (
                    type(self).__name__,
                    " or ".join(missing),
                    self.root,
                    self.raw_folder,
                    "download=True cannot fetch them (ember.vision has no network access). " if download else "",
                    self._url(missing[0]),
                )
            )
        data = _V.read_idx(image_file)
        targets = _V.read_idx(label_file)
        self.data, self.targets = self._check_loaded(data, targets, image_file, label_file)

    mirrors = ["https://ossci-datasets.s3.amazonaws.com/mnist/"]

    def _names(self):
        return self._files[self.train]

    def _url(self, name):
        return self.mirrors[0] + name + ".gz"

    def _check_loaded(self, data, targets, image_file, label_file):
        if data.dim() != 3 or data.dtype != ember.uint8:
            raise RuntimeError(
                "%s: %s holds a %s tensor of shape %s; expected uint8 images [N, H, W]"
                % (type(self).__name__, image_file, data.dtype, list(data.shape))
            )
        if targets.dim() != 1 or targets.dtype != ember.uint8:
            raise RuntimeError(
                "%s: %s holds a %s tensor of shape %s; expected uint8 labels [N]"
                % (type(self).__name__, label_file, targets.dtype, list(targets.shape))
            )
        if data.shape[0] != targets.shape[0]:
            raise RuntimeError(
                "%s: %d images in %s but %d labels in %s"
                % (type(self).__name__, data.shape[0], image_file, targets.shape[0], label_file)
            )
        return data, targets.to(ember.int64)

    @property
    def raw_folder(self):
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def _find(self, name):
        for folder in (self.root, self.raw_folder):
            for candidate in (name, name + ".gz"):
                path = os.path.join(folder, candidate)
                if os.path.isfile(path):
                    return path
        return None

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img, target = self.data[index].clone(), int(self.targets[index])
        img = _as_pil(img, "L")
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return int(self.data.shape[0])

    def extra_repr(self):
        return "Split: %s" % ("Train" if self.train else "Test")


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (the MNIST file names and layout). root defaults to /usr/share/datasets/fashion-mnist,
    where Debian's dataset-fashion-mnist package installs the gzipped files."""

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]

    def __init__(
        self,
        root="/usr/share/datasets/fashion-mnist",
        train=True,
        transform=None,
        target_transform=None,
        download=False,
    ):
        super().__init__(root, train=train, transform=transform, target_transform=target_transform, download=download)


class KMNIST(MNIST):
    """Kuzushiji-MNIST (the MNIST file names, in root or root/KMNIST/raw/)."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


class EMNIST(MNIST):
    """EMNIST: split is byclass, bymerge, balanced, letters, digits or mnist; the files are
    emnist-<split>-<train|test>-<images-idx3|labels-idx1>-ubyte[.gz] in root or root/EMNIST/raw/ (from the gzip.zip
    archive). The images are stored transposed, as in the files (torchvision does not turn them either)."""

    url = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = set("cijklmopsuvwxyz")
    _all_classes = set(string.digits + string.ascii_letters)
    classes_split_dict = {
        "byclass": sorted(_all_classes),
        "bymerge": sorted(_all_classes - _merged_classes),
        "balanced": sorted(_all_classes - _merged_classes),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root, split, **kwargs):
        if split not in self.splits:
            raise ValueError(
                "Unknown value '%s' for argument split. Valid values are {%s}."
                % (split, ", ".join("'%s'" % s for s in self.splits))
            )
        self.split = split
        self.classes = self.classes_split_dict[split]
        super().__init__(root, **kwargs)

    def _names(self):
        part = "train" if self.train else "test"
        return (
            "emnist-%s-%s-images-idx3-ubyte" % (self.split, part),
            "emnist-%s-%s-labels-idx1-ubyte" % (self.split, part),
        )

    def _url(self, name):
        return self.url + " (the archive holding %s.gz)" % name


class QMNIST(MNIST):
    """QMNIST: what is train, test, test10k, test50k or nist (default: train or test by `train`); the files are
    qmnist-<train|test>-images-idx3-ubyte and qmnist-<train|test>-labels-idx2-int (xnist-* for nist), gzipped or not,
    in root or root/QMNIST/raw/. .targets is int64 [N, 8]; with compat=True a sample's target is the class (column
    0), else the 8 values as an int64 tensor."""

    subsets = {"train": "train", "test": "test", "test10k": "test", "test50k": "test", "nist": "nist"}
    _prefix = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}
    mirrors = ["https://raw.githubusercontent.com/facebookresearch/qmnist/master/"]

    def __init__(self, root, what=None, compat=True, train=True, **kwargs):
        if what is None:
            what = "train" if train else "test"
        if what not in self.subsets:
            raise ValueError(
                "Unknown value '%s' for argument what. Valid values are {%s}."
                % (what, ", ".join("'%s'" % s for s in self.subsets))
            )
        self.what, self.compat = what, bool(compat)
        super().__init__(root, train, **kwargs)

    def _names(self):
        prefix = self._prefix[self.subsets[self.what]]
        return prefix + "-images-idx3-ubyte", prefix + "-labels-idx2-int"

    def _url(self, name):
        return self.mirrors[0] + name + (".xz" if self.what == "nist" else ".gz")

    def _check_loaded(self, data, targets, image_file, label_file):
        if data.dim() != 3 or data.dtype != ember.uint8:
            raise RuntimeError(
                "QMNIST: %s holds a %s tensor of shape %s; expected uint8 images [N, H, W]"
                % (image_file, data.dtype, list(data.shape))
            )
        if targets.dim() != 2 or targets.dtype != ember.int32:
            raise RuntimeError(
                "QMNIST: %s holds a %s tensor of shape %s; expected int32 labels [N, 8]"
                % (label_file, targets.dtype, list(targets.shape))
            )
        if data.shape[0] != targets.shape[0]:
            raise RuntimeError(
                "QMNIST: %d images in %s but %d label rows in %s"
                % (data.shape[0], image_file, targets.shape[0], label_file)
            )
        targets = targets.to(ember.int64)
        if self.what == "test10k":
            data, targets = data[:10000].clone(), targets[:10000].clone()
        elif self.what == "test50k":
            data, targets = data[10000:].clone(), targets[10000:].clone()
        return data, targets

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img, target = _as_pil(self.data[index].clone(), "L"), self.targets[index]
        target = int(target[0]) if self.compat else target.clone()
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def extra_repr(self):
        return "Split: %s" % self.what
