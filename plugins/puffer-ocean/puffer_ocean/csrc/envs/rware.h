/* rware: robots deliver requested shelves in a warehouse (PufferLib's Ocean "rware").
 *
 * `num_agents` robots on one of three warehouse maps (map_choice 1 tiny 10 x 11, 2 small
 * 20 x 10, 3 medium 20 x 16: aisles, shelf blocks and goal cells). `num_requested_shelves`
 * shelves are requested at a time. Actions: 0 nothing, 1 forward, 2 turn left, 3 turn
 * right, 4 toggle load. A robot moves under shelves when empty-handed; carrying a shelf
 * it cannot enter a shelf cell, nor a goal with an empty shelf. Toggle load picks up a
 * requested shelf (+0.5), drops a carried requested shelf on a goal (+0.5; it becomes
 * empty and another shelf is requested) and puts an empty shelf down on any free shelf
 * spot (+1: one delivery). Moves are simultaneous: a robot enters a cell that is free or
 * that its occupant leaves in the same step (queues move front first; two robots for
 * one cell: the lower index goes); robots in a closed loop wait. An episode is
 * `max_steps` steps of the whole warehouse (truncated, then a fresh layout of requests
 * and robots); `score` is one robot's deliveries in it. Observation (27 floats in
 * [0, 1]): cell / cells, (direction + 1) / 4, load / 2 (0 none, 1 requested, 2 empty),
 * then for the 8 neighbours (N, NE, E, SE, S, SW, W, NW): a robot there, its
 * (direction + 1) / 4, (cell state + 1) / 4 (state 0 empty, 1 shelf, 2 requested shelf,
 * 3 goal; 0 outside the map).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, map_choice, 1, 1, 3) P(int, num_agents, 4, 1, 64) P(int, num_requested_shelves, 4, 1, 32) \
    P(int, max_steps, 500, 1, 10000000)
#define FIELDS(F) F(int, loc[0]) F(int, dir[0]) F(int, load[0]) F(int, loc[1]) F(int, dir[1]) F(int, tick) \
    F(int, state[11]) F(int, state[12]) F(int, state[104])
#include "../puffer.h"

#define RW_CELLS 320
#define RW_MAX_AGENTS 64
enum { RW_EMPTY = 0, RW_SHELF = 1, RW_REQUESTED = 2, RW_GOAL = 3 };
enum { RW_UNLOADED = 0, RW_HOLD_REQUESTED = 1, RW_HOLD_EMPTY = 2 };

/* The maps: '.' aisle, 's' shelf spot, 'g' goal. */
static const char* const RW_MAPS[3] = {
    ".........."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".ss....ss."
    ".........."
    "....gg....",
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "...................."
    "g..........ssssssss."
    "g..........ssssssss."
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "....................",
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "...................."
    "g..........ssssssss."
    "g..........ssssssss."
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "...................."
    "..ssssssss.ssssssss."
    "..ssssssss.ssssssss."
    "....................",
};
static const int RW_ROWS[3] = {11, 10, 16}, RW_COLS[3] = {10, 20, 20};
static const int RW_DX[4] = {1, 0, -1, 0}, RW_DY[4] = {0, 1, 0, -1};  /* right, down, left, up */
static const int RW_AROUND[8][2] = {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int rows, cols, cells, num_spots, tick;
    int loc[RW_MAX_AGENTS], dir[RW_MAX_AGENTS], load[RW_MAX_AGENTS], target[RW_MAX_AGENTS];
    float delivered[RW_MAX_AGENTS], ret[RW_MAX_AGENTS];  /* this episode's deliveries, summed rewards */
    int state[RW_CELLS];      /* what is on each cell now (a carried shelf is on its robot's cell) */
    uint8_t base[RW_CELLS];   /* the map: RW_EMPTY, RW_SHELF (a shelf spot) or RW_GOAL */
    int8_t robot[RW_CELLS];   /* index + 1 of the robot on each cell, 0 none */
    int spots[RW_CELLS];      /* the shelf spots */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int m = env->map_choice - 1, cells = RW_ROWS[m] * RW_COLS[m], spots = 0, free_cells = 0;
    for (int i = 0; i < cells; i++) {
        spots += RW_MAPS[m][i] == 's';
        free_cells += RW_MAPS[m][i] == '.';
    }
    if (env->num_agents > free_cells || env->num_requested_shelves > spots / 2) {
        snprintf(err, OCEAN_ERR_LEN, "map %d fits at most %d agents (got %d) and %d requested shelves (got %d).",
                 env->map_choice, free_cells, env->num_agents, spots / 2, env->num_requested_shelves);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_flat(s, 27, 0, 1);
    ocean_act_discrete(s, 5);
    ocean_render_size(s, 24 * RW_COLS[m], 24 * RW_ROWS[m]);
    return 0;
}

static int c_init(Env* env, char* err) {
    int m = env->map_choice - 1;
    env->rows = RW_ROWS[m];
    env->cols = RW_COLS[m];
    env->cells = env->rows * env->cols;
    env->num_spots = 0;
    for (int i = 0; i < env->cells; i++) {
        char c = RW_MAPS[m][i];
        env->base[i] = c == 's' ? RW_SHELF : c == 'g' ? RW_GOAL : RW_EMPTY;
        if (c == 's') env->spots[env->num_spots++] = i;
    }
    return 0;
}

static void c_close(Env* env) {}

/* Request one more shelf: a random standing, unrequested one. */
static void rw_request(Env* env) {
    for (int tries = 0; tries < 10000; tries++) {
        int cell = env->spots[rng_int(&env->p.rng, env->num_spots)];
        if (env->state[cell] == RW_SHELF && !env->robot[cell]) {
            env->state[cell] = RW_REQUESTED;
            return;
        }
    }
}

/* RW_QUARTER[v + 1] = (v + 1) / 4: how a direction or a cell state v is observed. */
static const float RW_QUARTER[5] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};

