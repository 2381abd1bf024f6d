"""Float32 replays of the realizations' orders of operations, in NumPy, for the contracts' tests.

A tolerance is shown adequate by computing the contract's outputs the way a kernel does (float32
arithmetic, one thread per lane folding every lanes-th element of its row, then a pairwise tree
across the lanes) and checking the error against the float64 reference; the same replays with a
known flaw (a lost element, a cancelling formula) show what the tolerance catches. Every function
takes a float32 [rows, cols] array and works on all rows at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

F = np.float32

#: A pairwise float32 merge of two states (arrays of the same shape, one state per element).
Merge = Callable[[tuple[np.ndarray, ...], tuple[np.ndarray, ...]], tuple[np.ndarray, ...]]


def lane_matrix(x: np.ndarray, lanes: int, fill: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """[rows, steps, lanes] float32 values (element k * lanes + l at step k, lane l), the padding
    ``fill``, and the mask of real elements."""
    rows, cols = x.shape
    steps = -(-cols // lanes)
    v = np.full((rows, steps * lanes), fill, F)
    m = np.zeros((rows, steps * lanes), bool)
    v[:, :cols], m[:, :cols] = x, True
    return v.reshape(rows, steps, lanes), m.reshape(rows, steps, lanes)


def tree(state: tuple[np.ndarray, ...], merge: Merge) -> tuple[np.ndarray, ...]:
    """Pairwise merges over the last axis (a power of two), as a warp or block all-reduce does."""
    while state[0].shape[-1] > 1:
        h = state[0].shape[-1] // 2
        state = merge(tuple(a[..., :h] for a in state), tuple(a[..., h:] for a in state))
    return tuple(a[..., 0] for a in state)


def _add(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    return ((a[0] + b[0]).astype(F),)


def row_sum(v: np.ndarray, lanes: int) -> np.ndarray:
    """Per row: each lane a sequential float32 chain over every lanes-th value, then a tree."""
    mat, _ = lane_matrix(v, lanes)
    acc = np.zeros((v.shape[0], lanes), F)
    for k in range(mat.shape[1]):
        acc = (acc + mat[:, k, :]).astype(F)
    return tree((acc,), _add)[0]


# --- the softmax state (m, l) ---------------------------------------------------------------------


def _shift(m: np.ndarray) -> np.ndarray:
    return np.where(np.isneginf(m), F(0), m)


def _merge_state(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    m = np.maximum(a[0], b[0])
    s = _shift(m)
    return m, (a[1] * np.exp(a[0] - s) + b[1] * np.exp(b[0] - s)).astype(F)


def online_state(x: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """(m, l) per row, float32: each lane folds every lanes-th element one at a time (rescale and
    exponential per element, the worst order the realizations use), then a tree of merges. An all
    -inf row gives (-inf, 0)."""
    mat, _ = lane_matrix(x, lanes, -np.inf)
    m = np.full((x.shape[0], lanes), -np.inf, F)
    l = np.zeros((x.shape[0], lanes), F)
    with np.errstate(invalid="ignore"):
        for k in range(mat.shape[1]):
            new_m = np.maximum(m, mat[:, k, :])
            s = _shift(new_m)
            l = (l * np.exp(m - s) + np.exp(mat[:, k, :] - s)).astype(F)
            m = new_m
        m, l = tree((m, l), _merge_state)
    return m, l


def log_of(l: np.ndarray) -> np.ndarray:
    """float32 log l, 0 where l = 0 (the kernels' guard for an all -inf row)."""
    with np.errstate(divide="ignore"):
        return np.where(l > 0, np.log(np.where(l > 0, l, F(1))), F(0)).astype(F)


# --- mean and variance (mergeable-statistics' realizations) ---------------------------------------


def two_pass(x: np.ndarray, lanes: int, shift: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Mean first, then the mean of squared deviations from it: no cancellation. ``shift`` takes
    the mean as p + E[x - p] about the row's first element p (layernorm's pivot: a constant row's
    mean is then exact)."""
    n = F(x.shape[1])
    if shift:
        p = x[:, :1].astype(F)
        mean = (p[:, 0] + (row_sum((x - p).astype(F), lanes) / n).astype(F)).astype(F)
    else:
        mean = (row_sum(x, lanes) / n).astype(F)
    d = (x - mean[:, None]).astype(F)
    return mean, (row_sum((d * d).astype(F), lanes) / n).astype(F)


def sum_sumsq(x: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """var = E[x^2] - E[x]^2 (the cancelling form; clamped at 0 as a kernel must)."""
    n = F(x.shape[1])
    mean = (row_sum(x, lanes) / n).astype(F)
    ex2 = (row_sum((x * x).astype(F), lanes) / n).astype(F)
    return mean, np.maximum(F(0), (ex2 - (mean * mean).astype(F)).astype(F))


def _chan(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    na, ma, qa = a
    nb, mb, qb = b
    n = (na + nb).astype(F)
    w = np.where(n > 0, nb / np.where(n > 0, n, F(1)), F(0)).astype(F)
    d = (mb - ma).astype(F)
    return n, (ma + d * w).astype(F), (qa + qb + (d * d).astype(F) * (na * w).astype(F)).astype(F)


def welford(x: np.ndarray, lanes: int, chunk: int, shift: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each lane: chunks of ``chunk`` of its values, in-register two-pass, Chan-merged in order;
    then a pairwise tree of Chan merges over the lanes (the block's butterfly). ``shift``
    subtracts the row's first element first (exact), so no merged mean carries an ulp of |mean|."""
    rows = x.shape[0]
    pivot = x[:, :1].copy() if shift else np.zeros((rows, 1), F)
    v, m = lane_matrix((x - pivot).astype(F), lanes)
    z = np.zeros((rows, lanes), F)
    state: tuple[np.ndarray, ...] = (z, z, z)
    for k0 in range(0, v.shape[1], chunk):
        c, cm = v[:, k0 : k0 + chunk, :], m[:, k0 : k0 + chunk, :]
        cnt = cm.sum(axis=1).astype(F)
        safe = np.where(cnt > 0, cnt, F(1))
        cmean = (np.where(cm, c, F(0)).sum(axis=1, dtype=F) / safe).astype(F)
        dev = np.where(cm, (c - cmean[:, None, :]).astype(F), F(0))
        state = _chan(state, (cnt, np.where(cnt > 0, cmean, F(0)), (dev * dev).sum(axis=1, dtype=F)))
    n, mean, q = tree(state, _chan)
    return (mean + pivot[:, 0]).astype(F), (q / n).astype(F)


def rsqrt(v: np.ndarray) -> np.ndarray:
    """float32 1 / sqrt(v) (rsqrtf: within 2 ulp; this rounds twice, as close)."""
    return (F(1) / np.sqrt(v.astype(F))).astype(F)



# --- the attention row of decoding: (m, l, acc) over keys, merged across warps and splits ---------

#: log2(e) in float32, the constant __expf scales its argument by before ex2.approx.
LOG2E = F(1.4426950408889634)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 a * b + c with one rounding (FFMA): the product is exact in float64."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F)


def expf(t: np.ndarray, noise: np.random.Generator | None = None) -> np.ndarray:
    """float32 __expf(t): ex2.approx of the rounded t * log2 e, with ``noise`` a relative error
    uniform in +-2 ulp (2^-22) on top, except where the exponent is an integer (a power of two,
    exact: a rescale by exp(0) stays 1, exp(-inf) 0)."""
    with np.errstate(invalid="ignore"):
        u = (t * LOG2E).astype(F)
        e = np.exp2(u).astype(F)
        if noise is not None:
            wobble = (e * (1 + noise.uniform(-(2.0**-22), 2.0**-22, e.shape))).astype(F)
            e = np.where(u == np.round(u), e, wobble)
    return e


State = tuple[np.ndarray, np.ndarray, np.ndarray]


def merge_attention(a: State, b: State, noise: np.random.Generator | None = None) -> State:
    """(m, l, acc) of two disjoint key sets (m, l: [...], acc: [..., dim]) by max-rescaling
    against shift = m (0 when both are empty), so an empty side weighs exactly 0."""
    m = np.maximum(a[0], b[0])
    s = _shift(m)
    with np.errstate(invalid="ignore"):
        fa, fb = expf((a[0] - s).astype(F), noise), expf((b[0] - s).astype(F), noise)
    return m, fma(a[1], fa, (b[1] * fb).astype(F)), fma(a[2], fa[..., None], (b[2] * fb[..., None]).astype(F))


def normalized(m: np.ndarray, l: np.ndarray, acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(o, lse) of a state in float32: o = acc * (1 / l), lse = m + log l; empty: (0, -inf)."""
    with np.errstate(divide="ignore"):
        inv = np.where(l > 0, F(1) / np.where(l > 0, l, F(1)), F(0)).astype(F)
    o = (acc * inv[..., None]).astype(F)
    return o, np.where(l > 0, (m + log_of(l)).astype(F), F(-np.inf))


def _key_layout(a: np.ndarray, splits: int, warps: int, unroll: int, fill: float) -> np.ndarray:
    """[rows, cols, ...] as [rows, splits, rounds, warps, unroll, ...]: split k holds keys
    [k * chunk, (k + 1) * chunk), chunk = ceil(cols / splits); in it, warp w takes keys w,
    w + warps, ... (interleaved), ``unroll`` of its keys a round; padding is ``fill``."""
    rows, cols = a.shape[:2]
    chunk = -(-cols // splits)
    rounds = max(1, -(-chunk // (warps * unroll)))
    out = np.full((rows, splits, rounds * unroll * warps, *a.shape[2:]), fill, F)
    for k in range(splits):
        lo, hi = min(cols, k * chunk), min(cols, (k + 1) * chunk)
        out[:, k, : hi - lo] = a[:, lo:hi]
    out = out.reshape(rows, splits, rounds, unroll, warps, *a.shape[2:])
    return np.swapaxes(out, 3, 4)


def _fold(s: np.ndarray, v: np.ndarray, online: bool, noise: np.random.Generator | None) -> State:
    """Every warp's state over its rounds (s: [rows, splits, rounds, warps, unroll], v with dim
    after). online: per round the round's max, one rescale of (l, acc), then per key
    p = exp(s - shift), l += p, acc = fma(p, v, acc). Otherwise s holds the weights: m stays 0,
    acc = fma(p, v, acc) only (a plain ordered sum)."""
    rows, splits, rounds, warps, unroll = s.shape
    m = np.full((rows, splits, warps), -np.inf if online else 0.0, F)
    l = np.zeros((rows, splits, warps), F)
    acc = np.zeros((rows, splits, warps, v.shape[-1]), F)
    with np.errstate(invalid="ignore"):
        for k in range(rounds):
            sc = s[:, :, k]
            if online:
                new_m = np.maximum(m, sc.max(axis=-1))
                shift = _shift(new_m)
                scale = expf((m - shift).astype(F), noise)
                p = expf((sc - shift[..., None]).astype(F), noise)
                l, acc, m = (l * scale).astype(F), (acc * scale[..., None]).astype(F), new_m
            else:
                p = sc
            for u in range(unroll):
                l = (l + p[..., u]).astype(F)
                acc = fma(p[..., u, None], v[:, :, k, :, u], acc)
    return m, l, acc


def _in_order(m: np.ndarray, l: np.ndarray, acc: np.ndarray, noise: np.random.Generator | None) -> State:
    """States along axis 1 (acc: [rows, n, ..., dim]) merged in index order from the first."""
    total = (m[:, 0], l[:, 0], acc[:, 0])
    for i in range(1, m.shape[1]):
        total = merge_attention(total, (m[:, i], l[:, i], acc[:, i]), noise)
    return total


def attention_decode(s: np.ndarray, v: np.ndarray, *, splits: int = 1, warps: int = 1, unroll: int = 1,
                     form: str = "online", noise: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(o, lse) per row in float32 from scores s [rows, cols] and values v [rows, cols, dim], in
    the order of epl/body/attention.cuh: the keys cut into ``splits`` contiguous ranges (split-kv);
    in each, ``warps`` warps on interleaved keys, ``unroll`` keys a round, every warp folding its
    keys into (m, l, acc) (epl/thread/attention_state.cuh); the warps merged in warp order, the
    splits in split order, then o = acc * (1 / l) and lse = m + log l (0 and -inf for an all -inf
    row). ``noise`` gives every exponential ex2.approx's error (see expf).

    ``form``: "online" as above; "materialized" forms p = exp(s - shift) * (1 / l) from the row's
    (m, l) first and sums p * v in the same order with no rescaling, o the sum itself
    (materialize-weights); "lse" merges the splits as the normalized partials (o_i, lse_i) =
    (acc_i / l_i, m_i + log l_i) in float32, o = sum_i o_i * exp(lse_i - lse) with lse the
    logsumexp of the lse_i (the form of FlashInfer's merge_state), which carries each lse_i's
    rounding (half an ulp of |lse_i|) into o's weights."""
    sk = _key_layout(s, splits, warps, unroll, -np.inf)
    vk = _key_layout(v, splits, warps, unroll, 0.0)
    m, l, acc = _fold(sk, vk, True, noise)
    if form == "materialized":
        row = _in_order(*_in_order(m, l, acc, noise), noise)  # only its (m, l): the weights' scale
        shift = _shift(row[0])
        with np.errstate(divide="ignore"):
            inv = np.where(row[1] > 0, F(1) / np.where(row[1] > 0, row[1], F(1)), F(0)).astype(F)
        with np.errstate(invalid="ignore"):
            weights = (expf((s - shift[:, None]).astype(F), noise) * inv[:, None]).astype(F)
        _, _, sums = _fold(_key_layout(weights, splits, warps, unroll, 0.0), vk, False, noise)
        o = sums[:, :, 0]
        for i in range(1, warps):  # merges at m = 0: exp(0) = 1, ordered sums
            o = (o + sums[:, :, i]).astype(F)
        total = o[:, 0]
        for k in range(1, splits):
            total = (total + o[:, k]).astype(F)
        return total, normalized(*row)[1]
    per_split = _in_order(np.swapaxes(m, 1, 2), np.swapaxes(l, 1, 2), np.swapaxes(acc, 1, 2), noise)
    if form == "lse":
        o_i, lse_i = normalized(*per_split)
        top = lse_i.max(axis=1)
        with np.errstate(invalid="ignore"):
            w = expf((lse_i - _shift(top)[:, None]).astype(F), noise)  # 0 for an empty split
        total = w[:, 0]
        for k in range(1, splits):
            total = (total + w[:, k]).astype(F)
        lse = np.where(total > 0, (top + log_of(total)).astype(F), F(-np.inf))
        with np.errstate(invalid="ignore"):
            wo = expf((lse_i - _shift(lse)[:, None]).astype(F), noise)
        o = (o_i[:, 0] * wo[:, 0, None]).astype(F)
        for k in range(1, splits):
            o = fma(o_i[:, k], wo[:, k, None], o)
        return np.where(total[:, None] > 0, o, F(0)), lse
    return normalized(*_in_order(*per_split, noise))
