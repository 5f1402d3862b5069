"""Long calls release the GIL, and Ctrl-C (SIGINT) stops them with KeyboardInterrupt."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import sqlchess

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def interrupt_after(seconds: float) -> threading.Timer:
    """SIGINT to this process after ``seconds`` (what Ctrl-C sends)."""
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_the_gil_is_released_while_perft_runs() -> None:
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    t0 = time.monotonic()
    try:
        assert sqlchess.perft(START, 4) == 197_281
    finally:
        done.set()
        counter.join()
    elapsed = time.monotonic() - t0
    # a thread that holds the GIL would leave the counter near 0
    assert ticks > elapsed * 1000 * 0.25, (ticks, elapsed)


def test_ctrl_c_stops_perft() -> None:
    t0 = time.monotonic()
    timer = interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        sqlchess.perft(START, 7)  # minutes without Ctrl-C
    timer.join()
    # within 0.1 s of the signal, even while a stage computes (0.5 s + slack)
    assert time.monotonic() - t0 < 1.5


def test_ctrl_c_stops_a_stream_which_reads_on_after_it(standard_glob: str) -> None:
    reader = sqlchess.sql(f"SELECT game_index FROM read_plies('{standard_glob}')")
    rows = 0
    t0 = time.monotonic()
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        for batch in reader:
            rows += batch.num_rows
            time.sleep(0.05)
    timer.join()
    assert time.monotonic() - t0 < 5
    # no batch lost: the rest of the stream, then all the rows
    rows += reader.read_all().num_rows
    assert rows == 465_974
