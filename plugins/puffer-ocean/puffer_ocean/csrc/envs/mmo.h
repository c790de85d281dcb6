/* mmo: a massively multi-agent world: hundreds of agents forage, fight and level up on one
 * procedurally generated map per copy (Neural MMO's survival core, in the spirit of PufferLib 3.0's
 * nmmo3; written here from the rules below).
 *
 * The map (drawn at reset, nothing read from a file): `map_size` x `map_size` cells from two
 * fields of value noise (lattice values hashed from the copy's random state, three octaves of
 * 8, 4 and 2 cells, smoothstep-interpolated): the lowest 15% of the elevation is water, the highest 10% stone (both
 * impassable), and 30% of the remaining land, where the second field is highest, forest; the
 * rest is grass. `terrain` 1 draws a fixed test layout instead: column 0 water, column 2
 * forest, column 4 stone, grass elsewhere. Outside the map counts as stone.
 *
 * `num_agents` agents (each an agent row) and `num_npcs` NPCs stand on passable cells, one
 * entity per cell (the class's defaults, 16 agents and 4 NPCs on 32 x 32, keep tests small; the
 * spec's, which `pufferlib.make` and `puffer train` use, are 128 and 32 on 64 x 64). An agent has health (100 + 10 per level above 1), food and water (0-100,
 * starting full). Actions, Discrete(8): 0 stay; 1-4 move up, down, left, right (into a passable
 * empty cell, else nothing); 5 use: eat the food of the forest cell it stands on, and drink from
 * the first stocked water cell among its 4 neighbours (up, down, left, right), each only while
 * that stat is below 100: +50 (capped), and the cell's stock is gone until it regrows
 * `food_regrow` (forest) or `water_regrow` (water) steps later; 6 melee: hit the best target
 * within 1 cell (8 neighbours) for 10 + 2 (level - 1); 7 range: hit the best target within 3
 * cells for 5 + (level - 1). The best target: NPCs before agents, then the nearest (Chebyshev),
 * then the lowest health, then scan order (rows top down, each left to right).
 * Agents act in index order; one killed earlier in the step does nothing.
 * Then each NPC (health 40) hits the first agent among its 8 neighbours (scan order) for 8, or
 * else with probability 1/2 steps in a random direction; a killed NPC comes back `npc_respawn`
 * steps later (at the start of that step, before the agents act) on a random free cell. Then each agent's food and water fall by 1 (not
 * below 0); each at 0 costs 5 health, and with both at 50 or more it heals 2.
 * XP: 1 per use that ate or drank, 10 per NPC killed, `kill_xp` x the victim's level per agent killed
 * (0 by default: with 5, agents learned to hunt each other and lived barely longer than random play);
 * level = 1 + XP / 20, at most 10; a level gained adds 10 health.
 *
 * Reward: reward_forage x (food + water restored) / 100, reward_level per level gained, and
 * reward_death when the agent dies. An agent's episode is its life: it ends at 0 health
 * (terminal) or is truncated after `max_steps` steps (final observation kept); the agent starts
 * again at once, full, on a random free cell.
 *
 * Observation (uint8, 1,328 values in [0, 10]): an 11 x 15 window (rows x columns) centred on the
 * agent, 8 bytes per cell: water, stone (or outside the map), forest, food there, water there
 * (a stocked water cell), an agent, an NPC, the entity's health in tenths of its maximum; then
 * the agent's own food / 10, water / 10, health in tenths, level, age in tenths of max_steps,
 * XP toward the next level / 2, can eat here (1/0), can drink here (1/0).
 *
 * Logs, per finished life (score: its length in steps): food and water (times eaten and drunk),
 * forage_rate (both per 100 steps of life), kills (agents), npc_kills, level, starved / killed
 * (how it died; neither: truncated); and the population when it ended: pop_level (mean level of
 * the copy's agents), pop_age (their mean age), npcs_alive (share of NPCs alive).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended life's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(food) X(water) X(forage_rate) X(kills) \
    X(npc_kills) X(level) X(starved) X(killed) X(pop_level) X(pop_age) X(npcs_alive)
#define MMO_MAX_AGENTS 1024
#define MMO_MAX_NPCS 2048
#define PARAMS(P) P(int, num_agents, 16, 1, MMO_MAX_AGENTS) P(int, map_size, 32, 16, 512) \
    P(int, num_npcs, 4, 0, MMO_MAX_NPCS) P(int, max_steps, 1000, 1, 1000000) P(int, terrain, 0, 0, 1) \
    P(int, food_regrow, 50, 1, 1000000) P(int, water_regrow, 10, 1, 1000000) P(int, npc_respawn, 50, 1, 1000000) P(int, kill_xp, 0, 0, 100) \
    P(float, reward_forage, 1, 0, 10) P(float, reward_level, 0.5, 0, 10) P(float, reward_death, -1, -10, 0)
#define MMO_AGENT_F(F, i) F(int, r[i]) F(int, c[i]) F(int, hp[i]) F(int, food[i]) F(int, water[i]) F(int, xp[i]) \
    F(int, level[i]) F(int, age[i]) F(int, kills[i]) F(int, npc_kills[i])
#define MMO_NPC_F(F, i) F(int, npc_r[i]) F(int, npc_c[i]) F(int, npc_hp[i]) F(int, npc_timer[i])
#define FIELDS(F) MMO_AGENT_F(F, 0) MMO_AGENT_F(F, 1) MMO_AGENT_F(F, 2) MMO_NPC_F(F, 0) MMO_NPC_F(F, 1) \
    F(int, tick) F(int, relink)
#include "../puffer.h"

#define MMO_YW 5                 /* window half-height: 11 rows */
#define MMO_XW 7                 /* window half-width: 15 columns */
#define MMO_CH 8                 /* bytes per cell */
#define MMO_WINDOW ((2 * MMO_YW + 1) * (2 * MMO_XW + 1) * MMO_CH)
#define MMO_SELF 8
#define MMO_OBS (MMO_WINDOW + MMO_SELF)
#define MMO_ACTIONS 8
#define MMO_STAT_MAX 100
#define MMO_GAIN 50
#define MMO_STARVE 5
#define MMO_HEAL 2
#define MMO_HP_BASE 100
#define MMO_HP_LEVEL 10
#define MMO_MAX_LEVEL 10
#define MMO_XP_LEVEL 20
#define MMO_NPC_HP 40
#define MMO_NPC_DAMAGE 8
#define MMO_NPC 4096             /* occupant ids: agents 0.., NPCs MMO_NPC + j */
#define MMO_TRIES 64

