// epl/group.cuh — sub-warp and multi-warp groups of one block sharing a row: lanes, shares, folds, visits.
#pragma once

#include "group/fold.cuh"
#include "group/lanes.cuh"
#include "group/rewrite.cuh"
#include "group/share.cuh"
#include "group/visit.cuh"
#include "group/walk.cuh"
