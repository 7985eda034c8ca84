"""The pydantic schema of config.toml (imported only when a config file exists)."""

from __future__ import annotations

import difflib
import tomllib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memhooks.memory.constants import (
    BUDGET_MAX,
    DEFAULT_INJECT_BUDGET,
    DEFAULT_SEARCH_BUDGET,
    INJECT_BUDGET_MIN,
    SEARCH_BUDGET_MIN,
)
from memhooks.memory.errors import ConfigError


class _Strict(BaseModel):
    # strict: TOML has its types; "off" is no boolean and "4096" no number.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class _Inject(_Strict):
    budget: int = Field(
        default=DEFAULT_INJECT_BUDGET, ge=INJECT_BUDGET_MIN, le=BUDGET_MAX
    )


class _Search(_Strict):
    budget: int = Field(
        default=DEFAULT_SEARCH_BUDGET, ge=SEARCH_BUDGET_MIN, le=BUDGET_MAX
    )
    ranking: Literal["default", "baseline"] = "default"
    semantic: Literal["auto", "on", "off"] = "auto"


class _AutoSearch(_Strict):
    enabled: bool = True
    budget: int = Field(default=2048, ge=256, le=9000)


class _File(_Strict):
    inject: _Inject = _Inject()
    search: _Search = _Search()
    auto_search: _AutoSearch = _AutoSearch()


def validate(
    text: str, path: str, *, keep: bool = False
) -> tuple[dict[str, dict[str, Any]], ConfigError | None]:
    """Validated tables of a config file, as plain dicts, and what was wrong in it.

    With `keep`, a bad key does not cost the others: the tables come with each bad or
    unknown key left out (its default serves) and the error naming them; without, the
    error is raised.

    Raises:
        ConfigError: invalid TOML, unknown keys, bad values (all named, one line); with
            `keep`, only invalid TOML.
    """
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))  # as Notepad saves it
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(path, f"invalid TOML: {e}") from None
    try:
        return _File.model_validate(data).model_dump(), None
    except ValidationError as e:
        problems = "; ".join(
            _problem(err["loc"], err["type"], err["msg"]) for err in e.errors()
        )
        error = ConfigError(path, problems)
        if not keep:
            raise error from None
        for err in e.errors():
            _drop(data, err["loc"])
    try:
        return _File.model_validate(data).model_dump(), error
    except ValidationError:  # what is left is still refused: none of it, then
        return {}, error


def _drop(data: dict[str, Any], loc: tuple[int | str, ...]) -> None:
    # Leave the key at `loc` out (a table that is no table, a value that is no value).
    for part in loc[:-1]:
        inner = data.get(str(part))
        if not isinstance(inner, dict):
            return
        data = inner
    data.pop(str(loc[-1]), None)


def _problem(loc: tuple[int | str, ...], kind: str, msg: str) -> str:
    """One problem, named; an unknown key with the known key it most resembles."""
    name = ".".join(str(p) for p in loc)
    if kind == "model_type":  # `inject = 4096`: pydantic would name our class
        return f"{name}: should be a table: [{name}], then its keys"
    if kind != "extra_forbidden":
        return f"{name}: {msg}"
    model: type[BaseModel] = _File
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        inner = field.annotation if field else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            return f"{name}: unknown key"
        model = inner
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1)
    known = ".".join([*map(str, loc[:-1]), close[0]]) if close else ""
    return f"{name}: unknown key" + (f" (did you mean {known}?)" if known else "")
