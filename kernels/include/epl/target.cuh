// epl/target.cuh — what the target being compiled provides, as one macro per feature the basis
// gates code on.
//
// The names are the features of catalog/targets/<arch>.yaml (EPL_HAS_ + the feature, upper case,
// '-' as '_'); tests/compile/test_target_features.py compiles a probe for every profile and fails
// where a macro and the profile disagree. Gate on these, never on __CUDA_ARCH__ or on another
// library's internals: cooperative_groups.h alone costs 1.5 s of NVRTC front end per program.
#pragma once

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define EPL_HAS_CP_ASYNC 1  // cp.async: global → shared copies that bypass registers
#define EPL_HAS_REDUX 1     // redux.sync: a warp reduction of 32-bit integers in one instruction
#define EPL_HAS_MBARRIER 1  // mbarrier: shared-memory barriers with arrival counts and phases
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define EPL_HAS_CLUSTERS 1   // thread-block clusters and distributed shared memory (mapa, st.async)
#define EPL_HAS_BULK_COPY 1  // cp.async.bulk: the copy engine (TMA) moves spans into shared memory
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define EPL_HAS_WGMMA 1       // wgmma.mma_async: warpgroup matrix multiply (sm_90a only)
#define EPL_HAS_SETMAXNREG 1  // setmaxnreg: warpgroups trade registers (sm_90a only)
#endif
