"""Patch a tree copy (not evidence): the staged rows' rewrite loads the next round's parameter
vectors (weight, bias) while it writes the current round (epl/row/rewrite.cuh:
rewrite_staged_params_ahead, ParamRound), so a round no longer waits on its own loads from L2.
`early`: round 0's parameters are loaded before the fold and the all-reduce instead of after.
Usage: python3 patch.py TREE [early]"""
import pathlib
import sys

tree = pathlib.Path(sys.argv[1]) / "kernels/include/epl/row"
EARLY = "early" in sys.argv[2:]

CODE = "\n// The parameter vectors of one round of a lane: round r of rewrite_row_segment's vector path, at\n// vectors lane + r * UNROLL * LANES + u * LANES; those at or past nv are not loaded.\ntemplate <int UNROLL, int P, typename T>\nstruct ParamRound {\n  Vec16<T> a[UNROLL], b[UNROLL];\n  template <int LANES>\n  __device__ __forceinline__ void load(const T* __restrict__ p0, const T* __restrict__ p1, int first, int nv) {\n    constexpr int N = Vec16<T>::N;\n#pragma unroll\n    for (int u = 0; u < UNROLL; ++u) {\n      const int j = first + u * LANES;\n      if (j < nv) {\n        if constexpr (P >= 1) a[u] = load_16B_aligned(p0 + j * N);\n        if constexpr (P >= 2) b[u] = load_16B_aligned(p1 + j * N);\n      }\n    }\n  }\n};\n\n// rewrite_row_segment's vector path for a segment staged in shared memory, with the parameters one\n// round ahead: `ahead` holds round 0's, loaded by the caller before the all-reduce it waits on, and\n// each round loads the next round's before it writes its own. The staged segment reads in a few\n// cycles; what a round of the plain pass waits on is its parameter loads from L2, once a round.\n// Here they are in flight while the previous round (or the all-reduce) runs.\n// Registers: two rounds of P parameter vectors beside the round's UNROLL vectors.\ntemplate <int LANES, int UNROLL, int P, typename T, typename F>\n__device__ __forceinline__ void rewrite_staged_params_ahead(const T* seg, const T* __restrict__ p0,\n                                                            const T* __restrict__ p1, T* __restrict__ out, int n,\n                                                            int lane, ParamRound<UNROLL, P, T> ahead, F f) {\n  constexpr int N = Vec16<T>::N;\n  const int nv = n / N;\n#pragma unroll 1\n  for (int i = lane; i < nv; i += UNROLL * LANES) {\n    const ParamRound<UNROLL, P, T> cur = ahead;\n    ahead.template load<LANES>(p0, p1, i + UNROLL * LANES, nv);\n#pragma unroll\n    for (int u = 0; u < UNROLL; ++u) {\n      const int j = i + u * LANES;\n      if (j < nv) {\n        const Vec16<T> v = *reinterpret_cast<const Vec16<T>*>(seg + j * N);\n        Vec16<T> o;\n#pragma unroll\n        for (int e = 0; e < N; ++e) {\n          const float pa = P >= 1 ? to_float(cur.a[u].v[e]) : 0.0f;\n          const float pb = P >= 2 ? to_float(cur.b[u].v[e]) : 0.0f;\n          o.v[e] = from_float<T>(f(to_float(v.v[e]), pa, pb));\n        }\n        store_16B_aligned(out + j * N, o);\n      }\n    }\n  }\n}\n"

p = tree / "rewrite.cuh"
s = p.read_text()
anchor = "\n}  // namespace epl\n"
assert s.count(anchor) == 1
p.write_text(s.replace(anchor, CODE + anchor))

p = tree / "staged.cuh"
s = p.read_text()
old = """  const auto constants =
      stats.template stats<Group::LANES, UNROLL, 0, L1Evict::kShared>(x + base, stage, seg.n, lane, vector_path, group, cols);
  const auto op = stats.op;
  const size_t at = base + static_cast<size_t>(seg.begin);
  rewrite_row_segment<Group::LANES, UNROLL, Stats::Op::kParams, L1Evict::kShared>(
      stage, p0 ? p0 + seg.begin : p0, p1 ? p1 + seg.begin : p1, y + at, seg.n, lane, vector_path,
      [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); });
"""
stats = """  const auto constants =
      stats.template stats<Group::LANES, UNROLL, 0, L1Evict::kShared>(x + base, stage, seg.n, lane, vector_path, group, cols);
"""
ahead = """  ParamRound<UNROLL, P, T> ahead;
  if (P > 0 && vector_path) ahead.template load<Group::LANES>(q0, q1, lane, seg.n / Vec16<T>::N);
"""
new = ("""  constexpr int P = Stats::Op::kParams;
  const T* q0 = p0 ? p0 + seg.begin : p0;
  const T* q1 = p1 ? p1 + seg.begin : p1;
""" + (ahead + stats if EARLY else stats + ahead) + """  const auto op = stats.op;
  const size_t at = base + static_cast<size_t>(seg.begin);
  const auto apply = [op, constants](float v, float a, float c) { return op.apply(v, constants, a, c); };
  if (P > 0 && vector_path) {
    rewrite_staged_params_ahead<Group::LANES, UNROLL, P>(stage, q0, q1, y + at, seg.n, lane, ahead, apply);
  } else {
    rewrite_row_segment<Group::LANES, UNROLL, P, L1Evict::kShared>(stage, q0, q1, y + at, seg.n, lane, vector_path,
                                                                   apply);
  }
""")
assert s.count(old) == 1
p.write_text(s.replace(old, new))
