"""ember.vision.utils' drawing functions (draw_segmentation_masks, draw_bounding_boxes, draw_keypoints,
flow_to_image) against torchvision.utils (vision_draw_cases.py runs under both) and closed forms; their errors."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember.vision import _pil, utils

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_PY = "/opt/torch2/py"

REF_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import torch
    import torchvision.utils as utils
    sys.path.insert(0, sys.argv[2])
    from vision_draw_cases import cases
    np.savez(sys.argv[1], **cases(torch, utils))
    """
)


@pytest.mark.skipif(not _pil.available(), reason="needs Pillow (boxes and keypoints are drawn by ImageDraw)")
@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_drawing_matches_torchvision(tmp_path):
    (tmp_path / "ref.py").write_text(REF_SCRIPT)
    env = dict(os.environ, PYTHONPATH="")
    subprocess.run(
        [TORCH_PY, str(tmp_path / "ref.py"), str(tmp_path / "ref.npz"), HERE], check=True, env=env, timeout=300
    )
    ref = dict(np.load(tmp_path / "ref.npz"))
    sys.path.insert(0, HERE)
    try:
        from vision_draw_cases import cases
    finally:
        sys.path.remove(HERE)
    mine = cases(ember, utils)
    assert sorted(mine) == sorted(ref)
    for k in sorted(ref):
        assert mine[k].dtype == ref[k].dtype and mine[k].shape == ref[k].shape, (k, mine[k].shape, ref[k].shape)
        if ref[k].dtype.kind == "f":
            np.testing.assert_allclose(mine[k], ref[k], rtol=0, atol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(mine[k], ref[k], err_msg=k)


def test_segmentation_masks_closed_form():
    img = ember.full((3, 2, 3), 100, dtype=ember.uint8)
    masks = ember.tensor([[[True, False, False], [False, True, False]], [[True, True, False], [False, False, False]]])
    out = utils.draw_segmentation_masks(img, masks, alpha=0.5, colors=[(200, 0, 0), (0, 50, 0)]).numpy()
    # (0, 0): under both masks -> painted black; (0, 1): mask 1; (1, 1): mask 0; (0, 2): none
    assert out[:, 0, 0].tolist() == [50, 50, 50]
    assert out[:, 0, 1].tolist() == [50, 75, 50]
    assert out[:, 1, 1].tolist() == [150, 50, 50]
    assert out[:, 0, 2].tolist() == [100, 100, 100]
    with pytest.warns(UserWarning, match="No mask was drawn"):
        assert utils.draw_segmentation_masks(img, ember.zeros(0, 2, 3, dtype=ember.bool)) is img
    with pytest.raises(ValueError, match="dtype bool"):
        utils.draw_segmentation_masks(img, ember.zeros(2, 3))
    with pytest.raises(ValueError, match="same height and width"):
        utils.draw_segmentation_masks(img, ember.zeros(2, 2, dtype=ember.bool))
    with pytest.raises(ValueError, match="RGB image"):
        utils.draw_segmentation_masks(img[:1], masks)
    with pytest.raises(ValueError, match="Number of colors"):
        utils.draw_segmentation_masks(img, masks, colors=[(1, 2, 3)])


def test_flow_to_image_closed_form():
    # A flow pointing left (-x) at full length: atan2(0, 1) = 0 -> wheel position (0 + 1) / 2 * 54 = 27 exactly, the
    # 3rd color of the cyan -> blue segment (green 255 - floor(255 * 2 / 11) = 209, blue 255), full saturation.
    flow = ember.zeros(2, 1, 2)
    flow[0, 0, 0] = -1.0
    img = utils.flow_to_image(flow).numpy()
    assert img[:, 0, 0].tolist() == [0, 209, 255]
    assert img[:, 0, 1].tolist() == [255, 255, 255]  # no motion: white
    wheel = utils._colorwheel().numpy()
    assert wheel.shape == (55, 3)
    assert wheel[15].tolist() == [255, 255, 0] and wheel[21].tolist() == [0, 255, 0]
    assert wheel[16, 0] == 255 - math.floor(255 / 6)
    with pytest.raises(ValueError, match="torch.float"):
        utils.flow_to_image(ember.zeros(2, 3, 3, dtype=ember.float64))
    with pytest.raises(ValueError, match="shape"):
        utils.flow_to_image(ember.zeros(3, 3, 3))


@pytest.mark.skipif(not _pil.available(), reason="needs Pillow")
def test_boxes_and_keypoints_closed_form_and_errors():
    img = ember.zeros(3, 6, 8, dtype=ember.uint8)
    out = utils.draw_bounding_boxes(img, ember.tensor([[1.0, 1.0, 5.0, 4.0]]), colors=(255, 0, 0)).numpy()
    expect = np.zeros((6, 8), dtype=np.uint8)
    expect[1, 1:6] = expect[4, 1:6] = expect[1:5, 1] = expect[1:5, 5] = 255  # a 1-pixel outline, corners included
    np.testing.assert_array_equal(out[0], expect)
    assert not out[1:].any()
    with pytest.raises(ValueError, match="xmin, ymin, xmax, ymax"):
        utils.draw_bounding_boxes(img, ember.tensor([[5.0, 1.0, 1.0, 4.0]]))
    with pytest.raises(ValueError, match="mismatch"):
        utils.draw_bounding_boxes(img, ember.tensor([[1.0, 1.0, 5.0, 4.0]]), labels=["a", "b"])
    with pytest.raises(ValueError, match="Only grayscale and RGB"):
        utils.draw_bounding_boxes(ember.zeros(2, 4, 4, dtype=ember.uint8), ember.tensor([[1.0, 1.0, 2.0, 2.0]]))
    with pytest.warns(UserWarning, match="No box was drawn"):
        utils.draw_bounding_boxes(img, ember.zeros(0, 4))
    k = utils.draw_keypoints(img, ember.tensor([[[3.0, 2.0]]]), colors=(0, 0, 255), radius=1).numpy()
    assert k[:, 2, 3].tolist() == [0, 0, 255] and not k[:2].any()
    ys, xs = np.nonzero(k[2])
    assert ys.min() >= 1 and ys.max() <= 3 and xs.min() >= 2 and xs.max() <= 4  # within the disc's bounding box
    with pytest.raises(ValueError, match="num_instances, K, 2"):
        utils.draw_keypoints(img, ember.zeros(3, 2))
    with pytest.raises(ValueError, match="visibility"):
        utils.draw_keypoints(img, ember.zeros(1, 3, 2), visibility=ember.ones(1, 2, dtype=ember.bool))
