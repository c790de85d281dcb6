/* terraform: bulldozers reshape a generated terrain toward a target height map (multi-agent).
 *
 * The world: a map_size x map_size grid of soil columns, heights in [0, max_height]. Each
 * episode draws a new start map and target map (fractal value noise, csrc/noise.h, both of lattice
 * `feature_size` cells: the start of three octaves, the target smoother, of two),
 * both stretched to [0, max_height]; the target is then scaled to hold the start's volume of
 * soil (capped at max_height), so the job is mostly moving soil, not making or losing it.
 *
 * `num_agents` dozers (each an agent) stand on distinct cells. Action MultiDiscrete([5, 3]):
 *   a0 move: 0 stay, 1 up (y - 1), 2 down (y + 1), 3 left (x - 1), 4 right (x + 1). A move is
 *      refused (the dozer stays) off the map, onto another dozer's cell, or onto a cell whose
 *      height differs from the dozer's cell by more than max_climb (too steep).
 *   a1 blade, on the cell the dozer stands on after its move: 0 nothing; 1 dig: take
 *      min(dig_amount, the cell's height, capacity - load) into the load; 2 dump: put
 *      min(dig_amount, load, max_height - the cell's height) from the load onto the cell.
 * Dozers act in order (dozer 0 first), so a dozer may move into a cell another left this step.
 * Reward per step: the fall of |height - target| on the cell the dozer worked (in soil units;
 * a dig of 1 from a cell 1 or more too high pays +1, from a cell too low -1). The error E is
 * the sum of |height - target| over the map; the episode (the whole copy) is truncated after
 * max_steps steps and a new map drawn. score: the share of the start's error removed,
 * 1 - E_end / E_start (negative when the dozers made it worse), the same for every dozer of the
 * copy; dug: soil units a dozer dug in its episode.
 *
 * Observation (399 floats in [-1, 1]), a window of 11 x 11 cells centred on the dozer (row-major,
 * dy then dx from -5 to 5), three planes:
 *   0-120   height / max_height (-1 off the map)
 *   121-241 (target - height) / max_height (0 off the map): > 0 wants soil, < 0 has too much
 *   242-362 1 where another dozer stands
 *   363 load / capacity, 364 x / (map_size - 1), 365 y / (map_size - 1), 366 tick / max_steps
 *   367-398 the map in 4 x 4 regions (row-major; region column x * 4 / map_size), two each: the
 *           mean of (height - target) / max_height (> 0: soil to take) and of |height - target|
 *           / max_height (work left there).
 */
#define OCEAN_WRITES_FINAL 1  /* every ended episode's last observation is kept */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(dug)
#define TF_MAX 64        /* largest map side */
#define TF_MAX_DOZERS 64
#define PARAMS(P) P(int, map_size, 64, 8, TF_MAX) P(int, num_agents, 8, 1, TF_MAX_DOZERS) \
    P(int, max_steps, 1024, 1, 10000000) P(float, max_height, 8, 1, 1000) P(float, dig_amount, 1, 0.01, 1000) \
    P(float, capacity, 4, 0.01, 100000) P(float, max_climb, 4, 0, 1000) \
    P(int, feature_size, 8, 1, 256)
