/* pacman: Pac-Man on the classic 28 x 31 maze with four ghosts (PufferLib's Ocean "pacman").
 *
 * Actions: 0 up, 1 down, 2 left, 3 right; a move into a wall keeps the current direction.
 * The side tunnel wraps. Each of the 240 dots and 4 power pellets earns 1; a pellet
 * frightens the ghosts for `frightened_time` steps (they turn around, wander at random at
 * half speed, and eating one earns 1 and sends it back to its start). The ghosts leave
 * after a random delay in [min_start_timeout, max_start_timeout] and alternate scatter
 * (each heads for its corner) and chase (Blinky targets Pac-Man, Pinky 4 cells ahead of
 * him, Inky the point mirroring Blinky about 2 cells ahead, Clyde Pac-Man when more than
 * 8 cells away, else his corner) for `max_mode_changes` changes, reversing at each. At a
 * junction a ghost takes the allowed direction (no U-turn) closest to its target. A
 * non-frightened ghost on Pac-Man's cell, or swapping cells with him, ends the game
 * (terminal), as does clearing the maze; the game is truncated after `max_steps`. Score:
 * dots, pellets and ghosts eaten. Observation (291 floats in [0, 1]): Pac-Man x / 28,
 * y / 31, one-hot direction, the four directions open to him, frightened time left;
 * per ghost x, y, one-hot direction, chasing, frightened, returning; one 0/1 per
 * dot and pellet still on the maze (in map order).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(ghosts_eaten) X(cleared)
#define PARAMS(P) P(int, randomize_starting_position, 0, 0, 1) P(int, min_start_timeout, 0, 0, 10000) \
    P(int, max_start_timeout, 49, 0, 10000) P(int, frightened_time, 35, 1, 10000) \
    P(int, max_mode_changes, 6, 0, 1000) P(int, scatter_mode_length, 70, 1, 100000) \
    P(int, chase_mode_length, 140, 1, 100000) P(int, max_steps, 10000, 1, 10000000)
#define FIELDS(F) F(int, px) F(int, py) F(int, pdir) F(int, score) F(int, remaining) F(int, frightened_left) \
    F(int, tick) F(int, gx[0]) F(int, gy[0]) F(int, gdir[0]) F(int, gtimeout[0]) F(int, gfright[0]) \
    F(int, greturn[0]) F(int, gx[1]) F(int, gy[1]) F(int, gtimeout[1]) F(int, gtimeout[2]) F(int, gtimeout[3])
#include "../puffer.h"

#define PM_W 28
#define PM_H 31
#define PM_PICKUPS 244
#define PM_GHOSTS 4
#define PM_OBS (11 + 9 * PM_GHOSTS + PM_PICKUPS)
enum { PM_UP = 0, PM_DOWN = 1, PM_LEFT = 2, PM_RIGHT = 3 };
enum { PM_PINKY = 0, PM_BLINKY = 1, PM_INKY = 2, PM_CLYDE = 3 };

/* The classic maze: '#' wall, '.' dot, 'x' power pellet, 'p' Pac-Man's start, '1'-'4' the
 * ghosts' starts (Inky, Blinky, Pinky, Clyde). */
static const char PM_MAP[PM_H][PM_W + 1] = {
    "############################", "#............##............#", "#.####.#####.##.#####.####.#",
    "#x####.#####.##.#####.####x#", "#.####.#####.##.#####.####.#", "#..........................#",
    "#.####.##.########.##.####.#", "#.####.##.########.##.####.#", "#......##....##....##......#",
    "######.##### ## #####.######", "######.##### ## #####.######", "######.##   1234   ##.######",
    "######.## ######## ##.######", "######.## ######## ##.######", "      .   ########   .      ",
    "######.## ######## ##.######", "######.## ######## ##.######", "######.##          ##.######",
    "######.## ######## ##.######", "######.## ######## ##.######", "#............##............#",
    "#.####.#####.##.#####.####.#", "#.####.#####.##.#####.####.#", "#x..##.......p .......##..x#",
    "###.##.##.########.##.##.###", "###.##.##.########.##.##.###", "#......##....##....##......#",
    "#.##########.##.##########.#", "#.##########.##.##########.#", "#..........................#",
    "############################",
};
static const char PM_GHOST_CHARS[PM_GHOSTS] = {'3', '2', '1', '4'};
static const int PM_CORNERS[PM_GHOSTS][2] = {{3, -3}, {PM_W - 4, -3}, {PM_W - 1, PM_H}, {0, PM_H}};
static const int PM_DX[4] = {0, 0, -1, 1}, PM_DY[4] = {-1, 1, 0, 0};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int px, py, pdir, score, remaining, frightened_left, tick, eaten_ghosts;
    int scatter, mode_left, mode_changes, reverse;
    int gx[PM_GHOSTS], gy[PM_GHOSTS], gdir[PM_GHOSTS], gtimeout[PM_GHOSTS], gfright[PM_GHOSTS], greturn[PM_GHOSTS];
    int ghalf[PM_GHOSTS], gtx[PM_GHOSTS], gty[PM_GHOSTS];
    uint8_t pickup[PM_H * PM_W];  /* 1 while the cell's dot or pellet is there */
} Env;

