/* boxoban: Sokoban on levels generated every episode, each solvable by construction.
 *
 * The room is size x size cells; its border is wall. A level: a random walk from a random
 * inner cell carves floor until 55% of the inner cells are floor (each step carves its cell
 * and, one time in three, the cell right of or below it too); `boxes` goals are drawn on the
 * floor, a box on each, and the player on another floor cell. The generator then plays
 * `pull_moves` moves backwards: the player steps to a random free neighbour (floor, no box)
 * and, when a box stands on the other side of it, pulls that box into the cell it left. Played
 * forwards, those moves reversed (each in the opposite direction, last first) push every box
 * back onto a goal: the level is solvable, and the generator keeps that solution (the `sol`
 * test fields). Of 8 backward plays in a room (each from a random player cell), the one kept
 * leaves the most boxes off the goals, and among those the largest sum of each box's Manhattan
 * distance to its nearest goal; a room where no play moved a box is redrawn (16 rooms at most).
 * Actions: 0 up, 1 down, 2 left, 3 right. The player moves to the next cell when it is floor;
 * a box there is pushed one cell on when the cell beyond is floor without a box (one box at a
 * time; boxes are never pulled). Rewards: -`step_cost` every step, +1 for a box pushed onto a
 * goal, -1 for a box pushed off one, +10 when every box is on a goal (terminal); truncated
 * after `max_steps` steps. score: 1 when the level was solved; boxes_on_goals: the share of
 * boxes on goals at the episode's end.
 * Observation: size x size x 6 uint8 planes (0 or 1): wall, floor (every cell not wall), goal,
 * box off a goal, box on a goal, player; cell (x, y) is row y, column x.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(boxes_on_goals)
#define BX_MAX 16     /* the largest room: one bit per column in an int row */
#define BX_SOL 100    /* the most backward moves, and of the solution kept */
#define PARAMS(P) P(int, size, 10, 5, BX_MAX) P(int, boxes, 4, 1, 8) P(int, pull_moves, 60, 1, BX_SOL) \
    P(int, max_steps, 120, 1, 100000) P(float, step_cost, 0.1, 0, 10)
/* Test fields: the walls, boxes and goals as bit rows (bit x of row y), the player, the step
 * count, and the generator's solution (sol_len moves, 0-3) of the level the episode began on. */
#define BX_ROWS(F, a) F(int, a[0]) F(int, a[1]) F(int, a[2]) F(int, a[3]) F(int, a[4]) F(int, a[5]) F(int, a[6]) \
    F(int, a[7]) F(int, a[8]) F(int, a[9]) F(int, a[10]) F(int, a[11]) F(int, a[12]) F(int, a[13]) F(int, a[14]) \
    F(int, a[15])
