"""config.toml: optional settings, validated strictly (unknown keys are an error, spec §2)."""

from __future__ import annotations

import tomllib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory.constants import DEFAULT_INJECT_BUDGET, DEFAULT_SEARCH_BUDGET
from memory.errors import ConfigError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InjectConfig(_Strict):
    """[inject]"""

    budget: int = Field(default=DEFAULT_INJECT_BUDGET, ge=512, le=1024 * 1024)


class SearchConfig(_Strict):
    """[search]"""

    budget: int = Field(default=DEFAULT_SEARCH_BUDGET, ge=256, le=1024 * 1024)
    ranking: Literal["default", "baseline"] = "default"


class AutoSearchConfig(_Strict):
    """[auto_search]: the pre-prompt hook."""

    enabled: bool = True
    budget: int = Field(default=2048, ge=256, le=9000)


class Config(_Strict):
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
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(path, f"invalid TOML: {e}") from None
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
            for err in e.errors()
        )
        raise ConfigError(path, problems) from None
