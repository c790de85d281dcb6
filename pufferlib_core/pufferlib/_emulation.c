/* The per-step work of emulation in C: `GymStep`, the step of one emulated single-agent
 * env (pufferlib.emulation.GymnasiumPufferEnv), and `step_group`, a loop that steps a
 * group of envs and gathers their infos (pufferlib.vector's serial groups and workers).
 *
 * GymStep(env_step, env_reset, action_of, check, write, write_final, arrays, max_steps)
 * holds the env's callables and its one-row batch arrays `arrays` = (observations,
 * rewards, terminals, truncations, final_observations). Called with the env's actions
 * array it does what the Python step did, in the same order:
 *
 *   obs, reward, terminal, truncated, info = env_step(action_of(actions))
 *   episode_return += float(reward); episode_length += 1
 *   truncated = True when episode_length == max_steps (max_steps < 0: no limit)
 *   rewards[0], terminals[0], truncations[0] = reward, terminal, truncated
 *   on terminal or truncated: info = dict(info) if info else {}, plus episode_return and
 *     episode_length; write_final(obs); obs, _ = env_reset(); zero the counters
 *   write(obs); return (observations, rewards, terminals, truncations, [info] or [])
 *
 * `write(obs)` is the general writer (numpy's casting rules, structured layouts). An
 * observation that is an ndarray of the row's exact format and shape is copied with
 * memcpy instead when the GymStep was made with `copy_rows` true, which is the same
 * result without the call. The first `checks` observations written (by step or by
 * `write`) go through `check(obs)` first, which raises for one that does not fit the
 * space. The arrays are kept alive by the GymStep; their memory must not move (numpy
 * arrays do not).
 *
 * step_group(pairs, infos) calls `step(actions)` for each (step, actions) pair and adds
 * each result's infos (item 4) to the list `infos`; a GymStep is stepped without a
 * Python call or a result tuple.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <structmember.h>

#define MAX_DIMS 64 /* numpy's NPY_MAXDIMS */

typedef struct {
    char *ptr;
    Py_ssize_t len, itemsize;
    int ndim;
    Py_ssize_t shape[MAX_DIMS];
    char format[32];
} Row;

typedef struct {
    PyObject_HEAD
    PyObject *env_step, *env_reset, *action_of, *check, *write, *write_final;
    PyObject *arrays;  /* (observations, rewards, terminals, truncations, final_observations) */
    PyObject *result;  /* (observations, rewards, terminals, truncations) */
    PyObject *ndarray; /* numpy.ndarray: only exact arrays are copied with memcpy */
    Row obs, final;
    int copy_rows;
    float *reward;
    char *terminal, *truncation;
    long long checks, episode_length, max_steps;
    double episode_return;
} GymStep;

static PyObject *EPISODE_RETURN, *EPISODE_LENGTH;
static PyTypeObject GymStepType;

/* The first row of a C-contiguous writable array `array` of item format `format`
 * (NULL: any) and item size `itemsize` (0: any). */
