/* tcg: a small trading-card game of creatures for two seats or against a built-in player (issue 59;
 * PufferLib 3.0's Ocean "tcg" is an unfinished sketch of a land-and-mana card game with no binding).
 *
 * The pool: 10 creature cards, (cost, attack, health) = (1,1,2) (1,2,1) (2,2,3) (2,3,2) (3,3,4)
 * (3,4,3) (4,4,5) (4,6,3) (5,5,6) (6,7,7). Each player's deck is the pool twice (20 cards),
 * shuffled per game. Player 0 moves first and starts with 3 cards in hand, player 1 with 4. A
 * player's turn begins by raising its mana crystals by one (at most 10), refilling its mana to
 * them, readying its creatures, and drawing a card: from an empty deck it instead loses `fatigue`
 * life, fatigue counting 1, 2, 3, ... per empty draw; into a full hand (7) the card is burnt.
 * The second player's compensation: player 0 does not draw in its first turn, and player 1's
 * first turn has one mana more than its crystals (the scripted player then wins 49% of its games
 * against itself as player 0, 85% without them). In
 * its turn a player may, in any order: play a card of its hand whose cost it can pay onto its
 * board (5 creatures at most; a creature played this turn cannot attack), attack with each ready
 * creature once, either the other player (its life drops by the attack) or a creature of the other
 * player (each deals its attack to the other's health; at 0 health a creature dies and its board
 * closes up, keeping order), and end its turn. A player at 0 life loses; life starts at `life`.
 *
 * Actions (Discrete(38)): 0 end the turn; 1-7 play hand card 1-7; 8 + 6 a + t attack with board
 * creature a (0-4) the other player (t = 0) or its creature t - 1 (t = 1-5). An illegal action
 * (the action mask of the observation says which are legal) ends the turn and counts in `illegal`.
 * The observation (120 floats in [0, 1]) of a row, from its player's side: the legal actions x 38
 * (all 0 for the seat that waits; Python presents them as the Dict entry "action_mask", so the
 * trainer, `puffer eval` and `puffer match` play legal actions only); its life and the other's /
 * `life`, its mana and crystals / 10, the other's crystals / 10, its hand size and the other's / 7,
 * its deck and the other's / 20, its fatigue and the other's / 10 (at most 1), 1 if it moves
 * first (12); its hand x 7 (present, cost / 10, attack / 10, health / 10, affordable); its board
 * x 5 (present, attack / 10, health / 10, ready); the other's board x 5 (present, attack / 10,
 * health / 10). The other's hand and both decks' order are hidden.
 *
 * Rewards: +1 to the winner's row and -1 to the loser's at the end; outcomes (pufferlib's game
 * contract) 1 and 0. A game is truncated after `max_steps` steps (outcome NaN, reward 0).
 * `opponent` (pufferlib's names: 0 "none", 1 "scripted", the default, 2 "random"):
 * - "none": both players are agents, a game of two rows (game_seats 2), seat 0 moving first; only
 *   the seat to move acts (the other is masked and its action ignored). Either seat may be played
 *   by a built-in player instead (the `players` input: self-play's anchors), which plays its whole
 *   turn in one step. `max_steps` counts the steps of both seats.
 * - "scripted": one agent row playing a side drawn per game; the built-in player's turn runs inside
 *   the step that ends the agent's: it plays the dearest card it can pay (then the bigger, attack
 *   plus health) while any fits, then attacks with each ready creature: the other player when its
 *   ready creatures' attacks add up to the other's life, else the creature of highest attack plus
 *   health that it kills and survives, else one it kills whose attack plus health exceeds its own,
 *   else the other player; then it ends its turn.
 * - "random": as "scripted", but the built-in player picks uniformly among its legal actions
 *   (ending the turn among them) until it ends its turn.
 * Log, per row and game: score (games won), episode_return, episode_length (steps of the game),
 * turns (turns begun in the game, both players), illegal (the row's illegal actions).
 */
