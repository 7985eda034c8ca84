"""config.toml: optional settings, validated strictly (unknown keys are an error, docs/design.md).

The file is validated by the pydantic schema in `_config_schema`, which is imported only
when a config file exists: importing pydantic costs more than a whole hook run otherwise
needs, and most roots have no config file.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from memhooks.memory.constants import DEFAULT_INJECT_BUDGET, DEFAULT_SEARCH_BUDGET
from memhooks.memory.errors import ConfigError, MemoryStoreError

Ranking = Literal["default", "baseline"]
#: ``[search] semantic``: "auto" uses meaning in long-lived processes (session, eval)
#: when the ``[semantic]`` extra is installed; "on" also in ``memhooks search``; "off" never.
SemanticMode = Literal["auto", "on", "off"]


class InjectConfig(NamedTuple):
    """[inject]"""

    budget: int = DEFAULT_INJECT_BUDGET


class SearchConfig(NamedTuple):
    """[search]"""

    budget: int = DEFAULT_SEARCH_BUDGET
    ranking: Ranking = "default"
    semantic: SemanticMode = "auto"


class AutoSearchConfig(NamedTuple):
    """[auto_search]: the pre-prompt hook."""

    enabled: bool = True
    budget: int = 2048


class Config(NamedTuple):
    """The whole file; every table is optional."""

    inject: InjectConfig = InjectConfig()
    search: SearchConfig = SearchConfig()
    auto_search: AutoSearchConfig = AutoSearchConfig()


def parse_config(text: str | None, path: str = "config.toml") -> Config:
    """Parse config.toml text (None: defaults).

    Raises:
        ConfigError: invalid TOML, an unknown key or a bad value; the message lists
            ``table.key: problem`` for each.
    """
    if text is None:
        return Config()
    from memhooks.memory._config_schema import validate

    return _config(validate(text, path)[0])


def parse_config_kept(
    text: str | None, path: str = "config.toml"
) -> tuple[Config, MemoryStoreError | None]:
    """Parse config.toml text for what cannot stop at an error (a hook): the settings it
    holds, each bad or unknown key at its default (invalid TOML: all of them), and the
    error naming what was left out, if any. A value an older memhooks took (``enabled =
    "false"``) or a key a newer one knows then costs only itself, not every setting."""
    if text is None:
        return Config(), None
    from memhooks.memory._config_schema import validate

    try:
        data, error = validate(text, path, keep=True)
    except ConfigError as e:
        return Config(), e
    return _config(data), error


def _config(data: dict[str, dict[str, Any]]) -> Config:
    return Config(
        InjectConfig(**data.get("inject", {})),
        SearchConfig(**data.get("search", {})),
        AutoSearchConfig(**data.get("auto_search", {})),
    )


__all__ = [
    "AutoSearchConfig",
    "Config",
    "ConfigError",
    "InjectConfig",
    "Ranking",
    "SearchConfig",
    "SemanticMode",
    "parse_config",
    "parse_config_kept",
]
