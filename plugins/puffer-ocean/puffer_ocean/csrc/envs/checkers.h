/* checkers: English draughts on the 32 dark squares of an 8 x 8 board, for two seats or against a built-in player.
 *
 * Player 0 (who moves first) starts with 12 men on the three bottom rows, player 1 with 12 on
 * the three top rows. A man moves one square diagonally forward, a king one square diagonally
 * either way. A capture jumps an adjacent piece of the other player onto the empty square just
 * beyond and removes it; captures are mandatory. A jump that can be followed by another jump of
 * the same piece must be: the multi-jump is played as consecutive steps of the same seat (the
 * seat keeps the move, and only that piece's jumps are legal). A man that reaches the far row
 * becomes a king and its move ends there. (Captured pieces are removed at once: without flying
 * kings this never changes which jumps are possible.) A player with no legal move on its turn
 * (no piece, or every piece blocked) loses. The game is a draw after `draw_moves` moves of each
 * player (2 draw_moves turns) with no capture and no promotion; it is truncated, with no result,
 * after `max_steps` steps.
 *
 * Each seat sees the board and acts in its own frame: its men move up (player 1's frame is the
 * board turned half a turn: square s is 31 - s, direction d is 3 - d). Squares: s = 4 r + c / 2
 * for row r (0 top) and column c. Actions (Discrete 128): s * 4 + d, d 0 up-left, 1 up-right,
 * 2 down-left, 3 down-right; the move is a step to the adjacent square or, when that square
 * holds the other's piece, the jump over it. An illegal action (as in hex) loses the game.
 * Observation (418 floats, own frame): the legal actions (128; all 0 for the seat that waits),
 * which Python presents as the "action_mask" entry of a Dict observation (puffer_ocean.envs.
 * Checkers), so the trainer samples legal moves only; then, as "observation": own men, own kings,
 * the other's men, the other's kings (32 each); the legal actions that leave the moved piece where
 * the other can jump it at once (128); own pieces the other could jump now (32); the quiet turns
 * so far / (2 draw_moves); and 1 when it is this row's move.
 *
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none"
 * both players are agents (a game of two rows, the waiting seat masked); otherwise the agent
 * plays a side drawn per game against the built-in player: "scripted" (captures being forced)
 * prefers a jump that goes on, then a promotion, and avoids moves that leave the moved piece
 * where it can be jumped at once, at random among equals;
 * "random" plays a random legal move. Rewards at the end: +1 win, -1 loss, 0 draw; outcomes
 * 1 / 0 / 0.5 (NaN when truncated). score: games won.
 */
#define OCEAN_WRITES_FINAL 1  /* chk_end keeps every ended game's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(illegal) X(draw)
#define PARAMS(P) P(int, opponent, 1, 0, 2) P(int, draw_moves, 50, 1, 1000) P(int, max_steps, 1000, 1, 10000000)
#define FIELDS(F) \
    F(int, sq[0]) F(int, sq[1]) F(int, sq[2]) F(int, sq[3]) F(int, sq[4]) F(int, sq[5]) F(int, sq[6]) F(int, sq[7]) \
    F(int, sq[8]) F(int, sq[9]) F(int, sq[10]) F(int, sq[11]) F(int, sq[12]) F(int, sq[13]) F(int, sq[14]) \
    F(int, sq[15]) F(int, sq[16]) F(int, sq[17]) F(int, sq[18]) F(int, sq[19]) F(int, sq[20]) F(int, sq[21]) \
    F(int, sq[22]) F(int, sq[23]) F(int, sq[24]) F(int, sq[25]) F(int, sq[26]) F(int, sq[27]) F(int, sq[28]) \
    F(int, sq[29]) F(int, sq[30]) F(int, sq[31]) \
    F(int, to_move) F(int, jumper) F(int, quiet) F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define CHK_NONE 0
#define CHK_SCRIPTED 1
#define CHK_OBS 418
#define CHK_ACTIONS 128

/* A square's content: 0 empty, 1 a man of player 0, 2 a king of player 0, 3 a man of player 1,
 * 4 a king of player 1. Board and moves are held in the actual frame (player 0's). */
typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int sq[32];
    int to_move;       /* the player to move */
    int jumper;        /* the square of the piece that must jump on (-1: none) */
    int quiet;         /* turns since the last capture or promotion */
    int agent_player;  /* against a built-in player: the agent's player */
    int tick;
    int moves[CHK_ACTIONS];  /* the legal moves of `to_move` (actual frame), kept by chk_refresh
                              * after every change of the position and at each step's start */
    int n_moves;
} Env;

