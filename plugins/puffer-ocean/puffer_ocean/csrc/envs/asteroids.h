/* asteroids: fly a ship on a wrapping field and shoot drifting rocks apart (Atari Asteroids,
 * after the rules of PufferLib's Ocean "asteroids"; a simplified version).
 *
 * A 1 x 1 field whose edges wrap (x and y modulo 1, y up); everything moves in continuous
 * positions. Actions (Discrete 5): 0 nothing, 1 turn left, 2 turn right (pi / 16 a step),
 * 3 thrust (+0.0015 along the heading), 4 fire. Every step the ship's velocity is scaled by
 * the drag 0.98 and capped at speed 0.02. Fire launches a bullet from the ship's nose at
 * speed 0.03 along the heading plus the ship's velocity, when the cooldown is over and fewer
 * than `max_bullets` fly; the cooldown then lasts `fire_cooldown` steps (it runs down one a
 * step, firing needs 0). A bullet flies `bullet_life` steps, then vanishes. Rocks come in 3
 * sizes (radius 0.08 large, 0.05 medium, 0.03 small) and drift at a fixed velocity (speeds
 * 0.003-0.006, 0.005-0.009, 0.007-0.012 by size). A bullet inside a rock is spent and the
 * rock is destroyed: a large one splits into two medium ones, a medium one into two small
 * ones (each at the parent's place, in random directions), a small one is gone; every rock
 * destroyed, of any size, pays +1. When the field is clear a new wave of `wave_size` +
 * (waves cleared) large rocks (at most 8) appears at random places at least `safe_dist` from
 * the ship (the first wave as well). The ship (radius 0.025) touching a rock costs a life
 * (no reward; the rock stays): the ship comes back at the centre, still, pointing up, and
 * rocks cannot touch it for `invuln_steps` steps. Step order: turn / thrust / fire, the ship,
 * bullets and rocks move, bullets hit rocks, bullets age, the ship meets rocks, a new wave.
 * The episode ends (terminal) when the `lives` run out and is truncated after `max_steps`
 * steps (final observation kept).
 * Observation (65 floats in [-1, 1]): the ship's velocity in its own frame (forward, left) /
 * 0.02, heading sin and cos, cooldown / fire_cooldown, bullets flying / max_bullets,
 * invulnerable steps left / invuln_steps, lives left / lives, rocks on the field / 32, and the
 * nearest 8 rocks (by distance to their surface, nearest first; zeros past the last): present,
 * offset from the ship (wrapped, in the ship's frame: forward, left) / 0.75, velocity relative
 * to the ship's (same frame) / 0.04, size (1/3, 2/3, 1), distance to the surface / 0.75.
 * score: rocks destroyed in the episode; waves: waves cleared.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(waves)
#define PARAMS(P) P(int, lives, 3, 1, 100) P(int, max_steps, 2000, 1, 10000000) P(int, wave_size, 4, 1, 8) \
    P(int, fire_cooldown, 4, 1, 1000) P(int, max_bullets, 4, 1, 8) P(int, bullet_life, 20, 1, 1000) \
    P(int, invuln_steps, 40, 0, 100000) P(float, safe_dist, 0.25, 0, 0.45)
#define AS_ROCK_F(F, i) F(float, ax[i]) F(float, ay[i]) F(float, avx[i]) F(float, avy[i]) F(int, asize[i])
#define AS_BULLET_F(F, i) F(float, bx[i]) F(float, by[i]) F(float, bvx[i]) F(float, bvy[i]) F(int, blife[i])
#define FIELDS(F) F(float, x) F(float, y) F(float, vx) F(float, vy) F(float, angle) F(int, cooldown) \
    F(int, invuln) F(int, lives_left) F(int, kills) F(int, wave) F(int, tick) F(int, n_rocks) F(int, n_bullets) \
    AS_ROCK_F(F, 0) AS_ROCK_F(F, 1) AS_ROCK_F(F, 2) AS_ROCK_F(F, 3) AS_BULLET_F(F, 0) AS_BULLET_F(F, 1)
#include "../puffer.h"

#define AS_ROCKS 32        /* 8 large rocks at most, each at most 4 small ones */
#define AS_BULLETS 8
#define AS_MAX_WAVE 8
#define AS_K 8             /* rocks observed */
#define AS_SHIP_OBS 9
#define AS_ROCK_OBS 7
#define AS_OBS (AS_SHIP_OBS + AS_K * AS_ROCK_OBS)
#define AS_PI 3.14159265f
#define AS_TURN (AS_PI / 16)
#define AS_THRUST 0.0015f
#define AS_DRAG 0.98f
#define AS_MAX_SPEED 0.02f
#define AS_BULLET_SPEED 0.03f
#define AS_SHIP_R 0.025f
#define AS_REACH 0.75f     /* offsets and distances are divided by it (a wrapped offset is under 0.71) */
#define AS_VEL 0.04f       /* relative velocities are divided by it */

