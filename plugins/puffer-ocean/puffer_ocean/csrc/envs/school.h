/* school: armies of air and ground units fight over a generated terrain (many agents per copy).
 *
 * The world: an arena x, z in [-size, size], height y in [-size_y, size_y], over a terrain whose
 * height at (x, z) is -size_y + relief * size_y * n(x, z) (relief 0: flat), n fractal value noise in [0, 1] (csrc/noise.h, a
 * 64 x 64 grid over the arena, lattice 16, three octaves; drawn per battle). `num_armies` armies
 * of num_agents / num_armies units each (num_agents 128 by default; the shipped config, as 3.0's,
 * 512), every unit an agent; each army has a base, placed at
 * random at least `size` from the others (after 64 tries, wherever the last try fell). Within an
 * army, unit i is by i mod 64: 0 a mothership, 1-4 tanks, 5-6 artillery, 7-10 bombers,
 * 11-14 fighters, 15-32 infantry, 33-63 drones; each type has its health, damage, range, turn
 * rate and speed (SC_UNITS below). Units start at their base (drones at their mothership), air
 * units 0.3 size_y above the ground, facing a random way.
 *
 * Action Box(3) in [-1, 1]: a0 pitch rate, a1 turn (yaw) rate, each x the unit's turn rate / 10
 * radians per step (pitch kept in [-1.2, 1.2]); a2 throttle: speed (0.75 + 0.25 a2) x the
 * unit's speed x 0.01 per step. Air units fly along their heading and pitch; ground units
 * ignore a0 and drive on the terrain (y is the ground's height).
 * Each step, after every unit moves: an air unit below the ground crashes, and a unit beyond
 * 0.95 of the arena (x, z) or above 0.95 size_y has left it: both pay -crash_penalty and end
 * that unit's life. Then every unit still alive attacks the nearest enemy its type can hit:
 *   drones, motherships, fighters: any unit within range (3D) and 30 degrees of their flight;
 *   bombers: a ground unit below them within range (horizontally);
 *   infantry, tanks: a ground unit within range and 30 degrees of their heading (horizontally);
 *   artillery: an air unit above it within range (horizontally).
 * A hit pays the attacker hit_reward and takes its damage from the target's health; a unit at
 * health 0 or less dies (its life ends, reward 0 for dying). A unit whose life ended (terminal)
 * starts again at once at its base (its final observation is kept). The battle is truncated
 * after max_steps steps: every unit's life is cut (truncation) and a new terrain and bases drawn.
 * score: a life's return (hits x hit_reward - crash_penalty if it crashed or left); hits: hits
 * per life; crash_rate, oob_rate, death_rate: how lives ended (the rest were cut by the battle's end).
 *
 * Observation (57 floats in [-1, 1]): 0-2 x / size, y / size_y, z / size; 3 height above the
 * ground / size_y; 4-6 the unit's direction of travel; 7 throttle (speed / the unit's top
 * speed); 8 health / the type's full health; 9-15 the type, one-hot (SC_UNITS order); 16 the
 * last step's reward. Offsets from here on are in the unit's own frame: (forward along its
 * heading in x, z; up; side, the way a positive turn a1 turns), not the world's. 17-19 its base,
 * 20-22 the nearest enemy base, 23-25 its army's centre, 26-28 the nearest enemy army's centre
 * (offsets / (2 size)); 29-48 the 4 nearest enemies within 1.0 (nearest first): offset / 1.0,
 * 1 if airborne, health / full health (zeros where fewer); 49 the battle's tick / max_steps;
 * the arena's bounds (walls at 0.95 size, the ceiling at 0.95 size_y: beyond, a life ends): 50 how
 * far the unit travels (along o[4-6]) before it leaves or, diving, reaches the height of the
 * ground under it now, 51 the nearest wall's distance (both / 1.0, at most 1), 52-53 the way to
 * that wall (forward, side), 54-55 the arena's centre (forward, side) / (2 size), 56 the room
 * above, to the ceiling / 1.0 (at most 1). (3.0 observes world coordinates only; its units, and
 * ours before these, learned not to crash and then flew out of the arena.)
 */
