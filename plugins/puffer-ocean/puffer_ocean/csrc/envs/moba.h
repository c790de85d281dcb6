/* moba: two teams of 5 heroes, creep waves, towers and an ancient each; destroying the other
 * team's ancient wins.
 *
 * The map (../moba_map.h): 48 x 48 cells, team 0's base bottom-left, team 1's top-right, three
 * lanes (top, mid, bot) joining them, a river across and jungle tunnels between; point-symmetric.
 * Units stand on cells (several may share one) and move one cell a step in 8 directions, never
 * into a wall; distances are Chebyshev (max(|dx|, |dy|)).
 *
 * Heroes: slots 0-4 of each team hold lanes top, top, mid, bot, bot (in the team's own view:
 * team 1's top is the map's bot) and types warrior, ranger, mage, warrior, ranger:
 *   warrior  500 hp, 16 damage, range 1; A cleave: 40 to every enemy within 1 (cooldown 8);
 *            B fortify: heals 35% of its hp (cooldown 25)
 *   ranger   330 hp, 14 damage, range 4; A snipe: 120 to the target within 6 (10);
 *            B dash: up to 3 cells in the move direction (12)
 *   mage     300 hp, 10 damage, range 3; A blast: 70 to every enemy within 1 of the target,
 *            within 5 (9); B mend: heals allied heroes within 3 by 80 (15)
 * A hero regenerates 0.2% of its hp a step, 5% within 3 of its own ancient (the fountain). A
 * dead hero is away `respawn_time` steps (its row masked), then stands at its fountain, full.
 * Creeps: every `wave_interval` steps (the first at step 1) each team sends `creeps_per_wave`
 * creeps down each lane from its base (100 hp, 6 damage, range 1). A creep walks its lane
 * toward the enemy ancient; an enemy within 3 of it (while it is within 3 of its lane) it walks
 * to and hits. Structures per team: an outer and an inner tower per lane (800 hp, 25 damage,
 * range 4) and the ancient (1,500 hp, 30 damage, range 4) at the lane's end. A tower shoots the
 * nearest enemy creep in range, else the nearest enemy hero. An inner tower can be hurt once
 * the outer tower of its lane has fallen, the ancient once an inner tower of its team has.
 * Each unit acts once a step: heroes (one team's first, drawn per step), then creeps, then
 * structures (in creation order or its reverse, drawn per step); damage lands at once, and a
 * basic hit deals its damage times a factor drawn in [0.75, 1.25].
 *
 * Actions, MultiDiscrete([9, 6, 3]), in the team's own view: move (0 stay, 1-8: E, NE, N, NW,
 * W, SW, S, SE); target (0 none, k: the k-th enemy of the observed list); ability (0 none,
 * 1 A, 2 B). A hero casts the ability if it is ready and has a use (a target in reach, an enemy
 * within 1 for cleave, a move direction for dash); else it hits the target if that is in its
 * range; else it moves. Targeted abilities without a target aim at the nearest listed enemy.
 *
 * Observation (940 floats, the team's own view: team 1's is turned 180 degrees, so both teams
 * see the world as from the bottom-left base):
 *   0-846    an 11 x 11 window centred on the hero, 7 planes of 121: wall or outside; allied
 *            creeps (a third per creep, at most 1); enemy creeps; allied heroes (hp share);
 *            enemy heroes (hp share); allied structures (hp share); enemy structures (hp share)
 *   847-878  self: alive, hp share, hp / 500, type one-hot (3), the cooldowns of A and B
 *            (share left), respawn (share left), x / 48, y / 48, lane one-hot (3), progress
 *            along its lane (0 own ancient, 1 the enemy's), step / max_steps, own structures
 *            standing (7: lanes top, mid, bot x inner, outer; then the ancient), the enemy's (7),
 *            own and enemy ancient hp share
 *   879-923  the 5 nearest enemies within 5 that can be hurt, nearest first (the target
 *            list), 9 each: 1, dx / 5, dy / 5, hp share, one hit kills it, hero, creep,
 *            structure, in range of a basic hit (all 0 where fewer)
 *   924-939  the 4 other heroes of the team by slot, 4 each: alive, dx / 48, dy / 48, hp share
 * Rewards per hero: reward_last_hit for the killing hit on a creep, reward_kill for a killing
 * hit on a hero, reward_death when it dies, reward_tower x (damage it dealt to a structure) /
 * (the structure's hp), and +reward_win / -reward_win to every hero when an ancient falls.
 * A game ends when an ancient falls (terminal), or is truncated after `max_steps` steps: the team
 * that destroyed more structures wins it, equal counts draw (no reward for that result).
 *
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none"
 * all 10 heroes are agents (rows 0-4 team 0, 5-9 team 1; a game of 10 seats), and any hero can
 * be played by a built-in player instead (the `players` input: self-play's anchors); otherwise
 * the 5 rows are team 0's heroes against a built-in team, each row a game of one seat whose
 * outcome is its team's. The scripted hero retreats to its fountain below 30% hp (until 90%),
 * else hits the nearest enemy in range (with its abilities when they apply), else walks its
 * lane to just behind its front creep (to its outer standing tower when it has none). The
 * random one draws each action uniformly.
 * score: games won; kills, deaths, last_hits per hero and game; towers: enemy structures
 * destroyed by its team per game.
 */
