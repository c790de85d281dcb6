/* space_invaders: shoot down a marching formation of aliens (a simplified Space Invaders).
 *
 * A 16 x 14 grid, row 0 at the top; the cannon moves along the bottom row (13). Actions:
 * 0 nothing, 1 left, 2 right (one column, not past the walls), 3 fire. A formation of 4 rows
 * x 6 aliens (on every second column, rows adjacent) starts at column 0, row 1 + the waves
 * cleared (at most row 4), marching right. Every `march_interval` steps at full strength it
 * moves one column sideways; when its outermost living alien would leave the grid it steps
 * one row down instead and turns round. It speeds up as it thins out: with n of 24 alive it
 * moves every 1 + (n - 1) (march_interval - 1) / 23 steps (every step for the last alien).
 * One player bullet at a time: fire puts it at the cannon's column and it climbs one row a
 * step (the first in the fire step, from row 12); it kills the alien whose cell it meets
 * (reward +1) and is spent, or leaves the top. Each step, with probability `bomb_prob` and
 * fewer than 3 bombs falling, the lowest living alien of a random living alien's column
 * drops a bomb, which falls one row a step; one that lands on the cannon's cell costs a
 * life and clears all bombs and the bullet. The aliens do not shoot through each other and
 * bombs and the bullet pass each other. A cleared wave brings the next formation. The
 * episode ends (terminal) when the lives (`lives`, 3) run out or a living alien reaches
 * the cannon's row, and is truncated after `max_steps` steps (final observation kept).
 * Observation (70 floats in [-1, 1]): the cannon's column (-1 left wall .. 1 right wall);
 * the bullet (flying, column - cannon's / 16, row / 14); the formation's direction (+-1),
 * steps to its next move / march_interval, lives / `lives`, aliens alive / 24; then, for
 * the 31 columns from 15 left of the cannon to 15 right, (row + 1) / 14 of the lowest
 * living alien there (0: none or off the grid), and the same of the lowest bomb there.
 * score: aliens hit in the episode.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(waves)
#define PARAMS(P) P(int, lives, 3, 1, 100) P(int, march_interval, 8, 1, 100) P(float, bomb_prob, 0.1, 0, 1) \
    P(int, max_steps, 10000, 1, 10000000)
#define FIELDS(F) F(int, cannon) F(int, bullet_on) F(int, bullet_x) F(int, bullet_y) F(int, fx) F(int, fy) \
    F(int, dir) F(int, timer) F(int, lives_left) F(int, alive_count) F(int, wave) F(int, hits) F(int, tick) \
    F(int, bomb_on[0]) F(int, bomb_x[0]) F(int, bomb_y[0]) F(int, bomb_on[1]) F(int, bomb_x[1]) F(int, bomb_y[1]) \
    F(int, bomb_on[2]) F(int, bomb_x[2]) F(int, bomb_y[2]) \
    F(int, alive[0]) F(int, alive[1]) F(int, alive[2]) F(int, alive[3]) F(int, alive[4]) F(int, alive[5]) \
    F(int, alive[6]) F(int, alive[7]) F(int, alive[8]) F(int, alive[9]) F(int, alive[10]) F(int, alive[11]) \
    F(int, alive[12]) F(int, alive[13]) F(int, alive[14]) F(int, alive[15]) F(int, alive[16]) F(int, alive[17]) \
    F(int, alive[18]) F(int, alive[19]) F(int, alive[20]) F(int, alive[21]) F(int, alive[22]) F(int, alive[23])
#include "../puffer.h"

#define SI_W 16
#define SI_H 14
#define SI_ROWS 4
#define SI_COLS 6
#define SI_ALIENS (SI_ROWS * SI_COLS)
#define SI_BOMBS 3
#define SI_OBS (8 + 2 * (2 * SI_W - 1))
#define SI_TILE 16

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int cannon, bullet_on, bullet_x, bullet_y;
    int fx, fy, dir, timer;             /* the formation: column and row of alien (0, 0), direction, steps to its move */
    int alive[SI_ALIENS];               /* alien (r, c) at index r * SI_COLS + c, cell (fx + 2c, fy + r) */
    int bomb_on[SI_BOMBS], bomb_x[SI_BOMBS], bomb_y[SI_BOMBS];
    int lives_left, alive_count, wave, hits, tick;
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, SI_OBS, -1, 1);
    ocean_act_discrete(s, 4);
    ocean_render_size(s, SI_W * SI_TILE, SI_H * SI_TILE);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* Steps between the formation's moves with `n` aliens alive. */