static const float AS_RADIUS[3] = {0.03f, 0.05f, 0.08f};
static const float AS_SPEED_LO[3] = {0.007f, 0.005f, 0.003f}, AS_SPEED_HI[3] = {0.012f, 0.009f, 0.006f};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x, y, vx, vy, angle;
    int cooldown, invuln, lives_left, kills, wave, tick, n_rocks, n_bullets;
    float ax[AS_ROCKS], ay[AS_ROCKS], avx[AS_ROCKS], avy[AS_ROCKS];
    int asize[AS_ROCKS];   /* 0 small, 1 medium, 2 large */
    float bx[AS_BULLETS], by[AS_BULLETS], bvx[AS_BULLETS], bvy[AS_BULLETS];
    int blife[AS_BULLETS];
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, AS_OBS, -1, 1);
    ocean_act_discrete(s, 5);
    ocean_render_size(s, 256, 256);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline float as_clamp(float v) { return v < -1 ? -1 : v > 1 ? 1 : v; }
static inline float as_wrap(float v) {
    v -= floorf(v);
    return v < 1 ? v : 0;  /* a tiny negative v rounds up to 1 */
}
/* The shortest offset from a to b on the wrapping axis, in [-0.5, 0.5]. */
static inline float as_delta(float a, float b) {
    float d = b - a;
    return d > 0.5f ? d - 1 : d < -0.5f ? d + 1 : d;
}
/* Whether points a and b are closer than r on the wrapping field (the x gap rules most out). */
static inline int as_near(float ax, float ay, float bx, float by, float r) {
    float dx = fabsf(bx - ax);
    dx = dx < 0.5f ? dx : 1 - dx;
    if (dx >= r) return 0;
    float dy = fabsf(by - ay);
    dy = dy < 0.5f ? dy : 1 - dy;
    return dx * dx + dy * dy < r * r;
}

