// epl/body/attention.cuh — the attention row of single-query decoding, given its scores:
// o[r, :] = sum_j softmax(s[r, :])_j v[r, j, :] and lse[r] = logsumexp(s[r, :]), DIM = 128.
//
// Records: catalog/realizations/streaming-weighted-reduction/{online-block,materialize-weights}.yaml,
//          catalog/realizations/split-state-merge/split-kv.yaml (contract row-attention-decode).
// Three ways: one launch with a block per row folding online (online-block); the weights formed
// and written first, then plain sums (materialize-weights, three launches); the keys of a row
// split across blocks whose partial states are merged by a second launch (split-kv).
//
// Layout: s is rows x cols; v is rows x cols x DIM (each row, a (batch, head), has its own keys).
// A warp streams keys: every lane reads the key's score (one broadcast transaction) and its
// W = DIM / 32 = 4 value components (16 bytes float32, 8 bytes bfloat16: a key's 128 values are
// one coalesced 512- or 256-byte row), UNROLL keys in flight per lane. The warps of a block take
// interleaved keys and their states meet in shared memory, merged in warp order (bitwise
// reproducible for a fixed shape of the computation).
#pragma once

#include "../block/reduce_state.cuh"
#include "../group/fold.cuh"           // rows_are_vector_aligned
#include "../thread/attention_state.cuh"
#include "../thread/convert.cuh"
#include "../util.cuh"
#include "softmax_state.cuh"  // fold_row_softmax_state

namespace epl {

constexpr int kAttentionDim = 128;
constexpr int kAttentionLaneDims = kAttentionDim / kWarpThreads;  // 4 value components per lane
using LaneAttention = AttentionState<kAttentionLaneDims>;

// This lane's 4 value components of a key as loaded: 16 bytes (float32) or 8 bytes (bfloat16).
// They are converted to float only after every load of a round is issued: converting each key's
// bfloat16 pair right after its load let ptxas give every key of the round the same register pair,
// so each load waited for the previous one (measured: bfloat16 streamed keys at half float32's rate).
template <typename T>
struct alignas(kAttentionLaneDims * sizeof(T)) LaneValues {
  T e[kAttentionLaneDims];
};

// VEC: the values are aligned for one vector load per lane (the path is chosen once per launch).
template <bool VEC, typename T>
__device__ __forceinline__ LaneValues<T> load_lane_values(const T* __restrict__ p) {
  LaneValues<T> r;
  if constexpr (!VEC) {
#pragma unroll
    for (int k = 0; k < kAttentionLaneDims; ++k) r.e[k] = p[k];
  } else if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<uint4*>(&r) = __ldg(reinterpret_cast<const uint4*>(p));
  } else {
    static_assert(sizeof(T) == 2, "values are float32 or 16-bit");
    *reinterpret_cast<uint2*>(&r) = __ldg(reinterpret_cast<const uint2*>(p));
  }
  return r;
}

// The values may take the vector loads: the base aligned to a lane's 4 components.
template <typename T>
__device__ __forceinline__ bool attention_values_aligned(const T* v) {
  return (reinterpret_cast<size_t>(v) & (kAttentionLaneDims * sizeof(T) - 1)) == 0;
}

// One round of a warp's keys as loaded: UNROLL keys' weights (scores or weights) and this lane's raw
// values; a key past the end has weight `pad` and is never loaded.
template <int UNROLL, typename T>
struct KeyRound {
  float w[UNROLL];
  LaneValues<T> raw[UNROLL];