#define OCEAN_WRITES_FINAL 1     /* c_step keeps every ended game's last observation */
#define OCEAN_BUILTIN_PLAYERS 2  /* with opponent "none", either seat may be played by 1 or 2 */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(turns) X(illegal)
#define PARAMS(P) P(int, opponent, 1, 0, 2) P(int, life, 20, 1, 99) P(int, max_steps, 1000, 1, 10000000)
#define TCG_CARD_F(F, p, i) F(int, hand[p][i]) F(int, atk[p][i]) F(int, hp[p][i]) F(int, ready[p][i])
#define TCG_SIDE_F(F, p) F(int, lives[p]) F(int, mana[p]) F(int, crystals[p]) F(int, fatigue[p]) \
    F(int, hand_n[p]) F(int, deck_n[p]) F(int, board_n[p]) TCG_CARD_F(F, p, 0) TCG_CARD_F(F, p, 1) \
    TCG_CARD_F(F, p, 2) TCG_CARD_F(F, p, 3) TCG_CARD_F(F, p, 4) F(int, hand[p][5]) F(int, hand[p][6])
#define FIELDS(F) TCG_SIDE_F(F, 0) TCG_SIDE_F(F, 1) F(int, to_move) F(int, agent_player) F(int, turn) F(int, tick)
#include "../puffer.h"

#define TCG_POOL 10
#define TCG_HAND 7
#define TCG_BOARD 5
#define TCG_DECK (2 * TCG_POOL)
#define TCG_MAX_MANA 10
#define TCG_ACTIONS 38
#define TCG_PLAY 1       /* first play action */
#define TCG_ATTACK 8     /* first attack action */
#define TCG_OBS (TCG_ACTIONS + 12 + 5 * TCG_HAND + 4 * TCG_BOARD + 3 * TCG_BOARD)
#define TCG_NONE 0
#define TCG_SCRIPTED 1

/* The pool: cost, attack, health. */
static const int TCG_CARDS[TCG_POOL][3] = {
    {1, 1, 2}, {1, 2, 1}, {2, 2, 3}, {2, 3, 2}, {3, 3, 4}, {3, 4, 3}, {4, 4, 5}, {4, 6, 3}, {5, 5, 6}, {6, 7, 7},
};

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    int lives[2], mana[2], crystals[2], fatigue[2];  /* per player (0 moves first) */
    int hand_n[2], hand[2][TCG_HAND];             /* card ids in hand, in the order drawn */
    int deck_n[2], deck[2][TCG_DECK];             /* card ids; draws take deck[p][deck_n - 1] */
    int board_n[2], atk[2][TCG_BOARD], hp[2][TCG_BOARD], ready[2][TCG_BOARD];  /* creatures, in play order */
    int to_move;        /* the player whose turn it is */
    int agent_player;   /* against a built-in player: the agent's player */
    int turn, tick;     /* turns begun and steps in this game */
    int winner;         /* -1 while the game goes on */
    int illegal[2];
    float ret[2];
} Env;

static inline int tcg_rows(const Env* env) { return env->opponent == TCG_NONE ? 2 : 1; }
static inline int tcg_player_of(const Env* env, int row) { return env->opponent == TCG_NONE ? row : env->agent_player; }

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_game(s, tcg_rows(env));
    s->legal_actions = 1;  /* the observation starts with the legal actions */
    ocean_obs_flat(s, TCG_OBS, 0, 1);
    ocean_act_discrete(s, TCG_ACTIONS);
    ocean_render_size(s, 480, 360);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static inline int tcg_cost(const Env* env, int player, int k) { return TCG_CARDS[env->hand[player][k]][0]; }

/* Whether `player` may take action `a` now (its turn, the game going on). */
static int tcg_legal(const Env* env, int player, int a) {
    if (a == 0) return 1;
    if (a < TCG_ATTACK) {
        int k = a - TCG_PLAY;
        return k < env->hand_n[player] && env->board_n[player] < TCG_BOARD && tcg_cost(env, player, k) <= env->mana[player];
    }
    int attacker = (a - TCG_ATTACK) / 6, target = (a - TCG_ATTACK) % 6;
    return attacker < env->board_n[player] && env->ready[player][attacker] && target <= env->board_n[1 - player];
}

/* Draw `player`'s next card: fatigue from an empty deck, burnt into a full hand. */
static void tcg_draw(Env* env, int player) {
    if (env->deck_n[player] == 0) {
        env->lives[player] -= ++env->fatigue[player];
        if (env->lives[player] <= 0 && env->winner < 0) env->winner = 1 - player;
        return;
    }
    int card = env->deck[player][--env->deck_n[player]];
    if (env->hand_n[player] < TCG_HAND) env->hand[player][env->hand_n[player]++] = card;
}

