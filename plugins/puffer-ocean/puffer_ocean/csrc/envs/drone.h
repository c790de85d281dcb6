/* drone: a quadcopter flies through a course of rings (PufferLib's Ocean "drone"; Box actions).
 *
 * Rigid-body quadcopter (1 kg, 0.1 m arms in an X layout, thrust k * rpm^2 per motor,
 * first-order motor lag of 0.1 s, linear and angular drag, gravity), integrated with
 * semi-implicit Euler steps of 0.05 s, in a 60 x 60 x 20 m box centred on the origin.
 * Action: Box(-1, 1, (4,)): motor m spins toward (a_m + 1) / 2 * 750 rad/s (values outside
 * [-1, 1] are clipped). `max_rings` rings of radius 2 m wait in order; crossing the
 * current ring's plane front to back within its radius earns 1 and brings the next. Each
 * step also earns 0.1 x the metres gained toward the ring's centre. Leaving the box costs 1
 * and ends the episode (terminal), as does passing the last ring; it is truncated after
 * `max_moves` steps. Score: rings passed. Observation (25 floats): body-frame velocity /
 * 50, angular velocity / 50, orientation quaternion (w, x, y, z), motor speeds / 750, the
 * offset to the ring's centre / box half-size and clipped to [-1, 1] in metres, the ring's
 * normal, rings passed / max_rings, steps / max_moves.
 */
#define OCEAN_WRITES_FINAL 1  /* c_step keeps every ended episode's last observation */
#define LOG_FIELDS(X) X(score) X(episode_return) X(episode_length) X(out_of_bounds)
#define PARAMS(P) P(int, max_rings, 10, 1, 1000) P(int, max_moves, 1000, 1, 10000000)
#define FIELDS(F) F(float, x) F(float, y) F(float, z) F(float, vx) F(float, vy) F(float, vz) \
    F(float, qw) F(float, qx) F(float, qy) F(float, qz) F(float, wx) F(float, wy) F(float, wz) \
    F(float, rpm[0]) F(float, rpm[1]) F(float, rpm[2]) F(float, rpm[3]) \
    F(float, rx) F(float, ry) F(float, rz) F(float, nx) F(float, ny) F(float, nz) F(int, ring) F(int, tick)
#include "../puffer.h"

#define DR_GX 30.0f
#define DR_GY 30.0f
#define DR_GZ 10.0f
#define DR_DT 0.05f
#define DR_MASS 1.0f
#define DR_IXX 0.01f
#define DR_IYY 0.01f
#define DR_IZZ 0.02f
#define DR_ARM 0.1f
#define DR_K_THRUST 3e-5f
#define DR_K_DRAG 1e-6f
#define DR_B_DRAG 0.1f
#define DR_K_ANG 0.2f
#define DR_GRAVITY 9.81f
#define DR_MAX_RPM 750.0f
#define DR_K_MOT 0.1f
#define DR_MAX_VEL 50.0f
#define DR_MAX_OMEGA 50.0f
#define DR_RING 2.0f

typedef struct {
    Puffer p;
    Log log;
    PUFFER_PARAMS
    float x, y, z, vx, vy, vz, qw, qx, qy, qz, wx, wy, wz, rpm[4];
    float rx, ry, rz, nx, ny, nz, last_dist, ret, inv_rings, inv_moves;  /* 1 / max_rings, 1 / max_moves */
    int ring, tick;
} Env;

static int c_spaces(Env* env, OceanSpaces* s, char* err) {
    ocean_obs_flat(s, 25, -1, 1);
    ocean_act_box(s, 4, -1, 1);
    ocean_render_size(s, 480, 480 + 160);
    return 0;
}

static int c_init(Env* env, char* err) {
    env->inv_rings = 1.0f / env->max_rings;
    env->inv_moves = 1.0f / env->max_moves;
    return 0;
}
static void c_close(Env* env) {}

