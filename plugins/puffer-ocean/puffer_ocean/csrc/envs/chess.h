/* chess: the full game of chess, for two seats or against a built-in player.
 *
 * Rules: every piece move, captures, check (no move may leave the mover's king attacked),
 * castling on both sides (the right is lost once the king or that rook moves or the rook is
 * captured; the king may not castle out of, through or into check, and the squares between
 * king and rook must be empty), en passant (only on the move right after the double step),
 * promotion to queen, rook, bishop or knight. The game ends, after any move, in this order:
 * checkmate (the mover wins), stalemate (draw), insufficient material (draw: no pawn, rook or
 * queen and at most one minor piece, or only bishops all on squares of one colour), the
 * fifty-move rule (draw once 100 plies pass with no capture and no pawn move; automatic, not
 * claimed), threefold repetition (draw the third time a position occurs: same pieces, side to
 * move, castling rights, and en passant square where a pawn stands next to capture there;
 * positions hashed with Zobrist-like keys), and `max_plies` plies in all (draw, so games stay
 * bounded).
 *
 * Squares: s = 8 rank + file, a1 = 0, h8 = 63. Each seat sees the board and acts in its own
 * frame, its pawns moving up: black's frame is the board flipped top to bottom (s ^ 56; files
 * stay). Actions (Discrete 4168), own frame: from * 64 + to for every move (a promotion this
 * way is to a queen; castling is the king's two-square move), and 4096 + 24 piece + 3 file + d
 * for the underpromotions, piece 0 knight, 1 bishop, 2 rook, `file` the pawn's file on the
 * seventh rank and d 0 / 1 / 2 for a move to the file left / ahead / right. An illegal action
 * (the mask below leaves none) loses the game for its seat.
 *
 * Observation (4953 floats, own frame): the legal actions (4168; all 0 for the seat that
 * waits), which Python presents as the "action_mask" entry of a Dict observation (puffer_ocean.
 * envs.Chess), so the trainer samples legal moves only; then, as "observation": 12 planes of 64
 * (own pawn, knight, bishop, rook, queen, king, then the other side's); 1 when the row plays
 * white; 1 when it is the row's move; castling rights (own king side, own queen side, the
 * other's king side, queen side); the en passant file, one-hot (8); plies without capture or
 * pawn move / 100; (occurrences of the position - 1) / 2; plies played / max_plies.
 *
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none"
 * both players are agents (a game of two rows, the waiting seat masked); otherwise the agent
 * plays a side drawn per game against the built-in player: "scripted" (one ply greedy) mates
 * when it can, else takes the most valuable piece (pawn 1, knight and bishop 3, rook 5, queen 9;
 * a promotion adds the new piece less a pawn), at random among equals; "random" plays a random
 * legal move. Rewards only at the end: +1 win, -1 loss, 0 draw; outcomes 1 / 0 / 0.5. score:
 * games won; draw: games drawn; mate: games ended by checkmate.
 */
#define OCEAN_WRITES_FINAL 1  /* ch_end keeps every ended game's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(illegal) X(draw) X(mate)
#define PARAMS(P) P(int, opponent, 1, 0, 2) P(int, max_plies, 300, 1, 100000)
#define FIELDS(F) \
    F(int, board[0]) F(int, board[1]) F(int, board[2]) F(int, board[3]) F(int, board[4]) F(int, board[5]) F(int, board[6]) F(int, board[7]) \
    F(int, board[8]) F(int, board[9]) F(int, board[10]) F(int, board[11]) F(int, board[12]) F(int, board[13]) F(int, board[14]) F(int, board[15]) \
    F(int, board[16]) F(int, board[17]) F(int, board[18]) F(int, board[19]) F(int, board[20]) F(int, board[21]) F(int, board[22]) F(int, board[23]) \
    F(int, board[24]) F(int, board[25]) F(int, board[26]) F(int, board[27]) F(int, board[28]) F(int, board[29]) F(int, board[30]) F(int, board[31]) \
    F(int, board[32]) F(int, board[33]) F(int, board[34]) F(int, board[35]) F(int, board[36]) F(int, board[37]) F(int, board[38]) F(int, board[39]) \
    F(int, board[40]) F(int, board[41]) F(int, board[42]) F(int, board[43]) F(int, board[44]) F(int, board[45]) F(int, board[46]) F(int, board[47]) \
    F(int, board[48]) F(int, board[49]) F(int, board[50]) F(int, board[51]) F(int, board[52]) F(int, board[53]) F(int, board[54]) F(int, board[55]) \
    F(int, board[56]) F(int, board[57]) F(int, board[58]) F(int, board[59]) F(int, board[60]) F(int, board[61]) F(int, board[62]) F(int, board[63]) \
    F(int, to_move) F(int, castling) F(int, ep) F(int, halfmove) F(int, ply) F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define CH_NONE 0