/* Map cell -> pickup index (-1 none), spawn cells; the same for every copy, built on first use. */
typedef struct { int16_t index[PM_H * PM_W]; int16_t dots[240]; int ndots, start, ghost_start[PM_GHOSTS]; } PmLayout;

static void pm_layout(PmLayout* L) {
    int n = 0;
    L->ndots = 0;
    for (int y = 0; y < PM_H; y++)
        for (int x = 0; x < PM_W; x++) {
            char c = PM_MAP[y][x];
            L->index[y * PM_W + x] = (int16_t)(c == '.' || c == 'x' ? n++ : -1);
            if (c == '.') L->dots[L->ndots++] = (int16_t)(y * PM_W + x);
            if (c == 'p') L->start = y * PM_W + x;
            for (int g = 0; g < PM_GHOSTS; g++)
                if (c == PM_GHOST_CHARS[g]) L->ghost_start[g] = y * PM_W + x;
        }
}

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->min_start_timeout > env->max_start_timeout) {
        snprintf(err, OCEAN_ERR_LEN, "min_start_timeout (%d) must not exceed max_start_timeout (%d).",
                 env->min_start_timeout, env->max_start_timeout);
        return 1;
    }
    ocean_obs_flat(s, PM_OBS, 0, 1);
    ocean_act_discrete(s, 4);
    ocean_render_size(s, 16 * PM_W, 16 * PM_H);
    return 0;
}

static const PmLayout* pm_get_layout(void);
static int c_init(Env* env, char* err) {
    pm_get_layout();  /* built here, under the GIL, before any step may run on threads */
    return 0;
}
static void c_close(Env* env) {}

static inline int pm_wall(int x, int y) {
    if (y < 0 || y >= PM_H) return 1;
    x = (x + PM_W) % PM_W;
    return PM_MAP[y][x] == '#';
}
static inline int pm_open(int x, int y, int dir) { return !pm_wall(x + PM_DX[dir], y + PM_DY[dir]); }
static inline int pm_reverse(int dir) { return dir ^ 1; }

static void pm_observe(Env* env) {
    float* o = (float*)env->p.observations;
    o[0] = env->px * (1.0f / PM_W);
    o[1] = env->py * (1.0f / PM_H);
    for (int d = 0; d < 4; d++) o[2 + d] = env->pdir == d;
    for (int d = 0; d < 4; d++) o[6 + d] = pm_open(env->px, env->py, d);
    o[10] = env->frightened_left / (float)env->frightened_time;
    for (int g = 0; g < PM_GHOSTS; g++) {
        float* q = o + 11 + 9 * g;
        q[0] = env->gx[g] * (1.0f / PM_W);
        q[1] = env->gy[g] * (1.0f / PM_H);
        for (int d = 0; d < 4; d++) q[2 + d] = env->gdir[g] == d;
        q[6] = !env->gfright[g] && !env->greturn[g];
        q[7] = (float)env->gfright[g];
        q[8] = (float)env->greturn[g];
    }
    /* The pickup part (one float per dot and pellet) is kept in place: all 1 at reset,
     * cleared by c_step as each is eaten. */
}

static const PmLayout* pm_get_layout(void) {
    static PmLayout layout;
    static int ready = 0;  /* built once, by the first copy's c_init */
    if (!ready) {
        pm_layout(&layout);
        ready = 1;
    }
    return &layout;
}

