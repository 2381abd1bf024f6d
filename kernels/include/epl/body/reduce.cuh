// epl/body/reduce.cuh — segmented row reduction: the mappings and how to choose.
//
// Scope: a row-major [rows, cols] matrix; each row is reduced to one float32 (sum, max, ...:
// the epl operators of thread/ops.cuh, float32 accumulation whatever the element type). The
// algorithms differ in how rows are mapped to threads, not in the tree; all read the row with
// 16-byte vectors when x is 16-byte aligned and cols * sizeof(T) % 16 == 0 (fold.cuh), scalar
// loads otherwise.
//
//   lane groups   reduce_group.cuh. GROUP lanes (4..32) per row, BLOCK/GROUP rows per block,
//                 shuffle tree of width GROUP, no barrier. GROUP = 32 is warp-per-row;
//                 GROUP < 32 packs several short rows into one warp so each lane still has
//                 several vectors to load (rows-per-block).
//   block         reduce_block.cuh. One block per row; block reduction with one __syncthreads.
//                 Needs rows >= a few per SM to fill the device.
//   split         reduce_block.cuh + reduce_group.cuh. Rows cut into CHUNK-element slices, one
//                 block per slice writing a partial, then a second launch reduces each row's
//                 partials with warp-per-row. For rows too few and too long for one block each.
//   cluster       reduce_cluster.cuh (sm_90). Rows cut into CLUSTER slices, one block per slice,
//                 the CLUSTER block partials merged through distributed shared memory: the split
//                 plan in one launch, without scratch.
//
// Which one wins at which shape is measured, not decided here: see the realizations'
// when_it_wins and evidence/.
#pragma once

#include "../group/fold.cuh"
#include "reduce_block.cuh"
#include "reduce_cluster.cuh"
#include "reduce_group.cuh"
