/* tron: two light cycles on a walled grid; each leaves a wall behind it, the first to crash loses.
 *
 * A size x size arena inside a wall. Player 0 starts on the left half heading right, player 1
 * on the right half heading left, in the middle row. Both move one cell every step at the same
 * time (a simultaneous game: no seat waits). Actions, relative to the heading: 0 straight,
 * 1 turn left, 2 turn right. A cycle crashes when it enters a wall, a trail (its own or the
 * other's) or the cell the other enters the same step; if both crash in the same step the game
 * is a draw. Rewards at the end: +1 win, -1 loss, 0 draw; outcomes 1 / 0 / 0.5. Observation
 * (3 size^2 + 8 floats, the row's own view): cells taken (walls are outside the arena), the
 * row's head, the other head, then each head's heading one-hot (own first). `opponent`
 * (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none" both
 * cycles are agents (a game of two rows); otherwise the agent rides a side drawn per game
 * against the built-in rider: "scripted" goes straight unless that crashes, then turns to the
 * side with more free cells ahead; "random" picks a random move that does not crash at once
 * (straight when none). With "none", either rider may be played by a built-in rider instead
 * (the `players` input: self-play's anchors). A game is truncated after `max_steps` steps.
 * score: games won.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either rider may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define TRON_MAX 32
#define PARAMS(P) P(int, size, 12, 5, TRON_MAX) P(int, opponent, 1, 0, 2) P(int, max_steps, 2000, 1, 10000000)
#define FIELDS(F) F(int, x[0]) F(int, y[0]) F(int, x[1]) F(int, y[1]) F(int, dir[0]) F(int, dir[1]) \
    F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define TRON_NONE 0
#define TRON_SCRIPTED 1

static const int TRON_DX[4] = {1, 0, -1, 0}, TRON_DY[4] = {0, 1, 0, -1};  /* right, down, left, up */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    uint8_t taken[TRON_MAX * TRON_MAX];
    int x[2], y[2], dir[2];
    int agent_player, tick;
} Env;