static inline float dr_clamp(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline float dr_uniform(Env* env, float lo, float hi) { return lo + (hi - lo) * rng_float(&env->p.rng); }

/* v rotated by the quaternion q (body -> world) or its inverse (world -> body). */
static void dr_rotate(const Env* env, int inverse, float vx, float vy, float vz, float* out) {
    float w = env->qw, x = inverse ? -env->qx : env->qx, y = inverse ? -env->qy : env->qy, z = inverse ? -env->qz : env->qz;
    float tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);  /* t = 2 q x v */
    out[0] = vx + w * tx + (y * tz - z * ty);
    out[1] = vy + w * ty + (z * tx - x * tz);
    out[2] = vz + w * tz + (x * ty - y * tx);
}

static void dr_next_ring(Env* env) {
    float m = 2 * DR_RING;
    float px = env->rx, py = env->ry, pz = env->rz;
    do {
        env->rx = dr_uniform(env, -DR_GX + m, DR_GX - m);
        env->ry = dr_uniform(env, -DR_GY + m, DR_GY - m);
        env->rz = dr_uniform(env, -DR_GZ + m, DR_GZ - m);
    } while ((env->rx - px) * (env->rx - px) + (env->ry - py) * (env->ry - py) + (env->rz - pz) * (env->rz - pz) <
             16 * DR_RING * DR_RING);
    float a = dr_uniform(env, 0, 6.2831853f), c = dr_uniform(env, -0.5f, 0.5f), r = sqrtf(1 - c * c);
    env->nx = r * cosf(a);  /* mostly horizontal normals: rings stand up */
    env->ny = r * sinf(a);
    env->nz = c;
}

