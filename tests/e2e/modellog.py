"""What the model received: the requests the mock model API logged, read back."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from tests.e2e.mockwire import side_call, texts


@dataclass(frozen=True)
class Request:
    """One request the mock model API received."""

    n: int
    method: str
    path: str
    body: Any

    @property
    def conversation(self) -> Any:
        """The part of the body that holds what the model reads (messages + system)."""
        if not isinstance(self.body, dict):
            return None
        keys = (
            "system",
            "messages",
            "instructions",
            "input",
            "systemInstruction",
            "contents",
        )
        return {k: self.body[k] for k in keys if k in self.body}

    @property
    def text(self) -> str:
        """Every string the model got in this request, joined (Gemini's HTML escapes undone)."""
        joined = "\n".join(texts(self.conversation))
        return html.unescape(joined) if "contents" in (self.body or {}) else joined

    def last_usertexts(self) -> list[str]:
        """The text parts of the last user message: where a typed prompt sits."""
        body = self.body if isinstance(self.body, dict) else {}
        for key in ("messages", "input", "contents"):
            items = [m for m in body.get(key) or [] if isinstance(m, dict)]
            users = [m for m in items if m.get("role") == "user"]
            if users:
                return texts(users[-1].get("content", users[-1].get("parts")))
        return []

    def carries(self, prompt: str) -> bool:
        """True when this is a conversation turn whose last user message is `prompt`."""
        if side_call(self.body):
            return False
        return any(t.strip().endswith(prompt) for t in self.last_usertexts())

    def count(self, prompt: str) -> int:
        """How many times the user's messages in this request end with `prompt`."""
        return sum(t.strip().endswith(prompt) for t in texts(self.conversation))
