/* blastar: shoot a passing enemy ship without sitting under it (after the Atari 2600 Blastar,
 * as PufferLib's Ocean "blastar"; a simplified grid version).
 *
 * A 16 x 12 grid, row 0 at the top. The player's ship moves one cell a step anywhere on it:
 * actions 0 nothing, 1 left, 2 right, 3 up, 4 down, 5 fire. One enemy ship flies right along
 * its row, one column every `enemy_interval` steps, wrapping from the right edge to the left
 * one. The player has one bullet at a time: fire puts it in the ship's cell and it climbs one
 * row a step (the first in the fire step); it destroys the enemy when they share a cell
 * (reward +1) and is spent, or leaves the top; a bullet must lead a moving enemy. A
 * destroyed enemy comes back `respawn_delay` steps later at the left edge of a random row of
 * the top half (0-5). Whenever the enemy is directly above the ship (same column, a higher
 * row) it fires its status beam with probability `attack_prob` a step: it stops, the
 * player's bullet is cancelled, and the ship is frozen (no moves, no fire) while the beam
 * falls one row a step from the enemy's row; the beam reaching the ship costs a life (the
 * beam is always fatal: the skill is to keep out from under the enemy). Touching the enemy
 * also costs a life. A lost life clears the beam and the bullet, and the enemy comes back
 * as after a kill; it pays nothing (with a penalty, hiding from the enemy without shooting
 * is what PPO learns first). The episode ends (terminal) when the `lives` (5) run out
 * and is truncated after `max_steps` steps (final observation kept). The ship starts at the
 * bottom centre, the enemy at the left edge of a random top-half row.
 * Observation (13 floats in [-1, 1]): the ship's column and row (-1 .. 1); the enemy
 * (present, column - ship's / 16, row - ship's / 12, steps to its next move / interval, or
 * to its return / respawn_delay when absent); the bullet (flying, column - ship's / 16,
 * row - ship's / 12); the beam (falling, row - ship's / 12); frozen; lives / `lives`.
 * score: enemies destroyed in the episode.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(lives_lost)
#define PARAMS(P) P(int, lives, 5, 1, 100) P(int, enemy_interval, 2, 1, 100) P(float, attack_prob, 0.5, 0, 1) \
    P(int, respawn_delay, 5, 1, 1000) P(int, max_steps, 2000, 1, 10000000)
#define FIELDS(F) F(int, px) F(int, py) F(int, ex) F(int, ey) F(int, enemy_on) F(int, enemy_timer) \
    F(int, bullet_on) F(int, bullet_x) F(int, bullet_y) F(int, beam_on) F(int, beam_y) F(int, frozen) \
    F(int, lives_left) F(int, kills) F(int, tick)
#include "../puffer.h"

#define BL_W 16
#define BL_H 12
#define BL_OBS 13
#define BL_TILE 16

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
    float ret;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, BL_OBS, -1, 1);
    ocean_act_discrete(s, 6);
    ocean_render_size(s, BL_W * BL_TILE, BL_H * BL_TILE);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void bl_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    memset(obs, 0, sizeof(float) * BL_OBS);
    obs[0] = 2.0f * env->px / (BL_W - 1) - 1.0f;
    obs[1] = 2.0f * env->py / (BL_H - 1) - 1.0f;
    obs[2] = (float)env->enemy_on;
    if (env->enemy_on) {
        obs[3] = (float)(env->ex - env->px) / BL_W;
        obs[4] = (float)(env->ey - env->py) / BL_H;
        obs[5] = (float)env->enemy_timer / env->enemy_interval;
    } else {
        obs[5] = (float)env->enemy_timer / env->respawn_delay;
    }
    if (env->bullet_on) {
        obs[6] = 1;
        obs[7] = (float)(env->bullet_x - env->px) / BL_W;
        obs[8] = (float)(env->bullet_y - env->py) / BL_H;
    }
    if (env->beam_on) {
        obs[9] = 1;
        obs[10] = (float)(env->beam_y - env->py) / BL_H;
    }
    obs[11] = (float)env->frozen;
    obs[12] = (float)env->lives_left / env->lives;
}

/* The enemy enters at the left edge of a random top-half row. */
static void bl_spawn(Env* env) {
    env->enemy_on = 1;
    env->ex = 0;
    env->ey = rng_int(&env->p.rng, BL_H / 2);
    env->enemy_timer = env->enemy_interval;
}

static void c_reset(Env* env) {
    env->px = BL_W / 2;
    env->py = BL_H - 1;
    env->bullet_on = env->bullet_x = env->bullet_y = 0;
    env->beam_on = env->beam_y = env->frozen = 0;
    env->lives_left = env->lives;
    env->kills = env->tick = 0;
    env->ret = 0;
    bl_spawn(env);
    bl_observe(env);
}

/* The enemy leaves (destroyed, or after costing a life) and returns after respawn_delay. */
static void bl_remove_enemy(Env* env) {
    env->enemy_on = 0;
    env->enemy_timer = env->respawn_delay;
}