#define CH_SCRIPTED 1
#define CH_ACTIONS 4168
#define CH_OBS (CH_ACTIONS + 12 * 64 + 17)
#define CH_MAX_MOVES 256
#define CH_HIST 128  /* positions since the last capture or pawn move: at most 101 */
enum { CH_PAWN = 1, CH_KNIGHT, CH_BISHOP, CH_ROOK, CH_QUEEN, CH_KING };

/* A square holds 0 (empty) or type | 8 colour (type 1 pawn .. 6 king; colour 0 white, 1 black).
 * castling: 1 white king side, 2 white queen side, 4 black king side, 8 black queen side.
 * ep: the square a pawn just skipped (-1: none). A move: from | to << 6 | promoted type << 12. */
typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int board[64];
    int to_move, castling, ep, halfmove, ply, agent_player, tick;
    int king[2];
    uint64_t hash;                 /* of the position the moves below belong to */
    uint64_t hist[CH_HIST];        /* hashes since the last capture or pawn move, this one last */
    int n_hist;
    int moves[CH_MAX_MOVES];       /* the legal moves of to_move */
    int n_moves;
    int shown[2][CH_MAX_MOVES];    /* the mask entries set in each row's observation, */
    int n_shown[2];                /* cleared one by one at the next one (-1: clear all) */
    void* shown_in;                /* the observation buffer they were set in */
} Env;

typedef struct { int moved, captured, cap_sq, castling, ep, halfmove; } ChUndo;