#define OCEAN_WRITES_FINAL 1  /* every ended life's last observation is kept */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(hits) X(crash_rate) X(oob_rate) \
    X(death_rate)
#define SC_MAX 1024        /* units per copy */
#define SC_MAX_ARMIES 8
#define PARAMS(P) P(int, num_agents, 128, 2, SC_MAX) P(int, num_armies, 2, 1, SC_MAX_ARMIES) \
    P(float, size, 2, 0.5, 4) P(float, size_y, 2, 0.25, 8) P(int, max_steps, 1024, 1, 10000000) \
    P(float, hit_reward, 0.25, 0, 100) P(float, crash_penalty, 1, 0, 100) P(float, relief, 1, 0, 1)
#define SC_UNIT_F(F, i) F(float, x[i]) F(float, y[i]) F(float, z[i]) F(float, yaw[i]) F(float, pitch[i]) \
    F(float, health[i]) F(int, unit[i]) F(int, army[i])
/* Units by index for tests: with 64 a army, 0 a mothership, 1 a tank, 5 artillery, 7 a bomber, 11 a
 * fighter, 15 infantry, 33 a drone; 64 on, the same of the second army. */
#define FIELDS(F) SC_UNIT_F(F, 0) SC_UNIT_F(F, 1) SC_UNIT_F(F, 5) SC_UNIT_F(F, 7) SC_UNIT_F(F, 11) SC_UNIT_F(F, 15) \
    SC_UNIT_F(F, 33) SC_UNIT_F(F, 64) SC_UNIT_F(F, 65) SC_UNIT_F(F, 69) SC_UNIT_F(F, 71) SC_UNIT_F(F, 75) \
    SC_UNIT_F(F, 79) SC_UNIT_F(F, 97) F(int, tick) \
    F(float, base_x[0]) F(float, base_z[0]) F(float, base_x[1]) F(float, base_z[1])
#include "../puffer.h"
#include "../noise.h"

#define SC_OBS 57
#define SC_EDGE 1.0f            /* the edge features see this far */
#define SC_TERRAIN 64
#define SC_CELL 0.25f            /* the spatial grid's cell (x, z) */
#define SC_GRID 32               /* cells per side: 2 x the largest size / SC_CELL */
#define SC_SENSE 1.0f
#define SC_SEEN 4
#define SC_COS30 0.8660254f
#define SC_SPEED 0.01f

enum { SC_DRONE, SC_MOTHERSHIP, SC_FIGHTER, SC_BOMBER, SC_INFANTRY, SC_TANK, SC_ARTILLERY, SC_TYPES };

