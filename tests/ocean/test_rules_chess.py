"""Rules of ocean-chess: move generation against known perft counts (a C driver over chess.h),
the legal-move mask against a reference move generator written apart from the C code over random
games, castling (rights, through and out of check), en passant only at once, promotion choices,
checkmate, stalemate, the fifty-move, threefold and insufficient-material draws, the plies cap,
an illegal action losing, each seat's frame, the built-in players, and the renders."""

import pathlib
import subprocess

import numpy as np
import pytest

from puffer_ocean import envs

HEADER = pathlib.Path(envs.__file__).parent / "csrc" / "envs" / "chess.h"
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(1, 7)
BLACK = 8
ACTIONS = 4168
PLANES = ACTIONS  # the observation's board planes start after the mask


def sq(name):
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def frame(player, s):
    return s if player == 0 else s ^ 56


def act(player, frm, to, promo=QUEEN):
    """The action of `player`'s move from square name `frm` to `to` (own frame)."""
    f, t = frame(player, sq(frm)), frame(player, sq(to))
    if promo != QUEEN and (t >> 3) == 7 and f >> 3 == 6:
        return 4096 + 24 * (promo - KNIGHT) + 3 * (f & 7) + (t & 7) - (f & 7) + 1
    return f * 64 + t


def step(env, mover, action):
    actions = np.zeros(2, np.int32)
    actions[mover] = action
    return env.step(actions)


def play(env, *moves):
    """Play (frm, to) moves alternately from the side to move (two-seat env); the last results."""
    for move in moves:
        mover = int(env.field("to_move"))
        result = step(env, mover, act(mover, *move))
    return result


def board(env):
    return [int(env.field(f"board[{s}]")) for s in range(64)]


def setup(env, pieces, to_move=0, castling=0, ep=-1, halfmove=0):
    """Write a position: pieces as {"e1": KING, "e8": KING | BLACK, ...}."""
    placed = {sq(name): v for name, v in pieces.items()}
    for s in range(64):
        env.set_field(f"board[{s}]", placed.get(s, 0))
    env.set_field("to_move", to_move)
    env.set_field("castling", castling)
    env.set_field("ep", ep)
    env.set_field("halfmove", halfmove)


def legal_actions(env, seat):
    return set(np.flatnonzero(env.observations[seat][:ACTIONS]).tolist())


@pytest.fixture
def two_seats():
    env = envs.Chess(num_envs=1, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


# ---- perft: the move generator against the known counts ----

PERFT_DRIVER = r"""
#include HEADER
static void load_fen(Env* env, const char* fen) {
    const char* types = " pnbrqk";
    int r = 7, f = 0;
    const char* c = fen;
    memset(env->board, 0, sizeof(env->board));
    for (; *c != ' '; c++) {
        if (*c == '/') { r--; f = 0; }
        else if (*c >= '1' && *c <= '8') f += *c - '0';
        else {
            int black = *c >= 'a';
            env->board[r * 8 + f++] = (int)(strchr(types, black ? *c : *c - 'A' + 'a') - types) | (black ? 8 : 0);
        }
    }
    env->to_move = *++c == 'b';
    env->castling = 0;
    for (c += 2; *c != ' '; c++) env->castling |= *c == 'K' ? 1 : *c == 'Q' ? 2 : *c == 'k' ? 4 : *c == 'q' ? 8 : 0;
    c++;
    env->ep = *c == '-' ? -1 : (c[1] - '1') * 8 + (c[0] - 'a');
    ch_refresh(env, 0);
}
static long perft(Env* env, int depth) {
    int moves[CH_MAX_MOVES], n = ch_legal(env, moves);
    long total = 0;
    ChUndo u;
    if (depth == 1) return n;
    for (int i = 0; i < n; i++) {
        ch_make(env, moves[i], &u);
        total += perft(env, depth - 1);
        ch_unmake(env, moves[i], &u);
    }
    return total;
}
int main(int argc, char** argv) {
    static Env env;
    load_fen(&env, argv[1]);
    for (int d = 1; d <= atoi(argv[2]); d++) printf("%ld\n", perft(&env, d));
    return 0;
}
"""

# The Chess Programming Wiki's perft positions and counts.
PERFT = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467, 422333]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
]


