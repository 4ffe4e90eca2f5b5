"""Folder-and-list datasets: Flowers102, Food101, OxfordIIITPet and CelebA (torchvision's layouts, signatures and
returned types). Images load through the `loader` (default: PIL with Pillow, else ember.vision.io)."""

import csv
import json
import os

import numpy as np

import ember

from ._images import load_raw, load_rgb
from ._matlab import loadmat
from .vision import VisionDataset, _check_index, _find_file, _verify_str_arg

__all__ = ["Flowers102", "Food101", "OxfordIIITPet", "CelebA"]


class Flowers102(VisionDataset):
    """Oxford 102 Flowers: root/flowers-102/{jpg/image_NNNNN.jpg, imagelabels.mat, setid.mat}; split train, val or
    test. Targets are class indices 0..101."""

    _download_url_prefix = "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
    _file_dict = {"image": "102flowers.tgz", "label": "imagelabels.mat", "setid": "setid.mat"}
    _splits_map = {"train": "trnid", "val": "valid", "test": "tstid"}

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False, loader=load_rgb):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = _verify_str_arg(split, "split", ("train", "val", "test"))
        self._base_folder = os.path.join(self.root, "flowers-102")
        self._images_folder = os.path.join(self._base_folder, "jpg")
        self.loader = loader
        url = self._download_url_prefix
        if not os.path.isdir(self._images_folder):
            _find_file(
                "jpg", url + self._file_dict["image"] + " (extract it)", [self._base_folder], "Flowers102", download
            )
        setid = _find_file(self._file_dict["setid"], url + "setid.mat", [self._base_folder], "Flowers102", download)
        labels = _find_file(
            self._file_dict["label"], url + "imagelabels.mat", [self._base_folder], "Flowers102", download
        )
        ids = loadmat(setid, squeeze_me=True).get(self._splits_map[split])
        all_labels = loadmat(labels, squeeze_me=True).get("labels")
        if ids is None or all_labels is None:
            raise RuntimeError(
                "Flowers102: %s needs '%s' and %s needs 'labels'" % (setid, self._splits_map[split], labels)
            )
        ids, all_labels = np.atleast_1d(ids).astype(np.int64), np.atleast_1d(all_labels).astype(np.int64)
        if ids.size and (ids.min() < 1 or ids.max() > all_labels.size):
            raise RuntimeError("Flowers102: %s has image ids outside 1..%d" % (setid, all_labels.size))
        if all_labels.size and (all_labels.min() < 1 or all_labels.max() > 102):
            raise RuntimeError("Flowers102: %s has labels outside 1..102" % labels)
        self._labels = [int(all_labels[i - 1]) - 1 for i in ids.tolist()]
        self._image_files = [os.path.join(self._images_folder, "image_%05d.jpg" % i) for i in ids.tolist()]

    def __len__(self):
        return len(self._image_files)

    def __getitem__(self, idx):
        idx = _check_index(idx, len(self))
        image, label = self.loader(self._image_files[idx]), self._labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label

    def extra_repr(self):
        return "split=%s" % self._split

    classes = [
        "pink primrose",
        "hard-leaved pocket orchid",
        "canterbury bells",
        "sweet pea",
        "english marigold",
        "tiger lily",
        "moon orchid",
        "bird of paradise",
        "monkshood",
        "globe thistle",
        "snapdragon",
        "colt's foot",
        "king protea",
        "spear thistle",
        "yellow iris",
        "globe-flower",
        "purple coneflower",
        "peruvian lily",
        "balloon flower",
        "giant white arum lily",
        "fire lily",
        "pincushion flower",
        "fritillary",
        "red ginger",
        "grape hyacinth",
        "corn poppy",
        "prince of wales feathers",
        "stemless gentian",
        "artichoke",
        "sweet william",
        "carnation",
        "garden phlox",
        "love in the mist",
        "mexican aster",
        "alpine sea holly",
        "ruby-lipped cattleya",
        "cape flower",
        "great masterwort",
        "siam tulip",
        "lenten rose",
        "barbeton daisy",
        "daffodil",
        "sword lily",
        "poinsettia",
        "bolero deep blue",
        "wallflower",
        "marigold",
        "buttercup",
        "oxeye daisy",
        "common dandelion",
        "petunia",
        "wild pansy",
        "primula",
        "sunflower",
        "pelargonium",
        "bishop of llandaff",
        "gaura",
        "geranium",
        "orange dahlia",
        "pink-yellow dahlia?",
        "cautleya spicata",
        "japanese anemone",
        "black-eyed susan",
        "silverbush",
        "californian poppy",
        "osteospermum",
        "spring crocus",
        "bearded iris",
        "windflower",
        "tree poppy",
        "gazania",
        "azalea",
        "water lily",
        "rose",
        "thorn apple",
        "morning glory",
        "passion flower",
        "lotus",
        "toad lily",
        "anthurium",
        "frangipani",
        "clematis",
        "hibiscus",
        "columbine",
        "desert-rose",
        "tree mallow",
        "magnolia",
        "cyclamen",
        "watercress",
        "canna lily",
        "hippeastrum",
        "bee balm",
        "ball moss",
        "foxglove",
        "bougainvillea",
        "camellia",
        "mallow",
        "mexican petunia",
        "bromelia",
        "blanket flower",
        "trumpet creeper",
        "blackberry lily",
    ]