typedef struct { int air; float health, damage, range, turn, speed; } ScUnit;
static const ScUnit SC_UNITS[SC_TYPES] = {
    [SC_DRONE] = {1, 0.4f, 0.1f, 0.15f, 2.0f, 1.0f},     [SC_MOTHERSHIP] = {1, 10.0f, 2.0f, 0.4f, 0.5f, 0.5f},
    [SC_FIGHTER] = {1, 1.0f, 0.5f, 0.25f, 1.0f, 0.75f},  [SC_BOMBER] = {1, 1.0f, 1.0f, 0.1f, 0.5f, 0.5f},
    [SC_INFANTRY] = {0, 0.2f, 0.2f, 0.2f, 2.0f, 0.25f},  [SC_TANK] = {0, 2.0f, 0.5f, 0.25f, 0.25f, 0.75f},
    [SC_ARTILLERY] = {0, 2.0f, 2.0f, 0.7f, 0.5f, 0.25f},
};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick, per_army;
    float base_x[SC_MAX_ARMIES], base_z[SC_MAX_ARMIES], centre[SC_MAX_ARMIES][3];
    float x[SC_MAX], y[SC_MAX], z[SC_MAX], yaw[SC_MAX], pitch[SC_MAX], throttle[SC_MAX], health[SC_MAX];
    float vx[SC_MAX], vy[SC_MAX], vz[SC_MAX], last_reward[SC_MAX], ret[SC_MAX], hits[SC_MAX];
    int unit[SC_MAX], army[SC_MAX], life[SC_MAX], target[SC_MAX];
    uint8_t ended[SC_MAX];                /* 1 crashed, 2 left the arena, 3 died (this step) */
    int cell_start[SC_MAX_ARMIES * SC_GRID * SC_GRID + 1], cell_items[SC_MAX], cell_of[SC_MAX];  /* per army */
    float terrain[SC_TERRAIN * SC_TERRAIN];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->num_agents % env->num_armies != 0) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents (%d) must be a multiple of num_armies (%d): every army has as many "
                 "units.", env->num_agents, env->num_armies);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, SC_OBS, -1, 1);
    ocean_act_box(s, 3, -1, 1);
    ocean_render_size(s, 256, 256);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->per_army = env->num_agents / env->num_armies;
    return 0;
}
static void c_close(Env* env) {}

/* The ground's height under (x, z) (nearest terrain sample; outside the arena, its edge's). */
static inline float sc_ground(const Env* env, float x, float z) {
    float scale = SC_TERRAIN / (2 * env->size);
    int ix = (int)((x + env->size) * scale), iz = (int)((z + env->size) * scale);
    ix = ix < 0 ? 0 : ix >= SC_TERRAIN ? SC_TERRAIN - 1 : ix;
    iz = iz < 0 ? 0 : iz >= SC_TERRAIN ? SC_TERRAIN - 1 : iz;
    return env->terrain[iz * SC_TERRAIN + ix];
}

static inline int sc_unit_type(int slot) {
    slot %= 64;
    return slot == 0 ? SC_MOTHERSHIP : slot <= 4 ? SC_TANK : slot <= 6 ? SC_ARTILLERY : slot <= 10 ? SC_BOMBER
         : slot <= 14 ? SC_FIGHTER : slot <= 32 ? SC_INFANTRY : SC_DRONE;
}

static void sc_velocity(Env* env, int i) {
    const ScUnit* u = &SC_UNITS[env->unit[i]];
    float sy, cy, sp, cp, speed = u->speed * SC_SPEED * env->throttle[i];
    fast_sincosf(env->yaw[i], &sy, &cy);
    fast_sincosf(env->pitch[i], &sp, &cp);
    env->vx[i] = speed * cp * cy;
    env->vy[i] = speed * sp;
    env->vz[i] = speed * cp * sy;
}

/* Unit i starts a life at its base (a drone at its mothership's place). */
static void sc_spawn(Env* env, int i) {
    int a = env->army[i], slot = i - a * env->per_army;
    float x = env->base_x[a], z = env->base_z[a];
    if (env->unit[i] == SC_DRONE) {
        int mothership = a * env->per_army + slot / 64 * 64;
        x = env->x[mothership];
        z = env->z[mothership];
    }
    x += 0.1f * (rng_float(&env->p.rng) - 0.5f);
    z += 0.1f * (rng_float(&env->p.rng) - 0.5f);
    float limit = 0.9f * env->size;
    env->x[i] = clampf(x, -limit, limit);
    env->z[i] = clampf(z, -limit, limit);
    float ground = sc_ground(env, env->x[i], env->z[i]);
    env->y[i] = SC_UNITS[env->unit[i]].air ? fminf(ground + 0.3f * env->size_y, 0.9f * env->size_y) : ground;
    env->yaw[i] = 6.2831853f * rng_float(&env->p.rng);
    env->pitch[i] = 0;
    env->throttle[i] = 1;
    env->health[i] = SC_UNITS[env->unit[i]].health;
    env->life[i] = 0;
    env->ret[i] = env->hits[i] = env->last_reward[i] = 0;
    sc_velocity(env, i);
}

