/* go: Go on a grid_size x grid_size board against a greedy opponent (PufferLib's Ocean "go").
 *
 * The agent plays black (1) and moves first; the opponent, white (2), answers every pass
 * and every legal agent move. Actions (grid_size^2 + 1): 0 pass, 1 + row * grid_size + col
 * a stone. A stone is legal on an empty point unless, after removing the opponent groups
 * it leaves without liberties, its own group has none (suicide) or the board repeats the
 * one before the opponent's last move (ko). An illegal move costs `reward_move_invalid`
 * and changes nothing; a pass costs `reward_move_pass`; a legal move earns
 * `reward_move_valid`, and each capture move earns `reward_player_capture` (the
 * opponent's captures `reward_opponent_capture`). The opponent captures a group in atari
 * or saves its own, else plays on a liberty of the agent's weakest group (2-4
 * liberties), else a random legal point. The game ends (terminal) after 2 * grid_size^2
 * legal agent moves or when the opponent has no legal point, scored by area
 * (Tromp-Taylor: stones plus empty regions touching one colour only) with `komi` for
 * white: +1 win, -1 loss, 0 draw. It is truncated after `max_steps`. Observation
 * (2 * grid_size^2 + 2 floats): the board (0 empty, 1 agent, 2 opponent), the board before
 * the agent's last move, the current area score (black - white - komi) / grid_size^2,
 * legal agent moves made / (2 * grid_size^2).
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(win_rate) X(captures)
#define PARAMS(P) P(int, grid_size, 7, 3, 19) P(float, komi, 7.5, -100, 100) P(int, max_steps, 1000, 1, 10000000) \
    P(float, reward_move_pass, -0.25, -10, 10) P(float, reward_move_invalid, -0.1, -10, 10) \
    P(float, reward_move_valid, 0.1, -10, 10) P(float, reward_player_capture, 0.25, -10, 10) \
    P(float, reward_opponent_capture, -0.25, -10, 10)
#define FIELDS(F) F(int, moves_made) F(int, tick) F(int, last_opponent_move) F(float, area_score)
#include "../puffer.h"

#define GO_MAX 19
#define GO_CELLS (GO_MAX * GO_MAX)

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int moves_made, tick, last_opponent_move, captures, over;
    float area_score, ret;
    int stamp;                                 /* visit marks: seen[i] == stamp */
    uint8_t board[GO_CELLS], ko[GO_CELLS], tmp[GO_CELLS], before[GO_CELLS];
    int seen[GO_CELLS], queue[GO_CELLS];
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int n = env->grid_size * env->grid_size;
    s->num_agents = 1;
    s->obs_ndim = 1;
    s->obs_shape[0] = 2 * n + 2;
    s->obs_dtype = 'f';
    s->obs_low = -2;
    s->obs_high = 2;
    s->act_kind = 'D';
    s->act_dims = 1;
    s->act_n[0] = n + 1;
    s->render_width = s->render_height = 32 * (env->grid_size + 1);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* A fresh visit mark (the marks restart before the counter could overflow). */
static int go_stamp(Env* env) {
    if (env->stamp >= 0x7FFFFFF0) {
        memset(env->seen, 0, sizeof(env->seen));
        env->stamp = 0;
    }
    return ++env->stamp;
}

/* Flood the group at `start` on `b`; returns its liberties, its stones in env->queue[0..*size). */
static int go_group(Env* env, const uint8_t* b, int start, int* size) {
    int N = env->grid_size, color = b[start], head = 0, tail = 0, libs = 0;
    go_stamp(env);
    env->queue[tail++] = start;
    env->seen[start] = env->stamp;
    while (head < tail) {
        int pos = env->queue[head++], x = pos % N, y = pos / N;
        int nb[4] = {x > 0 ? pos - 1 : -1, x < N - 1 ? pos + 1 : -1, y > 0 ? pos - N : -1, y < N - 1 ? pos + N : -1};
        for (int i = 0; i < 4; i++) {
            int q = nb[i];
            if (q < 0 || env->seen[q] == env->stamp) continue;
            if (b[q] == 0) {
                env->seen[q] = env->stamp;
                libs++;
            } else if (b[q] == color) {
                env->seen[q] = env->stamp;
                env->queue[tail++] = q;
            }
        }
    }
    *size = tail;
    return libs;
}

