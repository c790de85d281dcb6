/* drive: many cars on a procedurally generated road network, each driving to its own goal.
 *
 * The map (drawn at reset and every `map_period` steps): a `grid_size` x `grid_size` lattice of
 * intersections whose column and row gaps are drawn in [block_min, block_max] metres; the roads
 * between neighbouring intersections are a random spanning tree (so every intersection is
 * reachable) plus each other link with probability `road_density`. A road is 9 m wide (two
 * 4.5 m lanes, right-hand traffic); an intersection is the 9 x 9 m square where roads meet.
 * Nothing is read from a file.
 *
 * Every car (`num_agents` per copy, each an agent) is a 4.5 x 2 m box moved by a kinematic
 * bicycle model (wheelbase 2.8 m, 0.2 s a step): MultiDiscrete([5, 9]), acceleration
 * {-6, -3, 0, 1.5, 3} m/s^2 and front-wheel angle (a1 - 4) * 0.15 rad; speed kept in
 * [0, max_speed]; the path's curvature is capped at 7 m/s^2 / speed^2 (no sharp turn at speed).
 * A car starts at rest or rolling (up to max_speed / 2) in the right lane of a random road,
 * away from the other cars, with a goal point on a road centreline 40 to 200 m away by road.
 * Its episode ends (terminal) on reaching the goal (centre within `goal_radius`: +1), on
 * touching another car (both end, each -collision_penalty) or with its centre off the road
 * (-offroad_penalty), in that order of precedence; it is truncated after `max_steps` steps and
 * when the map is redrawn. Each step also pays progress_reward x (the fall of the car's
 * distance to its goal along the roads) / (that distance at its start). A car whose episode
 * ended starts again at once elsewhere (the final observation is kept).
 *
 * Observation (74 floats in [-1, 1]), in the car's frame (x forward, y left):
 *   0 speed / max_speed; 1-2 goal offset / 100 m; 3 road distance to the goal / 300 m;
 *   4-5, 6-7 the next two route waypoints / 50 m (the shortest road path's turns, in the right
 *   lane; the goal itself when it is next); 8 steps taken / max_steps (offsets longer than
 *   their scale are shortened to length 1, keeping their direction);
 *   9-17 road-edge distances along 9 rays (0, +-0.2, +-0.5, +-1, +-pi/2 rad) / 30 m (1: none
 *   within 30 m);
 *   18-73 the 8 nearest cars within 50 m, nearest first, 7 each: offset / 50 m, cos and sin of
 *   their heading relative to this car's, velocity relative to this car's / (2 max_speed),
 *   1 (all zeros where fewer).
 * score: goals reached per episode (the goal-reached rate); goal_rate, collision_rate and
 * offroad_rate: how the car's episodes ended (the rest ran out of time or map).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(goal_rate) X(collision_rate) X(offroad_rate)
#define DRIVE_MAX_CARS 64
#define DRIVE_MAX_GRID 8
#define PARAMS(P) P(int, num_agents, 32, 1, DRIVE_MAX_CARS) P(int, grid_size, 5, 2, DRIVE_MAX_GRID) \
    P(float, block_min, 30, 25, 200) P(float, block_max, 60, 25, 200) P(float, road_density, 0.5, 0, 1) \
    P(int, max_steps, 300, 1, 100000) P(int, map_period, 3000, 1, 10000000) P(float, max_speed, 12, 1, 40) \
    P(float, goal_radius, 4, 0.5, 20) P(float, collision_penalty, 0.25, 0, 10) P(float, offroad_penalty, 0.25, 0, 10) \
    P(float, progress_reward, 1, 0, 10)
#define DRIVE_CAR_F(F, i) F(float, x[i]) F(float, y[i]) F(float, heading[i]) F(float, speed[i]) \
    F(float, goal_x[i]) F(float, goal_y[i]) F(int, steps[i])
#define FIELDS(F) DRIVE_CAR_F(F, 0) DRIVE_CAR_F(F, 1) DRIVE_CAR_F(F, 2) F(int, tick) \
    F(float, node_x[0]) F(float, node_x[1]) F(float, node_y[0]) F(float, node_y[1])
#include "../puffer.h"

#define DRIVE_DT 0.2f
#define DRIVE_WHEELBASE 2.8f
#define DRIVE_LAT_ACCEL 7.0f
#define DRIVE_MAX_CURVE 0.33273f  /* tan(0.75 rad) / wheelbase: full lock, a 3 m radius */
#define DRIVE_HALF_LEN 2.25f
#define DRIVE_HALF_WID 1.0f
#define DRIVE_ROAD 4.5f      /* half the road's width */
#define DRIVE_LANE 2.25f     /* a lane centre's offset from the road's centre line */
#define DRIVE_MARGIN 20.0f   /* off-road border around the lattice */
#define DRIVE_WORLD 1536     /* metres: 2 margins + 7 gaps of 200 m fit */
#define DRIVE_RAYS 9
#define DRIVE_RAY_RANGE 30.0f
#define DRIVE_RAY_STEP 1.5f
#define DRIVE_SEEN 8
#define DRIVE_SEE_RANGE 50.0f
#define DRIVE_EGO 9
#define DRIVE_CAR_OBS 7
#define DRIVE_OBS (DRIVE_EGO + DRIVE_RAYS + DRIVE_SEEN * DRIVE_CAR_OBS)
#define DRIVE_GOAL_MIN 40.0f
#define DRIVE_GOAL_MAX 200.0f
#define DRIVE_SPAWN_GAP 10.0f
#define DRIVE_TRIES 32
#define DRIVE_PI 3.14159265f
#define DRIVE_NODES (DRIVE_MAX_GRID * DRIVE_MAX_GRID)
#define DRIVE_EDGES (2 * DRIVE_MAX_GRID * (DRIVE_MAX_GRID - 1))

