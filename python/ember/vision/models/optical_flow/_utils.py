"""RAFT's helpers (torchvision.models.optical_flow._utils): sampling at pixel coordinates, coordinate grids and the
upsampling of a 1/8-resolution flow."""

import ember

from ....nn import functional as F


def grid_sample(img, absolute_grid, mode="bilinear", align_corners=None):
    """F.grid_sample with absolute pixel coordinates (x, y) in the last dimension instead of normalized ones."""
    h, w = img.shape[-2:]
    xgrid, ygrid = absolute_grid.split([1, 1], dim=-1)
    xgrid = 2 * xgrid / (w - 1) - 1
    if h > 1:  # a single row stays at y = 0 (torchvision's quirk: no division by zero)
        ygrid = 2 * ygrid / (h - 1) - 1
    return F.grid_sample(img, ember.cat([xgrid, ygrid], dim=-1), mode=mode, align_corners=align_corners)


def make_coords_grid(batch_size, h, w, device="cpu"):
    """[batch_size, 2, h, w] float pixel coordinates, x in channel 0 and y in channel 1."""
    ys, xs = ember.meshgrid(ember.arange(h, device=device), ember.arange(w, device=device), indexing="ij")
    return ember.stack([xs, ys], dim=0).float()[None].repeat(batch_size, 1, 1, 1)


def upsample_flow(flow, up_mask=None, factor=8):
    """flow [B, 2, h, w] -> [B, 2, h * factor, w * factor] in pixels of the larger grid: bilinear without up_mask, else
    each fine pixel a convex combination (softmax over 9 weights of up_mask [B, 9 * factor**2, h, w]) of the coarse
    3x3 neighbourhood."""
    b, c, h, w = flow.shape
    if up_mask is None:
        return factor * F.interpolate(flow, size=(h * factor, w * factor), mode="bilinear", align_corners=True)
    up_mask = ember.softmax(up_mask.view(b, 1, 9, factor, factor, h, w), dim=2)
    neighbours = F.unfold(factor * flow, kernel_size=3, padding=1).view(b, c, 9, 1, 1, h, w)
    up = ember.sum(up_mask * neighbours, dim=2)
    return up.permute(0, 1, 4, 2, 5, 3).reshape(b, c, h * factor, w * factor)