enum { C_WATER = 0, C_STONE, C_FOREST, C_FOOD, C_DRINK, C_AGENT, C_NPC, C_HP };  /* the bytes of a cell */
enum { END_NONE = 0, END_STARVED, END_KILLED };
static const int MMO_DR[5] = {0, -1, 1, 0, 0}, MMO_DC[5] = {0, 0, 0, -1, 1};

typedef struct {
    int* cell;  /* padded cell indices waiting to regrow, in the order they were emptied */
    int* due;   /* the tick each regrows */
    int head, tail, cap;
} MmoQueue;

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick, relink;             /* relink: set to 1 after editing positions or health (tests) */
    int pw, ph;                   /* the padded map: a border as wide as the window's half */
    uint8_t* cells;               /* ph x pw x MMO_CH: each cell's observation bytes */
    int16_t* occ;                 /* ph x pw: -1 empty, else the occupant id */
    float* noise;                 /* map_size^2 scratch for map generation */
    MmoQueue food_q, water_q;
    int r[MMO_MAX_AGENTS], c[MMO_MAX_AGENTS], hp[MMO_MAX_AGENTS], food[MMO_MAX_AGENTS], water[MMO_MAX_AGENTS];
    int xp[MMO_MAX_AGENTS], level[MMO_MAX_AGENTS], age[MMO_MAX_AGENTS], kills[MMO_MAX_AGENTS];
    int npc_kills[MMO_MAX_AGENTS], food_got[MMO_MAX_AGENTS], water_got[MMO_MAX_AGENTS];
    float ret[MMO_MAX_AGENTS], rew[MMO_MAX_AGENTS];
    uint8_t end[MMO_MAX_AGENTS];  /* END_*: how the agent's life ended this step */
    int npc_r[MMO_MAX_NPCS], npc_c[MMO_MAX_NPCS], npc_hp[MMO_MAX_NPCS];
    int npc_timer[MMO_MAX_NPCS];  /* steps until a dead NPC returns (0: alive) */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int room = env->map_size * env->map_size / 4;
    if (env->num_agents + env->num_npcs > room) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents=%d and num_npcs=%d do not fit a map of %d x %d (at most a quarter of "
                 "its %d cells, %d): raise map_size or lower num_agents or num_npcs.", env->num_agents, env->num_npcs,
                 env->map_size, env->map_size, env->map_size * env->map_size, room);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_bytes(s, MMO_OBS, 0, 10);
    ocean_act_discrete(s, MMO_ACTIONS);
    ocean_render_size(s, 512, 512);
    return 0;
}