/* One neighbour's three values: a robot there, its (direction + 1) / 4, (cell state + 1) / 4. */
static inline void rw_observe_cell(const Env* env, int cell, float* q) {
    int other = env->robot[cell] - 1;
    q[0] = other >= 0 ? 1.0f : 0.0f;
    q[1] = other >= 0 ? RW_QUARTER[env->dir[other] + 1] : 0.0f;
    q[2] = RW_QUARTER[env->state[cell] + 1];
}

static void rw_observe(Env* env) {
    float inv_cells = 1.0f / env->cells;
    int cols = env->cols, rows = env->rows;
    int offset[8];  /* RW_AROUND as cell offsets */
    for (int j = 0; j < 8; j++) offset[j] = RW_AROUND[j][1] * cols + RW_AROUND[j][0];
    for (int a = 0; a < env->num_agents; a++) {
        float* o = (float*)env->p.observations + (size_t)a * 27;
        int loc = env->loc[a], x = loc % cols, y = loc / cols;
        o[0] = loc * inv_cells;
        o[1] = RW_QUARTER[env->dir[a] + 1];
        o[2] = env->load[a] * 0.5f;
        if (x > 0 && x < cols - 1 && y > 0 && y < rows - 1) {  /* every neighbour on the map */
            for (int j = 0; j < 8; j++) rw_observe_cell(env, loc + offset[j], o + 3 + 3 * j);
            continue;
        }
        for (int j = 0; j < 8; j++) {
            int nx = x + RW_AROUND[j][0], ny = y + RW_AROUND[j][1];
            float* q = o + 3 + 3 * j;
            if (nx < 0 || nx >= cols || ny < 0 || ny >= rows) q[0] = q[1] = q[2] = 0;
            else rw_observe_cell(env, ny * cols + nx, q);
        }
    }
}

static void c_reset(Env* env) {
    env->tick = 0;
    for (int i = 0; i < env->cells; i++) env->state[i] = env->base[i];
    memset(env->robot, 0, sizeof(env->robot));
    for (int a = 0; a < env->num_agents; a++) {
        int cell;
        do cell = rng_int(&env->p.rng, env->cells); while (env->base[cell] != RW_EMPTY || env->robot[cell]);
        env->loc[a] = cell;
        env->robot[cell] = (int8_t)(a + 1);
        env->dir[a] = rng_int(&env->p.rng, 4);
        env->load[a] = RW_UNLOADED;
        env->delivered[a] = env->ret[a] = 0;
    }
    for (int r = 0; r < env->num_requested_shelves; r++) rw_request(env);
    rw_observe(env);
}

/* The cell robot a would enter going forward, or -1 (edge, or a cell its load forbids). */
static int rw_ahead(const Env* env, int a) {
    int x = env->loc[a] % env->cols + RW_DX[env->dir[a]], y = env->loc[a] / env->cols + RW_DY[env->dir[a]];
    if (x < 0 || x >= env->cols || y < 0 || y >= env->rows) return -1;
    int cell = y * env->cols + x, st = env->state[cell];
    if (env->load[a] != RW_UNLOADED && (st == RW_SHELF || st == RW_REQUESTED)) return -1;
    if (env->load[a] == RW_HOLD_EMPTY && st == RW_GOAL) return -1;
    return cell;
}

