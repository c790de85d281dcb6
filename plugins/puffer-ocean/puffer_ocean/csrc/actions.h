/* actions.h: taking a step's actions from Python, checked before any copy steps. */
#ifndef OCEAN_ACTIONS_H
#define OCEAN_ACTIONS_H

#include <Python.h>
#include <math.h>
#include <string.h>

#include "ocean.h"

/* Copy `actions` into the bound actions buffer `dst` when it is already a C-contiguous array of the
 * right dtype and shape; 0 when it is not (the caller converts it), -1 on error. */
static int copy_actions(const OceanSpaces* s, Py_buffer* dst, PyObject* actions) {
    if (actions == Py_None || !PyObject_CheckBuffer(actions)) return 0;
    Py_buffer b;
    if (PyObject_GetBuffer(actions, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char* fmt = b.format ? b.format : "B";
    if (fmt[0] == '=' || fmt[0] == '<' || fmt[0] == '@') fmt++;
    char want = s->act_kind == 'B' ? 'f' : 'i';
    int ok = fmt[0] == want && fmt[1] == 0 && b.itemsize == 4 && b.len == dst->len && b.ndim == dst->ndim;
    for (int d = 0; ok && d < b.ndim; d++) ok = b.shape[d] == dst->shape[d];
    if (ok && b.buf != dst->buf) memcpy(dst->buf, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return ok;
}

/* Check the n action values at `actions`; -1 with ValueError naming the first bad one. */
static int check_actions(const OceanSpaces* s, const void* actions, long n) {
    int dims = s->act_dims;
    if (s->act_kind == 'B') {
        const float* a = (const float*)actions;
        for (long i = 0; i < n; i++)
            if (!isfinite(a[i])) {
                PyErr_Format(PyExc_ValueError, "action of agent %ld (dimension %d) is not finite.", i / dims,
                             (int)(i % dims));
                return -1;
            }
        return 0;
    }
    const int32_t* a = (const int32_t*)actions;
    int bad = 0;
    if (dims == 1) {
        uint32_t hi = (uint32_t)s->act_n[0];
        for (long i = 0; i < n; i++) bad |= (uint32_t)a[i] >= hi;
    } else {
        for (long i = 0; i < n; i += dims)
            for (int d = 0; d < dims; d++) bad |= (uint32_t)a[i + d] >= (uint32_t)s->act_n[d];
    }
    if (!bad) return 0;
    for (long i = 0; i < n; i++) {
        int d = (int)(i % dims);
        if ((uint32_t)a[i] >= (uint32_t)s->act_n[d]) {
            PyErr_Format(PyExc_ValueError, "action %d of agent %ld (dimension %d) is out of range [0, %d).",
                         a[i], i / dims, d, s->act_n[d]);
            return -1;
        }
    }
    return 0;
}

#endif
