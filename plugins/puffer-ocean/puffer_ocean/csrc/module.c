/* module.c: the one Python extension of the suite, puffer_ocean._ocean.
 *
 * `Vec(name, num_envs, kwargs, num_threads, log_interval)` holds `num_envs` copies of one
 * environment in a single C array. Python binds the PufferEnv arrays once (`bind`); `step`
 * checks the actions, releases the GIL and steps every copy in one loop (split across a
 * thread pool when num_threads > 1), writing straight into those arrays.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <string.h>

/* A third-party package compiles this file with -DOCEAN_REGISTRY='"its_registry.h"' (and its
 * own folder on the include path) to bind its own environments: see puffer_ocean.get_include(). */
#ifdef OCEAN_REGISTRY
#include OCEAN_REGISTRY
#else
#include "envs/_gen/registry.h"  /* written by setup.py: one X(name) per envs/<name>.h */
#endif
#include "ocean.h"
#include "actions.h"
#include "fields.h"
#include "pool.h"

#define OCEAN_DECLARE(name) extern const OceanEnvDef ocean_def_##name;
OCEAN_ENVS(OCEAN_DECLARE)
#define OCEAN_ENTRY(name) &ocean_def_##name,
static const OceanEnvDef* const OCEAN_DEFS[] = {OCEAN_ENVS(OCEAN_ENTRY) NULL};

enum { B_OBS, B_ACT, B_REW, B_TERM, B_TRUNC, B_FINAL, B_OUT, B_MASK, B_PLAY, B_COUNT };
static const char* const BUF_NAMES[B_COUNT] = {"observations", "actions", "rewards", "terminals", "truncations",
                                               "final_observations", "outcomes", "masks", "players"};

typedef struct {
    PyObject_HEAD
    const OceanEnvDef* def;
    char* envs;
    int num_envs;
    int num_init;              /* copies whose c_init succeeded (c_close runs on those) */
    OceanSpaces sp;
    Py_buffer bufs[B_COUNT];
    PyObject* bound_actions;   /* the bound actions array (borrowed: bufs holds a reference) */
    int bound, was_reset;
    long action_values;        /* int32/float32 values per step */
    int log_interval;
    long tick;
    OceanPool* pool;
    int pool_fork_epoch;       /* ocean_fork_epoch when the pool started: its threads live in that process */
    int busy;                  /* a call is running with the GIL released */
} Vec;

/* Bumped in a forked child: thread pools started before the fork have no threads there. */
static int ocean_fork_epoch = 0;
static void ocean_after_fork_child(void) { ocean_fork_epoch++; }

static inline void* env_at(Vec* v, int i) { return v->envs + (size_t)i * v->def->env_size; }
static inline Puffer* slots_at(Vec* v, int i) {
    return (Puffer*)((char*)env_at(v, i) + v->def->puffer_offset);
}

static const OceanEnvDef* find_def(const char* name) {
    for (int i = 0; OCEAN_DEFS[i]; i++)
        if (strcmp(OCEAN_DEFS[i]->name, name) == 0) return OCEAN_DEFS[i];
    return NULL;
}

static void release_buffers(Vec* v) {
    if (!v->bound) return;
    for (int b = 0; b < B_COUNT; b++) PyBuffer_Release(&v->bufs[b]);
    v->bound = 0;
    v->bound_actions = NULL;
}

static void vec_free_envs(Vec* v) {
    if (v->pool && v->pool_fork_epoch != ocean_fork_epoch) {
        /* A forked child: the pool's threads are not in this process; free it without joining. */
        free(v->pool->threads);
        free(v->pool);
    } else {
        ocean_pool_free(v->pool);
    }
    v->pool = NULL;
    if (v->envs) {
        for (int i = 0; i < v->num_init; i++) v->def->close(env_at(v, i));
        free(v->envs);
        v->envs = NULL;
    }
    v->num_init = 0;
}

static void Vec_dealloc(Vec* v) {
    release_buffers(v);
    vec_free_envs(v);
    Py_TYPE(v)->tp_free((PyObject*)v);
}