static int mmo_queue_init(MmoQueue* q, int cap) {
    q->cell = (int*)malloc(sizeof(int) * (size_t)cap);
    q->due = (int*)malloc(sizeof(int) * (size_t)cap);
    q->cap = cap;
    q->head = q->tail = 0;
    return q->cell && q->due;
}

static int c_init(Env* env, char* err) {
    env->pw = env->map_size + 2 * MMO_XW;
    env->ph = env->map_size + 2 * MMO_YW;
    size_t n = (size_t)env->pw * env->ph, m = (size_t)env->map_size * env->map_size;
    env->cells = (uint8_t*)malloc(n * MMO_CH);
    env->occ = (int16_t*)malloc(n * sizeof(int16_t));
    env->noise = (float*)malloc(m * sizeof(float));
    /* a cell is in its queue at most once (only a stocked cell empties), so each holds every cell */
    int ok = mmo_queue_init(&env->food_q, (int)m + 1) && mmo_queue_init(&env->water_q, (int)m + 1);
    if (!ok || !env->cells || !env->occ || !env->noise) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory for a %d x %d map", env->map_size, env->map_size);
        return 1;
    }
    return 0;
}

static void c_close(Env* env) {
    free(env->cells);
    free(env->occ);
    free(env->noise);
    free(env->food_q.cell);
    free(env->food_q.due);
    free(env->water_q.cell);
    free(env->water_q.due);
    env->cells = NULL;
    env->occ = NULL;
    env->noise = NULL;
    env->food_q.cell = env->food_q.due = env->water_q.cell = env->water_q.due = NULL;
}

/* ---- the map ---- */

static inline int mmo_at(const Env* env, int r, int c) { return (r + MMO_YW) * env->pw + c + MMO_XW; }
static inline uint8_t* mmo_cell(Env* env, int i) { return env->cells + (size_t)i * MMO_CH; }
static inline int mmo_free(const Env* env, int i) {
    const uint8_t* b = env->cells + (size_t)i * MMO_CH;
    return !b[C_WATER] && !b[C_STONE] && env->occ[i] < 0;
}

static void mmo_push(MmoQueue* q, int cell, int due) {
    q->cell[q->tail] = cell;
    q->due[q->tail] = due;
    q->tail = q->tail + 1 == q->cap ? 0 : q->tail + 1;
}

/* A lattice value in [0, 1) hashed from (seed, octave, x, y): no table to store. */
static inline float mmo_hash(uint64_t seed, int octave, int x, int y) {
    uint64_t z = seed ^ ((uint64_t)(uint32_t)x << 32 | (uint32_t)y) ^ ((uint64_t)octave * 0xD1B54A32D192ED03ull);
    return (float)(rng_next(&z) >> 40) * (1.0f / 16777216.0f);
}

/* Three octaves of value noise (spacings 8, 4, 2 cells; weights 4, 2, 1) over the map, into env->noise. */
static void mmo_noise(Env* env, uint64_t seed) {
    int n = env->map_size;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            float sum = 0, weight = 4;
            for (int o = 0, s = 8; o < 3; o++, s /= 2, weight /= 2) {
                int x = c / s, y = r / s;
                float fx = (float)(c % s) / (float)s, fy = (float)(r % s) / (float)s;
                fx = fx * fx * (3 - 2 * fx);
                fy = fy * fy * (3 - 2 * fy);
                float top = mmo_hash(seed, o, x, y) * (1 - fx) + mmo_hash(seed, o, x + 1, y) * fx;
                float bottom = mmo_hash(seed, o, x, y + 1) * (1 - fx) + mmo_hash(seed, o, x + 1, y + 1) * fx;
                sum += weight * (top * (1 - fy) + bottom * fy);
            }
            env->noise[r * n + c] = sum * (1.0f / 7);
        }
}