enum { DRIVE_OFF = 0, DRIVE_CROSSING = 1, DRIVE_ROW = 2, DRIVE_COLUMN = 3 };  /* where a point lies */
static const float DRIVE_ACCEL[5] = {-6.0f, -3.0f, 0.0f, 1.5f, 3.0f};
/* the rays' angles from the heading, 0, +-0.2, +-0.5, +-1 and +-pi/2 rad, as cosines and sines */
static const float DRIVE_RAY_COS[DRIVE_RAYS] = {1, 0.98006658f, 0.98006658f, 0.87758256f, 0.87758256f, 0.54030231f,
                                                0.54030231f, 0, 0};
static const float DRIVE_RAY_SIN[DRIVE_RAYS] = {0, 0.19866933f, -0.19866933f, 0.47942554f, -0.47942554f, 0.84147098f,
                                                -0.84147098f, 1, -1};
/* the steering choices: a share of the sharpest curve the car can take at its speed */
static const float DRIVE_STEER[9] = {-1, -0.5f, -0.25f, -0.1f, 0, 0.1f, 0.25f, 0.5f, 1};
static const int DRIVE_DX[4] = {1, 0, -1, 0}, DRIVE_DY[4] = {0, 1, 0, -1};  /* east, north, west, south */

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick;                                  /* steps since the map was drawn */
    float node_x[DRIVE_MAX_GRID], node_y[DRIVE_MAX_GRID];  /* column and row positions */
    uint8_t road_e[DRIVE_NODES], road_n[DRIVE_NODES];      /* a road from node (i, j) east / north */
    uint8_t run_w[DRIVE_NODES], run_e[DRIVE_NODES];        /* the columns where node (i, j)'s straight run of
                                                            * roads along its row ends, west and east */
    uint8_t run_s[DRIVE_NODES], run_n[DRIVE_NODES];        /* the rows where its run along its column ends */
    int16_t edge_a[DRIVE_EDGES], edge_b[DRIVE_EDGES];      /* the roads as node pairs (a west or south of b) */
    int num_edges;
    float world_w, world_h;
    uint8_t col_of[DRIVE_WORLD], row_of[DRIVE_WORLD];      /* nearest column / row per whole metre */
    float* dist;                               /* road distance between nodes (c_init) */
    uint8_t* hop;                              /* the next node from a toward b (c_init) */
    float x[DRIVE_MAX_CARS], y[DRIVE_MAX_CARS], heading[DRIVE_MAX_CARS], speed[DRIVE_MAX_CARS];
    float goal_x[DRIVE_MAX_CARS], goal_y[DRIVE_MAX_CARS];
    int steps[DRIVE_MAX_CARS];
    float ret[DRIVE_MAX_CARS], start_dist[DRIVE_MAX_CARS], last_dist[DRIVE_MAX_CARS];
    float hc[DRIVE_MAX_CARS], hs[DRIVE_MAX_CARS];          /* cos, sin of the headings */
    uint8_t ended[DRIVE_MAX_CARS];             /* 0 driving; 1 goal, 2 collision, 3 off road, 4 truncated */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    if (env->block_min > env->block_max) {
        snprintf(err, OCEAN_ERR_LEN, "block_min=%g must not exceed block_max=%g: raise block_max or lower block_min.",
                 env->block_min, env->block_max);
        return 1;
    }
    /* a spanning tree's grid_size^2 - 1 roads, each with room for (block_min - 15) / 10 + 1 starts */
    int room = (env->grid_size * env->grid_size - 1) * ((int)((env->block_min - 2 * DRIVE_ROAD - 6) / DRIVE_SPAWN_GAP) + 1);
    if (env->num_agents > room) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents=%d cars do not fit: grid_size=%d with block_min=%g has room for %d "
                 "starts %g m apart; raise grid_size or block_min, or lower num_agents.", env->num_agents,
                 env->grid_size, env->block_min, room, DRIVE_SPAWN_GAP);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, DRIVE_OBS, -1, 1);
    ocean_act_multidiscrete(s, 2, (const int[]){5, 9});
    ocean_render_size(s, 512, 512);
    return 0;
}

static int c_init(Env* env, char* err) {
    int n = env->grid_size * env->grid_size;
    env->dist = (float*)malloc(sizeof(float) * (size_t)n * n);
    env->hop = (uint8_t*)malloc((size_t)n * n);
    if (!env->dist || !env->hop) {
        snprintf(err, OCEAN_ERR_LEN, "out of memory");
        return 1;
    }
    return 0;
}

static void c_close(Env* env) {
    free(env->dist);
    free(env->hop);
    env->dist = NULL;
    env->hop = NULL;
}

