"""RecycledTensors: a batch's memory is reused only once nothing references the batch (tensor, view or storage)."""

import gc

import torch

from pinshard import _pages


def like(dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.zeros((4, 3, 8, 8), dtype=dtype)


def test_memory_is_reused_once_the_batch_and_its_views_are_gone() -> None:
    pool = _pages.RecycledTensors(keep=2)
    first = pool.empty_like(like()).fill_(1.0)
    address = first.data_ptr()
    view = first[1]  # a view: its own tensor object over the batch's storage
    del first
    second = pool.empty_like(like())
    assert second.data_ptr() != address, "reused while a view of the batch was alive"
    assert float(view.sum()) == 3 * 8 * 8, "a live view's values changed"
    del view
    gc.collect()
    third = pool.empty_like(like())
    assert third.data_ptr() == address, "not reused after the batch and its view were dropped"
    assert third.shape == (4, 3, 8, 8) and third.dtype == torch.float32 and third.is_contiguous()


def test_a_kept_storage_keeps_the_memory_and_a_full_pool_makes_fresh_tensors() -> None:
    pool = _pages.RecycledTensors(keep=1)
    first = pool.empty_like(like())
    storage = first.storage()
    address = first.data_ptr()
    del first
    second = pool.empty_like(like())  # the pool's one array is held (by the storage): a fresh tensor, not kept
    assert second.data_ptr() != address
    del second, storage
    assert pool.empty_like(like()).data_ptr() == address


def test_every_dtype_the_server_writes_including_bfloat16() -> None:
    for dtype in (torch.uint8, torch.float32, torch.float16, torch.bfloat16):
        pool = _pages.RecycledTensors()
        source = torch.arange(4 * 3 * 8 * 8).reshape(4, 3, 8, 8).to(dtype)
        out = pool.empty_like(source).copy_(source)
        assert out.dtype == dtype and torch.equal(out, source)
        out.resize_as_(source)  # same size: allowed on any tensor
