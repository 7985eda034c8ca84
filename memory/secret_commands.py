"""Passwords on command lines: the shapes of a secret passed to a program, and the
checks that tie a flag to the program that reads a password from it.

Where the line is drawn:

- A short flag counts only after the command that reads a password from it
  (``mysql -pPW``, ``sshpass -p PW``, ``redis-cli -a PW``, ``docker login -p PW``,
  ``curl -u user:PW``, ``openssl enc -k PW``, ``ssh-keygen -N PW``); ``ssh -p 2222``
  and ``docker run -p 80:80`` are ports, and ``mysql -p db`` asks for the password.
  After ``openssl -k`` and ``ssh-keygen -N``/``-P``, an unquoted word of lower-case
  letters is prose ("openssl's -k option"), not a password; quoted, it counts.
- ``--password X`` counts for any command, even in prose ("the --password option"
  loses "option").
- ``echo PW | sudo -S …`` (``printf`` too): the echoed value counts only when the
  command it is piped to reads a password from stdin (sudo with ``-S``/``--stdin``
  among its own options, ``--password-stdin``, ``passwd --stdin``); ``echo 3 | sudo
  tee …`` is data.
- ``htpasswd -b [-c] FILE USER PW`` and ``htpasswd -nb USER PW``: the last argument.
- ``curl -b``/``--cookie`` with ``name=value`` pairs: each value (``-b jar.txt`` is a
  file); the names stay.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Final

from memhooks.memory.secret_checks import (
    COOKIE_VALUE,
    COOKIES,
    PLACEHOLDER,
    TAIL,
    VALUE,
)
from memhooks.memory.secret_rules import guarded, shape

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["COMMANDS", "command", "flag", "htpasswd_batch", "piped_password"]

_SEPARATOR = re.compile(r"[\n|;&]")
_LOWER_WORD = re.compile(r"[a-z]++\Z")


def command(
    *names: str, verb: str = "", words: bool = True
) -> Callable[[str, re.Match[str]], bool]:
    """A check that the flag matched belongs to one of the commands ``names``.

    The command is on the same line, with no pipe, `;` or `&` between, at most 300
    characters back. The flag leads the pattern, so text without it costs nothing;
    where it occurs, the commands and separators of the text are found once.

    Args:
        names: Command names (``mysql``), also as the last part of a path.
        verb: A word that must come between the command and the flag (``login``).
        words: Whether an unquoted value of lower-case letters counts; False where
            the flag is often named in prose (``openssl -k``).

    Returns:
        The check: whether the flag's ``secret`` group is a password, not a
        placeholder.
    """
    alternatives = "|".join(map(re.escape, names))
    program = re.compile(rf"(?<![\w./-])(?:[\w./-]*/)?(?:{alternatives})(?![\w.-])")
    after = re.compile(rf"(?<![\w-]){verb}(?![\w-])") if verb else None
    cached: list[tuple[str, list[int], list[int], list[int]]] = []

    def positions(text: str) -> tuple[list[int], list[int], list[int]]:
        found = cached[0] if cached else None  # one read: threads may share this
        if found is None or found[0] is not text:
            found = (
                text,
                [m.start() for m in program.finditer(text)],
                [m.start() for m in _SEPARATOR.finditer(text)],
                [m.start() for m in after.finditer(text)] if after else [],
            )
            cached[:] = [found]
        return found[1], found[2], found[3]

    def check(text: str, m: re.Match[str]) -> bool:
        commands, separators, verbs = positions(text)
        start = m.start()
        i = bisect.bisect_left(separators, start)
        floor = max(start - 300, separators[i - 1] + 1 if i else 0)
        j = bisect.bisect_left(commands, start)
        if not j or commands[j - 1] < floor:
            return False
        if after is not None:  # the verb between the command and the flag
            k = bisect.bisect_left(verbs, start)
            if not k or verbs[k - 1] < commands[j - 1]:
                return False
        if not words and not m["q"] and _LOWER_WORD.match(m["secret"]):
            return False
        return not PLACEHOLDER.match(m["secret"])

    return check


_FLAG = re.compile(
    r"--(?:[a-z0-9]++-)*(?:password|passwd|pass|token|secret|auth|api-?key"
    r"|(?:account|access|secret|private|client|auth)-key|client-secret)\Z",
    re.IGNORECASE,
)


def flag(text: str, m: re.Match[str]) -> bool:
    """Whether ``--name value`` (``key`` without its dashes) passes a secret."""
    if not _FLAG.match("--" + m["key"]):
        return False
    return not (m["secret"].startswith("-") or PLACEHOLDER.match(m["secret"]))


# sudo's own options that take a value (`-u app`), so that the option after it is
# still sudo's.
_SUDO_VALUED: Final = frozenset("ugpChrtUDRT")


def _sudo_reads_stdin(words: Sequence[str]) -> bool:
    for i, word in enumerate(words):
        if word == "--stdin":
            return True
        if not word.startswith("-") or word == "--":
            return False  # the command sudo runs: its flags are its own
        if word.startswith("--"):
            continue
        for j, letter in enumerate(word[1:], 1):
            if letter == "S":
                return True
            if letter in _SUDO_VALUED:
                if j == len(word) - 1:  # its value is the next word
                    return _sudo_reads_stdin(words[i + 2 :])
                break
    return False


def piped_password(text: str, m: re.Match[str]) -> bool:
    """Whether the value ``echo`` pipes on is read as a password by the command that
    follows the pipe (from ``m.end()``)."""
    if PLACEHOLDER.match(m["secret"]):
        return False
    stop = _SEPARATOR.search(text, m.end(), m.end() + 300)
    words = text[m.end() : stop.start() if stop else m.end() + 300].split()
    if not words:
        return False
    program = words[0].rpartition("/")[2]
    if program == "sudo":
        return _sudo_reads_stdin(words[1:])
    return "--password-stdin" in words or (program == "passwd" and "--stdin" in words)


def htpasswd_batch(users_only: bool) -> Callable[[str, re.Match[str]], bool]:
    """A check that ``htpasswd``'s options (``opts``) take the password from the
    command line (``-b``), with a file before the user unless ``users_only`` (``-n``).
    """

    def check(text: str, m: re.Match[str]) -> bool:
        letters = "".join(m["opts"].split()).replace("-", "")
        return (
            "b" in letters
            and ("n" in letters) == users_only
            and not PLACEHOLDER.match(m["secret"])
        )

    return check


# A flag's argument, quoted or not; a placeholder or a marker (`$PW`, `[redacted]`) is
# none, and failing here spares the check.
_ARG = r"(?P<q>[\"'])?(?![$<{\[])(?P<secret>(?(q)[^\"'\n]++|[^\s\"'`;&|]++))"
_MYSQL = ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mariadb", "mariadb-dump")
_REGISTRY = ("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "az")
# htpasswd's options, `-C 12` with its cost; then a word that is no option or redirect.
_HTPASSWD = r"htpasswd(?<![\w.-]htpasswd)(?P<opts>(?:[ \t]++-[A-Za-z]++(?:(?<=C)[ \t]++\d++)?)++)"
_WORD = r"[ \t]++(?![-<>])[^\s;&|]++"

# mysql -pPW (attached: `-p db` asks for the password), sshpass -p, redis-cli -a,
# a registry login's -p, twine -p, curl -u user:PW, openssl -passout pass:PW.
COMMANDS: Final = (
    shape(
        "cli-password",
        r"-p(?<![^ \t]-p)" + _ARG,
        ("mysql", "mariadb", "sshpass"),
        command(*_MYSQL, "sshpass"),
    ),
    shape(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("sshpass", "twine"),
        command("sshpass", "twine"),
    ),
    shape(
        "cli-password",
        r"-p(?<![^ \t]-p)[ \t]++" + _ARG,
        ("login",),
        command(*_REGISTRY, verb="login"),
    ),
    shape(
        "cli-password",
        r"-a(?<![^ \t]-a)[ \t]++" + _ARG,
        ("redis-cli",),
        command("redis-cli"),
    ),
    shape(
        "cli-password",
        r"(?:--user|-u)(?<![^ \t]-u)(?<![^ \t]--user)(?:[ \t]++|=)"
        r"(?P<q>[\"'])?[^\s:\"']*+:(?P<secret>(?(q)[^\"'\n]++|[^\s\"'`;&|]++))",
        ("curl", "wget"),
        command("curl", "wget"),
    ),
    shape("cli-password", r"-pass(?:in|out|word)?[ \t]++pass:(?P<secret>\S++)"),
    # openssl enc -k PW; ssh-keygen -N PW (the new passphrase) and -P PW (the old).
    shape(
        "cli-password",
        r"-k(?<![^ \t]-k)[ \t]++" + _ARG,
        ("openssl",),
        command("openssl", words=False),
    ),
    shape(
        "cli-password",
        r"-[NP](?<![^ \t]-[NP])[ \t]++" + _ARG,
        ("ssh-keygen",),
        command("ssh-keygen", words=False),
    ),
    # echo PW | sudo -S cmd; printf '%s\n' PW | docker login --password-stdin.
    shape(
        "cli-password",
        r"(?:echo(?<![\w./-]echo)|printf(?<![\w./-]printf))(?:[ \t]++-[neE]++)*+"
        r"(?:[ \t]++(?P<f>[\"'])%s(?:\\n)?(?P=f))?[ \t]++"
        + _ARG
        + r"(?(q)(?P=q))[ \t]*+\|(?!\|)",
        ("sudo", "passw"),  # also `--password-stdin`, `passwd --stdin`
        piped_password,
        lines=True,
    ),
    *(
        shape(
            "cli-password",
            _HTPASSWD + _WORD * words + r"[ \t]++" + _ARG,
            ("passw",),  # `htpasswd`: a keyword other shapes look for too
            htpasswd_batch(users_only=words == 1),
            lines=True,
        )
        for words in (1, 2)
    ),
    shape(
        "session-cookie",
        r"(?:-b|--cookie)(?<![^ \t]-b)(?<![^ \t]--cookie)[ \t]++[\"']?"
        rf"(?P<secret>{COOKIES})",
        ("curl",),
        command("curl"),
        parts=COOKIE_VALUE,
    ),
    # --password X, --token X, --account-key X (`--password=X` is an assignment).
    shape(
        "cli-password",
        guarded("--", "[A-Za-z0-9_-]")
        + r"(?P<key>[A-Za-z0-9][A-Za-z0-9-]*+)[ \t]++(?!-)"
        + VALUE,
        check=flag,
        tail=TAIL,
    ),
)
