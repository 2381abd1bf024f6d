#pragma once
#include <cstdint>
#include "../block/thing.cuh"

template <int N> struct WarpThing { BlockThing<N> b; };