/* The value of env->noise below which a share `q` of the map's cells lies (of its passable cells
 * with `skip_impassable`), to 1/1,024, by a histogram. */
static float mmo_quantile(Env* env, float q, int skip_impassable) {
    int hist[1024] = {0}, total = 0, n = env->map_size;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            const uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
            if (skip_impassable && (b[C_WATER] || b[C_STONE])) continue;
            int bin = (int)(env->noise[r * n + c] * 1024);
            hist[bin < 0 ? 0 : bin > 1023 ? 1023 : bin]++;
            total++;
        }
    int want = (int)(q * (float)total), seen = 0;
    for (int bin = 0; bin < 1024; bin++) {
        seen += hist[bin];
        if (seen > want) return (float)bin / 1024;
    }
    return 1;
}

/* Draw the terrain and stock every forest and water cell; the border is stone. */
static void mmo_new_map(Env* env) {
    int n = env->map_size;
    memset(env->cells, 0, (size_t)env->pw * env->ph * MMO_CH);
    for (int i = 0; i < env->pw * env->ph; i++) {
        env->cells[(size_t)i * MMO_CH + C_STONE] = 1;
        env->occ[i] = -1;
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) mmo_cell(env, mmo_at(env, r, c))[C_STONE] = 0;
    if (env->terrain == 1) {
        for (int r = 0; r < n; r++) {
            mmo_cell(env, mmo_at(env, r, 0))[C_WATER] = 1;
            mmo_cell(env, mmo_at(env, r, 2))[C_FOREST] = 1;
            mmo_cell(env, mmo_at(env, r, 4))[C_STONE] = 1;
        }
    } else {
        mmo_noise(env, rng_next(&env->p.rng));
        float low = mmo_quantile(env, 0.15f, 0), high = mmo_quantile(env, 0.90f, 0);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                float e = env->noise[r * n + c];
                uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
                b[C_WATER] = e < low;
                b[C_STONE] = e >= high;
            }
        mmo_noise(env, rng_next(&env->p.rng));
        float lush = mmo_quantile(env, 0.70f, 1);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
                b[C_FOREST] = !b[C_WATER] && !b[C_STONE] && env->noise[r * n + c] >= lush;
            }
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
            b[C_FOOD] = b[C_FOREST];
            b[C_DRINK] = b[C_WATER];
        }
    env->food_q.head = env->food_q.tail = env->water_q.head = env->water_q.tail = 0;
}

/* ---- entities ---- */

static inline int mmo_hp_max(int level) { return MMO_HP_BASE + MMO_HP_LEVEL * (level - 1); }

/* Put occupant `id` at padded cell i with health byte `tenths`, or take it off (id < 0). */
static inline void mmo_occupy(Env* env, int i, int id, int tenths) {
    uint8_t* b = mmo_cell(env, i);
    env->occ[i] = (int16_t)id;
    b[C_AGENT] = id >= 0 && id < MMO_NPC;
    b[C_NPC] = id >= MMO_NPC;
    b[C_HP] = (uint8_t)(id >= 0 ? tenths : 0);
}

static inline int mmo_tenths(int hp, int max) { return hp <= 0 ? 0 : (hp * 10 + max - 1) / max; }
static inline void mmo_agent_hp_byte(Env* env, int k) {
    mmo_cell(env, mmo_at(env, env->r[k], env->c[k]))[C_HP] = (uint8_t)mmo_tenths(env->hp[k], mmo_hp_max(env->level[k]));
}
static inline void mmo_npc_hp_byte(Env* env, int j) {
    mmo_cell(env, mmo_at(env, env->npc_r[j], env->npc_c[j]))[C_HP] = (uint8_t)mmo_tenths(env->npc_hp[j], MMO_NPC_HP);
}

