/**
 * The libtorch adapter: loader batches as tensors that view the slots (no copy), leases that return a slot when
 * libtorch frees its tensor, and the CUDA path through cuda-bridge. Imports loader, memory and cuda-bridge.
 */
package io.pinshard.torch;
