"""The datasets of issue 24 beyond MNIST/CIFAR: KMNIST, EMNIST, QMNIST, SVHN, STL10, Flowers102, Food101,
OxfordIIITPet, CelebA, VOCDetection/VOCSegmentation, CocoDetection/CocoCaptions. Tiny trees in torchvision's layouts
(vision_dataset_cases.py) are read by ember and, when the reference PyTorch is installed, by torchvision: the
summaries (lengths, class lists, every sample's pixels and target) must be equal. SVHN and Flowers102 (MATLAB files;
the reference has no scipy) are checked against the values written. Then missing files, download=True and hostile
files."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember.vision import _pil, datasets
from ember.vision import io as vio
from ember.vision.datasets._matlab import loadmat

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"
needs_pil = pytest.mark.skipif(not _pil.available(), reason="needs Pillow")

REF_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import torchvision
    from torchvision import datasets
    sys.path.insert(0, sys.argv[2])
    from vision_dataset_cases import summary
    # The fake files have no published checksums: only the checks of what is there remain.
    datasets.CelebA._check_integrity = lambda self: True
    datasets.STL10._check_integrity = lambda self: True
    print(json.dumps(summary(datasets, sys.argv[1])))
    """
)


def cases():
    sys.path.insert(0, HERE)
    try:
        import vision_dataset_cases
    finally:
        sys.path.remove(HERE)
    return vision_dataset_cases


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    if not _pil.available():
        pytest.skip("building the trees needs Pillow")
    root = tmp_path_factory.mktemp("dsets")
    cases().build(str(root))
    return str(root)