/* Counting sort of the units by army, then grid cell (x, z): army a's cells are a * SC_GRID^2 on. */
static void sc_bin(Env* env) {
    int n = env->num_agents, cells = env->num_armies * SC_GRID * SC_GRID;
    float inv = 1.0f / SC_CELL;
    memset(env->cell_start, 0, sizeof(int) * (size_t)(cells + 1));
    for (int i = 0; i < n; i++) {
        int cx = (int)((env->x[i] + env->size) * inv), cz = (int)((env->z[i] + env->size) * inv);
        cx = cx < 0 ? 0 : cx >= SC_GRID ? SC_GRID - 1 : cx;
        cz = cz < 0 ? 0 : cz >= SC_GRID ? SC_GRID - 1 : cz;
        env->cell_of[i] = cz * SC_GRID + cx;
        env->cell_start[env->army[i] * SC_GRID * SC_GRID + env->cell_of[i] + 1]++;
    }
    for (int c = 0; c < cells; c++) env->cell_start[c + 1] += env->cell_start[c];
    int fill[SC_MAX_ARMIES * SC_GRID * SC_GRID];
    memcpy(fill, env->cell_start, sizeof(int) * (size_t)cells);
    for (int i = 0; i < n; i++) env->cell_items[fill[env->army[i] * SC_GRID * SC_GRID + env->cell_of[i]]++] = i;
}

/* Runs the block after `reach` (a statement using `j`) for every enemy of unit i in the cells within `reach`. */
#define SC_NEAR(env, i, reach, ...)                                                           \
    do {                                                                                      \
        int r_ = (int)ceilf((reach) / SC_CELL), c_ = (env)->cell_of[i];                       \
        int cx_ = c_ % SC_GRID, cz_ = c_ / SC_GRID;                                           \
        int x0_ = cx_ - r_ < 0 ? 0 : cx_ - r_, x1_ = cx_ + r_ >= SC_GRID ? SC_GRID - 1 : cx_ + r_; \
        int z0_ = cz_ - r_ < 0 ? 0 : cz_ - r_, z1_ = cz_ + r_ >= SC_GRID ? SC_GRID - 1 : cz_ + r_; \
        for (int b_ = 0; b_ < (env)->num_armies; b_++) {                                      \
            if (b_ == (env)->army[i]) continue;                                               \
            const int* start_ = (env)->cell_start + b_ * SC_GRID * SC_GRID;                   \
            for (int zz_ = z0_; zz_ <= z1_; zz_++)                                            \
                for (int k_ = start_[zz_ * SC_GRID + x0_]; k_ < start_[zz_ * SC_GRID + x1_ + 1]; k_++) { \
                    int j = (env)->cell_items[k_];                                            \
                    __VA_ARGS__;                                                              \
                }                                                                             \
        }                                                                                     \
    } while (0)

/* Can unit i hit unit j (an enemy) now? */
static inline int sc_can_hit(const Env* env, int i, int j, float* dist2) {
    const ScUnit* u = &SC_UNITS[env->unit[i]];
    int target_air = SC_UNITS[env->unit[j]].air;
    float dx = env->x[j] - env->x[i], dy = env->y[j] - env->y[i], dz = env->z[j] - env->z[i];
    float flat = dx * dx + dz * dz, range2 = u->range * u->range;
    *dist2 = flat + dy * dy;
    switch (env->unit[i]) {
    case SC_BOMBER:
        return !target_air && dy < 0 && flat <= range2;
    case SC_ARTILLERY:
        return target_air && dy > 0 && flat <= range2;
    case SC_INFANTRY:
    case SC_TANK: {
        if (target_air || flat > range2) return 0;
        float along = dx * env->vx[i] + dz * env->vz[i];
        float v2 = env->vx[i] * env->vx[i] + env->vz[i] * env->vz[i];
        return along > 0 && along * along >= SC_COS30 * SC_COS30 * flat * v2;
    }
    default: {
        if (*dist2 > range2) return 0;
        float along = dx * env->vx[i] + dy * env->vy[i] + dz * env->vz[i];
        float v2 = env->vx[i] * env->vx[i] + env->vy[i] * env->vy[i] + env->vz[i] * env->vz[i];
        return along > 0 && along * along >= SC_COS30 * SC_COS30 * *dist2 * v2;
    }
    }
}

