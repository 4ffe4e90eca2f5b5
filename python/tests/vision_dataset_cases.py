"""Tiny dataset trees in torchvision's layouts, and a summary of what a datasets module returns for them: the same
summary code runs on ember.vision.datasets here and on torchvision.datasets in the reference PyTorch's process
(test_vision_datasets_more.py). build() needs only NumPy and Pillow."""

import json
import os
import struct

import numpy as np
from PIL import Image


def idx_bytes(arr):
    codes = {np.uint8: 0x08, np.int32: 0x0C}
    header = bytes([0, 0, codes[arr.dtype.type], arr.ndim]) + struct.pack(">%dI" % arr.ndim, *arr.shape)
    return header + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _jpeg(path, rng, h=6, w=7, mode="RGB"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    img = Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    (img if mode == "RGB" else img.convert(mode)).save(path, quality=90)


def build(root):
    rng = np.random.default_rng(11)
    # MNIST family
    for name, prefix_train, prefix_test, label_shape in (
        ("KMNIST", "train", "t10k", None),
        ("EMNIST", "emnist-letters-train", "emnist-letters-test", None),
        ("QMNIST", "qmnist-train", "qmnist-test", 8),
    ):
        for prefix, n in ((prefix_train, 5), (prefix_test, 3)):
            images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
            if label_shape is None:
                labels = rng.integers(0, 10, n, dtype=np.uint8)
                lname = prefix + "-labels-idx1-ubyte"
            else:
                labels = rng.integers(0, 10, (n, 8), dtype=np.int32)
                lname = prefix + "-labels-idx2-int"
            _write(os.path.join(root, name, "raw", prefix + "-images-idx3-ubyte"), idx_bytes(images))
            _write(os.path.join(root, name, "raw", lname), idx_bytes(labels))
    # STL10
    stl = os.path.join(root, "stl10_binary")
    for split, n in (("train", 4), ("test", 2), ("unlabeled", 3)):
        _write(os.path.join(stl, split + "_X.bin"), rng.integers(0, 256, n * 3 * 96 * 96, dtype=np.uint8).tobytes())
        if split != "unlabeled":
            _write(os.path.join(stl, split + "_y.bin"), rng.integers(1, 11, n, dtype=np.uint8).tobytes())
    _write(os.path.join(stl, "class_names.txt"), b"\n".join(b"class%d" % i for i in range(10)) + b"\n")
    _write(os.path.join(stl, "fold_indices.txt"), b"".join(b"%d %d\n" % (i % 4, (i + 2) % 4) for i in range(10)))
    # Food101
    food = os.path.join(root, "food-101")
    meta = {"ramen": ["ramen/1", "ramen/7"], "apple_pie": ["apple_pie/3"], "sushi": ["sushi/2"]}
    for split in ("train", "test"):
        _write(os.path.join(food, "meta", split + ".json"), json.dumps(meta).encode())
    for entries in meta.values():
        for e in entries:
            _jpeg(os.path.join(food, "images", e + ".jpg"), rng)
    # Oxford-IIIT Pet
    pet = os.path.join(root, "oxford-iiit-pet")
    rows = [("Abyssinian_1", 1, 1), ("great_pyrenees_4", 13, 2), ("Bengal_2", 6, 1), ("Abyssinian_9", 1, 1)]
    for split in ("trainval", "test"):
        _write(
            os.path.join(pet, "annotations", split + ".txt"),
            "".join("%s %d %d 1\n" % r for r in rows).encode(),
        )
    for image_id, _, _ in rows:
        _jpeg(os.path.join(pet, "images", image_id + ".jpg"), rng)
        os.makedirs(os.path.join(pet, "annotations", "trimaps"), exist_ok=True)
        Image.fromarray(rng.integers(1, 4, (6, 7), dtype=np.uint8)).save(
            os.path.join(pet, "annotations", "trimaps", image_id + ".png")
        )
    # CelebA
    celeba = os.path.join(root, "celeba")
    names = ["%06d.jpg" % i for i in range(1, 6)]
    for n in names:
        _jpeg(os.path.join(celeba, "img_align_celeba", n), rng)
    parts = [0, 1, 0, 2, 1]
    _write(os.path.join(celeba, "list_eval_partition.txt"), "".join("%s %d\n" % p for p in zip(names, parts)).encode())
    _write(
        os.path.join(celeba, "identity_CelebA.txt"),
        "".join("%s %d\n" % (n, 100 + i) for i, n in enumerate(names)).encode(),
    )
    bbox = "5\nimage_id x_1 y_1 width height\n" + "".join(
        "%s  %d  %d  %d  %d\n" % ((n,) + tuple(rng.integers(0, 50, 4))) for n in names
    )
    _write(os.path.join(celeba, "list_bbox_celeba.txt"), bbox.encode())
    lm = (
        "5\nlefteye_x lefteye_y righteye_x righteye_y nose_x nose_y leftmouth_x leftmouth_y rightmouth_x rightmouth_y\n"
    )
    lm += "".join(n + " " + " ".join(str(v) for v in rng.integers(0, 90, 10)) + "\n" for n in names)
    _write(os.path.join(celeba, "list_landmarks_align_celeba.txt"), lm.encode())
    attrs = ["Smiling", "Young", "Male"]
    at = (
        "5\n"
        + " ".join(attrs)
        + " \n"
        + "".join(n + "  " + " ".join("%2d" % v for v in rng.choice([-1, 1], 3)) + "\n" for n in names)
    )
    _write(os.path.join(celeba, "list_attr_celeba.txt"), at.encode())
    # VOC 2012
    voc = os.path.join(root, "VOCdevkit", "VOC2012")
    ids = ["2008_000001", "2008_000002"]
    for sub in ("Main", "Segmentation"):
        _write(os.path.join(voc, "ImageSets", sub, "train.txt"), ("\n".join(ids) + "\n").encode())
    for k, i in enumerate(ids):
        _jpeg(os.path.join(voc, "JPEGImages", i + ".jpg"), rng)
        objs = "".join(
            "<object><name>%s</name><difficult>0</difficult><bndbox><xmin>%d</xmin><ymin>2</ymin><xmax>5</xmax>"
            "<ymax>6</ymax></bndbox></object>" % (name, j)
            for j, name in enumerate(["dog", "cat"][: k + 1])
        )
        xml = "<annotation><folder>VOC2012</folder><filename>%s.jpg</filename><size><width>7</width>" % i
        xml += "<height>6</height><depth>3</depth></size>%s</annotation>" % objs
        _write(os.path.join(voc, "Annotations", i + ".xml"), xml.encode())
        mask = Image.fromarray(rng.integers(0, 3, (6, 7), dtype=np.uint8), mode="L").convert("P")
        mask.putpalette([0, 0, 0, 128, 0, 0, 0, 128, 0] + [0] * (256 * 3 - 9))
        os.makedirs(os.path.join(voc, "SegmentationClass"), exist_ok=True)
        mask.save(os.path.join(voc, "SegmentationClass", i + ".png"))
    # COCO
    coco = os.path.join(root, "coco")
    images = [{"id": 42, "file_name": "b.jpg"}, {"id": 7, "file_name": "a.jpg"}, {"id": 9, "file_name": "c.jpg"}]
    for im in images:
        _jpeg(os.path.join(coco, "images", im["file_name"]), rng)
    anns = [
        {"id": 1, "image_id": 7, "bbox": [1, 2, 3, 4], "category_id": 3, "area": 12, "iscrowd": 0},
        {"id": 2, "image_id": 42, "bbox": [0, 0, 2, 2], "category_id": 1, "area": 4, "iscrowd": 0},
        {"id": 3, "image_id": 7, "bbox": [2, 2, 1, 1], "category_id": 5, "area": 1, "iscrowd": 1},
    ]
    _write(
        os.path.join(coco, "instances.json"),
        json.dumps({"images": images, "annotations": anns, "categories": []}).encode(),
    )
    caps = [{"id": 5, "image_id": 42, "caption": "a dog"}, {"id": 6, "image_id": 42, "caption": "two dogs"}]
    caps.append({"id": 8, "image_id": 9, "caption": "grass"})
    _write(os.path.join(coco, "captions.json"), json.dumps({"images": images, "annotations": caps}).encode())


def specs(root):
    """(key, class name, args, kwargs) of each dataset to summarize."""
    coco = os.path.join(root, "coco")
    return [
        ("kmnist", "KMNIST", (root,), {}),
        ("kmnist_test", "KMNIST", (root,), {"train": False}),
        ("emnist", "EMNIST", (root,), {"split": "letters"}),
        ("qmnist", "QMNIST", (root,), {}),
        ("qmnist_full", "QMNIST", (root,), {"what": "test", "compat": False}),
        ("qmnist_10k", "QMNIST", (root,), {"what": "test10k"}),
        ("stl_train", "STL10", (root,), {}),
        ("stl_fold", "STL10", (root,), {"folds": 1}),
        ("stl_test", "STL10", (root,), {"split": "test"}),
        ("stl_tu", "STL10", (root,), {"split": "train+unlabeled", "folds": 2}),
        ("stl_unlabeled", "STL10", (root,), {"split": "unlabeled"}),
        ("food", "Food101", (root,), {}),
        ("pet", "OxfordIIITPet", (root,), {}),
        ("pet_all", "OxfordIIITPet", (root,), {"target_types": ["binary-category", "segmentation", "category"]}),
        ("pet_none", "OxfordIIITPet", (root,), {"split": "test", "target_types": []}),
        ("celeba", "CelebA", (root,), {}),
        ("celeba_multi", "CelebA", (root,), {"split": "all", "target_type": ["identity", "bbox", "landmarks"]}),
        ("celeba_valid", "CelebA", (root,), {"split": "valid", "target_type": "attr"}),
        ("voc_det", "VOCDetection", (root,), {}),
        ("voc_seg", "VOCSegmentation", (root,), {}),
        ("coco", "CocoDetection", (os.path.join(coco, "images"), os.path.join(coco, "instances.json")), {}),
        ("coco_caps", "CocoCaptions", (os.path.join(coco, "images"), os.path.join(coco, "captions.json")), {}),
    ]


def _plain(x):
    if isinstance(x, Image.Image):
        return {"pil": x.mode, "pixels": np.asarray(x).tolist()}
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        return {"tensor": str(x.dtype).split(".")[-1], "values": x.numpy().tolist()}
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return {"tuple": [_plain(v) for v in x]}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, (np.integer, np.floating)):
        return x.item()
    return x