@pytest.fixture(scope="module")
def perft_binary(tmp_path_factory):
    src = tmp_path_factory.mktemp("perft") / "perft.c"
    src.write_text(PERFT_DRIVER.replace("HEADER", f'"{HEADER}"'))
    binary = src.with_suffix("")
    subprocess.run(["cc", "-O2", "-std=c11", "-o", str(binary), str(src), "-lm"], check=True)
    return binary


@pytest.mark.parametrize("fen, counts", PERFT)
def test_perft_counts(perft_binary, fen, counts):
    out = subprocess.run([str(perft_binary), fen, str(len(counts))], check=True, capture_output=True, text=True,
                         timeout=60)
    assert [int(x) for x in out.stdout.split()] == counts


# ---- the mask against a reference move generator ----

STEPS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
JUMPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def attacked(b, s, by):
    f, r = s % 8, s // 8

    def at(df, dr):
        return b[(r + dr) * 8 + f + df] if 0 <= f + df < 8 and 0 <= r + dr < 8 else None

    pawn_rank = -1 if by == 0 else 1
    if any(at(df, pawn_rank) == PAWN | by * BLACK for df in (-1, 1)):
        return True
    if any(at(*j) == KNIGHT | by * BLACK for j in JUMPS) or any(at(*d) == KING | by * BLACK for d in STEPS):
        return True
    for i, (df, dr) in enumerate(STEPS):
        k = 1
        while (v := at(df * k, dr * k)) is not None:
            if v:
                if v >> 3 == by and (v & 7) in (QUEEN, BISHOP if i % 2 else ROOK):
                    return True
                break
            k += 1
    return False


def reference_moves(b, me, castling, ep):
    """Legal moves (from, to, promoted type or 0) by the rules."""
    moves = []
    for s, v in enumerate(b):
        if not v or v >> 3 != me:
            continue
        t, f, r = v & 7, s % 8, s // 8
        targets = []
        if t == PAWN:
            dr = 1 if me == 0 else -1
            if not b[s + 8 * dr]:
                targets.append(s + 8 * dr)
                if r == (1 if me == 0 else 6) and not b[s + 16 * dr]:
                    targets.append(s + 16 * dr)
            for df in (-1, 1):
                if 0 <= f + df < 8:
                    c = s + 8 * dr + df
                    if (b[c] and b[c] >> 3 != me) or c == ep:
                        targets.append(c)
        else:
            rays = JUMPS if t == KNIGHT else STEPS
            slide = t in (BISHOP, ROOK, QUEEN)
            for i, (df, dr) in enumerate(rays):
                if (t == BISHOP and i % 2 == 0) or (t == ROOK and i % 2):
                    continue
                k = 1
                while 0 <= f + df * k < 8 and 0 <= r + dr * k < 8:
                    to = (r + dr * k) * 8 + f + df * k
                    if b[to] and b[to] >> 3 == me:
                        break
                    targets.append(to)
                    if b[to] or not slide:
                        break
                    k += 1
        for to in targets:
            promos = (QUEEN, ROOK, BISHOP, KNIGHT) if t == PAWN and to // 8 in (0, 7) else (0,)
            for promo in promos:
                nb = list(b)
                nb[to], nb[s] = (promo | me * BLACK) if promo else v, 0
                if t == PAWN and to == ep and f != to % 8:
                    nb[to - 8 if me == 0 else to + 8] = 0
                king = next(i for i, x in enumerate(nb) if x == KING | me * BLACK)
                if not attacked(nb, king, 1 - me):
                    moves.append((s, to, promo))
    home = 4 if me == 0 else 60
    if b[home] == KING | me * BLACK and not attacked(b, home, 1 - me):
        for right, rook, between, passes in ((1, 3, (1, 2), (1, 2)), (2, -4, (-1, -2, -3), (-1, -2))):
            if castling >> (2 * me) & right and b[home + rook] == ROOK | me * BLACK and \
                    not any(b[home + d] for d in between) and not any(attacked(b, home + d, 1 - me) for d in passes):
                moves.append((home, home + passes[-1], 0))
    return moves


def encode(me, frm, to, promo):
    f, t = frame(me, frm), frame(me, to)
    if promo and promo != QUEEN:
        return 4096 + 24 * (promo - KNIGHT) + 3 * (f & 7) + (t & 7) - (f & 7) + 1
    return f * 64 + t