/* The cells of an 8 x 8 map (cell (x, y) is y * 8 + x), for hand-set tests. */
#define TF_CELLS(F, a) \
    F(float, a[0]) F(float, a[1]) F(float, a[2]) F(float, a[3]) F(float, a[4]) F(float, a[5]) \
    F(float, a[6]) F(float, a[7]) F(float, a[8]) F(float, a[9]) F(float, a[10]) F(float, a[11]) \
    F(float, a[12]) F(float, a[13]) F(float, a[14]) F(float, a[15]) F(float, a[16]) F(float, a[17]) \
    F(float, a[18]) F(float, a[19]) F(float, a[20]) F(float, a[21]) F(float, a[22]) F(float, a[23]) \
    F(float, a[24]) F(float, a[25]) F(float, a[26]) F(float, a[27]) F(float, a[28]) F(float, a[29]) \
    F(float, a[30]) F(float, a[31]) F(float, a[32]) F(float, a[33]) F(float, a[34]) F(float, a[35]) \
    F(float, a[36]) F(float, a[37]) F(float, a[38]) F(float, a[39]) F(float, a[40]) F(float, a[41]) \
    F(float, a[42]) F(float, a[43]) F(float, a[44]) F(float, a[45]) F(float, a[46]) F(float, a[47]) \
    F(float, a[48]) F(float, a[49]) F(float, a[50]) F(float, a[51]) F(float, a[52]) F(float, a[53]) \
    F(float, a[54]) F(float, a[55]) F(float, a[56]) F(float, a[57]) F(float, a[58]) F(float, a[59]) \
    F(float, a[60]) F(float, a[61]) F(float, a[62]) F(float, a[63])
#define TF_DOZER_F(F, i) F(int, dx[i]) F(int, dy[i]) F(float, load[i])
#define FIELDS(F) TF_DOZER_F(F, 0) TF_DOZER_F(F, 1) TF_DOZER_F(F, 2) F(int, tick) F(double, error) \
    F(double, error0) TF_CELLS(F, height) TF_CELLS(F, target)
#include "../puffer.h"
#include "../noise.h"

#define TF_VIEW 5
#define TF_SIDE (2 * TF_VIEW + 1)
#define TF_PLANE (TF_SIDE * TF_SIDE)
#define TF_REG 4
#define TF_OBS (3 * TF_PLANE + 4 + 2 * TF_REG * TF_REG)

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick;
    double error, error0;                 /* sum of |height - target| now and at the episode's start */
    int dx[TF_MAX_DOZERS], dy[TF_MAX_DOZERS];
    float load[TF_MAX_DOZERS], ret[TF_MAX_DOZERS], dug[TF_MAX_DOZERS];
    float reg_signed[TF_REG * TF_REG], reg_abs[TF_REG * TF_REG], reg_inv_count[TF_REG * TF_REG];
    float height[TF_MAX * TF_MAX], target[TF_MAX * TF_MAX];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (2 * env->num_agents > env->map_size * env->map_size) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents (%d) must be at most half the %d cells of the map: lower num_agents "
                 "or raise map_size.", env->num_agents, env->map_size * env->map_size);
        return 1;
    }
    if (env->dig_amount > env->capacity) {
        snprintf(err, OCEAN_ERR_LEN, "dig_amount (%g) must not exceed capacity (%g): a dig could never fill.",
                 env->dig_amount, env->capacity);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, TF_OBS, -1, 1);
    ocean_act_multidiscrete(s, 2, (const int[]){5, 3});
    ocean_render_size(s, 8 * env->map_size, 8 * env->map_size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int tf_region(const Env* env, int x, int y) {
    return (y * TF_REG / env->map_size) * TF_REG + x * TF_REG / env->map_size;
}

/* The dozer on cell (x, y), or -1. */
static inline int tf_dozer_at(const Env* env, int x, int y) {
    for (int a = 0; a < env->num_agents; a++)
        if (env->dx[a] == x && env->dy[a] == y) return a;
    return -1;
}

static void tf_observe(Env* env) {
    int n = env->map_size;
    float inv = 1.0f / env->max_height, inv_pos = 1.0f / (float)(n - 1);
    float regions[2 * TF_REG * TF_REG];
    for (int r = 0; r < TF_REG * TF_REG; r++) {
        regions[2 * r] = env->reg_signed[r] * env->reg_inv_count[r] * inv;
        regions[2 * r + 1] = env->reg_abs[r] * env->reg_inv_count[r] * inv;
    }
    for (int a = 0; a < env->num_agents; a++) {
        float* restrict obs = (float*)env->p.observations + (size_t)a * TF_OBS;  /* aliases no state */
        int cx = env->dx[a], cy = env->dy[a];
        int x0 = cx - TF_VIEW < 0 ? TF_VIEW - cx : 0;                 /* first window column on the map */
        int x1 = cx + TF_VIEW >= n ? TF_VIEW + n - 1 - cx : TF_SIDE - 1; /* last one */
        for (int wy = 0; wy < TF_SIDE; wy++) {
            float* restrict oh = obs + wy * TF_SIDE;
            float* restrict od = oh + TF_PLANE;
            int y = cy + wy - TF_VIEW;
            if (y < 0 || y >= n) {
                for (int wx = 0; wx < TF_SIDE; wx++) { oh[wx] = -1; od[wx] = 0; }
                continue;
            }
            int row = y * n + cx - TF_VIEW;  /* map index of window column 0 (negative at the left edge) */
            for (int wx = 0; wx < x0; wx++) { oh[wx] = -1; od[wx] = 0; }
            for (int wx = x0; wx <= x1; wx++) {
                float h = env->height[row + wx];
                oh[wx] = h * inv;
                od[wx] = (env->target[row + wx] - h) * inv;
            }
            for (int wx = x1 + 1; wx < TF_SIDE; wx++) { oh[wx] = -1; od[wx] = 0; }
        }
        float* restrict oo = obs + 2 * TF_PLANE;
        memset(oo, 0, sizeof(float) * TF_PLANE);
        for (int b = 0; b < env->num_agents; b++) {
            int ox = env->dx[b] - cx + TF_VIEW, oy = env->dy[b] - cy + TF_VIEW;
            if (b != a && ox >= 0 && ox < TF_SIDE && oy >= 0 && oy < TF_SIDE) oo[oy * TF_SIDE + ox] = 1;
        }
        float* restrict tail = obs + 3 * TF_PLANE;
        tail[0] = env->load[a] / env->capacity;
        tail[1] = (float)cx * inv_pos;
        tail[2] = (float)cy * inv_pos;
        tail[3] = (float)env->tick / (float)env->max_steps;
        memcpy(tail + 4, regions, sizeof(regions));
    }
}

/* The error and the region sums, from the maps. */
static void tf_measure(Env* env) {
    int n = env->map_size;
    double error = 0;
    float count[TF_REG * TF_REG] = {0};
    for (int r = 0; r < TF_REG * TF_REG; r++) env->reg_signed[r] = env->reg_abs[r] = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            float d = env->height[y * n + x] - env->target[y * n + x];
            int r = tf_region(env, x, y);
            env->reg_signed[r] += d;
            env->reg_abs[r] += fabsf(d);
            count[r] += 1;
            error += fabsf(d);
        }
    for (int r = 0; r < TF_REG * TF_REG; r++) env->reg_inv_count[r] = count[r] > 0 ? 1.0f / count[r] : 0;
    env->error = error;
}