static float bl_bullet_hits(Env* env) {
    if (!env->bullet_on || !env->enemy_on || env->bullet_x != env->ex || env->bullet_y != env->ey) return 0;
    env->bullet_on = 0;
    env->kills++;
    bl_remove_enemy(env);
    return 1.0f;
}

static void bl_lose_life(Env* env) {
    env->lives_left--;
    env->beam_on = env->frozen = env->bullet_on = 0;
    bl_remove_enemy(env);
}

static void bl_end(Env* env, int truncated) {
    env->p.terminals[0] = !truncated;
    env->p.truncations[0] = (uint8_t)truncated;
    LOG_EPISODE(&env->log, .score = env->kills, .episode_return = env->ret, .episode_length = env->tick,
                .lives_lost = env->lives - env->lives_left);
    ocean_keep_final(&env->p, 0);
    c_reset(env);
}

static void c_step(Env* env) {
    float reward = 0;
    env->tick++;
    env->p.terminals[0] = 0;
    env->p.truncations[0] = 0;
    int a = env->p.actions[0], absent = !env->enemy_on;  /* absent: counting down to its return */
    if (!env->frozen) {
        if (a == 1 && env->px > 0) env->px--;
        else if (a == 2 && env->px < BL_W - 1) env->px++;
        else if (a == 3 && env->py > 0) env->py--;
        else if (a == 4 && env->py < BL_H - 1) env->py++;
        else if (a == 5 && !env->bullet_on) {
            env->bullet_on = 1;
            env->bullet_x = env->px;
            env->bullet_y = env->py;
        }
    }
    if (env->bullet_on) {
        if (--env->bullet_y < 0) env->bullet_on = 0;
        reward += bl_bullet_hits(env);
    }
    if (absent) {
        if (--env->enemy_timer <= 0) bl_spawn(env);
    } else if (env->enemy_on && !env->beam_on && --env->enemy_timer <= 0) {
        env->ex = (env->ex + 1) % BL_W;
        env->enemy_timer = env->enemy_interval;
        reward += bl_bullet_hits(env);  /* the enemy flew into the bullet */
    }
    if (env->enemy_on && env->ex == env->px && env->ey == env->py) bl_lose_life(env);
    if (env->beam_on) {
        if (++env->beam_y >= BL_H) env->beam_on = env->frozen = 0;
        else if (env->beam_y == env->py && env->ex == env->px) bl_lose_life(env);
    }
    if (env->enemy_on && !env->beam_on && env->ex == env->px && env->ey < env->py &&
        rng_float(&env->p.rng) < env->attack_prob) {
        env->beam_on = env->frozen = 1;
        env->beam_y = env->ey;
        env->bullet_on = 0;
    }
    env->p.rewards[0] = reward;
    env->ret += reward;
    bl_observe(env);
    if (env->lives_left <= 0) bl_end(env, 0);
    else if (env->tick >= env->max_steps) bl_end(env, 1);
}

/* The grid: 'A' the ship, 'V' the enemy, '|' the bullet, '!' the beam; then a status line. */
static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0;
    for (int y = 0; y < BL_H; y++) {
        for (int x = 0; x < BL_W; x++) {
            char ch = '.';
            if (env->beam_on && x == env->ex && y == env->beam_y && y > env->ey) ch = '!';
            if (env->bullet_on && x == env->bullet_x && y == env->bullet_y) ch = '|';
            if (env->enemy_on && x == env->ex && y == env->ey) ch = 'V';
            if (x == env->px && y == env->py) ch = 'A';
            ANSI_APPEND(buf, cap, len, "%c", ch);
        }
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "lives %d kills %d%s\n", env->lives_left, env->kills, env->frozen ? " frozen" : "");
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    const int t = BL_TILE;
    draw_fill(px, w, h, PUFFER_BG);
    if (env->beam_on)
        for (int y = env->ey + 1; y <= env->beam_y && y < BL_H; y++)
            draw_rect(px, w, h, env->ex * t + 6, y * t, 4, t, PUFFER_RED);
    if (env->bullet_on) draw_rect(px, w, h, env->bullet_x * t + 7, env->bullet_y * t + 2, 2, 12, PUFFER_YELLOW);
    if (env->enemy_on) {
        draw_rect(px, w, h, env->ex * t + 1, env->ey * t + 2, t - 2, 6, PUFFER_RED);
        draw_rect(px, w, h, env->ex * t + 5, env->ey * t + 8, 6, 6, PUFFER_RED);
    }
    const uint8_t* c = PUFFER_PALETTE[env->frozen ? 6 : 1];  /* the ship: cyan, grey while frozen */
    draw_rect(px, w, h, env->px * t + 5, env->py * t + 2, 6, 6, c[0], c[1], c[2]);
    draw_rect(px, w, h, env->px * t + 1, env->py * t + 8, t - 2, 6, c[0], c[1], c[2]);
    for (int i = 0; i < env->lives_left && i < 10; i++) draw_rect(px, w, h, w - (i + 1) * 10, 2, 6, 6, PUFFER_GREEN);
}