static inline int chk_rows(Env* env) { return env->opponent == CHK_NONE ? 2 : 1; }
static inline int chk_player_of(Env* env, int k) { return env->opponent == CHK_NONE ? k : env->agent_player; }
static inline int chk_owner(int v) { return v == 0 ? -1 : (v - 1) / 2; }
static inline int chk_king(int v) { return v == 2 || v == 4; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, chk_rows(env));
    s->legal_actions = 1;  /* the observation starts with the legal actions */
    ocean_obs_flat(s, CHK_OBS, 0, 1);
    ocean_act_discrete(s, CHK_ACTIONS);
    ocean_render_size(s, 8 * 32, 8 * 32);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* The square diagonally next to square s (row r = s / 4, column 2 (s % 4) + (r even)) in
 * direction d (0 up-left, 1 up-right, 2 down-left, 3 down-right), or -1 off the board; a table,
 * as move generation is most of the step's time. */
static const int8_t CHK_NEXT[32][4] = {
    {-1, -1,  4,  5}, {-1, -1,  5,  6}, {-1, -1,  6,  7}, {-1, -1,  7, -1}, {-1,  0, -1,  8}, { 0,  1,  8,  9},
    { 1,  2,  9, 10}, { 2,  3, 10, 11}, { 4,  5, 12, 13}, { 5,  6, 13, 14}, { 6,  7, 14, 15}, { 7, -1, 15, -1},
    {-1,  8, -1, 16}, { 8,  9, 16, 17}, { 9, 10, 17, 18}, {10, 11, 18, 19}, {12, 13, 20, 21}, {13, 14, 21, 22},
    {14, 15, 22, 23}, {15, -1, 23, -1}, {-1, 16, -1, 24}, {16, 17, 24, 25}, {17, 18, 25, 26}, {18, 19, 26, 27},
    {20, 21, 28, 29}, {21, 22, 29, 30}, {22, 23, 30, 31}, {23, -1, 31, -1}, {-1, 24, -1, -1}, {24, 25, -1, -1},
    {25, 26, -1, -1}, {26, 27, -1, -1},
};
static inline int chk_next(int s, int d) { return s < 0 ? -1 : CHK_NEXT[s][d]; }

/* Whether the piece on `s` may go in direction d (men only forward: player 0 up, player 1 down). */
static inline int chk_dir_ok(int v, int d) { return chk_king(v) || (chk_owner(v) == 0) == (d < 2); }

static inline int chk_can_jump(Env* env, int s, int d) {
    int v = env->sq[s], over = chk_next(s, d), to = chk_next(over, d);
    return chk_dir_ok(v, d) && to >= 0 && env->sq[to] == 0 && chk_owner(env->sq[over]) == 1 - chk_owner(v);
}

/* `player`'s legal moves (s * 4 + d, actual frame) into `moves`; returns how many. Jumps when
 * there is one (only the jumper's in a multi-jump), otherwise steps. One pass over the board:
 * steps are collected after the jumps' room and moved down when no jump turns up. */
static int chk_moves(Env* env, int player, int* moves) {
    int n = 0, steps = 0, step[CHK_ACTIONS];
    int first = env->jumper >= 0 ? env->jumper : 0, last = env->jumper >= 0 ? env->jumper : 31;
    for (int s = first; s <= last; s++) {
        int v = env->sq[s];
        if (chk_owner(v) != player) continue;
        for (int d = 0; d < 4; d++) {
            int to = CHK_NEXT[s][d];
            if (to < 0 || !chk_dir_ok(v, d)) continue;
            if (env->sq[to] == 0) step[steps++] = 4 * s + d;
            else if (chk_owner(env->sq[to]) == 1 - player && CHK_NEXT[to][d] >= 0 && env->sq[CHK_NEXT[to][d]] == 0)
                moves[n++] = 4 * s + d;
        }
    }
    if (n || env->jumper >= 0) return n;
    memcpy(moves, step, sizeof(int) * steps);
    return steps;
}

/* Keep the legal moves of the player to move (after every change of the position). */
static inline void chk_refresh(Env* env) { env->n_moves = chk_moves(env, env->to_move, env->moves); }

/* Whether the piece on `s` can be jumped by an adjacent piece of the other player. */
static int chk_attacked(Env* env, int s) {
    for (int d = 0; d < 4; d++) {
        int from = chk_next(s, d);
        if (from >= 0 && chk_owner(env->sq[from]) == 1 - chk_owner(env->sq[s]) && chk_can_jump(env, from, 3 - d))
            return 1;
    }
    return 0;
}

