/* The trainer's inner loops in C: the rollout's per-step copies (pufferlib.train.rollout) and the
 * advantage recursion (pufferlib.train.ppo.compute_advantages). Arrays are read through the buffer
 * protocol (no numpy headers).
 *
 * copy_rows(destinations, sources) copies each source into the destination at the same
 * position and returns the number of nonzero bytes of the last source (the truncation flags,
 * for the rollout: a truncation is rare, and counting it here spares a numpy call per step;
 * 0 when that source is skipped). A destination of None skips its source. A source is
 * C-contiguous; its destination has the same shape, format and item size, and contiguous
 * rows (it may be strided in its first dimension only: a column of the (rows, horizon, ...)
 * storage). Both tuples have one length.
 *
 * gae(rewards, values, terminals, truncations, bootstrap, final_values, ratio, acting, gamma,
 *     gae_lambda, rho_clip, c_clip, out) writes generalised advantage estimates of (rows, T)
 * rollouts into `out`, as pufferlib.train.ppo.compute_advantages documents them; per row r,
 * from t = T-1 down to 0 (A[T] = 0), when every step acts:
 *
 *   next    = values[t + 1], or bootstrap[r] after the last step; for a truncated step
 *             final_values[t] (values[t] where that is NaN or final_values is None)
 *   delta   = rewards[t] + gamma * next * (1 - terminal[t]) - values[t]
 *   chain   = gamma * gae_lambda * (1 - min(terminal[t] + truncated[t], 1))
 *   with ratio: delta *= min(ratio[t], rho_clip), chain *= min(ratio[t], c_clip)
 *   A[t]    = delta + chain * A[t + 1]
 *
 * With `acting` (0 where the row did not act: masked), a step that did not act is passed
 * through: A = 0 there, and its reward and its end (terminal, or truncation with its final
 * value) belong to the transition of the row's previous acting step, whose next step is the
 * row's next acting step (a turn-based game: my move, the other's reply, my next move). A step
 * that ends its episode itself keeps what follows out of its transition.
 *
 * Every array is C-contiguous, (rows, T) float32 but `bootstrap` (rows,); `terminals`,
 * `truncations` and `acting` may be bool instead; `final_values`, `ratio` and `acting` may be
 * None; `out` is writable. The recursion walks each row backwards in memory order; in Python it costs two
 * numpy calls per time step, and the arrays around it a dozen numpy calls per batch.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* A buffer's struct format without its native byte-order prefix ("B" when it gives none). */
static const char *format_of(const Py_buffer *view) {
    const char *f = view->format == NULL ? "B" : view->format;
    return (*f == '@' || *f == '=') ? f + 1 : f;
}

/* A C-contiguous view of `obj` with `ndim` dims, (rows, steps) or (rows,) (any shape when rows
 * is -1), of float32 (or bool when `may_be_bool`) in `view`; 0, or -1 with an exception set. */