/* A random free cell, as map coordinates: random draws, then a scan from a random cell. */
static void mmo_free_cell(Env* env, int* r, int* c) {
    int n = env->map_size;
    for (int t = 0; t < MMO_TRIES; t++) {
        *r = rng_int(&env->p.rng, n), *c = rng_int(&env->p.rng, n);
        if (mmo_free(env, mmo_at(env, *r, *c))) return;
    }
    int start = rng_int(&env->p.rng, n * n);
    for (int t = 0; t < n * n; t++) {
        int q = (start + t) % (n * n);
        *r = q / n, *c = q % n;
        if (mmo_free(env, mmo_at(env, *r, *c))) return;
    }
}

static void mmo_spawn_agent(Env* env, int k) {
    mmo_free_cell(env, &env->r[k], &env->c[k]);
    env->level[k] = 1;
    env->hp[k] = mmo_hp_max(1);
    env->food[k] = env->water[k] = MMO_STAT_MAX;
    env->xp[k] = env->age[k] = env->kills[k] = env->npc_kills[k] = env->food_got[k] = env->water_got[k] = 0;
    env->ret[k] = 0;
    env->end[k] = END_NONE;
    mmo_occupy(env, mmo_at(env, env->r[k], env->c[k]), k, 10);
}

static void mmo_spawn_npc(Env* env, int j) {
    mmo_free_cell(env, &env->npc_r[j], &env->npc_c[j]);
    env->npc_hp[j] = MMO_NPC_HP;
    env->npc_timer[j] = 0;
    mmo_occupy(env, mmo_at(env, env->npc_r[j], env->npc_c[j]), MMO_NPC + j, 10);
}

/* Rebuild the occupants from the entities' positions and health (after a test edited them). */
static void mmo_relink(Env* env) {
    for (int i = 0; i < env->pw * env->ph; i++)
        if (env->occ[i] >= 0) mmo_occupy(env, i, -1, 0);
    for (int k = 0; k < env->num_agents; k++) {
        if (env->level[k] < 1) env->level[k] = 1;
        mmo_occupy(env, mmo_at(env, env->r[k], env->c[k]), k, 0);
        mmo_agent_hp_byte(env, k);
    }
    for (int j = 0; j < env->num_npcs; j++)
        if (!env->npc_timer[j]) {
            mmo_occupy(env, mmo_at(env, env->npc_r[j], env->npc_c[j]), MMO_NPC + j, 0);
            mmo_npc_hp_byte(env, j);
        }
    env->relink = 0;
}

/* ---- observations ---- */

static void mmo_observe(Env* env, int k) {
    uint8_t* restrict obs = (uint8_t*)env->p.observations + (size_t)k * MMO_OBS;  /* aliases no state */
    int top = mmo_at(env, env->r[k] - MMO_YW, env->c[k] - MMO_XW), row = (2 * MMO_XW + 1) * MMO_CH;
    for (int y = 0; y < 2 * MMO_YW + 1; y++) memcpy(obs + y * row, env->cells + (size_t)(top + y * env->pw) * MMO_CH, row);
    uint8_t* self = obs + MMO_WINDOW;
    int i = mmo_at(env, env->r[k], env->c[k]), pw = env->pw, lvl = env->level[k];
    const uint8_t* b = env->cells;
    self[0] = (uint8_t)(env->food[k] / 10);
    self[1] = (uint8_t)(env->water[k] / 10);
    self[2] = (uint8_t)mmo_tenths(env->hp[k], mmo_hp_max(lvl));
    self[3] = (uint8_t)lvl;
    self[4] = (uint8_t)((long)env->age[k] * 10 / env->max_steps);
    self[5] = (uint8_t)(lvl >= MMO_MAX_LEVEL ? 0 : (env->xp[k] % MMO_XP_LEVEL) / 2);
    self[6] = env->food[k] < MMO_STAT_MAX && b[(size_t)i * MMO_CH + C_FOOD];
    self[7] = env->water[k] < MMO_STAT_MAX && (b[(size_t)(i - pw) * MMO_CH + C_DRINK] | b[(size_t)(i + pw) * MMO_CH + C_DRINK] |
                                               b[(size_t)(i - 1) * MMO_CH + C_DRINK] | b[(size_t)(i + 1) * MMO_CH + C_DRINK]);
}