#define OCEAN_WRITES_FINAL 1
#define OCEAN_BUILTIN_PLAYERS 2
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(kills) X(deaths) X(last_hits) X(towers) \
    X(towers_lost)
#define PARAMS(P) P(int, opponent, 1, 0, 2) P(int, max_steps, 1500, 10, 1000000) \
    P(int, wave_interval, 30, 5, 1000) P(int, creeps_per_wave, 3, 0, 6) P(int, respawn_time, 15, 1, 1000) \
    P(float, reward_last_hit, 0.05, 0, 10) P(float, reward_kill, 0.3, 0, 10) P(float, reward_death, -0.3, -10, 0) \
    P(float, reward_tower, 1.0, 0, 10) P(float, reward_win, 1.0, 0, 100)
#define MOBA_UNIT_F(F, i) F(int, u[i].x) F(int, u[i].y) F(float, u[i].hp) F(int, u[i].alive)
#define MOBA_HERO_F(F, i) MOBA_UNIT_F(F, i) F(int, u[i].cd[0]) F(int, u[i].cd[1]) F(int, u[i].respawn)
#define FIELDS(F) MOBA_HERO_F(F, 0) MOBA_HERO_F(F, 1) MOBA_HERO_F(F, 2) MOBA_HERO_F(F, 3) MOBA_HERO_F(F, 4) \
    MOBA_HERO_F(F, 5) MOBA_HERO_F(F, 6) MOBA_HERO_F(F, 7) MOBA_HERO_F(F, 8) MOBA_HERO_F(F, 9) \
    MOBA_UNIT_F(F, 10) MOBA_UNIT_F(F, 11) MOBA_UNIT_F(F, 12) MOBA_UNIT_F(F, 13) MOBA_UNIT_F(F, 14) MOBA_UNIT_F(F, 15) \
    MOBA_UNIT_F(F, 16) MOBA_UNIT_F(F, 17) MOBA_UNIT_F(F, 18) MOBA_UNIT_F(F, 19) MOBA_UNIT_F(F, 20) MOBA_UNIT_F(F, 21) \
    MOBA_UNIT_F(F, 22) MOBA_UNIT_F(F, 23) \
    MOBA_UNIT_F(F, 24) MOBA_UNIT_F(F, 25) F(int, tick) F(int, creeps_alive)
#include "../puffer.h"
#include "../moba_map.h"

#define MOBA_HEROES 10
#define MOBA_FIXED 24            /* heroes 0-9, structures 10-23 (7 a team), then creeps */
#define MOBA_MAX_CREEPS 160
#define MOBA_UNITS (MOBA_FIXED + MOBA_MAX_CREEPS)
#define MOBA_K 5                 /* the enemies of the target list */
#define MOBA_VIEW 5              /* the window's half-width */
#define MOBA_W (2 * MOBA_VIEW + 1)
#define MOBA_WIN (MOBA_W * MOBA_W)
#define MOBA_SELF (7 * MOBA_WIN)
#define MOBA_LIST (MOBA_SELF + 32)
#define MOBA_ALLY (MOBA_LIST + 9 * MOBA_K)
#define MOBA_OBS (MOBA_ALLY + 16)
#define MOBA_HERO 0
#define MOBA_CREEP 1
#define MOBA_TOWER 2
#define MOBA_ANCIENT 3

typedef struct {
    float hp, max_hp, dmg;
    int x, y, team, kind, alive, lane, type, range;
    int cd[2], respawn, path_i, retreat;
} MobaUnit;

typedef struct {
    float hp, dmg;
    int range, cd[2];
} MobaHeroType;

static const MobaHeroType MOBA_TYPES[3] = {{500, 16, 1, {8, 25}}, {330, 14, 4, {10, 12}}, {300, 10, 3, {9, 15}}};
static const int MOBA_SLOT_TYPE[5] = {0, 1, 2, 0, 1};
static const int MOBA_SLOT_LANE[5] = {0, 0, 1, 2, 2};  /* in the team's own view */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    MobaUnit u[MOBA_UNITS];
    int16_t head[MOBA_CELLS];    /* the first unit standing on each cell (-1: none) */
    int16_t next[MOBA_UNITS];    /* the next unit on the same cell */
    int16_t seen[MOBA_HEROES][MOBA_K];  /* each hero's target list, as last observed */
    float ret[MOBA_HEROES], kills[MOBA_HEROES], deaths[MOBA_HEROES], last_hits[MOBA_HEROES];
    int front[2][MOBA_LANES];    /* the progress of each team's foremost creep per lane (-1: none) */
    int tick, winner, creep_top, creeps_alive, towers_down[2];
} Env;