def test_the_mask_is_the_legal_moves_over_random_games(two_seats):
    rng = np.random.default_rng(0)
    games = checked = 0
    for _ in range(500):
        me = int(two_seats.field("to_move"))
        b, castling, ep = board(two_seats), int(two_seats.field("castling")), int(two_seats.field("ep"))
        expected = {encode(me, *m) for m in reference_moves(b, me, castling, ep)}
        assert legal_actions(two_seats, me) == expected
        assert not legal_actions(two_seats, 1 - me) and two_seats.masks.tolist() == [me == 0, me == 1]
        checked += len(expected)
        _, _, term, _, _ = step(two_seats, me, int(rng.choice(sorted(expected))))
        games += int(term[0])
    assert games >= 1 and checked > 5000


# ---- castling ----

def castle_position(env, extra=None, castling=3):
    """White K e1, rooks a1 h1, black K c8 (+ extra), black to move: black plays Kc8-b8 first."""
    setup(env, {"e1": KING, "a1": ROOK, "h1": ROOK, "c8": KING | BLACK, **(extra or {})}, to_move=1,
          castling=castling)
    play(env, ("c8", "b8"))


def test_castling_both_sides_moves_king_and_rook(two_seats):
    castle_position(two_seats)
    legal = legal_actions(two_seats, 0)
    assert act(0, "e1", "g1") in legal and act(0, "e1", "c1") in legal
    play(two_seats, ("e1", "g1"))
    b = board(two_seats)
    assert b[sq("g1")] == KING and b[sq("f1")] == ROOK and b[sq("h1")] == 0 and b[sq("e1")] == 0
    assert two_seats.field("castling") == 0
    castle_position(two_seats)
    play(two_seats, ("e1", "c1"))
    b = board(two_seats)
    assert b[sq("c1")] == KING and b[sq("d1")] == ROOK and b[sq("a1")] == 0


def test_castling_rights_are_lost_by_king_or_rook_moves_and_rook_captures(two_seats):
    castle_position(two_seats)
    play(two_seats, ("h1", "h2"), ("b8", "c8"), ("h2", "h1"), ("c8", "b8"))
    legal = legal_actions(two_seats, 0)
    assert act(0, "e1", "g1") not in legal and act(0, "e1", "c1") in legal and two_seats.field("castling") == 2
    castle_position(two_seats)
    play(two_seats, ("e1", "e2"), ("b8", "c8"), ("e2", "e1"), ("c8", "b8"))
    assert not {act(0, "e1", "g1"), act(0, "e1", "c1")} & legal_actions(two_seats, 0)
    assert two_seats.field("castling") == 0
    castle_position(two_seats, {"g2": BISHOP | BLACK})
    play(two_seats, ("a1", "a2"), ("g2", "h1"))  # the bishop takes the king's rook
    assert two_seats.field("castling") == 0  # a1's rook moved, h1's rook taken


@pytest.mark.parametrize("attacker, king_side, queen_side", [
    ("f8", False, True),   # f1 attacked: not through check
    ("g8", False, True),   # g1 attacked: not into check
    ("e8", False, False),  # in check: not out of it
    ("d8", True, False),   # d1 attacked
    ("b8", True, True),    # b1 attacked: the rook passes there, the king does not
])
def test_no_castling_out_of_through_or_into_check(two_seats, attacker, king_side, queen_side):
    setup_rook = {"e1": KING, "a1": ROOK, "h1": ROOK, "h8": KING | BLACK, attacker: ROOK | BLACK, "h7": PAWN | BLACK}
    setup(two_seats, setup_rook, to_move=1, castling=3)
    play(two_seats, ("h7", "h6"))
    legal = legal_actions(two_seats, 0)
    assert (act(0, "e1", "g1") in legal) == king_side and (act(0, "e1", "c1") in legal) == queen_side


# ---- en passant and promotion ----

def test_en_passant_only_right_after_the_double_step(two_seats):
    setup(two_seats, {"e1": KING, "e5": PAWN, "a2": PAWN, "e8": KING | BLACK, "d7": PAWN | BLACK, "h7": PAWN | BLACK},
          to_move=1)
    play(two_seats, ("d7", "d5"))
    assert act(0, "e5", "d6") in legal_actions(two_seats, 0) and two_seats.field("ep") == sq("d6")
    play(two_seats, ("e5", "d6"))
    b = board(two_seats)
    assert b[sq("d6")] == PAWN and b[sq("d5")] == 0 and b[sq("e5")] == 0
    setup(two_seats, {"e1": KING, "e5": PAWN, "a2": PAWN, "e8": KING | BLACK, "d7": PAWN | BLACK, "h7": PAWN | BLACK},
          to_move=1)
    play(two_seats, ("d7", "d5"), ("a2", "a3"), ("h7", "h6"))
    assert act(0, "e5", "d6") not in legal_actions(two_seats, 0)


