/* binding.h: turns one environment header into an OceanEnvDef for module.c.
 *
 * An environment `foo` is its header envs/foo.h plus its entry in puffer_ocean/specs.py.
 * setup.py writes its translation unit envs/_gen/foo.c (the header, ENV_NAME foo, this
 * file) and the X(foo) line of envs/_gen/registry.h; nothing else lists it.
 *
 * The header provides:
 *   int  c_spaces(Env* env, OceanSpaces* s, char* err)  check params, describe the spaces
 *                                       (puffer.h's ocean_obs_*, ocean_act_*, ocean_render_size;
 *                                       one agent per copy unless it sets s->num_agents)
 *   int  c_init(Env* env, char* err)    allocate per-copy state (params are already set)
 *   void c_reset(Env* env)              start a new episode, write observations
 *   void c_step(Env* env)               act, write obs/rewards/terminals/truncations,
 *                                       reset finished agents, add finished episodes to log
 *   int  c_render_ansi(Env* env, char* buf, int cap)   text, returns its length
 *   void c_render_rgb(Env* env, uint8_t* px, int w, int h)
 *   void c_close(Env* env)              free what c_init allocated
 * Every copy's step runs inside one C loop (step_range below), so c_step is inlined.
 * A header that defines OCEAN_WRITES_FINAL keeps the last observation of every ended
 * episode with ocean_keep_final (see ocean.h). A game that defines OCEAN_BUILTIN_PLAYERS n lets
 * its built-in players 1..n take a seat of a game whose seats are all agents (ocean_player).
 */
#include <stddef.h>

#ifndef OCEAN_WRITES_FINAL
#define OCEAN_WRITES_FINAL 0
#endif
#ifndef OCEAN_BUILTIN_PLAYERS
#define OCEAN_BUILTIN_PLAYERS 0
#endif

#define OCEAN_CAT_(a, b) a##b
#define OCEAN_CAT(a, b) OCEAN_CAT_(a, b)
#define OCEAN_STR_(a) #a
#define OCEAN_STR(a) OCEAN_STR_(a)
#define OCEAN_TYPE_int OCEAN_INT
#define OCEAN_TYPE_float OCEAN_FLOAT
#define OCEAN_TYPE_double OCEAN_DOUBLE

#define OCEAN_LOG_NAME(name) #name,
#define OCEAN_PARAM_ENTRY(type, name, def, lo, hi) \
    {#name, OCEAN_TYPE_##type, (double)(def), (double)(lo), (double)(hi), offsetof(Env, name)},
#define OCEAN_FIELD_ENTRY(type, name) {#name, OCEAN_TYPE_##type, 0, 0, 0, offsetof(Env, name)},

_Static_assert(sizeof(Log) / sizeof(float) <= 64, "at most 63 LOG_FIELDS");

static const char* const ocean_log_names[] = {LOG_FIELDS(OCEAN_LOG_NAME) NULL};
static const OceanField ocean_params[] = {PARAMS(OCEAN_PARAM_ENTRY) {NULL, OCEAN_INT, 0, 0, 0, 0}};
static const OceanField ocean_fields[] = {FIELDS(OCEAN_FIELD_ENTRY) {NULL, OCEAN_INT, 0, 0, 0, 0}};

/* c_spaces, with one agent per copy unless it says otherwise; a space it left undescribed is an error. */
static int ocean_spaces(void* env, OceanSpaces* out, char* err) {
    out->num_agents = 1;
    int rc = c_spaces((Env*)env, out, err);
    if (rc != 0) return rc;
    const char* missing = NULL;
    if (out->num_agents < 1)
        missing = "at least one agent per copy (s->num_agents)";
    else if (out->obs_ndim < 1 || out->obs_ndim > 3 || (out->obs_dtype != 'f' && out->obs_dtype != 'B'))
        missing = "its observation space (an ocean_obs_* helper)";
    else if (out->act_dims < 1 || out->act_dims > OCEAN_MAX_DIMS ||
             (out->act_kind != 'D' && out->act_kind != 'M' && out->act_kind != 'B'))
        missing = "its action space, of 1 to " OCEAN_STR(OCEAN_MAX_DIMS) " dimensions (an ocean_act_* helper)";
    if (!missing) return 0;
    snprintf(err, OCEAN_ERR_LEN, "c_spaces must describe %s.", missing);
    return 1;
}

static int ocean_init(void* env, char* err) { return c_init((Env*)env, err); }
static void ocean_reset(void* env) { c_reset((Env*)env); }
static int ocean_render_ansi(void* env, char* buf, int cap) { return c_render_ansi((Env*)env, buf, cap); }
static void ocean_render_rgb(void* env, uint8_t* px, int w, int h) { c_render_rgb((Env*)env, px, w, h); }
static void ocean_close(void* env) { c_close((Env*)env); }

static void ocean_step_range(void* envs, int start, int stop) {
    Env* e = (Env*)envs;
    for (int i = start; i < stop; i++) c_step(&e[i]);
}

const OceanEnvDef OCEAN_CAT(ocean_def_, ENV_NAME) = {
    OCEAN_STR(ENV_NAME),
    sizeof(Env), offsetof(Env, p), offsetof(Env, log),
    (int)(sizeof(Log) / sizeof(float)), ocean_log_names,
    ocean_params, (int)(sizeof(ocean_params) / sizeof(ocean_params[0])) - 1,
    ocean_fields, (int)(sizeof(ocean_fields) / sizeof(ocean_fields[0])) - 1,
    ocean_spaces, ocean_init, ocean_reset, ocean_step_range,
    ocean_render_ansi, ocean_render_rgb, ocean_close, OCEAN_WRITES_FINAL, OCEAN_BUILTIN_PLAYERS,
};