static inline int moba_rows(const Env* env) { return env->opponent == 0 ? MOBA_HEROES : 5; }
static inline int moba_row(const Env* env, int h) { return env->opponent == 0 || h < 5 ? h : -1; }
static inline int moba_cheb(const MobaUnit* a, int x, int y) {
    int dx = abs(a->x - x), dy = abs(a->y - y);
    return dx > dy ? dx : dy;
}
/* A lane's progress from `team`'s ancient (0) toward the enemy's, and back to a path index. */
static inline int moba_progress(int team, int lane, int i) { return team ? moba_path_len[lane] - 1 - i : i; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->opponent == 0) {
        ocean_game(s, MOBA_HEROES);
    } else {
        ocean_game(s, 1);
        s->num_agents = 5;  /* five games of one seat: the team's heroes share its outcome */
    }
    ocean_obs_flat(s, MOBA_OBS, -1, 1);
    ocean_act_multidiscrete(s, 3, (const int[]){9, MOBA_K + 1, 3});
    ocean_render_size(s, 8 * MOBA_N, 8 * MOBA_N);
    return 0;
}

static int c_init(Env* env, char* err) {
    moba_map_build();
    return 0;
}
static void c_close(Env* env) {}

static void moba_link(Env* env, int i) {
    int c = env->u[i].y * MOBA_N + env->u[i].x;
    env->next[i] = env->head[c];
    env->head[c] = (int16_t)i;
}

static void moba_unlink(Env* env, int i) {
    int16_t* at = &env->head[env->u[i].y * MOBA_N + env->u[i].x];
    while (*at >= 0 && *at != i) at = &env->next[*at];
    if (*at == i) *at = env->next[i];
}

/* Rebuild the cell lists and each team's creep fronts from the units (tests may move units). */
static void moba_index(Env* env) {
    memset(env->head, 0xff, sizeof(env->head));
    for (int t = 0; t < 2; t++)
        for (int l = 0; l < MOBA_LANES; l++) env->front[t][l] = -1;
    env->creeps_alive = 0;
    for (int i = 0; i < env->creep_top; i++) {
        MobaUnit* u = &env->u[i];
        if (!u->alive) continue;
        u->x = u->x < 0 ? 0 : u->x >= MOBA_N ? MOBA_N - 1 : u->x;
        u->y = u->y < 0 ? 0 : u->y >= MOBA_N ? MOBA_N - 1 : u->y;
        moba_link(env, i);
        if (u->kind != MOBA_CREEP) continue;
        env->creeps_alive++;
        int pr = moba_progress(u->team, u->lane, u->path_i);
        if (pr > env->front[u->team][u->lane]) env->front[u->team][u->lane] = pr;
    }
}

static void moba_move_to(Env* env, int i, int x, int y) {
    moba_unlink(env, i);
    env->u[i].x = x;
    env->u[i].y = y;
    moba_link(env, i);
}

/* One step of unit i by (dx, dy) (each -1, 0 or 1); a diagonal into a wall slides along an axis. */
static void moba_step_by(Env* env, int i, int dx, int dy) {
    MobaUnit* u = &env->u[i];
    if (moba_walkable(u->x + dx, u->y + dy)) moba_move_to(env, i, u->x + dx, u->y + dy);
    else if (dx && dy && moba_walkable(u->x + dx, u->y)) moba_move_to(env, i, u->x + dx, u->y);
    else if (dx && dy && moba_walkable(u->x, u->y + dy)) moba_move_to(env, i, u->x, u->y + dy);
}

static inline int moba_sign(int v) { return (v > 0) - (v < 0); }

/* Whether structure or unit i can be hurt now. */
static int moba_vulnerable(const Env* env, int i) {
    const MobaUnit* t = &env->u[i];
    int base = 10 + 7 * t->team;
    if (t->kind == MOBA_TOWER) return t->type == 1 || !env->u[i + 1].alive;  /* inner: once its outer fell */
    if (t->kind == MOBA_ANCIENT) return !env->u[base].alive || !env->u[base + 2].alive || !env->u[base + 4].alive;
    return 1;
}

static void moba_reward(Env* env, int h, float r) {
    int k = moba_row(env, h);
    if (k >= 0) env->p.rewards[k] += r;
    env->ret[h] += r;
}

static void moba_kill(Env* env, int src, int dst) {
    MobaUnit* t = &env->u[dst];
    t->alive = 0;
    t->hp = 0;
    moba_unlink(env, dst);
    if (t->kind == MOBA_CREEP) {
        env->creeps_alive--;
        if (src < MOBA_HEROES) {
            env->last_hits[src] += 1;
            moba_reward(env, src, env->reward_last_hit);
        }
    } else if (t->kind == MOBA_HERO) {
        t->respawn = env->respawn_time;
        env->deaths[dst] += 1;
        moba_reward(env, dst, env->reward_death);
        if (src < MOBA_HEROES) {
            env->kills[src] += 1;
            moba_reward(env, src, env->reward_kill);
        }
    } else {
        env->towers_down[t->team]++;
        if (t->kind == MOBA_ANCIENT && env->winner < 0) env->winner = 1 - t->team;
    }
}

static void moba_hit(Env* env, int src, int dst, float amount) {
    MobaUnit* t = &env->u[dst];
    if (!t->alive || !moba_vulnerable(env, dst)) return;
    if (src < MOBA_HEROES && t->kind >= MOBA_TOWER)
        moba_reward(env, src, env->reward_tower * (amount < t->hp ? amount : t->hp) / t->max_hp);
    t->hp -= amount;
    if (t->hp <= 0) moba_kill(env, src, dst);
}