static void tcg_begin_turn(Env* env, int player) {
    env->to_move = player;
    env->turn++;
    if (env->crystals[player] < TCG_MAX_MANA) env->crystals[player]++;
    env->mana[player] = env->crystals[player] + (env->turn == 2);  /* player 1's first turn: one more */
    for (int i = 0; i < env->board_n[player]; i++) env->ready[player][i] = 1;
    if (env->turn > 1) tcg_draw(env, player);  /* player 0's first turn draws no card */
}

/* Remove the creatures of `player` at 0 health or less, keeping the others' order. */
static void tcg_bury(Env* env, int player) {
    int n = 0;
    for (int i = 0; i < env->board_n[player]; i++) {
        if (env->hp[player][i] <= 0) continue;
        env->atk[player][n] = env->atk[player][i];
        env->hp[player][n] = env->hp[player][i];
        env->ready[player][n] = env->ready[player][i];
        n++;
    }
    env->board_n[player] = n;
}

/* Apply `player`'s legal action `a` other than ending the turn. */
static void tcg_apply(Env* env, int player, int a) {
    if (a < TCG_ATTACK) {
        int k = a - TCG_PLAY, card = env->hand[player][k], slot = env->board_n[player]++;
        env->mana[player] -= TCG_CARDS[card][0];
        env->atk[player][slot] = TCG_CARDS[card][1];
        env->hp[player][slot] = TCG_CARDS[card][2];
        env->ready[player][slot] = 0;
        for (int i = k + 1; i < env->hand_n[player]; i++) env->hand[player][i - 1] = env->hand[player][i];
        env->hand_n[player]--;
        return;
    }
    int attacker = (a - TCG_ATTACK) / 6, target = (a - TCG_ATTACK) % 6, other = 1 - player;
    env->ready[player][attacker] = 0;
    if (target == 0) {
        env->lives[other] -= env->atk[player][attacker];
        if (env->lives[other] <= 0 && env->winner < 0) env->winner = player;
        return;
    }
    env->hp[other][target - 1] -= env->atk[player][attacker];
    env->hp[player][attacker] -= env->atk[other][target - 1];
    tcg_bury(env, player);
    tcg_bury(env, other);
}

/* The scripted player's next action for `player`: cards first, then attacks, then 0. */
static int tcg_scripted(const Env* env, int player) {
    int other = 1 - player, best = -1, best_key = -1;
    for (int k = 0; k < env->hand_n[player]; k++) {  /* the dearest playable card, then the bigger */
        if (!tcg_legal(env, player, TCG_PLAY + k)) continue;
        const int* c = TCG_CARDS[env->hand[player][k]];
        int key = c[0] * 100 + c[1] + c[2];
        if (key > best_key) { best_key = key; best = TCG_PLAY + k; }
    }
    if (best >= 0) return best;
    int reach = 0, attacker = -1;
    for (int i = 0; i < env->board_n[player]; i++)
        if (env->ready[player][i]) {
            reach += env->atk[player][i];
            if (attacker < 0) attacker = i;
        }
    if (attacker < 0) return 0;
    int base = TCG_ATTACK + 6 * attacker;
    if (reach >= env->lives[other]) return base;  /* lethal: every attack at the other player */
    int a = env->atk[player][attacker], h = env->hp[player][attacker];
    int clean = -1, clean_value = -1, trade = -1, trade_value = a + h;
    for (int j = 0; j < env->board_n[other]; j++) {
        int value = env->atk[other][j] + env->hp[other][j];
        if (a < env->hp[other][j]) continue;  /* it would not kill it */
        if (env->atk[other][j] < h && value > clean_value) { clean = j; clean_value = value; }
        if (value > trade_value) { trade = j; trade_value = value; }
    }
    return base + 1 + (clean >= 0 ? clean : trade >= 0 ? trade : -1);
}

