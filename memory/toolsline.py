"""The line the injected block ends with: the tools the model reaches memory with, the
`memhooks` commands in its shell or the tools of the `memhooks mcp` server, as its
harness names them (hooks/ chooses which, `mcp_config.usage_line`)."""

from __future__ import annotations

#: The line the block ends with when the model reaches memory through the shell; `{prog}`
#: is `memhooks`, or its path where the model's shell would not find this install (hooks/).
USAGE_SHELL = (
    "Memory tools: `{prog} search TERM...` finds files, `{prog} read PATH` reads one, "
    "`{prog} write --to daily|note|memory|scratchpad --text ...` saves."
)
USAGE = USAGE_SHELL.format(prog="memhooks")  #: the line with the plain command name
#: The tools `memhooks mcp` serves, in the order the MCP line names them.
MCP_TOOLS = (
    "memory_search",
    "memory_read",
    "memory_write",
    "memory_edit",
    "memory_forget",
)


def usage_mcp(server: str = "memhooks", spell: str = "{tool}") -> str:
    """The line when the project has the `memhooks mcp` server configured (hooks/ detects
    it): each tool as the harness names it to the model, `spell` with `{server}` and
    `{tool}` filled in (Claude Code's ``mcp__{server}__{tool}``)."""
    s, r, w, e, f = (spell.format(server=server, tool=t) for t in MCP_TOOLS)
    return (
        f"Memory tools (MCP server {server}): `{s}` finds files, `{r}` reads one, "
        f"`{w}` saves, `{e}` and `{f}` correct."
    )


#: The MCP line with the tools' own names (a harness unknown, or one that uses them).
USAGE_MCP = usage_mcp()


__all__ = ["MCP_TOOLS", "USAGE", "USAGE_MCP", "USAGE_SHELL", "usage_mcp"]
