/* go: Go on a grid_size x grid_size board, for two seats or against a built-in opponent
 * (PufferLib's Ocean "go", which plays a greedy opponent).
 *
 * Actions (grid_size^2 + 1): 0 pass, 1 + row * grid_size + col a stone. A stone is legal on
 * an empty point unless, after removing the other colour's groups it leaves without
 * liberties, its own group has none (suicide) or the board repeats the one before the last
 * move (simple ko). An illegal move costs `reward_move_invalid`, changes nothing and keeps
 * the turn; a pass costs `reward_move_pass`; a legal move earns `reward_move_valid`, and a
 * move that captures earns `reward_player_capture` (the player whose stones it takes gets
 * `reward_opponent_capture`). Scoring is by area (Tromp-Taylor: stones plus empty regions
 * touching one colour only) with `komi` for white; at the end of a game each player gets
 * +1 for a win, -1 for a loss, 0 for a draw, and its outcome (pufferlib's game contract)
 * 1, 0.5 or 0. A game cut short by `max_steps` steps is truncated, without a result (NaN).
 *
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"):
 * - "none": both colours are agents, a game of two rows (game_seats 2): seat 0 plays black
 *   and moves first, seat 1 white (komi for white); the seat that waits is masked (its
 *   action is ignored). An illegal move leaves the turn with the mover. The game ends
 *   (terminal) after two consecutive passes or when a colour has made 2 * grid_size^2
 *   legal moves. The shaped rewards go to the mover (and reward_opponent_capture to the
 *   player captured from, in the same step); the final +1/-1/0 to both rows.
 *   `max_steps` counts the steps of both seats. Either seat may be played by a built-in
 *   player instead (the `players` input: self-play's anchors), which plays that seat's colour
 *   as it plays white below and passes when it has no legal point.
 * - "scripted": one agent row (game_seats 1) plays black and moves first; the built-in
 *   white answers every pass and every legal agent move: it captures a group in atari or
 *   saves its own, else plays on a liberty of the agent's weakest group (2-4 liberties),
 *   else a random legal point. The game ends after 2 * grid_size^2 legal agent moves or
 *   when white has no legal point (it never passes).
 * - "random": as "scripted", but white plays a uniformly random choice among its legal
 *   points and a pass; the game also ends after two consecutive passes.
 *
 * Observation (2 * grid_size^2 + 2 floats) of a row, from its own side: the board (0 empty,
 * 1 its stones, 2 the other colour's), the board before its own last move, the current area
 * score from its side ((black - white - komi) for black, its negation for white) /
 * grid_size^2, its legal moves made / (2 * grid_size^2). With `legal_actions` 1 it starts with
 * the row's legal actions (grid_size^2 + 1 more entries, 1 legal: the pass and every point
 * where its stone would be legal; all 0 while it waits for its turn), which the trainer, `puffer
 * eval` and `puffer match` use as the action mask: no step goes to an illegal move (the default
 * 0 keeps the reference's observation, and its stepping speed).
 *
 * Log, per row and game: score, the area score from the row's side (with two seats the
 * two rows' scores cancel: read win_rate or the outcomes), win_rate, its captures.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(win_rate) X(captures)
#define PARAMS(P) P(int, grid_size, 7, 3, 19) P(float, komi, 7.5, -100, 100) P(int, max_steps, 1000, 1, 10000000) \
    P(float, reward_move_pass, -0.25, -10, 10) P(float, reward_move_invalid, -0.1, -10, 10) \
    P(float, reward_move_valid, 0.1, -10, 10) P(float, reward_player_capture, 0.25, -10, 10) \
    P(float, reward_opponent_capture, -0.25, -10, 10) P(int, opponent, 1, 0, 2) \
    P(int, legal_actions, 0, 0, 1)
#define FIELDS(F) F(int, moves_made) F(int, moves_white) F(int, tick) F(int, last_opponent_move) F(float, area_score) \
    F(int, to_move) F(int, passes)
#include "../puffer.h"

#define GO_MAX 19
#define GO_CELLS (GO_MAX * GO_MAX)
#define GO_NONE 0
#define GO_SCRIPTED 1

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int moves_made, moves_white;               /* legal moves of black (the agent against a built-in) and white */
    int tick, last_opponent_move;              /* last_opponent_move: white's last stone, -1 none */
    int to_move, passes;                       /* the colour to move (0 black, 1 white); consecutive passes */
    int captures[2];                           /* stones captured by black, white */
    float area_score, ret[2];                  /* area_score: black - white - komi */
    int stamp;                                 /* visit marks: seen[i] == stamp */
    int liberty;                               /* the first liberty go_group found, -1 none */
    uint8_t board[GO_CELLS], ko[GO_CELLS], tmp[GO_CELLS];
    uint8_t scored[GO_CELLS];                  /* the board area_score was counted on */
    uint8_t before[2][GO_CELLS];               /* the board before black's, white's last move */
    int seen[GO_CELLS], queue[GO_CELLS];
    int16_t nbr[GO_CELLS][4];                  /* each point's left, right, up, down neighbour; -1 off the board */
} Env;