static void rw_move(Env* env, int a, int cell) {
    int from = env->loc[a];
    if (env->load[a] != RW_UNLOADED) {  /* the shelf travels along; goal cells stay goals */
        int shelf = env->load[a] == RW_HOLD_REQUESTED ? RW_REQUESTED : RW_SHELF;
        if (env->base[from] != RW_GOAL) env->state[from] = RW_EMPTY;
        if (env->base[cell] != RW_GOAL) env->state[cell] = shelf;
    }
    env->robot[from] = 0;
    env->robot[cell] = (int8_t)(a + 1);
    env->loc[a] = cell;
}

static void c_step(Env* env) {
    int n = env->num_agents;
    env->tick++;
    memset(env->robot, 0, (size_t)env->cells);  /* from loc, so that tests may move robots */
    for (int a = 0; a < n; a++) env->robot[env->loc[a]] = (int8_t)(a + 1);
    for (int a = 0; a < n; a++) {
        int act = env->p.actions[a], cell = env->loc[a];
        float reward = 0;
        if (act == 2) env->dir[a] = (env->dir[a] + 3) & 3;
        else if (act == 3) env->dir[a] = (env->dir[a] + 1) & 3;
        else if (act == 4) {
            if (env->load[a] == RW_UNLOADED && env->state[cell] == RW_REQUESTED) {
                env->load[a] = RW_HOLD_REQUESTED;
                reward = 0.5f;
            } else if (env->load[a] == RW_HOLD_REQUESTED && env->base[cell] == RW_GOAL) {
                env->load[a] = RW_HOLD_EMPTY;
                reward = 0.5f;
                rw_request(env);
            } else if (env->load[a] == RW_HOLD_EMPTY && env->base[cell] == RW_SHELF) {
                env->load[a] = RW_UNLOADED;
                env->state[cell] = RW_SHELF;
                env->delivered[a] += 1;
                reward = 1.0f;
            }
        }
        env->target[a] = act == 1 ? rw_ahead(env, a) : -1;
        env->p.rewards[a] = reward;
        env->ret[a] += reward;
    }
    /* Moves: passes until nothing changes; a robot goes when its cell ahead is free and no
     * lower-index robot claims it in the same pass. A queue empties front first. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int a = 0; a < n; a++) {
            int cell = env->target[a];
            if (cell < 0 || env->robot[cell]) continue;
            int first = 1;
            for (int b = 0; b < a && first; b++) first = env->target[b] != cell;
            if (!first) continue;
            if (rw_ahead(env, a) != cell) {  /* a robot moved a shelf into the way */
                env->target[a] = -1;
                continue;
            }
            rw_move(env, a, cell);
            env->target[a] = -1;
            changed = 1;
        }
    }
    int truncated = env->tick >= env->max_steps;
    memset(env->p.terminals, 0, (size_t)n);
    memset(env->p.truncations, truncated, (size_t)n);
    rw_observe(env);
    if (truncated) {
        for (int a = 0; a < n; a++) {
            LOG_EPISODE(&env->log, .score = env->delivered[a], .episode_return = env->ret[a],
                        .episode_length = env->tick);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char CELLS[4] = {'.', 's', 'R', 'G'};
    static const char ARROWS[4] = {'>', 'v', '<', '^'};
    int len = 0;
    for (int y = 0; y < env->rows; y++) {
        for (int x = 0; x < env->cols; x++) {
            int cell = y * env->cols + x, a = env->robot[cell] - 1;
            if (a >= 0) ANSI_APPEND(buf, cap, len, "%c", env->load[a] ? "x*o"[env->load[a]] : ARROWS[env->dir[a]]);
            else ANSI_APPEND(buf, cap, len, "%c", CELLS[env->state[cell] & 3]);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "tick %d (robots >v<^, * with a requested shelf, o with an empty one)\n", env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    static const uint8_t CELL_COLORS[4][3] = {{PUFFER_BG}, {0, 120, 120}, {PUFFER_RED}, {90, 90, 90}};
    int t = 24;
    draw_fill(px, w, h, PUFFER_BG);
    for (int cell = 0; cell < env->cells; cell++) {
        const uint8_t* c = CELL_COLORS[env->state[cell] & 3];
        int x = cell % env->cols * t, y = cell / env->cols * t;
        draw_rect(px, w, h, x + 1, y + 1, t - 2, t - 2, c[0], c[1], c[2]);
        int a = env->robot[cell] - 1;
        if (a < 0) continue;
        draw_rect(px, w, h, x + 5, y + 5, t - 10, t - 10, PUFFER_YELLOW);
        draw_rect(px, w, h, x + t / 2 - 2 + RW_DX[env->dir[a]] * 7, y + t / 2 - 2 + RW_DY[env->dir[a]] * 7, 4, 4, 0, 0, 0);
    }
}