static const int CH_DIRS[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
static const int CH_KNIGHT_JUMPS[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
static const int CH_VALUE[7] = {0, 1, 3, 3, 5, 9, 0};

static inline int ch_rows(Env* env) { return env->opponent == CH_NONE ? 2 : 1; }
static inline int ch_player_of(Env* env, int k) { return env->opponent == CH_NONE ? k : env->agent_player; }
static inline int ch_on(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }
static inline int ch_frame(int player, int s) { return player == 0 ? s : s ^ 56; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, ch_rows(env));
    s->legal_actions = 1;  /* the observation starts with the legal actions */
    ocean_obs_flat(s, CH_OBS, 0, 1);
    ocean_act_discrete(s, CH_ACTIONS);
    ocean_render_size(s, 8 * 32, 8 * 32);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->n_shown[0] = env->n_shown[1] = -1;
    return 0;
}
static void c_close(Env* env) {}

/* Whether square s is attacked by a piece of colour `by`. */
static int ch_attacked(const Env* env, int s, int by) {
    const int* b = env->board;
    int f = s & 7, r = s >> 3, pr = r + (by == 0 ? -1 : 1);
    for (int df = -1; df <= 1; df += 2)
        if (ch_on(f + df, pr) && b[pr * 8 + f + df] == (CH_PAWN | by << 3)) return 1;
    for (int d = 0; d < 8; d++) {
        int nf = f + CH_KNIGHT_JUMPS[d][0], nr = r + CH_KNIGHT_JUMPS[d][1];
        if (ch_on(nf, nr) && b[nr * 8 + nf] == (CH_KNIGHT | by << 3)) return 1;
        nf = f + CH_DIRS[d][0]; nr = r + CH_DIRS[d][1];
        if (ch_on(nf, nr) && b[nr * 8 + nf] == (CH_KING | by << 3)) return 1;
        int slider = d & 1 ? CH_BISHOP : CH_ROOK;
        for (; ch_on(nf, nr); nf += CH_DIRS[d][0], nr += CH_DIRS[d][1]) {
            int v = b[nr * 8 + nf];
            if (!v) continue;
            if (v >> 3 == by && ((v & 7) == slider || (v & 7) == CH_QUEEN)) return 1;
            break;
        }
    }
    return 0;
}

static inline int ch_add_pawn(int* out, int n, int from, int to) {
    if ((to >> 3) == 0 || (to >> 3) == 7)
        for (int t = CH_QUEEN; t >= CH_KNIGHT; t--) out[n++] = from | to << 6 | t << 12;
    else out[n++] = from | to << 6;
    return n;
}

/* The pseudo-legal moves of the side to move (castling already checked for attacked squares). */
static int ch_pseudo(const Env* env, int* out) {
    const int* b = env->board;
    int me = env->to_move, n = 0;
    for (int s = 0; s < 64; s++) {
        int v = b[s];
        if (!v || v >> 3 != me) continue;
        int t = v & 7, f = s & 7, r = s >> 3;
        if (t == CH_PAWN) {
            int dir = me == 0 ? 8 : -8, to = s + dir;
            if (!b[to]) {
                n = ch_add_pawn(out, n, s, to);
                if (r == (me == 0 ? 1 : 6) && !b[to + dir]) out[n++] = s | (to + dir) << 6;
            }
            for (int df = -1; df <= 1; df += 2) {
                if (f + df < 0 || f + df > 7) continue;
                int c = to + df;
                if ((b[c] && b[c] >> 3 != me) || c == env->ep) n = ch_add_pawn(out, n, s, c);
            }
        } else if (t == CH_KNIGHT || t == CH_KING) {
            const int(*jumps)[2] = t == CH_KNIGHT ? CH_KNIGHT_JUMPS : CH_DIRS;
            for (int d = 0; d < 8; d++) {
                int nf = f + jumps[d][0], nr = r + jumps[d][1];
                if (!ch_on(nf, nr)) continue;
                int to = nr * 8 + nf;
                if (!b[to] || b[to] >> 3 != me) out[n++] = s | to << 6;
            }
            int home = me == 0 ? 4 : 60, rook = CH_ROOK | me << 3;
            if (t == CH_KING && s == home && env->castling & (me == 0 ? 3 : 12) && !ch_attacked(env, s, 1 - me)) {
                if (env->castling & (me == 0 ? 1 : 4) && b[s + 3] == rook && !b[s + 1] && !b[s + 2] &&
                    !ch_attacked(env, s + 1, 1 - me))
                    out[n++] = s | (s + 2) << 6;
                if (env->castling & (me == 0 ? 2 : 8) && b[s - 4] == rook && !b[s - 1] && !b[s - 2] && !b[s - 3] &&
                    !ch_attacked(env, s - 1, 1 - me))
                    out[n++] = s | (s - 2) << 6;
            }
        } else {
            for (int d = t == CH_BISHOP ? 1 : 0; d < 8; d += t == CH_QUEEN ? 1 : 2)
                for (int nf = f + CH_DIRS[d][0], nr = r + CH_DIRS[d][1]; ch_on(nf, nr);
                     nf += CH_DIRS[d][0], nr += CH_DIRS[d][1]) {
                    int to = nr * 8 + nf;
                    if (b[to] && b[to] >> 3 == me) break;
                    out[n++] = s | to << 6;
                    if (b[to]) break;
                }
        }
    }
    return n;
}

/* The castling rights that survive a move from or to each square. */
static inline int ch_castle_keep(int s) {
    return s == 0 ? ~2 : s == 4 ? ~3 : s == 7 ? ~1 : s == 56 ? ~8 : s == 60 ? ~12 : s == 63 ? ~4 : ~0;
}

static void ch_make(Env* env, int m, ChUndo* u) {
    int from = m & 63, to = m >> 6 & 63, promo = m >> 12, *b = env->board;
    int v = b[from], t = v & 7, me = v >> 3;
    u->moved = v; u->castling = env->castling; u->ep = env->ep; u->halfmove = env->halfmove;
    u->cap_sq = t == CH_PAWN && to == env->ep && (to & 7) != (from & 7) ? to + (me == 0 ? -8 : 8) : to;
    u->captured = b[u->cap_sq];
    b[u->cap_sq] = 0;
    b[to] = promo ? promo | me << 3 : v;
    b[from] = 0;
    if (t == CH_KING) {
        env->king[me] = to;
        if (to == from + 2) { b[from + 1] = b[from + 3]; b[from + 3] = 0; }
        if (to == from - 2) { b[from - 1] = b[from - 4]; b[from - 4] = 0; }
    }
    env->castling &= ch_castle_keep(from) & ch_castle_keep(to);
    env->ep = t == CH_PAWN && (to - from == 16 || from - to == 16) ? (from + to) / 2 : -1;
    env->halfmove = t == CH_PAWN || u->captured ? 0 : env->halfmove + 1;
    env->to_move ^= 1;
}

static void ch_unmake(Env* env, int m, const ChUndo* u) {
    int from = m & 63, to = m >> 6 & 63, *b = env->board;
    env->to_move ^= 1;
    b[to] = 0;
    b[u->cap_sq] = u->captured;
    b[from] = u->moved;
    if ((u->moved & 7) == CH_KING) {
        env->king[u->moved >> 3] = from;
        if (to == from + 2) { b[from + 3] = b[from + 1]; b[from + 1] = 0; }
        if (to == from - 2) { b[from - 4] = b[from - 1]; b[from - 1] = 0; }
    }
    env->castling = u->castling; env->ep = u->ep; env->halfmove = u->halfmove;
}

/* The legal moves of the side to move into `out`; returns how many. */
static int ch_legal(Env* env, int* out) {
    int pseudo[CH_MAX_MOVES], n = ch_pseudo(env, pseudo), legal = 0, me = env->to_move;
    int king = env->king[me], check = ch_attacked(env, king, 1 - me);
    uint64_t pinned = 0;  /* own pieces between the king and the other's slider on one line */
    for (int d = 0; d < 8 && !check; d++) {
        int f = (king & 7) + CH_DIRS[d][0], r = (king >> 3) + CH_DIRS[d][1], own = -1;
        for (; ch_on(f, r); f += CH_DIRS[d][0], r += CH_DIRS[d][1]) {
            int v = env->board[r * 8 + f];
            if (!v) continue;
            if (v >> 3 == me) { if (own >= 0) break; own = r * 8 + f; continue; }
            if (own >= 0 && ((v & 7) == CH_QUEEN || (v & 7) == (d & 1 ? CH_BISHOP : CH_ROOK))) pinned |= 1ull << own;
            break;
        }
    }
    ChUndo u;
    for (int i = 0; i < n; i++) {
        int from = pseudo[i] & 63, to = pseudo[i] >> 6 & 63, t = env->board[from] & 7;
        /* not in check, not the king, not pinned, no en passant: the move exposes nothing */
        if (!check && t != CH_KING && !(pinned >> from & 1) && !(t == CH_PAWN && to == env->ep)) {
            out[legal++] = pseudo[i];
            continue;
        }
        ch_make(env, pseudo[i], &u);
        if (!ch_attacked(env, env->king[me], 1 - me)) out[legal++] = pseudo[i];
        ch_unmake(env, pseudo[i], &u);
    }
    return legal;
}

static inline int ch_in_check(const Env* env) { return ch_attacked(env, env->king[env->to_move], 1 - env->to_move); }

static inline uint64_t ch_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The position's key: pieces, side to move, castling rights, and the en passant file when a
 * pawn of the side to move stands next to take there. */
static uint64_t ch_hash(const Env* env) {
    uint64_t h = ch_mix(0x1234567ull + (uint64_t)env->castling) ^ (env->to_move ? 0x9E3779B97F4A7C15ull : 0);
    for (int s = 0; s < 64; s++)
        if (env->board[s]) h ^= ch_mix(((uint64_t)env->board[s] * 64 + (uint64_t)s + 1) * 0x2545F4914F6CDD1Dull);
    if (env->ep >= 0) {
        int from = env->ep + (env->to_move == 0 ? -8 : 8), f = env->ep & 7, pawn = CH_PAWN | env->to_move << 3;
        if ((f > 0 && env->board[from - 1] == pawn) || (f < 7 && env->board[from + 1] == pawn))
            h ^= ch_mix(0xABCDEF00ull + (uint64_t)f);
    }
    return h;
}

/* After a move, or when tests wrote the position through fields: kings, key, legal moves; the
 * history restarts when the position is not the one kept (a position written from outside). */
static void ch_refresh(Env* env, int moved) {
    for (int s = 0; s < 64; s++)
        if ((env->board[s] & 7) == CH_KING) env->king[env->board[s] >> 3] = s;
    env->hash = ch_hash(env);
    if (!moved || env->halfmove == 0 || env->n_hist >= CH_HIST) env->n_hist = 0;
    env->hist[env->n_hist++] = env->hash;
    env->n_moves = ch_legal(env, env->moves);
}

static int ch_repetitions(const Env* env) {
    int count = 0;
    for (int i = 0; i < env->n_hist; i++) count += env->hist[i] == env->hash;
    return count;
}

static int ch_insufficient(const Env* env) {
    int minors = 0, bishops[2] = {0, 0};
    for (int s = 0; s < 64; s++) {
        int t = env->board[s] & 7;
        if (t == CH_PAWN || t == CH_ROOK || t == CH_QUEEN) return 0;
        if (t == CH_KNIGHT || t == CH_BISHOP) minors++;
        if (t == CH_BISHOP) bishops[((s >> 3) + (s & 7)) & 1]++;
    }
    return minors <= 1 || (bishops[0] + bishops[1] == minors && (!bishops[0] || !bishops[1]));
}

/* The action of legal move m for `player` (own frame), and the move of an action. */
static int ch_action(int player, int m) {
    int from = ch_frame(player, m & 63), to = ch_frame(player, m >> 6 & 63), promo = m >> 12;
    if (promo && promo != CH_QUEEN) return 4096 + 24 * (promo - CH_KNIGHT) + 3 * (from & 7) + (to & 7) - (from & 7) + 1;
    return from * 64 + to;
}

static int ch_decode(const Env* env, int player, int a) {
    if (a >= 4096) {
        int u = a - 4096, file = u % 24 / 3, to_file = file + u % 3 - 1;
        if (to_file < 0 || to_file > 7) return -1;
        return ch_frame(player, 48 + file) | ch_frame(player, 56 + to_file) << 6 | (u / 24 + CH_KNIGHT) << 12;
    }
    int from = ch_frame(player, a / 64), to = ch_frame(player, a % 64);
    int last = (to >> 3) == (player == 0 ? 7 : 0);
    return from | to << 6 | ((env->board[from] & 7) == CH_PAWN && last ? CH_QUEEN << 12 : 0);
}

static void ch_observe(Env* env) {
    for (int k = 0; k < ch_rows(env); k++) {
        int me = ch_player_of(env, k);
        float* obs = (float*)env->p.observations + (size_t)k * CH_OBS;
        if (env->shown_in != env->p.observations || env->n_shown[k] < 0) memset(obs, 0, sizeof(float) * CH_ACTIONS);
        else for (int i = 0; i < env->n_shown[k]; i++) obs[env->shown[k][i]] = 0.0f;
        env->n_shown[k] = 0;
        if (env->to_move == me)
            for (int i = 0; i < env->n_moves; i++) obs[env->shown[k][env->n_shown[k]++] = ch_action(me, env->moves[i])] = 1.0f;
        float* planes = obs + CH_ACTIONS;
        memset(planes, 0, sizeof(float) * (CH_OBS - CH_ACTIONS));
        for (int s = 0; s < 64; s++) {
            int v = env->board[s];
            if (v) planes[64 * (6 * (v >> 3 != me) + (v & 7) - 1) + ch_frame(me, s)] = 1.0f;
        }
        float* x = planes + 12 * 64;
        int own = me == 0 ? env->castling : env->castling >> 2, other = me == 0 ? env->castling >> 2 : env->castling;
        x[0] = (float)(me == 0);
        x[1] = (float)(env->to_move == me);
        x[2] = (float)(own & 1); x[3] = (float)(own >> 1 & 1);
        x[4] = (float)(other & 1); x[5] = (float)(other >> 1 & 1);
        if (env->ep >= 0) x[6 + (env->ep & 7)] = 1.0f;
        x[14] = fminf((float)env->halfmove / 100.0f, 1.0f);
        x[15] = fminf((float)(ch_repetitions(env) - 1) / 2.0f, 1.0f);
        x[16] = fminf((float)env->ply / (float)env->max_plies, 1.0f);
    }
    env->shown_in = env->p.observations;
}

/* The built-in player's move for the side to move (it has at least one). */
static int ch_builtin(Env* env, int kind) {  /* kind: CH_SCRIPTED or 2, random */
    int *moves = env->moves, n = env->n_moves, me = env->to_move;
    if (kind != CH_SCRIPTED) return moves[rng_int(&env->p.rng, n)];
    int best = moves[0], best_score = -1, ties = 0, replies[CH_MAX_MOVES];
    ChUndo u;
    for (int i = 0; i < n; i++) {
        int m = moves[i], promo = m >> 12;
        ch_make(env, m, &u);
        int mate = ch_attacked(env, env->king[1 - me], me) && ch_legal(env, replies) == 0;
        ch_unmake(env, m, &u);
        if (mate) return m;
        int score = CH_VALUE[u.captured & 7] + (promo ? CH_VALUE[promo] - 1 : 0);
        if (score > best_score) { best_score = score; best = m; ties = 1; }
        else if (score == best_score && rng_int(&env->p.rng, ++ties) == 0) best = m;
    }
    return best;
}

static void ch_set_masks(Env* env) {
    for (int k = 0; k < ch_rows(env); k++) env->p.masks[k] = ch_rows(env) == 1 || k == env->to_move;
}

static int ch_play(Env* env, int player, int m);

static void c_reset(Env* env) {
    static const int BACK[8] = {CH_ROOK, CH_KNIGHT, CH_BISHOP, CH_QUEEN, CH_KING, CH_BISHOP, CH_KNIGHT, CH_ROOK};
    memset(env->board, 0, sizeof(env->board));
    for (int f = 0; f < 8; f++) {
        env->board[f] = BACK[f];
        env->board[8 + f] = CH_PAWN;
        env->board[48 + f] = CH_PAWN | 8;
        env->board[56 + f] = BACK[f] | 8;
    }
    env->to_move = 0;
    env->castling = 15;
    env->ep = -1;
    env->halfmove = env->ply = env->tick = 0;
    ch_refresh(env, 0);
    if (env->opponent != CH_NONE) {
        env->agent_player = rng_int(&env->p.rng, 2);
        if (env->agent_player == 1) ch_play(env, 0, ch_builtin(env, env->opponent));  /* an opening move never ends a game */
    }
    ch_observe(env);
    ch_set_masks(env);
}

/* End the game: `winner` 0, 1, or -1 for a draw. */
static void ch_end(Env* env, int winner, int illegal, int mate) {
    ch_observe(env);
    for (int k = 0; k < ch_rows(env); k++) {
        int me = ch_player_of(env, k);
        float reward = winner < 0 ? 0.0f : winner == me ? 1.0f : -1.0f;
        env->p.rewards[k] = reward;
        env->p.terminals[k] = 1;
        ocean_outcome(&env->p, k, winner < 0 ? OCEAN_DRAW : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = reward > 0, .episode_return = reward, .episode_length = env->tick,
                    .illegal = illegal && winner != me, .draw = winner < 0, .mate = mate);
    }
    c_reset(env);
}

/* `player` plays move m (actual frame); returns 1 when the game ended. */
static int ch_play(Env* env, int player, int m) {
    int legal = 0;
    for (int i = 0; i < env->n_moves && !legal; i++) legal = env->moves[i] == m;
    if (!legal) { ch_end(env, 1 - player, 1, 0); return 1; }
    ChUndo u;
    ch_make(env, m, &u);
    env->ply++;
    ch_refresh(env, 1);
    if (!env->n_moves) {
        int mate = ch_in_check(env);
        ch_end(env, mate ? player : -1, 0, mate);
        return 1;
    }
    if (ch_insufficient(env) || env->halfmove >= 100 || ch_repetitions(env) >= 3 || env->ply >= env->max_plies) {
        ch_end(env, -1, 0, 0);
        return 1;
    }
    return 0;
}

static void c_step(Env* env) {
    int rows = ch_rows(env), player = env->to_move;
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    if (ch_hash(env) != env->hash) ch_refresh(env, 0);  /* a position written through fields */
    int builtin = rows == 2 ? ocean_player(&env->p, player) : 0;  /* a built-in player in this seat */
    int m = builtin ? ch_builtin(env, builtin) : ch_decode(env, player, env->p.actions[rows == 2 ? player : 0]);
    if (ch_play(env, player, m)) return;
    if (rows == 1 && ch_play(env, env->to_move, ch_builtin(env, env->opponent))) return;
    ch_observe(env);
    ch_set_masks(env);
}

static inline char ch_char(int v) { return v ? "?PNBRQK?"[v & 7] + (v >> 3 ? 'a' - 'A' : 0) : '.'; }

/* The board with white at the bottom: upper case white, lower case black, '.' empty. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 7; r >= 0; r--) {
        ANSI_APPEND(buf, cap, len, "%d ", r + 1);
        for (int f = 0; f < 8; f++) ANSI_APPEND(buf, cap, len, "%c", ch_char(env->board[r * 8 + f]));
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "  abcdefgh  %s to move\n", env->to_move ? "black" : "white");
    return len;
}

/* 5 x 5 letters P N B R Q K, a row of 5 bits per row (bit 4 the left). */
static const uint8_t CH_GLYPH[7][5] = {
    {0}, {30, 17, 30, 16, 16}, {17, 25, 21, 19, 17}, {30, 17, 30, 17, 30}, {30, 17, 30, 20, 19},
    {14, 17, 21, 18, 13}, {18, 20, 24, 20, 18},
};

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int r = 0; r < 8; r++)
        for (int f = 0; f < 8; f++) {
            int x = 32 * f, y = 32 * (7 - r), v = env->board[r * 8 + f];
            if ((r + f) % 2) draw_rect(px, w, h, x, y, 32, 32, 60, 80, 80);
            else draw_rect(px, w, h, x, y, 32, 32, 20, 40, 40);
            if (!v) continue;
            int black = v >> 3;
            uint8_t bg = black ? 10 : 235, fg = black ? 235 : 10;
            draw_rect(px, w, h, x + 3, y + 3, 26, 26, bg, bg, black ? bg : 200);
            for (int gy = 0; gy < 5; gy++)
                for (int gx = 0; gx < 5; gx++)
                    if (CH_GLYPH[v & 7][gy] >> (4 - gx) & 1) draw_rect(px, w, h, x + 6 + 4 * gx, y + 6 + 4 * gy, 4, 4, fg, fg, fg);
        }
}
