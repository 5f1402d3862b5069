"""The functions that need no datafusion-python: ``validate``, ``legal_moves``, ``perft``,
``sql``'s stream, and the readers that take it (pyarrow, polars, pandas, duckdb)."""

from __future__ import annotations

import pathlib

import pyarrow as pa

import sqlchess
from conftest import cli_rows

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_validate_gives_the_command_lines_report(cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    expected = cli_rows(cli, tmp_path, "validate", "data/sample.pgn")
    got = sqlchess.validate("data/sample.pgn").read_all()
    assert got.num_rows == 20
    assert got.schema.names == expected.schema.names
    assert got.to_pylist() == expected.to_pylist()
    # no path: the bundled sample, as `sqlchess validate` without arguments
    assert sqlchess.validate().read_all().column("final_status").to_pylist() == expected.column(
        "final_status"
    ).to_pylist()


def test_validate_streams_a_batch_at_a_time() -> None:
    reader = sqlchess.validate(["data/sample.pgn"], batch_size=7, threads=1)
    sizes = [b.num_rows for b in reader]
    assert sizes == [7, 7, 6]


def test_legal_moves() -> None:
    moves = sqlchess.legal_moves(START)
    assert moves.num_rows == 20
    assert "e2e4" in moves.column("uci").to_pylist()
    assert sqlchess.legal_moves("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").num_rows == 0  # stalemate


def test_perft() -> None:
    assert sqlchess.perft(START, 3) == 8_902
    assert sqlchess.perft(KIWIPETE, 2) == 2_039
    assert sqlchess.perft(START, 0) == 1


def test_sql_runs_several_statements_and_streams_the_last() -> None:
    reader = sqlchess.sql(
        "CREATE VIEW g AS SELECT * FROM read_pgn('data/sample.pgn'); "
        "SELECT game_index FROM g ORDER BY game_index"
    )
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.read_all().column("game_index").to_pylist() == list(range(20))


def test_other_readers_take_the_stream() -> None:
    import duckdb
    import pandas
    import polars

    query = "SELECT final_status, count(*) AS games FROM read_pgn('data/sample.pgn') GROUP BY 1"
    table = sqlchess.sql(query).read_all()
    expected = dict(zip(table.column("final_status").to_pylist(), table.column("games").to_pylist()))
    frame = polars.from_arrow(sqlchess.sql(query))
    assert dict(zip(frame["final_status"].to_list(), frame["games"].to_list())) == expected
    df = sqlchess.sql(query).read_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert dict(zip(df["final_status"], df["games"])) == expected
    reader = sqlchess.sql(query)
    got = duckdb.sql("SELECT final_status, games FROM reader").fetchall()
    assert dict(got) == expected
