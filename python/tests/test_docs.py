"""Every in-process example query of the docs (``$ sqlchess sql "…"`` in README.md and
docs/*.md) gives the command line's rows through ``sqlchess.sql`` and through a
datafusion-python session after ``sqlchess.register``."""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

import sqlchess
from conftest import ROOT, cli_rows, rows

EXAMPLE = re.compile(r"^\$ (sqlchess sql .*?)(?=\n[^ ])", re.M | re.S)
# string literals that name files: the example needs them to exist
FILE_LITERAL = re.compile(r"'([^']*\.(?:pgn|parquet|zst|gz|bz2))'")


def examples() -> list:
    """(id, statements) of every example; those that are no query run here are marked
    skip with the reason."""
    out = []
    for md in sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]:
        for n, m in enumerate(EXAMPLE.finditer(md.read_text(encoding="utf-8"))):
            args = shlex.split(m.group(1).replace("\\\n", " "))
            query = query_of(args[2:])
            ident = f"{md.name}:{n}"
            reason = None
            if "|" in args:
                reason = "its output goes through a shell pipe"
            elif "--cluster" in args:
                reason = "runs on a cluster"
            elif re.match(r"\s*(COPY|EXPLAIN)\b", query, re.I) or re.search(r";\s*EXPLAIN\b", query, re.I):
                reason = "writes a file or shows a plan, not rows"
            else:
                missing = [p for p in FILE_LITERAL.findall(query) if "*" not in p and not (ROOT / p).exists()]
                if missing:
                    reason = f"reads {missing}, which an earlier example writes"
            marks = [pytest.mark.skip(reason=reason)] if reason else []
            out.append(pytest.param(query, id=ident, marks=marks))
    return out


def query_of(args: list[str]) -> str:
    """The query among ``sqlchess sql``'s arguments: the first that is no option or value."""
    rest = iter(args)
    for a in rest:
        if a in ("--out", "--format", "--threads", "--memory-limit", "--cluster", "-f"):
            next(rest, None)
        elif not a.startswith("-"):
            return a
    return ""


def statements(query: str) -> list[str]:
    """The statements of ``query`` (the examples' ``;`` is never inside a literal)."""
    return [s.strip() for s in query.split(";") if s.strip()]


def test_the_docs_have_examples() -> None:
    ran = [p for p in examples() if not p.marks]
    assert len(ran) >= 30, f"only {len(ran)} example queries found"


@pytest.mark.parametrize("query", examples())
def test_example_through_sql(query: str, cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    expected = cli_rows(cli, tmp_path, "sql", query)
    got = sqlchess.sql(query).read_all()
    assert got.column_names == expected.column_names
    assert rows(got) == rows(expected)


@pytest.mark.parametrize("query", examples())
def test_example_through_register(query: str, cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    import datafusion

    expected = cli_rows(cli, tmp_path, "sql", query)
    ctx = datafusion.SessionContext()
    sqlchess.register(ctx)
    *before, last = statements(query)
    for s in before:
        ctx.sql(s).collect()
    got = ctx.sql(last).to_arrow_table()
    assert got.column_names == expected.column_names
    assert rows(got) == rows(expected)
