/* g2048: the 2048 sliding-tile game on a 4 x 4 board.
 *
 * Actions: 0 up, 1 down, 2 left, 3 right. Every tile slides as far as it can that way; two
 * equal tiles that meet merge into one of twice the value, each tile merging at most once
 * per move, the pair nearest the wall first ([2 2 2 2] left gives [4 4 . .], [4 4 8 .]
 * gives [8 8 . .]). After a move that changes the board a new tile appears on a random
 * empty cell: a 2 with probability 0.9, else a 4 (the game starts with two). A move that
 * changes nothing costs `invalid_penalty` and spawns nothing. The game ends (terminal) when
 * no move changes the board; it is truncated after `max_steps` moves (final observation
 * kept). Reward: for each merge, the new tile's log2 / 10 (a merge into 2048 pays 1.1),
 * minus the penalty of an unchanged move. Observation (16 x 18 floats): each cell one-hot
 * of its log2 (0: empty; up to 2^17). score: the game's classic score (the sum of the tiles
 * made by merges); max_tile: the largest tile.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(max_tile)
#define PARAMS(P) P(float, invalid_penalty, 0.1, 0, 10) P(int, max_steps, 10000, 1, 10000000)
#define FIELDS(F) F(int, cells[0]) F(int, cells[1]) F(int, cells[2]) F(int, cells[3]) F(int, cells[4]) \
    F(int, cells[5]) F(int, cells[6]) F(int, cells[7]) F(int, cells[8]) F(int, cells[9]) F(int, cells[10]) \
    F(int, cells[11]) F(int, cells[12]) F(int, cells[13]) F(int, cells[14]) F(int, cells[15]) F(int, tick)
#include "../puffer.h"

#define G_CELLS 16
#define G_LEVELS 18  /* log2 values 0 (empty) to 17 */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int cells[G_CELLS];  /* log2 of each tile, row-major from the top left; 0: empty */
    int tick;
    float ret, points;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, G_CELLS * G_LEVELS, 0, 1);
    ocean_act_discrete(s, 4);
    ocean_render_size(s, 4 * 48, 4 * 48);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void g_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    memset(obs, 0, sizeof(float) * G_CELLS * G_LEVELS);
    for (int i = 0; i < G_CELLS; i++) obs[i * G_LEVELS + env->cells[i]] = 1.0f;
}

static void g_spawn(Env* env) {
    int empty[G_CELLS], n = 0;
    for (int i = 0; i < G_CELLS; i++) if (!env->cells[i]) empty[n++] = i;
    if (n) env->cells[empty[rng_int(&env->p.rng, n)]] = rng_float(&env->p.rng) < 0.9f ? 1 : 2;
}

static void c_reset(Env* env) {
    memset(env->cells, 0, sizeof(env->cells));
    env->tick = 0;
    env->ret = env->points = 0;
    g_spawn(env);
    g_spawn(env);
    g_observe(env);
}

/* The cell indices of line `k` for direction `a`, from the wall the tiles move toward. */
static void g_line(int a, int k, int idx[4]) {
    for (int i = 0; i < 4; i++) {
        if (a == 0) idx[i] = i * 4 + k;             /* up: column k, top first */
        else if (a == 1) idx[i] = (3 - i) * 4 + k;  /* down: bottom first */
        else if (a == 2) idx[i] = k * 4 + i;        /* left: row k, left first */
        else idx[i] = k * 4 + 3 - i;                /* right: right first */
    }
}

/* Slide and merge every line toward `a` on `cells`; returns whether anything moved, and adds
 * the merges' reward and classic points. */
static int g_move(int* cells, int a, float* reward, float* points) {
    int moved = 0;
    for (int k = 0; k < 4; k++) {
        int idx[4], vals[4], out[4] = {0}, n = 0, m = 0;
        g_line(a, k, idx);
        for (int i = 0; i < 4; i++) if (cells[idx[i]]) vals[n++] = cells[idx[i]];
        for (int i = 0; i < n; i++) {
            if (i + 1 < n && vals[i] == vals[i + 1] && vals[i] < G_LEVELS - 1) {
                out[m++] = vals[i] + 1;
                *reward += (float)(vals[i] + 1) / 10.0f;
                *points += (float)(1 << (vals[i] + 1));
                i++;
            } else {
                out[m++] = vals[i];
            }
        }
        for (int i = 0; i < 4; i++) {
            moved |= cells[idx[i]] != out[i];
            cells[idx[i]] = out[i];
        }
    }
    return moved;
}

static int g_any_move(Env* env) {
    for (int a = 0; a < 4; a++) {
        int copy[G_CELLS];
        float r = 0, pts = 0;
        memcpy(copy, env->cells, sizeof(copy));
        if (g_move(copy, a, &r, &pts)) return 1;
    }
    return 0;
}

static void g_end(Env* env, int truncated) {
    int top = 0;
    for (int i = 0; i < G_CELLS; i++) if (env->cells[i] > top) top = env->cells[i];
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    LOG_EPISODE(&env->log, .score = env->points, .episode_return = env->ret, .episode_length = env->tick,
                .max_tile = 1 << top);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    float reward = 0;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    if (g_move(env->cells, env->p.actions[0], &reward, &env->points)) g_spawn(env);
    else reward -= env->invalid_penalty;
    env->p.rewards[0] = reward;
    env->ret += reward;
    g_observe(env);
    if (!g_any_move(env)) g_end(env, 0);
    else if (env->tick >= env->max_steps) g_end(env, 1);
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
            int v = env->cells[r * 4 + c];
            if (v) ANSI_APPEND(buf, cap, len, "%6d", 1 << v);
            else ANSI_APPEND(buf, cap, len, "%6s", ".");
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

/* One square per cell, brighter for larger tiles (log2 * 14 on a warm ramp). */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < G_CELLS; i++) {
        int v = env->cells[i];
        uint8_t shade = (uint8_t)(v ? 40 + 12 * v : 20);
        draw_rect(px, w, h, (i % 4) * 48 + 4, (i / 4) * 48 + 4, 40, 40, shade, (uint8_t)(shade / 2 + 20), 40);
    }
}
