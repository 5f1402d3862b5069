"""read_plies over the shared standard games from Python, against the command line and
python-chess, whole processes side by side (A B C A B C …), medians.

Usage: python read_plies.py [--runs N] [--shared-data DIR] [--bin SQLCHESS]
(the venv of .ci/run: sqlchess installed, python-chess 1.11.2). Two queries:
- all rows: ``SELECT * FROM read_plies(…)`` read whole by ``sqlchess.sql(…).read_all()`` /
  written by ``sqlchess sql --out rows.arrow``;
- ``SELECT count(*), count(DISTINCT position_key) FROM read_plies(…)`` / python-chess
  replaying every game with ``chess.polyglot.zobrist_hash`` after every ply.
Prints one table (Markdown) with each median and the ratios, and checks that both sides
give the same rows (row counts, the counts of the second query).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

PYTHON_SQL = """
import sys, sqlchess
t = sqlchess.sql(sys.argv[1]).read_all()
print(t.num_rows, *(t.column(0).to_pylist()[:1] if t.num_rows == 1 else []),
      *(t.column(1).to_pylist()[:1] if t.num_rows == 1 and t.num_columns > 1 else []))
"""

PYTHON_CHESS = """
import glob, sys
import chess.pgn, chess.polyglot
plies, keys = 0, set()
for path in sorted(glob.glob(sys.argv[1])):
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                plies += 1
                keys.add(chess.polyglot.zobrist_hash(board))
print(1, plies, len(keys))
"""


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{cmd[:3]}: exit {done.returncode}: {done.stderr}")
    return elapsed, done.stdout.strip()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--shared-data", default=os.environ.get("SQLCHESS_SHARED_DATA", str(ROOT.parent / "shared" / "data")))
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    p.add_argument("--bin", default=os.environ.get("SQLCHESS_BIN", f"{target}/release/sqlchess"))
    a = p.parse_args()
    glob = f"{a.shared_data}/pgn/[!v]*/*.pgn"
    every = f"SELECT * FROM read_plies('{glob}')"
    count = f"SELECT count(*) AS plies, count(DISTINCT position_key) AS keys FROM read_plies('{glob}')"
    out = pathlib.Path(tempfile.mkdtemp()) / "rows.arrow"
    sides = {
        "all rows: Python `sqlchess.sql(…).read_all()`": [sys.executable, "-c", PYTHON_SQL, every],
        "all rows: CLI `sqlchess sql --out rows.arrow`": [a.bin, "sql", "--out", str(out), every],
        "count, distinct keys: Python `sqlchess.sql`": [sys.executable, "-c", PYTHON_SQL, count],
        "count, distinct keys: CLI `sqlchess sql --format csv`": [a.bin, "sql", "--format", "csv", count],
        "count, distinct keys: python-chess 1.11.2 (`zobrist_hash` per ply)": [sys.executable, "-c", PYTHON_CHESS, glob],
    }
    times: dict[str, list[float]] = {k: [] for k in sides}
    outputs: dict[str, str] = {}
    for _ in range(a.runs):
        for name, cmd in sides.items():
            t, o = timed(cmd)
            times[name].append(t)
            outputs[name] = o
    import pyarrow as pa

    with pa.ipc.open_file(out) as f:
        cli_rows = f.read_all().num_rows
    names = list(sides)
    py_rows = int(outputs[names[0]].split()[0])
    assert py_rows == cli_rows, (py_rows, cli_rows)
    cli_counts = outputs[names[3]].splitlines()[-1].replace(",", " ").split()
    assert outputs[names[2]].split()[1:] == cli_counts == outputs[names[4]].split()[1:], outputs
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{a.runs} runs each, side by side; load average before: {os.getloadavg()[0]:.2f}")
    print(f"rows: {py_rows} plies; counts: {cli_counts}\n")
    print("| measure (whole process) | median s | runs |")
    print("|---|---:|---|")
    for k in names:
        print(f"| {k} | {med[k]:.3f} | {', '.join(f'{t:.2f}' for t in times[k])} |")
    print(f"\nPython / CLI, all rows: {med[names[0]] / med[names[1]]:.3f}")
    print(f"Python / CLI, counts: {med[names[2]] / med[names[3]]:.3f}")
    print(f"python-chess / Python, counts: {med[names[4]] / med[names[2]]:.1f}x")


if __name__ == "__main__":
    main()