  template <bool VEC, typename S>
  __device__ __forceinline__ void load(const S* __restrict__ w_row, const T* __restrict__ v_lane, int j, int end,
                                       int stride, float pad) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int key = j + u * stride;
      w[u] = pad;
      if (key < end) {
        w[u] = to_float(w_row[key]);
        raw[u] = load_lane_values<VEC>(v_lane + static_cast<size_t>(key) * kAttentionDim);
      }
    }
  }

  // The values of the round loaded at j as float (0 for a key past the end).
  __device__ __forceinline__ void widen(int j, int end, int stride, float (&v)[UNROLL][kAttentionLaneDims]) const {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const bool in = j + u * stride < end;
#pragma unroll
      for (int k = 0; k < kAttentionLaneDims; ++k) v[u][k] = in ? to_float(raw[u].e[k]) : 0.0f;
    }
  }
};

// Streams keys [begin, end) of a row through one warp: keys begin + first, + stride, ... (the
// warp's place among `stride` interleaved warps), UNROLL keys per round. The next round's loads
// are issued before the current round is folded (registers double-buffered): written as "load a
// round, then fold it", ptxas interleaved the loads with the fold's arithmetic and, with per-key
// predication, let each load wait for the previous key's use, leaving one load in flight per warp
// (measured: bfloat16 streamed keys at half the float32 rate). A load issued a round ahead cannot
// be sunk below the fold that precedes its use.
// fold(state, w[UNROLL], v[UNROLL][4]) consumes a round: w is the key's score or weight.
template <int UNROLL, bool VEC, typename S, typename T, typename State, typename Fold>
__device__ __forceinline__ void stream_keys_path(const S* __restrict__ w_row, const T* __restrict__ v_row, int begin,
                                                 int end, int first, int stride, float pad, State& st, Fold fold) {
  const T* v_lane = v_row + lane_id() * kAttentionLaneDims;
  const int step = UNROLL * stride;
  int j = begin + first;
  if (j >= end) return;
  KeyRound<UNROLL, T> next;
  next.template load<VEC>(w_row, v_lane, j, end, stride, pad);
  for (; j < end; j += step) {
    const KeyRound<UNROLL, T> cur = next;
    if (j + step < end) next.template load<VEC>(w_row, v_lane, j + step, end, stride, pad);
    float v[UNROLL][kAttentionLaneDims];
    cur.widen(j, end, stride, v);
    fold(st, cur.w, v);
  }
}

template <int UNROLL, typename S, typename T, typename State, typename Fold>
__device__ __forceinline__ void stream_keys(const S* __restrict__ w_row, const T* __restrict__ v_row, int begin,
                                            int end, int first, int stride, bool vec, float pad, State& st,
                                            Fold fold) {
  if (vec) {
    stream_keys_path<UNROLL, true>(w_row, v_row, begin, end, first, stride, pad, st, fold);
  } else {
    stream_keys_path<UNROLL, false>(w_row, v_row, begin, end, first, stride, pad, st, fold);
  }
}

// One warp's online state of keys [begin, end): scores folded with rescaling (masked keys -inf).
template <int UNROLL, typename T>
__device__ __forceinline__ LaneAttention attention_fold_keys(const T* __restrict__ s_row, const T* __restrict__ v_row,
                                                             int begin, int end, int first, int stride, bool vec) {
  LaneAttention st = LaneAttention::identity();
  stream_keys<UNROLL>(s_row, v_row, begin, end, first, stride, vec, softmax_neg_inf(), st,
                      [](LaneAttention& a, const float (&s)[UNROLL], const float (&v)[UNROLL][kAttentionLaneDims]) {
                        attention_fold_chunk(a, s, v);
                      });
  return st;
}

// One warp's sum of p_j * v_j over keys [begin, end) with the weights already formed: a state
// with m = 0 (so merges scale by exp(0) = 1 and add exactly as sums) and l = sum of the weights.
template <int UNROLL, typename T>
__device__ __forceinline__ LaneAttention weighted_sum_keys(const float* __restrict__ p_row, const T* __restrict__ v_row,
                                                           int begin, int end, int first, int stride, bool vec) {
  LaneAttention st = LaneAttention::identity();
  st.m = 0.0f;
  stream_keys<UNROLL>(p_row, v_row, begin, end, first, stride, vec, 0.0f, st,
                      [](LaneAttention& a, const float (&p)[UNROLL], const float (&v)[UNROLL][kAttentionLaneDims]) {
#pragma unroll
                        for (int u = 0; u < UNROLL; ++u) {
                          a.l += p[u];
#pragma unroll
                          for (int k = 0; k < kAttentionLaneDims; ++k) a.acc[k] = fmaf(p[u], v[u][k], a.acc[k]);
                        }
                      });
  return st;
}