static void as_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    float c = cosf(env->angle), s = sinf(env->angle);
    obs[0] = as_clamp((env->vx * c + env->vy * s) / AS_MAX_SPEED);
    obs[1] = as_clamp((-env->vx * s + env->vy * c) / AS_MAX_SPEED);
    obs[2] = s;
    obs[3] = c;
    obs[4] = (float)env->cooldown / env->fire_cooldown;
    obs[5] = (float)env->n_bullets / env->max_bullets;
    obs[6] = env->invuln_steps > 0 ? (float)env->invuln / env->invuln_steps : 0;
    obs[7] = (float)env->lives_left / env->lives;
    int near[AS_K], k = 0;  /* the nearest rocks by surface distance, insertion-sorted */
    float dist[AS_ROCKS], dx[AS_ROCKS], dy[AS_ROCKS];
    for (int i = 0; i < env->n_rocks; i++) {
        dx[i] = as_delta(env->x, env->ax[i]);
        dy[i] = as_delta(env->y, env->ay[i]);
        dist[i] = sqrtf(dx[i] * dx[i] + dy[i] * dy[i]) - AS_RADIUS[env->asize[i]];
        int j = k < AS_K ? k++ : AS_K;
        if (j == AS_K && dist[i] >= dist[near[AS_K - 1]]) continue;
        if (j == AS_K) j = AS_K - 1;
        while (j > 0 && dist[near[j - 1]] > dist[i]) { near[j] = near[j - 1]; j--; }
        near[j] = i;
    }
    obs[8] = (float)env->n_rocks / AS_ROCKS;
    float* o = obs + AS_SHIP_OBS;
    memset(o, 0, sizeof(float) * AS_K * AS_ROCK_OBS);
    for (int n = 0; n < k; n++, o += AS_ROCK_OBS) {
        int i = near[n];
        float rvx = env->avx[i] - env->vx, rvy = env->avy[i] - env->vy;
        o[0] = 1;
        o[1] = (dx[i] * c + dy[i] * s) * (1 / AS_REACH);
        o[2] = (-dx[i] * s + dy[i] * c) * (1 / AS_REACH);
        o[3] = as_clamp((rvx * c + rvy * s) * (1 / AS_VEL));
        o[4] = as_clamp((-rvx * s + rvy * c) * (1 / AS_VEL));
        o[5] = (env->asize[i] + 1) * (1 / 3.0f);
        o[6] = as_clamp(dist[i] * (1 / AS_REACH));
    }
}

/* A rock of `size` at (x, y) drifting in a random direction; false when the field is full. */
static int as_add_rock(Env* env, int size, float x, float y) {
    if (env->n_rocks >= AS_ROCKS) return 0;
    int i = env->n_rocks++;
    float a = 2 * AS_PI * rng_float(&env->p.rng);
    float v = AS_SPEED_LO[size] + (AS_SPEED_HI[size] - AS_SPEED_LO[size]) * rng_float(&env->p.rng);
    env->ax[i] = x;
    env->ay[i] = y;
    env->avx[i] = v * cosf(a);
    env->avy[i] = v * sinf(a);
    env->asize[i] = size;
    return 1;
}

/* A wave of large rocks, each at least safe_dist (plus its radius) from the ship. */
static void as_spawn_wave(Env* env) {
    int count = env->wave_size + env->wave;
    if (count > AS_MAX_WAVE) count = AS_MAX_WAVE;
    float keep = env->safe_dist + AS_RADIUS[2];
    for (int n = 0; n < count; n++) {
        float x = 0, y = 0;
        for (int tries = 0; tries < 64; tries++) {
            x = rng_float(&env->p.rng);
            y = rng_float(&env->p.rng);
            float dx = as_delta(env->x, x), dy = as_delta(env->y, y);
            if (dx * dx + dy * dy >= keep * keep) break;
            x = as_wrap(env->x + 0.5f);  /* the farthest point, should every try fail */
            y = as_wrap(env->y + 0.5f);
        }
        as_add_rock(env, 2, x, y);
    }
}

static void as_place_ship(Env* env) {
    env->x = env->y = 0.5f;
    env->vx = env->vy = 0;
    env->angle = AS_PI / 2;
}

static void c_reset(Env* env) {
    as_place_ship(env);
    env->cooldown = env->invuln = 0;
    env->lives_left = env->lives;
    env->kills = env->wave = env->tick = 0;
    env->n_rocks = env->n_bullets = 0;
    env->ret = 0;
    as_spawn_wave(env);
    as_observe(env);
}