class Food101(VisionDataset):
    """Food-101: root/food-101/{images/<class>/<id>.jpg, meta/<split>.json}; split train or test. The JSON maps each
    class to its "class/id" entries; classes are the sorted keys."""

    _URL = "http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz"

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False, loader=load_rgb):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self._split = _verify_str_arg(split, "split", ("train", "test"))
        self._base_folder = os.path.join(self.root, "food-101")
        self._meta_folder = os.path.join(self._base_folder, "meta")
        self._images_folder = os.path.join(self._base_folder, "images")
        self.loader = loader
        meta = _find_file(split + ".json", self._URL + " (extract it)", [self._meta_folder], "Food101", download)
        try:
            with open(meta) as f:
                metadata = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise RuntimeError("Food101: %s is not valid JSON (%s)" % (meta, e)) from None
        if not isinstance(metadata, dict) or not all(
            isinstance(v, list) and all(isinstance(p, str) for p in v) for v in metadata.values()
        ):
            raise RuntimeError("Food101: %s should map each class name to a list of 'class/id' strings" % meta)
        self.classes = sorted(metadata)
        self.class_to_idx = dict(zip(self.classes, range(len(self.classes))))
        self._labels, self._image_files = [], []
        for class_label, rel_paths in metadata.items():
            self._labels += [self.class_to_idx[class_label]] * len(rel_paths)
            self._image_files += [os.path.join(self._images_folder, *(p + ".jpg").split("/")) for p in rel_paths]

    def __len__(self):
        return len(self._image_files)

    def __getitem__(self, idx):
        idx = _check_index(idx, len(self))
        image, label = self.loader(self._image_files[idx]), self._labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label

    def extra_repr(self):
        return "split=%s" % self._split