/* Play `player` at `pos`: -1 if illegal (board unchanged), else the stones captured. */
static int go_play(Env* env, int pos, int player) {
    int N = env->grid_size, n = N * N, captured = 0, size;
    if (env->board[pos]) return -1;
    memcpy(env->tmp, env->board, (size_t)n);
    env->tmp[pos] = (uint8_t)player;
    int x = pos % N, y = pos / N;
    int nb[4] = {x > 0 ? pos - 1 : -1, x < N - 1 ? pos + 1 : -1, y > 0 ? pos - N : -1, y < N - 1 ? pos + N : -1};
    for (int i = 0; i < 4; i++) {
        int q = nb[i];
        if (q < 0 || env->tmp[q] != 3 - player) continue;
        if (go_group(env, env->tmp, q, &size) == 0) {
            for (int k = 0; k < size; k++) env->tmp[env->queue[k]] = 0;
            captured += size;
        }
    }
    if (go_group(env, env->tmp, pos, &size) == 0) return -1;             /* suicide */
    if (captured && memcmp(env->tmp, env->ko, (size_t)n) == 0) return -1; /* ko */
    memcpy(env->ko, env->board, (size_t)n);
    memcpy(env->board, env->tmp, (size_t)n);
    return captured;
}

/* Area score: black - white - komi (Tromp-Taylor). */
static float go_area(Env* env) {
    int n = env->grid_size * env->grid_size, N = env->grid_size, black = 0, white = 0;
    int mark = go_stamp(env);
    for (int i = 0; i < n; i++) {
        if (env->board[i] == 1) black++;
        else if (env->board[i] == 2) white++;
        else if (env->seen[i] != mark) {  /* a new empty region: flood it, noting the colours it touches */
            int head = 0, tail = 0, touches = 0;
            env->queue[tail++] = i;
            env->seen[i] = mark;
            while (head < tail) {
                int pos = env->queue[head++], x = pos % N, y = pos / N;
                int nb[4] = {x > 0 ? pos - 1 : -1, x < N - 1 ? pos + 1 : -1, y > 0 ? pos - N : -1, y < N - 1 ? pos + N : -1};
                for (int k = 0; k < 4; k++) {
                    int q = nb[k];
                    if (q < 0) continue;
                    if (env->board[q]) touches |= env->board[q];
                    else if (env->seen[q] != mark) {
                        env->seen[q] = mark;
                        env->queue[tail++] = q;
                    }
                }
            }
            if (touches == 1) black += tail;
            else if (touches == 2) white += tail;
        }
    }
    return (float)(black - white) - env->komi;
}

/* A liberty of the group at `start` (the first found), or -1. */
static int go_a_liberty(Env* env, int start) {
    int size, N = env->grid_size;
    go_group(env, env->board, start, &size);
    for (int k = 0; k < size; k++) {
        int pos = env->queue[k], x = pos % N, y = pos / N;
        int nb[4] = {x > 0 ? pos - 1 : -1, x < N - 1 ? pos + 1 : -1, y > 0 ? pos - N : -1, y < N - 1 ? pos + N : -1};
        for (int i = 0; i < 4; i++)
            if (nb[i] >= 0 && env->board[nb[i]] == 0) return nb[i];
    }
    return -1;
}

/* The opponent's move; returns the stones it captured, -1 when it has no legal point. */
static int go_opponent(Env* env) {
    int n = env->grid_size * env->grid_size, size;
    int cand[4][GO_CELLS], count[4] = {0, 0, 0, 0};
    uint8_t done[GO_CELLS];
    memset(done, 0, (size_t)n);
    for (int i = 0; i < n; i++) {  /* one entry per group: atari first (capture or save), then 2-4 liberties */
        if (!env->board[i] || done[i]) continue;
        int libs = go_group(env, env->board, i, &size);
        for (int k = 0; k < size; k++) done[env->queue[k]] = 1;
        int tier = env->board[i] == 1 ? libs - 1 : libs == 1 ? 0 : -1;
        if (tier < 0 || tier > 3) continue;
        int lib = go_a_liberty(env, i);
        if (lib >= 0) cand[tier][count[tier]++] = lib;
    }
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < count[t]; k++) {
            int got = go_play(env, cand[t][k], 2);
            if (got >= 0) {
                env->last_opponent_move = cand[t][k];
                return got;
            }
        }
    int empties[GO_CELLS], m = 0;
    for (int i = 0; i < n; i++)
        if (!env->board[i]) empties[m++] = i;
    while (m > 0) {  /* random order, without repeats */
        int j = rng_int(&env->p.rng, m), pos = empties[j];
        empties[j] = empties[--m];
        int got = go_play(env, pos, 2);
        if (got >= 0) {
            env->last_opponent_move = pos;
            return got;
        }
    }
    return -1;
}