static int Vec_init(Vec* v, PyObject* args, PyObject* kw) {
    static char* kwlist[] = {"name", "num_envs", "kwargs", "num_threads", "log_interval", NULL};
    const char* name;
    int num_envs, num_threads, log_interval;  /* defaults: OceanEnv.__init__ passes every argument */
    PyObject* kwargs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "siOii", kwlist, &name, &num_envs, &kwargs, &num_threads,
                                     &log_interval))
        return -1;
    if (v->def) {
        PyErr_SetString(PyExc_RuntimeError, "Vec is already initialized");
        return -1;
    }
    const OceanEnvDef* def = find_def(name);
    if (!def) {
        PyErr_Format(PyExc_ValueError, "No ocean environment %s.", name);
        return -1;
    }
    if (num_envs < 1) {
        PyErr_Format(PyExc_ValueError, "ocean-%s: num_envs must be >= 1, got %d.", name, num_envs);
        return -1;
    }
    if (num_threads < 1 || num_threads > 256) {
        PyErr_Format(PyExc_ValueError, "ocean-%s: num_threads must be in [1, 256], got %d.", name, num_threads);
        return -1;
    }
    if (log_interval < 1) {
        PyErr_Format(PyExc_ValueError, "ocean-%s: log_interval must be >= 1, got %d.", name, log_interval);
        return -1;
    }
    v->envs = (char*)calloc((size_t)num_envs, def->env_size);
    if (!v->envs) {
        PyErr_NoMemory();
        return -1;
    }
    v->def = def;
    v->num_envs = num_envs;
    v->log_interval = log_interval;
    char err[OCEAN_ERR_LEN] = {0};
    /* The params go into a template that every copy starts from, before its own c_init. */
    void* tmpl = calloc(1, def->env_size);
    if (!tmpl) {
        PyErr_NoMemory();
        goto fail;
    }
    if (parse_params(def, tmpl, kwargs) < 0) goto fail_tmpl;
    memset(&v->sp, 0, sizeof(v->sp));
    if (def->spaces(tmpl, &v->sp, err) != 0) {
        PyErr_Format(PyExc_ValueError, "ocean-%s: %s", name, err);
        goto fail_tmpl;
    }
    if (v->sp.game_seats < 0 || (v->sp.game_seats && v->sp.num_agents % v->sp.game_seats)) {
        PyErr_Format(PyExc_ValueError, "ocean-%s: game_seats %d does not divide the %d agents of a copy", name,
                     v->sp.game_seats, v->sp.num_agents);
        goto fail_tmpl;
    }
    v->action_values = (long)num_envs * v->sp.num_agents * v->sp.act_dims;
    for (int i = 0; i < num_envs; i++) {
        void* env = env_at(v, i);
        memcpy(env, tmpl, def->env_size);
        slots_at(v, i)->index = i;
        if (def->init(env, err) != 0) {
            def->close(env);  /* frees what this copy allocated before failing */
            PyErr_Format(PyExc_ValueError, "ocean-%s: %s", name, err);
            goto fail_tmpl;
        }
        v->num_init = i + 1;
    }
    free(tmpl);
    if (num_threads > 1 && num_envs > 1) {
        v->pool = ocean_pool_new(num_threads < num_envs ? num_threads : num_envs, def->step_range, v->envs,
                                 num_envs);
        if (!v->pool) {
            PyErr_SetString(PyExc_RuntimeError, "could not start the env threads");
            goto fail;
        }
        v->pool_fork_epoch = ocean_fork_epoch;
    }
    return 0;
fail_tmpl:
    free(tmpl);
fail:
    vec_free_envs(v);
    v->def = NULL;
    return -1;
}

static int check_ready(Vec* v, int need_bound) {
    if (v->busy) {
        PyErr_SetString(PyExc_ValueError, "This ocean env is being stepped by another thread.");
        return -1;
    }
    if (!v->def || !v->envs) {
        PyErr_SetString(PyExc_ValueError, "This ocean env is closed.");
        return -1;
    }
    if (v->pool && v->pool_fork_epoch != ocean_fork_epoch) {
        PyErr_SetString(PyExc_ValueError, "This ocean env started its threads in the parent process and cannot "
                        "step in a forked child; create it in the process that steps it.");
        return -1;
    }
    if (need_bound && !v->bound) {
        PyErr_SetString(PyExc_ValueError, "bind() the arrays first.");
        return -1;
    }
    return 0;
}

