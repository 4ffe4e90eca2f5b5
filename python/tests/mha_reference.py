"""An independent NumPy reference of torch.nn.functional.multi_head_attention_forward (float64), written from the
math: project, split heads, masked softmax(Q K^T / sqrt(d)), merge heads, project. Used by test_nn_attention.py and
by tests/fixtures/make_attention_values.py (the numbers embedded in tests/test_nn_attention.cpp). NumPy only."""

import numpy as np


def float_mask(mask):
    """A bool mask (True = not allowed) as an additive mask of -inf; a float mask as it is."""
    if mask is None:
        return None
    mask = np.asarray(mask)
    return np.where(mask, -np.inf, 0.0) if mask.dtype == bool else mask.astype(np.float64)


def _pad_key(mask):
    return None if mask is None else np.concatenate([mask, np.zeros(mask.shape[:-1] + (1,))], -1)


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_forward(
    query,
    key,
    value,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    out_proj_weight,
    out_proj_bias,
    key_padding_mask=None,
    attn_mask=None,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
):
    """(output, weights) with PyTorch's shapes: query [L, N, E] or [L, E]; weights [N, L, S] (averaged) or
    [N, H, L, S]. Separate projection weights are used when q_proj_weight is given. No dropout."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = np.asarray(key_padding_mask)[None]
    L, N, E = query.shape
    H = num_heads
    d = E // H
    b = np.zeros(3 * E) if in_proj_bias is None else in_proj_bias
    if q_proj_weight is not None:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        wq, wk, wv = in_proj_weight[:E], in_proj_weight[E : 2 * E], in_proj_weight[2 * E :]
    q = query @ wq.T + b[:E]
    k = key @ wk.T + b[E : 2 * E]
    v = value @ wv.T + b[2 * E :]
    mask = float_mask(attn_mask)
    if mask is not None and mask.ndim == 2:
        mask = mask[None]
    kpm = float_mask(key_padding_mask)
    if bias_k is not None:
        k = np.concatenate([k, np.broadcast_to(bias_k, (1, N, E))])
        v = np.concatenate([v, np.broadcast_to(bias_v, (1, N, E))])
        mask, kpm = _pad_key(mask), _pad_key(kpm)
    q = q.reshape(L, N * H, d).transpose(1, 0, 2)
    k = static_k if static_k is not None else k.reshape(k.shape[0], N * H, d).transpose(1, 0, 2)
    v = static_v if static_v is not None else v.reshape(v.shape[0], N * H, d).transpose(1, 0, 2)
    if add_zero_attn:
        k = np.concatenate([k, np.zeros((N * H, 1, d))], 1)
        v = np.concatenate([v, np.zeros((N * H, 1, d))], 1)
        mask, kpm = _pad_key(mask), _pad_key(kpm)
    S = k.shape[1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
    if mask is not None:
        scores = scores + mask
    if kpm is not None:
        scores = scores + np.broadcast_to(kpm.reshape(N, 1, 1, S), (N, H, 1, S)).reshape(N * H, 1, S)
    a = softmax(scores)
    out = (a @ v).transpose(1, 0, 2).reshape(L * N, E) @ out_proj_weight.T
    if out_proj_bias is not None:
        out = out + out_proj_bias
    out = out.reshape(L, N, E)
    weights = a.reshape(N, H, L, S)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        out, weights = out[:, 0], weights[0]
    return out, weights


def wave(shape, phase, scale=0.5):
    """Deterministic test values without a random generator (the C++ test makes the same ones):
    scale * sin(0.7 * i + phase) over the row-major index i."""
    n = int(np.prod(shape))
    return scale * np.sin(0.7 * np.arange(n) + phase).reshape(shape)