static void go_observe(Env* env) {
    int n = env->grid_size * env->grid_size;
    float* o = (float*)env->p.observations;
    for (int i = 0; i < n; i++) o[i] = env->board[i];
    for (int i = 0; i < n; i++) o[n + i] = env->before[i];
    o[2 * n] = env->area_score / n;
    o[2 * n + 1] = env->moves_made / (2.0f * n);
}

static void c_reset(Env* env) {
    int n = env->grid_size * env->grid_size;
    memset(env->board, 0, (size_t)n);
    memset(env->ko, 0, (size_t)n);
    memset(env->before, 0, (size_t)n);
    env->moves_made = env->tick = env->captures = env->over = 0;
    env->last_opponent_move = -1;
    env->ret = 0;
    env->area_score = -env->komi;
    go_observe(env);
}

static void c_step(Env* env) {
    int a = env->p.actions[0], n = env->grid_size * env->grid_size;
    float reward = 0;
    int opponent_moves = 0;
    env->tick++;
    if (a == 0) {
        reward += env->reward_move_pass;
        opponent_moves = 1;
    } else {
        memcpy(env->before, env->board, (size_t)n);
        int got = go_play(env, a - 1, 1);
        if (got < 0) {
            reward += env->reward_move_invalid;
        } else {
            env->moves_made++;
            reward += env->reward_move_valid + (got ? env->reward_player_capture : 0);
            env->captures += got;
            opponent_moves = 1;
        }
    }
    int terminal = 0;
    if (opponent_moves) {
        int got = go_opponent(env);
        if (got < 0) terminal = 1;
        else if (got > 0) reward += env->reward_opponent_capture;
    }
    if (env->moves_made >= 2 * n) terminal = 1;
    env->area_score = go_area(env);
    if (terminal) reward += env->area_score > 0 ? 1.0f : env->area_score < 0 ? -1.0f : 0.0f;
    env->ret += reward;
    int truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    go_observe(env);
    if (terminal || truncated) {
        env->log.score += env->area_score;
        env->log.episode_return += env->ret;
        env->log.episode_length += (float)env->tick;
        env->log.win_rate += terminal && env->area_score > 0;
        env->log.captures += (float)env->captures;
        env->log.n += 1;
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int N = env->grid_size, len = 0;
    for (int y = 0; y < N; y++) {
        for (int x = 0; x < N; x++) {
            int pos = y * N + x;
            char c = env->board[pos] == 1 ? 'X' : env->board[pos] == 2 ? 'O' : '+';
            if (pos == env->last_opponent_move && c == 'O') c = '0';
            ANSI_APPEND(buf, cap, len, "%c%s", c, x < N - 1 ? "-" : "\n");
        }
    }
    ANSI_APPEND(buf, cap, len, "area score %.1f (black - white - komi), moves %d\n", env->area_score, env->moves_made);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int N = env->grid_size, t = 32;
    draw_fill(px, w, h, 200, 160, 90);
    for (int i = 0; i < N; i++) {
        draw_rect(px, w, h, t, t + i * t, (N - 1) * t + 1, 1, 40, 30, 20);
        draw_rect(px, w, h, t + i * t, t, 1, (N - 1) * t + 1, 40, 30, 20);
    }
    for (int pos = 0; pos < N * N; pos++) {
        if (!env->board[pos]) continue;
        int v = env->board[pos] == 1 ? 20 : 235;
        draw_rect(px, w, h, t + (pos % N) * t - 12, t + (pos / N) * t - 12, 24, 24, (uint8_t)v, (uint8_t)v, (uint8_t)v);
        if (pos == env->last_opponent_move) draw_rect(px, w, h, t + (pos % N) * t - 3, t + (pos / N) * t - 3, 6, 6, PUFFER_RED);
    }
}