static void c_reset(Env* env) {
    int n = env->map_size, cells = n * n;
    uint64_t seed_start = rng_next(&env->p.rng), seed_target = rng_next(&env->p.rng);
    noise_fill(env->height, n, n, env->feature_size, 3, seed_start);
    noise_fill(env->target, n, n, env->feature_size, 2, seed_target);
    double volume = 0, target_volume = 0;
    for (int i = 0; i < cells; i++) {
        env->height[i] *= env->max_height;
        env->target[i] *= env->max_height;
        volume += env->height[i];
        target_volume += env->target[i];
    }
    float scale = target_volume > 0 ? (float)(volume / target_volume) : 1.0f;
    for (int i = 0; i < cells; i++) {
        float t = env->target[i] * scale;
        env->target[i] = t < env->max_height ? t : env->max_height;
    }
    for (int a = 0; a < env->num_agents; a++) {
        env->dx[a] = env->dy[a] = -1;  /* not on the map while the others are placed */
        int x, y;
        do {
            x = rng_int(&env->p.rng, n);
            y = rng_int(&env->p.rng, n);
        } while (tf_dozer_at(env, x, y) >= 0);
        env->dx[a] = x;
        env->dy[a] = y;
        env->load[a] = env->ret[a] = env->dug[a] = 0;
    }
    env->tick = 0;
    tf_measure(env);
    env->error0 = env->error;
    tf_observe(env);
}