static void sc_centres(Env* env) {
    float sum[SC_MAX_ARMIES][3] = {{0}};
    for (int i = 0; i < env->num_agents; i++) {
        sum[env->army[i]][0] += env->x[i];
        sum[env->army[i]][1] += env->y[i];
        sum[env->army[i]][2] += env->z[i];
    }
    for (int a = 0; a < env->num_armies; a++)
        for (int k = 0; k < 3; k++) env->centre[a][k] = sum[a][k] / env->per_army;
}

static void sc_observe(Env* env, int i) {
    float* restrict o = (float*)env->p.observations + (size_t)i * SC_OBS;  /* aliases no state */
    const ScUnit* u = &SC_UNITS[env->unit[i]];
    int a = env->army[i];
    float x = env->x[i], y = env->y[i], z = env->z[i], inv_span = 0.5f / env->size;
    o[0] = clampf(x / env->size, -1, 1);
    o[1] = clampf(y / env->size_y, -1, 1);
    o[2] = clampf(z / env->size, -1, 1);
    o[3] = clampf((y - sc_ground(env, x, z)) / env->size_y, -1, 1);
    float sy, cy, sp, cp;
    fast_sincosf(env->yaw[i], &sy, &cy);
    fast_sincosf(env->pitch[i], &sp, &cp);
    o[4] = cp * cy;
    o[5] = sp;
    o[6] = cp * sy;
    o[7] = env->throttle[i];
    o[8] = clampf(env->health[i] / u->health, 0, 1);
    for (int t = 0; t < SC_TYPES; t++) o[9 + t] = env->unit[i] == t;
    o[16] = clampf(env->last_reward[i], -1, 1);
    int near_base = -1, near_army = -1;
    float best_base = 1e30f, best_army = 1e30f;
    for (int b = 0; b < env->num_armies; b++) {
        if (b == a) continue;
        float dx = env->base_x[b] - x, dz = env->base_z[b] - z, d = dx * dx + dz * dz;
        if (d < best_base) { best_base = d; near_base = b; }
        dx = env->centre[b][0] - x;
        dz = env->centre[b][2] - z;
        d = dx * dx + dz * dz;
        if (d < best_army) { best_army = d; near_army = b; }
    }
    /* Offsets in the unit's own frame: forward along its heading (x, z), up, and side (the way a1 > 0 turns). */
#define SC_OWN(k, dx, dy, dz) do { float dx_ = (dx), dz_ = (dz);                                          \
        o[k] = clampf((dx_ * cy + dz_ * sy) * inv_span, -1, 1); o[(k) + 1] = clampf((dy) * inv_span, -1, 1); \
        o[(k) + 2] = clampf((dz_ * cy - dx_ * sy) * inv_span, -1, 1); } while (0)
    SC_OWN(17, env->base_x[a] - x, sc_ground(env, env->base_x[a], env->base_z[a]) - y, env->base_z[a] - z);
    o[20] = o[21] = o[22] = o[26] = o[27] = o[28] = 0;
    if (near_base >= 0) {
        SC_OWN(20, env->base_x[near_base] - x, sc_ground(env, env->base_x[near_base], env->base_z[near_base]) - y,
               env->base_z[near_base] - z);
        SC_OWN(26, env->centre[near_army][0] - x, env->centre[near_army][1] - y, env->centre[near_army][2] - z);
    }
    SC_OWN(23, env->centre[a][0] - x, env->centre[a][1] - y, env->centre[a][2] - z);