/* A basic hit of unit src on dst: its damage, times 0.75 to 1.25 drawn per hit. */
static void moba_attack(Env* env, int src, int dst) {
    moba_hit(env, src, dst, env->u[src].dmg * (0.75f + 0.5f * rng_float(&env->p.rng)));
}

/* The units within `r` of (x, y) of team `team` (-1: either) whose kind is in `kinds` (a bit per
 * kind), alive and, for enemies, vulnerable; up to `cap` into `out`; returns their count. */
static int moba_within(const Env* env, int x, int y, int r, int team, int kinds, int16_t* out, int cap) {
    int n = 0;
    int y0 = y - r < 0 ? 0 : y - r, y1 = y + r >= MOBA_N ? MOBA_N - 1 : y + r;
    int x0 = x - r < 0 ? 0 : x - r, x1 = x + r >= MOBA_N ? MOBA_N - 1 : x + r;
    for (int yy = y0; yy <= y1; yy++)
        for (int xx = x0; xx <= x1; xx++)
            for (int i = env->head[yy * MOBA_N + xx]; i >= 0; i = env->next[i]) {
                const MobaUnit* u = &env->u[i];
                if ((team >= 0 && u->team != team) || !((kinds >> u->kind) & 1)) continue;
                if (!moba_vulnerable(env, i)) continue;
                if (n < cap) out[n++] = (int16_t)i;
            }
    return n;
}

/* The nearest (squared distance, then index) vulnerable unit of `team` of `kinds` within r of (x, y). */
static int moba_nearest(const Env* env, int x, int y, int r, int team, int kinds) {
    int16_t found[64];
    int n = moba_within(env, x, y, r, team, kinds, found, 64), best = -1, best_d = 1 << 30;
    for (int j = 0; j < n; j++) {
        const MobaUnit* u = &env->u[found[j]];
        int d = (u->x - x) * (u->x - x) + (u->y - y) * (u->y - y);
        if (d < best_d || (d == best_d && found[j] < best)) { best_d = d; best = found[j]; }
    }
    return best;
}

/* Hero h's ability `which` (0 A, 1 B) at target `tgt` (-1: the nearest listed enemy), moving
 * toward world direction (dx, dy) for a dash; returns whether it was cast. */
static int moba_cast(Env* env, int h, int which, int tgt, int dx, int dy) {
    MobaUnit* u = &env->u[h];
    int16_t hit[64];
    if (u->cd[which] > 0) return 0;
    if (tgt < 0) tgt = env->seen[h][0];
    if (tgt >= 0 && (!env->u[tgt].alive || !moba_vulnerable(env, tgt))) tgt = -1;
    int kind = u->type * 2 + which, all = (1 << MOBA_HERO) | (1 << MOBA_CREEP) | (1 << MOBA_TOWER) | (1 << MOBA_ANCIENT);
    if (kind == 0) {                                   /* warrior cleave */
        int n = moba_within(env, u->x, u->y, 1, 1 - u->team, all, hit, 64);
        if (!n) return 0;
        for (int j = 0; j < n; j++) moba_hit(env, h, hit[j], 40);
    } else if (kind == 1) {                            /* warrior fortify */
        u->hp = fminf(u->max_hp, u->hp + 0.35f * u->max_hp);
    } else if (kind == 2) {                            /* ranger snipe */
        if (tgt < 0 || moba_cheb(u, env->u[tgt].x, env->u[tgt].y) > 6) return 0;
        moba_hit(env, h, tgt, 120);
    } else if (kind == 3) {                            /* ranger dash */
        if (!dx && !dy) return 0;
        for (int s = 0; s < 3; s++) moba_step_by(env, h, dx, dy);
    } else if (kind == 4) {                            /* mage blast */
        if (tgt < 0 || moba_cheb(u, env->u[tgt].x, env->u[tgt].y) > 5) return 0;
        int n = moba_within(env, env->u[tgt].x, env->u[tgt].y, 1, 1 - u->team, all, hit, 64);
        for (int j = 0; j < n; j++) moba_hit(env, h, hit[j], 70);
    } else {                                           /* mage mend */
        int n = moba_within(env, u->x, u->y, 3, u->team, 1 << MOBA_HERO, hit, 64);
        for (int j = 0; j < n; j++) env->u[hit[j]].hp = fminf(env->u[hit[j]].max_hp, env->u[hit[j]].hp + 80);
    }
    u->cd[which] = MOBA_TYPES[u->type].cd[which];
    return 1;
}

/* Direction index (0-8) of a step (dx, dy) in the team's own view. */
static inline int moba_dir(int team, int dx, int dy) {
    static const int DIR[9] = {4, 3, 2, 5, 0, 1, 6, 7, 8};  /* by (dy + 1) * 3 + (dx + 1) */
    int s = team ? -1 : 1;
    return DIR[(s * dy + 1) * 3 + (s * dx + 1)];
}

/* Unit i's step toward path index `goal` of `lane` (along the lane, or back to it from off it).
 * Team 1 walks team 0's tables turned 180 degrees (lane 2 - lane, indices reversed), so both
 * teams' walks mirror each other exactly. */