/* A uniformly random legal action of `player`. */
static int tcg_random(Env* env, int player) {
    int legal[TCG_ACTIONS], n = 0;
    for (int a = 0; a < TCG_ACTIONS; a++)
        if (tcg_legal(env, player, a)) legal[n++] = a;
    return legal[rng_int(&env->p.rng, n)];
}

/* The built-in player `kind` plays `player`'s whole turn (until it ends it or the game ends). */
static void tcg_builtin_turn(Env* env, int player, int kind) {
    while (env->winner < 0) {
        int a = kind == TCG_SCRIPTED ? tcg_scripted(env, player) : tcg_random(env, player);
        if (a == 0) return;
        tcg_apply(env, player, a);
    }
}

static void tcg_observe(Env* env) {
    for (int row = 0, rows = tcg_rows(env); row < rows; row++) {
        int me = tcg_player_of(env, row), other = 1 - me;
        float* restrict o = (float*)env->p.observations + (size_t)row * TCG_OBS;  /* aliases no field */
        int moving = env->winner < 0 && env->to_move == me;
        for (int a = 0; a < TCG_ACTIONS; a++) o[a] = (float)(moving && tcg_legal(env, me, a));
        o += TCG_ACTIONS;
        float inv_life = 1.0f / (float)env->life;
        o[0] = env->lives[me] > 0 ? env->lives[me] * inv_life : 0.0f;
        o[1] = env->lives[other] > 0 ? env->lives[other] * inv_life : 0.0f;
        o[2] = env->mana[me] * 0.1f;
        o[3] = env->crystals[me] * 0.1f;
        o[4] = env->crystals[other] * 0.1f;
        o[5] = env->hand_n[me] * (1.0f / TCG_HAND);
        o[6] = env->hand_n[other] * (1.0f / TCG_HAND);
        o[7] = env->deck_n[me] * (1.0f / TCG_DECK);
        o[8] = env->deck_n[other] * (1.0f / TCG_DECK);
        o[9] = env->fatigue[me] < 10 ? env->fatigue[me] * 0.1f : 1.0f;
        o[10] = env->fatigue[other] < 10 ? env->fatigue[other] * 0.1f : 1.0f;
        o[11] = (float)(me == 0);
        o += 12;
        for (int k = 0; k < TCG_HAND; k++, o += 5) {
            int in = k < env->hand_n[me];
            const int* c = TCG_CARDS[in ? env->hand[me][k] : 0];
            o[0] = (float)in;
            o[1] = in ? c[0] * 0.1f : 0.0f;
            o[2] = in ? c[1] * 0.1f : 0.0f;
            o[3] = in ? c[2] * 0.1f : 0.0f;
            o[4] = (float)(in && c[0] <= env->mana[me]);
        }
        for (int i = 0; i < TCG_BOARD; i++, o += 4) {
            int in = i < env->board_n[me];
            o[0] = (float)in;
            o[1] = in ? env->atk[me][i] * 0.1f : 0.0f;
            o[2] = in ? env->hp[me][i] * 0.1f : 0.0f;
            o[3] = (float)(in && env->ready[me][i]);
        }
        for (int i = 0; i < TCG_BOARD; i++, o += 3) {
            int in = i < env->board_n[other];
            o[0] = (float)in;
            o[1] = in ? env->atk[other][i] * 0.1f : 0.0f;
            o[2] = in ? env->hp[other][i] * 0.1f : 0.0f;
        }
    }
}

static void tcg_set_masks(Env* env) {
    for (int k = 0; k < tcg_rows(env); k++) env->p.masks[k] = tcg_rows(env) == 1 || k == env->to_move;
}

static void c_reset(Env* env) {
    for (int p = 0; p < 2; p++) {
        env->lives[p] = env->life;
        env->mana[p] = env->crystals[p] = env->fatigue[p] = 0;
        env->hand_n[p] = env->board_n[p] = 0;
        env->illegal[p] = 0;
        env->ret[p] = 0;
        env->deck_n[p] = TCG_DECK;
        for (int i = 0; i < TCG_DECK; i++) env->deck[p][i] = i % TCG_POOL;
        for (int i = TCG_DECK - 1; i > 0; i--) {  /* Fisher-Yates */
            int j = rng_int(&env->p.rng, i + 1), t = env->deck[p][i];
            env->deck[p][i] = env->deck[p][j];
            env->deck[p][j] = t;
        }
        for (int k = 0; k < 3 + p; k++) tcg_draw(env, p);
    }
    env->turn = env->tick = 0;
    env->winner = -1;
    env->agent_player = env->opponent == TCG_NONE ? 0 : rng_int(&env->p.rng, 2);
    tcg_begin_turn(env, 0);
    if (env->opponent != TCG_NONE && env->agent_player == 1) {  /* the built-in player's first turn */
        tcg_builtin_turn(env, 0, env->opponent);
        tcg_begin_turn(env, 1);
    }
    tcg_observe(env);
    tcg_set_masks(env);
}

