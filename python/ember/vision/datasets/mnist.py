"""MNIST and Fashion-MNIST from their IDX files (gzipped or not), parsed in C++ (ember/vision/idx.cpp)."""

import os

import ember

from ... import _C
from .vision import VisionDataset, _check_index, _no_download

__all__ = ["MNIST", "FashionMNIST"]

_V = _C._vision


class MNIST(VisionDataset):
    """The MNIST digits: root holds train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
    t10k-labels-idx1-ubyte (each optionally .gz), directly or in torchvision's layout root/MNIST/raw/.

    .data is a uint8 tensor [N, 28, 28] and .targets an int64 tensor [N], as in torchvision. dataset[i] is
    (image, int label), where image is the transform of a uint8 [28, 28] tensor (torchvision gives a PIL image;
    transforms.ToTensor turns either into a float [1, 28, 28] in [0, 1]).
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
        image_name, label_name = self._files[self.train]
        if download and self._find(image_name) is None:
            _no_download(
                type(self).__name__,
                "%s or %s" % (self.root, self.raw_folder),
                [n + "[.gz]" for pair in self._files.values() for n in pair],
            )
        image_file, label_file = self._find(image_name), self._find(label_name)
        if image_file is None or label_file is None:
            missing = [n for n, f in ((image_name, image_file), (label_name, label_file)) if f is None]
            raise RuntimeError(
                "Dataset not found: %s has no %s (looked in %s and %s, with and without .gz). "
                "ember.vision does not download; place the IDX files there."
                % (type(self).__name__, " or ".join(missing), self.root, self.raw_folder)
            )
        data = _V.read_idx(image_file)
        targets = _V.read_idx(label_file)
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
        self.data = data
        self.targets = targets.to(ember.int64)

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