// The WARPS states of a block merged in warp order (one __syncthreads). Valid result: in warp 0.
// blockDim.x must be exactly 32 * WARPS; __syncthreads() before reusing the TempStorage.
template <int WARPS>
class BlockAttentionMerge {
 public:
  struct TempStorage {
    float m[WARPS];
    float l[WARPS];
    alignas(16) float acc[WARPS][kAttentionDim];  // a lane's 4 values: one 128-bit access
  };

  __device__ __forceinline__ explicit BlockAttentionMerge(TempStorage& temp) : t_(temp) {}

  __device__ __forceinline__ LaneAttention merge(const LaneAttention& st) {
    const int w = warp_id(), lane = lane_id();
    if (lane == 0) {
      t_.m[w] = st.m;
      t_.l[w] = st.l;
    }
#pragma unroll
    for (int k = 0; k < kAttentionLaneDims; ++k) t_.acc[w][lane * kAttentionLaneDims + k] = st.acc[k];
    __syncthreads();
    LaneAttention r = LaneAttention::identity();
    if (w == 0) {
      for (int i = 0; i < WARPS; ++i) {
        LaneAttention other;
        other.m = t_.m[i];
        other.l = t_.l[i];
#pragma unroll
        for (int k = 0; k < kAttentionLaneDims; ++k) other.acc[k] = t_.acc[i][lane * kAttentionLaneDims + k];
        r = attention_merge(r, other);
      }
    }
    return r;
  }

 private:
  TempStorage& t_;
};

// o = acc / l (0 for an empty or fully masked row) and lse = m + log l (-inf then), by one warp.
// HAZARD: o_row must be 16-byte aligned (one float4 store per lane; outputs come from the runner).
__device__ __forceinline__ void attention_write_output(const LaneAttention& st, float* __restrict__ o_row,
                                                       float* __restrict__ lse) {
  const int lane = lane_id();
  const float inv_l = st.l > 0.0f ? __frcp_rn(st.l) : 0.0f;
  float4 out;
  out.x = st.acc[0] * inv_l, out.y = st.acc[1] * inv_l, out.z = st.acc[2] * inv_l, out.w = st.acc[3] * inv_l;
  *reinterpret_cast<float4*>(o_row + lane * kAttentionLaneDims) = out;
  if (lane == 0) *lse = st.l > 0.0f ? st.m + logf(st.l) : softmax_neg_inf();
}

// A partial state as stored between the launches of a split: [m, l, acc[0..DIM)] float32.
constexpr int kAttentionPartialFloats = 2 + kAttentionDim;

__device__ __forceinline__ void attention_write_partial(const LaneAttention& st, float* __restrict__ partial) {
  const int lane = lane_id();
  if (lane == 0) {
    partial[0] = st.m;
    partial[1] = st.l;
  }
#pragma unroll
  for (int k = 0; k < kAttentionLaneDims; ++k) partial[2 + lane * kAttentionLaneDims + k] = st.acc[k];
}

__device__ __forceinline__ LaneAttention attention_read_partial(const float* __restrict__ partial) {
  const int lane = lane_id();
  LaneAttention st;
  st.m = partial[0];
  st.l = partial[1];
#pragma unroll
  for (int k = 0; k < kAttentionLaneDims; ++k) st.acc[k] = partial[2 + lane * kAttentionLaneDims + k];
  return st;
}