static int row_of(PyObject *array, Row *row, const char *format, Py_ssize_t itemsize) {
    Py_buffer view;
    if (PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    int ok = view.ndim >= 1 && view.ndim <= MAX_DIMS && view.shape[0] >= 1 && view.format != NULL &&
             strlen(view.format) < sizeof(row->format) && (format == NULL || strcmp(view.format, format) == 0) &&
             (itemsize == 0 || view.itemsize == itemsize);
    if (ok) {
        row->ptr = view.buf;
        row->len = view.len / view.shape[0];
        row->itemsize = view.itemsize;
        row->ndim = view.ndim - 1;
        for (int d = 1; d < view.ndim; d++)
            row->shape[d - 1] = view.shape[d];
        strcpy(row->format, view.format);
    }
    PyBuffer_Release(&view);
    if (!ok)
        PyErr_SetString(PyExc_TypeError, "GymStep: an array of the wrong format");
    return ok ? 0 : -1;
}

/* memcpy `obs` into `row` when it is an ndarray of the row's exact format and shape; 1 when copied. */
static int copy_row(GymStep *s, Row *row, PyObject *obs) {
    if ((PyObject *)Py_TYPE(obs) != s->ndarray)
        return 0;
    Py_buffer view;
    if (PyObject_GetBuffer(obs, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear(); /* not contiguous: the general writer copies it */
        return 0;
    }
    int same = view.len == row->len && view.itemsize == row->itemsize && view.ndim == row->ndim &&
               view.format != NULL && strcmp(view.format, row->format) == 0;
    for (int d = 0; same && d < row->ndim; d++)
        same = view.shape[d] == row->shape[d];
    if (same)
        memcpy(row->ptr, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return same;
}

static int call_one(PyObject *fn, PyObject *arg) {
    PyObject *r = PyObject_CallOneArg(fn, arg);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static int write_obs(GymStep *s, PyObject *obs) {
    if (s->checks > 0) {
        if (call_one(s->check, obs) < 0)
            return -1;
        s->checks--;
    }
    if (s->copy_rows && copy_row(s, &s->obs, obs))
        return 0;
    return call_one(s->write, obs);
}

/* `seq` as a new tuple of exactly `n` items, with the errors of Python's unpacking. */
static PyObject *unpack(PyObject *seq, Py_ssize_t n) {
    PyObject *t;
    if (PyTuple_CheckExact(seq)) {
        Py_INCREF(seq);
        t = seq;
    } else if ((t = PySequence_Tuple(seq)) == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object", Py_TYPE(seq)->tp_name);
        }
        return NULL;
    }
    if (PyTuple_GET_SIZE(t) != n) {
        if (PyTuple_GET_SIZE(t) < n)
            PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %zd, got %zd)", n,
                         PyTuple_GET_SIZE(t));
        else
            PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %zd)", n);
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

/* The end of an episode: the info to report, the final observation, the reset. */
static PyObject *end_episode(GymStep *s, PyObject *obs, PyObject *info) {
    int truthy = PyObject_IsTrue(info);
    if (truthy < 0)
        return NULL;
    PyObject *d;
    if (!truthy)
        d = PyDict_New();
    else if (PyDict_CheckExact(info))
        d = PyDict_Copy(info);
    else
        d = PyObject_CallOneArg((PyObject *)&PyDict_Type, info);
    if (d == NULL)
        return NULL;
    PyObject *ret = PyFloat_FromDouble(s->episode_return);
    PyObject *len = PyLong_FromLongLong(s->episode_length);
    if (ret == NULL || len == NULL || PyDict_SetItem(d, EPISODE_RETURN, ret) < 0 ||
        PyDict_SetItem(d, EPISODE_LENGTH, len) < 0)
        goto fail;
    Py_CLEAR(ret);
    Py_CLEAR(len);
    if (!(s->copy_rows && copy_row(s, &s->final, obs)) && call_one(s->write_final, obs) < 0)
        goto fail;
    PyObject *reset = PyObject_CallNoArgs(s->env_reset);
    if (reset == NULL)
        goto fail;
    PyObject *pair = unpack(reset, 2);
    Py_DECREF(reset);
    if (pair == NULL)
        goto fail;
    s->episode_return = 0.0;
    s->episode_length = 0;
    int rc = write_obs(s, PyTuple_GET_ITEM(pair, 0));
    Py_DECREF(pair);
    if (rc < 0)
        goto fail;
    return d;
fail:
    Py_XDECREF(ret);
    Py_XDECREF(len);
    Py_DECREF(d);
    return NULL;
}

/* One step; an ended episode's info is appended to `infos`. */
static int step_one(GymStep *s, PyObject *actions, PyObject *infos) {
    PyObject *action = PyObject_CallOneArg(s->action_of, actions);
    if (action == NULL)
        return -1;
    PyObject *out = PyObject_CallOneArg(s->env_step, action);
    Py_DECREF(action);
    if (out == NULL)
        return -1;
    PyObject *t = unpack(out, 5);
    Py_DECREF(out);
    if (t == NULL)
        return -1;
    PyObject *obs = PyTuple_GET_ITEM(t, 0), *info = PyTuple_GET_ITEM(t, 4);
    int rc = -1, terminal, truncated;
    double reward = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 1));
    if (reward == -1.0 && PyErr_Occurred())
        goto done;
    s->episode_return += reward;
    s->episode_length += 1;
    if ((terminal = PyObject_IsTrue(PyTuple_GET_ITEM(t, 2))) < 0)
        goto done;
    if (s->episode_length == s->max_steps)
        truncated = 1;
    else if ((truncated = PyObject_IsTrue(PyTuple_GET_ITEM(t, 3))) < 0)
        goto done;
    *s->reward = (float)reward;
    *s->terminal = (char)terminal;
    *s->truncation = (char)truncated;
    if (terminal || truncated) {
        PyObject *d = end_episode(s, obs, info);
        if (d == NULL)
            goto done;
        rc = PyList_Append(infos, d);
        Py_DECREF(d);
    } else {
        rc = write_obs(s, obs);
    }
done:
    Py_DECREF(t);
    return rc;
}

