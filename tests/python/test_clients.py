"""python-chess as a real client of menagerie over UCI and XBoard.

Usage: python test_clients.py PATH_TO_MENAGERIE
Plays a few moves of standard chess with each protocol and runs an analysis;
exits non-zero (with a traceback) on any failure. Needs `pip install chess`.
"""

import sys

import chess
import chess.engine


def play_a_few_moves(engine, plies=6):
    board = chess.Board()
    for _ in range(plies):
        result = engine.play(board, chess.engine.Limit(time=0.05))
        assert result.move is not None, "engine returned no move"
        assert result.move in board.legal_moves, f"illegal move {result.move}"
        board.push(result.move)
    return board


def analyse(engine, board):
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert "score" in info, info
    assert info.get("depth", 0) >= 1, info
    pv = info.get("pv", [])
    assert pv, info
    assert pv[0] in board.legal_moves, pv
    # A mate in one must be found and scored as a mate.
    mate = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    info = engine.analyse(mate, chess.engine.Limit(depth=4))
    assert info["pv"][0] == chess.Move.from_uci("a1a8"), info
    assert info["score"].white().mate() == 1, info


def main():
    binary = sys.argv[1]
    with chess.engine.SimpleEngine.popen_uci([binary]) as engine:
        assert engine.id.get("name", "").startswith("menagerie"), engine.id
        engine.configure({"Hash": 8})
        board = play_a_few_moves(engine)
        analyse(engine, board)
        print("uci ok:", board.fen())
    with chess.engine.SimpleEngine.popen_xboard([binary, "xboard"]) as engine:
        board = play_a_few_moves(engine)
        analyse(engine, board)
        print("xboard ok:", board.fen())


if __name__ == "__main__":
    main()