/* ---- the map ---- */

static int drive_find(int* parent, int a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

/* Positions from the first margin on, gaps drawn in [block_min, block_max]; the nearest-index table. */
static float drive_lay_out(Env* env, float* pos, uint8_t* nearest) {
    int g = env->grid_size;
    pos[0] = DRIVE_MARGIN;
    for (int i = 1; i < g; i++)
        pos[i] = pos[i - 1] + (float)rng_uniform(&env->p.rng, env->block_min, env->block_max);
    float size = pos[g - 1] + DRIVE_MARGIN;
    for (int m = 0, i = 0; m < DRIVE_WORLD; m++) {
        while (i + 1 < g && (float)m + 0.5f > 0.5f * (pos[i] + pos[i + 1])) i++;
        nearest[m] = (uint8_t)i;
    }
    return size;
}

/* Draw a new map: the lattice, a random spanning tree of roads plus extra roads, and the road
 * distances and next hops between all intersections (Floyd-Warshall). */
static void drive_new_map(Env* env) {
    int g = env->grid_size, n = g * g;
    env->world_w = drive_lay_out(env, env->node_x, env->col_of);
    env->world_h = drive_lay_out(env, env->node_y, env->row_of);
    int16_t cand_a[DRIVE_EDGES], cand_b[DRIVE_EDGES];
    int parent[DRIVE_NODES], m = 0;
    for (int j = 0; j < g; j++)
        for (int i = 0; i < g; i++) {
            int a = j * g + i;
            parent[a] = a;
            env->road_e[a] = env->road_n[a] = 0;
            if (i + 1 < g) { cand_a[m] = (int16_t)a; cand_b[m++] = (int16_t)(a + 1); }
            if (j + 1 < g) { cand_a[m] = (int16_t)a; cand_b[m++] = (int16_t)(a + g); }
        }
    for (int k = m - 1; k > 0; k--) {  /* shuffle, then Kruskal with random order: a random spanning tree */
        int r = rng_int(&env->p.rng, k + 1);
        int16_t ta = cand_a[k], tb = cand_b[k];
        cand_a[k] = cand_a[r]; cand_b[k] = cand_b[r];
        cand_a[r] = ta; cand_b[r] = tb;
    }
    env->num_edges = 0;
    for (int k = 0; k < m; k++) {
        int a = cand_a[k], b = cand_b[k], ra = drive_find(parent, a), rb = drive_find(parent, b);
        int keep = ra != rb;
        if (keep) parent[ra] = rb;
        if (rng_float(&env->p.rng) < env->road_density) keep = 1;  /* drawn for every link: replays alike */
        if (!keep) continue;
        if (b == a + 1) env->road_e[a] = 1; else env->road_n[a] = 1;
        env->edge_a[env->num_edges] = (int16_t)a;
        env->edge_b[env->num_edges++] = (int16_t)b;
    }
    for (int j = 0; j < g; j++)
        for (int i = 0; i < g; i++) {
            int a = j * g + i;
            env->run_w[a] = (uint8_t)(i > 0 && env->road_e[a - 1] ? env->run_w[a - 1] : i);
            env->run_s[a] = (uint8_t)(j > 0 && env->road_n[a - g] ? env->run_s[a - g] : j);
        }
    for (int j = g - 1; j >= 0; j--)
        for (int i = g - 1; i >= 0; i--) {
            int a = j * g + i;
            env->run_e[a] = (uint8_t)(env->road_e[a] ? env->run_e[a + 1] : i);
            env->run_n[a] = (uint8_t)(env->road_n[a] ? env->run_n[a + g] : j);
        }
    float* d = env->dist;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            d[a * n + b] = a == b ? 0 : 1e9f;
            env->hop[a * n + b] = (uint8_t)b;
        }
    for (int k = 0; k < env->num_edges; k++) {
        int a = env->edge_a[k], b = env->edge_b[k];
        float len = b == a + 1 ? env->node_x[b % g] - env->node_x[a % g] : env->node_y[b / g] - env->node_y[a / g];
        d[a * n + b] = d[b * n + a] = len;
    }
    for (int k = 0; k < n; k++)
        for (int a = 0; a < n; a++) {
            float dak = d[a * n + k];
            if (dak >= 1e9f) continue;
            for (int b = 0; b < n; b++)
                if (dak + d[k * n + b] < d[a * n + b]) {
                    d[a * n + b] = dak + d[k * n + b];
                    env->hop[a * n + b] = env->hop[a * n + k];
                }
        }
}

/* Where (x, y) lies: off road, in the crossing of node (i, j), on the road of row j east of
 * column i (DRIVE_ROW: i is the west end) or of column i north of row j (DRIVE_COLUMN: j the
 * south end). */