static void moba_lane_step(Env* env, int i, int lane, int goal, int* dx, int* dy) {
    MobaUnit* u = &env->u[i];
    int m = u->team, L = moba_path_len[lane];
    int x = m ? MOBA_N - 1 - u->x : u->x, y = m ? MOBA_N - 1 - u->y : u->y, l = m ? 2 - lane : lane;
    int c = y * MOBA_N + x, j = moba_near[l][c], to = c;
    if (m) goal = L - 1 - goal;
    *dx = *dy = 0;
    if (j < 0) return;
    if (moba_path[l][j] != c) to = moba_toward[l][c];
    else if (j != goal) to = moba_path[l][j + (goal > j ? 1 : -1)];
    *dx = (m ? -1 : 1) * (to % MOBA_N - x);
    *dy = (m ? -1 : 1) * (to / MOBA_N - y);
}

/* The path index of `lane`'s cell nearest to unit u by walking (mirrored for team 1, as
 * moba_lane_step; -1: none); *on says whether u stands on it. */
static int moba_lane_index(const MobaUnit* u, int lane, int* on) {
    int m = u->team, x = m ? MOBA_N - 1 - u->x : u->x, y = m ? MOBA_N - 1 - u->y : u->y, l = m ? 2 - lane : lane;
    int c = y * MOBA_N + x, j = moba_near[l][c];
    *on = j >= 0 && moba_path[l][j] == c;
    return j < 0 ? -1 : m ? moba_path_len[lane] - 1 - j : j;
}

/* The scripted hero's action (own view) for hero h. */
static void moba_scripted(Env* env, int h, int* a) {
    MobaUnit* u = &env->u[h];
    int t = u->team, lane = u->lane, dx, dy;
    a[0] = a[1] = a[2] = 0;
    if (u->hp < 0.3f * u->max_hp) u->retreat = 1;
    if (u->hp >= 0.9f * u->max_hp) u->retreat = 0;
    if (!u->retreat) {
        int near = env->seen[h][0], near_d = near >= 0 ? moba_cheb(u, env->u[near].x, env->u[near].y) : 99;
        for (int k = 0; k < MOBA_K && env->seen[h][k] >= 0; k++) {
            const MobaUnit* e = &env->u[env->seen[h][k]];
            if (moba_cheb(u, e->x, e->y) <= u->range) { a[1] = k + 1; break; }
        }
        if (u->type == 0) a[2] = near_d <= 1 ? 1 : u->hp < 0.5f * u->max_hp ? 2 : 0;
        else if (u->type == 1) a[2] = near_d <= 6 ? 1 : 0;
        else {
            int16_t allies[8];
            int n = moba_within(env, u->x, u->y, 3, t, 1 << MOBA_HERO, allies, 8), hurt = 0;
            for (int j = 0; j < n; j++) hurt |= env->u[allies[j]].hp < 0.6f * env->u[allies[j]].max_hp;
            a[2] = near_d <= 5 ? 1 : hurt ? 2 : 0;
        }
        if (a[2] && u->cd[a[2] - 1] > 0) a[2] = 0;
        if (a[1] || a[2]) return;
    }
    int goal = 0;
    if (!u->retreat) {
        int front = env->front[t][lane], base = 10 + 7 * t + 2 * lane;
        int tower = env->u[base + 1].alive ? base + 1 : env->u[base].alive ? base : -1;
        goal = front > 0 ? front - 1 : tower >= 0 ? moba_progress(t, lane, env->u[tower].path_i) : 0;
    }
    moba_lane_step(env, h, lane, moba_progress(t, lane, goal), &dx, &dy);
    a[0] = moba_dir(t, dx, dy);
    if (u->retreat && u->type == 1 && u->cd[1] == 0 && a[0]) a[2] = 2;
}

/* Hero h acts: `a` is (move, target, ability) in its team's view. */
static void moba_act(Env* env, int h, const int* a) {
    MobaUnit* u = &env->u[h];
    int s = u->team ? -1 : 1, dx = s * MOBA_DX[a[0]], dy = s * MOBA_DY[a[0]];
    int tgt = a[1] ? env->seen[h][a[1] - 1] : -1;
    if (tgt >= 0 && (!env->u[tgt].alive || !moba_vulnerable(env, tgt))) tgt = -1;
    if (a[2] && moba_cast(env, h, a[2] - 1, tgt, dx, dy)) return;
    if (tgt >= 0 && moba_cheb(u, env->u[tgt].x, env->u[tgt].y) <= u->range) {
        moba_attack(env, h, tgt);
        return;
    }
    if (a[0]) moba_step_by(env, h, dx, dy);
}

static void moba_spawn_hero(Env* env, int h) {
    MobaUnit* u = &env->u[h];
    const MobaUnit* anc = &env->u[10 + 7 * u->team + 6];
    int s = u->team ? -1 : 1;
    u->x = anc->x - s;
    u->y = anc->y + s;
    u->hp = u->max_hp;
    u->alive = 1;
    u->cd[0] = u->cd[1] = u->respawn = u->retreat = 0;
}

