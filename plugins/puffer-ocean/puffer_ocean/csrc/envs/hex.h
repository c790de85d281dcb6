/* hex: the connection game Hex on a size x size rhombus, for two seats or against a built-in player.
 *
 * Player 0 (first to move) joins the top and bottom edges, player 1 the left and right ones;
 * a cell touches six others: (r-1, c), (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1), (r+1, c).
 * A move places a stone on an empty cell; the first player whose stones join their two edges
 * wins (Hex has no draws). Playing an occupied cell loses the game. Each seat sees the board
 * and acts in its own frame, so that every seat joins top and bottom: player 1's view is the
 * board transposed. Actions: r * size + c in that frame. Observation (2 size^2 floats, own
 * frame): the empty cells, 1 each, when it is the row's move (all 0 for the seat that waits),
 * which Python presents as the "action_mask" entry of a Dict observation (puffer_ocean.envs.
 * Hex), so the trainer plays empty cells only; then the board: +1 own stones, -1 the other's,
 * 0 empty. `opponent` (pufferlib's names: 0 "none", 1 "scripted",
 * the default, 2 "random"): with "none" both players are agents (a game of two rows, the
 * waiting seat masked); otherwise the agent plays a side drawn per game against the built-in
 * player: "scripted" wins when it can in one move, blocks the agent's one-move wins, and
 * otherwise plays a random empty cell; "random" plays a random empty cell. With "none", either
 * seat may be played by a built-in player instead (the `players` input: self-play's anchors).
 * Rewards at the end: +1 win, -1 loss; outcomes 1 / 0. score: games won.
 */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(illegal)
#define HEX_MAX 13
#define PARAMS(P) P(int, size, 7, 3, HEX_MAX) P(int, opponent, 1, 0, 2)
#define FIELDS(F) F(int, to_move) F(int, agent_player) F(int, tick)
#include "../puffer.h"

#define HEX_NONE 0
#define HEX_SCRIPTED 1

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    uint8_t cells[HEX_MAX * HEX_MAX];  /* 0 empty, 1 player 0, 2 player 1; actual frame */
    int to_move, agent_player, tick;
} Env;

static inline int hex_rows(Env* env) { return env->opponent == HEX_NONE ? 2 : 1; }
static inline int hex_player_of(Env* env, int k) { return env->opponent == HEX_NONE ? k : env->agent_player; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, hex_rows(env));
    s->legal_actions = 1;  /* the observation starts with the legal actions */
    ocean_obs_flat(s, 2 * env->size * env->size, -1, 1);
    ocean_act_discrete(s, env->size * env->size);
    int side = 24 * env->size + 12 * env->size;
    ocean_render_size(s, side, side);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

/* The actual cell of position `i` in `player`'s frame (player 1's frame is transposed). */
static inline int hex_cell(Env* env, int player, int i) {
    int n = env->size;
    return player == 0 ? i : (i % n) * n + i / n;
}

/* Whether `player`'s stones join its two edges (player 0: top-bottom, player 1: left-right). */
static int hex_won(Env* env, int player) {
    int n = env->size, stack[HEX_MAX * HEX_MAX], top = 0;
    uint8_t seen[HEX_MAX * HEX_MAX] = {0};
    uint8_t mine = (uint8_t)(player + 1);
    for (int k = 0; k < n; k++) {
        int cell = player == 0 ? k : k * n;  /* the top row, or the left column */
        if (env->cells[cell] == mine) { seen[cell] = 1; stack[top++] = cell; }
    }
    static const int DR[6] = {-1, -1, 0, 0, 1, 1}, DC[6] = {0, 1, -1, 1, -1, 0};
    while (top) {
        int cell = stack[--top], r = cell / n, c = cell % n;
        if ((player == 0 ? r : c) == n - 1) return 1;
        for (int d = 0; d < 6; d++) {
            int rr = r + DR[d], cc = c + DC[d];
            if (rr < 0 || rr >= n || cc < 0 || cc >= n) continue;
            int next = rr * n + cc;
            if (!seen[next] && env->cells[next] == mine) { seen[next] = 1; stack[top++] = next; }
        }
    }
    return 0;
}