@needs_pil
def test_datasets_match_torchvision(tree, tmp_path):
    if not os.path.exists(TORCH_PY):
        pytest.skip("needs the reference PyTorch at /opt/torch2/py")
    (tmp_path / "ref.py").write_text(REF_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run(
        [TORCH_PY, str(tmp_path / "ref.py"), tree, HERE], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    mine = cases().summary(datasets, tree)
    assert sorted(mine) == sorted(ref)
    for key in sorted(ref):
        assert mine[key].keys() == ref[key].keys(), key
        for field in ref[key]:
            assert mine[key][field] == ref[key][field], (key, field)


@needs_pil
def test_dataset_samples_closed_form(tree):
    """Independent of torchvision: spot values against what build() wrote."""
    q = datasets.QMNIST(tree, what="test", compat=False)
    img, target = q[1]
    assert img.mode == "L" and target.dtype == ember.int64 and tuple(target.shape) == (8,)
    assert tuple(q.targets.shape) == (3, 8)
    assert len(datasets.QMNIST(tree, what="test50k")) == 0
    e = datasets.EMNIST(tree, split="letters", train=False)
    assert e.classes[0] == "N/A" and len(e.classes) == 27 and len(e) == 3
    stl = datasets.STL10(tree, split="train+unlabeled", folds=2)
    assert len(stl) == 2 + 3 and stl.labels[-1] == -1 and stl[0][0].size == (96, 96)
    pet = datasets.OxfordIIITPet(tree, target_types=["category", "binary-category"])
    assert pet.classes == ["Abyssinian", "Bengal", "Great Pyrenees"]
    assert pet[1][1] == (12, 1)
    celeba = datasets.CelebA(tree, split="train", target_type="attr")
    assert celeba.filename == ["000001.jpg", "000003.jpg"] and celeba.attr_names[:3] == ["Smiling", "Young", "Male"]
    assert set(celeba.attr.unique().tolist()) <= {0, 1}
    coco = datasets.CocoDetection(os.path.join(tree, "coco", "images"), os.path.join(tree, "coco", "instances.json"))
    assert coco.ids == [7, 9, 42]
    assert [a["id"] for a in coco[0][1]] == [1, 3] and coco[1][1] == []
    caps = datasets.CocoCaptions(os.path.join(tree, "coco", "images"), os.path.join(tree, "coco", "captions.json"))
    assert caps[2][1] == ["a dog", "two dogs"]
    det = datasets.VOCDetection(tree)
    ann = det[1][1]["annotation"]
    assert [o["name"] for o in ann["object"]] == ["dog", "cat"] and ann["size"]["width"] == "7"
    assert isinstance(det[0][1]["annotation"]["object"], list)
    seg = datasets.VOCSegmentation(tree)
    assert seg[0][1].mode == "P"


def test_loaders_without_pillow(tree, monkeypatch):
    """Without Pillow the folder-based datasets decode through ember.vision.io: the same pixels as Pillow's."""
    with_pil = datasets.Food101(tree)[0][0]
    pet_mask = np.asarray(datasets.OxfordIIITPet(tree, target_types="segmentation")[0][1])
    monkeypatch.setattr(_pil, "Image", None)
    img, label = datasets.Food101(tree)[0]
    assert isinstance(img, np.ndarray) and label == datasets.Food101(tree).class_to_idx["ramen"]
    np.testing.assert_array_equal(img, np.asarray(with_pil))
    _, mask = datasets.OxfordIIITPet(tree, target_types="segmentation")[0]
    np.testing.assert_array_equal(mask, pet_mask)
    with pytest.raises(ImportError, match="palette PNG.*Pillow"):
        datasets.VOCSegmentation(tree)[0]
    img, target = datasets.STL10(tree, split="test")[0]
    assert isinstance(img, np.ndarray) and img.shape == (96, 96, 3)


# ---------------------------------------------------------------------------- MATLAB files: SVHN, Flowers102


def test_matlab_reader_against_scipy(tmp_path):
    sio = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(2)
    arrays = {
        "X": rng.integers(0, 256, (4, 3, 2, 5), dtype=np.uint8),
        "y": rng.integers(1, 11, (5, 1)).astype(np.float64),
        "ints": rng.integers(-9, 9, (3, 4)).astype(np.int16),
        "f": rng.random((2, 7)).astype(np.float32),
        "row": np.arange(6, dtype=np.float64)[None],
        "cplx": (rng.random((2, 2)) + 1j * rng.random((2, 2))),
        "empty": np.zeros((0, 3)),
    }
    for compress in (False, True):
        path = str(tmp_path / ("m%d.mat" % compress))
        sio.savemat(path, dict(arrays, text="skipped", cell=np.array([1, "a"], dtype=object)), do_compression=compress)
        mine, ref = loadmat(path), sio.loadmat(path)
        for k in arrays:
            assert mine[k].dtype == ref[k].dtype and mine[k].shape == ref[k].shape, k
            np.testing.assert_array_equal(mine[k], ref[k])
        assert "text" not in mine and "cell" not in mine
        sq, ref_sq = loadmat(path, squeeze_me=True), sio.loadmat(path, squeeze_me=True)
        np.testing.assert_array_equal(sq["y"], ref_sq["y"])
        assert sq["y"].shape == ref_sq["y"].shape
    good = (tmp_path / "m1.mat").read_bytes()
    for bad, match in (
        (good[:100], "shorter than the 128-byte header"),
        (good[:126] + b"XX" + good[128:], "no level-5 MAT header"),
        (good[: len(good) // 2], "runs past the end|corrupt"),
        (good[:136] + b"\x00" * 20 + good[156:], "corrupt|runs past|holds"),
    ):
        (tmp_path / "bad.mat").write_bytes(bad)
        with pytest.raises(RuntimeError, match="cannot read the MAT file .*bad.mat: .*(%s)" % match):
            loadmat(str(tmp_path / "bad.mat"))


def test_matlab_reader_fuzz(tmp_path):
    """Random byte changes in MAT files (compressed or not): an answer or a RuntimeError naming the file, never
    another exception or a crash."""
    sio = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(6)
    for compress in (False, True):
        good_path = str(tmp_path / ("g%d.mat" % compress))
        sio.savemat(
            good_path,
            {"X": rng.integers(0, 256, (4, 4, 3, 2), dtype=np.uint8), "y": np.arange(2.0)[:, None]},
            do_compression=compress,
        )
        good = open(good_path, "rb").read()
        for trial in range(60):
            bad = bytearray(good)
            for pos in rng.integers(128, len(bad), int(rng.integers(1, 6))):
                bad[pos] = int(rng.integers(0, 256))
            if trial % 5 == 0:
                bad = bad[: int(rng.integers(128, len(bad)))]
            path = tmp_path / "f.mat"
            path.write_bytes(bytes(bad))
            try:
                loadmat(str(path))
            except RuntimeError as e:
                assert "f.mat" in str(e)


def test_svhn(tmp_path):
    sio = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(4)
    x = rng.integers(0, 256, (32, 32, 3, 6), dtype=np.uint8)
    y = np.array([[10], [1], [2], [10], [9], [3]], dtype=np.float64)
    sio.savemat(str(tmp_path / "test_32x32.mat"), {"X": x, "y": y})
    ds = datasets.SVHN(str(tmp_path), split="test")
    assert len(ds) == 6 and ds.data.shape == (6, 3, 32, 32) and ds.labels.tolist() == [0, 1, 2, 0, 9, 3]
    img, target = ds[3]
    assert target == 0
    pix = np.asarray(img) if _pil.available() else img
    np.testing.assert_array_equal(pix, x[:, :, :, 3])
    with pytest.raises(RuntimeError, match="train_32x32.mat.*http://ufldl.stanford.edu/housenumbers/train_32x32.mat"):
        datasets.SVHN(str(tmp_path))
    with pytest.raises(RuntimeError, match="download=True cannot fetch"):
        datasets.SVHN(str(tmp_path), download=True)
    assert len(datasets.SVHN(str(tmp_path), split="test", download=True)) == 6
    with pytest.raises(ValueError, match="Unknown value 'val' for argument split"):
        datasets.SVHN(str(tmp_path), split="val")
    sio.savemat(str(tmp_path / "extra_32x32.mat"), {"X": x[:16], "y": y})
    with pytest.raises(RuntimeError, match="no 'X' array"):
        datasets.SVHN(str(tmp_path), split="extra")


def test_flowers102(tmp_path):
    sio = pytest.importorskip("scipy.io")
    base = tmp_path / "flowers-102"
    (base / "jpg").mkdir(parents=True)
    rng = np.random.default_rng(8)
    pixels = {}
    for i in range(1, 7):
        arr = rng.integers(0, 256, (3, 5, 6), dtype=np.uint8)
        vio.write_jpeg(ember.from_numpy(arr), str(base / "jpg" / ("image_%05d.jpg" % i)), quality=95)
        pixels[i] = vio.read_image(str(base / "jpg" / ("image_%05d.jpg" % i)), vio.ImageReadMode.RGB)
    sio.savemat(str(base / "imagelabels.mat"), {"labels": np.array([[5, 1, 102, 7, 7, 3]], dtype=np.uint8)})
    sio.savemat(
        str(base / "setid.mat"), {"trnid": np.array([[2, 5]]), "valid": np.array([[6]]), "tstid": np.array([[1, 3, 4]])}
    )
    ds = datasets.Flowers102(str(tmp_path), split="test")
    assert len(ds) == 3 and [ds[i][1] for i in range(3)] == [4, 101, 6]
    assert len(ds.classes) == 102 and ds.classes[0] == "pink primrose"
    img, _ = ds[1]
    pix = np.asarray(img) if _pil.available() else img
    np.testing.assert_array_equal(pix, pixels[3].numpy().transpose(1, 2, 0))
    assert [datasets.Flowers102(str(tmp_path), split="train")[i][1] for i in range(2)] == [0, 6]
    loaded = datasets.Flowers102(str(tmp_path), split="val", loader=lambda p: os.path.basename(p))
    assert loaded[0] == ("image_00006.jpg", 2)
    sio.savemat(
        str(base / "setid.mat"), {"trnid": np.array([[2, 99]]), "valid": np.array([[6]]), "tstid": np.array([[1]])}
    )
    with pytest.raises(RuntimeError, match="image ids outside 1..6"):
        datasets.Flowers102(str(tmp_path))


# ---------------------------------------------------------------------------- missing and hostile files


def test_missing_files_name_file_and_url(tmp_path):
    root = str(tmp_path)
    for make, name, url in (
        (lambda d: datasets.STL10(root, download=d), "train_X.bin", "stl10_binary.tar.gz"),
        (lambda d: datasets.Food101(root, download=d), "train.json", "food-101.tar.gz"),
        (lambda d: datasets.OxfordIIITPet(root, download=d), "trainval.txt", "annotations.tar.gz"),
        (lambda d: datasets.CelebA(root, download=d), "list_eval_partition.txt", "CelebA"),
        (lambda d: datasets.VOCDetection(root, download=d), "train.txt", "VOCtrainval_11-May-2012.tar"),
        (lambda d: datasets.Flowers102(root, download=d), "jpg", "102flowers.tgz"),
        (lambda d: datasets.KMNIST(root, download=d), "train-images-idx3-ubyte", "codh.rois.ac.jp"),
        (lambda d: datasets.QMNIST(root, download=d), "qmnist-train-images-idx3-ubyte", "facebookresearch/qmnist"),
        (lambda d: datasets.EMNIST(root, split="digits", download=d), "emnist-digits-train-images", "gzip.zip"),
    ):
        for download in (False, True):
            with pytest.raises(RuntimeError, match="Dataset not found") as info:
                make(download)
            msg = str(info.value)
            assert name in msg and url in msg, msg
            assert ("download=True cannot fetch" in msg) == download, msg
    with pytest.raises(FileNotFoundError, match="annotation file"):
        datasets.CocoDetection(root, os.path.join(root, "none.json"))
    with pytest.raises(ValueError, match="Unknown value 'x' for argument split"):
        datasets.EMNIST(root, split="x")
    with pytest.raises(ValueError, match="folds"):
        datasets.STL10(root, folds=10)


def test_hostile_files(tree, tmp_path):
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(tree, root)
    stl = root / "stl10_binary"
    (stl / "test_X.bin").write_bytes((stl / "test_X.bin").read_bytes()[:-5])
    with pytest.raises(RuntimeError, match="not a whole number of 3x96x96 images"):
        datasets.STL10(str(root), split="test")
    (stl / "train_y.bin").write_bytes(b"\x01\x02")
    with pytest.raises(RuntimeError, match="4 images .* but 2 labels"):
        datasets.STL10(str(root))
    (root / "food-101" / "meta" / "train.json").write_bytes(b"{not json")
    with pytest.raises(RuntimeError, match="not valid JSON"):
        datasets.Food101(str(root))
    (root / "food-101" / "meta" / "train.json").write_bytes(b'{"a": 3}')
    with pytest.raises(RuntimeError, match="list of 'class/id'"):
        datasets.Food101(str(root))
    (root / "oxford-iiit-pet" / "annotations" / "trainval.txt").write_bytes(b"Abyssinian_1 x 1 1\n")
    with pytest.raises(RuntimeError, match="line 1 .* is not"):
        datasets.OxfordIIITPet(str(root))
    (root / "celeba" / "list_attr_celeba.txt").write_bytes(b"5\nA B\n000001.jpg 1 x\n")
    with pytest.raises(RuntimeError, match="non-integer"):
        datasets.CelebA(str(root))
    (root / "coco" / "instances.json").write_bytes(b'{"images": [{"id": 1}], "annotations": []}')
    with pytest.raises(RuntimeError, match="'images' should be a list"):
        datasets.CocoDetection(str(root / "coco" / "images"), str(root / "coco" / "instances.json"))
    ann = root / "VOCdevkit" / "VOC2012" / "Annotations" / "2008_000001.xml"
    ann.write_bytes(b"<annotation><object>")
    with pytest.raises(RuntimeError, match="not valid XML"):
        datasets.VOCDetection(str(root))[0]
    jpg = root / "coco" / "images" / "a.jpg"
    jpg.write_bytes(jpg.read_bytes()[:60])
    (root / "coco" / "instances.json").write_bytes(b'{"images": [{"id": 1, "file_name": "a.jpg"}], "annotations": []}')
    with pytest.raises(RuntimeError, match="cannot decode"):
        datasets.CocoDetection(str(root / "coco" / "images"), str(root / "coco" / "instances.json"))[0]
    q = root / "QMNIST" / "raw" / "qmnist-train-labels-idx2-int"
    q.write_bytes(q.read_bytes()[:-3])
    with pytest.raises(RuntimeError):
        datasets.QMNIST(str(root))


# ---------------------------------------------------------------------------- datasets.utils


def test_dataset_utils(tmp_path):
    import gzip
    import hashlib
    import io
    import tarfile
    import zipfile

    from ember.vision.datasets import utils as U

    data = b"ember" * 1000
    f = tmp_path / "f.bin"
    f.write_bytes(data)
    md5 = hashlib.md5(data).hexdigest()
    assert U.calculate_md5(str(f)) == md5 and U.check_integrity(str(f), md5) and U.check_integrity(str(f))
    assert not U.check_integrity(str(f), "0" * 32) and not U.check_integrity(str(tmp_path / "none"))
    U.download_url("https://example.org/x/f.bin", str(tmp_path), md5=md5)  # present: nothing to do
    with pytest.raises(RuntimeError, match="wrong md5.*https://example.org/x/f.bin"):
        U.download_url("https://example.org/x/f.bin", str(tmp_path), md5="0" * 32)
    with pytest.raises(RuntimeError, match="g.bin is missing.*https://example.org/g.bin"):
        U.download_url("https://example.org/g.bin", str(tmp_path))
    # archives: tar.gz, zip and a gzipped file extract; members leaving the target are refused before writing
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "a.txt").write_bytes(b"A")
    with tarfile.open(tmp_path / "t.tar.gz", "w:gz") as t:
        t.add(src / "d", arcname="d")
    with zipfile.ZipFile(tmp_path / "z.zip", "w") as z:
        z.writestr("zz/b.txt", b"B")
    with gzip.open(tmp_path / "c.txt.gz", "wb") as g:
        g.write(b"C")
    out = tmp_path / "out"
    out.mkdir()
    assert U.extract_archive(str(tmp_path / "t.tar.gz"), str(out)) == str(out)
    U.download_and_extract_archive("https://example.org/z.zip", str(tmp_path), extract_root=str(out))
    assert U.extract_archive(str(tmp_path / "c.txt.gz"), str(out)) == str(out / "c.txt")
    assert (out / "d" / "a.txt").read_bytes() == b"A" and (out / "zz" / "b.txt").read_bytes() == b"B"
    assert (out / "c.txt").read_bytes() == b"C"
    assert sorted(U.list_dir(str(out))) == ["d", "zz"] and U.list_files(str(out), ".txt") == ["c.txt"]
    for name, make in (
        ("up.tar", lambda t: t.addfile(tarfile.TarInfo("../evil.txt"), io.BytesIO(b""))),
        ("abs.tar", lambda t: t.addfile(tarfile.TarInfo("/tmp/evil.txt"), io.BytesIO(b""))),
    ):
        with tarfile.open(tmp_path / name, "w") as t:
            make(t)
        with pytest.raises(RuntimeError, match="outside"):
            U.extract_archive(str(tmp_path / name), str(out))
    link = tarfile.TarInfo("l")
    link.type, link.linkname = tarfile.SYMTYPE, "../../etc"
    with tarfile.open(tmp_path / "link.tar", "w") as t:
        t.addfile(link)
    with pytest.raises(RuntimeError, match="points outside"):
        U.extract_archive(str(tmp_path / "link.tar"), str(out))
    with zipfile.ZipFile(tmp_path / "up.zip", "w") as z:
        z.writestr("../evil.txt", b"x")
    with pytest.raises(RuntimeError, match="outside"):
        U.extract_archive(str(tmp_path / "up.zip"), str(out))
    assert not (tmp_path / "evil.txt").exists()
    with pytest.raises(RuntimeError, match="Unknown compression or archive type"):
        U.extract_archive(str(f), str(out))
    assert U.verify_str_arg("a", "x", ("a", "b")) == "a"
    with pytest.raises(ValueError, match=r"Unknown value 'c' for argument x. Valid values are \{'a', 'b'\}."):
        U.verify_str_arg("c", "x", ("a", "b"))


WRAP_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from torchvision import datasets
    sys.path.insert(0, sys.argv[2])
    from vision_dataset_cases import wrapped_summary
    datasets.CelebA._check_integrity = lambda self: True
    print(json.dumps(wrapped_summary(datasets, sys.argv[1])))
    """
)


def test_wrap_dataset_for_transforms_v2(tree, tmp_path):
    """The wrapped samples (tv_tensor types, boxes, formats, canvas sizes, masks) equal torchvision's."""
    pytest.importorskip("ember.vision.tv_tensors")
    mine = cases().wrapped_summary(datasets, tree)
    w = datasets.wrap_dataset_for_transforms_v2(
        datasets.VOCDetection(tree, transforms=lambda i, t: (i, len(t["boxes"])))
    )
    assert w[1][1] == 2 and w.transforms is not None and w.image_set == "train"
    from ember.vision.transforms import v2

    # transforms.v2 moves the boxes with the image: a horizontal flip maps x to W - x (W = 7 here)
    flip = datasets.wrap_dataset_for_transforms_v2(
        datasets.VOCDetection(tree, transforms=v2.RandomHorizontalFlip(p=1.0))
    )
    plain = datasets.wrap_dataset_for_transforms_v2(datasets.VOCDetection(tree))
    a, b = plain[1][1]["boxes"].numpy(), flip[1][1]["boxes"].numpy()
    np.testing.assert_array_equal(b[:, [0, 2]], 7 - a[:, [2, 0]])
    np.testing.assert_array_equal(b[:, [1, 3]], a[:, [1, 3]])
    with pytest.raises(ValueError, match="target_keys"):
        datasets.wrap_dataset_for_transforms_v2(datasets.KMNIST(tree), target_keys=["boxes"])
    with pytest.raises(ValueError, match="not available"):
        datasets.wrap_dataset_for_transforms_v2(datasets.VOCDetection(tree), target_keys=["nope"])
    with pytest.raises(TypeError, match="No wrapper exists for dataset class STL10"):
        datasets.wrap_dataset_for_transforms_v2(datasets.STL10(tree))
    with pytest.raises(TypeError, match="VisionDataset"):
        datasets.wrap_dataset_for_transforms_v2([1, 2])
    if not os.path.exists(TORCH_PY):
        return
    (tmp_path / "ref.py").write_text(WRAP_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    proc = subprocess.run(
        [TORCH_PY, str(tmp_path / "ref.py"), tree, HERE], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    ref = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(mine) == sorted(ref)
    for k in ref:
        assert mine[k] == ref[k], k