static inline int go_rows(const Env* env) { return env->opponent == GO_NONE ? 2 : 1; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    int n = env->grid_size * env->grid_size;
    ocean_game(s, go_rows(env));
    s->legal_actions = env->legal_actions;
    ocean_obs_flat(s, 2 * n + 2 + (env->legal_actions ? n + 1 : 0), -2, 2);
    ocean_act_discrete(s, n + 1);
    int side = 32 * (env->grid_size + 1);
    ocean_render_size(s, side, side);
    return 0;
}

static int c_init(Env* env, char* err) {
    int N = env->grid_size;
    for (int pos = 0; pos < N * N; pos++) {
        int x = pos % N, y = pos / N;
        env->nbr[pos][0] = (int16_t)(x > 0 ? pos - 1 : -1);
        env->nbr[pos][1] = (int16_t)(x < N - 1 ? pos + 1 : -1);
        env->nbr[pos][2] = (int16_t)(y > 0 ? pos - N : -1);
        env->nbr[pos][3] = (int16_t)(y < N - 1 ? pos + N : -1);
    }
    return 0;
}
static void c_close(Env* env) {}

/* A fresh visit mark (the marks restart before the counter could overflow). */
static int go_stamp(Env* env) {
    if (env->stamp >= 0x7FFFFFF0) {
        memset(env->seen, 0, sizeof(env->seen));
        env->stamp = 0;
    }
    return ++env->stamp;
}

/* Flood the group at `start` on `b`; returns its liberties, its stones in env->queue[0..*size),
 * the first liberty it met in env->liberty. */
static int go_group(Env* env, const uint8_t* b, int start, int* size) {
    int color = b[start], head = 0, tail = 0, libs = 0;
    env->liberty = -1;
    go_stamp(env);
    env->queue[tail++] = start;
    env->seen[start] = env->stamp;
    while (head < tail) {
        int pos = env->queue[head++];
        const int16_t* nb = env->nbr[pos];
        for (int i = 0; i < 4; i++) {
            int q = nb[i];
            if (q < 0 || env->seen[q] == env->stamp) continue;
            if (b[q] == 0) {
                env->seen[q] = env->stamp;
                if (libs++ == 0) env->liberty = q;
            } else if (b[q] == color) {
                env->seen[q] = env->stamp;
                env->queue[tail++] = q;
            }
        }
    }
    *size = tail;
    return libs;
}

/* The board after `player` plays `pos`, in env->tmp: -1 if illegal, else the stones captured. */
static int go_try(Env* env, int pos, int player) {
    int N = env->grid_size, n = N * N, captured = 0, size;
    if (env->board[pos]) return -1;
    memcpy(env->tmp, env->board, (size_t)n);
    env->tmp[pos] = (uint8_t)player;
    const int16_t* nb = env->nbr[pos];
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
    return captured;
}

/* Play `player` at `pos`: -1 if illegal (board unchanged), else the stones captured. */
static int go_play(Env* env, int pos, int player) {
    int n = env->grid_size * env->grid_size, captured = go_try(env, pos, player);
    if (captured < 0) return -1;
    memcpy(env->ko, env->board, (size_t)n);
    memcpy(env->board, env->tmp, (size_t)n);
    return captured;
}