def test_promotion_to_each_piece_and_in_blacks_frame(two_seats):
    for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
        setup(two_seats, {"e1": KING, "b7": PAWN, "h8": KING | BLACK, "a8": ROOK | BLACK, "h7": PAWN | BLACK},
              to_move=1)
        play(two_seats, ("h7", "h6"))
        legal = legal_actions(two_seats, 0)
        assert {act(0, "b7", to, p) for to in ("a8", "b8") for p in (QUEEN, ROOK, BISHOP, KNIGHT)} <= legal
        assert act(0, "b7", "c8", KNIGHT) not in legal
        play(two_seats, ("b7", "a8", promo))
        assert board(two_seats)[sq("a8")] == promo
    setup(two_seats, {"e1": KING, "a2": PAWN, "h8": KING | BLACK, "g2": PAWN | BLACK})
    play(two_seats, ("a2", "a3"))
    step(two_seats, 1, 4096 + 24 * 2 + 3 * 6 + 1)  # rook, the g file, straight on (black's frame: g7 -> g8)
    assert board(two_seats)[sq("g1")] == ROOK | BLACK


# ---- the ends of a game ----

def test_checkmate_wins(two_seats):
    _, rew, term, _, _ = play(two_seats, ("f2", "f3"), ("e7", "e5"), ("g2", "g4"))
    assert not term.any()
    _, rew, term, _, _ = play(two_seats, ("d8", "h4"))
    assert term.all() and rew.tolist() == [-1, 1] and two_seats.outcomes.tolist() == [0.0, 1.0]
    log = two_seats.log()
    assert log["mate"] == 1 and log["score"] == 0.5 and log["draw"] == 0


def test_stalemate_draws(two_seats):
    setup(two_seats, {"f7": KING, "g5": QUEEN, "h8": KING | BLACK})
    _, rew, term, _, _ = play(two_seats, ("g5", "g6"))
    assert term.all() and rew.tolist() == [0, 0] and two_seats.outcomes.tolist() == [0.5, 0.5]
    assert two_seats.log()["draw"] == 1


def test_fifty_move_rule(two_seats):
    pieces = {"e1": KING, "b1": KNIGHT, "a2": PAWN, "e8": KING | BLACK, "h7": PAWN | BLACK}
    setup(two_seats, pieces, halfmove=99)
    _, _, term, _, _ = play(two_seats, ("a2", "a3"))  # a pawn move resets the count
    assert not term.any() and two_seats.field("halfmove") == 0
    setup(two_seats, pieces, halfmove=98)
    _, _, term, _, _ = play(two_seats, ("b1", "c3"))
    assert not term.any()
    _, rew, term, _, _ = play(two_seats, ("e8", "d8"))  # the 100th ply without capture or pawn move
    assert term.all() and two_seats.outcomes.tolist() == [0.5, 0.5] and rew.tolist() == [0, 0]


def test_threefold_repetition(two_seats):
    shuffle = [("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")]
    _, _, term, _, _ = play(two_seats, *shuffle, *shuffle[:3])
    assert not term.any()
    _, rew, term, _, _ = play(two_seats, shuffle[3])  # the start position, a third time
    assert term.all() and two_seats.outcomes.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("extra, drawn", [({}, True), ({"f8": BISHOP | BLACK}, True), ({"c8": BISHOP | BLACK}, False),
                                          ({"b8": KNIGHT | BLACK}, False)])
def test_insufficient_material(two_seats, extra, drawn):
    setup(two_seats, {"e1": KING, "c1": BISHOP, "a8": KING | BLACK, "g5": PAWN | BLACK, **extra})
    _, _, term, _, _ = play(two_seats, ("c1", "g5"))  # K+B: with the other's lone king or a bishop on its colour
    assert bool(term.all()) == drawn
    if drawn:
        assert two_seats.outcomes.tolist() == [0.5, 0.5]


def test_the_plies_cap_draws():
    env = envs.Chess(num_envs=1, opponent="none", max_plies=4)
    try:
        env.reset(seed=0)
        _, _, term, _, _ = play(env, ("e2", "e4"), ("e7", "e5"), ("d2", "d4"))
        assert not term.any()
        _, rew, term, trunc, _ = play(env, ("d7", "d5"))
        assert term.all() and not trunc.any() and env.outcomes.tolist() == [0.5, 0.5]
    finally:
        env.close()


