/* tcg_anchors.c: ocean-tcg's built-in players and two variants of the scripted one, game for game,
 * on the env's own rules (plugins/puffer-ocean/puffer_ocean/csrc/envs/tcg.h): the README's anchor
 * figures (the scripted mirror by seat, scripted against random play, and how much of the scripted
 * player's score its trades are worth).
 *
 *     gcc -O2 -Iplugins/puffer-ocean/puffer_ocean/csrc -o /tmp/tcg_anchors benchmarks/tcg_anchors.c -lm
 *     /tmp/tcg_anchors [games]
 *
 * Players: 1 scripted, 2 random (the env's); 3 scripted cards, then always the face; 4 scripted
 * cards, then every attack on a creature it kills (else the face). Each pair plays `games` games
 * (default 20,000) with every seat assignment, two seats of one env (opponent "none").
 */
#include "envs/tcg.h"

static int pick(Env* env, int player, int kind) {
    if (kind == 2) return tcg_random(env, player);
    int a = tcg_scripted(env, player);
    if (kind == 1 || a < TCG_ATTACK) return a;
    int attacker = (a - TCG_ATTACK) / 6, base = TCG_ATTACK + 6 * attacker, other = 1 - player;
    if (kind == 4)
        for (int j = 0; j < env->board_n[other]; j++)
            if (env->atk[player][attacker] >= env->hp[other][j]) return base + 1 + j;
    return base;
}

/* Seat 0's share of the games won, `kind0` in seat 0 (moving first) against `kind1`. */
static double play(Env* env, int kind0, int kind1, int games) {
    int kinds[2] = {kind0, kind1};
    double won = 0;
    c_reset(env);
    for (int n = 0; n < games;) {
        int mover = env->to_move;
        env->p.actions[mover] = pick(env, mover, kinds[mover]);
        env->p.actions[1 - mover] = 0;
        c_step(env);
        if (env->p.terminals[0]) { won += env->p.outcomes[0]; n++; }
    }
    return won / games;
}

int main(int argc, char** argv) {
    static Env env;
    static float obs[2 * TCG_OBS], rewards[2], outcomes[2], finals[2 * TCG_OBS];
    static int32_t actions[2];
    static uint8_t terminals[2], truncations[2], masks[2];
    static int8_t players[2];  /* 0: every step's action comes from pick() */
    int games = argc > 1 ? atoi(argv[1]) : 20000;
    env.p = (Puffer){.observations = obs, .actions = actions, .rewards = rewards, .terminals = terminals,
                     .truncations = truncations, .final_observations = finals, .outcomes = outcomes, .masks = masks,
                     .players = players, .obs_row_bytes = TCG_OBS * sizeof(float), .rng = 12345};
    env.opponent = TCG_NONE;
    env.life = 20;
    env.max_steps = 1000000;
    const char* names[5] = {"", "scripted", "random", "scripted, always face", "scripted, every kill"};
    printf("%-24s %-10s %8s %8s %8s\n", "player", "against", "first", "second", "score");
    int pairs[5][2] = {{1, 1}, {2, 2}, {2, 1}, {3, 1}, {4, 1}};
    for (int i = 0; i < 5; i++) {
        int a = pairs[i][0], b = pairs[i][1];
        double first = play(&env, a, b, games), second = 1.0 - play(&env, b, a, games);
        printf("%-24s %-10s %8.3f %8.3f %8.3f\n", names[a], names[b], first, second, (first + second) / 2);
    }
    return 0;
}