static inline int drive_locate(const Env* env, float x, float y, int* i_out, int* j_out) {
    if (!(x >= 0 && y >= 0 && x < env->world_w && y < env->world_h)) return DRIVE_OFF;
    int g = env->grid_size, i = env->col_of[(int)x], j = env->row_of[(int)y];
    float dx = x - env->node_x[i], dy = y - env->node_y[j];
    int on_col = fabsf(dx) <= DRIVE_ROAD, on_row = fabsf(dy) <= DRIVE_ROAD;
    *j_out = j;
    *i_out = i;
    if (on_col && on_row) return DRIVE_CROSSING;
    if (on_row) {
        int a = dx > 0 ? i : i - 1;
        *i_out = a;
        return a >= 0 && a + 1 < g && env->road_e[j * g + a] ? DRIVE_ROW : DRIVE_OFF;
    }
    if (on_col) {
        int b = dy > 0 ? j : j - 1;
        *j_out = b;
        return b >= 0 && b + 1 < g && env->road_n[b * g + i] ? DRIVE_COLUMN : DRIVE_OFF;
    }
    return DRIVE_OFF;
}

static inline int drive_on_road(const Env* env, float x, float y) {
    int i, j;
    return drive_locate(env, x, y, &i, &j) != DRIVE_OFF;
}

/* The whole metre of a coordinate, as an index of col_of / row_of (0 for NaN). */
static inline int drive_metre(float v) { return v >= 0 ? (v < DRIVE_WORLD - 1 ? (int)v : DRIVE_WORLD - 1) : 0; }

/* The direction (0 east, 1 north, 2 west, 3 south) from node a to its neighbour b. */
static inline int drive_dir(int g, int a, int b) {
    return b == a + 1 ? 0 : b == a + g ? 1 : b == a - 1 ? 2 : 3;
}

/* Where a car turns at node `n` coming in heading `in` and going out heading `out`: where the
 * right lanes of the two roads cross (straight on or back: the right lane at the node). */
static inline void drive_waypoint(const Env* env, int n, int in, int out, float* w) {
    int g = env->grid_size;
    float x = env->node_x[n % g], y = env->node_y[n / g];
    x += DRIVE_LANE * (float)DRIVE_DY[out];  /* the right of a heading (dx, dy) is (dy, -dx) */
    y -= DRIVE_LANE * (float)DRIVE_DX[out];
    if ((in ^ out) & 1) {
        x += DRIVE_LANE * (float)DRIVE_DY[in];
        y -= DRIVE_LANE * (float)DRIVE_DX[in];
    }
    w[0] = x;
    w[1] = y;
}

/* Car k's route to its goal along the roads: writes the next two waypoints (w[0..3], world
 * frame) and returns the road distance. The goal's road and the car's place are derived from
 * positions every time, so nothing cached goes stale. */
static float drive_route(const Env* env, int k, float* w) {
    int g = env->grid_size, n = g * g, gi = 0, gj = 0, ci = 0, cj = 0;
    float gx = env->goal_x[k], gy = env->goal_y[k], x = env->x[k], y = env->y[k];
    int goal_at = drive_locate(env, gx, gy, &gi, &gj);
    int g_end[2];
    float g_off[2];
    if (goal_at == DRIVE_ROW) {
        g_end[0] = gj * g + gi, g_end[1] = g_end[0] + 1;
        g_off[0] = gx - env->node_x[gi], g_off[1] = env->node_x[gi + 1] - gx;
    } else if (goal_at == DRIVE_COLUMN) {
        g_end[0] = gj * g + gi, g_end[1] = g_end[0] + g;
        g_off[0] = gy - env->node_y[gj], g_off[1] = env->node_y[gj + 1] - gy;
    } else {  /* in a crossing (or off the roads, where a test put it): its nearest node */
        g_end[0] = g_end[1] = env->row_of[drive_metre(gy)] * g + env->col_of[drive_metre(gx)];
        g_off[0] = g_off[1] = hypotf(gx - env->node_x[g_end[0] % g], gy - env->node_y[g_end[0] / g]);
    }
    int at = drive_locate(env, x, y, &ci, &cj);
    float direct = hypotf(gx - x, gy - y);
    int m, in;       /* the node the car drives to next and its heading into it */
    float to_m;
    if (at == DRIVE_ROW || at == DRIVE_COLUMN) {
        int row = at == DRIVE_ROW, fwd = row ? env->hc[k] >= 0 : env->hs[k] >= 0;
        int a = cj * g + ci, b = a + (row ? 1 : g);
        if (goal_at == at && gi == ci && gj == cj && (row ? (gx - x) * env->hc[k] : (gy - y) * env->hs[k]) >= 0) {
            w[0] = w[2] = gx, w[1] = w[3] = gy;  /* on the goal's road, heading to it */
            return direct;
        }
        m = fwd ? b : a;
        in = row ? (fwd ? 0 : 2) : (fwd ? 1 : 3);
        to_m = row ? fabsf(env->node_x[m % g] - x) : fabsf(env->node_y[m / g] - y);
    } else if (at == DRIVE_CROSSING) {  /* in a crossing: aim past it, at the node after it */
        int c = cj * g + ci, e = n * c;
        int via = env->dist[e + g_end[0]] + g_off[0] <= env->dist[e + g_end[1]] + g_off[1] ? 0 : 1;
        float to_c = hypotf(env->node_x[ci] - x, env->node_y[cj] - y);
        if (c == g_end[via]) {
            w[0] = w[2] = gx, w[1] = w[3] = gy;
            return to_c + g_off[via];
        }
        m = env->hop[e + g_end[via]];
        in = drive_dir(g, c, m);
        to_m = to_c + env->dist[e + m];
    } else {
        w[0] = w[2] = gx, w[1] = w[3] = gy;
        return direct;
    }
    int via = env->dist[m * n + g_end[0]] + g_off[0] <= env->dist[m * n + g_end[1]] + g_off[1] ? 0 : 1;
    int end = g_end[via];
    float rest = to_m + env->dist[m * n + end] + g_off[via];
    /* the heading out of node `end` toward the goal */
    int last = goal_at == DRIVE_ROW ? (via == 0 ? 0 : 2) : goal_at == DRIVE_COLUMN ? (via == 0 ? 1 : 3) : -1;
    if (m == end) {
        drive_waypoint(env, m, in, last < 0 ? in : last, w);
        w[2] = gx, w[3] = gy;
        return rest;
    }
    int m2 = env->hop[m * n + end], out = drive_dir(g, m, m2);
    drive_waypoint(env, m, in, out, w);
    if (m2 == end) drive_waypoint(env, m2, out, last < 0 ? out : last, w + 2);
    else drive_waypoint(env, m2, out, drive_dir(g, m2, env->hop[m2 * n + end]), w + 2);
    return rest;
}