static void moba_hero_step(Env* env, int h) {
    MobaUnit* u = &env->u[h];
    int a[3];
    if (!u->alive) {
        if (--u->respawn <= 0) {
            moba_spawn_hero(env, h);
            moba_link(env, h);
        }
        return;
    }
    const MobaUnit* anc = &env->u[10 + 7 * u->team + 6];
    u->hp = fminf(u->max_hp, u->hp + (moba_cheb(u, anc->x, anc->y) <= 3 ? 0.05f : 0.002f) * u->max_hp);
    for (int j = 0; j < 2; j++) u->cd[j] -= u->cd[j] > 0;
    int k = moba_row(env, h), who = k >= 0 ? ocean_player(&env->p, k) : env->opponent;
    if (who == 0) {
        const int32_t* act = env->p.actions + 3 * k;
        a[0] = act[0]; a[1] = act[1]; a[2] = act[2];
    } else if (who == 1) {
        moba_scripted(env, h, a);
    } else {
        a[0] = rng_int(&env->p.rng, 9); a[1] = rng_int(&env->p.rng, MOBA_K + 1); a[2] = rng_int(&env->p.rng, 3);
    }
    moba_act(env, h, a);
}

static void moba_creep_step(Env* env, int i) {
    MobaUnit* u = &env->u[i];
    int lane = u->lane, on, j = moba_lane_index(u, lane, &on), dx, dy;
    int leashed = j >= 0 && moba_cheb(u, moba_path[lane][j] % MOBA_N, moba_path[lane][j] / MOBA_N) <= 3;
    int all = (1 << MOBA_HERO) | (1 << MOBA_CREEP) | (1 << MOBA_TOWER) | (1 << MOBA_ANCIENT);
    int tgt = leashed ? moba_nearest(env, u->x, u->y, 3, 1 - u->team, all) : -1;
    if (tgt >= 0) {
        const MobaUnit* t = &env->u[tgt];
        if (moba_cheb(u, t->x, t->y) <= u->range) moba_attack(env, i, tgt);
        else moba_step_by(env, i, moba_sign(t->x - u->x), moba_sign(t->y - u->y));
        return;
    }
    if (on) u->path_i = j;
    moba_lane_step(env, i, lane, u->team ? 0 : moba_path_len[lane] - 1, &dx, &dy);
    moba_step_by(env, i, dx, dy);
}

static void moba_structure_step(Env* env, int i) {
    MobaUnit* u = &env->u[i];
    int tgt = moba_nearest(env, u->x, u->y, u->range, 1 - u->team, 1 << MOBA_CREEP);
    if (tgt < 0) tgt = moba_nearest(env, u->x, u->y, u->range, 1 - u->team, 1 << MOBA_HERO);
    if (tgt >= 0) moba_attack(env, i, tgt);
}

static void moba_spawn_wave(Env* env) {
    int slot = MOBA_FIXED;
    for (int t = 0; t < 2; t++)
        for (int lane = 0; lane < MOBA_LANES; lane++)
            for (int n = 0; n < env->creeps_per_wave; n++) {
                while (slot < MOBA_UNITS && env->u[slot].alive) slot++;
                if (slot >= MOBA_UNITS) return;
                MobaUnit* u = &env->u[slot];
                int i = moba_progress(t, lane, 2), c = moba_path[lane][i];
                *u = (MobaUnit){.hp = 100, .max_hp = 100, .dmg = 6, .x = c % MOBA_N, .y = c / MOBA_N, .team = t,
                                .kind = MOBA_CREEP, .alive = 1, .lane = lane, .range = 1, .path_i = i};
                moba_link(env, slot);
                env->creeps_alive++;
                if (slot >= env->creep_top) env->creep_top = slot + 1;
            }
}