/* ---- rules ---- */

static void mmo_gain_xp(Env* env, int k, int xp) {
    env->xp[k] += xp;
    int lvl = 1 + env->xp[k] / MMO_XP_LEVEL;
    lvl = lvl > MMO_MAX_LEVEL ? MMO_MAX_LEVEL : lvl;
    if (lvl > env->level[k]) {
        env->hp[k] += MMO_HP_LEVEL * (lvl - env->level[k]);
        env->rew[k] += env->reward_level * (float)(lvl - env->level[k]);
        env->level[k] = lvl;
        mmo_agent_hp_byte(env, k);
    }
}

static void mmo_forage(Env* env, int k) {
    int i = mmo_at(env, env->r[k], env->c[k]), restored = 0;
    uint8_t* here = mmo_cell(env, i);
    if (here[C_FOOD] && env->food[k] < MMO_STAT_MAX) {
        int to = env->food[k] + MMO_GAIN > MMO_STAT_MAX ? MMO_STAT_MAX : env->food[k] + MMO_GAIN;
        restored += to - env->food[k];
        env->food[k] = to;
        env->food_got[k]++;
        here[C_FOOD] = 0;
        mmo_push(&env->food_q, i, env->tick + env->food_regrow);
    }
    if (env->water[k] < MMO_STAT_MAX) {
        for (int d = 1; d <= 4; d++) {
            int w = i + MMO_DR[d] * env->pw + MMO_DC[d];
            uint8_t* cell = mmo_cell(env, w);
            if (!cell[C_DRINK]) continue;
            int to = env->water[k] + MMO_GAIN > MMO_STAT_MAX ? MMO_STAT_MAX : env->water[k] + MMO_GAIN;
            restored += to - env->water[k];
            env->water[k] = to;
            env->water_got[k]++;
            cell[C_DRINK] = 0;
            mmo_push(&env->water_q, w, env->tick + env->water_regrow);
            break;
        }
    }
    if (!restored) return;
    env->rew[k] += env->reward_forage * (float)restored * (1.0f / MMO_STAT_MAX);
    mmo_gain_xp(env, k, 1);
}

/* The best target of agent k within `reach` cells (see the rules above): an occupant id, or -1. */
static int mmo_target(const Env* env, int k, int reach) {
    int best = -1, best_key = 1 << 30, i0 = mmo_at(env, env->r[k], env->c[k]);
    for (int dr = -reach; dr <= reach; dr++)
        for (int dc = -reach; dc <= reach; dc++) {
            int id = env->occ[i0 + dr * env->pw + dc];
            if (id < 0 || id == k) continue;
            int dist = abs(dr) > abs(dc) ? abs(dr) : abs(dc);
            int hp = id >= MMO_NPC ? env->npc_hp[id - MMO_NPC] : env->hp[id];
            int key = (id < MMO_NPC) * (1 << 24) + dist * (1 << 16) + hp;
            if (key < best_key) best_key = key, best = id;
        }
    return best;
}

static void mmo_attack(Env* env, int k, int reach, int damage) {
    int id = mmo_target(env, k, reach);
    if (id < 0) return;
    if (id >= MMO_NPC) {
        int j = id - MMO_NPC;
        env->npc_hp[j] -= damage;
        if (env->npc_hp[j] > 0) {
            mmo_npc_hp_byte(env, j);
            return;
        }
        env->npc_hp[j] = 0;
        env->npc_timer[j] = env->npc_respawn;
        mmo_occupy(env, mmo_at(env, env->npc_r[j], env->npc_c[j]), -1, 0);
        env->npc_kills[k]++;
        mmo_gain_xp(env, k, 10);
        return;
    }
    env->hp[id] -= damage;
    if (env->hp[id] > 0) {
        mmo_agent_hp_byte(env, id);
        return;
    }
    env->hp[id] = 0;
    env->end[id] = END_KILLED;
    mmo_occupy(env, mmo_at(env, env->r[id], env->c[id]), -1, 0);
    env->kills[k]++;
    if (env->kill_xp) mmo_gain_xp(env, k, env->kill_xp * env->level[id]);
}

