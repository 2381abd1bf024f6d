#pragma once
// A block-scope helper.
template <int N> struct BlockThing {};
