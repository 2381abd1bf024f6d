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


def two_pass(x: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean first, then the mean of squared deviations from it: no cancellation."""
    n = F(x.shape[1])
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
