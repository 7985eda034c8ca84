"""config.toml read for a hook: each bad key at its default, the others kept."""

from __future__ import annotations

import pytest

from memhooks.memory import ConfigError
from memhooks.memory.config import (
    AutoSearchConfig,
    Config,
    InjectConfig,
    SearchConfig,
    parse_config,
    parse_config_kept,
)

TEXT = """
inject = 4096                # a table written as a value
[search]
budget = "8192"              # quoted: memhooks took it until 2026-12-03
ranking = "baseline"
semantic = "sometimes"
[auto_search]
enabled = false
budget = 1024
wait_ms = 300                # a key of a newer memhooks
"""


def test_each_bad_key_costs_only_itself() -> None:
    config, error = parse_config_kept(TEXT, "config.toml")

    assert config == Config(
        InjectConfig(),
        SearchConfig(ranking="baseline"),
        AutoSearchConfig(enabled=False, budget=1024),
    )
    assert isinstance(error, ConfigError)
    with pytest.raises(ConfigError) as raised:
        parse_config(TEXT, "config.toml")
    assert str(error) == str(raised.value)
    for key in ("inject", "search.budget", "search.semantic", "auto_search.wait_ms"):
        assert f"{key}: " in str(error)


def test_what_is_no_toml_costs_every_setting() -> None:
    config, error = parse_config_kept("[auto_search\nenabled = false\n")

    assert config == Config()
    assert error is not None and "invalid TOML" in str(error)


def test_a_good_file_is_read_as_it_is() -> None:
    assert parse_config_kept("[auto_search]\nenabled = false\n") == (
        Config(auto_search=AutoSearchConfig(enabled=False)),
        None,
    )
    assert parse_config_kept(None) == (Config(), None)