/* ---- cars ---- */

/* Whether cars i and j overlap (separating axes of two oriented boxes). */
static inline int drive_touch(const Env* env, int i, int j) {
    float dx = env->x[j] - env->x[i], dy = env->y[j] - env->y[i];
    float r = 2 * (DRIVE_HALF_LEN * DRIVE_HALF_LEN + DRIVE_HALF_WID * DRIVE_HALF_WID);
    if (dx * dx + dy * dy > 2 * r) return 0;  /* farther than the two half-diagonals */
    float ax[4] = {env->hc[i], -env->hs[i], env->hc[j], -env->hs[j]};
    float ay[4] = {env->hs[i], env->hc[i], env->hs[j], env->hc[j]};
    for (int a = 0; a < 4; a++) {
        float ri = DRIVE_HALF_LEN * fabsf(ax[a] * env->hc[i] + ay[a] * env->hs[i]) +
                   DRIVE_HALF_WID * fabsf(-ax[a] * env->hs[i] + ay[a] * env->hc[i]);
        float rj = DRIVE_HALF_LEN * fabsf(ax[a] * env->hc[j] + ay[a] * env->hs[j]) +
                   DRIVE_HALF_WID * fabsf(-ax[a] * env->hs[j] + ay[a] * env->hc[j]);
        if (fabsf(dx * ax[a] + dy * ay[a]) > ri + rj) return 0;
    }
    return 1;
}

/* How far (x, y) may go along (ux, uy) inside the box [x0, x1] x [y0, y1] that holds it. */
static inline float drive_box_exit(float x, float y, float ux, float uy, float x0, float x1, float y0, float y1) {
    float tx = ux > 1e-6f ? (x1 - x) / ux : ux < -1e-6f ? (x0 - x) / ux : 1e9f;
    float ty = uy > 1e-6f ? (y1 - y) / uy : uy < -1e-6f ? (y0 - y) / uy : 1e9f;
    return tx < ty ? tx : ty;
}

/* The straight runs of road that hold (x, y), as boxes {x0, x1, y0, y1}: along its row (box[0..3])
 * and along its column (box[4..7]); returns which it is in (bit 0 the row's, bit 1 the column's;
 * 0: off the road). A run is a row's or a column's crossings joined by roads. */
static inline int drive_runs(const Env* env, float x, float y, float* box) {
    if (!(x >= 0 && y >= 0 && x < env->world_w && y < env->world_h)) return 0;
    int g = env->grid_size, i = env->col_of[(int)x], j = env->row_of[(int)y], in = 0;
    float dx = x - env->node_x[i], dy = y - env->node_y[j];
    int in_col = fabsf(dx) <= DRIVE_ROAD, in_row = fabsf(dy) <= DRIVE_ROAD;
    if (in_row) {
        int a = in_col ? i : dx > 0 ? i : i - 1;
        if (in_col || (a >= 0 && a + 1 < g && env->road_e[j * g + a])) {
            box[0] = env->node_x[env->run_w[j * g + a]] - DRIVE_ROAD, box[1] = env->node_x[env->run_e[j * g + a]] + DRIVE_ROAD;
            box[2] = env->node_y[j] - DRIVE_ROAD, box[3] = env->node_y[j] + DRIVE_ROAD;
            in |= 1;
        }
    }
    if (in_col) {
        int b = in_row ? j : dy > 0 ? j : j - 1;
        if (in_row || (b >= 0 && b + 1 < g && env->road_n[b * g + i])) {
            box[4] = env->node_x[i] - DRIVE_ROAD, box[5] = env->node_x[i] + DRIVE_ROAD;
            box[6] = env->node_y[env->run_s[b * g + i]] - DRIVE_ROAD, box[7] = env->node_y[env->run_n[b * g + i]] + DRIVE_ROAD;
            in |= 2;
        }
    }
    return in;
}

/* How far a ray from (x, y) along (ux, uy) stays in the runs `in` of `box` (drive_runs). */
static inline float drive_runs_exit(float x, float y, float ux, float uy, int in, const float* box) {
    float reach = -1;
    if (in & 1) reach = drive_box_exit(x, y, ux, uy, box[0], box[1], box[2], box[3]);
    if (in & 2) {
        float e = drive_box_exit(x, y, ux, uy, box[4], box[5], box[6], box[7]);
        reach = e > reach ? e : reach;
    }
    return reach;
}

