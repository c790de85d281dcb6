/* tactical: a turn-based tactics battle of two squads on a grid map with walls (PufferLib's Ocean
 * "tactical" names the theme; 3.0's is an unfinished stub whose step does nothing).
 *
 * Map: size x size cells; walls drawn per game in point-symmetric pairs (a wall at (x, y) and at
 * (size-1-x, size-1-y), each pair with probability `walls`, never on the two edge columns where
 * the squads start), redrawn until every free cell is connected (after 32 tries: no walls).
 * Squads: `units` per side; unit i is a warrior (10 health, moves 3, attacks at distance 1 for
 * 4) when i is even, an archer (6 health, moves 2, attacks at distance up to 3 for 3) when odd.
 * Side 0 stands on column 0, side 1 on the mirrored cells of column size-1. Distances are
 * Manhattan; a move walks at most its range in 4-connected steps through free cells (no walls,
 * no units of either side). Turns: side 0 moves first; in a side's turn each of its living
 * units acts once, in order: it moves (or stays), then attacks, if any enemy is within its
 * range, the one with the least health (ties: the lowest index); a unit at 0 health is removed.
 * A side with no units left loses; after `max_rounds` rounds (both sides' turns) the game is a
 * draw.
 *
 * A step is one unit's action: Discrete(49), the destination as an offset (dx, dy) in [-3, 3]^2
 * from the acting unit, index (dy + 3) * 7 + dx + 3 (24: stay), in the row's own frame (side 1
 * sees and acts in the map turned 180 degrees, so both sides start on the left). A destination
 * out of reach is illegal: the unit stays (and still attacks). Observation (101 + 12 units
 * floats, own frame): the 49 legal destinations, 1 each, when the row's unit is to act (all 0
 * for the seat that waits: the "action_mask" of a Dict observation, so training samples legal
 * moves only); the 7 x 7 cells around the focus unit (the acting one; when waiting, the first
 * living own unit), 1 wall or off the map; then 2 units slots of 6 values: the focus unit, the
 * other own units, the enemies, each (alive, dx / size, dy / size from the focus unit, health /
 * its maximum, archer, has acted this turn), zeros for the dead; last: rounds played /
 * max_rounds, own and enemy health / their full health.
 * Rewards: `damage_reward` per point of damage dealt, minus it per point taken (paid at the row's
 * next action or the game's end), +1 a win, -1 a loss, 0 a draw; outcomes 1 / 0 / 0.5.
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"): with "none"
 * both sides are agents (a game of two rows, the waiting seat masked; either may be played by a
 * built-in player: self-play's anchors); otherwise the agent plays a side drawn per game against
 * the built-in player: "scripted" sends each unit at the nearest enemy (by distance from the
 * unit): the reachable cell with that enemy in range the fewest steps away, else the reachable
 * cell nearest to it; "random" picks a uniformly random reachable cell.
 * score: games won; `draws`; `units_left`: the row's living units at the end; `illegal`.
 */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either side may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(draws) X(units_left) X(illegal)
#define TC_MAX 12
#define TC_UNITS 4
#define PARAMS(P) P(int, size, 8, 6, TC_MAX) P(int, units, 3, 1, TC_UNITS) P(float, walls, 0.15, 0, 0.4) \
    P(int, opponent, 1, 0, 2) P(int, max_rounds, 40, 1, 100000) P(float, damage_reward, 0.02, 0, 1)
#define FIELDS(F) F(int, side_to_move) F(int, unit_to_act) F(int, agent_side) F(int, round) F(int, tick) \
    F(int, ux[0]) F(int, uy[0]) F(int, hp[0]) F(int, ux[1]) F(int, uy[1]) F(int, hp[1]) \
    F(int, ux[2]) F(int, uy[2]) F(int, hp[2]) F(int, ux[3]) F(int, uy[3]) F(int, hp[3]) \
    F(int, ux[4]) F(int, uy[4]) F(int, hp[4]) F(int, ux[5]) F(int, uy[5]) F(int, hp[5]) \
    F(int, ux[6]) F(int, uy[6]) F(int, hp[6]) F(int, ux[7]) F(int, uy[7]) F(int, hp[7])
#include "../puffer.h"

