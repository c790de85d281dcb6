/* connect4: four in a row against a scripted opponent.
 *
 * A 6 x 7 board held as bitboards. The opponent wins when it can, blocks the agent's
 * immediate wins, and otherwise plays a random legal column; who starts is random.
 * Actions: the column (0-6). Reward +1 for a win, -1 for a loss or for playing a full
 * column (which ends the episode), 0 for a draw. Observation: 42 floats, row-major from
 * the top row, +1 for the agent's pieces and -1 for the opponent's.
 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(illegal)
#include "../puffer.h"

#define C4_ROWS 6
#define C4_COLS 7

typedef struct {
    Puffer p;
    Log log;
    uint64_t mine, theirs;
    int heights[C4_COLS];
    int tick;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    s->num_agents = 1;
    s->obs_ndim = 1;
    s->obs_shape[0] = C4_ROWS * C4_COLS;
    s->obs_dtype = 'f';
    s->obs_low = -1;
    s->obs_high = 1;
    s->act_kind = 'D';
    s->act_dims = 1;
    s->act_n[0] = C4_COLS;
    s->render_width = 64 * C4_COLS;
    s->render_height = 64 * C4_ROWS;
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

/* Write the piece that just landed in `col` into the observation. */
static void c4_observe(Env* env, int col, float who) {
    int row = C4_ROWS - env->heights[col];  /* heights already counts the new piece */
    ((float*)env->p.observations)[row * C4_COLS + col] = who;
}

static void c4_opponent(Env* env) {
    int legal[C4_COLS], n = 0, pick = -1;
    for (int c = 0; c < C4_COLS; c++) {
        if (env->heights[c] == C4_ROWS) continue;
        legal[n++] = c;
        if (pick < 0 && c4_won(env->theirs | c4_bit(env, c))) pick = c;
    }
    for (int i = 0; pick < 0 && i < n; i++)
        if (c4_won(env->mine | c4_bit(env, legal[i]))) pick = legal[i];
    if (pick < 0) pick = legal[rng_int(&env->p.rng, n)];
    env->theirs |= c4_bit(env, pick);
    env->heights[pick]++;
    c4_observe(env, pick, -1.0f);
}

static void c_reset(Env* env) {
    env->mine = env->theirs = 0;
    memset(env->heights, 0, sizeof(env->heights));
    memset(env->p.observations, 0, sizeof(float) * C4_ROWS * C4_COLS);
    env->tick = 0;
    if (rng_int(&env->p.rng, 2)) c4_opponent(env);
}

static void c4_end(Env* env, float reward, int illegal) {
    env->p.rewards[0] = reward;
    env->p.terminals[0] = 1;
    env->log.score += (float)(reward > 0);
    env->log.episode_return += reward;
    env->log.episode_length += (float)env->tick;
    env->log.illegal += (float)illegal;
    env->log.n += 1;
    c_reset(env);
}

static void c_step(Env* env) {
    int col = env->p.actions[0];
    env->tick++;
    env->p.truncations[0] = 0;
    if (env->heights[col] == C4_ROWS) { c4_end(env, -1.0f, 1); return; }
    env->mine |= c4_bit(env, col);
    env->heights[col]++;
    c4_observe(env, col, 1.0f);
    if (c4_won(env->mine)) { c4_end(env, 1.0f, 0); return; }
    int full = 1;
    for (int c = 0; c < C4_COLS; c++) full &= env->heights[c] == C4_ROWS;
    if (full) { c4_end(env, 0.0f, 0); return; }
    c4_opponent(env);
    if (c4_won(env->theirs)) { c4_end(env, -1.0f, 0); return; }
    full = 1;
    for (int c = 0; c < C4_COLS; c++) full &= env->heights[c] == C4_ROWS;
    if (full) { c4_end(env, 0.0f, 0); return; }
    env->p.rewards[0] = 0;
    env->p.terminals[0] = 0;
}

static char c4_cell(Env* env, int row, int col) {
    uint64_t bit = 1ull << (col * 7 + (C4_ROWS - 1 - row));
    return env->mine & bit ? 'X' : env->theirs & bit ? 'O' : '.';
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