/* Hero h's observation into `obs` (NULL: only its target list). */
static void moba_observe_hero(Env* env, int h, float* restrict obs) {
    const MobaUnit* u = &env->u[h];
    int t = u->team, s = t ? -1 : 1, n = 0;
    int16_t list[MOBA_K];
    int dist[MOBA_K];
    for (int oy = -MOBA_VIEW; oy <= MOBA_VIEW; oy++)
        for (int ox = -MOBA_VIEW; ox <= MOBA_VIEW; ox++) {
            int wx = u->x + s * ox, wy = u->y + s * oy, w = (oy + MOBA_VIEW) * MOBA_W + ox + MOBA_VIEW;
            if (!moba_walkable(wx, wy)) {
                if (obs) obs[w] = 1;
                continue;
            }
            for (int i = env->head[wy * MOBA_N + wx]; i >= 0; i = env->next[i]) {
                const MobaUnit* e = &env->u[i];
                int enemy = e->team != t, plane = e->kind == MOBA_CREEP ? 1 : e->kind == MOBA_HERO ? 3 : 5;
                if (obs) {
                    float* v = &obs[(plane + enemy) * MOBA_WIN + w];
                    if (e->kind == MOBA_CREEP) *v = fminf(1.0f, *v + 0.34f);
                    else *v = fmaxf(*v, e->hp / e->max_hp);
                }
                if (!enemy || !moba_vulnerable(env, i)) continue;
                int d = ox * ox + oy * oy, at = n < MOBA_K ? n++ : MOBA_K;
                if (at == MOBA_K && d >= dist[MOBA_K - 1]) continue;
                if (at == MOBA_K) at = MOBA_K - 1;
                while (at > 0 && dist[at - 1] > d) { list[at] = list[at - 1]; dist[at] = dist[at - 1]; at--; }
                list[at] = (int16_t)i;
                dist[at] = d;
            }
        }
    for (int k = 0; k < MOBA_K; k++) env->seen[h][k] = k < n ? list[k] : -1;
    if (!obs) return;
    float* f = obs + MOBA_SELF;
    int own_lane = t ? 2 - u->lane : u->lane, on, j = moba_lane_index(u, u->lane, &on);
    f[0] = (float)u->alive; f[1] = u->hp / u->max_hp; f[2] = u->hp / 500.0f; f[3 + u->type] = 1;
    f[6] = (float)u->cd[0] / MOBA_TYPES[u->type].cd[0]; f[7] = (float)u->cd[1] / MOBA_TYPES[u->type].cd[1];
    f[8] = (float)u->respawn / env->respawn_time;
    f[9] = (float)(t ? MOBA_N - 1 - u->x : u->x) / MOBA_N; f[10] = (float)(t ? MOBA_N - 1 - u->y : u->y) / MOBA_N;
    f[11 + own_lane] = 1;
    f[14] = j >= 0 ? (float)moba_progress(t, u->lane, j) / (moba_path_len[u->lane] - 1) : 0;
    f[15] = (float)env->tick / env->max_steps;
    for (int side = 0; side < 2; side++) {
        int team = side ? 1 - t : t, base = 10 + 7 * team;
        for (int l = 0; l < MOBA_LANES; l++)
            for (int tier = 0; tier < 2; tier++)
                f[16 + 7 * side + 2 * l + tier] = (float)env->u[base + 2 * (t ? 2 - l : l) + tier].alive;
        f[16 + 7 * side + 6] = (float)env->u[base + 6].alive;
        f[30 + side] = env->u[base + 6].hp / env->u[base + 6].max_hp;
    }
    f = obs + MOBA_LIST;
    for (int k = 0; k < n; k++, f += 9) {
        const MobaUnit* e = &env->u[list[k]];
        int ex = s * (e->x - u->x), ey = s * (e->y - u->y);
        f[0] = 1; f[1] = ex / (float)MOBA_VIEW; f[2] = ey / (float)MOBA_VIEW; f[3] = e->hp / e->max_hp;
        f[4] = e->hp <= u->dmg; f[5] = e->kind == MOBA_HERO; f[6] = e->kind == MOBA_CREEP; f[7] = e->kind >= MOBA_TOWER;
        f[8] = moba_cheb(u, e->x, e->y) <= u->range;
    }
    f = obs + MOBA_ALLY;
    for (int o = 0; o < 5; o++) {
        int a = 5 * t + o;
        if (a == h) continue;
        const MobaUnit* e = &env->u[a];
        f[0] = (float)e->alive; f[1] = s * (e->x - u->x) / (float)MOBA_N; f[2] = s * (e->y - u->y) / (float)MOBA_N;
        f[3] = e->hp / e->max_hp;
        f += 4;
    }
}

static void moba_observe(Env* env) {
    int rows = moba_rows(env);
    memset(env->p.observations, 0, sizeof(float) * MOBA_OBS * rows);
    for (int h = 0; h < MOBA_HEROES; h++) {
        int k = moba_row(env, h);
        moba_observe_hero(env, h, k >= 0 ? (float*)env->p.observations + (size_t)k * MOBA_OBS : NULL);
        if (k >= 0) env->p.masks[k] = (uint8_t)env->u[h].alive;
    }
}

static void c_reset(Env* env) {
    memset(env->u, 0, sizeof(env->u));
    for (int t = 0; t < 2; t++) {
        for (int lane = 0; lane < MOBA_LANES; lane++)
            for (int tier = 0; tier < 2; tier++) {  /* inner at 12% of the lane, outer at 30% */
                int i = moba_progress(t, lane, moba_path_len[lane] * (tier ? 30 : 12) / 100), c = moba_path[lane][i];
                env->u[10 + 7 * t + 2 * lane + tier] = (MobaUnit){.hp = 800, .max_hp = 800, .dmg = 25, .x = c % MOBA_N,
                    .y = c / MOBA_N, .team = t, .kind = MOBA_TOWER, .alive = 1, .lane = lane, .type = tier, .range = 4,
                    .path_i = i};
            }
        int c = moba_path[0][moba_progress(t, 0, 0)];
        env->u[10 + 7 * t + 6] = (MobaUnit){.hp = 1500, .max_hp = 1500, .dmg = 30, .x = c % MOBA_N, .y = c / MOBA_N,
                                            .team = t, .kind = MOBA_ANCIENT, .alive = 1, .range = 4};
        for (int slot = 0; slot < 5; slot++) {
            MobaUnit* u = &env->u[5 * t + slot];
            const MobaHeroType* ty = &MOBA_TYPES[MOBA_SLOT_TYPE[slot]];
            *u = (MobaUnit){.max_hp = ty->hp, .dmg = ty->dmg, .team = t, .kind = MOBA_HERO, .type = MOBA_SLOT_TYPE[slot],
                            .range = ty->range, .lane = t ? 2 - MOBA_SLOT_LANE[slot] : MOBA_SLOT_LANE[slot]};
        }
    }
    for (int h = 0; h < MOBA_HEROES; h++) {
        moba_spawn_hero(env, h);
        env->ret[h] = env->kills[h] = env->deaths[h] = env->last_hits[h] = 0;
    }
    env->tick = 0;
    env->winner = -1;
    env->creep_top = MOBA_FIXED;
    env->towers_down[0] = env->towers_down[1] = 0;
    moba_index(env);
    moba_observe(env);
}