static PyObject* Vec_spaces(Vec* v, PyObject* unused) {
    if (check_ready(v, 0) < 0) return NULL;
    OceanSpaces* s = &v->sp;
    PyObject* shape = PyTuple_New(s->obs_ndim);
    for (int i = 0; i < s->obs_ndim; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLong(s->obs_shape[i]));
    PyObject* nvec = PyList_New(s->act_kind == 'B' ? 0 : s->act_dims);
    for (int i = 0; s->act_kind != 'B' && i < s->act_dims; i++) PyList_SET_ITEM(nvec, i, PyLong_FromLong(s->act_n[i]));
    return Py_BuildValue("{s:i,s:i,s:i,s:N,s:C,s:d,s:d,s:C,s:i,s:N,s:d,s:d,s:i,s:i,s:O,s:i}", "num_agents",
                         s->num_agents, "game_seats", s->game_seats, "legal_actions", s->legal_actions,
                         "obs_shape", shape, "obs_dtype", s->obs_dtype, "obs_low", s->obs_low, "obs_high",
                         s->obs_high, "act_kind", s->act_kind, "act_dims", s->act_dims, "act_n", nvec,
                         "act_low", s->act_low, "act_high", s->act_high, "render_width", s->render_width,
                         "render_height", s->render_height, "writes_final",
                         v->def->writes_final ? Py_True : Py_False, "builtin_players", v->def->builtin_players);
}

/* bind(observations, actions, rewards, terminals, truncations, final_observations, outcomes, masks,
 * players): adopt the PufferEnv arrays. */
static PyObject* Vec_bind(Vec* v, PyObject* args) {
    if (check_ready(v, 0) < 0) return NULL;
    PyObject* arrays[B_COUNT];
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &arrays[0], &arrays[1], &arrays[2], &arrays[3], &arrays[4], &arrays[5],
                          &arrays[6], &arrays[7], &arrays[8]))
        return NULL;
    OceanSpaces* s = &v->sp;
    long rows = (long)v->num_envs * s->num_agents;
    long obs_size = 1;
    for (int i = 0; i < s->obs_ndim; i++) obs_size *= s->obs_shape[i];
    char act_fmt = s->act_kind == 'B' ? 'f' : 'i';
    const char formats[B_COUNT] = {s->obs_dtype, act_fmt, 'f', '?', '?', s->obs_dtype, 'f', '?', 'b'};
    const long counts[B_COUNT] = {rows * obs_size, rows * s->act_dims, rows, rows, rows, rows * obs_size, rows, rows,
                                  rows};
    const int itemsizes[B_COUNT] = {s->obs_dtype == 'f' ? 4 : 1, 4, 4, 1, 1, s->obs_dtype == 'f' ? 4 : 1, 4, 1, 1};
    Py_buffer bufs[B_COUNT];
    int got = 0;
    for (; got < B_COUNT; got++) {
        Py_buffer* b = &bufs[got];
        if (PyObject_GetBuffer(arrays[got], b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyErr_Format(PyExc_ValueError, "%s must be a writable C-contiguous array", BUF_NAMES[got]);
            goto fail;
        }
        const char* fmt = b->format ? b->format : "B";
        if (fmt[0] == '=' || fmt[0] == '<' || fmt[0] == '@') fmt++;
        char f = fmt[0] == 'l' && b->itemsize == 4 ? 'i' : fmt[0];
        if (f != formats[got] || fmt[1] != 0 || b->itemsize != itemsizes[got] || b->len != counts[got] * itemsizes[got]) {
            PyErr_Format(PyExc_ValueError, "%s has format %s and %zd bytes; expected format %c and %ld bytes",
                         BUF_NAMES[got], b->format ? b->format : "B", b->len, formats[got],
                         counts[got] * itemsizes[got]);
            got++;
            goto fail;
        }
    }
    release_buffers(v);
    memcpy(v->bufs, bufs, sizeof(bufs));
    v->bound = 1;
    v->bound_actions = arrays[B_ACT];
    for (int i = 0; i < v->num_envs; i++) {
        Puffer* p = slots_at(v, i);
        long row = (long)i * s->num_agents;
        p->observations = (char*)v->bufs[B_OBS].buf + row * obs_size * itemsizes[B_OBS];
        int32_t* act = (int32_t*)v->bufs[B_ACT].buf + row * s->act_dims;
        p->actions = s->act_kind == 'B' ? NULL : act;
        p->cont_actions = s->act_kind == 'B' ? (float*)act : NULL;
        p->rewards = (float*)v->bufs[B_REW].buf + row;
        p->terminals = (uint8_t*)v->bufs[B_TERM].buf + row;
        p->truncations = (uint8_t*)v->bufs[B_TRUNC].buf + row;
        p->final_observations = (char*)v->bufs[B_FINAL].buf + row * obs_size * itemsizes[B_FINAL];
        p->outcomes = (float*)v->bufs[B_OUT].buf + row;
        p->masks = (uint8_t*)v->bufs[B_MASK].buf + row;
        p->players = (const int8_t*)v->bufs[B_PLAY].buf + row;
        p->obs_row_bytes = (size_t)obs_size * (size_t)itemsizes[B_OBS];
    }
    v->was_reset = 0;
    Py_RETURN_NONE;
fail:
    for (int i = 0; i < got; i++) PyBuffer_Release(&bufs[i]);
    return NULL;
}