/* Area score: black - white - komi (Tromp-Taylor). */
static float go_area(Env* env) {
    int n = env->grid_size * env->grid_size, black = 0, white = 0;
    int mark = go_stamp(env);
    for (int i = 0; i < n; i++) {
        if (env->board[i] == 1) black++;
        else if (env->board[i] == 2) white++;
        else if (env->seen[i] != mark) {  /* a new empty region: flood it, noting the colours it touches */
            int head = 0, tail = 0, touches = 0;
            env->queue[tail++] = i;
            env->seen[i] = mark;
            while (head < tail) {
                int pos = env->queue[head++];
                const int16_t* nb = env->nbr[pos];
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

/* area_score of the board, counted again only when the board changed (an illegal move, half
 * of random play, leaves it as it was). */
static void go_update_area(Env* env) {
    size_t n = (size_t)(env->grid_size * env->grid_size);
    if (!memcmp(env->board, env->scored, n)) return;
    memcpy(env->scored, env->board, n);
    env->area_score = go_area(env);
}

/* The greedy player's move for `colour` (1 black, 2 white); returns the stones it captured, -1
 * when it has no legal point. */
static int go_greedy(Env* env, int colour) {
    int n = env->grid_size * env->grid_size, size;
    int cand[4][GO_CELLS], count[4] = {0, 0, 0, 0};
    uint8_t done[GO_CELLS];
    memset(done, 0, (size_t)n);
    for (int i = 0; i < n; i++) {  /* one entry per group: atari first (capture or save), then 2-4 liberties */
        if (!env->board[i] || done[i]) continue;
        int libs = go_group(env, env->board, i, &size);
        for (int k = 0; k < size; k++) done[env->queue[k]] = 1;
        int tier = env->board[i] != colour ? libs - 1 : libs == 1 ? 0 : -1;
        if (tier < 0 || tier > 3) continue;
        if (env->liberty >= 0) cand[tier][count[tier]++] = env->liberty;
    }
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < count[t]; k++) {
            int got = go_play(env, cand[t][k], colour);
            if (got >= 0) {
                if (colour == 2) env->last_opponent_move = cand[t][k];
                return got;
            }
        }
    int empties[GO_CELLS], m = 0;
    for (int i = 0; i < n; i++)
        if (!env->board[i]) empties[m++] = i;
    while (m > 0) {  /* random order, without repeats */
        int j = rng_int(&env->p.rng, m), pos = empties[j];
        empties[j] = empties[--m];
        int got = go_play(env, pos, colour);
        if (got >= 0) {
            if (colour == 2) env->last_opponent_move = pos;
            return got;
        }
    }
    return -1;
}

/* The random player's move for `colour`: a uniform choice among its legal points and a pass.
 * Returns the stones captured, or -1 for a pass. */
static int go_random(Env* env, int colour) {
    int n = env->grid_size * env->grid_size, legal[GO_CELLS], m = 0;
    for (int i = 0; i < n; i++)
        if (!env->board[i] && go_try(env, i, colour) >= 0) legal[m++] = i;
    int pick = rng_int(&env->p.rng, m + 1);
    if (pick == m) return -1;
    if (colour == 2) env->last_opponent_move = legal[pick];
    return go_play(env, legal[pick], colour);
}

/* The colour (1 black, 2 white) whose view agent row k sees. */
static inline int go_colour_of(const Env* env, int k) { return env->opponent == GO_NONE ? k + 1 : 1; }

/* Whether `colour` may play at `pos`. An empty point with an empty neighbour is
 * always legal (no suicide; a repeat of the board before would need that neighbour filled), so
 * only the points without one are tried. */
static int go_legal(Env* env, int pos, int colour) {
    if (env->board[pos]) return 0;
    for (int i = 0; i < 4; i++) {
        int q = env->nbr[pos][i];
        if (q >= 0 && !env->board[q]) return 1;
    }
    return go_try(env, pos, colour) >= 0;
}

static void go_observe(Env* env) {
    int n = env->grid_size * env->grid_size;
    for (int k = 0; k < go_rows(env); k++) {
        float* o = (float*)env->p.observations + (size_t)k * (2 * n + 2 + (env->legal_actions ? n + 1 : 0));
        int colour = go_colour_of(env, k);
        if (env->legal_actions) {
            int moves = go_rows(env) == 1 || k == env->to_move;
            o[0] = (float)moves;  /* the pass */
            for (int i = 0; i < n; i++) o[1 + i] = moves ? (float)go_legal(env, i, colour) : 0.0f;
            o += n + 1;
        }
        const uint8_t* before = env->before[colour - 1];
        for (int i = 0; i < n; i++) o[i] = env->board[i] == 0 ? 0.0f : env->board[i] == colour ? 1.0f : 2.0f;
        for (int i = 0; i < n; i++) o[n + i] = before[i] == 0 ? 0.0f : before[i] == colour ? 1.0f : 2.0f;
        o[2 * n] = (colour == 1 ? env->area_score : -env->area_score) / n;
        o[2 * n + 1] = (colour == 1 ? env->moves_made : env->moves_white) / (2.0f * n);
    }
}

static void go_set_masks(Env* env) {
    for (int k = 0; k < go_rows(env); k++) env->p.masks[k] = go_rows(env) == 1 || k == env->to_move;
}

static void c_reset(Env* env) {
    int n = env->grid_size * env->grid_size;
    memset(env->board, 0, (size_t)n);
    memset(env->scored, 0, (size_t)n);  /* the empty board's area: -komi */
    memset(env->ko, 0, (size_t)n);
    memset(env->before, 0, sizeof(env->before));
    env->moves_made = env->moves_white = env->tick = env->to_move = env->passes = 0;
    env->captures[0] = env->captures[1] = 0;
    env->last_opponent_move = -1;
    env->ret[0] = env->ret[1] = 0;
    env->area_score = -env->komi;
    go_observe(env);
    go_set_masks(env);
}

/* The step's end for every row: the final +1/-1/0 and outcomes of a game that ended
 * (`terminal`), or none of a truncated one; logs, final observations and a new game. */
static void go_finish(Env* env, int terminal) {
    int rows = go_rows(env);
    int truncated = !terminal && env->tick >= env->max_steps;
    float black = env->area_score > 0 ? 1.0f : env->area_score < 0 ? -1.0f : 0.0f;
    for (int k = 0; k < rows; k++) {
        float result = go_colour_of(env, k) == 1 ? black : -black;
        if (terminal) env->p.rewards[k] += result;
        env->ret[k] += env->p.rewards[k];
        env->p.terminals[k] = (uint8_t)terminal;
        env->p.truncations[k] = (uint8_t)truncated;
    }
    go_observe(env);
    if (!terminal && !truncated) {
        go_set_masks(env);
        return;
    }
    for (int k = 0; k < rows; k++) {
        int colour = go_colour_of(env, k);
        float result = colour == 1 ? black : -black;
        ocean_outcome(&env->p, k, !terminal ? NAN : result > 0 ? OCEAN_WIN : result < 0 ? OCEAN_LOSS : OCEAN_DRAW);
        LOG_EPISODE(&env->log, .score = colour == 1 ? env->area_score : -env->area_score, .episode_return = env->ret[k],
                    .episode_length = env->tick, .win_rate = terminal && result > 0,
                    .captures = env->captures[colour - 1]);
        ocean_keep_final(&env->p, k);
    }
    c_reset(env);
}

/* Against a built-in white: the agent's move (black), then white's answer. */
static void go_step_builtin(Env* env) {
    int a = env->p.actions[0], n = env->grid_size * env->grid_size;
    float reward = 0;
    int opponent_moves = 0;
    if (a == 0) {
        reward += env->reward_move_pass;
        env->passes++;
        opponent_moves = 1;
    } else {
        memcpy(env->before[0], env->board, (size_t)n);
        int got = go_play(env, a - 1, 1);
        if (got < 0) {
            reward += env->reward_move_invalid;
        } else {
            env->moves_made++;
            env->passes = 0;
            reward += env->reward_move_valid + (got ? env->reward_player_capture : 0);
            env->captures[0] += got;
            opponent_moves = 1;
        }
    }
    int terminal = 0;
    if (opponent_moves && env->passes >= 2) {
        terminal = 1;  /* the random white passed, then black: the game is over */
    } else if (opponent_moves) {
        int got = env->opponent == GO_SCRIPTED ? go_greedy(env, 2) : go_random(env, 2);
        if (got < 0 && env->opponent == GO_SCRIPTED) {
            terminal = 1;  /* the greedy white has no legal point */
        } else if (got < 0) {
            if (++env->passes >= 2) terminal = 1;
        } else {
            env->passes = 0;
            env->moves_white++;
            env->captures[1] += got;
            if (got > 0) reward += env->reward_opponent_capture;
        }
    }
    if (env->moves_made >= 2 * n) terminal = 1;
    go_update_area(env);
    env->p.rewards[0] = reward;
    go_finish(env, terminal);
}

/* Two seats: the move of the seat to move (its agent's action, or its built-in player's); the
 * other's action is ignored. */
static void go_step_seats(Env* env) {
    int n = env->grid_size * env->grid_size, mover = env->to_move, colour = mover + 1;
    int builtin = ocean_player(&env->p, mover), a = builtin ? -1 : env->p.actions[mover], got = -1, passed_turn = 1;
    env->p.rewards[0] = env->p.rewards[1] = 0;
    if (a != 0) {
        memcpy(env->before[mover], env->board, (size_t)n);
        got = builtin ? (builtin == GO_SCRIPTED ? go_greedy(env, colour) : go_random(env, colour))
                      : go_play(env, a - 1, colour);
    }
    if (a == 0 || (builtin && got < 0)) {  /* a pass */
        env->p.rewards[mover] += env->reward_move_pass;
        env->passes++;
    } else if (got < 0) {
        env->p.rewards[mover] += env->reward_move_invalid;
        passed_turn = 0;
    } else {
        env->passes = 0;
        if (colour == 1) env->moves_made++;
        else env->moves_white++;
        if (colour == 2 && !builtin) env->last_opponent_move = a - 1;
        env->p.rewards[mover] += env->reward_move_valid + (got ? env->reward_player_capture : 0);
        if (got) env->p.rewards[1 - mover] += env->reward_opponent_capture;
        env->captures[mover] += got;
    }
    int terminal = env->passes >= 2 || env->moves_made >= 2 * n || env->moves_white >= 2 * n;
    if (passed_turn) env->to_move = 1 - mover;
    go_update_area(env);
    go_finish(env, terminal);
}

static void c_step(Env* env) {
    env->tick++;
    if (env->opponent == GO_NONE) go_step_seats(env);
    else go_step_builtin(env);
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