static int si_interval(Env* env, int n) {
    return n <= 1 ? 1 : 1 + (n - 1) * (env->march_interval - 1) / (SI_ALIENS - 1);
}

/* The index of the living alien in cell (x, y), or -1. */
static int si_alien_at(Env* env, int x, int y) {
    int dx = x - env->fx, r = y - env->fy;
    if (dx < 0 || dx % 2 || dx / 2 >= SI_COLS || r < 0 || r >= SI_ROWS) return -1;
    int k = r * SI_COLS + dx / 2;
    return env->alive[k] ? k : -1;
}

/* The row of the lowest living alien in grid column x, or -1. */
static int si_lowest_in(Env* env, int x) {
    for (int r = SI_ROWS - 1; r >= 0; r--)
        if (si_alien_at(env, x, env->fy + r) >= 0) return env->fy + r;
    return -1;
}

static void si_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    int c = env->cannon;
    obs[0] = 2.0f * c / (SI_W - 1) - 1.0f;
    obs[1] = (float)env->bullet_on;
    obs[2] = env->bullet_on ? (float)(env->bullet_x - c) / SI_W : 0;
    obs[3] = env->bullet_on ? (float)env->bullet_y / SI_H : 0;
    obs[4] = (float)env->dir;
    obs[5] = (float)env->timer / env->march_interval;
    obs[6] = (float)env->lives_left / env->lives;
    obs[7] = (float)env->alive_count / SI_ALIENS;
    for (int d = -(SI_W - 1); d < SI_W; d++) {
        int x = c + d, row = x >= 0 && x < SI_W ? si_lowest_in(env, x) : -1;
        obs[8 + d + SI_W - 1] = row >= 0 ? (float)(row + 1) / SI_H : 0;
    }
    float* b = obs + 8 + 2 * SI_W - 1;
    memset(b, 0, sizeof(float) * (2 * SI_W - 1));
    for (int i = 0; i < SI_BOMBS; i++) {
        if (!env->bomb_on[i]) continue;
        float* cell = b + env->bomb_x[i] - c + SI_W - 1;
        float v = (float)(env->bomb_y[i] + 1) / SI_H;
        if (v > *cell) *cell = v;
    }
}

static void si_new_wave(Env* env) {
    for (int k = 0; k < SI_ALIENS; k++) env->alive[k] = 1;
    env->alive_count = SI_ALIENS;
    env->fx = 0;
    env->fy = 1 + (env->wave < 3 ? env->wave : 3);
    env->dir = 1;
    env->timer = si_interval(env, SI_ALIENS);
}

static void c_reset(Env* env) {
    env->cannon = SI_W / 2;
    env->bullet_on = 0;
    env->bullet_x = env->bullet_y = 0;
    for (int i = 0; i < SI_BOMBS; i++) env->bomb_on[i] = env->bomb_x[i] = env->bomb_y[i] = 0;
    env->lives_left = env->lives;
    env->wave = env->hits = env->tick = 0;
    env->ret = 0;
    si_new_wave(env);
    si_observe(env);
}

/* The bullet meets a living alien in its cell: kill it; returns the reward. */
static float si_bullet_hits(Env* env) {
    if (!env->bullet_on) return 0;
    int k = si_alien_at(env, env->bullet_x, env->bullet_y);
    if (k < 0) return 0;
    env->alive[k] = 0;
    env->alive_count--;
    env->bullet_on = 0;
    env->hits++;
    return 1.0f;
}

/* Move the formation one column sideways or, at a wall, one row down and turn round. */
static void si_march(Env* env) {
    int cmin = SI_COLS, cmax = -1;
    for (int k = 0; k < SI_ALIENS; k++)
        if (env->alive[k]) {
            int col = k % SI_COLS;
            if (col < cmin) cmin = col;
            if (col > cmax) cmax = col;
        }
    if (cmax < 0) return;
    int next_left = env->fx + 2 * cmin + env->dir, next_right = env->fx + 2 * cmax + env->dir;
    if (next_left < 0 || next_right >= SI_W) {
        env->fy++;
        env->dir = -env->dir;
    } else {
        env->fx += env->dir;
    }
}

static int si_lowest_row(Env* env) {
    for (int r = SI_ROWS - 1; r >= 0; r--)
        for (int c = 0; c < SI_COLS; c++)
            if (env->alive[r * SI_COLS + c]) return env->fy + r;
    return -1;
}