static void c_step(Env* env) {
    static const int MX[5] = {0, 0, 0, -1, 1}, MY[5] = {0, -1, 1, 0, 0};
    int n = env->map_size;
    float* restrict rewards = env->p.rewards;  /* aliases no state */
    env->tick++;
    for (int a = 0; a < env->num_agents; a++) {
        const int32_t* act = env->p.actions + 2 * a;
        int x = env->dx[a], y = env->dy[a];
        if (act[0]) {
            int nx = x + MX[act[0]], ny = y + MY[act[0]];
            if (nx >= 0 && nx < n && ny >= 0 && ny < n &&
                fabsf(env->height[ny * n + nx] - env->height[y * n + x]) <= env->max_climb && tf_dozer_at(env, nx, ny) < 0) {
                env->dx[a] = x = nx;
                env->dy[a] = y = ny;
            }
        }
        float reward = 0;
        if (act[1]) {
            int cell = y * n + x;
            float h = env->height[cell], t = env->target[cell], amount;
            if (act[1] == 1) {
                amount = fminf(env->dig_amount, fminf(h, env->capacity - env->load[a]));
                amount = amount > 0 ? amount : 0;
                env->dug[a] += amount;
                env->load[a] += amount;
                amount = -amount;
            } else {
                amount = fminf(env->dig_amount, fminf(env->load[a], env->max_height - h));
                amount = amount > 0 ? amount : 0;
                env->load[a] -= amount;
            }
            float after = h + amount;
            env->height[cell] = after;
            reward = fabsf(h - t) - fabsf(after - t);
            int r = tf_region(env, x, y);
            env->reg_signed[r] += amount;
            env->reg_abs[r] -= reward;
            env->error -= reward;
        }
        rewards[a] = reward;
        env->ret[a] += reward;
    }
    int truncated = env->tick >= env->max_steps;
    memset(env->p.terminals, 0, (size_t)env->num_agents);
    memset(env->p.truncations, truncated, (size_t)env->num_agents);
    tf_observe(env);
    if (truncated) {
        float score = env->error0 > 0 ? (float)(1.0 - env->error / env->error0) : 0.0f;
        for (int a = 0; a < env->num_agents; a++) {
            LOG_EPISODE(&env->log, .score = score, .episode_return = env->ret[a], .episode_length = env->tick,
                        .dug = env->dug[a]);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

/* One character per cell: a dozer's number (# from 10), else '+' for soil to take (height over
 * the target by more than half a dig), '-' for soil wanted, '.' within it. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int n = env->map_size, len = 0;
    float tol = 0.5f * env->dig_amount;
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            int a = tf_dozer_at(env, x, y);
            float d = env->height[y * n + x] - env->target[y * n + x];
            char c = a >= 0 ? (a < 10 ? (char)('0' + a) : '#') : d > tol ? '+' : d < -tol ? '-' : '.';
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    float score = env->error0 > 0 ? (float)(1.0 - env->error / env->error0) : 0.0f;
    ANSI_APPEND(buf, cap, len, "tick %d error %.1f removed %.3f\n", env->tick, env->error, score);
    return len;
}

/* Cells shaded by height, red where soil is to take, blue where it is wanted; dozers yellow. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->map_size, t = 8;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            float level = env->height[y * n + x] / env->max_height;
            float d = (env->height[y * n + x] - env->target[y * n + x]) / env->max_height;
            int base = 40 + (int)(120 * level), red = base + (d > 0 ? (int)(95 * d) : 0);
            int blue = base + (d < 0 ? (int)(-95 * d) : 0);
            draw_rect(px, w, h, x * t, y * t, t, t, (uint8_t)red, (uint8_t)base, (uint8_t)blue);
        }
    for (int a = 0; a < env->num_agents; a++)
        draw_rect(px, w, h, env->dx[a] * t + 1, env->dy[a] * t + 1, t - 2, t - 2, PUFFER_YELLOW);
}
