"""The cases of test_vision_transforms_v2.py, run by ember and, in a subprocess, by torchvision 0.29: the same code
with `torch`, `tv_tensors`, the v2 functional `F` and the v2 transforms `T` of either library. Every result is a NumPy
array under a name; boxes and keypoints add their canvas_size. Only deterministic operations (random transforms with
degenerate ranges or p=1)."""

import numpy as np


def make_inputs():
    rng = np.random.default_rng(7)
    h, w = 13, 17
    mask = np.zeros((h, w), np.uint8)
    mask[2:9, 3:11] = 1
    mask[7:12, 9:16] = 2
    return {
        "u8": rng.integers(0, 256, (3, h, w)).astype(np.uint8),
        "f32": rng.random((3, h, w)).astype(np.float32),
        "gray": rng.integers(0, 256, (1, h, w)).astype(np.uint8),
        "boxes": np.array([[1.5, 2.0, 9.0, 11.0], [0.0, 0.0, 17.0, 13.0], [10.0, 3.0, 16.0, 12.0]], np.float32),
        "iboxes": np.array([[1, 2, 9, 11], [4, 0, 16, 7]], np.int64),
        "mask": mask,
        "points": np.array([[2.0, 3.0], [10.5, 7.25], [16.0, 12.0], [0.0, 0.0]], np.float32),
        "disp": (rng.standard_normal((1, h, w, 2)) * 0.05).astype(np.float32),
        "video": rng.integers(0, 256, (6, 3, 5, 7)).astype(np.uint8),
    }