/* `player`'s action `a` as an agent; returns 1 when it ends the turn. */
static int tcg_act(Env* env, int player, int a) {
    if (!tcg_legal(env, player, a)) {
        env->illegal[player]++;
        return 1;
    }
    if (a == 0) return 1;
    tcg_apply(env, player, a);
    return 0;
}

static void c_step(Env* env) {
    int rows = tcg_rows(env), mover = env->to_move;
    env->tick++;
    for (int k = 0; k < rows; k++) {
        env->p.rewards[k] = 0;
        env->p.terminals[k] = env->p.truncations[k] = 0;
    }
    if (rows == 2) {
        int builtin = ocean_player(&env->p, mover);  /* a built-in player in this seat */
        int ended = 1;
        if (builtin) tcg_builtin_turn(env, mover, builtin);
        else ended = tcg_act(env, mover, env->p.actions[mover]);
        if (ended && env->winner < 0) tcg_begin_turn(env, 1 - mover);
    } else if (tcg_act(env, mover, env->p.actions[0]) && env->winner < 0) {
        int other = 1 - mover;  /* the built-in player's turn, then the agent's next */
        tcg_begin_turn(env, other);
        if (env->winner < 0) tcg_builtin_turn(env, other, env->opponent);
        if (env->winner < 0) tcg_begin_turn(env, mover);
    }
    int terminal = env->winner >= 0, truncated = !terminal && env->tick >= env->max_steps;
    for (int k = 0; k < rows; k++) {
        int won = terminal && tcg_player_of(env, k) == env->winner;
        if (terminal) env->p.rewards[k] = won ? 1.0f : -1.0f;
        env->ret[k] += env->p.rewards[k];
        env->p.terminals[k] = (uint8_t)terminal;
        env->p.truncations[k] = (uint8_t)truncated;
    }
    tcg_observe(env);
    if (!terminal && !truncated) {
        tcg_set_masks(env);
        return;
    }
    for (int k = 0; k < rows; k++) {
        int player = tcg_player_of(env, k), won = terminal && player == env->winner;
        ocean_outcome(&env->p, k, !terminal ? NAN : won ? OCEAN_WIN : OCEAN_LOSS);
        LOG_EPISODE(&env->log, .score = won, .episode_return = env->ret[k], .episode_length = env->tick,
                    .turns = env->turn, .illegal = env->illegal[player]);
        ocean_keep_final(&env->p, k);
    }
    c_reset(env);
}

/* The action's words for the ansi render: "end turn", "play 2", "3 -> face", "1 -> 2". */
static int tcg_describe(const Env* env, int player, int a, char* buf, int cap) {
    int len = 0;
    if (a == 0) return ANSI_APPEND(buf, cap, len, "end turn");
    if (a < TCG_ATTACK) {
        const int* c = TCG_CARDS[env->hand[player][a - TCG_PLAY]];
        return ANSI_APPEND(buf, cap, len, "play %d (%d: %d/%d)", a - TCG_PLAY + 1, c[0], c[1], c[2]);
    }
    int attacker = (a - TCG_ATTACK) / 6, target = (a - TCG_ATTACK) % 6;
    if (target == 0) return ANSI_APPEND(buf, cap, len, "%d -> face", attacker + 1);
    return ANSI_APPEND(buf, cap, len, "%d -> %d", attacker + 1, target);
}

static int tcg_render_board(const Env* env, int player, char* buf, int cap, int len) {
    ANSI_APPEND(buf, cap, len, "  board:");
    for (int i = 0; i < env->board_n[player]; i++)
        ANSI_APPEND(buf, cap, len, " [%d] %d/%d%s", i + 1, env->atk[player][i], env->hp[player][i],
                    env->ready[player][i] || player != env->to_move ? "" : "z");
    return ANSI_APPEND(buf, cap, len, "\n");
}