/* Play `player`'s legal move m; returns 1 when the turn goes on (a further jump is due). */
static int chk_apply(Env* env, int player, int m) {
    int s = m / 4, d = m % 4, to = chk_next(s, d), v = env->sq[s];
    if (to < 0) return 0;  /* never for a legal move */
    int jump = env->sq[to] != 0;
    if (jump) { env->sq[to] = 0; to = chk_next(to, d); }
    env->sq[s] = 0;
    int promoted = !chk_king(v) && to / 4 == (player == 0 ? 0 : 7);
    env->sq[to] = promoted ? v + 1 : v;
    if (jump && !promoted) {
        for (int dd = 0; dd < 4; dd++)
            if (chk_can_jump(env, to, dd)) { env->jumper = to; return 1; }
    }
    env->jumper = -1;
    env->quiet = jump || promoted ? 0 : env->quiet + 1;
    env->to_move = 1 - player;
    return 0;
}

/* An own-frame square or direction of `player` in the actual frame, and back (an involution). */
static inline int chk_frame_sq(int player, int s) { return player == 0 ? s : 31 - s; }
static inline int chk_frame_dir(int player, int d) { return player == 0 ? d : 3 - d; }

/* Try `player`'s legal move m and take it back: whether it promotes, whether the turn goes on,
 * and whether it leaves the moved piece where the other can jump it at once (returned). */
static int chk_probe(Env* env, int player, int m, int* promoted, int* goes_on) {
    int to_move = env->to_move, jumper = env->jumper, quiet = env->quiet;
    int s = m / 4, d = m % 4, over = chk_next(s, d), to = over;
    *promoted = *goes_on = 0;
    if (to < 0) return 0;  /* never for a legal move */
    if (env->sq[over]) to = chk_next(over, d);
    else over = s;  /* a step: only s and to change */
    int was_s = env->sq[s], was_over = env->sq[over], was_to = env->sq[to];  /* all chk_apply touches */
    *goes_on = chk_apply(env, player, m);
    *promoted = !chk_king(was_s) && chk_king(env->sq[to]);
    int hanging = !*goes_on && chk_attacked(env, to);
    env->sq[to] = was_to; env->sq[over] = was_over; env->sq[s] = was_s;
    env->to_move = to_move; env->jumper = jumper; env->quiet = quiet;
    return hanging;
}

static void chk_observe(Env* env) {
    int *moves = env->moves, n = env->n_moves, hanging[CHK_ACTIONS], promoted, goes_on;
    for (int i = 0; i < n; i++) hanging[i] = chk_probe(env, env->to_move, moves[i], &promoted, &goes_on);
    for (int k = 0; k < chk_rows(env); k++) {
        int me = chk_player_of(env, k);
        float* obs = (float*)env->p.observations + k * CHK_OBS;
        memset(obs, 0, sizeof(float) * CHK_OBS);
        for (int s = 0; s < 32; s++) {
            int a = chk_frame_sq(me, s), v = env->sq[a];
            if (!v) continue;
            obs[CHK_ACTIONS + 32 * ((chk_owner(v) != me) * 2 + chk_king(v)) + s] = 1.0f;
            if (chk_owner(v) == me) obs[384 + s] = (float)chk_attacked(env, a);
        }
        if (env->to_move == me) {
            for (int i = 0; i < n; i++) {
                int a = 4 * chk_frame_sq(me, moves[i] / 4) + chk_frame_dir(me, moves[i] % 4);
                obs[a] = 1.0f;
                obs[256 + a] = (float)hanging[i];
            }
            obs[417] = 1.0f;
        }
        obs[416] = (float)env->quiet / (float)(2 * env->draw_moves);
    }
}

/* The built-in player's move for `player` (actual frame); it has at least one. */
static int chk_builtin(Env* env, int kind) {  /* kind: CHK_SCRIPTED or 2, random */
    int *moves = env->moves, n = env->n_moves, player = env->to_move;
    if (kind != CHK_SCRIPTED) return moves[rng_int(&env->p.rng, n)];
    int best = 0, best_score = -1000, ties = 0, promoted, goes_on;
    for (int i = 0; i < n; i++) {  /* captures are mandatory: all of the moves capture or none */
        int hanging = chk_probe(env, player, moves[i], &promoted, &goes_on);
        int score = 2 * goes_on + 2 * promoted - 3 * hanging;
        if (score > best_score) { best_score = score; best = moves[i]; ties = 1; }
        else if (score == best_score && rng_int(&env->p.rng, ++ties) == 0) best = moves[i];
    }
    return best;
}