#define BX_TEN(F, n) F(int, sol[n##0]) F(int, sol[n##1]) F(int, sol[n##2]) F(int, sol[n##3]) F(int, sol[n##4]) \
    F(int, sol[n##5]) F(int, sol[n##6]) F(int, sol[n##7]) F(int, sol[n##8]) F(int, sol[n##9])
#define FIELDS(F) BX_ROWS(F, wall) BX_ROWS(F, box) BX_ROWS(F, goal) F(int, px) F(int, py) F(int, tick) \
    F(int, sol_len) BX_TEN(F, ) BX_TEN(F, 1) BX_TEN(F, 2) BX_TEN(F, 3) BX_TEN(F, 4) BX_TEN(F, 5) BX_TEN(F, 6) \
    BX_TEN(F, 7) BX_TEN(F, 8) BX_TEN(F, 9)
#include "../puffer.h"

#define BX_PLANES 6
#define BX_TRIES 8
#define BX_ROOMS 16
static const int BX_DX[4] = {0, 0, -1, 1}, BX_DY[4] = {-1, 1, 0, 0};  /* up, down, left, right */
static const int BX_BACK[4] = {1, 0, 3, 2};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int wall[BX_MAX], box[BX_MAX], goal[BX_MAX];
    int px, py, tick, sol_len;
    int sol[BX_SOL];
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int inner = (env->size - 2) * (env->size - 2);
    if (4 * env->boxes > inner) {
        snprintf(err, OCEAN_ERR_LEN, "%d boxes do not fit a room of size %d: at most %d (a box per 4 inner "
                 "cells); lower boxes or raise size.", env->boxes, env->size, inner / 4);
        return 1;
    }
    ocean_obs_image(s, env->size, env->size, BX_PLANES, 0, 1);
    ocean_act_discrete(s, 4);
    ocean_render_size(s, 16 * env->size, 16 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int bx_bit(const int* rows, int x, int y) { return (rows[y] >> x) & 1; }
static inline void bx_set(int* rows, int x, int y) { rows[y] |= 1 << x; }
static inline void bx_clear(int* rows, int x, int y) { rows[y] &= ~(1 << x); }

/* Carve a room by a random walk; returns its floor cells in `cells` (x + BX_MAX y), their count. */
static int bx_room(Env* env, int* cells) {
    int n = env->size, lo = 1, hi = n - 2, inner = (n - 2) * (n - 2), target = (inner * 11 + 19) / 20;
    uint64_t* rng = &env->p.rng;
    for (int y = 0; y < n; y++) env->wall[y] = (1 << n) - 1;
    for (int y = n; y < BX_MAX; y++) env->wall[y] = 0;
    int x = lo + rng_int(rng, hi - lo + 1), y = lo + rng_int(rng, hi - lo + 1), d = rng_int(rng, 4), floor = 0;
    while (floor < target) {
        int extra = rng_int(rng, 3) == 0, ex = x + (extra && rng_int(rng, 2)), ey = y + (extra && ex == x);
        if (bx_bit(env->wall, x, y)) { bx_clear(env->wall, x, y); floor++; }
        if (extra && ex <= hi && ey <= hi && bx_bit(env->wall, ex, ey)) { bx_clear(env->wall, ex, ey); floor++; }
        if (rng_int(rng, 20) < 7) d = rng_int(rng, 4);
        int nx = x + BX_DX[d], ny = y + BX_DY[d];
        if (nx < lo || ny < lo || nx > hi || ny > hi) d = rng_int(rng, 4);
        else { x = nx; y = ny; }
    }
    int count = 0;
    for (y = lo; y <= hi; y++)
        for (x = lo; x <= hi; x++)
            if (!bx_bit(env->wall, x, y)) cells[count++] = x + BX_MAX * y;
    return count;
}

/* Play up to pull_moves moves backwards from the player at (*x, *y) with the boxes in `box`,
 * recording the directions in `moves`; returns how many were played. */
static int bx_pull(Env* env, int* box, int* x, int* y, int* moves) {
    int k = 0;
    for (; k < env->pull_moves; k++) {
        int options[4], n = 0;
        for (int d = 0; d < 4; d++) {
            int nx = *x + BX_DX[d], ny = *y + BX_DY[d];
            if (!bx_bit(env->wall, nx, ny) && !bx_bit(box, nx, ny)) options[n++] = d;
        }
        if (!n) break;
        int d = options[rng_int(&env->p.rng, n)], bx = *x - BX_DX[d], by = *y - BX_DY[d];
        if (bx_bit(box, bx, by)) {  /* the box behind follows into the cell the player leaves */
            bx_clear(box, bx, by);
            bx_set(box, *x, *y);
        }
        *x += BX_DX[d];
        *y += BX_DY[d];
        moves[k] = d;
    }
    return k;
}

static int bx_off_goals(const int* box, const int* goal) {
    int off = 0;
    for (int y = 0; y < BX_MAX; y++) off += __builtin_popcount((unsigned)(box[y] & ~goal[y]));
    return off;
}

/* How far the backward play took the boxes: 16 per box off the goals plus each box's Manhattan
 * distance to its nearest goal; 0 when every box is on a goal. */
static int bx_spread(Env* env, const int* box) {
    int score = 0;
    for (int y = 1; y < env->size - 1; y++)
        for (int x = 1; x < env->size - 1; x++) {
            if (!bx_bit(box, x, y) || bx_bit(env->goal, x, y)) continue;
            int nearest = 4 * BX_MAX;
            for (int gy = 1; gy < env->size - 1; gy++)
                for (int gx = 1; gx < env->size - 1; gx++)
                    if (bx_bit(env->goal, gx, gy)) {
                        int dist = abs(gx - x) + abs(gy - y);
                        if (dist < nearest) nearest = dist;
                    }
            score += 16 + nearest;
        }
    return score;
}

static int bx_on_goals(const int* box, const int* goal) {
    int on = 0;
    for (int y = 0; y < BX_MAX; y++) on += __builtin_popcount((unsigned)(box[y] & goal[y]));
    return on;
}

static void bx_generate(Env* env) {
    uint64_t* rng = &env->p.rng;
    int cells[BX_MAX * BX_MAX], moves[BX_SOL], best_moves[BX_SOL], box[BX_MAX], best_box[BX_MAX];
    int best = -1, best_n = 0, best_x = 0, best_y = 0;
    for (int room = 0; room < BX_ROOMS && best <= 0; room++) {
        int count = bx_room(env, cells);
        memset(env->goal, 0, sizeof env->goal);
        for (int i = 0; i < env->boxes; i++) {  /* distinct goal cells, drawn without replacement */
            int j = i + rng_int(rng, count - i), c = cells[j];
            cells[j] = cells[i];
            cells[i] = c;
            bx_set(env->goal, c % BX_MAX, c / BX_MAX);
        }
        best = -1;
        for (int t = 0; t < BX_TRIES; t++) {
            int c = cells[env->boxes + rng_int(rng, count - env->boxes)], x = c % BX_MAX, y = c / BX_MAX;
            memcpy(box, env->goal, sizeof box);
            int n = bx_pull(env, box, &x, &y, moves), spread = bx_spread(env, box);
            if (spread > best) {
                best = spread;
                best_n = n;
                best_x = x;
                best_y = y;
                memcpy(best_box, box, sizeof box);
                memcpy(best_moves, moves, sizeof(int) * n);
            }
        }
    }
    memcpy(env->box, best_box, sizeof best_box);
    env->px = best_x;
    env->py = best_y;
    env->sol_len = best_n;
    for (int i = 0; i < best_n; i++) env->sol[i] = BX_BACK[best_moves[best_n - 1 - i]];
    for (int i = best_n; i < BX_SOL; i++) env->sol[i] = 0;
}

static void bx_observe(Env* env) {
    uint8_t* restrict obs = (uint8_t*)env->p.observations;
    int n = env->size;
    memset(obs, 0, (size_t)n * n * BX_PLANES);
    for (int y = 0; y < n; y++) {
        int wall = env->wall[y], box = env->box[y], goal = env->goal[y];
        for (int x = 0; x < n; x++) {
            uint8_t* o = obs + (y * n + x) * BX_PLANES;
            int w = (wall >> x) & 1, b = (box >> x) & 1, g = (goal >> x) & 1;
            o[0] = (uint8_t)w;
            o[1] = (uint8_t)!w;
            o[2] = (uint8_t)g;
            o[3] = (uint8_t)(b & !g);
            o[4] = (uint8_t)(b & g);
        }
    }
    obs[(env->py * n + env->px) * BX_PLANES + 5] = 1;
}

static void c_reset(Env* env) {
    bx_generate(env);
    env->tick = 0;
    env->ret = 0;
    bx_observe(env);
}

static void c_step(Env* env) {
    int d = env->p.actions[0], x = env->px + BX_DX[d], y = env->py + BX_DY[d];
    float reward = -env->step_cost;
    int solved = 0;
    if (!bx_bit(env->wall, x, y)) {
        if (!bx_bit(env->box, x, y)) {
            env->px = x;
            env->py = y;
        } else {
            int x2 = x + BX_DX[d], y2 = y + BX_DY[d];
            if (!bx_bit(env->wall, x2, y2) && !bx_bit(env->box, x2, y2)) {
                bx_clear(env->box, x, y);
                bx_set(env->box, x2, y2);
                env->px = x;
                env->py = y;
                reward += (float)(bx_bit(env->goal, x2, y2) - bx_bit(env->goal, x, y));
                solved = bx_off_goals(env->box, env->goal) == 0;
                if (solved) reward += 10.0f;
            }
        }
    }
    env->tick++;
    int truncated = !solved && env->tick >= env->max_steps;
    env->ret += reward;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)solved;
    env->p.truncations[0] = (uint8_t)truncated;
    bx_observe(env);
    if (solved || truncated) {
        int on = bx_on_goals(env->box, env->goal), all = on + bx_off_goals(env->box, env->goal);
        LOG_EPISODE(&env->log, .score = solved, .episode_return = env->ret, .episode_length = env->tick,
                    .boxes_on_goals = all ? (float)on / all : 0.0f);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

/* The usual Sokoban text: # wall, . goal, $ box, * box on a goal, @ player, + player on a goal. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 0; y < env->size; y++) {
        for (int x = 0; x < env->size; x++) {
            int g = bx_bit(env->goal, x, y);
            char c = bx_bit(env->wall, x, y) ? '#' : bx_bit(env->box, x, y) ? (g ? '*' : '$') : g ? '.' : ' ';
            if (x == env->px && y == env->py) c = g ? '+' : '@';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int tile = w / env->size;
    for (int y = 0; y < env->size; y++)
        for (int x = 0; x < env->size; x++) {
            int k = bx_bit(env->wall, x, y) ? 6 : 0;
            const uint8_t* c = PUFFER_PALETTE[k];
            draw_rect(px, w, h, x * tile, y * tile, tile, tile, c[0], c[1], c[2]);
            if (bx_bit(env->goal, x, y)) draw_rect(px, w, h, x * tile + tile / 3, y * tile + tile / 3, tile / 3,
                                                   tile / 3, PUFFER_RED);
            if (bx_bit(env->box, x, y)) {
                const uint8_t* b = PUFFER_PALETTE[bx_bit(env->goal, x, y) ? 7 : 5];
                draw_rect(px, w, h, x * tile + 2, y * tile + 2, tile - 4, tile - 4, b[0], b[1], b[2]);
            }
        }
    draw_rect(px, w, h, env->px * tile + tile / 4, env->py * tile + tile / 4, tile / 2, tile / 2, PUFFER_CYAN);
}