static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static void clear_logs(Vec* v) {
    for (int i = 0; i < v->num_envs; i++)
        memset((char*)env_at(v, i) + v->def->log_offset, 0, sizeof(float) * (size_t)v->def->log_count);
}

/* reset(seed): seed every copy from (seed, copy index) unless seed is None, clear the stats,
 * reset every copy. */
static PyObject* Vec_reset(Vec* v, PyObject* arg) {
    if (check_ready(v, 1) < 0) return NULL;
    if (arg != Py_None) {
        uint64_t seed = PyLong_AsUnsignedLongLongMask(arg);
        if (seed == (uint64_t)-1 && PyErr_Occurred()) return NULL;
        uint64_t base = mix64(seed);
        for (int i = 0; i < v->num_envs; i++) slots_at(v, i)->rng = mix64(base ^ mix64((uint64_t)i));
    }
    clear_logs(v);
    long rows = (long)v->num_envs * v->sp.num_agents;
    v->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    memset(v->bufs[B_REW].buf, 0, sizeof(float) * (size_t)rows);
    memset(v->bufs[B_TERM].buf, 0, (size_t)rows);
    memset(v->bufs[B_TRUNC].buf, 0, (size_t)rows);
    for (int i = 0; i < v->num_envs; i++) v->def->reset(env_at(v, i));
    Py_END_ALLOW_THREADS
    v->busy = 0;
    v->tick = 0;
    v->was_reset = 1;
    Py_RETURN_NONE;
}

/* The mean of every stat over the episodes finished since the last call, then cleared; None if none. */
static PyObject* Vec_log(Vec* v, PyObject* unused) {
    if (check_ready(v, 0) < 0) return NULL;
    int count = v->def->log_count;
    double sums[64] = {0};
    for (int i = 0; i < v->num_envs; i++) {
        const float* log = (const float*)((char*)env_at(v, i) + v->def->log_offset);
        for (int k = 0; k < count && k < 64; k++) sums[k] += log[k];
    }
    double n = sums[count - 1];
    if (n <= 0) Py_RETURN_NONE;
    clear_logs(v);
    PyObject* out = PyDict_New();
    for (int k = 0; out && k < count - 1; k++) {
        PyObject* x = PyFloat_FromDouble(sums[k] / n);
        if (!x || PyDict_SetItemString(out, v->def->log_names[k], x) < 0) Py_CLEAR(out);
        Py_XDECREF(x);
    }
    PyObject* nn = out ? PyLong_FromLong((long)n) : NULL;
    if (out && (!nn || PyDict_SetItemString(out, "n", nn) < 0)) Py_CLEAR(out);
    Py_XDECREF(nn);
    return out;
}

/* step(actions): take the actions (the bound array, or an array of the same dtype and shape,
 * which is copied in), check them, step every copy. Returns the stats dict every log_interval
 * steps, else None; False (without stepping) when `actions` needs converting first. */
static PyObject* Vec_step(Vec* v, PyObject* actions) {
    if (check_ready(v, 1) < 0) return NULL;
    if (!v->was_reset) {
        PyErr_SetString(PyExc_ValueError, "reset() the env before step().");
        return NULL;
    }
    if (actions != v->bound_actions) {
        int copied = copy_actions(&v->sp, &v->bufs[B_ACT], actions);
        if (copied < 0) return NULL;
        if (!copied) Py_RETURN_FALSE;
    }
    if (check_actions(&v->sp, v->bufs[B_ACT].buf, v->action_values) < 0) return NULL;
    v->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    if (v->pool) ocean_pool_run(v->pool);
    else v->def->step_range(v->envs, 0, v->num_envs);
    Py_END_ALLOW_THREADS
    v->busy = 0;
    if (++v->tick % v->log_interval) Py_RETURN_NONE;
    return Vec_log(v, NULL);
}

