"""What ``register`` adds to a datafusion-python session, and the setting it carries."""

from __future__ import annotations

import datafusion

import sqlchess
from sqlchess import _sqlchess


def test_every_chess_function_and_table_is_registered() -> None:
    ctx = datafusion.SessionContext()
    sqlchess.register(ctx)
    tables = [f.name for f in _sqlchess.table_functions()]
    assert tables == ["read_pgn", "read_plies", "legal_moves", "explorer"]
    scalars = {f.name for f in _sqlchess.scalar_functions()}
    assert {"fen_after", "is_legal", "position_key", "plies_of", "validate_moves", "attacks", "opening"} <= scalars
    # the docs' examples (test_docs.py) call them; here, one of each family through the FFI
    got = ctx.sql(
        "SELECT position_key('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1') AS k, "
        "cardinality(plies_of('1. e4 e5 2. Nf3')) AS n"
    ).to_pylist()
    assert got == [{"k": 0x463B96181691FC9C, "n": 3}]  # the Polyglot key of the start
    assert ctx.sql("SELECT count(*) AS n FROM openings").to_pylist()[0]["n"] > 3000


def partitions(split_bytes: int | None) -> int:
    """The scan partitions of the 16 KiB sample on a 2-partition session."""
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2))
    sqlchess.register(ctx, split_bytes=split_bytes)
    df = ctx.sql("SELECT game_index FROM read_pgn('data/sample.pgn')")
    assert df.count() == 20
    return len(df.execute_stream_partitioned())


def test_split_bytes_reaches_the_scan() -> None:
    assert partitions(None) == 1  # default 32 MiB: the sample is one partition
    assert partitions(4096) == 2
    assert partitions(0) == 1