// The body of a one-launch kernel with a block of WARPS warps per row: the warps take interleaved
// keys of the whole row, merge in shared memory, warp 0 writes o and lse.
// Launch: blockDim.x == 32 * WARPS, gridDim.x == rows.
template <int WARPS, int UNROLL, typename T>
__device__ __forceinline__ void attention_rows_online_block(const T* __restrict__ s, const T* __restrict__ v,
                                                            float* __restrict__ o, float* __restrict__ lse, int cols) {
  __shared__ typename BlockAttentionMerge<WARPS>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const T* s_row = s + static_cast<size_t>(row) * cols;
  const T* v_row = v + static_cast<size_t>(row) * cols * kAttentionDim;
  const LaneAttention st = attention_fold_keys<UNROLL>(s_row, v_row, 0, cols, warp_id(), WARPS,
                                                       attention_values_aligned(v));
  const LaneAttention r = BlockAttentionMerge<WARPS>(temp).merge(st);
  if (warp_id() == 0) attention_write_output(r, o + static_cast<size_t>(row) * kAttentionDim, lse + row);
}

// Split-KV, launch 1: block (row, k) of SPLITS blocks per row folds keys
// [k * chunk, min((k + 1) * chunk, cols)), chunk = ceil_div(cols, SPLITS), and writes its partial
// state (an empty range writes the identity). Launch: blockDim.x == 32 * WARPS,
// gridDim.x == rows * SPLITS; partials holds rows * SPLITS * kAttentionPartialFloats floats.
template <int WARPS, int SPLITS, int UNROLL, typename T>
__device__ __forceinline__ void attention_rows_split_partials(const T* __restrict__ s, const T* __restrict__ v,
                                                              float* __restrict__ partials, int cols) {
  __shared__ typename BlockAttentionMerge<WARPS>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x) / SPLITS;
  const int k = static_cast<int>(blockIdx.x) % SPLITS;
  const int chunk = ceil_div(cols, SPLITS);
  const int begin = min(cols, k * chunk), end = min(cols, begin + chunk);
  const T* s_row = s + static_cast<size_t>(row) * cols;
  const T* v_row = v + static_cast<size_t>(row) * cols * kAttentionDim;
  const LaneAttention st = attention_fold_keys<UNROLL>(s_row, v_row, begin, end, warp_id(), WARPS,
                                                       attention_values_aligned(v));
  const LaneAttention r = BlockAttentionMerge<WARPS>(temp).merge(st);
  if (warp_id() == 0) attention_write_partial(r, partials + static_cast<size_t>(blockIdx.x) * kAttentionPartialFloats);
}

// Split-KV, launch 2 (the split-state merge): one warp per row merges its SPLITS partials in split
// order and writes o and lse. Launch: blockDim.x == 32 * WARPS, gridDim.x == ceil_div(rows, WARPS).
template <int WARPS, int SPLITS>
__device__ __forceinline__ void attention_rows_combine(const float* __restrict__ partials, float* __restrict__ o,
                                                       float* __restrict__ lse, int rows) {
  const int row = static_cast<int>(blockIdx.x) * WARPS + warp_id();
  if (row >= rows) return;  // warp-uniform
  LaneAttention r = LaneAttention::identity();
#pragma unroll 8  // 8 partials' loads in flight before their (ordered) merges
  for (int k = 0; k < SPLITS; ++k) {
    r = attention_merge(r, attention_read_partial(partials + (static_cast<size_t>(row) * SPLITS + k) * kAttentionPartialFloats));
  }
  attention_write_output(r, o + static_cast<size_t>(row) * kAttentionDim, lse + row);
}

