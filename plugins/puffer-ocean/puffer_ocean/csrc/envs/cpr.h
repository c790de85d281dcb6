/* cpr: a common-pool resource (the Harvest game of Perolat et al., 2017): agents share an
 * orchard whose apples regrow only near other apples.
 *
 * `num_agents` agents on a size x size grid, apples on a share `density` of the other cells
 * at the start. Actions: 0 up, 1 down, 2 left, 3 right, 4 stay; agents move in index order,
 * blocked by the edge and by each other. Stepping onto an apple eats it: reward +1 to that
 * agent. After the moves, every empty cell grows an apple with a probability set by the
 * apples among its 8 neighbours: none 0, 1-2 `regrow` / 10, 3-4 `regrow` / 2, 5 or more
 * `regrow`. So an orchard eaten bare never comes back: greed now costs everyone later. The
 * episode ends for all agents when no apple is left (terminal: nothing can grow again) and is
 * truncated after `max_steps`. Observation (uint8, 3 x (2 sight + 1)^2): around the agent,
 * one plane of apples, one of other agents, one of cells outside the grid. score: apples
 * eaten by all agents in the episode; apples_left: apples on the grid at its end.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(apples_left)
#define CPR_MAX 32
#define CPR_MAX_AGENTS 16
#define PARAMS(P) P(int, size, 16, 5, CPR_MAX) P(int, num_agents, 4, 1, CPR_MAX_AGENTS) \
    P(float, density, 0.2, 0, 1) P(float, regrow, 0.1, 0, 1) P(int, sight, 3, 1, 8) \
    P(int, max_steps, 500, 1, 10000000)
#define FIELDS(F) F(int, ax[0]) F(int, ay[0]) F(int, ax[1]) F(int, ay[1]) F(int, apples) F(int, eaten) \
    F(int, tick) F(int, apple[0]) F(int, apple[1]) F(int, apple[2]) F(int, apple[3]) F(int, apple[4]) \
    F(int, apple[5]) F(int, apple[6]) F(int, apple[7]) F(int, apple[8]) F(int, apple[9])
#include "../puffer.h"

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int apple[CPR_MAX * CPR_MAX];     /* 1: an apple on the cell */
    int ax[CPR_MAX_AGENTS], ay[CPR_MAX_AGENTS];
    float ret[CPR_MAX_AGENTS];        /* each agent's apples this episode */
    int apples, eaten, tick;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int side = 2 * env->sight + 1;
    if (env->num_agents >= env->size * env->size) {
        snprintf(err, OCEAN_ERR_LEN, "num_agents (%d) must be below the %d cells of the grid.", env->num_agents,
                 env->size * env->size);
        return 1;
    }
    s->num_agents = env->num_agents;
    ocean_obs_bytes(s, 3 * side * side, 0, 1);
    ocean_act_discrete(s, 5);
    ocean_render_size(s, 16 * env->size, 16 * env->size);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static int cpr_agent_at(Env* env, int x, int y) {
    for (int a = 0; a < env->num_agents; a++)
        if (env->ax[a] == x && env->ay[a] == y) return a;
    return -1;
}

static void cpr_observe(Env* env) {
    int r = env->sight, side = 2 * r + 1, plane = side * side, g = env->size;
    for (int a = 0; a < env->num_agents; a++) {
        uint8_t* o = (uint8_t*)env->p.observations + (size_t)a * 3 * plane;
        memset(o, 0, (size_t)(3 * plane));
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++) {
                int x = env->ax[a] + dx, y = env->ay[a] + dy, at = (dy + r) * side + dx + r;
                if (x < 0 || x >= g || y < 0 || y >= g) { o[2 * plane + at] = 1; continue; }
                o[at] = (uint8_t)env->apple[y * g + x];
            }
        for (int b = 0; b < env->num_agents; b++) {
            int dx = env->ax[b] - env->ax[a], dy = env->ay[b] - env->ay[a];
            if (b != a && dx >= -r && dx <= r && dy >= -r && dy <= r) o[plane + (dy + r) * side + dx + r] = 1;
        }
    }
}