def test_an_illegal_action_loses(two_seats):
    _, rew, term, _, _ = play(two_seats, ("e2", "e5"))
    assert term.all() and rew.tolist() == [-1, 1] and two_seats.outcomes.tolist() == [0.0, 1.0]
    assert two_seats.log()["illegal"] == 0.5


def test_each_seat_sees_the_board_in_its_own_frame(two_seats):
    play(two_seats, ("e2", "e4"))
    white, black = two_seats.observations
    planes_w, planes_b = white[PLANES:PLANES + 768].reshape(12, 64), black[PLANES:PLANES + 768].reshape(12, 64)
    assert planes_w[0, sq("e4")] == 1 and planes_b[6, sq("e4") ^ 56] == 1  # own pawn / the other's, flipped
    assert planes_b[5, sq("e1")] == 1 and planes_w[11, sq("e8")] == 1  # black's own king on its first rank
    extra_w, extra_b = white[PLANES + 768:], black[PLANES + 768:]
    assert extra_w[0] == 1 and extra_b[0] == 0 and extra_w[1] == 0 and extra_b[1] == 1
    assert extra_b[6 + 4] == 1 and extra_b[2:6].tolist() == [1, 1, 1, 1]  # en passant file e, all castling rights
    assert act(1, "d7", "d5") in legal_actions(two_seats, 1) and not legal_actions(two_seats, 0)
    assert [leaf.path for leaf in two_seats.obs_layout.leaves] == [("action_mask",), ("observation",)]


# ---- the built-in players ----

def test_the_scripted_player_mates_and_takes_the_most_valuable_piece():
    env = envs.Chess(num_envs=1, opponent="scripted")
    try:
        for _ in range(20):
            env.reset()
            if env.field("agent_player") == 0:
                break
        assert env.field("agent_player") == 0
        setup(env, {"e1": KING, "d4": QUEEN, "b1": KNIGHT, "a2": PAWN, "e8": KING | BLACK, "d8": ROOK | BLACK,
                    "a7": PAWN | BLACK})
        env.step(np.array([act(0, "b1", "c3")], np.int32))
        assert board(env)[sq("d4")] == ROOK | BLACK  # the rook took the queen (the knight was worth less)
        setup(env, {"g1": KING, "f2": PAWN, "g2": PAWN, "h2": PAWN, "a2": PAWN, "b3": QUEEN, "h8": KING | BLACK,
                    "e8": ROOK | BLACK, "c5": KNIGHT | BLACK})
        _, rew, term, _, _ = env.step(np.array([act(0, "a2", "a3")], np.int32))
        assert term.all() and rew[0] == -1 and env.outcomes.tolist() == [0.0]  # Re1 mates rather than Nxb3
    finally:
        env.close()


def test_the_random_player_makes_games_end_and_the_agent_plays_both_sides():
    env = envs.Chess(num_envs=16, opponent="random")
    try:
        env.reset(seed=1)
        assert env.num_agents == 16 and env.game_seats == 1 and env.masks.all()
        sides, rng, ended = set(), np.random.default_rng(0), 0
        for _ in range(400):
            sides |= {int(env.field("agent_player", i)) for i in range(16)}
            actions = np.array([rng.choice(np.flatnonzero(o[:ACTIONS])) for o in env.observations], np.int32)
            _, _, term, trunc, _ = env.step(actions)
            ended += int(term.sum())
            assert not trunc.any()
        assert sides == {0, 1} and ended >= 16
        log = env.log()
        assert log["illegal"] == 0 and 0 <= log["score"] <= 1
    finally:
        env.close()


# ---- renders ----

def test_the_renders_show_the_board(two_seats):
    play(two_seats, ("e2", "e4"))
    lines = two_seats.render().splitlines()
    assert lines[0] == "8 rnbqkbnr" and lines[4] == "4 ....P..." and lines[7] == "1 RNBQKBNR"
    assert lines[8].startswith("  abcdefgh") and "black to move" in lines[8]
    env = envs.Chess(num_envs=1, opponent="none", render_mode="rgb_array")
    try:
        env.reset(seed=0)
        first = env.render().copy()
        assert first.shape == (256, 256, 3)
        step(env, 0, act(0, "e2", "e4"))
        assert (env.render() != first).any()
    finally:
        env.close()
