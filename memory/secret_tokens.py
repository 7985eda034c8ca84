"""Secrets known by a literal prefix (``ghp_``, ``sk-ant-``, ``glpat-``).

`redact` finds every run of `TOKEN_RUN` characters in one scan and tries only the
tokens whose prefix starts a run: one scan instead of one per prefix. Prefixes and
lengths follow the public rule sets of gitleaks and detect-secrets; the lengths are
minimums, so that a longer token of a newer format is still caught whole. A token whose
characters do not all fit a run (base64 ones), or whose prefix is not its start, is a
`memory.secret_shapes.Shape` instead.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["TOKENS", "TOKEN_RUN", "Token"]


class Token(NamedTuple):
    """A secret known by its literal prefix; ``rest`` is the pattern after it."""

    kind: str
    prefix: str
    rest: str

    @property
    def pattern(self) -> re.Pattern[str]:
        # Compiled on first use, and kept by `re`'s cache: a hook that redacts one
        # prompt compiles only what that prompt needs.
        return re.compile(re.escape(self.prefix) + self.rest)


#: A run of token characters that may hold a token: every token starts one, and none
#: is shorter.
TOKEN_RUN: Final = r"[A-Za-z0-9_.-]{15,}+"
_ID = r"[A-Za-z0-9]"
_ID_ = r"[A-Za-z0-9_-]"


def _t(kind: str, rest: str, *prefixes: str) -> tuple[Token, ...]:
    return tuple(Token(kind, prefix, rest) for prefix in prefixes)


# Only characters of a run after each prefix (`TOKEN_RUN`), so that a token is a run.
TOKENS: Final = (
    *_t("github-token", rf"{_ID}{{20,}}+", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    *_t("github-token", r"[A-Za-z0-9_]{20,}+", "github_pat_"),
    *_t(
        "gitlab-token",
        rf"{_ID_}{{20,}}+(?:\.[0-9a-z]{{9}})?",
        *(f"{p}-" for p in ("glpat", "gldt", "glrt", "glptt", "glft", "glimt")),
        *(f"{p}-" for p in ("glagent", "gloas", "glsoat", "glffct")),
    ),
    *_t("gitlab-token", rf"{_ID}{{1,5}}_{_ID_}{{20,}}+", "glcbt-"),
    *_t("gitlab-token", rf"{_ID_}{{20,}}+", "GR1348941"),
    *_t("slack-token", r"(?:e\.xox)?[abeoprs]-[A-Za-z0-9-]{10,}+", "xox"),
    *_t("slack-token", r"\d-[A-Za-z0-9-]{10,}+", "xapp-"),
    *_t(
        "stripe-key",
        rf"{_ID}{{10,}}+",
        *(f"{k}k_{env}_" for k in "sr" for env in ("live", "test", "prod")),
    ),
    *_t("stripe-webhook-secret", rf"{_ID}{{24,}}+", "whsec_"),
    *_t("anthropic-key", rf"{_ID_}{{20,}}+", "sk-ant-"),
    # Also `sk-proj-…`; a digit somewhere keeps `sk-this-is-a-phrase` out.
    *_t("openai-key", rf"(?!ant-)(?={_ID_}*?[0-9]){_ID_}{{20,}}+", "sk-"),
    *_t("huggingface-token", r"[A-Za-z]{30,}+(?![A-Za-z0-9_])", "hf_", "api_org_"),
    *_t("sendgrid-key", rf"{_ID_}{{16,}}+\.{_ID_}{{16,}}+", "SG."),
    *_t("twilio-key", r"[0-9a-fA-F]{32}(?![A-Za-z0-9])", "SK"),
    *_t("google-api-key", rf"{_ID_}{{35}}(?!{_ID_})", "AIza"),
    *_t("google-oauth", rf"{_ID_}{{24,}}+", "GOCSPX-"),
    *_t("google-oauth", rf"{_ID_}{{20,}}+", "ya29."),
    *_t("npm-token", rf"{_ID}{{36,}}+", "npm_"),
    *_t("pypi-token", rf"{_ID_}{{50,}}+", "pypi-AgE"),
    *_t("docker-token", rf"{_ID_}{{20,}}+", "dckr_pat_"),
    *_t("digitalocean-token", r"[a-f0-9]{64}", "doo_v1_", "dop_v1_", "dor_v1_"),
    *_t("shopify-token", r"[a-fA-F0-9]{32}", "shpat_", "shpca_", "shppa_", "shpss_"),
    *_t("square-token", rf"{_ID_}{{22,}}+", "EAAA", "sq0atp-", "sq0csp-"),
    *_t("databricks-token", r"[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])", "dapi"),
    *_t("linear-key", rf"{_ID}{{40}}", "lin_api_"),
    *_t("postman-key", r"[a-f0-9]{24}-[a-f0-9]{34}", "PMAK-"),
    *_t("doppler-token", r"(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._-]{40,}+", "dp."),
    *_t("vault-token", rf"{_ID_}{{90,}}+", "hvs.", "hvb."),
    *_t("newrelic-key", r"[A-Za-z0-9-]{19,}+", "NRAK-", "NRII-", "NRJS-"),
    *_t("grafana-token", rf"{_ID}{{32}}_[A-Fa-f0-9]{{8}}", "glsa_"),
    *_t("grafana-token", rf"{_ID}{{70,}}+={{0,2}}", "eyJrIjoi"),
    *_t("sentry-token", r"[a-f0-9]{64}", "sntryu_"),
    *_t("age-key", r"[0-9A-Z]{58}", "AGE-SECRET-KEY-1"),
    *_t("pulumi-token", r"[a-f0-9]{40}", "pul-"),
    *_t("supabase-token", r"[a-f0-9]{40}", "sbp_"),
    *_t("alibaba-key", rf"{_ID}{{12,20}}(?!{_ID})", "LTAI"),
    *_t("mapbox-token", rf"{_ID_}++\.{_ID_}{{20,}}+", "sk.eyJ"),
    *_t("ai-service-key", rf"{_ID}{{48,}}+", "gsk_"),
    *_t("ai-service-key", rf"{_ID}{{37}}(?!{_ID})", "r8_"),
    *_t("ai-service-key", rf"{_ID}{{48}}", "pplx-"),
    *_t("ai-service-key", rf"\d{{11}}{_ID}{{35}}", "ntn_"),
    *_t("ai-service-key", rf"{_ID}{{70,}}+", "xai-"),
)