static int parse_index(Vec* v, int i) {
    if (check_ready(v, 0) < 0) return -1;
    if (i < 0 || i >= v->num_envs) {
        PyErr_Format(PyExc_ValueError, "env index %d out of range [0, %d).", i, v->num_envs);
        return -1;
    }
    return 0;
}

static PyObject* Vec_render_ansi(Vec* v, PyObject* args) {
    int i = 0;
    if (!PyArg_ParseTuple(args, "|i", &i) || parse_index(v, i) < 0) return NULL;
    if (!v->was_reset) {
        PyErr_SetString(PyExc_ValueError, "reset() the env before render().");
        return NULL;
    }
    /* Renderers return the full length of their text, like snprintf: when it does not fit,
     * render again into a buffer of that size, so a large arena is never cut short. */
    int cap = 1 << 16, len = 0;
    char* buf = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        buf = (char*)calloc((size_t)cap, 1);
        if (!buf) return PyErr_NoMemory();
        len = v->def->render_ansi(env_at(v, i), buf, cap);
        if (len < cap || attempt == 1) break;
        free(buf);
        if (len > (1 << 30)) {
            PyErr_Format(PyExc_ValueError, "the text render of %s needs %d bytes, more than 1 GiB.",
                         v->def->name, len);
            return NULL;
        }
        cap = len + 1;
    }
    if (len > cap - 1) {  /* a renderer whose text grew between the two calls */
        free(buf);
        PyErr_Format(PyExc_ValueError, "the text render of %s did not fit its buffer of %d bytes.",
                     v->def->name, cap);
        return NULL;
    }
    PyObject* out = PyUnicode_DecodeUTF8(buf, len < 0 ? 0 : len, "replace");
    free(buf);
    return out;
}

static PyObject* Vec_render_rgb(Vec* v, PyObject* args) {
    int i = 0;
    if (!PyArg_ParseTuple(args, "|i", &i) || parse_index(v, i) < 0) return NULL;
    if (!v->was_reset) {
        PyErr_SetString(PyExc_ValueError, "reset() the env before render().");
        return NULL;
    }
    int w = v->sp.render_width, h = v->sp.render_height;
    PyObject* out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)w * h * 3);
    if (!out) return NULL;
    memset(PyByteArray_AS_STRING(out), 0, (size_t)w * h * 3);
    v->def->render_rgb(env_at(v, i), (uint8_t*)PyByteArray_AS_STRING(out), w, h);
    return out;
}

static const OceanField* lookup_field(Vec* v, const char* name) {
    const OceanField* f = find_field(v->def->fields, v->def->num_fields, name);
    if (!f) f = find_field(v->def->params, v->def->num_params, name);
    if (!f) PyErr_Format(PyExc_ValueError, "ocean-%s has no field %s.", v->def->name, name);
    return f;
}

/* get_field(i, name): a state field or param of copy i (tests and debugging). */
static PyObject* Vec_get_field(Vec* v, PyObject* args) {
    int i;
    const char* name;
    if (!PyArg_ParseTuple(args, "is", &i, &name) || parse_index(v, i) < 0) return NULL;
    const OceanField* f = lookup_field(v, name);
    if (!f) return NULL;
    double x = read_field(env_at(v, i), f);
    return f->type == OCEAN_INT ? PyLong_FromLong((long)x) : PyFloat_FromDouble(x);
}

/* set_field(i, name, value): overwrite a state field of copy i (tests and debugging). */
static PyObject* Vec_set_field(Vec* v, PyObject* args) {
    int i;
    const char* name;
    PyObject* value;
    if (!PyArg_ParseTuple(args, "isO", &i, &name, &value) || parse_index(v, i) < 0) return NULL;
    const OceanField* f = find_field(v->def->fields, v->def->num_fields, name);
    if (!f) return PyErr_Format(PyExc_ValueError, "ocean-%s has no settable field %s.", v->def->name, name);
    double x;
    if (convert_field(f, value, &x, v->def->name) < 0) return NULL;
    write_field(env_at(v, i), f, x);
    Py_RETURN_NONE;
}