static void hex_observe(Env* env) {
    int n2 = env->size * env->size;
    for (int k = 0; k < hex_rows(env); k++) {
        int player = hex_player_of(env, k);
        float* obs = (float*)env->p.observations + k * 2 * n2;
        int moving = player == env->to_move;
        for (int i = 0; i < n2; i++) {
            uint8_t v = env->cells[hex_cell(env, player, i)];
            obs[i] = (float)(moving && v == 0);
            obs[n2 + i] = v == 0 ? 0.0f : v == player + 1 ? 1.0f : -1.0f;
        }
    }
}

/* The built-in player's cell for `player` (actual frame). */
static int hex_builtin(Env* env, int player, int kind) {
    int n2 = env->size * env->size, empty[HEX_MAX * HEX_MAX], count = 0;
    for (int i = 0; i < n2; i++) if (!env->cells[i]) empty[count++] = i;
    if (kind == HEX_SCRIPTED) {
        for (int pass = 0; pass < 2; pass++) {  /* 0: a winning cell of its own, 1: one of the other's */
            int who = pass == 0 ? player : 1 - player;
            for (int i = 0; i < count; i++) {
                env->cells[empty[i]] = (uint8_t)(who + 1);
                int wins = hex_won(env, who);
                env->cells[empty[i]] = 0;
                if (wins) return empty[i];
            }
        }
    }
    return empty[rng_int(&env->p.rng, count)];
}

static void hex_set_masks(Env* env) {
    for (int k = 0; k < hex_rows(env); k++) env->p.masks[k] = hex_rows(env) == 1 || k == env->to_move;
}

static void c_reset(Env* env) {
    memset(env->cells, 0, sizeof(env->cells));
    env->tick = 0;
    env->to_move = 0;
    if (env->opponent != HEX_NONE) {
        env->agent_player = rng_int(&env->p.rng, 2);
        if (env->agent_player == 1) {
            env->cells[hex_builtin(env, 0, env->opponent)] = 1;
            env->to_move = 1;
        }
    }
    hex_observe(env);
    hex_set_masks(env);
}

static void hex_end(Env* env, int winner, int illegal) {
    for (int k = 0; k < hex_rows(env); k++) {
        int won = hex_player_of(env, k) == winner;
        env->p.rewards[k] = won ? 1.0f : -1.0f;
        env->p.terminals[k] = 1;
        ocean_outcome(&env->p, k, won ? OCEAN_WIN : OCEAN_LOSS);
        LOG_EPISODE(&env->log, .score = won, .episode_return = won ? 1.0f : -1.0f, .episode_length = env->tick,
                    .illegal = illegal && !won);
    }
    c_reset(env);
}

/* Play `player`'s stone on actual cell `cell`; returns 1 when it ended the game. */
static int hex_play(Env* env, int player, int cell) {
    if (env->cells[cell]) { hex_end(env, 1 - player, 1); return 1; }
    env->cells[cell] = (uint8_t)(player + 1);
    if (hex_won(env, player)) { hex_end(env, player, 0); return 1; }
    env->to_move = 1 - player;
    return 0;
}

static void c_step(Env* env) {
    int rows = hex_rows(env), player = env->to_move;
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = 0;
        env->p.truncations[k] = 0;
    }
    int builtin = rows == 2 ? ocean_player(&env->p, player) : 0;  /* a built-in player in this seat */
    int cell = builtin ? hex_builtin(env, player, builtin)
                       : hex_cell(env, player, env->p.actions[rows == 2 ? player : 0]);
    if (hex_play(env, player, cell)) return;
    if (rows == 1 && hex_play(env, env->to_move, hex_builtin(env, env->to_move, env->opponent))) return;
    hex_observe(env);
    hex_set_masks(env);
}

/* The rhombus, each row shifted by half a cell: 'X' player 0 (top-bottom), 'O' player 1. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, n = env->size;
    for (int r = 0; r < n; r++) {
        ANSI_APPEND(buf, cap, len, "%*s", r, "");
        for (int c = 0; c < n; c++) {
            uint8_t v = env->cells[r * n + c];
            ANSI_APPEND(buf, cap, len, "%c ", v == 1 ? 'X' : v == 2 ? 'O' : '.');
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    int n = env->size;
    draw_fill(px, w, h, PUFFER_BG);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            uint8_t v = env->cells[r * n + c];
            const uint8_t* col = PUFFER_PALETTE[v == 1 ? 2 : v == 2 ? 4 : 6];
            draw_rect(px, w, h, 24 * c + 12 * r + 2, 24 * r + 2, 20, 20, col[0], col[1], col[2]);
        }
}
