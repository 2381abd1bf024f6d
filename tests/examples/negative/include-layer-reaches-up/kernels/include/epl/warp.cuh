// epl/warp.cuh — an aggregator that forgot its room.
#pragma once