/* Distance along a ray from (x, y) to the road's edge, / DRIVE_RAY_RANGE (1: none in range; 0
 * from off the road). Exact: the ray leaves the runs holding its point (`in`, `box`: those of
 * (x, y), by drive_runs), and goes on from there while that point is on another run. */
static inline float drive_ray(const Env* env, float x, float y, float ux, float uy, int in, const float* box) {
    if (!in) return 0;
    float out = drive_runs_exit(x, y, ux, uy, in, box), more[8] = {0};
    for (int hops = 0; hops < 4 * DRIVE_MAX_GRID && out < DRIVE_RAY_RANGE; hops++) {
        float t = out + 1e-3f, qx = x + ux * t, qy = y + uy * t;
        int on = drive_runs(env, qx, qy, more);
        if (!on) break;  /* off the road */
        out = t + drive_runs_exit(qx, qy, ux, uy, on, more);
    }
    return out < DRIVE_RAY_RANGE ? out * (1.0f / DRIVE_RAY_RANGE) : 1;
}

static inline float drive_clip(float v) { return clampf(v, -1, 1); }

/* An offset (fx, fy) in the car's frame, times `scale`, into out[0..1]: shortened to length 1
 * when longer (its direction kept), each value then clamped for rounding. */
static inline void drive_frame(float fx, float fy, float scale, float* out) {
    float len2 = (fx * fx + fy * fy) * scale * scale;
    if (len2 > 1) scale /= sqrtf(len2);
    out[0] = drive_clip(fx * scale);
    out[1] = drive_clip(fy * scale);
}

/* Write car k's observation, given its route (drive_route: the waypoints w and road distance rest). */
static void drive_write_obs(Env* env, int k, const float* w, float rest) {
    float* restrict obs = (float*)env->p.observations + (size_t)k * DRIVE_OBS;  /* aliases no state */
    float c = env->hc[k], s = env->hs[k], x = env->x[k], y = env->y[k];
    float gx = env->goal_x[k] - x, gy = env->goal_y[k] - y;
    obs[0] = env->speed[k] / env->max_speed;
    drive_frame(gx * c + gy * s, gy * c - gx * s, 0.01f, obs + 1);
    obs[3] = drive_clip(rest * (1.0f / 300));
    for (int p = 0; p < 2; p++) {
        float px = w[2 * p] - x, py = w[2 * p + 1] - y;
        drive_frame(px * c + py * s, py * c - px * s, 0.02f, obs + 4 + 2 * p);
    }
    obs[8] = drive_clip((float)env->steps[k] / (float)env->max_steps);
    float box[8] = {0};
    int in = drive_runs(env, x, y, box);
    for (int r = 0; r < DRIVE_RAYS; r++) {
        float rc = DRIVE_RAY_COS[r], rs = DRIVE_RAY_SIN[r];
        obs[DRIVE_EGO + r] = drive_ray(env, x, y, c * rc - s * rs, s * rc + c * rs, in, box);
    }
    int seen[DRIVE_SEEN], count = 0;
    float near[DRIVE_SEEN], r2 = DRIVE_SEE_RANGE * DRIVE_SEE_RANGE;
    for (int j = 0; j < env->num_agents; j++) {  /* keep the DRIVE_SEEN nearest, nearest first */
        float dx = env->x[j] - x, dy = env->y[j] - y, d = dx * dx + dy * dy;
        if (j == k || d > r2) continue;
        int q;
        if (count < DRIVE_SEEN) q = count++;
        else if (d < near[DRIVE_SEEN - 1]) q = DRIVE_SEEN - 1;
        else continue;
        while (q > 0 && near[q - 1] > d) { near[q] = near[q - 1]; seen[q] = seen[q - 1]; q--; }
        near[q] = d;
        seen[q] = j;
    }
    float* o = obs + DRIVE_EGO + DRIVE_RAYS, iv = 0.5f / env->max_speed;
    for (int q = 0; q < DRIVE_SEEN; q++, o += DRIVE_CAR_OBS) {
        if (q >= count) {
            for (int f = 0; f < DRIVE_CAR_OBS; f++) o[f] = 0;
            continue;
        }
        int j = seen[q];
        float dx = env->x[j] - x, dy = env->y[j] - y;
        float vx = env->speed[j] * env->hc[j] - env->speed[k] * c, vy = env->speed[j] * env->hs[j] - env->speed[k] * s;
        o[0] = drive_clip((dx * c + dy * s) * (1.0f / DRIVE_SEE_RANGE));
        o[1] = drive_clip((dy * c - dx * s) * (1.0f / DRIVE_SEE_RANGE));
        o[2] = drive_clip(env->hc[j] * c + env->hs[j] * s);
        o[3] = drive_clip(env->hs[j] * c - env->hc[j] * s);
        o[4] = drive_clip((vx * c + vy * s) * iv);
        o[5] = drive_clip((vy * c - vx * s) * iv);
        o[6] = 1;
    }
}

/* Write car k's observation; returns its road distance to the goal. */
static float drive_observe(Env* env, int k) {
    float w[4], rest = drive_route(env, k, w);
    drive_write_obs(env, k, w, rest);
    return rest;
}