# The reference has no pycocotools, which torchvision's COCO datasets import: they are checked by closed forms.
NOT_IN_REFERENCE = ("coco", "coco_caps")


def summary(datasets, root, skip=NOT_IN_REFERENCE):
    out = {}
    for key, cls, args, kwargs in specs(root):
        if key in skip:
            continue
        ds = getattr(datasets, cls)(*args, **kwargs)
        entry = {"len": len(ds), "samples": []}
        for attr in ("classes", "class_to_idx", "attr_names", "bin_classes", "ids"):
            if hasattr(ds, attr):
                entry[attr] = _plain(getattr(ds, attr))
        for i in range(len(ds)):
            img, target = ds[i]
            entry["samples"].append([_plain(img), _plain(target)])
        out[key] = entry
    return json.loads(json.dumps(out))


def _tv_plain(x):
    """A wrapped sample's parts with their tv_tensor types, formats and canvas sizes."""
    name = type(x).__name__
    if name in ("BoundingBoxes", "Mask", "Image"):
        out = {"type": name, "values": x.numpy().tolist() if hasattr(x, "numpy") else None}
        if name == "BoundingBoxes":
            out["format"] = x.format.name
            out["canvas_size"] = list(x.canvas_size)
        return out
    if isinstance(x, dict):
        return {k: _tv_plain(v) for k, v in sorted(x.items())}
    if isinstance(x, tuple):
        return {"tuple": [_tv_plain(v) for v in x]}
    if isinstance(x, list):
        return [_tv_plain(v) for v in x]
    return _plain(x)


def wrapped_summary(datasets, root):
    """wrap_dataset_for_transforms_v2 over the tree's detection/segmentation datasets."""
    wrap = datasets.wrap_dataset_for_transforms_v2
    out = {}
    cases = [
        ("voc_det", datasets.VOCDetection(root), None),
        ("voc_det_all", datasets.VOCDetection(root), "all"),
        ("voc_seg", datasets.VOCSegmentation(root), None),
        ("celeba_bbox", datasets.CelebA(root, split="all", target_type=["bbox", "identity"]), None),
        ("pet_seg", datasets.OxfordIIITPet(root, target_types=["segmentation", "category"]), None),
        ("kmnist", datasets.KMNIST(root), None),
    ]
    for key, ds, keys in cases:
        w = wrap(ds, target_keys=keys)
        out[key] = {"len": len(w), "cls": type(w).__name__, "samples": [_tv_plain(w[i]) for i in range(min(2, len(w)))]}
    return json.loads(json.dumps(out))