static void c_reset(Env* env) {
    int g = env->size;
    for (int a = 0; a < env->num_agents; a++) {
        do {
            env->ax[a] = rng_int(&env->p.rng, g);
            env->ay[a] = rng_int(&env->p.rng, g);
        } while (cpr_agent_at(env, env->ax[a], env->ay[a]) != a);
        env->ret[a] = 0;
    }
    env->apples = 0;
    for (int cell = 0; cell < g * g; cell++) {
        int free = cpr_agent_at(env, cell % g, cell / g) < 0;
        env->apple[cell] = free && rng_float(&env->p.rng) < env->density;
        env->apples += env->apple[cell];
    }
    env->eaten = env->tick = 0;
    cpr_observe(env);
}

/* Apples among the 8 neighbours of (x, y). */
static int cpr_neighbours(Env* env, int x, int y) {
    int g = env->size, n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            if ((dx || dy) && nx >= 0 && nx < g && ny >= 0 && ny < g) n += env->apple[ny * g + nx];
        }
    return n;
}

static void cpr_regrow(Env* env) {
    int g = env->size;
    uint8_t grows[CPR_MAX * CPR_MAX];  /* decided on the grid before this step's growth */
    for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++) {
            int cell = y * g + x, n = env->apple[cell] ? 0 : cpr_neighbours(env, x, y);
            float chance = n == 0 ? 0 : n <= 2 ? env->regrow / 10 : n <= 4 ? env->regrow / 2 : env->regrow;
            grows[cell] = n > 0 && rng_float(&env->p.rng) < chance && cpr_agent_at(env, x, y) < 0;
        }
    for (int cell = 0; cell < g * g; cell++)
        if (grows[cell]) { env->apple[cell] = 1; env->apples++; }
}

static void c_step(Env* env) {
    static const int DX[5] = {0, 0, -1, 1, 0}, DY[5] = {-1, 1, 0, 0, 0};
    int n = env->num_agents, g = env->size;
    env->tick++;
    for (int a = 0; a < n; a++) {
        int action = env->p.actions[a], x = env->ax[a] + DX[action], y = env->ay[a] + DY[action];
        float reward = 0;
        if (action != 4 && x >= 0 && x < g && y >= 0 && y < g && cpr_agent_at(env, x, y) < 0) {
            env->ax[a] = x;
            env->ay[a] = y;
            if (env->apple[y * g + x]) {
                env->apple[y * g + x] = 0;
                env->apples--;
                env->eaten++;
                reward = 1;
            }
        }
        env->p.rewards[a] = reward;
        env->ret[a] += reward;
    }
    cpr_regrow(env);
    int terminal = env->apples == 0, truncated = !terminal && env->tick >= env->max_steps;
    memset(env->p.terminals, terminal, (size_t)n);
    memset(env->p.truncations, truncated, (size_t)n);
    cpr_observe(env);
    if (terminal || truncated) {
        for (int a = 0; a < n; a++) {  /* per agent, as every env logs: the group's harvest, its own return */
            LOG_EPISODE(&env->log, .score = env->eaten, .episode_return = env->ret[a], .episode_length = env->tick,
                        .apples_left = env->apples);
            ocean_keep_final(&env->p, a);
        }
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int g = env->size, len = 0;
    for (int y = 0; y < g; y++) {
        for (int x = 0; x < g; x++) {
            int a = cpr_agent_at(env, x, y);
            ANSI_APPEND(buf, cap, len, "%c", a >= 0 ? 'A' + a : env->apple[y * g + x] ? '@' : '.');
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "apples %d, eaten %d (agents A.., apples @)\n", env->apples, env->eaten);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int g = env->size, t = 16;
    draw_fill(px, w, h, PUFFER_BG);
    for (int cell = 0; cell < g * g; cell++)
        if (env->apple[cell]) draw_rect(px, w, h, cell % g * t + 4, cell / g * t + 4, t - 8, t - 8, PUFFER_GREEN);
    for (int a = 0; a < env->num_agents; a++)
        draw_rect(px, w, h, env->ax[a] * t + 2, env->ay[a] * t + 2, t - 4, t - 4, PUFFER_CYAN);
}
