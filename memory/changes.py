"""What changed in a project's files since its index file was written (`memory.layered`):
a comparison of `Store.walk` with the index file, and what a one-shot search keeps of
it beside the index file (`Seen`). Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memhooks.memory.scope import Found
    from memhooks.memory.segment import Segment


#: Build the index file anew when more files than this changed since it was written, or
#: more than `REBUILD_SHARE` of them; fewer are read and indexed per search.
REBUILD_MIN = 64
REBUILD_SHARE = 0.05


class Seen(NamedTuple):
    """What the last full check of the files against the index file found, kept beside
    it: until a folder changes, a one-shot search trusts it instead of a stat per file.
    """

    built_at: int  #: of the index file it describes
    checked_at: int  #: when the check began (ns since the epoch)
    stamps: tuple[int, ...]  #: `Store.stamps` before the check
    changed: int  #: files a build would spare reading (see `_compare`)
    dead: list[int]  #: ids of the index file not ranked from it (changed, gone, racy)
    stale: list[str]  #: files read instead (changed since the build, or new)
    #: `memory.index_file.watch_mark` before the check ("" if no session process watched)
    mark: str = ""
    #: of `stale`, files changed within `racy_ns` of the check, which a build then would
    #: not have trusted either: a check `racy_ns` later counts them in `changed`
    settling: int = 0

    def calls_for_build(self, files: int, now: int, racy_ns: int) -> bool:
        """Whether a full check now would build the index file anew (of `files` in all),
        counting the files changed just before the check once `racy_ns` has passed:
        else, trusted while a session watched, they were read on every search."""
        changed = self.changed
        if now - self.checked_at >= racy_ns:
            changed += self.settling
        return changed > max(REBUILD_MIN, REBUILD_SHARE * files)

    def encode(self) -> bytes:
        """The note's bytes."""
        head = [_SEEN, self.built_at, self.checked_at, self.changed, self.settling]
        head += [self.mark or "-"]
        head += self.stamps
        lines = [" ".join(map(str, head)), " ".join(map(str, self.dead))]
        return "\n".join([*lines, "\0".join(self.stale)]).encode(
            "utf-8", "surrogatepass"
        )

    @classmethod
    def decode(cls, data: bytes) -> Seen | None:
        """The note in `data`; None for anything else (a full check then runs)."""
        try:
            head, dead, stale = data.decode("utf-8", "surrogatepass").split("\n", 2)
            tag, built, checked, changed, settling, mark, *stamps = head.split(" ")
            if tag != _SEEN:
                return None
            return cls(
                int(built),
                int(checked),
                tuple(map(int, stamps)),
                int(changed),
                [int(i) for i in dead.split()],
                stale.split("\0") if stale else [],
                "" if mark == "-" else mark,
                int(settling),
            )
        except ValueError:
            return None


_SEEN = "MHSEEN3"


def compare(
    seg: Segment | None, files: list[Found], now: int, racy_ns: int
) -> tuple[list[int], list[Found], int, int]:
    """The ids in the index file of the files it holds as they are now; the others (to
    be read); how many a build now would spare reading: changed, new, gone, or changed
    just before the last build but not just before now (a file changed within `racy_ns`
    of a build may hold other bytes than those indexed, with the same modification
    time); and how many it would not, being changed just before now too."""
    if seg is None:
        return [], files, len(files), 0
    ids, sizes, mtimes = seg.ids, seg.sizes, seg.mtimes
    trusted, settled = seg.built_at - racy_ns, now - racy_ns
    fresh: list[int] = []
    stale: list[Found] = []
    same = known = 0
    for f in files:
        i = ids.get(f.rel)
        if i is not None:
            known += 1
            if mtimes[i] == f.mtime_ns and sizes[i] == f.size:
                if f.mtime_ns < trusted:
                    same += 1
                    fresh.append(i)
                    continue
                if f.mtime_ns >= settled:
                    same += 1  # a build now would not trust it either
        stale.append(f)
    settling = same - len(fresh)
    return fresh, stale, len(files) - same + len(seg) - known, settling