static int GymStep_init(GymStep *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"env_step", "env_reset", "action_of", "check", "write", "write_final",
                             "arrays", "max_steps", "checks", "copy_rows", "ndarray", NULL};
    PyObject *env_step, *env_reset, *action_of, *check, *write, *write_final, *arrays, *max_steps, *ndarray;
    long long checks;
    int copy_rows;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOO!OLpO:GymStep", kwlist, &env_step, &env_reset,
                                     &action_of, &check, &write, &write_final, &PyTuple_Type, &arrays,
                                     &max_steps, &checks, &copy_rows, &ndarray))
        return -1;
    if (PyTuple_GET_SIZE(arrays) != 5) {
        PyErr_SetString(PyExc_ValueError, "GymStep: arrays is (observations, rewards, terminals, "
                                          "truncations, final_observations)");
        return -1;
    }
    long long limit = -1;
    if (max_steps != Py_None && (limit = PyLong_AsLongLong(max_steps)) == -1 && PyErr_Occurred())
        return -1;
    Row rewards, terminals, truncations;
    if (row_of(PyTuple_GET_ITEM(arrays, 0), &s->obs, NULL, 0) < 0 ||
        row_of(PyTuple_GET_ITEM(arrays, 1), &rewards, "f", 4) < 0 ||
        row_of(PyTuple_GET_ITEM(arrays, 2), &terminals, "?", 1) < 0 ||
        row_of(PyTuple_GET_ITEM(arrays, 3), &truncations, "?", 1) < 0 ||
        row_of(PyTuple_GET_ITEM(arrays, 4), &s->final, NULL, 0) < 0)
        return -1;
    PyObject *result = PyTuple_GetSlice(arrays, 0, 4);
    if (result == NULL)
        return -1;
    s->reward = (float *)rewards.ptr;
    s->terminal = terminals.ptr;
    s->truncation = truncations.ptr;
    s->max_steps = limit;
    s->checks = checks;
    s->copy_rows = copy_rows;
    PyObject *keep[] = {env_step, env_reset, action_of, check, write, write_final, arrays, ndarray};
    PyObject **slots[] = {&s->env_step, &s->env_reset, &s->action_of, &s->check, &s->write, &s->write_final,
                          &s->arrays, &s->ndarray};
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
        Py_INCREF(keep[i]);
        Py_XSETREF(*slots[i], keep[i]);
    }
    Py_XSETREF(s->result, result);
    return 0;
}

static int GymStep_traverse(GymStep *s, visitproc visit, void *arg) {
    Py_VISIT(s->env_step);
    Py_VISIT(s->env_reset);
    Py_VISIT(s->action_of);
    Py_VISIT(s->check);
    Py_VISIT(s->write);
    Py_VISIT(s->write_final);
    Py_VISIT(s->arrays);
    Py_VISIT(s->result);
    Py_VISIT(s->ndarray);
    return 0;
}