static PyObject* Vec_close(Vec* v, PyObject* unused) {
    if (v->busy) {
        PyErr_SetString(PyExc_ValueError, "This ocean env is being stepped by another thread.");
        return NULL;
    }
    release_buffers(v);
    vec_free_envs(v);
    Py_RETURN_NONE;
}

static PyObject* Vec_get_num_envs(Vec* v, void* unused) { return PyLong_FromLong(v->num_envs); }
static PyObject* Vec_get_num_threads(Vec* v, void* unused) {
    return PyLong_FromLong(v->pool ? v->pool->num_threads : 1);
}

static PyMethodDef Vec_methods[] = {
    {"spaces", (PyCFunction)Vec_spaces, METH_NOARGS, "The spaces of one copy, as a dict."},
    {"bind", (PyCFunction)Vec_bind, METH_VARARGS,
     "bind(observations, actions, rewards, terminals, truncations, final_observations, outcomes, masks)"},
    {"reset", (PyCFunction)Vec_reset, METH_O, "reset(seed): seed and reset every copy."},
    {"step", (PyCFunction)Vec_step, METH_O, "step(actions) -> stats dict, None, or False (convert actions)."},
    {"log", (PyCFunction)Vec_log, METH_NOARGS, "log() -> mean stats of finished episodes (then cleared) or None."},
    {"render_ansi", (PyCFunction)Vec_render_ansi, METH_VARARGS, "render_ansi(i=0) -> str"},
    {"render_rgb", (PyCFunction)Vec_render_rgb, METH_VARARGS, "render_rgb(i=0) -> bytearray (h, w, 3)"},
    {"get_field", (PyCFunction)Vec_get_field, METH_VARARGS, "get_field(i, name) -> number"},
    {"set_field", (PyCFunction)Vec_set_field, METH_VARARGS, "set_field(i, name, value)"},
    {"close", (PyCFunction)Vec_close, METH_NOARGS, "Free every copy; safe to call twice."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Vec_getset[] = {
    {"num_envs", (getter)Vec_get_num_envs, NULL, "copies held", NULL},
    {"num_threads", (getter)Vec_get_num_threads, NULL, "threads stepping the copies", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject VecType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "puffer_ocean._ocean.Vec",
    .tp_basicsize = sizeof(Vec),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Vec(name, num_envs, kwargs=None, num_threads=1, log_interval=128): copies of one C env.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Vec_init,
    .tp_dealloc = (destructor)Vec_dealloc,
    .tp_methods = Vec_methods,
    .tp_getset = Vec_getset,
};

static PyObject* ocean_env_names(PyObject* self, PyObject* unused) {
    PyObject* out = PyList_New(0);
    for (int i = 0; out && OCEAN_DEFS[i]; i++) {
        PyObject* s = PyUnicode_FromString(OCEAN_DEFS[i]->name);
        if (!s || PyList_Append(out, s) < 0) Py_CLEAR(out);
        Py_XDECREF(s);
    }
    return out;
}

/* params(name) -> [(name, 'int'|'float', default, low, high)] */
static PyObject* ocean_params(PyObject* self, PyObject* arg) {
    const char* name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    const OceanEnvDef* def = find_def(name);
    if (!def) return PyErr_Format(PyExc_ValueError, "No ocean environment %s.", name);
    PyObject* out = PyList_New(def->num_params);
    for (int i = 0; out && i < def->num_params; i++) {
        const OceanField* f = &def->params[i];
        PyList_SET_ITEM(out, i, Py_BuildValue("(ssddd)", f->name, f->type == OCEAN_INT ? "int" : "float", f->def,
                                              f->lo, f->hi));
    }
    return out;
}

static PyMethodDef module_methods[] = {
    {"env_names", ocean_env_names, METH_NOARGS, "Names of the compiled environments."},
    {"params", ocean_params, METH_O, "Constructor arguments of one environment."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ocean_module = {PyModuleDef_HEAD_INIT, "_ocean", "Native Ocean environments.", -1,
                                          module_methods};

PyMODINIT_FUNC PyInit__ocean(void) {
    if (PyType_Ready(&VecType) < 0) return NULL;
    pthread_atfork(NULL, NULL, ocean_after_fork_child);
    PyObject* m = PyModule_Create(&ocean_module);
    if (!m) return NULL;
    Py_INCREF(&VecType);
    if (PyModule_AddObject(m, "Vec", (PyObject*)&VecType) < 0) {
        Py_DECREF(&VecType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