static void mmo_act(Env* env, int k, int action) {
    if (action >= 1 && action <= 4) {
        int r = env->r[k] + MMO_DR[action], c = env->c[k] + MMO_DC[action], to = mmo_at(env, r, c);
        if (!mmo_free(env, to)) return;
        int from = mmo_at(env, env->r[k], env->c[k]), tenths = mmo_cell(env, from)[C_HP];
        mmo_occupy(env, from, -1, 0);
        mmo_occupy(env, to, k, tenths);
        env->r[k] = r, env->c[k] = c;
    } else if (action == 5) {
        mmo_forage(env, k);
    } else if (action == 6) {
        mmo_attack(env, k, 1, 10 + 2 * (env->level[k] - 1));
    } else if (action == 7) {
        mmo_attack(env, k, 3, 5 + (env->level[k] - 1));
    }
}

static void mmo_npc_act(Env* env, int j) {
    if (env->npc_timer[j]) return;  /* dead */
    int i0 = mmo_at(env, env->npc_r[j], env->npc_c[j]);
    for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
            int id = env->occ[i0 + dr * env->pw + dc];
            if (id < 0 || id >= MMO_NPC) continue;
            env->hp[id] -= MMO_NPC_DAMAGE;
            if (env->hp[id] > 0) {
                mmo_agent_hp_byte(env, id);
            } else {
                env->hp[id] = 0;
                env->end[id] = END_KILLED;
                mmo_occupy(env, mmo_at(env, env->r[id], env->c[id]), -1, 0);
            }
            return;
        }
    uint64_t draw = rng_next(&env->p.rng);
    if (draw & 1) return;
    int d = 1 + (int)((draw >> 8) & 3), to = i0 + MMO_DR[d] * env->pw + MMO_DC[d];
    if (!mmo_free(env, to)) return;
    int tenths = mmo_cell(env, i0)[C_HP];
    mmo_occupy(env, i0, -1, 0);
    mmo_occupy(env, to, MMO_NPC + j, tenths);
    env->npc_r[j] += MMO_DR[d], env->npc_c[j] += MMO_DC[d];
}

static void mmo_regrow(Env* env, MmoQueue* q, int byte) {
    while (q->head != q->tail && q->due[q->head] <= env->tick) {
        mmo_cell(env, q->cell[q->head])[byte] = 1;
        q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    }
}

static void c_reset(Env* env) {
    mmo_new_map(env);
    env->tick = 0;
    env->relink = 0;
    for (int k = 0; k < env->num_agents; k++) mmo_spawn_agent(env, k);
    for (int j = 0; j < env->num_npcs; j++) mmo_spawn_npc(env, j);
    for (int k = 0; k < env->num_agents; k++) mmo_observe(env, k);
}

