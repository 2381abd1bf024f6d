// epl/epl.cuh — the whole codegen basis of the Execution Primitive Lab.
//
// Folders are scopes of cooperation: thread/ (one thread alone), warp/ (32 lanes, shuffles),
// block/ (all threads of a block, shared memory and barriers); a block-level piece builds only on
// warp- and thread-level ones. harness/ holds the measurement kernels' bodies (one per contract).
// Include a folder's aggregator (epl/block.cuh) or a single header; this file includes them all.
#pragma once

#include "util.cuh"
#include "thread.cuh"
#include "warp.cuh"
#include "block.cuh"
#include "device.cuh"
#include "row/reduce.cuh"
#include "row/moments.cuh"
#include "harness.cuh"
