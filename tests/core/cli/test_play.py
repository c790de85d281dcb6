"""`puffer play`: a person plays a turn-based game in a terminal, driven here through a pseudo-terminal
(the command reads its moves with `input()` from a real tty, as a person's shell gives it)."""

import os
import re
import select
import subprocess
import sys
import time

import pytest

from pufferlib import cli

PROMPT = re.compile(r"your move \[([0-9 ]+)\]: ")
GAME_OVER = re.compile(r"game over: [^\r\n]+")


class Terminal:
    """`puffer play ARGS` on a pseudo-terminal: read what it prints, type lines as a person would."""

    def __init__(self, *args: str):
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "pufferlib", "play", *args], stdin=slave, stdout=slave,
                                     stderr=slave, close_fds=True)
        os.close(slave)
        self.text = self.printed = ""  # since the last match; everything

    def expect(self, pattern: re.Pattern, timeout: float = 30.0) -> re.Match:
        """Read until `pattern` matches the text printed since the last match; return the match."""
        deadline = time.monotonic() + timeout
        while True:
            found = pattern.search(self.text)
            if found:
                self.text = self.text[found.end():]
                return found
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.master], [], [], left)[0]:
                raise AssertionError(f"no {pattern.pattern!r} within {timeout} s; printed:\n{self.text}")
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the command exited and closed the terminal
                chunk = b""
            if not chunk:
                raise AssertionError(f"the command ended before {pattern.pattern!r}; printed:\n{self.text}")
            self.text += chunk.decode(errors="replace")
            self.printed += chunk.decode(errors="replace")

    def type(self, line: str) -> None:
        os.write(self.master, f"{line}\n".encode())

    def play_to_the_end(self, choose=lambda legal: legal[0]) -> str:
        """Answer every prompt with `choose(legal moves)` until the game is over; its result line."""
        either = re.compile(f"{PROMPT.pattern}|{GAME_OVER.pattern}")
        while True:
            found = self.expect(either)
            if found.group(0).startswith("game over"):
                return found.group(0)
            self.type(str(choose([int(m) for m in found.group(1).split()])))

    def close(self) -> int:
        code = self.proc.wait(timeout=30)
        os.close(self.master)
        return code


@pytest.fixture
def terminal():
    opened = []

    def start(*args: str) -> Terminal:
        opened.append(Terminal(*args))
        return opened[-1]

    yield start
    for term in opened:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait()


def test_two_people_play_tictactoe_to_a_win_and_bad_or_illegal_moves_are_asked_again(terminal):
    term = terminal("pettingzoo-tictactoe")
    moves = iter([0, 3, 1, 4])
    for _ in range(4):
        assert term.expect(PROMPT)
        term.type(str(next(moves)))
    legal = term.expect(PROMPT).group(1).split()
    assert legal == ["2", "5", "6", "7", "8"]  # the board's legal moves: 0, 1, 3, 4 are taken
    term.type("two")  # not a number
    term.expect(re.compile(r"'two' is not a move"))
    term.type("4")  # taken
    term.expect(re.compile(r"4 is not legal here: the legal moves are 2 5 6 7 8"))
    term.type("42")  # no such action
    term.expect(re.compile(r"42 is not an action \(0 to 8\)"))
    term.type("2")  # completes the first row: seat 0 wins
    result = term.expect(GAME_OVER).group(0).strip()
    assert result == "game over: player 0 (seat 0) won; last rewards: seat 0 +1, seat 1 -1"
    assert "Traceback" not in term.printed
    assert term.close() == 0


def test_a_person_plays_connect_four_against_a_built_in_player_on_the_env_s_own_drawing(terminal):
    term = terminal("ocean-connect4", "--against", "random", "--seat", "1")
    assert term.expect(re.compile(r"seat 0: random, seat 1: you"))
    assert term.expect(re.compile(r"0123456"))  # the env's ansi render: its column numbers
    assert term.play_to_the_end(lambda legal: legal[len(legal) // 2]).startswith("game over: ")
    assert term.close() == 0


def test_poker_shows_a_person_their_own_card_only_and_ends_with_the_chips_won(terminal):
    term = terminal("ocean-kuhn_poker", "--against", "random", "--seat", "1", "--seed", "2")
    term.expect(re.compile(r"seat 1 to move holds [JQK]\s+0 fold, 1 check/call, 2 bet/raise"))
    result = term.play_to_the_end(lambda legal: legal[-1])  # bet or raise whenever possible
    assert "seat 0 to move holds" not in term.printed  # the built-in player's card is never shown
    assert re.search(r"last rewards: seat 0 ([+-][12]), seat 1 ([+-][12])", result)
    assert term.close() == 0


def test_against_an_agent_its_win_estimate_is_printed_each_turn_until_the_game_ends(terminal, tmp_path, capsys):
    data = str(tmp_path)
    assert cli.main(["train", "pettingzoo-tictactoe", "--train.total-timesteps", "512", "--vec.num-envs", "4",
                     "--train.batch-size", "256", "--train.minibatch-size", "128", "--train.data-dir", data]) == 0
    capsys.readouterr()
    term = terminal("pettingzoo-tictactoe", "--against", "latest", "--data-dir", data, "--seat", "1")
    estimate = term.expect(re.compile(r"model_\d+\.pt \(seat 0\) estimates its expected score at (\d\.\d\d) "
                                      r"\(value ([+-]\d\.\d\d)\)"))
    assert float(estimate.group(1)) == pytest.approx(min(1, max(0, (1 + float(estimate.group(2))) / 2)), abs=0.006)
    term.expect(re.compile(r"model_\d+\.pt \(seat 0\) plays \d"))
    assert term.play_to_the_end().startswith("game over: ")
    assert term.close() == 0


def test_leaving_a_game_and_what_cannot_be_played_are_one_line_each(terminal, capsys):
    term = terminal("pettingzoo-tictactoe", "--against", "random")
    term.expect(PROMPT)
    term.type("q")
    term.expect(re.compile("game left unfinished"))
    assert term.close() == 0
    assert cli.main(["play", "pettingzoo-tictactoe", "--seat", "2"]) == 2
    assert "--seat 2: pettingzoo-tictactoe has seats 0 to 1." in capsys.readouterr().err
    assert cli.main(["play", "pettingzoo-tictactoe", "--against", "nobody"]) == 2
    assert "neither 'human', a built-in player of pettingzoo-tictactoe (random, tactical)" in capsys.readouterr().err
    assert cli.main(["play", "ocean-squared"]) == 2
    assert "puffer play needs a turn-based game" in capsys.readouterr().err
    assert cli.main(["play", "ocean-tron"]) == 2  # both riders move at once
    assert "ocean-tron has 2 seats to move at once: puffer play needs a turn-based game" in capsys.readouterr().err