class OxfordIIITPet(VisionDataset):
    """Oxford-IIIT Pet: root/oxford-iiit-pet/{images/<id>.jpg, annotations/{trainval,test}.txt,
    annotations/trimaps/<id>.png}. target_types: category (0..36), binary-category (0 cat, 1 dog), segmentation
    (the trimap image), or a list of them (a tuple target); [] gives None."""

    _RESOURCES = (
        "https://www.robots.ox.ac.uk/~vgg/data/pets/data/images.tar.gz",
        "https://www.robots.ox.ac.uk/~vgg/data/pets/data/annotations.tar.gz",
    )
    _VALID_TARGET_TYPES = ("category", "binary-category", "segmentation")

    def __init__(
        self,
        root,
        split="trainval",
        target_types="category",
        transforms=None,
        transform=None,
        target_transform=None,
        download=False,
    ):
        self._split = _verify_str_arg(split, "split", ("trainval", "test"))
        if isinstance(target_types, str):
            target_types = [target_types]
        self._target_types = [_verify_str_arg(t, "target_types", self._VALID_TARGET_TYPES) for t in target_types]
        super().__init__(root, transforms=transforms, transform=transform, target_transform=target_transform)
        self._base_folder = os.path.join(self.root, "oxford-iiit-pet")
        self._images_folder = os.path.join(self._base_folder, "images")
        self._anns_folder = os.path.join(self._base_folder, "annotations")
        self._segs_folder = os.path.join(self._anns_folder, "trimaps")
        listing = _find_file(
            split + ".txt", self._RESOURCES[1] + " (extract it)", [self._anns_folder], "OxfordIIITPet", download
        )
        if not os.path.isdir(self._images_folder):
            _find_file("images", self._RESOURCES[0] + " (extract it)", [self._base_folder], "OxfordIIITPet", download)
        image_ids, self._labels, self._bin_labels = [], [], []
        with open(listing) as f:
            for n, line in enumerate(f, 1):
                parts = line.strip().split()
                if not parts:
                    continue
                try:
                    image_id, label, bin_label = parts[0], int(parts[1]), int(parts[2])
                except (IndexError, ValueError):
                    raise RuntimeError(
                        "OxfordIIITPet: line %d of %s is not '<image id> <class> <species> ...'" % (n, listing)
                    ) from None
                if not 1 <= label <= 37 or bin_label not in (1, 2):
                    raise RuntimeError(
                        "OxfordIIITPet: line %d of %s has class %d, species %d" % (n, listing, label, bin_label)
                    )
                image_ids.append(image_id)
                self._labels.append(label - 1)
                self._bin_labels.append(bin_label - 1)
        self.bin_classes = ["Cat", "Dog"]
        pairs = sorted({(i.rsplit("_", 1)[0], lab) for i, lab in zip(image_ids, self._labels)}, key=lambda p: p[1])
        self.classes = [" ".join(part.title() for part in raw.split("_")) for raw, _ in pairs]
        self.bin_class_to_idx = dict(zip(self.bin_classes, range(len(self.bin_classes))))
        self.class_to_idx = dict(zip(self.classes, range(len(self.classes))))
        self._images = [os.path.join(self._images_folder, i + ".jpg") for i in image_ids]
        self._segs = [os.path.join(self._segs_folder, i + ".png") for i in image_ids]

    def __len__(self):
        return len(self._images)

    def __getitem__(self, idx):
        idx = _check_index(idx, len(self))
        image = load_rgb(self._images[idx])
        target = []
        for t in self._target_types:
            if t == "category":
                target.append(self._labels[idx])
            elif t == "binary-category":
                target.append(self._bin_labels[idx])
            else:
                target.append(load_raw(self._segs[idx], "OxfordIIITPet"))
        target = None if not target else (target[0] if len(target) == 1 else tuple(target))
        if self.transforms:
            image, target = self.transforms(image, target)
        return image, target