/* Text: the waiting player above (its hand hidden), the player to move below with its hand and its
 * legal actions by number; "z": a creature of the player to move that cannot attack this turn. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int me = env->to_move, other = 1 - me, len = 0;
    ANSI_APPEND(buf, cap, len, "turn %d\n", env->turn);
    ANSI_APPEND(buf, cap, len, "player %d: life %d, crystals %d, hand %d, deck %d\n", other, env->lives[other],
                env->crystals[other], env->hand_n[other], env->deck_n[other]);
    len = tcg_render_board(env, other, buf, cap, len);
    ANSI_APPEND(buf, cap, len, "  ---\n");
    len = tcg_render_board(env, me, buf, cap, len);
    ANSI_APPEND(buf, cap, len, "player %d (to move): life %d, mana %d/%d, deck %d\n", me, env->lives[me],
                env->mana[me], env->crystals[me], env->deck_n[me]);
    ANSI_APPEND(buf, cap, len, "  hand:");
    for (int k = 0; k < env->hand_n[me]; k++) {
        const int* c = TCG_CARDS[env->hand[me][k]];
        ANSI_APPEND(buf, cap, len, " [%d] %d: %d/%d", k + 1, c[0], c[1], c[2]);
    }
    ANSI_APPEND(buf, cap, len, "\n  actions:");
    for (int a = 0; a < TCG_ACTIONS; a++) {
        if (!tcg_legal(env, me, a)) continue;
        ANSI_APPEND(buf, cap, len, " %d ", a);
        len += tcg_describe(env, me, a, len < cap ? buf + len : NULL, len < cap ? cap - len : 0);
        ANSI_APPEND(buf, cap, len, ";");
    }
    ANSI_APPEND(buf, cap, len, "\n");
    return len;
}

/* A card: a box of its player's colour, a yellow attack bar and a green health bar (8 px a point). */
static void tcg_draw_card(uint8_t* px, int w, int h, int x, int y, int attack, int health, int player, int ready) {
    const uint8_t* c = PUFFER_PALETTE[player == 0 ? 1 : 2];
    draw_rect(px, w, h, x, y, 60, 80, c[0], c[1], c[2]);
    if (!ready) draw_rect(px, w, h, x, y, 60, 4, PUFFER_GREY);
    draw_rect(px, w, h, x + 6, y + 70 - 8 * attack, 18, 8 * attack, PUFFER_YELLOW);
    draw_rect(px, w, h, x + 36, y + 70 - 8 * health, 18, 8 * health, PUFFER_GREEN);
}

/* Player 1 at the top, player 0 at the bottom: life bars at the sides, boards in the middle, the
 * hands (of the player to move only, the other's as face-down cards) at the edges. */
static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    for (int p = 0; p < 2; p++) {
        int board_y = p == 0 ? 190 : 90, hand_y = p == 0 ? 280 : 0;
        for (int i = 0; i < env->board_n[p]; i++)
            tcg_draw_card(px, w, h, 60 + 72 * i, board_y, env->atk[p][i], env->hp[p][i], p, env->ready[p][i]);
        for (int k = 0; k < env->hand_n[p]; k++) {
            const int* c = TCG_CARDS[env->hand[p][k]];
            if (p == env->to_move) tcg_draw_card(px, w, h, 20 + 64 * k, hand_y, c[1], c[2], p, 1);
            else draw_rect(px, w, h, 20 + 64 * k, hand_y, 56, 80, PUFFER_GREY);
        }
        int life = env->lives[p] > 0 ? env->lives[p] : 0;
        draw_rect(px, w, h, 440, board_y + 80 - 4 * (life < 20 ? life : 20), 12, 4 * (life < 20 ? life : 20), PUFFER_RED);
        for (int m = 0; m < env->crystals[p]; m++)
            draw_rect(px, w, h, 460, board_y + 72 - 8 * m, 12, 6, m < env->mana[p] ? 90 : 40, m < env->mana[p] ? 90 : 40, 220);
    }
}