// Materialized weights, launch 1: block r forms row r's (m, l) online (one read of s, the
// verified fold of online-max-accumulation), then rereads s to write p[r, j] = exp(s - m) / l
// (float32, 0 for a masked key and for every key of an all -inf row) and lse[r].
// Launch: blockDim.x == BLOCK, gridDim.x == rows; p holds rows * cols floats.
template <int BLOCK, int UNROLL, typename T>
__device__ __forceinline__ void attention_rows_weights(const T* __restrict__ s, float* __restrict__ p,
                                                       float* __restrict__ lse, int cols) {
  using Reduce = BlockAllReduceState<BLOCK, SoftmaxState>;
  __shared__ typename Reduce::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x);
  const int t = static_cast<int>(threadIdx.x);
  const T* s_row = s + static_cast<size_t>(row) * cols;
  float* p_row = p + static_cast<size_t>(row) * cols;
  SoftmaxState st = fold_row_softmax_state<SegmentWalk<BLOCK, UNROLL>>(s_row, cols, t, rows_are_vector_aligned(s, cols));
  st = Reduce(temp).all_reduce(st, MergeSoftmaxState{});
  const float shift = softmax_shift(st.m);
  const float inv_l = st.l > 0.0f ? __frcp_rn(st.l) : 0.0f;
  for (int j = t; j < cols; j += BLOCK) p_row[j] = exp_flush(to_float(s_row[j]) - shift) * inv_l;
  if (t == 0) lse[row] = st.l > 0.0f ? st.m + logf(st.l) : softmax_neg_inf();
}

// Materialized weights, launch 2: block (row, k) sums p_j v_j over its key range
// (SPLITS ranges per row, as attention_rows_split_partials) and writes the partial sum.
// Launch: blockDim.x == 32 * WARPS, gridDim.x == rows * SPLITS.
template <int WARPS, int SPLITS, int UNROLL, typename T>
__device__ __forceinline__ void weighted_rows_split_sums(const float* __restrict__ p, const T* __restrict__ v,
                                                         float* __restrict__ partials, int cols) {
  __shared__ typename BlockAttentionMerge<WARPS>::TempStorage temp;
  const int row = static_cast<int>(blockIdx.x) / SPLITS;
  const int k = static_cast<int>(blockIdx.x) % SPLITS;
  const int chunk = ceil_div(cols, SPLITS);
  const int begin = min(cols, k * chunk), end = min(cols, begin + chunk);
  const LaneAttention st = weighted_sum_keys<UNROLL>(p + static_cast<size_t>(row) * cols,
                                                     v + static_cast<size_t>(row) * cols * kAttentionDim, begin, end,
                                                     warp_id(), WARPS, attention_values_aligned(v));
  const LaneAttention r = BlockAttentionMerge<WARPS>(temp).merge(st);
  if (warp_id() == 0) attention_write_partial(r, partials + static_cast<size_t>(blockIdx.x) * kAttentionPartialFloats);
}

// Materialized weights, launch 3: one warp per row adds its SPLITS partial sums in split order
// and writes o (the weights are already normalized: no division).
// Launch: blockDim.x == 32 * WARPS, gridDim.x == ceil_div(rows, WARPS).
template <int WARPS, int SPLITS>
__device__ __forceinline__ void weighted_rows_combine(const float* __restrict__ partials, float* __restrict__ o,
                                                      int rows) {
  const int row = static_cast<int>(blockIdx.x) * WARPS + warp_id();
  if (row >= rows) return;  // warp-uniform
  LaneAttention r = attention_read_partial(partials + static_cast<size_t>(row) * SPLITS * kAttentionPartialFloats);
#pragma unroll 8
  for (int k = 1; k < SPLITS; ++k) {  // m = 0 everywhere: the merge is an ordered sum
    r = attention_merge(r, attention_read_partial(partials + (static_cast<size_t>(row) * SPLITS + k) * kAttentionPartialFloats));
  }
  float4 out;
  out.x = r.acc[0], out.y = r.acc[1], out.z = r.acc[2], out.w = r.acc[3];
  *reinterpret_cast<float4*>(o + static_cast<size_t>(row) * kAttentionDim + lane_id() * kAttentionLaneDims) = out;
}

}  // namespace epl