static int gae_input(PyObject *obj, Py_buffer *view, const char *name, int ndim, Py_ssize_t rows,
                     Py_ssize_t steps, int may_be_bool, int writable) {
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "gae: %s must be a C-contiguous%s array", name, writable ? ", writable" : "");
        return -1;
    }
    const char *f = format_of(view);
    int is_float = f[0] == 'f' && f[1] == '\0' && view->itemsize == 4;
    int is_bool = may_be_bool && f[0] == '?' && f[1] == '\0' && view->itemsize == 1;
    if (!is_float && !is_bool) {
        PyErr_Format(PyExc_TypeError, "gae: %s must be float32%s (format %s given)", name,
                     may_be_bool ? " or bool" : "", f);
    } else if (view->ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "gae: %s must have %d dimensions, %s (%d given)", name, ndim,
                     ndim == 2 ? "(rows, T)" : "(rows,)", view->ndim);
    } else if (rows >= 0 && (view->shape[0] != rows || (ndim == 2 && view->shape[1] != steps))) {
        PyErr_Format(PyExc_ValueError, "gae: %s has %zd rows%s; rewards has (%zd, %zd)", name, view->shape[0],
                     ndim == 2 ? " and its own T" : "", rows, steps);
    } else {
        return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

/* Entry i of a float32 or bool array. */
static inline float entry(const Py_buffer *view, Py_ssize_t i) {
    return view->itemsize == 1 ? (float)(((const unsigned char *)view->buf)[i] != 0) : ((const float *)view->buf)[i];
}

/* Copy `src` (C-contiguous) into `dst` (contiguous rows); 0, or -1 with an exception set. */
static int copy_one(PyObject *dst_obj, PyObject *src_obj, Py_ssize_t position, Py_ssize_t *nonzero) {
    Py_buffer dst, src;
    if (PyObject_GetBuffer(src_obj, &src, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "copy_rows: source %zd must be a C-contiguous array", position);
        return -1;
    }
    if (PyObject_GetBuffer(dst_obj, &dst, PyBUF_FORMAT | PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "copy_rows: destination %zd must be a writable array", position);
        PyBuffer_Release(&src);
        return -1;
    }
    int ok = src.ndim >= 1 && src.ndim == dst.ndim && src.itemsize == dst.itemsize &&
             strcmp(format_of(&src), format_of(&dst)) == 0;
    for (int k = 0; ok && k < src.ndim; k++)
        ok = src.shape[k] == dst.shape[k];
    Py_ssize_t row_bytes = src.itemsize;
    for (int k = src.ndim - 1; ok && k >= 1; k--) { /* the rows of dst are contiguous */
        ok = dst.strides[k] == row_bytes;
        row_bytes *= dst.shape[k];
    }
    if (!ok) {
        PyErr_Format(PyExc_ValueError,
                     "copy_rows: source %zd (format %s, %d dims) does not fit its destination (format %s, %d dims, "
                     "same shape, contiguous rows)", position, format_of(&src), src.ndim, format_of(&dst), dst.ndim);
        PyBuffer_Release(&src);
        PyBuffer_Release(&dst);
        return -1;
    }
    const char *from = src.buf;
    char *to = dst.buf;
    for (Py_ssize_t r = 0; r < src.shape[0]; r++)
        memcpy(to + r * dst.strides[0], from + r * row_bytes, (size_t)row_bytes);
    if (nonzero != NULL) {
        Py_ssize_t count = 0;
        for (Py_ssize_t i = 0; i < src.len; i++)
            count += from[i] != 0;
        *nonzero = count;
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return 0;
}

static PyObject *copy_rows(PyObject *module, PyObject *args) {
    PyObject *dsts, *srcs;
    if (!PyArg_ParseTuple(args, "O!O!:copy_rows", &PyTuple_Type, &dsts, &PyTuple_Type, &srcs))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(srcs);
    if (PyTuple_GET_SIZE(dsts) != n) {
        PyErr_Format(PyExc_ValueError, "copy_rows: %zd destinations for %zd sources", PyTuple_GET_SIZE(dsts), n);
        return NULL;
    }
    Py_ssize_t nonzero = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *dst = PyTuple_GET_ITEM(dsts, i);
        if (dst == Py_None)
            continue;
        if (copy_one(dst, PyTuple_GET_ITEM(srcs, i), i, i == n - 1 ? &nonzero : NULL) < 0)
            return NULL;
    }
    return PyLong_FromSsize_t(nonzero);
}

static PyObject *gae(PyObject *module, PyObject *args) {
    /* rewards, values, terminals, truncations, bootstrap, final_values, ratio, acting, out */
    PyObject *objs[9];
    double gamma, lam, rho_clip, c_clip;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddddO:gae", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5],
                          &objs[6], &objs[7], &gamma, &lam, &rho_clip, &c_clip, &objs[8]))
        return NULL;
    static const char *names[9] = {"rewards", "values", "terminals", "truncations", "bootstrap", "final_values",
                                   "ratio", "acting", "out"};
    Py_buffer views[9];
    int held[9] = {0};
    PyObject *result = NULL;
    Py_ssize_t rows = -1, steps = -1; /* any shape for rewards; every other array follows it */
    for (int k = 0; k < 9; k++) {
        if ((k == 5 || k == 6 || k == 7) && objs[k] == Py_None)
            continue;
        if (gae_input(objs[k], &views[k], names[k], k == 4 ? 1 : 2, rows, steps, k == 2 || k == 3 || k == 7,
                      k == 8) < 0)
            goto done;
        held[k] = 1;
        if (k == 0) {
            rows = views[0].shape[0];
            steps = views[0].shape[1];
        }
    }
    {
        const float *r = views[0].buf, *v = views[1].buf, *boot = views[4].buf;
        const float *final = held[5] ? views[5].buf : NULL, *ratio = held[6] ? views[6].buf : NULL;
        const Py_buffer *acting = held[7] ? &views[7] : NULL;
        float *out = views[8].buf;
        const float g = (float)gamma, chain_full = (float)(gamma * lam);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t row = 0; row < rows; row++) {
            /* What the transition of the next acting step back in time continues into: the value of
             * its next state, A there, and the rewards and end of the passed-through steps between. */
            float last = 0.0f, next = boot[row], carried = 0.0f, carried_term = 0.0f, carried_done = 0.0f;
            for (Py_ssize_t t = steps - 1; t >= 0; t--) {
                Py_ssize_t i = row * steps + t;
                float term = entry(&views[2], i), trunc = entry(&views[3], i);
                float ended = term + trunc < 1.0f ? term + trunc : 1.0f;
                /* x == x: not NaN */
                float end_value = trunc > 0.0f ? ((final != NULL && final[i] == final[i]) ? final[i] : v[i]) : 0.0f;
                if (acting != NULL && entry(acting, i) == 0.0f) { /* passed through */
                    out[i] = 0.0f;
                    if (ended > 0.0f) { /* its episode ends here: what follows is another's */
                        carried = r[i], carried_term = term, carried_done = 1.0f, next = end_value, last = 0.0f;
                    } else {
                        carried += r[i];
                    }
                    continue;
                }
                float reward = r[i], done = carried_done, terminal = carried_term, after = next;
                if (ended > 0.0f) /* the step ends its episode itself */
                    done = ended, terminal = term, after = end_value;
                else
                    reward += carried;
                float delta = reward + g * after * (1.0f - terminal) - v[i];
                float chain = chain_full * (1.0f - done);
                if (ratio != NULL) {
                    delta *= ratio[i] < rho_clip ? ratio[i] : (float)rho_clip;
                    chain *= ratio[i] < c_clip ? ratio[i] : (float)c_clip;
                }
                last = delta + chain * last;
                out[i] = last;
                next = v[i], carried = 0.0f, carried_term = 0.0f, carried_done = 0.0f;
            }
        }
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_None);
done:
    for (int k = 0; k < 9; k++)
        if (held[k])
            PyBuffer_Release(&views[k]);
    return result;
}

static PyMethodDef module_methods[] = {
    {"copy_rows", copy_rows, METH_VARARGS,
     "copy_rows(destinations, sources): copy each source array into its destination (None: skip); return the "
     "number of nonzero bytes of the last source (0 when it is skipped)."},
    {"gae", gae, METH_VARARGS,
     "gae(rewards, values, terminals, truncations, bootstrap, final_values, ratio, acting, gamma, gae_lambda, "
     "rho_clip, c_clip, out): generalised advantage estimates of (rows, T) float32 arrays into out (see _kernels.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "pufferlib.train._kernels",
    "The trainer's inner loops in C (see _kernels.c).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