#define TC_NONE 0
#define TC_SCRIPTED 1
#define TC_W 7  /* the action window: offsets -3..3 */
#define TC_ACTIONS (TC_W * TC_W)
#define TC_STAY 24

static const int TC_HP[2] = {10, 6}, TC_MOVE[2] = {3, 2}, TC_RANGE[2] = {1, 3}, TC_DAMAGE[2] = {4, 3};
static const int TC_DX[4] = {1, -1, 0, 0}, TC_DY[4] = {0, 0, 1, -1};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    uint8_t wall[TC_MAX * TC_MAX];
    int8_t occ[TC_MAX * TC_MAX];           /* unit index + 1, 0 free */
    int ux[2 * TC_UNITS], uy[2 * TC_UNITS], hp[2 * TC_UNITS];  /* unit s * TC_UNITS + i of side s */
    int dist[TC_MAX * TC_MAX], queue[TC_MAX * TC_MAX];        /* BFS scratch */
    uint8_t legal[TC_ACTIONS];             /* the acting unit's reachable offsets, actual frame */
    float pending[2], ret[2];
    int side_to_move, unit_to_act, agent_side, round, tick, steps[2], illegal[2];
} Env;

static inline int tc_rows(Env* env) { return env->opponent == TC_NONE ? 2 : 1; }
static inline int tc_side_of(Env* env, int k) { return env->opponent == TC_NONE ? k : env->agent_side; }
static inline int tc_kind(int u) { return (u % TC_UNITS) & 1; }  /* 0 warrior, 1 archer */
static inline int tc_obs_size(Env* env) { return 2 * TC_ACTIONS + 12 * env->units + 3; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, tc_rows(env));
    s->legal_actions = 1;  /* the observation starts with the legal destinations */
    ocean_obs_flat(s, tc_obs_size(env), -1, 1);
    ocean_act_discrete(s, TC_ACTIONS);
    ocean_render_size(s, 24 * env->size, 24 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int tc_free(Env* env, int x, int y) {
    int n = env->size;
    return x >= 0 && y >= 0 && x < n && y < n && !env->wall[y * n + x] && !env->occ[y * n + x];
}

/* Breadth-first distances (at most `limit`) from (x, y) through free cells into env->dist (-1:
 * not reached); returns the number of cells reached. */
static int tc_bfs(Env* env, int x, int y, int limit, int ignore_units) {
    int n = env->size, head = 0, tail = 0;
    for (int i = 0; i < n * n; i++) env->dist[i] = -1;
    env->dist[y * n + x] = 0;
    env->queue[tail++] = y * n + x;
    while (head < tail) {
        int c = env->queue[head++], cx = c % n, cy = c / n;
        if (env->dist[c] >= limit) continue;
        for (int d = 0; d < 4; d++) {
            int nx = cx + TC_DX[d], ny = cy + TC_DY[d], nc = ny * n + nx;
            if (nx < 0 || ny < 0 || nx >= n || ny >= n || env->wall[nc] || env->dist[nc] >= 0) continue;
            if (!ignore_units && env->occ[nc]) continue;
            env->dist[nc] = env->dist[c] + 1;
            env->queue[tail++] = nc;
        }
    }
    return tail;
}

/* env->legal: the offsets unit u can reach this action (actual frame). */
static void tc_reach(Env* env, int u) {
    int n = env->size;
    tc_bfs(env, env->ux[u], env->uy[u], TC_MOVE[tc_kind(u)], 0);
    for (int a = 0; a < TC_ACTIONS; a++) {
        int x = env->ux[u] + a % TC_W - 3, y = env->uy[u] + a / TC_W - 3;
        env->legal[a] = x >= 0 && y >= 0 && x < n && y < n && env->dist[y * n + x] >= 0;
    }
}

/* The actual-frame action of `side`'s own-frame action `a` (side 1's frame is turned 180 degrees). */
static inline int tc_frame(int side, int a) { return side ? TC_ACTIONS - 1 - a : a; }

static inline int tc_alive(Env* env, int side) {
    int count = 0;
    for (int i = 0; i < env->units; i++) count += env->hp[side * TC_UNITS + i] > 0;
    return count;
}

static void tc_map(Env* env) {
    int n = env->size;
    for (int tries = 0; tries < 33; tries++) {
        memset(env->wall, 0, sizeof(env->wall));
        if (tries == 32) return;  /* no connected map drawn: an open field */
        for (int c = 0; c < n * n; c++) {
            int x = c % n, y = c / n, m = (n - 1 - y) * n + (n - 1 - x);
            if (m < c || x == 0 || x == n - 1 || rng_float(&env->p.rng) >= env->walls) continue;
            env->wall[c] = env->wall[m] = 1;
        }
        int free = 0;
        for (int c = 0; c < n * n; c++) free += !env->wall[c];
        memset(env->occ, 0, sizeof(env->occ));
        if (tc_bfs(env, 0, 0, 1 << 20, 1) == free) return;
    }
}

static void tc_observe(Env* env) {
    int n = env->size, size = tc_obs_size(env);
    float inv = 1.0f / n;
    for (int k = 0; k < tc_rows(env); k++) {
        int me = tc_side_of(env, k), sign = me ? -1 : 1, to_act = env->side_to_move == me;
        float* restrict o = (float*)env->p.observations + k * size;
        memset(o, 0, sizeof(float) * size);
        int focus = me * TC_UNITS + env->unit_to_act;
        if (!to_act)
            for (int i = env->units - 1; i >= 0; i--) if (env->hp[me * TC_UNITS + i] > 0) focus = me * TC_UNITS + i;
        for (int a = 0; a < TC_ACTIONS; a++) {
            int actual = tc_frame(me, a);
            if (to_act) o[a] = env->legal[actual];
            int x = env->ux[focus] + actual % TC_W - 3, y = env->uy[focus] + actual / TC_W - 3;
            o[TC_ACTIONS + a] = x < 0 || y < 0 || x >= n || y >= n || env->wall[y * n + x];
        }
        float* slot = o + 2 * TC_ACTIONS;
        float health[2] = {0, 0}, full[2] = {0, 0};
        for (int j = 0; j < 2 * env->units; j++) {  /* the focus, other own units, then the enemies */
            int side = j < env->units ? me : 1 - me, i = j < env->units ? j : j - env->units;
            int u = side * TC_UNITS + i;
            if (j < env->units) u = j == 0 ? focus : me * TC_UNITS + (i <= focus % TC_UNITS ? i - 1 : i);
            health[side] += env->hp[u] > 0 ? env->hp[u] : 0;
            full[side] += TC_HP[tc_kind(u)];
            if (env->hp[u] <= 0) { slot += 6; continue; }
            slot[0] = 1;
            slot[1] = sign * (env->ux[u] - env->ux[focus]) * inv;
            slot[2] = sign * (env->uy[u] - env->uy[focus]) * inv;
            slot[3] = (float)env->hp[u] / TC_HP[tc_kind(u)];
            slot[4] = (float)tc_kind(u);
            slot[5] = side == env->side_to_move && u % TC_UNITS < env->unit_to_act;
            slot += 6;
        }
        slot[0] = (float)env->round / env->max_rounds;
        slot[1] = health[me] / full[me];
        slot[2] = health[1 - me] / full[1 - me];
    }
}

static void tc_set_masks(Env* env) {
    for (int k = 0; k < tc_rows(env); k++) env->p.masks[k] = tc_rows(env) == 1 || k == env->side_to_move;
}

/* The first living unit of the side to move at or after unit_to_act; past its last, the other
 * side's turn (a new round when side 0 moves again). */
static void tc_advance(Env* env) {
    for (int guard = 0; guard < 2 * TC_UNITS + 2; guard++) {
        if (env->unit_to_act >= env->units) {
            env->side_to_move = 1 - env->side_to_move;
            env->unit_to_act = 0;
            if (env->side_to_move == 0) env->round++;
        }
        if (env->hp[env->side_to_move * TC_UNITS + env->unit_to_act] > 0) break;
        env->unit_to_act++;
    }
    tc_reach(env, env->side_to_move * TC_UNITS + env->unit_to_act);
}

static void c_reset(Env* env);

/* The reachable offset (actual frame) built-in player `kind` picks for unit u (env->legal set). */
static int tc_builtin(Env* env, int u, int kind) {
    int choices[TC_ACTIONS], count = 0;
    for (int a = 0; a < TC_ACTIONS; a++) if (env->legal[a]) choices[count++] = a;
    if (kind != TC_SCRIPTED) return choices[rng_int(&env->p.rng, count)];
    int enemy = (1 - u / TC_UNITS) * TC_UNITS, target = -1, best = 1 << 20;
    for (int i = 0; i < env->units; i++) {
        int e = enemy + i;
        if (env->hp[e] <= 0) continue;
        int d = abs(env->ux[e] - env->ux[u]) + abs(env->uy[e] - env->uy[u]);
        if (d < best) { best = d; target = e; }
    }
    int pick = TC_STAY, pick_key = 1 << 30;
    for (int j = 0; j < count; j++) {  /* in range: fewest steps; else nearest to it, then fewest steps */
        int a = choices[j], dx = a % TC_W - 3, dy = a / TC_W - 3;
        int d = abs(env->ux[target] - env->ux[u] - dx) + abs(env->uy[target] - env->uy[u] - dy);
        int steps = abs(dx) + abs(dy);
        int key = d <= TC_RANGE[tc_kind(u)] ? steps : 1000 + d * 16 + steps;
        if (key < pick_key) { pick_key = key; pick = a; }
    }
    return pick;
}

/* Unit u moves by offset a (actual frame; an unreachable one stays), then attacks. */
static void tc_act(Env* env, int u, int a) {
    int n = env->size, side = u / TC_UNITS;
    if (!env->legal[a]) { env->illegal[side]++; a = TC_STAY; }
    env->occ[env->uy[u] * n + env->ux[u]] = 0;
    env->ux[u] += a % TC_W - 3;
    env->uy[u] += a / TC_W - 3;
    env->occ[env->uy[u] * n + env->ux[u]] = (int8_t)(u + 1);
    int target = -1, kind = tc_kind(u);
    for (int i = 0; i < env->units; i++) {
        int e = (1 - side) * TC_UNITS + i;
        if (env->hp[e] <= 0 || abs(env->ux[e] - env->ux[u]) + abs(env->uy[e] - env->uy[u]) > TC_RANGE[kind]) continue;
        if (target < 0 || env->hp[e] < env->hp[target]) target = e;
    }
    if (target < 0) return;
    int dealt = env->hp[target] < TC_DAMAGE[kind] ? env->hp[target] : TC_DAMAGE[kind];
    env->hp[target] -= dealt;
    env->pending[side] += env->damage_reward * dealt;
    env->pending[1 - side] -= env->damage_reward * dealt;
    if (env->hp[target] <= 0) env->occ[env->uy[target] * n + env->ux[target]] = 0;
}

/* The game's end: rows rewarded (a draw while both sides stand), logged, and a new game. */
static void tc_end(Env* env) {
    int alive[2] = {tc_alive(env, 0), tc_alive(env, 1)};
    int winner = !alive[0] ? 1 : !alive[1] ? 0 : -1;
    for (int k = 0; k < tc_rows(env); k++) {
        int me = tc_side_of(env, k);
        float reward = env->pending[me] + (winner < 0 ? 0.0f : winner == me ? 1.0f : -1.0f);
        env->p.rewards[k] = reward;
        env->p.terminals[k] = 1;
        env->ret[me] += reward;
        ocean_outcome(&env->p, k, winner < 0 ? OCEAN_DRAW : winner == me ? OCEAN_WIN : OCEAN_LOSS);
        LOG_EPISODE(&env->log, .score = winner == me, .episode_return = env->ret[me], .episode_length = env->steps[me],
                    .draws = winner < 0, .units_left = alive[me], .illegal = env->illegal[me]);
    }
    c_reset(env);
}

/* One action of the unit to act (`a`, actual frame); returns 1 when it ended the game. */
static int tc_turn(Env* env, int a) {
    tc_act(env, env->side_to_move * TC_UNITS + env->unit_to_act, a);
    env->unit_to_act++;
    if (tc_alive(env, 0) && tc_alive(env, 1)) {
        tc_advance(env);
        if (env->round < env->max_rounds) return 0;
    }
    tc_end(env);
    return 1;
}

/* The built-in opponent's whole turn, while it is to move (single-agent games). */
static int tc_opponent_turn(Env* env) {
    while (env->side_to_move != env->agent_side) {
        int u = env->side_to_move * TC_UNITS + env->unit_to_act;
        if (tc_turn(env, tc_builtin(env, u, env->opponent))) return 1;
    }
    return 0;
}

static void c_reset(Env* env) {
    int n = env->size;
    tc_map(env);
    memset(env->occ, 0, sizeof(env->occ));
    for (int u = 0; u < 2 * TC_UNITS; u++) env->hp[u] = 0;
    for (int i = 0; i < env->units; i++) {
        int y = (2 * i + 1) * n / (2 * env->units);
        int a = i, b = TC_UNITS + i;
        env->ux[a] = 0; env->uy[a] = y;
        env->ux[b] = n - 1; env->uy[b] = n - 1 - y;
        env->hp[a] = env->hp[b] = TC_HP[tc_kind(i)];
        env->occ[y * n] = (int8_t)(a + 1);
        env->occ[(n - 1 - y) * n + n - 1] = (int8_t)(b + 1);
    }
    env->side_to_move = env->unit_to_act = env->round = env->tick = 0;
    for (int s = 0; s < 2; s++) env->pending[s] = env->ret[s] = env->steps[s] = env->illegal[s] = 0;
    tc_reach(env, 0);
    if (env->opponent != TC_NONE) {
        env->agent_side = rng_int(&env->p.rng, 2);
        if (env->agent_side == 1) tc_opponent_turn(env);
    }
    tc_observe(env);
    tc_set_masks(env);
}

/* The occupancy and the acting unit's reach from the units' fields (tests set those by hand). */
static void tc_sync(Env* env) {
    memset(env->occ, 0, sizeof(env->occ));
    for (int u = 0; u < 2 * TC_UNITS; u++)
        if (env->hp[u] > 0 && env->ux[u] >= 0 && env->uy[u] >= 0 && env->ux[u] < env->size && env->uy[u] < env->size)
            env->occ[env->uy[u] * env->size + env->ux[u]] = (int8_t)(u + 1);
    tc_reach(env, env->side_to_move * TC_UNITS + env->unit_to_act);
}

static void c_step(Env* env) {
    int rows = tc_rows(env), side = env->side_to_move;
    env->tick++;
    tc_sync(env);
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    int k = rows == 2 ? side : 0;
    int builtin = rows == 2 ? ocean_player(&env->p, k) : 0;  /* a built-in player in this seat */
    int u = side * TC_UNITS + env->unit_to_act;
    int a = builtin ? tc_builtin(env, u, builtin) : tc_frame(side, env->p.actions[k]);
    env->steps[side]++;
    if (tc_turn(env, a)) return;
    if (rows == 1 && tc_opponent_turn(env)) return;
    for (int r = 0; r < rows; r++) {  /* pay the damage rewards of the row that acts next */
        int me = tc_side_of(env, r);
        if (rows == 2 && me != env->side_to_move) continue;
        env->p.rewards[r] = env->pending[me];
        env->ret[me] += env->pending[me];
        env->pending[me] = 0;
    }
    tc_observe(env);
    tc_set_masks(env);
}

/* The map: '#' wall, side 0 'W' warrior 'A' archer, side 1 'w' 'a'; then each unit's health. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->size;
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            int u = env->occ[y * n + x] - 1;
            char c = env->wall[y * n + x] ? '#' : '.';
            if (u >= 0) c = "WAwa"[2 * (u / TC_UNITS) + tc_kind(u)];
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    for (int s = 0; s < 2; s++) {
        ANSI_APPEND(buf, cap, len, "side %d health:", s);
        for (int i = 0; i < env->units; i++) ANSI_APPEND(buf, cap, len, " %d", env->hp[s * TC_UNITS + i]);
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "round %d, side %d unit %d to act\n", env->round, env->side_to_move, env->unit_to_act);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->size;
    uint8_t cells[TC_MAX * TC_MAX];
    for (int c = 0; c < n * n; c++) {
        int u = env->occ[c] - 1;
        cells[c] = env->wall[c] ? 6 : u < 0 ? 0 : u / TC_UNITS ? (tc_kind(u) ? 5 : 2) : (tc_kind(u) ? 4 : 1);
    }
    draw_tiles(px, w, h, cells, n, n, 24);
}