static inline float dr_dist(const Env* env) {
    float dx = env->rx - env->x, dy = env->ry - env->y, dz = env->rz - env->z;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static void dr_observe(Env* env) {
    float* o = (float*)env->p.observations, body[3];
    dr_rotate(env, 1, env->vx, env->vy, env->vz, body);
    for (int i = 0; i < 3; i++) o[i] = body[i] * (1.0f / DR_MAX_VEL);  /* scales as multiplies: no divisions */
    o[3] = env->wx * (1.0f / DR_MAX_OMEGA);
    o[4] = env->wy * (1.0f / DR_MAX_OMEGA);
    o[5] = env->wz * (1.0f / DR_MAX_OMEGA);
    o[6] = env->qw;
    o[7] = env->qx;
    o[8] = env->qy;
    o[9] = env->qz;
    for (int m = 0; m < 4; m++) o[10 + m] = env->rpm[m] * (1.0f / DR_MAX_RPM);
    float dx = env->rx - env->x, dy = env->ry - env->y, dz = env->rz - env->z;
    o[14] = dr_clamp(dx * (0.5f / DR_GX), -1, 1);
    o[15] = dr_clamp(dy * (0.5f / DR_GY), -1, 1);
    o[16] = dr_clamp(dz * (0.5f / DR_GZ), -1, 1);
    o[17] = dr_clamp(dx, -1, 1);
    o[18] = dr_clamp(dy, -1, 1);
    o[19] = dr_clamp(dz, -1, 1);
    o[20] = env->nx;
    o[21] = env->ny;
    o[22] = env->nz;
    o[23] = (float)env->ring * env->inv_rings;
    o[24] = (float)env->tick * env->inv_moves;
}

static void c_reset(Env* env) {
    env->x = dr_uniform(env, -DR_GX + 1, DR_GX - 1);
    env->y = dr_uniform(env, -DR_GY + 1, DR_GY - 1);
    env->z = dr_uniform(env, -DR_GZ + 1, DR_GZ - 1);
    env->vx = env->vy = env->vz = env->wx = env->wy = env->wz = 0;
    env->qw = 1;
    env->qx = env->qy = env->qz = 0;
    for (int m = 0; m < 4; m++) env->rpm[m] = 0;
    env->rx = env->x;
    env->ry = env->y;
    env->rz = env->z;
    dr_next_ring(env);  /* at least 8 m from the start */
    env->ring = env->tick = 0;
    env->ret = 0;
    env->last_dist = dr_dist(env);
    dr_observe(env);
}

/* One physics step under the motor commands a (in [-1, 1]). */
static void dr_physics(Env* env, const float* a) {
    float T[4];
    for (int m = 0; m < 4; m++) {
        float target = (dr_clamp(a[m], -1, 1) + 1) * 0.5f * DR_MAX_RPM;
        env->rpm[m] += (target - env->rpm[m]) * (DR_DT / DR_K_MOT);
        T[m] = DR_K_THRUST * env->rpm[m] * env->rpm[m];
    }
    float f[3];
    dr_rotate(env, 0, 0, 0, T[0] + T[1] + T[2] + T[3], f);  /* thrust along the body's z axis */
    env->vx += DR_DT * (f[0] - DR_B_DRAG * env->vx) / DR_MASS;
    env->vy += DR_DT * (f[1] - DR_B_DRAG * env->vy) / DR_MASS;
    env->vz += DR_DT * ((f[2] - DR_B_DRAG * env->vz) / DR_MASS - DR_GRAVITY);
    env->vx = dr_clamp(env->vx, -DR_MAX_VEL, DR_MAX_VEL);
    env->vy = dr_clamp(env->vy, -DR_MAX_VEL, DR_MAX_VEL);
    env->vz = dr_clamp(env->vz, -DR_MAX_VEL, DR_MAX_VEL);
    env->x += DR_DT * env->vx;
    env->y += DR_DT * env->vy;
    env->z += DR_DT * env->vz;
    /* X layout: motors 0 front-right, 1 back-right, 2 back-left, 3 front-left. */
    float arm = DR_ARM * 0.70710678f;
    float tx = arm * ((T[0] + T[1]) - (T[2] + T[3])) - DR_K_ANG * env->wx + (DR_IYY - DR_IZZ) * env->wy * env->wz;
    float ty = arm * ((T[0] + T[3]) - (T[1] + T[2])) - DR_K_ANG * env->wy + (DR_IZZ - DR_IXX) * env->wz * env->wx;
    float tz = DR_K_DRAG * (-T[0] + T[1] - T[2] + T[3]) - DR_K_ANG * env->wz + (DR_IXX - DR_IYY) * env->wx * env->wy;
    env->wx = dr_clamp(env->wx + tx * (DR_DT / DR_IXX), -DR_MAX_OMEGA, DR_MAX_OMEGA);
    env->wy = dr_clamp(env->wy + ty * (DR_DT / DR_IYY), -DR_MAX_OMEGA, DR_MAX_OMEGA);
    env->wz = dr_clamp(env->wz + tz * (DR_DT / DR_IZZ), -DR_MAX_OMEGA, DR_MAX_OMEGA);
    /* q += dt / 2 * q (0, w), then normalised */
    float w = env->qw, x = env->qx, y = env->qy, z = env->qz, h = 0.5f * DR_DT;
    env->qw = w + h * (-x * env->wx - y * env->wy - z * env->wz);
    env->qx = x + h * (w * env->wx + y * env->wz - z * env->wy);
    env->qy = y + h * (w * env->wy - x * env->wz + z * env->wx);
    env->qz = z + h * (w * env->wz + x * env->wy - y * env->wx);
    float n = 1.0f / sqrtf(env->qw * env->qw + env->qx * env->qx + env->qy * env->qy + env->qz * env->qz);
    env->qw *= n;
    env->qx *= n;
    env->qy *= n;
    env->qz *= n;
}

static void c_step(Env* env) {
    float px = env->x, py = env->y, pz = env->z;
    env->tick++;
    dr_physics(env, env->p.cont_actions);
    float reward = 0;
    int terminal = 0, out = fabsf(env->x) > DR_GX || fabsf(env->y) > DR_GY || fabsf(env->z) > DR_GZ;
    /* Through the ring: from the front of its plane to the back, within its radius. */
    float before = (px - env->rx) * env->nx + (py - env->ry) * env->ny + (pz - env->rz) * env->nz;
    float after = (env->x - env->rx) * env->nx + (env->y - env->ry) * env->ny + (env->z - env->rz) * env->nz;
    int passed = 0;
    if (before < 0 && after >= 0) {
        float t = before / (before - after);
        float cx = px + t * (env->x - px) - env->rx, cy = py + t * (env->y - py) - env->ry, cz = pz + t * (env->z - pz) - env->rz;
        passed = cx * cx + cy * cy + cz * cz <= DR_RING * DR_RING;
    }
    if (out) {
        reward = -1;
        terminal = 1;
    } else if (passed) {
        reward = 1;
        env->ring++;
        if (env->ring >= env->max_rings) terminal = 1;
        else dr_next_ring(env);
        env->last_dist = dr_dist(env);
    } else {
        float d = dr_dist(env);
        reward = 0.1f * (env->last_dist - d);
        env->last_dist = d;
    }
    env->ret += reward;
    int truncated = !terminal && env->tick >= env->max_moves;
    env->p.rewards[0] = reward;
    env->p.terminals[0] = (uint8_t)terminal;
    env->p.truncations[0] = (uint8_t)truncated;
    dr_observe(env);
    if (terminal || truncated) {
        LOG_EPISODE(&env->log, .score = env->ring, .episode_return = env->ret, .episode_length = env->tick,
                    .out_of_bounds = out);
        ocean_keep_final(&env->p, 0);
        c_reset(env);
    }
}

static int c_render_ansi(Env* env, char* buf, int cap) {
    int cols = 60, rows = 30, len = 0;
    int dx = (int)((env->x + DR_GX) / (2 * DR_GX) * cols), dy = (int)((env->y + DR_GY) / (2 * DR_GY) * rows);
    int rx = (int)((env->rx + DR_GX) / (2 * DR_GX) * cols), ry = (int)((env->ry + DR_GY) / (2 * DR_GY) * rows);
    for (int r = rows - 1; r >= 0; r--) {  /* top view, +y up */
        for (int c = 0; c < cols; c++) ANSI_APPEND(buf, cap, len, "%c", c == dx && r == dy ? 'D' : c == rx && r == ry ? 'O' : '.');
        ANSI_APPEND(buf, cap, len, "\n");
    }
    ANSI_APPEND(buf, cap, len, "drone (%.1f, %.1f, %.1f)  ring %d at (%.1f, %.1f, %.1f)  step %d\n", env->x, env->y, env->z,
                env->ring, env->rx, env->ry, env->rz, env->tick);
    return len;
}

static void c_render_rgb(Env* env, uint8_t* px, int w, int h) {
    float s = 480 / (2 * DR_GX);  /* top view 480 x 480, then a side view (x, z) 480 x 160 */
    draw_fill(px, w, h, PUFFER_BG);
    draw_rect(px, w, h, 0, 480, w, 2, 60, 60, 60);
    int ring_px = (int)(2 * DR_RING * s);
    draw_rect(px, w, h, (int)((env->rx + DR_GX - DR_RING) * s), (int)((DR_GY - env->ry - DR_RING) * s), ring_px, ring_px, PUFFER_YELLOW);
    draw_rect(px, w, h, (int)((env->rx + DR_GX - DR_RING) * s), 482 + (int)((DR_GZ - env->rz - DR_RING) * s * 0.9f), ring_px,
              ring_px, PUFFER_YELLOW);
    draw_rect(px, w, h, (int)((env->x + DR_GX) * s) - 4, (int)((DR_GY - env->y) * s) - 4, 8, 8, PUFFER_CYAN);
    draw_rect(px, w, h, (int)((env->x + DR_GX) * s) - 4, 482 + (int)((DR_GZ - env->z) * s * 0.9f) - 4, 8, 8, PUFFER_CYAN);
}
