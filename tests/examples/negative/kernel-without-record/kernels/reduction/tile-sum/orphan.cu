// no record names this file
__global__ void orphan() {}