class CelebA(VisionDataset):
    """CelebA from root/celeba/: img_align_celeba/, list_eval_partition.txt, identity_CelebA.txt,
    list_bbox_celeba.txt, list_landmarks_align_celeba.txt, list_attr_celeba.txt. split: train, valid, test or all;
    target_type: attr (int64 [40] of 0/1), identity (int64 scalar tensor), bbox (int64 [4]), landmarks (int64 [10]),
    or a list (a tuple target); [] gives None."""

    base_folder = "celeba"
    _url = "https://mmlab.ie.cuhk.edu.hk/projects/CelebA.html (Google Drive)"
    _files = (
        "list_eval_partition.txt",
        "identity_CelebA.txt",
        "list_bbox_celeba.txt",
        "list_landmarks_align_celeba.txt",
        "list_attr_celeba.txt",
    )

    def __init__(self, root, split="train", target_type="attr", transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = split
        self.target_type = list(target_type) if isinstance(target_type, list) else [target_type]
        if not self.target_type and self.target_transform is not None:
            raise RuntimeError("target_transform is specified but target_type is empty")
        folder = os.path.join(self.root, self.base_folder)
        for name in self._files + ("img_align_celeba",):
            _find_file(name, self._url, [folder], "CelebA", download)
        split_map = {"train": 0, "valid": 1, "test": 2, "all": None}
        split_ = split_map[
            _verify_str_arg(split.lower() if isinstance(split, str) else split, "split", tuple(split_map))
        ]
        splits = self._load_csv("list_eval_partition.txt")
        identity = self._load_csv("identity_CelebA.txt")
        bbox = self._load_csv("list_bbox_celeba.txt", header=1)
        landmarks = self._load_csv("list_landmarks_align_celeba.txt", header=1)
        attr = self._load_csv("list_attr_celeba.txt", header=1)
        n = len(splits[1])
        for name, table in (("identity", identity), ("bbox", bbox), ("landmarks", landmarks), ("attr", attr)):
            if len(table[1]) != n:
                raise RuntimeError("CelebA: the %s list has %d rows, the partition list %d" % (name, len(table[1]), n))
        if split_ is None:
            keep = list(range(n))
        else:
            keep = [i for i in range(n) if splits[2][i][:1] == [split_]]
        self.filename = [splits[1][i] for i in keep]
        index = ember.tensor(keep, dtype=ember.int64)
        self.identity = identity[3].index_select(0, index)
        self.bbox = bbox[3].index_select(0, index)
        self.landmarks_align = landmarks[3].index_select(0, index)
        self.attr = ember.div(attr[3].index_select(0, index) + 1, 2, rounding_mode="floor")
        self.attr_names = attr[0]

    def _load_csv(self, filename, header=None):
        """(header, first column, int rows, int64 tensor of the rows)."""
        path = os.path.join(self.root, self.base_folder, filename)
        with open(path) as f:
            rows = [r for r in csv.reader(f, delimiter=" ", skipinitialspace=True) if r]
        headers = []
        if header is not None:
            if len(rows) <= header:
                raise RuntimeError("CelebA: %s has no header line %d" % (path, header + 1))
            headers, rows = rows[header], rows[header + 1 :]
        names = [r[0] for r in rows]
        try:
            values = [[int(v) for v in r[1:] if v != ""] for r in rows]
        except ValueError:
            raise RuntimeError("CelebA: %s has a non-integer value" % path) from None
        width = len(values[0]) if values else 0
        if any(len(v) != width for v in values):
            raise RuntimeError("CelebA: the rows of %s have different lengths" % path)
        data = ember.tensor(values, dtype=ember.int64) if values else ember.zeros((0, width), dtype=ember.int64)
        return headers, names, values, data

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        X = _celeba_image(os.path.join(self.root, self.base_folder, "img_align_celeba", self.filename[index]))
        target = []
        for t in self.target_type:
            if t == "attr":
                target.append(self.attr[index, :])
            elif t == "identity":
                target.append(self.identity[index, 0])
            elif t == "bbox":
                target.append(self.bbox[index, :])
            elif t == "landmarks":
                target.append(self.landmarks_align[index, :])
            else:
                raise ValueError('Target type "%s" is not recognized.' % t)
        if self.transform is not None:
            X = self.transform(X)
        if target:
            target = tuple(target) if len(target) > 1 else target[0]
            if self.target_transform is not None:
                target = self.target_transform(target)
        else:
            target = None
        return X, target

    def __len__(self):
        return len(self.filename)

    def extra_repr(self):
        return "\n".join(("Target type: {target_type}", "Split: {split}")).format(**self.__dict__)


def _celeba_image(path):
    """CelebA's images as torchvision gives them: the file opened by Pillow without conversion (RGB JPEGs)."""
    return load_raw(path, "CelebA")