/* Start car k again: a free spot on a random road, a goal 40-200 m away by road, and the lane
 * and direction of the shorter way there. */
static void drive_spawn(Env* env, int k) {
    int g = env->grid_size, dir = 0;
    float along = 0, ax = 0, ay = 0;
    for (int t = 0; t < DRIVE_TRIES; t++) {
        int e = rng_int(&env->p.rng, env->num_edges), a = env->edge_a[e], b = env->edge_b[e];
        dir = drive_dir(g, a, b);
        ax = env->node_x[a % g], ay = env->node_y[a / g];
        float len = env->node_x[b % g] - ax + env->node_y[b / g] - ay;
        along = (float)rng_uniform(&env->p.rng, DRIVE_ROAD + 3, len - DRIVE_ROAD - 3);
        int clear = 1;
        for (int j = 0; j < env->num_agents && clear; j++) {
            if (j == k || env->ended[j]) continue;  /* cars still to be placed do not count */
            float dx = env->x[j] - (ax + DRIVE_DX[dir] * along), dy = env->y[j] - (ay + DRIVE_DY[dir] * along);
            clear = dx * dx + dy * dy >= DRIVE_SPAWN_GAP * DRIVE_SPAWN_GAP;
        }
        if (clear) break;
    }
    float w[4], rest = 0;
    for (int t = 0; t < DRIVE_TRIES; t++) {
        int e = rng_int(&env->p.rng, env->num_edges), a = env->edge_a[e], b = env->edge_b[e];
        float gx = env->node_x[a % g], gy = env->node_y[a / g], bx = env->node_x[b % g], by = env->node_y[b / g];
        float f = (float)rng_uniform(&env->p.rng, 0, 1), len = (bx - gx) + (by - gy);
        float off = DRIVE_ROAD + 1 + f * (len - 2 * DRIVE_ROAD - 2);
        env->goal_x[k] = gx + (bx > gx ? off : 0);
        env->goal_y[k] = gy + (by > gy ? off : 0);
        for (int back = 0; back < 2; back++) {  /* either way along the road, in its right lane */
            int d = dir + 2 * back;
            env->x[k] = ax + DRIVE_DX[dir] * along + DRIVE_LANE * (float)DRIVE_DY[d];
            env->y[k] = ay + DRIVE_DY[dir] * along - DRIVE_LANE * (float)DRIVE_DX[d];
            env->heading[k] = d == 3 ? -0.5f * DRIVE_PI : (float)d * (0.5f * DRIVE_PI);
            env->hc[k] = (float)DRIVE_DX[d], env->hs[k] = (float)DRIVE_DY[d];
            float way = drive_route(env, k, w);
            if (back && way > rest) {  /* the first way was shorter: back to it */
                env->x[k] -= 2 * DRIVE_LANE * (float)DRIVE_DY[d], env->y[k] += 2 * DRIVE_LANE * (float)DRIVE_DX[d];
                env->heading[k] = (float)dir * (0.5f * DRIVE_PI);
                env->hc[k] = (float)DRIVE_DX[dir], env->hs[k] = (float)DRIVE_DY[dir];
            } else {
                rest = way;
            }
        }
        if (rest >= DRIVE_GOAL_MIN && rest <= DRIVE_GOAL_MAX) break;
    }
    env->speed[k] = (float)rng_uniform(&env->p.rng, 0, 0.5 * env->max_speed);
    env->steps[k] = 0;
    env->ret[k] = 0;
    env->start_dist[k] = env->last_dist[k] = rest > 1 ? rest : 1;
    env->ended[k] = 0;
}

static void c_reset(Env* env) {
    drive_new_map(env);
    env->tick = 0;
    memset(env->ended, 1, sizeof(env->ended));
    for (int k = 0; k < env->num_agents; k++) drive_spawn(env, k);
    for (int k = 0; k < env->num_agents; k++) drive_observe(env, k);
}