static void as_end(Env* env, int truncated) {
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    LOG_EPISODE(&env->log, .score = env->kills, .episode_return = env->ret, .episode_length = env->tick,
                .waves = env->wave);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

/* Rock i is destroyed: split into two of the next size down in its place, or removed. */
static void as_break(Env* env, int i) {
    int size = env->asize[i];
    float x = env->ax[i], y = env->ay[i];
    int last = --env->n_rocks;
    env->ax[i] = env->ax[last];
    env->ay[i] = env->ay[last];
    env->avx[i] = env->avx[last];
    env->avy[i] = env->avy[last];
    env->asize[i] = env->asize[last];
    if (size > 0) {
        as_add_rock(env, size - 1, x, y);
        as_add_rock(env, size - 1, x, y);
    }
}

static void c_step(Env* env) {
    float reward = 0;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    if (env->cooldown > 0) env->cooldown--;
    int a = env->p.actions[0];
    float c = cosf(env->angle), s = sinf(env->angle);
    if (a == 1 || a == 2) {
        env->angle += a == 1 ? AS_TURN : -AS_TURN;
        if (env->angle >= 2 * AS_PI) env->angle -= 2 * AS_PI;
        else if (env->angle < 0) env->angle += 2 * AS_PI;
    } else if (a == 3) {
        env->vx += AS_THRUST * c;
        env->vy += AS_THRUST * s;
    } else if (a == 4 && env->cooldown == 0 && env->n_bullets < env->max_bullets) {
        int b = env->n_bullets++;
        env->bx[b] = as_wrap(env->x + AS_SHIP_R * c);
        env->by[b] = as_wrap(env->y + AS_SHIP_R * s);
        env->bvx[b] = AS_BULLET_SPEED * c + env->vx;
        env->bvy[b] = AS_BULLET_SPEED * s + env->vy;
        env->blife[b] = env->bullet_life;
        env->cooldown = env->fire_cooldown;
    }
    env->vx *= AS_DRAG;
    env->vy *= AS_DRAG;
    float speed2 = env->vx * env->vx + env->vy * env->vy;
    if (speed2 > AS_MAX_SPEED * AS_MAX_SPEED) {
        float k = AS_MAX_SPEED / sqrtf(speed2);
        env->vx *= k;
        env->vy *= k;
    }
    env->x = as_wrap(env->x + env->vx);
    env->y = as_wrap(env->y + env->vy);
    for (int b = 0; b < env->n_bullets; b++) {
        env->bx[b] = as_wrap(env->bx[b] + env->bvx[b]);
        env->by[b] = as_wrap(env->by[b] + env->bvy[b]);
    }
    for (int i = 0; i < env->n_rocks; i++) {
        env->ax[i] = as_wrap(env->ax[i] + env->avx[i]);
        env->ay[i] = as_wrap(env->ay[i] + env->avy[i]);
    }
    for (int b = 0; b < env->n_bullets; b++) {
        for (int i = 0; i < env->n_rocks; i++) {
            if (!as_near(env->bx[b], env->by[b], env->ax[i], env->ay[i], AS_RADIUS[env->asize[i]])) continue;
            as_break(env, i);
            env->kills++;
            reward += 1.0f;
            env->blife[b] = 0;  /* spent */
            break;
        }
    }
    int kept = 0;  /* bullets age; spent and expired ones leave, the others keep their order */
    for (int b = 0; b < env->n_bullets; b++) {
        if (--env->blife[b] <= 0) continue;
        env->bx[kept] = env->bx[b];
        env->by[kept] = env->by[b];
        env->bvx[kept] = env->bvx[b];
        env->bvy[kept] = env->bvy[b];
        env->blife[kept++] = env->blife[b];
    }
    env->n_bullets = kept;
    if (env->invuln > 0) env->invuln--;
    else {
        for (int i = 0; i < env->n_rocks; i++) {
            if (!as_near(env->x, env->y, env->ax[i], env->ay[i], AS_SHIP_R + AS_RADIUS[env->asize[i]])) continue;
            env->lives_left--;
            as_place_ship(env);
            env->invuln = env->invuln_steps;
            break;
        }
    }
    if (env->n_rocks == 0) {
        env->wave++;
        as_spawn_wave(env);
    }
    env->p.rewards[0] = reward;
    env->ret += reward;
    as_observe(env);
    if (env->lives_left <= 0) as_end(env, 0);
    else if (env->tick >= env->max_steps) as_end(env, 1);
}

/* 16 rows x 32 columns (y up): rocks 'O' large, 'o' medium, '*' small on the cells whose
 * centre they cover, '\'' bullets, the ship '^' '<' 'v' '>' by heading ('A' while
 * invulnerable); then a status line. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char ROCK[3] = {'*', 'o', 'O'}, SHIP[4] = {'>', '^', '<', 'v'};
    enum { W = 32, H = 16 };
    char grid[H][W];
    memset(grid, '.', sizeof(grid));
    for (int r = 0; r < H; r++)
        for (int col = 0; col < W; col++) {
            float cx = (col + 0.5f) / W, cy = 1.0f - (r + 0.5f) / H;
            int best = -1;  /* the largest rock covering the cell */
            for (int i = 0; i < env->n_rocks; i++) {
                float dx = as_delta(cx, env->ax[i]), dy = as_delta(cy, env->ay[i]), rad = AS_RADIUS[env->asize[i]];
                if (dx * dx + dy * dy < rad * rad && env->asize[i] > best) best = env->asize[i];
            }
            if (best >= 0) grid[r][col] = ROCK[best];
        }
    for (int b = 0; b < env->n_bullets; b++) grid[H - 1 - (int)(env->by[b] * H) % H][(int)(env->bx[b] * W) % W] = '\'';
    int heading = (int)floorf(env->angle / (AS_PI / 2) + 0.5f) & 3;
    grid[H - 1 - (int)(env->y * H) % H][(int)(env->x * W) % W] = env->invuln > 0 ? 'A' : SHIP[heading];
    int len = 0;
    for (int r = 0; r < H; r++) ANSI_APPEND(buf, cap, len, "%.*s\n", W, grid[r]);
    ANSI_APPEND(buf, cap, len, "lives %d kills %d wave %d\n", env->lives_left, env->kills, env->wave + 1);
    return len;
}

