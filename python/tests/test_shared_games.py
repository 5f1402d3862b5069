"""``read_plies`` over the shared standard games equals python-chess 1.11.2 replaying them,
and its stream, read a batch at a time, stays within a memory bound."""

from __future__ import annotations

import glob
import io
import os
import pathlib

import pytest

import sqlchess


def python_chess_moves(files: list[str]) -> dict[tuple[str, int], list[str]]:
    """Per (file, game index): the UCI of the main-line moves python-chess plays, up to the
    first illegal one (``read_game`` stops a game's moves there)."""
    import chess.pgn

    out = {}
    for path in files:
        with open(path, encoding="utf-8-sig", errors="replace") as f:
            n = 0
            while (game := chess.pgn.read_game(f)) is not None:
                out[(path, n)] = [m.uci() for m in game.mainline_moves()]
                n += 1
    return out


def test_read_plies_equals_python_chess(standard_glob: str) -> None:
    chess = pytest.importorskip("chess")
    assert chess.__version__ == "1.11.2"
    files = sorted(glob.glob(standard_glob))
    assert files, standard_glob
    table = sqlchess.sql(
        f"SELECT file, game_index, ply, uci FROM read_plies('{standard_glob}') "
        "ORDER BY file, game_index, ply"
    ).read_all()
    got: dict[tuple[str, int], list[str]] = {}
    for f, g, u in zip(*(table.column(c).to_pylist() for c in ("file", "game_index", "uci"))):
        got.setdefault((f, g), []).append(u)
    expected = python_chess_moves(files)
    assert table.num_rows == 465_974
    # games without a legal ply have no rows
    assert {k: v for k, v in expected.items() if v} == got


def rss_kib() -> int:
    """This process's resident memory now (KiB)."""
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def test_a_read_plies_stream_stays_bounded(standard_glob: str) -> None:
    """A read_plies scan holds one chunk of games (``batch_size`` games) at a time, so the
    memory a stream needs does not grow with its rows: after a first run (which plans the
    engines and fills the allocator), reading every batch again costs far less than the
    rows it delivers. The games are read twice in one stream: the growth is the allocator's
    (12-84 MiB from run to run, whatever the rows), so twice the rows keep it well below
    the bound."""
    scan = f"SELECT * FROM read_plies('{standard_glob}')"
    query = f"SET datafusion.execution.batch_size = 1024; {scan} UNION ALL {scan}"

    def stream() -> tuple[int, int, int]:
        base = peak = rss_kib()
        rows = delivered = 0
        for batch in sqlchess.sql(query):
            rows += batch.num_rows
            delivered += batch.nbytes
            peak = max(peak, rss_kib())
        return rows, delivered // 1024, peak - base

    stream()
    rows, delivered_kib, growth_kib = stream()
    assert rows == 2 * 465_974
    # measured: 12-84 MiB of growth for 273 MiB of rows (12-71 MiB for 137 MiB read once)
    assert growth_kib < delivered_kib / 2, (growth_kib, delivered_kib)