static void si_drop_bomb(Env* env) {
    if (env->alive_count == 0 || rng_float(&env->p.rng) >= env->bomb_prob) return;
    int slot = -1;
    for (int i = 0; i < SI_BOMBS; i++) if (!env->bomb_on[i]) { slot = i; break; }
    if (slot < 0) return;
    int pick = rng_int(&env->p.rng, env->alive_count), k = 0;
    for (; k < SI_ALIENS; k++) if (env->alive[k] && pick-- == 0) break;
    int x = env->fx + 2 * (k % SI_COLS), y = si_lowest_in(env, x) + 1;
    if (y >= SI_H) return;  /* the aliens have landed: no room below them */
    env->bomb_on[slot] = 1;
    env->bomb_x[slot] = x;
    env->bomb_y[slot] = y;
}

static void si_end(Env* env, int truncated) {
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    LOG_EPISODE(&env->log, .score = env->hits, .episode_return = env->ret, .episode_length = env->tick,
                .waves = env->wave);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    float reward = 0;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    env->alive_count = 0;  /* counted afresh: a test may set alive[] */
    for (int k = 0; k < SI_ALIENS; k++) env->alive_count += env->alive[k] != 0;
    int a = env->p.actions[0];
    if (a == 1 && env->cannon > 0) env->cannon--;
    else if (a == 2 && env->cannon < SI_W - 1) env->cannon++;
    else if (a == 3 && !env->bullet_on) {
        env->bullet_on = 1;
        env->bullet_x = env->cannon;
        env->bullet_y = SI_H - 1;
    }
    if (env->bullet_on) {
        if (--env->bullet_y < 0) env->bullet_on = 0;
        reward += si_bullet_hits(env);
    }
    if (--env->timer <= 0) {
        si_march(env);
        reward += si_bullet_hits(env);  /* an alien marched into the bullet */
        env->timer = si_interval(env, env->alive_count);
    }
    int invaded = si_lowest_row(env) >= SI_H - 1;
    for (int i = 0; i < SI_BOMBS; i++) {
        if (!env->bomb_on[i]) continue;
        if (++env->bomb_y[i] >= SI_H) env->bomb_on[i] = 0;
        else if (env->bomb_y[i] == SI_H - 1 && env->bomb_x[i] == env->cannon) {
            env->lives_left--;
            for (int j = 0; j < SI_BOMBS; j++) env->bomb_on[j] = 0;
            env->bullet_on = 0;
            break;
        }
    }
    si_drop_bomb(env);
    if (env->alive_count == 0) {
        env->wave++;
        si_new_wave(env);
    }
    if (invaded) env->lives_left = 0;
    env->p.rewards[0] = reward;
    env->ret += reward;
    si_observe(env);
    if (env->lives_left <= 0) si_end(env, 0);
    else if (env->tick >= env->max_steps) si_end(env, 1);
}

/* The grid: 'M' alien, 'A' cannon, '|' bullet, '*' bomb; then a status line. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 0; y < SI_H; y++) {
        for (int x = 0; x < SI_W; x++) {
            char ch = si_alien_at(env, x, y) >= 0 ? 'M' : '.';
            for (int i = 0; i < SI_BOMBS; i++)
                if (env->bomb_on[i] && env->bomb_x[i] == x && env->bomb_y[i] == y) ch = '*';
            if (env->bullet_on && env->bullet_x == x && env->bullet_y == y) ch = '|';
            if (y == SI_H - 1 && x == env->cannon) ch = 'A';
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "lives %d hits %d wave %d\n", env->lives_left, env->hits, env->wave);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    const int t = SI_TILE;
    draw_fill(px, w, h, PUFFER_BG);
    for (int k = 0; k < SI_ALIENS; k++)
        if (env->alive[k])
            draw_rect(px, w, h, (env->fx + 2 * (k % SI_COLS)) * t + 2, (env->fy + k / SI_COLS) * t + 3, t - 4, t - 6,
                      PUFFER_CYAN);
    for (int i = 0; i < SI_BOMBS; i++)
        if (env->bomb_on[i]) draw_rect(px, w, h, env->bomb_x[i] * t + 6, env->bomb_y[i] * t + 4, 4, 8, PUFFER_RED);
    if (env->bullet_on) draw_rect(px, w, h, env->bullet_x * t + 7, env->bullet_y * t + 2, 2, 12, PUFFER_YELLOW);
    draw_rect(px, w, h, env->cannon * t + 1, (SI_H - 1) * t + 8, t - 2, 8, PUFFER_GREEN);
    draw_rect(px, w, h, env->cannon * t + 6, (SI_H - 1) * t + 3, 4, 5, PUFFER_GREEN);
    for (int i = 0; i < env->lives_left && i < 8; i++) draw_rect(px, w, h, w - (i + 1) * 10, 2, 6, 6, PUFFER_GREEN);
}