#undef SC_OWN
    /* The SC_SEEN nearest enemies within SC_SENSE, by insertion into a short sorted list. */
    int seen[SC_SEEN], count = 0;
    float dist[SC_SEEN];
    SC_NEAR(env, i, SC_SENSE, {
        if (env->army[j] != a) {
            float dx = env->x[j] - x, dy = env->y[j] - y, dz = env->z[j] - z, d = dx * dx + dy * dy + dz * dz;
            if (d <= SC_SENSE * SC_SENSE && (count < SC_SEEN || d < dist[SC_SEEN - 1])) {
                int k = count < SC_SEEN ? count++ : SC_SEEN - 1;
                while (k > 0 && dist[k - 1] > d) { dist[k] = dist[k - 1]; seen[k] = seen[k - 1]; k--; }
                dist[k] = d;
                seen[k] = j;
            }
        }
    });
    float* restrict e = o + 29;
    for (int k = 0; k < SC_SEEN; k++, e += 5) {
        if (k >= count) { e[0] = e[1] = e[2] = e[3] = e[4] = 0; continue; }
        int j = seen[k];
        float dx = env->x[j] - x, dz = env->z[j] - z;
        e[0] = clampf((dx * cy + dz * sy) * (1.0f / SC_SENSE), -1, 1);
        e[1] = clampf((env->y[j] - y) * (1.0f / SC_SENSE), -1, 1);
        e[2] = clampf((dz * cy - dx * sy) * (1.0f / SC_SENSE), -1, 1);
        e[3] = (float)SC_UNITS[env->unit[j]].air;
        e[4] = clampf(env->health[j] / SC_UNITS[env->unit[j]].health, 0, 1);
    }
    o[49] = (float)env->tick / (float)env->max_steps;
    /* The arena's bounds in the unit's frame: how far along its path to a wall, the ceiling or (diving)
     * the ground's height here; the nearest wall's distance and the way to it (forward, side); the
     * arena's centre (forward, side); the room above. */
    float lim = 0.95f * env->size, top = 0.95f * env->size_y, ahead = 1e30f;
    float fx = cp * cy, fz = cp * sy;                     /* the direction of travel (o[4-6]) */
    if (fx > 1e-6f) ahead = (lim - x) / fx;
    else if (fx < -1e-6f) ahead = (-lim - x) / fx;
    if (fz > 1e-6f) ahead = fminf(ahead, (lim - z) / fz);
    else if (fz < -1e-6f) ahead = fminf(ahead, (-lim - z) / fz);
    if (sp > 1e-6f) ahead = fminf(ahead, (top - y) / sp);
    else if (sp < -1e-6f) ahead = fminf(ahead, fmaxf(y - sc_ground(env, x, z), 0) / -sp);  /* the ground here */
    o[50] = clampf(ahead * (1.0f / SC_EDGE), 0, 1);
    float wall = lim - x, nx = 1, nz = 0;
    if (lim + x < wall) { wall = lim + x; nx = -1; nz = 0; }
    if (lim - z < wall) { wall = lim - z; nx = 0; nz = 1; }
    if (lim + z < wall) { wall = lim + z; nx = 0; nz = -1; }
    o[51] = clampf(wall * (1.0f / SC_EDGE), 0, 1);
    o[52] = nx * cy + nz * sy;
    o[53] = nz * cy - nx * sy;
    o[54] = clampf((-x * cy - z * sy) * inv_span, -1, 1);
    o[55] = clampf((x * sy - z * cy) * inv_span, -1, 1);
    o[56] = clampf((top - y) * (1.0f / SC_EDGE), 0, 1);
}

static void sc_observe_all(Env* env) {
    sc_bin(env);
    sc_centres(env);
    for (int i = 0; i < env->num_agents; i++) sc_observe(env, i);
}