def homography(startpoints, endpoints):
    """The 8 coefficients of the map from endpoints to startpoints (NumPy's solve, float64)."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(startpoints, endpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs += [sx, sy]
    return [float(c) for c in np.linalg.solve(np.array(rows, float), np.array(rhs, float))]


def results(torch, tv_tensors, F, T, IM):
    inp = make_inputs()
    h, w = inp["mask"].shape
    out = {}

    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a).copy())

    def arr(x):
        x = x.as_subclass(torch.Tensor) if isinstance(x, torch.Tensor) else x
        return x.detach().numpy().copy()

    def boxes(key="boxes", fmt="XYXY"):
        return tv_tensors.BoundingBoxes(t(inp[key]), format=fmt, canvas_size=(h, w))

    rot = np.array([[3.0, 4.0, 6.0, 2.0, 30.0], [8.0, 5.0, 4.0, 3.0, -45.0], [14.0, 10.0, 6.0, 5.0, 100.0]], np.float32)

    def rotated(fmt, mode="soft"):
        b = tv_tensors.BoundingBoxes(t(rot), format="XYWHR", canvas_size=(h, w), clamping_mode=mode)
        return F.convert_bounding_box_format(b, new_format=fmt) if fmt != "XYWHR" else b

    def sample():
        return {
            "xywhr": rotated("XYWHR"),
            "cxcywhr": rotated("CXCYWHR"),
            "xyxyxyxy": rotated("XYXYXYXY"),
            "hard": rotated("XYWHR", "hard"),
            "u8": tv_tensors.Image(t(inp["u8"])),
            "f32": tv_tensors.Image(t(inp["f32"])),
            "boxes": boxes(),
            "iboxes": boxes("iboxes"),
            "mask": tv_tensors.Mask(t(inp["mask"])),
            "points": tv_tensors.KeyPoints(t(inp["points"]), canvas_size=(h, w)),
        }

    def record(name, result):
        for k, v in result.items():
            if isinstance(v, (tuple, list)):
                for i, vi in enumerate(v):
                    out["%s/%s/%d" % (name, k, i)] = arr(vi)
                continue
            out["%s/%s" % (name, k)] = arr(v)
            if hasattr(v, "canvas_size"):
                out["%s/%s/canvas" % (name, k)] = np.array(v.canvas_size)

    def each(name, fn, keys=("u8", "f32", "boxes", "iboxes", "mask", "points")):
        if "boxes" in keys:
            keys = tuple(keys) + ("xywhr", "cxcywhr", "xyxyxyxy", "hard")
        s = sample()
        record(name, {k: fn(s[k]) for k in keys})

    # ---- geometry, through the functionals
    each("hflip", F.horizontal_flip)
    each("vflip", F.vertical_flip)
    each("resize_7x9", lambda x: F.resize(x, [7, 9]))
    each("resize_nearest_8", lambda x: F.resize(x, 8, interpolation=IM.NEAREST))
    each("resize_maxsize", lambda x: F.resize(x, 9, max_size=11, antialias=False))
    each("resize_none", lambda x: F.resize(x, None, max_size=11, interpolation=IM.NEAREST))
    each("resize_bicubic", lambda x: F.resize(x, [20, 11], interpolation=IM.BICUBIC), ("u8", "f32"))
    each("crop", lambda x: F.crop(x, 2, 3, 8, 9))
    each("crop_out", lambda x: F.crop(x, -2, 10, 8, 9))
    each("center_crop", lambda x: F.center_crop(x, [8, 9]))
    each("center_crop_pad", lambda x: F.center_crop(x, [16, 20]))
    each("resized_crop", lambda x: F.resized_crop(x, 2, 3, 8, 9, [6, 7]))
    each("pad", lambda x: F.pad(x, [1, 2, 3, 4], fill=5))
    for mode in ("edge", "reflect", "symmetric"):
        each("pad_" + mode, lambda x: F.pad(x, [2, 1], padding_mode=mode), ("u8", "f32", "mask"))
    each("rotate_30", lambda x: F.rotate(x, 30.0))
    each("rotate_expand", lambda x: F.rotate(x, -40.0, interpolation=IM.BILINEAR, expand=True))
    each("rotate_center_fill", lambda x: F.rotate(x, 25.0, center=[4, 5], fill=3), ("u8", "f32", "mask"))
    each("rotate_center", lambda x: F.rotate(x, 25.0, center=[4, 5]), ("boxes", "iboxes", "points"))
    each("rotate_90", lambda x: F.rotate(x, 90.0, expand=True))
    each("affine", lambda x: F.affine(x, 15.0, [2, -1], 1.1, [5.0, 3.0]))
    each(
        "affine_bilinear",
        lambda x: F.affine(x, -20.0, [0, 1], 0.9, [0.0, 8.0], interpolation=IM.BILINEAR),
        ("u8", "f32"),
    )
    each("affine_fill", lambda x: F.affine(x, 10.0, [1, 1], 1.0, 0.0, fill=[9, 8, 7], center=[3, 2]), ("u8",))
    sp = [[0, 0], [16, 0], [16, 12], [0, 12]]
    ep = [[2, 1], [15, 0], [14, 11], [1, 12]]
    each("perspective", lambda x: F.perspective(x, sp, ep))
    each(
        "perspective_nearest_fill",
        lambda x: F.perspective(x, sp, ep, interpolation=IM.NEAREST, fill=7),
        ("u8", "f32", "mask"),
    )
    disp = t(inp["disp"])
    each("elastic", lambda x: F.elastic(x, disp))
    each("elastic_nearest", lambda x: F.elastic(x, disp, interpolation=IM.NEAREST), ("u8",))
    each("five_crop", lambda x: F.five_crop(x, [5, 6]), ("u8",))
    each("ten_crop", lambda x: F.ten_crop(x, [5, 6], vertical_flip=True), ("f32",))

    # ---- colour
    col = ("u8", "f32")
    each("brightness", lambda x: F.adjust_brightness(x, 1.3), col)
    each("contrast", lambda x: F.adjust_contrast(x, 0.6), col)
    each("saturation", lambda x: F.adjust_saturation(x, 1.7), col)
    each("hue", lambda x: F.adjust_hue(x, 0.21), col)
    each("sharpness_up", lambda x: F.adjust_sharpness(x, 2.5), col)
    each("sharpness_down", lambda x: F.adjust_sharpness(x, 0.3), col)
    each("gamma", lambda x: F.adjust_gamma(x, 0.7, 1.2), col)
    each("posterize", lambda x: F.posterize(x, 3), col)
    each("solarize_u8", lambda x: F.solarize(x, 128), ("u8",))
    each("solarize_f32", lambda x: F.solarize(x, 0.4), ("f32",))
    each("autocontrast", F.autocontrast, col)
    each("equalize", F.equalize, col)
    each("invert", F.invert, col)
    each("gray1", lambda x: F.rgb_to_grayscale(x), col)
    each("gray3", lambda x: F.rgb_to_grayscale(x, num_output_channels=3), col)
    each("permute", lambda x: F.permute_channels(x, [2, 0, 1]), col)
    each("blur", lambda x: F.gaussian_blur(x, [3, 5], [0.8, 1.3]), col)
    each("blur_default_sigma", lambda x: F.gaussian_blur(x, 5), col)
    each("normalize", lambda x: F.normalize(x, [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]), ("f32",))
    each("to_float", lambda x: F.to_dtype(x, torch.float32, scale=True), ("u8",))
    each("to_u8", lambda x: F.to_dtype(x, torch.uint8, scale=True), ("f32",))
    each("to_int16", lambda x: F.to_dtype(x, torch.int16, scale=True), ("u8",))
    record(
        "jpeg",
        {
            "u8": F.jpeg(tv_tensors.Image(t(inp["u8"])), 40),
            "gray": F.jpeg(t(inp["gray"]), 85),
            "video": F.jpeg(tv_tensors.Video(t(inp["video"])), 60),
        },
    )
    each("erase", lambda x: F.erase(x, 2, 3, 4, 5, t(np.array([[[7]], [[8]], [[9]]], np.uint8))), ("u8",))
    s = sample()
    gray = tv_tensors.Image(t(inp["gray"]))
    record(
        "gray_image",
        {
            "brightness": F.adjust_brightness(gray, 0.5),
            "contrast": F.adjust_contrast(gray, 1.5),
            "sharp": F.adjust_sharpness(gray, 0.0),
            "equalize": F.equalize(gray),
        },
    )
    video = tv_tensors.Video(t(inp["video"]))
    record(
        "video",
        {
            "sub": F.uniform_temporal_subsample(video, 4),
            "flip": F.horizontal_flip(video),
            "rot": F.rotate(video, 12.0),
            "jit": F.adjust_saturation(video, 0.4),
        },
    )

    # ---- boxes: formats, clamping, sanitizing
    fmts = ["XYXY", "XYWH", "CXCYWH"]
    for a in fmts:
        for b in fmts:
            out["convert/%s_%s" % (a, b)] = arr(F.convert_bounding_box_format(boxes(fmt=a), new_format=b))
        out["convert_int/%s" % a] = arr(F.convert_bounding_box_format(boxes("iboxes"), new_format=a))
    rot = tv_tensors.BoundingBoxes(
        t(np.array([[3.0, 4.0, 6.0, 2.0, 30.0], [8.0, 5.0, 4.0, 3.0, -45.0]], np.float32)),
        format="XYWHR",
        canvas_size=(h, w),
    )
    for b in ("CXCYWHR", "XYXYXYXY"):
        out["convert_rot/" + b] = arr(F.convert_bounding_box_format(rot, new_format=b))
    out["convert_rot/back"] = arr(
        F.convert_bounding_box_format(F.convert_bounding_box_format(rot, new_format="XYXYXYXY"), new_format="XYWHR")
    )
    out["hflip_rot"] = arr(F.horizontal_flip(rot))
    out["vflip_rot"] = arr(F.vertical_flip(rot))
    wild = tv_tensors.BoundingBoxes(
        t(
            np.array(
                [[-3.0, 2.0, 20.0, 9.0], [5.0, -1.0, 8.0, 30.0], [1.0, 1.0, 1.5, 9.0], [2.0, 2.0, 4.0, 4.0]], np.float32
            )
        ),
        format="XYXY",
        canvas_size=(h, w),
    )
    out["clamp"] = arr(F.clamp_bounding_boxes(wild))
    out["clamp_cxcywh"] = arr(F.clamp_bounding_boxes(F.convert_bounding_box_format(wild, new_format="CXCYWH")))
    kept, valid = F.sanitize_bounding_boxes(wild)
    out["sanitize/boxes"], out["sanitize/valid"] = arr(kept), arr(valid)
    out["clamp_points"] = arr(
        F.clamp_keypoints(
            tv_tensors.KeyPoints(t(np.array([[-2.0, 5.0], [20.0, 14.0]], np.float32)), canvas_size=(h, w))
        )
    )

    # ---- transforms with their randomness fixed
    def run(name, transform, keys=("u8", "f32", "boxes", "iboxes", "mask", "points")):
        s = sample()
        record(name, transform({k: s[k] for k in keys}))

    run("T_hflip", T.RandomHorizontalFlip(p=1.0))
    run("T_vflip", T.RandomVerticalFlip(p=1.0))
    run("T_resize", T.Resize([9, 12]))
    run("T_center", T.CenterCrop(10))
    run("T_pad", T.Pad([1, 2], fill={tv_tensors.Image: 4, tv_tensors.Mask: 9}))
    run("T_rotation", T.RandomRotation((21.0, 21.0), expand=True))
    run("T_affine", T.RandomAffine(degrees=(-8.0, -8.0), scale=(1.2, 1.2), shear=(4.0, 4.0, -3.0, -3.0)))
    run(
        "T_jitter",
        T.Compose(
            [
                T.ColorJitter(brightness=(1.2, 1.2)),
                T.ColorJitter(contrast=(0.7, 0.7)),
                T.ColorJitter(saturation=(1.4, 1.4)),
                T.ColorJitter(hue=(-0.1, -0.1)),
            ]
        ),
    )
    run("T_gray", T.RandomGrayscale(p=1.0))
    run("T_colour", T.Compose([T.RandomInvert(1.0), T.RandomPosterize(4, 1.0), T.RandomSolarize(0.6, 1.0)]), ("f32",))
    run(
        "T_colour_u8",
        T.Compose([T.RandomEqualize(1.0), T.RandomAutocontrast(1.0), T.RandomAdjustSharpness(3, 1.0)]),
        ("u8",),
    )
    run("T_blur", T.GaussianBlur(3, sigma=(0.9, 0.9)))
    run(
        "T_dtype",
        T.ToDtype({tv_tensors.Image: torch.float64, tv_tensors.Mask: torch.int64, "others": None}, scale=True),
    )
    run("T_convert", T.ConvertBoundingBoxFormat("CXCYWH"))
    run("T_clamp", T.Compose([T.Pad(3), T.RandomZoomOut(side_range=(1.0, 1.0), p=1.0), T.ClampBoundingBoxes()]))
    s = sample()
    labels = t(np.array([1, 2, 3, 4]))
    res = T.SanitizeBoundingBoxes()({"image": s["u8"], "boxes": wild, "labels": labels})
    record("T_sanitize", res)
    lt = T.LinearTransformation(
        t(np.eye(3 * h * w, dtype=np.float32)[::-1].copy()), t(np.full(3 * h * w, 0.25, np.float32))
    )
    record("T_linear", {"f32": lt(s["f32"])})

    # ---- random transforms, with parameters drawn here (the libraries' generators differ) and applied by their
    # transform(inpt, params)
    def apply(name, transform, params, keys=("u8", "f32", "boxes", "iboxes", "mask", "points")):
        s = sample()
        record(name, {k: transform.transform(s[k], params) for k in keys})

    apply("P_rrc", T.RandomResizedCrop([7, 9]), dict(top=2, left=1, height=9, width=12))
    apply(
        "P_crop",
        T.RandomCrop(10, padding=[1, 2, 3, 4], fill=6),
        dict(needs_crop=True, top=3, left=5, height=10, width=10, needs_pad=True, padding=[1, 2, 3, 4]),
    )
    apply(
        "P_affine",
        T.RandomAffine(10, interpolation=IM.BILINEAR),
        dict(angle=-12.5, translate=(2, -3), scale=0.85, shear=(6.0, -4.0)),
    )
    apply("P_rotation", T.RandomRotation(10, expand=True, center=[5.0, 4.0], fill=2), dict(angle=33.0))
    apply("P_zoom", T.RandomZoomOut(fill={tv_tensors.Image: 3, "others": 0}), dict(padding=[4, 2, 1, 6]))
    coeffs = homography([[0, 0], [16, 0], [16, 12], [0, 12]], [[1, 2], [14, 1], [15, 10], [3, 11]])
    apply("P_perspective", T.RandomPerspective(fill=1), dict(coefficients=coeffs))
    apply("P_elastic", T.ElasticTransform(fill=4), dict(displacement=t(inp["disp"] * 3)))
    within = t(np.array([True, False, True]))
    apply(
        "P_iou",
        T.RandomIoUCrop(),
        dict(top=1, left=2, height=10, width=11, is_within_crop_area=within),
        ("u8", "boxes", "mask"),
    )
    apply(
        "P_erase",
        T.RandomErasing(value=3),
        dict(i=2, j=4, h=5, w=6, v=t(np.array([[[3.0]]], np.float32))),
        ("u8", "f32"),
    )
    apply(
        "P_jitter",
        T.ColorJitter(0.1, 0.1, 0.1, 0.1),
        dict(fn_idx=[3, 0, 2, 1], brightness_factor=0.8, contrast_factor=1.3, saturation_factor=0.6, hue_factor=-0.15),
        ("u8", "f32", "boxes", "mask"),
    )
    for before in (True, False):
        apply(
            "P_photometric_%d" % before,
            T.RandomPhotometricDistort(),
            dict(
                brightness_factor=1.1,
                contrast_factor=0.7,
                saturation_factor=1.4,
                hue_factor=0.04,
                contrast_before=before,
                channel_permutation=[1, 2, 0],
            ),
            ("u8", "f32", "boxes", "mask"),
        )
    apply("P_blur", T.GaussianBlur(5), dict(sigma=[1.7, 1.7]), ("u8", "f32", "mask"))
    apply("P_scale_jitter", T.ScaleJitter((20, 16)), dict(size=(15, 19)))

    # ---- PIL images (when Pillow is installed): Pillow's own operations where torchvision uses them
    try:
        import PIL.Image
    except ImportError:
        PIL = None
    if PIL is not None:
        pils = {
            "rgb": PIL.Image.fromarray(inp["u8"].transpose(1, 2, 0).copy()),
            "gray": PIL.Image.fromarray(inp["gray"][0]),
        }
        pil_ops = {
            "hflip": F.horizontal_flip,
            "vflip": F.vertical_flip,
            "resize": lambda x: F.resize(x, [7, 9]),
            "resize_nearest": lambda x: F.resize(x, 8, interpolation=IM.NEAREST),
            "resize_bicubic": lambda x: F.resize(x, [20, 11], interpolation=IM.BICUBIC),
            "crop": lambda x: F.crop(x, 2, 3, 8, 9),
            "crop_out": lambda x: F.crop(x, -2, 10, 8, 9),
            "center_crop": lambda x: F.center_crop(x, [8, 9]),
            "center_crop_pad": lambda x: F.center_crop(x, [16, 20]),
            "resized_crop": lambda x: F.resized_crop(x, 2, 3, 8, 9, [6, 7]),
            "pad": lambda x: F.pad(x, [1, 2, 3, 4], fill=5),
            "pad_reflect": lambda x: F.pad(x, [2, 1], padding_mode="reflect"),
            "rotate": lambda x: F.rotate(x, 30.0),
            "rotate_expand": lambda x: F.rotate(x, -40.0, interpolation=IM.BILINEAR, expand=True),
            "rotate_center_fill": lambda x: F.rotate(x, 25.0, center=[4, 5], fill=3),
            "affine": lambda x: F.affine(x, 15.0, [2, -1], 1.1, [5.0, 3.0]),
            "perspective": lambda x: F.perspective(
                x, [[0, 0], [16, 0], [16, 12], [0, 12]], [[2, 1], [15, 0], [14, 11], [1, 12]]
            ),
            "elastic": lambda x: F.elastic(x, t(inp["disp"])),
            "five_crop": lambda x: F.five_crop(x, [5, 6]),
            "gray1": lambda x: F.rgb_to_grayscale(x),
            "gray3": lambda x: F.rgb_to_grayscale(x, num_output_channels=3),
            "brightness": lambda x: F.adjust_brightness(x, 1.3),
            "contrast": lambda x: F.adjust_contrast(x, 0.6),
            "saturation": lambda x: F.adjust_saturation(x, 1.7),
            "hue": lambda x: F.adjust_hue(x, 0.21),
            "sharpness": lambda x: F.adjust_sharpness(x, 2.5),
            "gamma": lambda x: F.adjust_gamma(x, 0.7, 1.2),
            "posterize": lambda x: F.posterize(x, 3),
            "solarize": lambda x: F.solarize(x, 128),
            "autocontrast": F.autocontrast,
            "equalize": F.equalize,
            "invert": F.invert,
            "blur": lambda x: F.gaussian_blur(x, [3, 5], [0.8, 1.3]),
            "to_tensor": F.pil_to_tensor,
            "T_flip": T.RandomHorizontalFlip(p=1.0),
            "T_image": T.ToImage(),
        }
        for name, fn in pil_ops.items():
            for key, im in pils.items():
                if key == "gray" and name in ("saturation", "hue", "gray3"):
                    continue
                r = fn(im)
                r = np.stack([np.asarray(c) for c in r]) if isinstance(r, tuple) else r
                out["pil/%s/%s" % (name, key)] = arr(r) if isinstance(r, torch.Tensor) else np.asarray(r)
        out["pil/permute/rgb"] = np.asarray(F.permute_channels(pils["rgb"], [2, 0, 1]))
        out["pil/roundtrip"] = np.asarray(F.to_pil_image(t(inp["u8"])))
        out["pil/roundtrip_gray"] = np.asarray(F.to_pil_image(t(inp["gray"])))
        out["pil/roundtrip_float"] = np.asarray(F.to_pil_image(t(inp["f32"])))

    # ---- bad calls: the exception type of each
    img = t(inp["u8"])
    bad = {
        "posterize_bits": lambda: F.posterize(img, 9),
        "solarize_threshold": lambda: F.solarize(img, 300),
        "blur_even": lambda: F.gaussian_blur(img, 4),
        "blur_sigma": lambda: F.gaussian_blur(img, 3, -1.0),
        "normalize_int": lambda: F.normalize(img, [0.5] * 3, [0.5] * 3),
        "hue_range": lambda: F.adjust_hue(img, 0.7),
        "brightness_neg": lambda: F.adjust_brightness(img, -1.0),
        "crop_too_big": lambda: T.RandomCrop(30)(img),
        "perspective_scale": lambda: T.RandomPerspective(distortion_scale=2.0),
        "p_range": lambda: T.RandomHorizontalFlip(p=1.5),
        "affine_scale": lambda: F.affine(img, 0.0, [0, 0], 0.0, [0.0, 0.0]),
        "affine_translate": lambda: F.affine(img, 0.0, [0], 1.0, [0.0, 0.0]),
        "pad_reflect_boxes": lambda: F.pad(boxes(), 2, padding_mode="reflect"),
        "convert_rotated": lambda: F.convert_bounding_box_format(rotated("XYWHR"), new_format="XYXY"),
        "clamp_plain": lambda: F.clamp_bounding_boxes(t(inp["boxes"])),
        "sizes_differ": lambda: T.RandomCrop(5)(tv_tensors.Image(img), tv_tensors.Mask(t(inp["mask"][:5]))),
        "mixup_no_classes": lambda: T.MixUp()(t(np.zeros((2, 3, 4, 4), np.float32)), t(np.array([0, 1]))),
        "autoaugment_boxes": lambda: T.AutoAugment()(tv_tensors.Image(img), boxes()),
        "elastic_disp": lambda: F.elastic(img, t(np.zeros((1, 2, 2, 2), np.float32))),
        "resize_type": lambda: F.resize("x", [2, 2]),
        "to_dtype_unsafe": lambda: F.to_dtype(t(inp["f32"]), torch.int32, scale=True),
        "five_crop_big": lambda: F.five_crop(img, [20, 20]),
        "jitter_negative": lambda: T.ColorJitter(brightness=-1.0),
        "erasing_scale": lambda: T.RandomErasing(scale=(0.5, 2.0)),
    }
    for name, call in bad.items():
        try:
            call()
            out["error/" + name] = np.array("no error")
        except Exception as e:  # noqa: BLE001 - the type is the result
            out["error/" + name] = np.array(type(e).__name__)
    return out