static void c_step(Env* env) {
    int n = env->num_agents;
    float* restrict rewards = env->p.rewards;  /* aliases no state */
    float way[DRIVE_MAX_CARS][4];  /* each car's route this step */
    env->tick++;
    for (int k = 0; k < n; k++) {  /* the bicycle model */
        const int32_t* act = env->p.actions + 2 * k;
        float v = clampf(env->speed[k] + DRIVE_ACCEL[act[0]] * DRIVE_DT, 0, env->max_speed);
        float sharpest = DRIVE_LAT_ACCEL / (v * v > 1e-6f ? v * v : 1e-6f);
        sharpest = sharpest < DRIVE_MAX_CURVE ? sharpest : DRIVE_MAX_CURVE;
        float h = env->heading[k] + v * DRIVE_STEER[act[1]] * sharpest * DRIVE_DT;
        h += h > DRIVE_PI ? -2 * DRIVE_PI : h < -DRIVE_PI ? 2 * DRIVE_PI : 0;  /* kept in [-pi, pi] */
        env->heading[k] = h;
        env->speed[k] = v;
        fast_sincosf(h, &env->hs[k], &env->hc[k]);
        env->x[k] += v * env->hc[k] * DRIVE_DT;
        env->y[k] += v * env->hs[k] * DRIVE_DT;
        env->steps[k]++;
        float gx = env->goal_x[k] - env->x[k], gy = env->goal_y[k] - env->y[k];
        env->ended[k] = gx * gx + gy * gy <= env->goal_radius * env->goal_radius ? 1 : 0;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (drive_touch(env, i, j)) {
                if (!env->ended[i]) env->ended[i] = 2;
                if (!env->ended[j]) env->ended[j] = 2;
            }
    int redraw = env->tick >= env->map_period;
    for (int k = 0; k < n; k++) {
        if (!env->ended[k] && !drive_on_road(env, env->x[k], env->y[k])) env->ended[k] = 3;
        if (!env->ended[k] && (env->steps[k] >= env->max_steps || redraw)) env->ended[k] = 4;
        int end = env->ended[k];
        float rest = drive_route(env, k, way[k]);
        if (end) drive_write_obs(env, k, way[k], rest);
        float reward = end == 3 ? 0 : env->progress_reward * (env->last_dist[k] - rest) / env->start_dist[k];
        env->last_dist[k] = rest;
        reward += end == 1 ? 1.0f : end == 2 ? -env->collision_penalty : end == 3 ? -env->offroad_penalty : 0;
        rewards[k] = reward;
        env->ret[k] += reward;
        env->p.terminals[k] = end >= 1 && end <= 3;
        env->p.truncations[k] = end == 4;
        if (!end) continue;
        LOG_EPISODE(&env->log, .score = end == 1, .episode_return = env->ret[k], .episode_length = env->steps[k],
                    .goal_rate = end == 1, .collision_rate = end == 2, .offroad_rate = end == 3);
        ocean_keep_final(&env->p, k);  /* written before any car starts again */
    }
    if (redraw) {
        c_reset(env);
        return;
    }
    uint8_t fresh[DRIVE_MAX_CARS];
    for (int k = 0; k < n; k++) {
        fresh[k] = env->ended[k] != 0;
        if (fresh[k]) drive_spawn(env, k);
    }
    for (int k = 0; k < n; k++) {  /* every car sees the new ones; a route depends on its own car only */
        if (fresh[k]) drive_observe(env, k);
        else drive_write_obs(env, k, way[k], env->last_dist[k]);
    }
}

/* 64 x 32 characters of the map: roads '.', cars by heading '>' '^' '<' 'v', goals '*'. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    enum { COLS = 64, ROWS = 32 };
    char cells[ROWS][COLS];
    float sx = env->world_w / COLS, sy = env->world_h / ROWS;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            cells[r][c] = drive_on_road(env, (c + 0.5f) * sx, (ROWS - r - 0.5f) * sy) ? '.' : ' ';
    for (int k = 0; k < env->num_agents; k++) {
        int gc = (int)(env->goal_x[k] / sx), gr = ROWS - 1 - (int)(env->goal_y[k] / sy);
        if (gc >= 0 && gc < COLS && gr >= 0 && gr < ROWS) cells[gr][gc] = '*';
    }
    for (int k = 0; k < env->num_agents; k++) {
        int c = (int)(env->x[k] / sx), r = ROWS - 1 - (int)(env->y[k] / sy);
        int q = (int)((env->heading[k] + 2 * DRIVE_PI + 0.25f * DRIVE_PI) / (0.5f * DRIVE_PI)) % 4;
        if (c >= 0 && c < COLS && r >= 0 && r < ROWS) cells[r][c] = ">^<v"[q];
    }
    int len = 0;
    for (int r = 0; r < ROWS; r++) ANSI_APPEND(buf, cap, len, "%.64s\n", cells[r]);
    ANSI_APPEND(buf, cap, len, "tick %d\n", env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int g = env->grid_size;
    float big = env->world_w > env->world_h ? env->world_w : env->world_h, scale = (float)w / big;
    int road = (int)(2 * DRIVE_ROAD * scale) + 1;
    draw_fill(px, w, h, PUFFER_BG);
    for (int e = 0; e < env->num_edges; e++) {
        int a = env->edge_a[e], b = env->edge_b[e];
        float ax = env->node_x[a % g], ay = env->node_y[a / g], bx = env->node_x[b % g], by = env->node_y[b / g];
        int x0 = (int)((ax - DRIVE_ROAD) * scale), y0 = h - (int)((by + DRIVE_ROAD) * scale);
        draw_rect(px, w, h, x0, y0, (int)((bx - ax) * scale) + road, (int)((by - ay) * scale) + road, PUFFER_GREY);
    }
    for (int k = 0; k < env->num_agents; k++) {
        int gx = (int)(env->goal_x[k] * scale), gy = h - (int)(env->goal_y[k] * scale);
        draw_rect(px, w, h, gx - 2, gy - 2, 4, 4, PUFFER_YELLOW);
    }
    for (int k = 0; k < env->num_agents; k++) {
        int cx = (int)(env->x[k] * scale), cy = h - (int)(env->y[k] * scale);
        draw_rect(px, w, h, cx - 3, cy - 3, 6, 6, PUFFER_CYAN);
        draw_rect(px, w, h, cx + (int)(5 * env->hc[k]) - 1, cy - (int)(5 * env->hs[k]) - 1, 3, 3, PUFFER_RED);
    }
}