static void c_reset(Env* env) {
    float span = env->size - 0.5f * (env->size > 1 ? 1 : env->size);  /* bases at most this far out */
    noise_fill(env->terrain, SC_TERRAIN, SC_TERRAIN, 16, 3, rng_next(&env->p.rng));
    for (int k = 0; k < SC_TERRAIN * SC_TERRAIN; k++) env->terrain[k] = env->size_y * (env->relief * env->terrain[k] - 1.0f);
    for (int a = 0; a < env->num_armies; a++)
        for (int tries = 0; tries < 64; tries++) {
            env->base_x[a] = span * (2 * rng_float(&env->p.rng) - 1);
            env->base_z[a] = span * (2 * rng_float(&env->p.rng) - 1);
            int apart = 1;
            for (int b = 0; b < a; b++) {
                float dx = env->base_x[a] - env->base_x[b], dz = env->base_z[a] - env->base_z[b];
                apart &= dx * dx + dz * dz >= env->size * env->size;
            }
            if (apart) break;
        }
    for (int i = 0; i < env->num_agents; i++) {
        env->army[i] = i / env->per_army;
        env->unit[i] = sc_unit_type(i - env->army[i] * env->per_army);
    }
    for (int i = 0; i < env->num_agents; i++) sc_spawn(env, i);  /* motherships (slot 0) before their drones */
    env->tick = 0;
    sc_observe_all(env);
}

static void sc_end_life(Env* env, int i, int how) {
    LOG_EPISODE(&env->log, .score = env->ret[i], .episode_return = env->ret[i], .episode_length = env->life[i],
                .hits = env->hits[i], .crash_rate = how == 1, .oob_rate = how == 2, .death_rate = how == 3);
}

static void c_step(Env* env) {
    int n = env->num_agents;
    float* restrict rewards = env->p.rewards;  /* aliases no state */
    float lim = 0.95f * env->size, top = 0.95f * env->size_y;
    env->tick++;
    for (int i = 0; i < n; i++) {
        const float* act = env->p.cont_actions + 3 * i;
        const ScUnit* u = &SC_UNITS[env->unit[i]];
        float turn = u->turn * 0.1f;
        env->yaw[i] += turn * act[1];
        env->yaw[i] -= env->yaw[i] > 6.2831853f ? 6.2831853f : env->yaw[i] < 0 ? -6.2831853f : 0;
        if (u->air) env->pitch[i] = clampf(env->pitch[i] + turn * act[0], -1.2f, 1.2f);
        env->throttle[i] = 0.75f + 0.25f * act[2];
        sc_velocity(env, i);
        env->x[i] += env->vx[i];
        env->z[i] += env->vz[i];
        float ground = sc_ground(env, env->x[i], env->z[i]);
        env->y[i] = u->air ? env->y[i] + env->vy[i] : ground;
        env->life[i]++;
        env->target[i] = -1;
        int how = u->air && env->y[i] < ground ? 1 : 0;
        if (!how && (fabsf(env->x[i]) > lim || fabsf(env->z[i]) > lim || env->y[i] > top)) how = 2;
        env->ended[i] = (uint8_t)how;
        rewards[i] = how ? -env->crash_penalty : 0;
    }
    sc_bin(env);
    for (int i = 0; i < n; i++) {
        if (env->ended[i]) continue;
        int best = -1, a = env->army[i];
        float best_d = 1e30f;
        SC_NEAR(env, i, SC_UNITS[env->unit[i]].range, {
            float d;
            if (env->army[j] != a && !env->ended[j] && sc_can_hit(env, i, j, &d) && d < best_d) { best_d = d; best = j; }
        });
        if (best >= 0) {
            env->target[i] = best;
            rewards[i] += env->hit_reward;
            env->hits[i] += 1;
        }
    }
    for (int i = 0; i < n; i++)
        if (env->target[i] >= 0) env->health[env->target[i]] -= SC_UNITS[env->unit[i]].damage;
    int truncated = env->tick >= env->max_steps;
    for (int i = 0; i < n; i++) {
        if (!env->ended[i] && env->health[i] <= 0) env->ended[i] = 3;
        env->ret[i] += rewards[i];
        env->last_reward[i] = rewards[i];
        env->p.terminals[i] = env->ended[i] != 0;
        env->p.truncations[i] = (uint8_t)(truncated && !env->ended[i]);
    }
    sc_centres(env);
    for (int i = 0; i < n; i++) sc_observe(env, i);
    if (truncated) {
        for (int i = 0; i < n; i++) {
            sc_end_life(env, i, env->ended[i]);
            ocean_keep_final(&env->p, i);
        }
        c_reset(env);
        return;
    }
    int any = 0;
    for (int i = 0; i < n; i++)
        if (env->ended[i]) {
            sc_end_life(env, i, env->ended[i]);
            ocean_keep_final(&env->p, i);
            sc_spawn(env, i);
            any = 1;
        }
    if (any) {
        sc_bin(env);
        for (int i = 0; i < n; i++)
            if (env->ended[i]) sc_observe(env, i);
    }
}