static inline int tron_rows(Env* env) { return env->opponent == TRON_NONE ? 2 : 1; }
static inline int tron_player_of(Env* env, int k) { return env->opponent == TRON_NONE ? k : env->agent_player; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, tron_rows(env));
    ocean_obs_flat(s, 3 * env->size * env->size + 8, 0, 1);
    ocean_act_discrete(s, 3);
    ocean_render_size(s, 16 * env->size, 16 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int tron_free(Env* env, int x, int y) {
    return x >= 0 && y >= 0 && x < env->size && y < env->size && !env->taken[y * env->size + x];
}

/* The heading after relative action `a` (0 straight, 1 left, 2 right) from heading `d`. */
static inline int tron_turn(int d, int a) { return a == 1 ? (d + 3) % 4 : a == 2 ? (d + 1) % 4 : d; }

static void tron_observe(Env* env) {
    int n2 = env->size * env->size;
    for (int k = 0; k < tron_rows(env); k++) {
        int me = tron_player_of(env, k), other = 1 - me;
        float* obs = (float*)env->p.observations + k * (3 * n2 + 8);
        memset(obs, 0, sizeof(float) * (3 * n2 + 8));
        for (int i = 0; i < n2; i++) obs[i] = (float)env->taken[i];
        obs[n2 + env->y[me] * env->size + env->x[me]] = 1.0f;
        obs[2 * n2 + env->y[other] * env->size + env->x[other]] = 1.0f;
        obs[3 * n2 + env->dir[me]] = 1.0f;
        obs[3 * n2 + 4 + env->dir[other]] = 1.0f;
    }
}

/* Free cells in a straight line ahead of (x, y) heading `d` (the scripted rider's look-ahead). */
static int tron_room(Env* env, int x, int y, int d) {
    int count = 0;
    for (x += TRON_DX[d], y += TRON_DY[d]; tron_free(env, x, y); x += TRON_DX[d], y += TRON_DY[d]) count++;
    return count;
}

/* The move of built-in rider `kind` (TRON_SCRIPTED or 2, random) for `player`. */
static int tron_builtin(Env* env, int player, int kind) {
    int safe[3], n = 0, best = 0, best_room = -1;
    for (int a = 0; a < 3; a++) {
        int d = tron_turn(env->dir[player], a);
        int x = env->x[player] + TRON_DX[d], y = env->y[player] + TRON_DY[d];
        if (!tron_free(env, x, y)) continue;
        safe[n++] = a;
        int room = tron_room(env, x, y, d);
        if (a == 0) room += 1000;  /* straight while it is safe */
        if (room > best_room) { best_room = room; best = a; }
    }
    if (!n) return 0;
    return kind == TRON_SCRIPTED ? best : safe[rng_int(&env->p.rng, n)];
}

static void c_reset(Env* env) {
    int n = env->size;
    memset(env->taken, 0, sizeof(env->taken));
    env->x[0] = n / 4; env->x[1] = n - 1 - n / 4;
    env->y[0] = env->y[1] = n / 2;
    env->dir[0] = 0; env->dir[1] = 2;
    for (int p = 0; p < 2; p++) env->taken[env->y[p] * n + env->x[p]] = 1;
    env->tick = 0;
    if (env->opponent != TRON_NONE) env->agent_player = rng_int(&env->p.rng, 2);
    tron_observe(env);
}

static void tron_end(Env* env, int winner, int truncated) {  /* winner: 0, 1 or -1 (a draw) */
    for (int k = 0; k < tron_rows(env); k++) {
        int me = tron_player_of(env, k);
        float reward = winner < 0 ? 0.0f : winner == me ? 1.0f : -1.0f;
        env->p.rewards[k] = truncated ? 0.0f : reward;
        env->p.terminals[k] = !truncated;
        env->p.truncations[k] = (uint8_t)truncated;
        ocean_outcome(&env->p, k, truncated ? NAN : winner < 0 ? OCEAN_DRAW : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = !truncated && winner == me, .episode_return = env->p.rewards[k],
                    .episode_length = env->tick);
    }
    c_reset(env);
}

static void c_step(Env* env) {
    int rows = tron_rows(env), n = env->size, moves[2];
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    for (int p = 0; p < 2; p++) {
        int k = rows == 2 ? p : (p == env->agent_player ? 0 : -1);
        int builtin = k >= 0 ? ocean_player(&env->p, k) : env->opponent;  /* 0: the row's agent */
        moves[p] = builtin ? tron_builtin(env, p, builtin) : env->p.actions[k];
    }
    int crashed[2];
    for (int p = 0; p < 2; p++) {
        env->dir[p] = tron_turn(env->dir[p], moves[p]);
        env->x[p] += TRON_DX[env->dir[p]];
        env->y[p] += TRON_DY[env->dir[p]];
        crashed[p] = !tron_free(env, env->x[p], env->y[p]);
    }
    if (env->x[0] == env->x[1] && env->y[0] == env->y[1]) crashed[0] = crashed[1] = 1;
    for (int p = 0; p < 2; p++) if (!crashed[p]) env->taken[env->y[p] * n + env->x[p]] = 1;
    if (crashed[0] || crashed[1]) {
        for (int p = 0; p < 2; p++) {  /* keep the heads in the arena for the final view */
            env->x[p] = env->x[p] < 0 ? 0 : env->x[p] >= n ? n - 1 : env->x[p];
            env->y[p] = env->y[p] < 0 ? 0 : env->y[p] >= n ? n - 1 : env->y[p];
        }
        tron_observe(env);
        tron_end(env, crashed[0] && crashed[1] ? -1 : crashed[0] ? 1 : 0, 0);
        return;
    }
    tron_observe(env);
    if (env->tick >= env->max_steps) tron_end(env, -1, 1);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->size;
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            char c = env->taken[y * n + x] ? '#' : '.';
            if (x == env->x[0] && y == env->y[0]) c = 'A';
            if (x == env->x[1] && y == env->y[1]) c = 'B';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->size;
    uint8_t cells[TRON_MAX * TRON_MAX];
    for (int i = 0; i < n * n; i++) cells[i] = env->taken[i] ? 6 : 0;
    cells[env->y[0] * n + env->x[0]] = 1;
    cells[env->y[1] * n + env->x[1]] = 5;
    draw_tiles(px, w, h, cells, n, n, 16);
}
