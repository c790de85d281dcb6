/* connect4: four in a row, for two seats or against a built-in opponent.
 *
 * A 6 x 7 board held as bitboards. `opponent` (pufferlib's names: 0 "none", 1 "scripted",
 * the default, 2 "random"): with "none" both players are agents, a game of two rows (seat 0
 * moves first), and the seat that waits is masked (its action is ignored); otherwise one
 * agent row plays a random side against the built-in player: "scripted" wins when it can,
 * blocks the agent's immediate wins, and otherwise plays a random legal column; "random"
 * plays a random legal column. With "none", either seat may be played by a built-in player
 * instead (the `players` input: self-play's anchors). Actions: the column (0-6). Rewards at the game's end: +1
 * for a win, -1 for a loss or for playing a full column (which ends the game, won by the
 * other side), 0 for a draw; outcomes (pufferlib's game contract) 1, 0.5, 0. Observation:
 * 42 floats, row-major from the top row, +1 for the row's own pieces and -1 for the other's.
 */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(illegal)
#define PARAMS(P) P(int, opponent, 1, 0, 2)
#include "../puffer.h"

#define C4_ROWS 6
#define C4_COLS 7
#define C4_NONE 0
#define C4_SCRIPTED 1

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    uint64_t board[2];        /* the stones of player 0 (who moves first) and player 1 */
    int heights[C4_COLS];
    int to_move;              /* the player to move */
    int agent_player;         /* against a built-in opponent: the agent's player */
    int tick;
} Env;

static inline int c4_rows(Env* env) { return env->opponent == C4_NONE ? 2 : 1; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, c4_rows(env));
    ocean_obs_flat(s, C4_ROWS * C4_COLS, -1, 1);
    ocean_act_discrete(s, C4_COLS);
    ocean_render_size(s, 64 * C4_COLS, 64 * C4_ROWS);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static int c4_won(uint64_t b) {
    uint64_t m;
    m = b & (b >> 7); if (m & (m >> 14)) return 1;   /* horizontal */
    m = b & (b >> 6); if (m & (m >> 12)) return 1;   /* diagonal \ */
    m = b & (b >> 8); if (m & (m >> 16)) return 1;   /* diagonal / */
    m = b & (b >> 1); if (m & (m >> 2)) return 1;    /* vertical */
    return 0;
}

static inline uint64_t c4_bit(Env* env, int col) { return 1ull << (col * 7 + env->heights[col]); }

/* The player whose view agent row k sees. */
static inline int c4_player_of(Env* env, int k) { return env->opponent == C4_NONE ? k : env->agent_player; }

/* Drop `player`'s piece in `col` and show it in every row's observation. */
static void c4_drop(Env* env, int player, int col) {
    env->board[player] |= c4_bit(env, col);
    env->heights[col]++;
    int cell = (C4_ROWS - env->heights[col]) * C4_COLS + col;
    for (int k = 0; k < c4_rows(env); k++)
        ((float*)env->p.observations)[k * C4_ROWS * C4_COLS + cell] = c4_player_of(env, k) == player ? 1.0f : -1.0f;
}

static int c4_full(Env* env) {
    for (int c = 0; c < C4_COLS; c++) if (env->heights[c] < C4_ROWS) return 0;
    return 1;
}

/* The built-in player's column for `player`. */
static int c4_builtin(Env* env, int player, int kind) {
    int legal[C4_COLS], n = 0, pick = -1;
    for (int c = 0; c < C4_COLS; c++) {
        if (env->heights[c] == C4_ROWS) continue;
        legal[n++] = c;
        if (kind == C4_SCRIPTED && pick < 0 && c4_won(env->board[player] | c4_bit(env, c))) pick = c;
    }
    for (int i = 0; kind == C4_SCRIPTED && pick < 0 && i < n; i++)
        if (c4_won(env->board[1 - player] | c4_bit(env, legal[i]))) pick = legal[i];
    return pick >= 0 ? pick : legal[rng_int(&env->p.rng, n)];
}

static void c4_set_masks(Env* env) {
    for (int k = 0; k < c4_rows(env); k++) env->p.masks[k] = c4_rows(env) == 1 || k == env->to_move;
}

static void c_reset(Env* env) {
    env->board[0] = env->board[1] = 0;
    memset(env->heights, 0, sizeof(env->heights));
    memset(env->p.observations, 0, sizeof(float) * C4_ROWS * C4_COLS * c4_rows(env));
    env->tick = 0;
    env->to_move = 0;
    if (env->opponent != C4_NONE) {
        env->agent_player = rng_int(&env->p.rng, 2);
        if (env->agent_player == 1) {
            c4_drop(env, 0, c4_builtin(env, 0, env->opponent));
            env->to_move = 1;
        }
    }
    c4_set_masks(env);
}

/* End the game: `winner` is the player who won, or -1 for a draw. */
static void c4_end(Env* env, int winner, int illegal) {
    for (int k = 0; k < c4_rows(env); k++) {
        int player = c4_player_of(env, k);
        float reward = winner < 0 ? 0.0f : winner == player ? 1.0f : -1.0f;
        env->p.rewards[k] = reward;
        env->p.terminals[k] = 1;
        ocean_outcome(&env->p, k, winner < 0 ? OCEAN_DRAW : winner == player ? OCEAN_WIN : OCEAN_LOSS);
        LOG_EPISODE(&env->log, .score = reward > 0, .episode_return = reward, .episode_length = env->tick,
                    .illegal = illegal && winner != player);
    }
    c_reset(env);
}

/* Play `player`'s move in `col`; returns 1 when it ended the game. */
static int c4_play(Env* env, int player, int col) {
    if (env->heights[col] == C4_ROWS) { c4_end(env, 1 - player, 1); return 1; }
    c4_drop(env, player, col);
    if (c4_won(env->board[player])) { c4_end(env, player, 0); return 1; }
    if (c4_full(env)) { c4_end(env, -1, 0); return 1; }
    env->to_move = 1 - player;
    return 0;
}

static void c_step(Env* env) {
    int rows = c4_rows(env), player = env->to_move;
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    int builtin = rows == 2 ? ocean_player(&env->p, player) : 0;  /* a built-in player in this seat */
    int col = builtin ? c4_builtin(env, player, builtin) : env->p.actions[rows == 2 ? player : 0];
    if (c4_play(env, player, col)) return;
    if (rows == 1 && c4_play(env, env->to_move, c4_builtin(env, env->to_move, env->opponent))) return;
    c4_set_masks(env);
}

static char c4_cell(Env* env, int row, int col) {
    uint64_t bit = 1ull << (col * 7 + (C4_ROWS - 1 - row));
    return env->board[0] & bit ? 'X' : env->board[1] & bit ? 'O' : '.';
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 0; r < C4_ROWS; r++) {
        for (int c = 0; c < C4_COLS; c++) ANSI_APPEND(buf, cap, len, "%c", c4_cell(env, r, c));
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "0123456\n");
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, 30, 50, 140);
    for (int r = 0; r < C4_ROWS; r++)
        for (int c = 0; c < C4_COLS; c++) {
            char cell = c4_cell(env, r, c);
            const uint8_t* col = PUFFER_PALETTE[cell == 'X' ? 3 : cell == 'O' ? 2 : 0];
            draw_rect(px, w, h, 64 * c + 8, 64 * r + 8, 48, 48, col[0], col[1], col[2]);
        }
}