/* The game's end: rewards and outcomes by `winner` (-1 a draw), final observations, logs, reset. */
static void moba_end(Env* env, int winner, int truncated) {
    int rows = moba_rows(env);
    if (!truncated)
        for (int h = 0; h < MOBA_HEROES; h++) moba_reward(env, h, env->u[h].team == winner ? env->reward_win : -env->reward_win);
    moba_observe(env);
    for (int k = 0; k < rows; k++) {
        int h = k, t = env->u[h].team;
        env->p.terminals[k] = (uint8_t)!truncated;
        env->p.truncations[k] = (uint8_t)truncated;
        env->p.masks[k] = 1;
        ocean_outcome(&env->p, k, winner < 0 ? OCEAN_DRAW : winner == t ? OCEAN_WIN : OCEAN_LOSS);
        ocean_keep_final(&env->p, k);
        LOG_EPISODE(&env->log, .score = winner == t, .episode_return = env->ret[h], .episode_length = env->tick,
                    .kills = env->kills[h], .deaths = env->deaths[h], .last_hits = env->last_hits[h],
                    .towers = env->towers_down[1 - t], .towers_lost = env->towers_down[t]);
    }
    c_reset(env);
}

static void c_step(Env* env) {
    int rows = moba_rows(env);
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    env->tick++;
    moba_index(env);
    /* A coin per step says which team's heroes act first and which way creeps and structures are walked. */
    int odd = rng_int(&env->p.rng, 2), top = env->creep_top;
    for (int j = 0; j < MOBA_HEROES; j++) moba_hero_step(env, (j + odd * 5) % MOBA_HEROES);
    for (int j = MOBA_FIXED; j < top; j++) {
        int i = odd ? top - 1 - (j - MOBA_FIXED) : j;
        if (env->u[i].alive) moba_creep_step(env, i);
    }
    for (int j = MOBA_HEROES; j < MOBA_FIXED; j++) {
        int i = odd ? MOBA_FIXED - 1 - (j - MOBA_HEROES) : j;
        if (env->u[i].alive) moba_structure_step(env, i);
    }
    if ((env->tick - 1) % env->wave_interval == 0) moba_spawn_wave(env);
    while (env->creep_top > MOBA_FIXED && !env->u[env->creep_top - 1].alive) env->creep_top--;
    if (env->winner >= 0) {
        moba_end(env, env->winner, 0);
    } else if (env->tick >= env->max_steps) {
        int d = env->towers_down[1] - env->towers_down[0];
        moba_end(env, d > 0 ? 0 : d < 0 ? 1 : -1, 1);
    } else {
        moba_observe(env);
    }
}

static char moba_glyph(const Env* env, int c) {
    static const char* HERO = "0123456789";
    char g = moba_tile[c] == MOBA_WALL ? '#' : moba_tile[c] == MOBA_RIVER ? '~' : '.';
    for (int i = env->head[c]; i >= 0; i = env->next[i]) {
        const MobaUnit* u = &env->u[i];
        char v = u->kind == MOBA_HERO ? HERO[i] : u->kind == MOBA_CREEP ? (u->team ? 'x' : 'c')
               : u->kind == MOBA_TOWER ? (u->team ? 'T' : 't') : (u->team ? 'A' : 'a');
        if (u->kind != MOBA_CREEP || g == '.' || g == '~' || g == '#') g = v;
        if (u->kind == MOBA_HERO) break;
    }
    return g;
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    ANSI_APPEND(buf, cap, len, "tick %d  structures lost: team 0 %d, team 1 %d\n", env->tick, env->towers_down[0],
                env->towers_down[1]);
    for (int y = 0; y < MOBA_N; y++) {
        for (int x = 0; x < MOBA_N; x++) ANSI_APPEND(buf, cap, len, "%c", moba_glyph(env, y * MOBA_N + x));
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    uint8_t cells[MOBA_CELLS];
    for (int c = 0; c < MOBA_CELLS; c++) {
        char g = moba_glyph(env, c);
        cells[c] = g == '#' ? 6 : g == '~' ? 4 : g == '.' ? 0 : g == 'c' || g == 't' || g == 'a' ? 1
                 : g == 'x' || g == 'T' || g == 'A' ? 2 : g < '5' ? 7 : 5;
    }
    draw_tiles(px, w, h, cells, MOBA_N, MOBA_N, 8);
}
