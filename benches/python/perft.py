"""python-chess perft of the start position, the reference figure of BENCHMARKS.md.

Usage: python perft.py DEPTH  (python-chess 1.11: pip install chess)
Prints the node count; time the whole process.
"""
import sys

import chess


def perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes


print(perft(chess.Board(), int(sys.argv[1])))
