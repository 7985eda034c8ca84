"""config.toml: optional settings, validated strictly (unknown keys are an error, docs/design.md).

The file is validated by the pydantic schema in `_config_schema`, which is imported only
when a config file exists: importing pydantic costs more than a whole hook run otherwise
needs, and most roots have no config file.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from memhooks.memory.constants import DEFAULT_INJECT_BUDGET, DEFAULT_SEARCH_BUDGET
from memhooks.memory.errors import ConfigError

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

    data = validate(text, path)
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
]