static void chk_set_masks(Env* env) {
    for (int k = 0; k < chk_rows(env); k++) env->p.masks[k] = chk_rows(env) == 1 || k == env->to_move;
}

static int chk_play(Env* env, int player, int m);

static void c_reset(Env* env) {
    for (int s = 0; s < 32; s++) env->sq[s] = s < 12 ? 3 : s >= 20 ? 1 : 0;
    env->to_move = 0;
    env->jumper = -1;
    env->quiet = 0;
    env->tick = 0;
    chk_refresh(env);
    if (env->opponent != CHK_NONE) {
        env->agent_player = rng_int(&env->p.rng, 2);
        if (env->agent_player == 1) chk_play(env, 0, chk_builtin(env, env->opponent));  /* an opening never ends a game */
    }
    chk_observe(env);
    chk_set_masks(env);
}

/* End the game: `winner` 0, 1, or -1 for a draw (or no result when truncated). After an illegal
 * move the position is the one the rows last observed, so their observations stand as the final. */
static void chk_end(Env* env, int winner, int illegal, int truncated) {
    if (!illegal) chk_observe(env);
    for (int k = 0; k < chk_rows(env); k++) {
        int me = chk_player_of(env, k);
        float reward = truncated || winner < 0 ? 0.0f : winner == me ? 1.0f : -1.0f;
        env->p.rewards[k] = reward;
        env->p.terminals[k] = !truncated;
        env->p.truncations[k] = (uint8_t)truncated;
        ocean_outcome(&env->p, k, truncated ? NAN : winner < 0 ? OCEAN_DRAW : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = reward > 0, .episode_return = reward, .episode_length = env->tick,
                    .illegal = illegal && winner != me, .draw = !truncated && winner < 0);
    }
    c_reset(env);
}

/* `player` plays move m (actual frame); returns 1 when the game ended. */
static int chk_play(Env* env, int player, int m) {
    int legal = 0;
    for (int i = 0; i < env->n_moves; i++) legal |= env->moves[i] == m;
    if (!legal) { chk_end(env, 1 - player, 1, 0); return 1; }
    int goes_on = chk_apply(env, player, m);
    chk_refresh(env);
    if (goes_on) return 0;
    if (!env->n_moves) { chk_end(env, player, 0, 0); return 1; }
    if (env->quiet >= 2 * env->draw_moves) { chk_end(env, -1, 0, 0); return 1; }
    return 0;
}

static void c_step(Env* env) {
    int rows = chk_rows(env), player = env->to_move;
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    chk_refresh(env);  /* here too: tests write the board through fields between steps */
    int a = env->p.actions[rows == 2 ? player : 0], builtin = rows == 2 ? ocean_player(&env->p, player) : 0;
    int m = builtin ? chk_builtin(env, builtin) : 4 * chk_frame_sq(player, a / 4) + chk_frame_dir(player, a % 4);
    if (chk_play(env, player, m)) return;
    while (rows == 1 && env->to_move != env->agent_player)
        if (chk_play(env, env->to_move, chk_builtin(env, env->opponent))) return;
    if (env->tick >= env->max_steps) { chk_end(env, -1, 0, 1); return; }
    chk_observe(env);
    chk_set_masks(env);
}

static inline char chk_char(int v) { return v >= 0 && v <= 4 ? " xXoO"[v] : '?'; }

/* The board in the actual frame (player 0 at the bottom): 'x' / 'X' player 0's men / kings,
 * 'o' / 'O' player 1's, '.' an empty dark square, ' ' a light one. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 0; r < 8; r++) {
        for (int c = 0; c < 8; c++) {
            int v = env->sq[4 * r + c / 2];
            ANSI_APPEND(buf, cap, len, "%c", (r + c) % 2 == 0 ? ' ' : v ? chk_char(v) : '.');
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            if ((r + c) % 2 == 0) { draw_rect(px, w, h, 32 * c, 32 * r, 32, 32, 60, 80, 80); continue; }
            int v = env->sq[4 * r + c / 2];
            if (!v) continue;
            if (chk_owner(v) == 0) draw_rect(px, w, h, 32 * c + 4, 32 * r + 4, 24, 24, PUFFER_RED);
            else draw_rect(px, w, h, 32 * c + 4, 32 * r + 4, 24, 24, PUFFER_CYAN);
            if (chk_king(v)) draw_rect(px, w, h, 32 * c + 11, 32 * r + 11, 10, 10, PUFFER_YELLOW);
        }
}
