// epl/epl.cuh — the whole codegen basis of the Execution Primitive Lab.
//
// Folders are scopes of cooperation, narrowest first: thread/ (one thread alone), warp/ (32 lanes,
// shuffles), group/ (the threads of one block that share a row), block/ (all threads of a block,
// shared memory and barriers), cluster/ (the blocks of a cluster, distributed shared memory),
// device/ (the whole grid); then body/ (kernel bodies) and policy/ (the operators they are
// instantiated with); harness/ holds the measurement kernels' bodies. A header includes only its
// own room and narrower ones (lint rule include-layers). Include a room's aggregator
// (epl/block.cuh) or a single header; this file includes them all.
#pragma once

#include "block.cuh"
#include "body.cuh"
#include "cluster.cuh"
#include "device.cuh"
#include "group.cuh"
#include "harness.cuh"
#include "mma.cuh"
#include "pipeline.cuh"
#include "policy.cuh"
#include "thread.cuh"
#include "tile.cuh"
#include "util.cuh"
#include "warp.cuh"
