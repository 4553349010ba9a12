"""The options of `pinshard serve`: keyword -> (option, takes a value; a flag does not), and the same keywords
by group. GENERATED from the CLI's own definitions (io.pinshard.cli.ServeCommand and its mixins, picocli) by
ServeOptionsPython (cli's tests): do not edit; ServeOptionsPythonTest fails when this file differs from what the
generator writes, and says how to regenerate it.
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

# The keywords by what reads them: first the loader's groups, as io.pinshard.loader.options splits
# LoaderOptions by the stage that reads each (sampling, augment, ring, policy), then the other mixins of
# `pinshard serve` (where the dataset is) and, last, the server's own options.
SERVE_OPTION_GROUPS: Dict[str, Tuple[str, ...]] = {
    "sampling": (
        "batch",
        "drop_last",
        "interleave",
        "order",
        "rank",
        "seed",
        "window",
        "world",
    ),
    "augment": (
        "box_min_visible",
        "boxes",
        "crop",
        "dtype",
        "eval",
        "eval_crop_fraction",
        "field_bytes",
        "fields",
        "flip",
        "layout",
        "mean",
        "ratio",
        "resampler",
        "scale",
        "std",
    ),
    "ring": (
        "prefetch",
        "workers",
    ),
    "policy": (
        "check_crc",
        "crc",
    ),
    "location": (
        "cache_dir",
        "cache_limit",
        "s3_chunked_encoding",
        "s3_concurrent_fetches",
        "s3_credentials_file",
        "s3_endpoint",
        "s3_max_attempts",
        "s3_path_style",
        "s3_profile",
        "s3_region",
        "s3_timeout",
    ),
    "serve": (
        "client_timeout",
        "json",
        "once",
        "owner_pid",
        "ring",
    ),
}