static void c_step(Env* env) {
    int n = env->num_agents;
    if (env->relink) mmo_relink(env);
    env->tick++;
    mmo_regrow(env, &env->food_q, C_FOOD);
    mmo_regrow(env, &env->water_q, C_DRINK);
    memset(env->rew, 0, sizeof(float) * (size_t)n);
    memset(env->end, 0, (size_t)n);
    for (int j = 0; j < env->num_npcs; j++)  /* dead NPCs whose time has come return before anyone acts */
        if (env->npc_timer[j] && --env->npc_timer[j] == 0) mmo_spawn_npc(env, j);
    for (int k = 0; k < n; k++)
        if (!env->end[k]) mmo_act(env, k, env->p.actions[k]);
    for (int j = 0; j < env->num_npcs; j++) mmo_npc_act(env, j);
    int ended = 0;
    for (int k = 0; k < n; k++) {
        env->age[k]++;
        if (env->end[k]) {
            ended = 1;
            continue;
        }
        env->food[k] -= env->food[k] > 0;
        env->water[k] -= env->water[k] > 0;
        int hurt = MMO_STARVE * ((env->food[k] == 0) + (env->water[k] == 0));
        if (hurt) {
            env->hp[k] -= hurt;
            if (env->hp[k] <= 0) {
                env->hp[k] = 0;
                env->end[k] = END_STARVED;
                mmo_occupy(env, mmo_at(env, env->r[k], env->c[k]), -1, 0);
                ended = 1;
                continue;
            }
            mmo_agent_hp_byte(env, k);
        } else if (env->food[k] >= MMO_STAT_MAX / 2 && env->water[k] >= MMO_STAT_MAX / 2) {
            int top = mmo_hp_max(env->level[k]);
            if (env->hp[k] < top) {
                env->hp[k] = env->hp[k] + MMO_HEAL > top ? top : env->hp[k] + MMO_HEAL;
                mmo_agent_hp_byte(env, k);
            }
        }
        ended |= env->age[k] >= env->max_steps;
    }
    float* restrict rewards = env->p.rewards;  /* aliases no state */
    for (int k = 0; k < n; k++) {
        float r = env->rew[k] + (env->end[k] ? env->reward_death : 0);
        rewards[k] = r;
        env->ret[k] += r;
        env->p.terminals[k] = env->end[k] != END_NONE;
        env->p.truncations[k] = !env->end[k] && env->age[k] >= env->max_steps;
    }
    if (ended) {  /* the population as the lives ended, then each ended life's record and final view */
        float levels = 0, ages = 0, npcs = 0;
        for (int k = 0; k < n; k++) levels += (float)env->level[k], ages += (float)env->age[k];
        for (int j = 0; j < env->num_npcs; j++) npcs += env->npc_timer[j] == 0;
        for (int k = 0; k < n; k++) {
            if (!env->p.terminals[k] && !env->p.truncations[k]) continue;
            float life = (float)env->age[k];
            LOG_EPISODE(&env->log, .score = life, .episode_return = env->ret[k], .episode_length = life,
                        .food = env->food_got[k], .water = env->water_got[k],
                        .forage_rate = 100.0f * (float)(env->food_got[k] + env->water_got[k]) / life,
                        .kills = env->kills[k], .npc_kills = env->npc_kills[k], .level = env->level[k],
                        .starved = env->end[k] == END_STARVED, .killed = env->end[k] == END_KILLED,
                        .pop_level = levels / (float)n, .pop_age = ages / (float)n,
                        .npcs_alive = env->num_npcs ? npcs / (float)env->num_npcs : 0);
            mmo_observe(env, k);
            ocean_keep_final(&env->p, k);
        }
        for (int k = 0; k < n; k++) {
            if (!env->p.terminals[k] && !env->p.truncations[k]) continue;
            if (env->p.truncations[k]) mmo_occupy(env, mmo_at(env, env->r[k], env->c[k]), -1, 0);
            mmo_spawn_agent(env, k);
        }
    }
    for (int k = 0; k < n; k++) mmo_observe(env, k);
}

/* The whole map, a character a cell: '~' water ('-' drunk), '#' stone, 'T' forest with food ('t'
 * eaten), '.' grass, '@' an agent, 'N' an NPC; then a line of population figures. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->map_size;
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) {
            const uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
            char ch = b[C_AGENT] ? '@' : b[C_NPC] ? 'N' : b[C_WATER] ? (b[C_DRINK] ? '~' : '-') : b[C_STONE] ? '#'
                    : b[C_FOREST] ? (b[C_FOOD] ? 'T' : 't') : '.';
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    long levels = 0;
    for (int k = 0; k < env->num_agents; k++) levels += env->level[k];
    ANSI_APPEND(buf, cap, len, "tick %d  agents %d  mean level %.2f\n", env->tick, env->num_agents,
                (double)levels / env->num_agents);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->map_size;
    draw_fill(px, w, h, PUFFER_BG);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            const uint8_t* b = mmo_cell(env, mmo_at(env, r, c));
            int x0 = c * w / n, y0 = r * h / n, cw = (c + 1) * w / n - x0, chh = (r + 1) * h / n - y0;
            if (b[C_AGENT]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_CYAN);
            else if (b[C_NPC]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_RED);
            else if (b[C_WATER]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_BLUE);
            else if (b[C_STONE]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_GREY);
            else if (b[C_FOOD]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_GREEN);
            else if (b[C_FOREST]) draw_rect(px, w, h, x0, y0, cw, chh, PUFFER_ORANGE);
        }
}
