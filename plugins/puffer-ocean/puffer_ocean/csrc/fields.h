/* fields.h: named struct members (constructor arguments and state fields) read and written
 * from Python by module.c, with type and bounds checks. */
#ifndef OCEAN_FIELDS_H
#define OCEAN_FIELDS_H

#include <Python.h>
#include <stdio.h>
#include <string.h>

#include "ocean.h"

static const OceanField* find_field(const OceanField* fields, int n, const char* name) {
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i].name, name) == 0) return &fields[i];
    return NULL;
}

static void write_field(void* env, const OceanField* f, double value) {
    char* at = (char*)env + f->offset;
    if (f->type == OCEAN_INT) *(int*)at = (int)value;
    else if (f->type == OCEAN_FLOAT) *(float*)at = (float)value;
    else *(double*)at = value;
}

static double read_field(void* env, const OceanField* f) {
    char* at = (char*)env + f->offset;
    if (f->type == OCEAN_INT) return *(int*)at;
    if (f->type == OCEAN_FLOAT) return *(float*)at;
    return *(double*)at;
}

/* Convert a Python value for field f; -1 with ValueError when it has the wrong type. */
static int convert_field(const OceanField* f, PyObject* value, double* out, const char* env_name) {
    if (PyBool_Check(value) || !(PyLong_Check(value) || PyFloat_Check(value))) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be a number, got %R.", env_name, f->name, value);
        return -1;
    }
    if (f->type == OCEAN_INT) {
        if (!PyLong_Check(value)) {
            PyErr_Format(PyExc_ValueError, "%s: %s must be an int, got %R.", env_name, f->name, value);
            return -1;
        }
        long long x = PyLong_AsLongLong(value);
        if (x == -1 && PyErr_Occurred()) return -1;
        *out = (double)x;
    } else {
        *out = PyFloat_AsDouble(value);
        if (*out == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* Fill a fresh template copy with the defaults overridden by kwargs, bounds checked. */
static int parse_params(const OceanEnvDef* def, void* env, PyObject* kwargs) {
    for (int i = 0; i < def->num_params; i++) write_field(env, &def->params[i], def->params[i].def);
    if (!kwargs || kwargs == Py_None) return 0;
    if (!PyDict_Check(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "kwargs must be a dict");
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
        const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        const OceanField* f = k ? find_field(def->params, def->num_params, k) : NULL;
        if (!f) {
            PyObject* names = PyList_New(0);
            for (int i = 0; names && i < def->num_params; i++) {
                PyObject* s = PyUnicode_FromString(def->params[i].name);
                if (s) { PyList_Append(names, s); Py_DECREF(s); }
            }
            PyErr_Format(PyExc_ValueError, "ocean-%s got an unknown argument %R; its arguments are %R "
                         "(plus num_envs, num_threads, log_interval, render_mode, buf).", def->name, key, names);
            Py_XDECREF(names);
            return -1;
        }
        double x;
        if (convert_field(f, value, &x, def->name) < 0) return -1;
        if (!(x >= f->lo && x <= f->hi)) {
            char msg[OCEAN_ERR_LEN];
            snprintf(msg, sizeof(msg), "ocean-%s: %s=%g is out of range; it must be in [%g, %g].", def->name,
                     f->name, x, f->lo, f->hi);
            PyErr_SetString(PyExc_ValueError, msg);
            return -1;
        }
        write_field(env, f, x);
    }
    return 0;
}

#endif