/* A disc of radius r pixels at (cx, cy), wrapping round the canvas edges. */
static void as_disc(uint8_t* px, int w, int h, int cx, int cy, int r, uint8_t cr, uint8_t cg, uint8_t cb) {
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++) {
            if (dx * dx + dy * dy > r * r) continue;
            int xx = ((cx + dx) % w + w) % w, yy = ((cy + dy) % h + h) % h;
            uint8_t* q = px + 3 * (yy * w + xx);
            q[0] = cr; q[1] = cg; q[2] = cb;
        }
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int i = 0; i < env->n_rocks; i++)
        as_disc(px, w, h, (int)(env->ax[i] * w), (int)((1 - env->ay[i]) * h), (int)(AS_RADIUS[env->asize[i]] * w),
                PUFFER_GREY);
    for (int b = 0; b < env->n_bullets; b++)
        as_disc(px, w, h, (int)(env->bx[b] * w), (int)((1 - env->by[b]) * h), 1, PUFFER_YELLOW);
    const uint8_t* col = PUFFER_PALETTE[env->invuln > 0 ? 4 : 1];  /* cyan, blue while invulnerable */
    int sx = (int)(env->x * w), sy = (int)((1 - env->y) * h), r = (int)(AS_SHIP_R * w);
    as_disc(px, w, h, sx, sy, r * 2 / 3, col[0], col[1], col[2]);
    as_disc(px, w, h, sx + (int)(r * cosf(env->angle)), sy - (int)(r * sinf(env->angle)), 2, PUFFER_ORANGE);  /* the nose */
    for (int i = 0; i < env->lives_left && i < 10; i++) draw_rect(px, w, h, w - (i + 1) * 10, 2, 6, 6, PUFFER_GREEN);
}