/* A top-down map, 48 x 24: each army's units by letter (a, b, ...; capitals airborne), bases as digits. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    enum { W = 48, H = 24 };
    char grid[H][W];
    memset(grid, '.', sizeof(grid));
    for (int i = 0; i < env->num_agents; i++) {
        int c = (int)((env->x[i] + env->size) / (2 * env->size) * W), r = (int)((env->z[i] + env->size) / (2 * env->size) * H);
        if (c >= 0 && c < W && r >= 0 && r < H)
            grid[r][c] = (char)((SC_UNITS[env->unit[i]].air ? 'A' : 'a') + env->army[i]);
    }
    for (int a = 0; a < env->num_armies; a++) {
        int c = (int)((env->base_x[a] + env->size) / (2 * env->size) * W), r = (int)((env->base_z[a] + env->size) / (2 * env->size) * H);
        if (c >= 0 && c < W && r >= 0 && r < H) grid[r][c] = (char)('0' + a);
    }
    int len = 0;
    for (int r = 0; r < H; r++) ANSI_APPEND(buf, cap, len, "%.*s\n", W, grid[r]);
    ANSI_APPEND(buf, cap, len, "tick %d\n", env->tick);
    return len;
}

/* The terrain shaded by height, units coloured by army (air units drawn larger), bases white. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    for (int r = 0; r < SC_TERRAIN; r++)
        for (int c = 0; c < SC_TERRAIN; c++) {
            int level = 20 + (int)(100 * (env->terrain[r * SC_TERRAIN + c] / env->size_y + 1.0f));
            draw_rect(px, w, h, c * w / SC_TERRAIN, r * h / SC_TERRAIN, w / SC_TERRAIN + 1, h / SC_TERRAIN + 1,
                      (uint8_t)(level / 2), (uint8_t)level, (uint8_t)(level / 2));
        }
    for (int i = 0; i < env->num_agents; i++) {
        const uint8_t* col = PUFFER_PALETTE[1 + env->army[i] % 7];
        int s = SC_UNITS[env->unit[i]].air ? 3 : 2;
        int c = (int)((env->x[i] + env->size) / (2 * env->size) * w), r = (int)((env->z[i] + env->size) / (2 * env->size) * h);
        draw_rect(px, w, h, c - s / 2, r - s / 2, s, s, col[0], col[1], col[2]);
    }
    for (int a = 0; a < env->num_armies; a++) {
        int c = (int)((env->base_x[a] + env->size) / (2 * env->size) * w), r = (int)((env->base_z[a] + env->size) / (2 * env->size) * h);
        draw_rect(px, w, h, c - 3, r - 3, 7, 7, 255, 255, 255);
    }
}