static int GymStep_clear(GymStep *s) {
    Py_CLEAR(s->env_step);
    Py_CLEAR(s->env_reset);
    Py_CLEAR(s->action_of);
    Py_CLEAR(s->check);
    Py_CLEAR(s->write);
    Py_CLEAR(s->write_final);
    Py_CLEAR(s->arrays);
    Py_CLEAR(s->result);
    Py_CLEAR(s->ndarray);
    return 0;
}

static void GymStep_dealloc(GymStep *s) {
    PyObject_GC_UnTrack(s);
    GymStep_clear(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int ready(GymStep *s) {
    if (s->result == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "GymStep: not initialised");
        return 0;
    }
    return 1;
}

static PyObject *GymStep_call(GymStep *s, PyObject *args, PyObject *kwds) {
    PyObject *actions;
    if (!ready(s))
        return NULL;
    if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "GymStep takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "GymStep", 1, 1, &actions))
        return NULL;
    PyObject *infos = PyList_New(0);
    if (infos == NULL)
        return NULL;
    if (step_one(s, actions, infos) < 0) {
        Py_DECREF(infos);
        return NULL;
    }
    PyObject *out = PyTuple_New(5);
    if (out == NULL) {
        Py_DECREF(infos);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < 4; i++) {
        PyObject *item = PyTuple_GET_ITEM(s->result, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(out, i, item);
    }
    PyTuple_SET_ITEM(out, 4, infos);
    return out;
}

static PyObject *GymStep_write(GymStep *s, PyObject *obs) {
    if (!ready(s) || write_obs(s, obs) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef GymStep_methods[] = {
    {"write", (PyCFunction)GymStep_write, METH_O,
     "write(obs): write an observation into the row (checked while checks are left)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef GymStep_members[] = {
    {"episode_return", T_DOUBLE, offsetof(GymStep, episode_return), 0, "sum of this episode's rewards"},
    {"episode_length", T_LONGLONG, offsetof(GymStep, episode_length), 0, "steps in this episode"},
    {"checks", T_LONGLONG, offsetof(GymStep, checks), 0, "observations left to check"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject GymStepType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pufferlib._emulation.GymStep",
    .tp_basicsize = sizeof(GymStep),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "GymStep(env_step, env_reset, action_of, check, write, write_final, arrays, max_steps, checks, "
              "copy_rows, ndarray): the step of one emulated single-agent env; call it with the actions array.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)GymStep_init,
    .tp_dealloc = (destructor)GymStep_dealloc,
    .tp_traverse = (traverseproc)GymStep_traverse,
    .tp_clear = (inquiry)GymStep_clear,
    .tp_call = (ternaryfunc)GymStep_call,
    .tp_methods = GymStep_methods,
    .tp_members = GymStep_members,
};

/* Append the items of `more` (any iterable) to the list `infos`. */
static int extend(PyObject *infos, PyObject *more) {
    if (PyList_CheckExact(more)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(more); i++)
            if (PyList_Append(infos, PyList_GET_ITEM(more, i)) < 0)
                return -1;
        return 0;
    }
    PyObject *it = PyObject_GetIter(more), *item;
    if (it == NULL)
        return -1;
    while ((item = PyIter_Next(it)) != NULL) {
        int rc = PyList_Append(infos, item);
        Py_DECREF(item);
        if (rc < 0)
            break;
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *step_group(PyObject *module, PyObject *args) {
    PyObject *pairs, *infos;
    if (!PyArg_ParseTuple(args, "O!O!:step_group", &PyList_Type, &pairs, &PyList_Type, &infos))
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs); i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "step_group: pairs is a list of (step, actions) tuples");
            return NULL;
        }
        PyObject *step = PyTuple_GET_ITEM(pair, 0), *actions = PyTuple_GET_ITEM(pair, 1);
        if (Py_TYPE(step) == &GymStepType) {
            if (!ready((GymStep *)step) || step_one((GymStep *)step, actions, infos) < 0)
                return NULL;
            continue;
        }
        PyObject *out = PyObject_CallOneArg(step, actions);
        if (out == NULL)
            return NULL;
        PyObject *more = PySequence_GetItem(out, 4);
        Py_DECREF(out);
        if (more == NULL)
            return NULL;
        int truthy = PyObject_IsTrue(more);
        int rc = truthy <= 0 ? truthy : extend(infos, more);
        Py_DECREF(more);
        if (rc < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* in_range(array, high): True when every value of the C-contiguous integer array is in
 * [0, high), False when one is not, None for an array it does not read (another type,
 * not contiguous): the caller then checks it another way. */
static PyObject *in_range(PyObject *module, PyObject *args) {
    PyObject *array;
    long long high;
    if (!PyArg_ParseTuple(args, "OL:in_range", &array, &high))
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(array, &v, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const char *f = v.format == NULL ? "B" : v.format;
    if (*f == '@' || *f == '=')
        f++;
    Py_ssize_t n = v.itemsize > 0 ? v.len / v.itemsize : 0;
    int known = f[0] != '\0' && f[1] == '\0', bad = 0;
    unsigned long long limit = high < 0 ? 0 : (unsigned long long)high;
#define SCAN(T)                                                        \
    for (Py_ssize_t i = 0; i < n && !bad; i++) {                       \
        T x = ((const T *)v.buf)[i];                                   \
        bad = x < 0 || (unsigned long long)x >= limit;                 \
    }
#define SCAN_UNSIGNED(T)                                               \
    for (Py_ssize_t i = 0; i < n && !bad; i++)                         \
        bad = (unsigned long long)((const T *)v.buf)[i] >= limit;
    if (known && f[0] == 'b' && v.itemsize == 1) { SCAN(signed char) }
    else if (known && f[0] == 'B' && v.itemsize == 1) { SCAN_UNSIGNED(unsigned char) }
    else if (known && f[0] == 'h' && v.itemsize == 2) { SCAN(short) }
    else if (known && f[0] == 'H' && v.itemsize == 2) { SCAN_UNSIGNED(unsigned short) }
    else if (known && f[0] == 'i' && v.itemsize == 4) { SCAN(int) }
    else if (known && f[0] == 'I' && v.itemsize == 4) { SCAN_UNSIGNED(unsigned int) }
    else if (known && (f[0] == 'l' || f[0] == 'q') && v.itemsize == 8) { SCAN(long long) }
    else if (known && (f[0] == 'L' || f[0] == 'Q') && v.itemsize == 8) { SCAN_UNSIGNED(unsigned long long) }
    else
        known = 0;
#undef SCAN
#undef SCAN_UNSIGNED
    PyBuffer_Release(&v);
    if (!known)
        Py_RETURN_NONE;
    return PyBool_FromLong(!bad);
}

static PyMethodDef module_methods[] = {
    {"in_range", in_range, METH_VARARGS,
     "in_range(array, high): whether every value of a C-contiguous integer array is in [0, high); "
     "None for an array of another kind."},
    {"step_group", step_group, METH_VARARGS,
     "step_group(pairs, infos): call step(actions) for each (step, actions) pair; add each result's "
     "infos (item 4) to the list infos."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pufferlib._emulation",
    "The per-step work of emulation in C (see _emulation.c).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__emulation(void) {
    if (PyType_Ready(&GymStepType) < 0)
        return NULL;
    EPISODE_RETURN = PyUnicode_InternFromString("episode_return");
    EPISODE_LENGTH = PyUnicode_InternFromString("episode_length");
    if (EPISODE_RETURN == NULL || EPISODE_LENGTH == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&GymStepType);
    if (PyModule_AddObject(m, "GymStep", (PyObject *)&GymStepType) < 0) {
        Py_DECREF(&GymStepType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