static void c_reset(Env* env) {
    const PmLayout* L = pm_get_layout();
    env->score = env->tick = env->eaten_ghosts = 0;
    env->frightened_left = 0;
    env->scatter = 0;
    env->mode_left = 0;
    env->mode_changes = 0;
    env->reverse = 0;
    env->remaining = PM_PICKUPS;
    for (int i = 0; i < PM_H * PM_W; i++) env->pickup[i] = L->index[i] >= 0;
    float* pick = (float*)env->p.observations + 11 + 9 * PM_GHOSTS;
    for (int i = 0; i < PM_PICKUPS; i++) pick[i] = 1.0f;
    int start = env->randomize_starting_position ? L->dots[rng_int(&env->p.rng, L->ndots)] : L->start;
    env->px = start % PM_W;
    env->py = start / PM_W;
    env->pdir = PM_RIGHT;
    for (int g = 0; g < PM_GHOSTS; g++) {
        env->gx[g] = L->ghost_start[g] % PM_W;
        env->gy[g] = L->ghost_start[g] / PM_W;
        env->gdir[g] = PM_UP;
        env->gtimeout[g] = env->min_start_timeout +
                           rng_int(&env->p.rng, env->max_start_timeout - env->min_start_timeout + 1);
        env->gfright[g] = env->greturn[g] = env->ghalf[g] = 0;
    }
    pm_observe(env);
}

/* The direction ghost g takes this step. */
static int pm_ghost_dir(Env* env, int g) {
    if (env->reverse && !env->greturn[g]) return pm_reverse(env->gdir[g]);
    int options[4], n = 0;
    for (int d = 0; d < 4; d++)
        if (d != pm_reverse(env->gdir[g]) && pm_open(env->gx[g], env->gy[g], d)) options[n++] = d;
    if (n == 0) return pm_reverse(env->gdir[g]);  /* a dead end: turn back */
    if (n == 1) return options[0];
    if (env->gfright[g]) return options[rng_int(&env->p.rng, n)];
    int best = options[0], best_d = 1 << 30;
    for (int i = 0; i < n; i++) {
        int dx = env->gx[g] + PM_DX[options[i]] - env->gtx[g], dy = env->gy[g] + PM_DY[options[i]] - env->gty[g];
        if (dx * dx + dy * dy < best_d) {
            best_d = dx * dx + dy * dy;
            best = options[i];
        }
    }
    return best;
}

static void pm_targets(Env* env) {
    for (int g = 0; g < PM_GHOSTS; g++) {
        env->gtx[g] = PM_CORNERS[g][0];
        env->gty[g] = PM_CORNERS[g][1];
    }
    if (env->scatter) return;
    int dx = PM_DX[env->pdir], dy = PM_DY[env->pdir];
    env->gtx[PM_PINKY] = env->px + 4 * dx;
    env->gty[PM_PINKY] = env->py + 4 * dy;
    env->gtx[PM_BLINKY] = env->px;
    env->gty[PM_BLINKY] = env->py;
    env->gtx[PM_INKY] = 2 * (env->px + 2 * dx) - env->gx[PM_BLINKY];
    env->gty[PM_INKY] = 2 * (env->py + 2 * dy) - env->gy[PM_BLINKY];
    int cx = env->px - env->gx[PM_CLYDE], cy = env->py - env->gy[PM_CLYDE];
    if (cx * cx + cy * cy > 64) {
        env->gtx[PM_CLYDE] = env->px;
        env->gty[PM_CLYDE] = env->py;
    }
}

