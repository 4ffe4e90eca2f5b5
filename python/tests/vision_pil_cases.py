"""PIL-image cases for ember.vision.transforms against torchvision.transforms: the same code runs under both (lib is
`torch` or `ember`, T the transforms module, F its functional), and results() returns NumPy arrays to compare.
test_vision_pil.py imports it in this process and in the reference PyTorch's."""

import numpy as np
from PIL import Image


def images():
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (13, 17, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (13, 17), dtype=np.uint8)
    rgba = rng.integers(0, 256, (9, 11, 4), dtype=np.uint8)
    pal = Image.fromarray(rng.integers(0, 6, (9, 11), dtype=np.uint8)).convert("P")
    pal.putpalette([(7 * i) % 256 for i in range(256 * 3)])
    return {
        "rgb": Image.fromarray(rgb),
        "gray": Image.fromarray(gray),
        "rgba": Image.fromarray(rgba),
        "pal": pal,
        "f": Image.fromarray(rng.random((6, 5)).astype(np.float32)),
    }


def _out(x):
    if isinstance(x, Image.Image):
        return np.array(x), x.mode
    return np.ascontiguousarray(x.numpy()), "tensor:" + str(x.dtype).replace("torch.", "").replace("ember.", "")


def cases(lib, T, F):
    IM = T.InterpolationMode
    imgs = images()
    rgb, gray = imgs["rgb"], imgs["gray"]
    out = {}
    for name, img in (("rgb", rgb), ("gray", gray)):
        for mode in (IM.NEAREST, IM.BILINEAR, IM.BICUBIC):
            out["resize_%s_%s" % (name, mode.value)] = F.resize(img, [7, 9], mode)
        out["resize_int_" + name] = F.resize(img, 8)
        out["resize_max_" + name] = F.resize(img, 8, max_size=10)
        out["center_crop_" + name] = F.center_crop(img, [5, 6])
        out["center_crop_big_" + name] = F.center_crop(img, 20)
        out["crop_out_" + name] = F.crop(img, -2, 3, 6, 20)
        out["pad_const_" + name] = F.pad(img, [1, 2, 3, 4], fill=7)
        for m in ("edge", "reflect", "symmetric"):
            out["pad_%s_%s" % (m, name)] = F.pad(img, [2, 1], padding_mode=m)
        out["pad_neg_" + name] = F.pad(img, [-1, 2, 3, -2], padding_mode="edge")
        out["hflip_" + name] = F.hflip(img)
        out["vflip_" + name] = F.vflip(img)
        out["rotate_" + name] = F.rotate(img, 30)
        out["rotate_expand_" + name] = F.rotate(img, 30, IM.BILINEAR, expand=True, fill=5)
        out["rotate_center_" + name] = F.rotate(img, -45, center=[3, 4])
        out["brightness_" + name] = F.adjust_brightness(img, 1.3)
        out["contrast_" + name] = F.adjust_contrast(img, 0.6)
        out["saturation_" + name] = F.adjust_saturation(img, 1.7)
        out["hue_" + name] = F.adjust_hue(img, 0.2)
        out["hue_neg_" + name] = F.adjust_hue(img, -0.45)
        out["gray1_" + name] = F.rgb_to_grayscale(img)
        out["gray3_" + name] = F.to_grayscale(img, 3)
        out["to_tensor_" + name] = F.to_tensor(img)
        out["pil_to_tensor_" + name] = F.pil_to_tensor(img)
        out["dims_" + name] = lib.tensor(F.get_dimensions(img))
        out["size_" + name] = lib.tensor(F.get_image_size(img))
        out["compose_" + name] = T.Compose([T.CenterCrop(8), T.Resize(5), T.Pad(1, fill=3), T.Grayscale(3)])(img)
        out["flip_p1_" + name] = T.RandomHorizontalFlip(p=1.0)(img)
        out["vflip_p1_" + name] = T.RandomVerticalFlip(p=1.0)(img)
        out["crop_pad_" + name] = T.RandomCrop((13 + 4, 17 + 4), padding=2, fill=9)(img)
    for name, img in (("rgb", rgb), ("gray", gray)):
        out["invert_" + name] = F.invert(img)
        out["posterize_" + name] = F.posterize(img, 3)
        out["solarize_" + name] = F.solarize(img, 100)
        out["sharpness_" + name] = F.adjust_sharpness(img, 1.8)
        out["autocontrast_" + name] = F.autocontrast(img)
        out["equalize_" + name] = F.equalize(img)
        out["gamma_" + name] = F.adjust_gamma(img, 0.7, 1.1)
        out["blur_" + name] = F.gaussian_blur(img, [3, 5], [0.8, 1.3])
        for k, c in enumerate(F.ten_crop(img, [4, 5], vertical_flip=True)):
            out["tencrop%d_%s" % (k, name)] = c
        sp, ep = [[0, 0], [16, 0], [16, 12], [0, 12]], [[2, 1], [15, 3], [13, 11], [1, 10]]
        out["perspective_" + name] = F.perspective(img, sp, ep)
        out["perspective_near_" + name] = F.perspective(img, ep, sp, IM.NEAREST, fill=7)
        edisp = lib.from_numpy(
            (np.indices((13, 17)).sum(0) % 4 * 0.05 - 0.07)[None, :, :, None].repeat(2, -1).astype(np.float32)
        )
        out["elastic_" + name] = F.elastic_transform(img, edisp, IM.NEAREST)
        out["affine_" + name] = F.affine(img, 25.0, [2, -1], 1.2, [10.0, -5.0])
        ra = T.RandomAffine((30, 30), translate=(0, 0), scale=(1.5, 1.5), shear=(10, 10, -5, -5), fill=3)
        out["random_affine_" + name] = ra(img)
        out["affine_bil_" + name] = F.affine(img, -40.0, [0, 3], 0.8, 15.0, IM.BILINEAR, fill=9, center=[2, 3])
    # the automatic augmentations' ops at fixed magnitudes, and their magnitude tables
    aa = __import__(T.__name__ + ".autoaugment", fromlist=["_apply_op"])
    ops = [("ShearX", 0.3), ("ShearY", -0.2), ("TranslateX", 4.7), ("TranslateY", -3.0), ("Rotate", 21.0)]
    ops += [("Brightness", 0.4), ("Color", -0.5), ("Contrast", 0.3), ("Sharpness", 0.8), ("Posterize", 5.0)]
    ops += [("Solarize", 120.0), ("AutoContrast", 0.0), ("Equalize", 0.0), ("Invert", 0.0), ("Identity", 0.0)]
    u8t = F.pil_to_tensor(rgb)
    for op, mag in ops:
        out["aa_%s_pil" % op] = aa._apply_op(rgb, op, mag, IM.NEAREST, None)
        out["aa_%s_t" % op] = aa._apply_op(u8t, op, mag, IM.BILINEAR, [1.0, 2.0, 3.0])
    space = T.RandAugment()._augmentation_space(31, (13, 17))
    space.update({"W" + k: v for k, v in T.TrivialAugmentWide()._augmentation_space(31).items()})
    space.update({"A" + k: v for k, v in T.AutoAugment()._augmentation_space(10, (13, 17)).items()})
    space.update({"M" + k: v for k, v in T.AugMix()._augmentation_space(10, (13, 17)).items()})
    for k, (mags, signed) in space.items():
        out["space_" + k] = mags
        out["space_signed_" + k] = lib.tensor(signed)
    for policy in T.AutoAugmentPolicy:
        out["policy_" + policy.value] = lib.tensor([[p for _, p, _ in sub] for sub in T.AutoAugment(policy).policies])
    # the same functions on tensors: uint8, float and a batch
    trng = np.random.default_rng(5)
    u8 = lib.from_numpy(trng.integers(0, 256, (3, 9, 10), dtype=np.uint8))
    low = lib.from_numpy(trng.integers(40, 90, (1, 9, 10), dtype=np.uint8))
    fl = lib.from_numpy(trng.random((3, 9, 10)).astype(np.float32))
    batch = lib.from_numpy(trng.integers(0, 256, (2, 3, 6, 7), dtype=np.uint8))
    for name, x in (("u8", u8), ("low", low), ("f32", fl), ("batch", batch)):
        out["t_invert_" + name] = F.invert(x)
        out["t_solarize_" + name] = F.solarize(x, 0.5 if name == "f32" else 128)
        out["t_sharpness_" + name] = F.adjust_sharpness(x, 0.3)
        out["t_autocontrast_" + name] = F.autocontrast(x)
        out["t_gamma_" + name] = F.adjust_gamma(x, 1.6, 0.9)
        out["t_blur_" + name] = F.gaussian_blur(x, 3)
        out["t_blur2_" + name] = F.gaussian_blur(x, [5, 3], [1.5, 0.6])
        if name != "f32":
            out["t_posterize_" + name] = F.posterize(x, 5)
            out["t_equalize_" + name] = F.equalize(x)
        out["t_random_affine_" + name] = T.RandomAffine((-20, -20), scale=(0.9, 0.9), shear=(4, 4), fill=5)(x)
        out["t_affine_identity_" + name] = F.affine(x, 0.0, [0, 0], 1.0, 0.0)
        sp, ep = [[0, 0], [9, 0], [9, 8], [0, 8]], [[1, 1], [8, 0], [9, 7], [2, 8]]
        out["t_perspective_" + name] = F.perspective(x, sp, ep)
        out["t_perspective_near_" + name] = F.perspective(x, ep, sp, IM.NEAREST, fill=[7.0])
        hh, ww = x.shape[-2], x.shape[-1]
        disp = lib.from_numpy(
            ((np.indices((hh, ww)).sum(0) % 5) * 0.03 - 0.06)[None, :, :, None].repeat(2, -1).astype(np.float32)
        )
        out["t_elastic_" + name] = F.elastic_transform(x, disp, IM.NEAREST, fill=[3.0])
        out["t_affine_" + name] = F.affine(x, 25.0, [2, -1], 1.2, [10.0, -5.0])
        out["t_affine_bil_" + name] = F.affine(x, -40.0, [0, 3], 0.8, 15.0, IM.BILINEAR, fill=[9.0], center=[2, 3])
        for k, c in enumerate(F.five_crop(x, 3)):
            out["t_fivecrop%d_%s" % (k, name)] = c
    lt_m = lib.from_numpy(trng.random((12, 12)).astype(np.float32))
    lt_v = lib.from_numpy(trng.random(12).astype(np.float32))
    out["t_linear_transformation"] = T.LinearTransformation(lt_m, lt_v)(
        lib.from_numpy(trng.random((2, 3, 2, 2)).astype(np.float32))
    )
    out["t_autocontrast_flat"] = F.autocontrast(lib.full((3, 4, 4), 7, dtype=lib.uint8))
    out["t_equalize_flat"] = F.equalize(lib.full((1, 4, 4), 7, dtype=lib.uint8))
    out["pad_pal"] = F.pad(imgs["pal"], 2, fill=3)
    out["pad_pal_reflect"] = F.pad(imgs["pal"], 2, padding_mode="reflect")
    out["resize_rgba"] = F.resize(imgs["rgba"], [4, 6])
    out["to_tensor_rgba"] = F.to_tensor(imgs["rgba"])
    out["to_tensor_f"] = F.to_tensor(imgs["f"])
    out["to_tensor_pal"] = F.to_tensor(imgs["pal"])
    out["pil_to_tensor_rgba"] = F.pil_to_tensor(imgs["rgba"])
    out["rotate_f"] = F.rotate(imgs["f"], 10, fill=0.5)
    # to_pil_image: tensors and arrays of each channel count and dtype
    rng = np.random.default_rng(3)
    u8 = rng.integers(0, 256, (4, 5, 6), dtype=np.uint8)
    fl = rng.random((3, 5, 6)).astype(np.float32)
    out["to_pil_u8_1"] = F.to_pil_image(lib.from_numpy(u8[:1].copy()))
    out["to_pil_u8_2"] = F.to_pil_image(lib.from_numpy(u8[:2].copy()))
    out["to_pil_u8_3"] = F.to_pil_image(lib.from_numpy(u8[:3].copy()))
    out["to_pil_u8_4"] = F.to_pil_image(lib.from_numpy(u8.copy()))
    out["to_pil_f3"] = F.to_pil_image(lib.from_numpy(fl.copy()))
    out["to_pil_f1_F"] = F.to_pil_image(lib.from_numpy(fl[:1].copy()), mode="F")
    out["to_pil_f1"] = F.to_pil_image(lib.from_numpy(fl[0].copy()))
    out["to_pil_i32"] = F.to_pil_image(lib.from_numpy(rng.integers(-5, 1000, (1, 3, 4), dtype=np.int32)))
    out["to_pil_hsv"] = F.to_pil_image(lib.from_numpy(u8[:3].copy()), mode="HSV")
    out["to_pil_array"] = F.to_pil_image(u8[:3].transpose(1, 2, 0).copy())
    out["ToPILImage"] = T.ToPILImage()(lib.from_numpy(fl.copy()))
    presets = __import__(T.__name__ + "._presets", fromlist=["ImageClassification"])
    out["preset"] = presets.ImageClassification(crop_size=8, resize_size=10)(rgb)
    out["preset_bicubic"] = presets.ImageClassification(crop_size=7, resize_size=9, interpolation=IM.BICUBIC)(
        gray.convert("RGB")
    )
    out["roundtrip"] = F.pil_to_tensor(F.to_pil_image(lib.from_numpy(u8[:3].copy())))
    return out


def results(lib, T, F):
    res = {}
    for k, v in cases(lib, T, F).items():
        arr, mode = _out(v)
        res[k] = arr
        res[k + "__mode"] = np.array(mode)
    return res
