"""Pascal VOC (detection and segmentation) and COCO (detection and captions, from the annotation JSON read here:
no pycocotools). Images are RGB (PIL with Pillow, else uint8 [H, W, 3] arrays)."""

import collections
import json
import os
import xml.etree.ElementTree as ET

from ._images import load_raw, load_rgb
from .vision import VisionDataset, _check_index, _find_file, _verify_str_arg

__all__ = ["VOCDetection", "VOCSegmentation", "CocoDetection", "CocoCaptions"]

_VOC = {
    "2012": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar", "VOC2012"),
    "2011": (
        "https://thor.robots.ox.ac.uk/pascal/VOC/voc2011/VOCtrainval_25-May-2011.tar",
        "TrainVal/VOCdevkit/VOC2011",
    ),
    "2010": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2010/VOCtrainval_03-May-2010.tar", "VOC2010"),
    "2009": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2009/VOCtrainval_11-May-2009.tar", "VOC2009"),
    "2008": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2008/VOCtrainval_14-Jul-2008.tar", "VOC2008"),
    "2007": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtrainval_06-Nov-2007.tar", "VOC2007"),
    "2007-test": ("https://thor.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtest_06-Nov-2007.tar", "VOC2007"),
}


class _VOCBase(VisionDataset):
    _SPLITS_DIR = _TARGET_DIR = _TARGET_FILE_EXT = None

    def __init__(
        self,
        root,
        year="2012",
        image_set="train",
        download=False,
        transform=None,
        target_transform=None,
        transforms=None,
    ):
        super().__init__(root, transforms, transform, target_transform)
        self.year = _verify_str_arg(year, "year", [str(y) for y in range(2007, 2013)])
        valid_sets = ["train", "trainval", "val"] + (["test"] if year == "2007" else [])
        self.image_set = _verify_str_arg(image_set, "image_set", valid_sets)
        key = "2007-test" if year == "2007" and image_set == "test" else year
        self.url, base = _VOC[key]
        base_dir = base if base.startswith("TrainVal") else os.path.join("VOCdevkit", base)
        voc_root = os.path.join(self.root, *base_dir.split("/"))
        split_f = _find_file(
            image_set + ".txt",
            self.url + " (extract it into root)",
            [os.path.join(voc_root, "ImageSets", self._SPLITS_DIR)],
            type(self).__name__,
            download,
        )
        with open(split_f) as f:
            file_names = [x.strip() for x in f.readlines() if x.strip()]
        self.images = [os.path.join(voc_root, "JPEGImages", x + ".jpg") for x in file_names]
        self.targets = [os.path.join(voc_root, self._TARGET_DIR, x + self._TARGET_FILE_EXT) for x in file_names]

    def __len__(self):
        return len(self.images)


class VOCSegmentation(_VOCBase):
    """VOC segmentation: (RGB image, the class-index mask: a "P" PIL image, or uint8 [H, W] without Pillow for
    non-palette masks)."""

    _SPLITS_DIR = "Segmentation"
    _TARGET_DIR = "SegmentationClass"
    _TARGET_FILE_EXT = ".png"

    @property
    def masks(self):
        return self.targets

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img = load_rgb(self.images[index])
        target = load_raw(self.masks[index], "VOCSegmentation")
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class VOCDetection(_VOCBase):
    """VOC detection: (RGB image, the annotation XML as nested dicts; "object" is always a list)."""

    _SPLITS_DIR = "Main"
    _TARGET_DIR = "Annotations"
    _TARGET_FILE_EXT = ".xml"

    @property
    def annotations(self):
        return self.targets

    def __getitem__(self, index):
        index = _check_index(index, len(self))
        img = load_rgb(self.images[index])
        path = self.annotations[index]
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            raise RuntimeError("VOCDetection: %s is not valid XML (%s)" % (path, e)) from None
        target = self.parse_voc_xml(root)
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target

    @staticmethod
    def parse_voc_xml(node):
        """An element as {tag: text} or {tag: {child tag: value or [values]}}; <annotation>'s "object" is a list."""
        out = {}
        children = list(node)
        if children:
            grouped = collections.defaultdict(list)
            for d in map(VOCDetection.parse_voc_xml, children):
                for k, v in d.items():
                    grouped[k].append(v)
            if node.tag == "annotation":
                grouped["object"] = [grouped["object"]]
            out = {node.tag: {k: v[0] if len(v) == 1 else v for k, v in grouped.items()}}
        if node.text:
            text = node.text.strip()
            if not children:
                out[node.tag] = text
        return out


class CocoDetection(VisionDataset):
    """COCO: images in root, annotations in annFile (instances_*.json). dataset[i] is (RGB image, list of the
    annotation dicts of image ids[i], in file order); ids are the image ids, sorted."""

    def __init__(self, root, annFile, transform=None, target_transform=None, transforms=None):
        super().__init__(root, transforms, transform, target_transform)
        if not os.path.isfile(annFile):
            raise FileNotFoundError("%s: annotation file %s not found" % (type(self).__name__, annFile))
        try:
            with open(annFile) as f:
                dataset = json.load(f)
        except (ValueError, UnicodeDecodeError) as e:
            raise RuntimeError("%s: %s is not valid JSON (%s)" % (type(self).__name__, annFile, e)) from None
        if not isinstance(dataset, dict):
            raise RuntimeError("%s: %s should hold a JSON object" % (type(self).__name__, annFile))
        images, anns = dataset.get("images", []), dataset.get("annotations", [])
        if not isinstance(images, list) or not all(
            isinstance(i, dict) and "id" in i and "file_name" in i for i in images
        ):
            raise RuntimeError(
                "%s: %s: 'images' should be a list of objects with id and file_name" % (type(self).__name__, annFile)
            )
        if not isinstance(anns, list) or not all(isinstance(a, dict) and "image_id" in a for a in anns):
            raise RuntimeError(
                "%s: %s: 'annotations' should be a list of objects with image_id" % (type(self).__name__, annFile)
            )
        self.dataset = dataset
        self.imgs = {img["id"]: img for img in images}
        self.img_to_anns = collections.defaultdict(list)
        for ann in anns:
            self.img_to_anns[ann["image_id"]].append(ann)
        self.ids = sorted(self.imgs.keys())

    def _load_image(self, id):
        name = self.imgs[id]["file_name"]
        if not isinstance(name, str):
            raise RuntimeError("%s: image %r has a file_name that is not a string" % (type(self).__name__, id))
        return load_rgb(os.path.join(self.root, name))

    def _load_target(self, id):
        return list(self.img_to_anns.get(id, []))

    def __getitem__(self, index):
        if isinstance(index, bool) or not isinstance(index, int):
            raise ValueError("Index must be of type integer, got %s instead." % type(index))
        index = _check_index(index, len(self))
        image_id = self.ids[index]
        image, target = self._load_image(image_id), self._load_target(image_id)
        if self.transforms is not None:
            image, target = self.transforms(image, target)
        return image, target

    def __len__(self):
        return len(self.ids)


class CocoCaptions(CocoDetection):
    """COCO captions (captions_*.json): dataset[i] is (RGB image, list of caption strings)."""

    def _load_target(self, id):
        return [ann["caption"] for ann in super()._load_target(id)]
