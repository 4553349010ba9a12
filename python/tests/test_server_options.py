"""Server's keyword options become `pinshard serve` arguments by the list generated from the CLI's definitions
(_serve_options.py, checked against the CLI by ServeOptionsPythonTest): no server is started here."""

import pytest

from pinshard._serve_options import SERVE_OPTION_GROUPS, SERVE_OPTIONS
from pinshard.server import _option_args


def test_values_ranges_dtypes_and_flags_become_arguments() -> None:
    args = _option_args({"batch": 64, "scale": (0.6, 1.0), "mean": (0.5, 0.25, 0.125), "dtype": "torch.float16",
                         "drop_last": True, "eval": False, "eval_crop_fraction": 0.875})
    assert args == ["--batch", "64", "--scale", "0.6,1.0", "--mean", "0.5,0.25,0.125", "--dtype", "float16",
                    "--drop-last", "--eval-crop-fraction", "0.875"]


def test_every_generated_option_but_the_servers_own_is_accepted() -> None:
    for key, (name, takes_value) in SERVE_OPTIONS.items():
        if key in ("ring", "json", "owner_pid"):
            with pytest.raises(TypeError, match="Server sets it itself"):
                _option_args({key: "x" if takes_value else True})
        else:
            value = "1.0" if key in ("mean", "std") else "1"  # mean and std go as Python floats' repr
            assert _option_args({key: value if takes_value else True}) == ([name, value] if takes_value else [name])


def test_unknown_options_and_flag_values_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="unknown pinshard serve option 'batch_size'"):
        _option_args({"batch_size": 64})
    with pytest.raises(TypeError, match="'drop_last' is a flag: True or False, not 1"):
        _option_args({"drop_last": 1})


def test_the_groups_hold_every_option_once_the_loaders_first() -> None:
    grouped = [key for keys in SERVE_OPTION_GROUPS.values() for key in keys]
    assert sorted(grouped) == sorted(SERVE_OPTIONS)
    assert list(SERVE_OPTION_GROUPS)[:4] == ["sampling", "augment", "ring", "policy"]
