"""The options of `pinshard serve`: keyword -> (option, takes a value; a flag does not). GENERATED from the CLI's
own definitions (io.pinshard.cli.ServeCommand and its mixins, picocli) by ServeOptionsPython (cli's tests): do
not edit; ServeOptionsPythonTest fails when this file differs from what the generator writes, and says how to
regenerate it.
"""

from typing import Dict, Tuple

SERVE_OPTIONS: Dict[str, Tuple[str, bool]] = {
    "batch": ("--batch", True),
    "box_min_visible": ("--box-min-visible", True),
    "boxes": ("--boxes", True),
    "cache_dir": ("--cache-dir", True),
    "cache_limit": ("--cache-limit", True),
    "check_crc": ("--check-crc", False),
    "client_timeout": ("--client-timeout", True),
    "crc": ("--crc", True),
    "crop": ("--crop", True),
    "drop_last": ("--drop-last", False),
    "dtype": ("--dtype", True),
    "eval": ("--eval", False),
    "eval_crop_fraction": ("--eval-crop-fraction", True),
    "field_bytes": ("--field-bytes", True),
    "fields": ("--fields", True),
    "flip": ("--flip", True),
    "interleave": ("--interleave", True),
    "json": ("--json", False),
    "layout": ("--layout", True),
    "mean": ("--mean", True),
    "once": ("--once", False),
    "order": ("--order", True),
    "owner_pid": ("--owner-pid", True),
    "prefetch": ("--prefetch", True),
    "rank": ("--rank", True),
    "ratio": ("--ratio", True),
    "resampler": ("--resampler", True),
    "ring": ("--ring", True),
    "s3_chunked_encoding": ("--s3-chunked-encoding", True),
    "s3_concurrent_fetches": ("--s3-concurrent-fetches", True),
    "s3_credentials_file": ("--s3-credentials-file", True),
    "s3_endpoint": ("--s3-endpoint", True),
    "s3_max_attempts": ("--s3-max-attempts", True),
    "s3_path_style": ("--s3-path-style", False),
    "s3_profile": ("--s3-profile", True),
    "s3_region": ("--s3-region", True),
    "s3_timeout": ("--s3-timeout", True),
    "scale": ("--scale", True),
    "seed": ("--seed", True),
    "std": ("--std", True),
    "window": ("--window", True),
    "workers": ("--workers", True),
    "world": ("--world", True),
}
