/* cartpole: balance a pole on a cart. Physics identical to Gymnasium's CartPole-v1.
 *
 * Same constants, Euler integration in double precision, the same termination bounds,
 * reward 1 per step (the terminating step included) and truncation after `max_steps`.
 * `continuous=1` takes a Box action in [-1, 1] scaled by the force magnitude instead
 * of Discrete(2) (0 pushes left, 1 right). Observation: x, x_dot, theta, theta_dot.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length)
#define PARAMS(P) P(int, continuous, 0, 0, 1) P(int, max_steps, 500, 1, 1000000)
#define FIELDS(F) F(double, x) F(double, x_dot) F(double, theta) F(double, theta_dot) F(int, tick)
#include "../puffer.h"

#define CP_GRAVITY 9.8
#define CP_MASSCART 1.0
#define CP_MASSPOLE 0.1
#define CP_TOTAL_MASS (CP_MASSPOLE + CP_MASSCART)
#define CP_INV_TOTAL_MASS (1.0 / CP_TOTAL_MASS)  /* x / m as x * (1 / m): a multiply, not a division */
#define CP_LENGTH 0.5
#define CP_POLEMASS_LENGTH (CP_MASSPOLE * CP_LENGTH)
#define CP_FORCE_MAG 10.0
#define CP_TAU 0.02
#define CP_THETA_LIMIT (12 * 2 * 3.14159265358979323846 / 360)
#define CP_X_LIMIT 2.4

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    PUFFER_FIELDS
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 4, -INFINITY, INFINITY);
    if (env->continuous)
        ocean_act_box(s, 1, -1, 1);
    else
        ocean_act_discrete(s, 2);
    ocean_render_size(s, 600, 400);
    return 0;
}

static int c_init(Env* env, char* err) { return 0; }
static void c_close(Env* env) {}

static void cartpole_observe(Env* env) {
    float* obs = (float*)env->p.observations;
    obs[0] = (float)env->x;
    obs[1] = (float)env->x_dot;
    obs[2] = (float)env->theta;
    obs[3] = (float)env->theta_dot;
}

static void c_reset(Env* env) {
    env->x = rng_uniform(&env->p.rng, -0.05, 0.05);
    env->x_dot = rng_uniform(&env->p.rng, -0.05, 0.05);
    env->theta = rng_uniform(&env->p.rng, -0.05, 0.05);
    env->theta_dot = rng_uniform(&env->p.rng, -0.05, 0.05);
    env->tick = 0;
    cartpole_observe(env);
}

/* sin and cos of the pole's angle. Inside |theta| <= 0.25 (every angle the game reaches before
 * it ends at 0.21) by their Taylor series to the x^11 and x^12 terms, inline: the next terms are
 * below 1e-19, so the results are libm's to within an ulp; elsewhere libm's. */
static inline void cartpole_sincos(double t, double* s, double* c) {
    if (t < -0.25 || t > 0.25) {
        *s = sin(t);
        *c = cos(t);
        return;
    }
    double z = t * t;
    *s = t + t * z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * (1.0 / 362880 + z * (-1.0 / 39916800)))));
    *c = 1.0 + z * (-0.5 + z * (1.0 / 24 + z * (-1.0 / 720 + z * (1.0 / 40320 + z * (-1.0 / 3628800 + z * (1.0 / 479001600))))));
}

static void c_step(Env* env) {
    double force;
    if (env->continuous) {
        double a = env->p.cont_actions[0];
        force = CP_FORCE_MAG * (a < -1.0 ? -1.0 : a > 1.0 ? 1.0 : a);
    } else {
        force = env->p.actions[0] == 1 ? CP_FORCE_MAG : -CP_FORCE_MAG;
    }
    double sintheta, costheta;
    cartpole_sincos(env->theta, &sintheta, &costheta);
    double temp = (force + CP_POLEMASS_LENGTH * env->theta_dot * env->theta_dot * sintheta) * CP_INV_TOTAL_MASS;
    double thetaacc = (CP_GRAVITY * sintheta - costheta * temp) /
                      (CP_LENGTH * (4.0 / 3.0 - CP_MASSPOLE * costheta * costheta * CP_INV_TOTAL_MASS));
    double xacc = temp - CP_POLEMASS_LENGTH * thetaacc * costheta * CP_INV_TOTAL_MASS;
    env->x = env->x + CP_TAU * env->x_dot;
    env->x_dot = env->x_dot + CP_TAU * xacc;
    env->theta = env->theta + CP_TAU * env->theta_dot;
    env->theta_dot = env->theta_dot + CP_TAU * thetaacc;
    env->tick++;
    int terminal = env->x < -CP_X_LIMIT || env->x > CP_X_LIMIT || env->theta < -CP_THETA_LIMIT ||
                   env->theta > CP_THETA_LIMIT;
    int truncated = !terminal && env->tick >= env->max_steps;
    env->p.rewards[0] = 1.0f;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    cartpole_observe(env);
    if (terminal || truncated) {
        LOG_EPISODE(&env->log, .score = env->tick, .episode_return = env->tick, .episode_length = env->tick);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int len = 0, width = 49;
    int cart = (int)((env->x + CP_X_LIMIT) / (2 * CP_X_LIMIT) * (width - 1));
    cart = cart < 0 ? 0 : cart >= width ? width - 1 : cart;
    int top = cart + (int)lround(sin(env->theta) * 4);
    top = top < 0 ? 0 : top >= width ? width - 1 : top;
    for (int i = 0; i < width; i++) ANSI_APPEND(buf, cap, len, "%c", i == top ? 'o' : ' ');
    ANSI_APPEND(buf, cap, len, "\n");
    for (int i = 0; i < width; i++) ANSI_APPEND(buf, cap, len, "%c", i == cart ? '#' : '_');
    ANSI_APPEND(buf, cap, len, "\nx=%+.3f theta=%+.3f step %d\n", env->x, env->theta, env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    draw_fill(px, w, h, PUFFER_BG);
    double scale = w / (2 * CP_X_LIMIT);
    int cx = (int)(env->x * scale + w / 2.0), cy = (int)(h * 0.7);
    draw_rect(px, w, h, 0, cy + 15, w, 2, PUFFER_GREY);
    draw_rect(px, w, h, cx - 25, cy - 15, 50, 30, PUFFER_CYAN);
    double pole = 2 * CP_LENGTH * scale;
    for (int i = 0; i < (int)pole; i++) {  /* the pole, drawn as a line of 6-pixel squares */
        int px_ = cx + (int)(sin(env->theta) * i), py_ = cy - 15 - (int)(cos(env->theta) * i);
        draw_rect(px, w, h, px_ - 3, py_ - 3, 6, 6, PUFFER_YELLOW);
    }
}
