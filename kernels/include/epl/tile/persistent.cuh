// epl/tile/persistent.cuh — the output tiles a persistent worker visits, in the grouped order of
// order.cuh.
//
// A persistent grid launches as many workers (blocks, or clusters of blocks that share operand
// tiles) as the device holds at once; worker w of W visits the tiles w, w + W, w + 2W, ... of the
// grouped order, so the W tiles in flight at any time are W consecutive tiles of it: GROUP tile rows
// against W / GROUP tile columns, the reuse in L2 that the grouped order gives a launch-ordered grid.
// Every worker knows its whole sequence up front, so a producer and its consumers walk it apart.
#pragma once

#include "order.cuh"

namespace epl {

template <int GROUP>
struct PersistentTiles {
  int tiles_m;  // tile rows of the output
  int tiles_n;  // tile columns of the output
  int worker;   // this worker, in [0, workers)
  int workers;  // workers in the grid

  // Tiles this worker visits.
  __device__ __forceinline__ int count() const {
    const int total = tiles_m * tiles_n;
    return worker < total ? (total - 1 - worker) / workers + 1 : 0;
  }

  // The j-th of them (tile row and column, not elements).
  __device__ __forceinline__ TileCoord tile(int j) const {
    return grouped_tile<GROUP>(worker + j * workers, tiles_m, tiles_n);
  }
};

}  // namespace epl