static void c_step(Env* env) {
    const PmLayout* L = pm_get_layout();
    int a = env->p.actions[0], caught = 0, opx = env->px, opy = env->py;
    float reward = 0;
    env->tick++;
    env->reverse = 0;
    if (env->frightened_left > 0) env->frightened_left--;
    else
        for (int g = 0; g < PM_GHOSTS; g++) env->gfright[g] = env->ghalf[g] = 0;
    if (env->mode_changes <= env->max_mode_changes && --env->mode_left <= 0) {
        env->scatter = !env->scatter;
        env->reverse = 1;
        env->mode_changes++;
        env->mode_left = env->scatter ? env->scatter_mode_length : env->chase_mode_length;
    }
    pm_targets(env);
    /* Pac-Man: the chosen direction if open, else on in the current one. */
    int dir = pm_open(env->px, env->py, a) ? a : env->pdir;
    if (dir == a) env->pdir = a;
    if (pm_open(env->px, env->py, dir)) {
        env->px = (env->px + PM_DX[dir] + PM_W) % PM_W;
        env->py += PM_DY[dir];
        int cell = env->py * PM_W + env->px;
        if (env->pickup[cell]) {
            env->pickup[cell] = 0;
            ((float*)env->p.observations)[11 + 9 * PM_GHOSTS + L->index[cell]] = 0;
            env->remaining--;
            env->score++;
            reward += 1;
            if (PM_MAP[env->py][env->px] == 'x') {
                env->frightened_left = env->frightened_time;
                env->reverse = 1;
                for (int g = 0; g < PM_GHOSTS; g++) env->gfright[g] = !env->greturn[g];
            }
        }
    }
    for (int g = 0; g < PM_GHOSTS; g++) {
        int ox = env->gx[g], oy = env->gy[g];
        env->gtimeout[g]--;
        if (env->gfright[g] && env->ghalf[g]) {
            env->ghalf[g] = 0;  /* frightened ghosts move every other step */
        } else {
            env->ghalf[g] = 1;
            if (env->greturn[g]) {
                env->gtx[g] = L->ghost_start[g] % PM_W;
                env->gty[g] = L->ghost_start[g] / PM_W;
            }
            env->gdir[g] = pm_ghost_dir(env, g);
            if (env->gtimeout[g] < 0 && pm_open(env->gx[g], env->gy[g], env->gdir[g])) {
                env->gx[g] = (env->gx[g] + PM_DX[env->gdir[g]] + PM_W) % PM_W;
                env->gy[g] += PM_DY[env->gdir[g]];
            }
        }
        if (env->greturn[g]) {
            if (env->gy[g] * PM_W + env->gx[g] == L->ghost_start[g]) env->greturn[g] = 0;
            continue;
        }
        int meet = (env->gx[g] == env->px && env->gy[g] == env->py) ||
                   (env->gx[g] == opx && env->gy[g] == opy && ox == env->px && oy == env->py);
        if (!meet) continue;
        if (env->gfright[g]) {
            env->gfright[g] = env->ghalf[g] = 0;
            env->greturn[g] = 1;
            env->score++;
            env->eaten_ghosts++;
            reward += 1;
        } else {
            caught = 1;
        }
    }
    int terminal = caught || env->remaining == 0;
    int truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    pm_observe(env);
    if (terminal || truncated) {
        LOG_EPISODE(&env->log, .score = env->score, .episode_return = env->score, .episode_length = env->tick,
                    .ghosts_eaten = env->eaten_ghosts, .cleared = env->remaining == 0);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 0; y < PM_H; y++) {
        for (int x = 0; x < PM_W; x++) {
            char c = PM_MAP[y][x] == '#' ? '#' : ' ';
            if (env->pickup[y * PM_W + x]) c = PM_MAP[y][x] == 'x' ? 'o' : '.';
            for (int g = 0; g < PM_GHOSTS; g++)
                if (env->gx[g] == x && env->gy[g] == y) c = env->gfright[g] ? 'f' : env->greturn[g] ? '"' : "PBIC"[g];
            if (env->px == x && env->py == y) c = '@';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "score %d  %s\n", env->score, env->scatter ? "scatter" : "chase");
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    static const uint8_t GHOST_COLORS[PM_GHOSTS][3] = {{255, 170, 220}, {230, 30, 30}, {60, 220, 230}, {250, 170, 60}};
    int t = 16;
    draw_fill(px, w, h, PUFFER_BG);
    for (int y = 0; y < PM_H; y++)
        for (int x = 0; x < PM_W; x++) {
            if (PM_MAP[y][x] == '#') draw_rect(px, w, h, x * t, y * t, t, t, 40, 40, 160);
            else if (env->pickup[y * PM_W + x]) {
                int s = PM_MAP[y][x] == 'x' ? 8 : 4;
                draw_rect(px, w, h, x * t + (t - s) / 2, y * t + (t - s) / 2, s, s, 241, 241, 241);
            }
        }
    for (int g = 0; g < PM_GHOSTS; g++) {
        const uint8_t* c = env->gfright[g] ? (const uint8_t[3]){40, 40, 255} : GHOST_COLORS[g];
        if (env->greturn[g]) draw_rect(px, w, h, env->gx[g] * t + 4, env->gy[g] * t + 4, 8, 4, 255, 255, 255);
        else draw_rect(px, w, h, env->gx[g] * t + 1, env->gy[g] * t + 1, t - 2, t - 2, c[0], c[1], c[2]);
    }
    draw_rect(px, w, h, env->px * t + 1, env->py * t + 1, t - 2, t - 2, PUFFER_YELLOW);
}
