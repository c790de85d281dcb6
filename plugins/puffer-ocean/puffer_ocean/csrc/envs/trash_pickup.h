/* trash_pickup: agents carry trash to bins on a grid (PufferLib's Ocean "trash_pickup").
 *
 * `num_agents` agents, `num_trash` pieces of trash and `num_bins` bins on a grid_size
 * square grid. Actions: 0 up, 1 down, 2 left, 3 right, 4 nothing; agents move one at a
 * time in index order. Walking onto trash while empty-handed picks it up (+0.5); walking
 * into a bin while carrying drops the trash in (+0.5, the agent stays), while empty-handed
 * pushes the bin one cell if that cell is free. Trash (when carrying), other agents and
 * the grid's edge block. Every agent pays 0.01 per step. The episode ends (terminal, for
 * all agents) when every piece is in a bin, and is truncated after `max_steps`; `score`
 * is the pieces put in bins. Observation (uint8, 5 x (2 r + 1)^2 for sight range r): one
 * plane per cell kind around the agent (plane 0 unused, 1 trash, 2 bin, 3 agent, as in
 * the reference), then a plane marking agents that carry trash; cells past the edge are 0.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, grid_size, 10, 3, 64) P(int, num_agents, 3, 1, 64) P(int, num_trash, 15, 1, 1000) \
    P(int, num_bins, 2, 1, 100) P(int, max_steps, 300, 10, 10000000) P(int, agent_sight_range, 5, 2, 16)
#define FIELDS(F) F(int, ax[0]) F(int, ay[0]) F(int, carrying[0]) F(int, ax[1]) F(int, ay[1]) F(int, tick) \
    F(int, deposited)
#include "../puffer.h"

#define TP_MAX_AGENTS 64
#define TP_MAX_CELLS (64 * 64)
enum { TP_EMPTY = 0, TP_TRASH = 1, TP_BIN = 2, TP_AGENT = 3 };

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int tick, deposited, left;    /* pieces in bins; pieces not yet in a bin */
    float ret[TP_MAX_AGENTS];     /* each agent's summed rewards this episode */
    int ax[TP_MAX_AGENTS], ay[TP_MAX_AGENTS], carrying[TP_MAX_AGENTS];
    uint8_t grid[TP_MAX_CELLS];   /* TP_* of each cell */
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int side = 2 * env->agent_sight_range + 1;
    if (env->num_agents + env->num_trash + env->num_bins >= env->grid_size * env->grid_size) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents + num_trash + num_bins (%d) must be below the %d cells of the grid.",
                 env->num_agents + env->num_trash + env->num_bins, env->grid_size * env->grid_size);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_bytes(s, 5 * side * side, 0, 1);
    ocean_act_discrete(s, 5);
    ocean_render_size(s, 24 * env->grid_size, 24 * env->grid_size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static int tp_free_cell(Env* env) {
    int n = env->grid_size * env->grid_size, cell;
    do cell = rng_int(&env->p.rng, n); while (env->grid[cell] != TP_EMPTY);
    return cell;
}

/* Agent a's view. The grid is rebuilt from the agent positions first (tests move agents). */
static void tp_observe(Env* env) {
    int r = env->agent_sight_range, side = 2 * r + 1, plane = side * side, g = env->grid_size;
    uint8_t carrier[TP_MAX_CELLS];
    memset(carrier, 0, (size_t)(g * g));
    for (int a = 0; a < env->num_agents; a++) carrier[env->ay[a] * g + env->ax[a]] = (uint8_t)env->carrying[a];
    for (int a = 0; a < env->num_agents; a++) {
        uint8_t* o = (uint8_t*)env->p.observations + (size_t)a * 5 * plane;
        memset(o, 0, (size_t)(5 * plane));
        /* The window's part inside the grid, without a branch per cell: every cell marks the
         * plane of its kind, empty cells plane 0, which is cleared again below. */
        int ax = env->ax[a], ay = env->ay[a];
        int x0 = ax - r < 0 ? -ax : -r, x1 = ax + r >= g ? g - 1 - ax : r;
        int y0 = ay - r < 0 ? -ay : -r, y1 = ay + r >= g ? g - 1 - ay : r;
        for (int dy = y0; dy <= y1; dy++) {
            const uint8_t* kinds = env->grid + (ay + dy) * g + ax;
            const uint8_t* carried = carrier + (ay + dy) * g + ax;
            uint8_t* row = o + (dy + r) * side + r;
            for (int dx = x0; dx <= x1; dx++) {
                row[kinds[dx] * plane + dx] = 1;
                row[4 * plane + dx] = carried[dx];
            }
        }
        memset(o, 0, (size_t)plane);
    }
}

static void c_reset(Env* env) {
    int g = env->grid_size;
    env->tick = env->deposited = 0;
    env->left = env->num_trash;
    memset(env->ret, 0, sizeof(env->ret));
    memset(env->grid, 0, (size_t)(g * g));
    for (int a = 0; a < env->num_agents; a++) {
        int cell = tp_free_cell(env);
        env->grid[cell] = TP_AGENT;
        env->ax[a] = cell % g;
        env->ay[a] = cell / g;
        env->carrying[a] = 0;
    }
    for (int b = 0; b < env->num_bins; b++) env->grid[tp_free_cell(env)] = TP_BIN;
    for (int t = 0; t < env->num_trash; t++) env->grid[tp_free_cell(env)] = TP_TRASH;
    tp_observe(env);
}

/* Agent a acts; returns its reward before the step cost. */
static float tp_act(Env* env, int a, int action) {
    static const int DX[4] = {0, 0, -1, 1}, DY[4] = {-1, 1, 0, 0};
    if (action == 4) return 0;
    int g = env->grid_size, x = env->ax[a] + DX[action], y = env->ay[a] + DY[action];
    if (x < 0 || x >= g || y < 0 || y >= g) return 0;
    int from = env->ay[a] * g + env->ax[a], to = y * g + x, kind = env->grid[to];
    float reward = 0;
    if (kind == TP_TRASH && !env->carrying[a]) {
        env->carrying[a] = 1;
        reward = 0.5f;
    } else if (kind == TP_BIN) {
        if (env->carrying[a]) {
            env->carrying[a] = 0;
            env->deposited++;
            env->left--;
            return 0.5f;
        }
        int bx = x + DX[action], by = y + DY[action];
        if (bx < 0 || bx >= g || by < 0 || by >= g || env->grid[by * g + bx] != TP_EMPTY) return 0;
        env->grid[by * g + bx] = TP_BIN;
    } else if (kind != TP_EMPTY) {
        return 0;  /* trash while carrying, or an agent */
    }
    env->grid[from] = TP_EMPTY;
    env->grid[to] = TP_AGENT;
    env->ax[a] = x;
    env->ay[a] = y;
    return reward;
}

static void c_step(Env* env) {
    int n = env->num_agents, g = env->grid_size;
    env->tick++;
    for (int i = 0; i < g * g; i++)  /* agents are placed from their positions (tests move them) */
        if (env->grid[i] == TP_AGENT) env->grid[i] = TP_EMPTY;
    for (int a = 0; a < n; a++) env->grid[env->ay[a] * g + env->ax[a]] = TP_AGENT;
    for (int a = 0; a < n; a++) {
        float reward = tp_act(env, a, env->p.actions[a]) - 0.01f;
        env->p.rewards[a] = reward;
        env->ret[a] += reward;
    }
    int terminal = env->left == 0;
    int truncated = !terminal && env->tick >= env->max_steps;
    memset(env->p.terminals, terminal, (size_t)n);
    memset(env->p.truncations, truncated, (size_t)n);
    tp_observe(env);
    if (terminal || truncated) {
        for (int a = 0; a < n; a++) {  /* per agent, as every env logs: the team's score, its own return */
            LOG_EPISODE(&env->log, .score = env->deposited, .episode_return = env->ret[a], .episode_length = env->tick);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    static const char CHARS[4] = {'.', 't', 'B', 'A'};
    int g = env->grid_size, len = 0;
    for (int y = 0; y < g; y++) {
        for (int x = 0; x < g; x++) {
            char c = CHARS[env->grid[y * g + x] & 3];
            for (int a = 0; a < env->num_agents; a++)
                if (env->ax[a] == x && env->ay[a] == y) c = env->carrying[a] ? 'a' + (a % 26) : 'A' + (a % 26);
            ANSI_APPEND(buf, cap, len, "%c", c);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "in bins %d, left %d (agents A.., lower case when carrying)\n", env->deposited, env->left);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int g = env->grid_size, t = 24;
    draw_fill(px, w, h, PUFFER_BG);
    for (int cell = 0; cell < g * g; cell++) {
        int x = cell % g * t, y = cell / g * t, kind = env->grid[cell];
        draw_rect(px, w, h, x + 1, y + 1, t - 2, t - 2, 18, 40, 40);
        if (kind == TP_TRASH) draw_rect(px, w, h, x + 7, y + 7, t - 14, t - 14, PUFFER_RED);
        else if (kind == TP_BIN) draw_rect(px, w, h, x + 3, y + 3, t - 6, t - 6, 120, 120, 120);
    }
    for (int a = 0; a < env->num_agents; a++) {
        int x = env->ax[a] * t, y = env->ay[a] * t;
        draw_rect(px, w, h, x + 4, y + 4, t - 8, t - 8, PUFFER_CYAN);
        if (env->carrying[a]) draw_rect(px, w, h, x + 9, y + 9, t - 18, t - 18, PUFFER_RED);
    }
}
