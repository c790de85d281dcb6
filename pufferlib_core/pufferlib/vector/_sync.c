/* Synchronisation of the multiprocessing vectorizer through flags in shared memory.
 *
 * The shared block starts with two 64-byte header slots, then one 64-byte slot per
 * worker (a cache line each, so that processes never write to the same line):
 *
 *   results slot:  u32 wake_counter  (futex word the main process sleeps on; +1 per result)
 *                  u32 main_sleeping
 *                  u64 seq_counter   (orders completions)
 *                  u32 wake_target   (wake_counter value at which the main process wants waking)
 *   commands slot: u32 cmd_seq       (futex word the workers sleep on; +1 per wake-up round)
 *                  u32 spin_ns       (how long every waiter spins before it sleeps; set by the main process)
 *   worker slot:   u32 state
 *                  u32 sleeping
 *                  u64 seq           (completion order of the last result)
 *                  i64 seed, u32 has_seed   (written by Python before RESET)
 *
 * `state` holds a result (READY, READY_INFOS, ERROR), owned by the main process, or a
 * command (INIT, STEP, RESET, CLOSE), owned by the worker. Waiting spins for `spin_ns`
 * (one value for both sides: spinning pays only when both sides do, see
 * pufferlib.vector.shared.SpinPolicy), then blocks in the kernel: a futex on Linux, a
 * sleeping poll elsewhere. A waiter announces itself in its `sleeping` flag so that the
 * other side only pays for a wake-up system call when someone is actually asleep. Two
 * choices keep context switches down when processes outnumber cores: the main process
 * wakes every worker it commands with one system call (a futex bitset with one bit per
 * worker), and a worker wakes the main process only when its result completes the batch
 * the main process waits for. All accesses are sequentially consistent, which is what makes
 * "set flag, re-check, sleep" free of lost wake-ups.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#if defined(_MSC_VER)
#include <windows.h>
#else
#include <pthread.h>
#include <unistd.h>
#endif
#if defined(_MSC_VER)
#define LOAD32(p) ((uint32_t)InterlockedOr((volatile LONG *)(p), 0))
#define STORE32(p, v) ((void)InterlockedExchange((volatile LONG *)(p), (LONG)(v)))
#define XCHG32(p, v) ((uint32_t)InterlockedExchange((volatile LONG *)(p), (LONG)(v)))
#define CAS32(p, e, d) ((uint32_t)InterlockedCompareExchange((volatile LONG *)(p), (LONG)(d), (LONG)(e)) == (uint32_t)(e))
#define ADD32(p, v) ((uint32_t)InterlockedExchangeAdd((volatile LONG *)(p), (LONG)(v)))
#define ADD64(p, v) ((uint64_t)InterlockedExchangeAdd64((volatile LONG64 *)(p), (LONG64)(v)))
#define CPU_RELAX() YieldProcessor()
#else
#include <sched.h>
#include <time.h>
#include <errno.h>
#define LOAD32(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE32(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define XCHG32(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
static inline int CAS32(uint32_t *p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
#define ADD32(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define ADD64(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif
#endif

/* PUFFERLIB_SYNC_POLL forces the portable fallback (the tests build it that way on Linux). */
#if defined(__linux__) && !defined(PUFFERLIB_SYNC_POLL)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#define HAVE_FUTEX 1
#else
#define HAVE_FUTEX 0
#endif

enum { READY = 0, READY_INFOS = 1, ERROR = 2, INIT = 3, STEP = 4, RESET = 5, CLOSE = 6 };
#define FIRST_COMMAND INIT
#define SLOT 64
#define HEADER (2 * SLOT)

typedef struct {
    uint32_t wake_counter;
    uint32_t main_sleeping;
    uint64_t seq_counter;
    uint32_t wake_target;
} MainSlot;

typedef struct {
    uint32_t cmd_seq;
    uint32_t spin_ns;
} CommandSlot;

typedef struct {
    uint32_t state;
    uint32_t sleeping;
    uint64_t seq;
    int64_t seed;
    uint32_t has_seed;
} WorkerSlot;

/* ---- time and blocking ---------------------------------------------------------- */

static double now_ns(void) {
#if defined(_MSC_VER)
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1e9 / (double)f.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
#endif
}

/* Block while *addr == expected, at most timeout_ns, unless woken with a bitset that
 * shares a bit with `bits`. Returns 0, or EINTR on a signal. */
static int block_while_equal(uint32_t *addr, uint32_t expected, uint32_t bits, double timeout_ns) {
#if HAVE_FUTEX
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  /* FUTEX_WAIT_BITSET takes an absolute time */
    double end = (double)ts.tv_nsec + timeout_ns;
    ts.tv_sec += (time_t)(end / 1e9);
    ts.tv_nsec = (long)(end - (double)(time_t)(end / 1e9) * 1e9);
    long rc = syscall(SYS_futex, addr, FUTEX_WAIT_BITSET, expected, &ts, NULL, bits);
    return (rc == -1 && errno == EINTR) ? EINTR : 0;
#else
    /* Portable fallback: poll with an exponential back-off of sleeps (1 us .. 200 us). */
    (void)bits;
    double deadline = now_ns() + timeout_ns, pause_us = 1;
    while (LOAD32(addr) == expected && now_ns() < deadline) {
#if defined(_MSC_VER)
        if (pause_us < 100) SwitchToThread(); else Sleep(1);
#else
        struct timespec ts = {0, (long)(pause_us * 1000)};
        if (nanosleep(&ts, NULL) == -1 && errno == EINTR) return EINTR;
#endif
        if (pause_us < 200) pause_us *= 2;
    }
    return 0;
#endif
}

/* Wake the waiters on addr whose bits intersect `bits`. */
static void wake(uint32_t *addr, uint32_t bits) {
#if HAVE_FUTEX
    syscall(SYS_futex, addr, FUTEX_WAKE_BITSET, INT32_MAX, NULL, NULL, bits);
#else
    (void)addr;  /* the fallback polls */
    (void)bits;
#endif
}

#define ALL_BITS 0xffffffffu
#define WORKER_BIT(w) (1u << ((w) % 32))

/* Spin for spin_ns: pause instructions first, then yield the CPU to runnable processes
 * (which keeps spinning cheap when there are more processes than cores). */
static inline void spin_pause(double start, double now) {
    if (now - start < 2000.0) {
        for (int i = 0; i < 32; i++) CPU_RELAX();
    } else {
#if defined(_MSC_VER)
        SwitchToThread();
#else
        sched_yield();
#endif
    }
}

/* ---- the Flags object ---------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    Py_buffer view;
    int has_view;
    Py_ssize_t num_workers;
    MainSlot *main;
    CommandSlot *commands;
    char *base;
} Flags;

static inline WorkerSlot *slot_of(Flags *self, Py_ssize_t w) {
    return (WorkerSlot *)(self->base + HEADER + SLOT * w);
}

static int check_worker(Flags *self, Py_ssize_t w) {
    if (!self->has_view) {
        PyErr_SetString(PyExc_ValueError, "Flags were released");
        return -1;
    }
    if (w < 0 || w >= self->num_workers) {
        PyErr_Format(PyExc_IndexError, "worker %zd out of range [0, %zd)", w, self->num_workers);
        return -1;
    }
    return 0;
}

static int Flags_init(Flags *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"buffer", "num_workers", NULL};
    PyObject *buffer;
    Py_ssize_t num_workers;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "On", kwlist, &buffer, &num_workers)) return -1;
    if (num_workers < 1) {
        PyErr_SetString(PyExc_ValueError, "num_workers must be >= 1");
        return -1;
    }
    if (self->has_view) {
        PyBuffer_Release(&self->view);
        self->has_view = 0;
    }
    if (PyObject_GetBuffer(buffer, &self->view, PyBUF_WRITABLE) < 0) return -1;
    self->has_view = 1;
    if (self->view.len < HEADER + SLOT * num_workers || ((uintptr_t)self->view.buf % SLOT) != 0) {
        PyErr_Format(PyExc_ValueError, "buffer must be %d-byte aligned and hold at least %zd bytes",
                     SLOT, (Py_ssize_t)(HEADER + SLOT * num_workers));
        return -1;
    }
    self->num_workers = num_workers;
    self->base = (char *)self->view.buf;
    self->main = (MainSlot *)self->base;
    self->commands = (CommandSlot *)(self->base + SLOT);
    return 0;
}

static void Flags_dealloc(Flags *self) {
    if (self->has_view) PyBuffer_Release(&self->view);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Flags_release(Flags *self, PyObject *Py_UNUSED(ignored)) {
    if (self->has_view) {
        PyBuffer_Release(&self->view);
        self->has_view = 0;
    }
    Py_RETURN_NONE;
}

/* Main process: give worker w a command; return its wake-up bit if it sleeps, else 0. */
static inline uint32_t give_command(Flags *self, Py_ssize_t w, uint32_t cmd) {
    WorkerSlot *s = slot_of(self, w);
    XCHG32(&s->state, cmd);
    return LOAD32(&s->sleeping) ? WORKER_BIT(w) : 0;
}

/* Main process: wake the sleeping workers among `bits`, all with one system call. */
static inline void wake_workers(Flags *self, uint32_t bits) {
    if (!bits) return;
    ADD32(&self->commands->cmd_seq, 1);
    wake(&self->commands->cmd_seq, bits);
}

static PyObject *Flags_send(Flags *self, PyObject *args) {
    Py_ssize_t w;
    unsigned int cmd;
    if (!PyArg_ParseTuple(args, "nI", &w, &cmd) || check_worker(self, w) < 0) return NULL;
    wake_workers(self, give_command(self, w, cmd));
    Py_RETURN_NONE;
}

/* Main process: give every worker flagged in `mask` (num_workers uint8) the command. */
static PyObject *Flags_send_many(Flags *self, PyObject *args) {
    Py_buffer mask;
    unsigned int cmd;
    if (!PyArg_ParseTuple(args, "y*I", &mask, &cmd)) return NULL;
    if (check_worker(self, 0) < 0 || mask.len != self->num_workers) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "mask must hold %zd bytes", self->num_workers);
        PyBuffer_Release(&mask);
        return NULL;
    }
    const uint8_t *flags = (const uint8_t *)mask.buf;
    uint32_t bits = 0;
    for (Py_ssize_t w = 0; w < self->num_workers; w++)
        if (flags[w]) bits |= give_command(self, w, cmd);
    PyBuffer_Release(&mask);
    wake_workers(self, bits);
    Py_RETURN_NONE;
}

/* Main process: set how long every wait (its own and the workers') spins before sleeping. */
static PyObject *Flags_set_spin(Flags *self, PyObject *args) {
    double spin_us;
    if (!PyArg_ParseTuple(args, "d", &spin_us) || check_worker(self, 0) < 0) return NULL;
    if (!(spin_us >= 0 && spin_us <= 1e6)) {
        PyErr_Format(PyExc_ValueError, "spin_us must be in [0, 1e6], got %g", spin_us);
        return NULL;
    }
    STORE32(&self->commands->spin_ns, (uint32_t)(spin_us * 1e3));
    Py_RETURN_NONE;
}

static PyObject *Flags_get_spin(Flags *self, void *Py_UNUSED(closure)) {
    if (check_worker(self, 0) < 0) return NULL;
    return PyFloat_FromDouble(LOAD32(&self->commands->spin_ns) / 1e3);
}

/* Worker: wait until a command arrives; return it, or -1 after timeout_ms without one. */
static PyObject *Flags_wait_command(Flags *self, PyObject *args) {
    Py_ssize_t w;
    double timeout_ms;
    if (!PyArg_ParseTuple(args, "nd", &w, &timeout_ms) || check_worker(self, w) < 0) return NULL;
    WorkerSlot *s = slot_of(self, w);
    uint32_t state = LOAD32(&s->state);
    if (state >= FIRST_COMMAND) return PyLong_FromUnsignedLong(state);
    double start = now_ns(), now = start, deadline = start + timeout_ms * 1e6;
    double spin_ns = LOAD32(&self->commands->spin_ns);
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    while ((state = LOAD32(&s->state)) < FIRST_COMMAND && now - start < spin_ns) {
        spin_pause(start, now);
        now = now_ns();
    }
    while (state < FIRST_COMMAND && now < deadline) {
        STORE32(&s->sleeping, 1);
        uint32_t round = LOAD32(&self->commands->cmd_seq);
        state = LOAD32(&s->state);
        if (state < FIRST_COMMAND) rc = block_while_equal(&self->commands->cmd_seq, round, WORKER_BIT(w), deadline - now);
        STORE32(&s->sleeping, 0);
        state = LOAD32(&s->state);
        if (rc == EINTR) break;
        now = now_ns();
    }
    Py_END_ALLOW_THREADS
    if (rc == EINTR && PyErr_CheckSignals() < 0) return NULL;
    return PyLong_FromLong(state >= FIRST_COMMAND ? (long)state : -1L);
}

/* Worker: publish the result of command `cmd`; False when the main process asked to close. */
static PyObject *Flags_post(Flags *self, PyObject *args) {
    Py_ssize_t w;
    unsigned int cmd, result;
    if (!PyArg_ParseTuple(args, "nII", &w, &cmd, &result) || check_worker(self, w) < 0) return NULL;
    WorkerSlot *s = slot_of(self, w);
    s->seq = ADD64(&self->main->seq_counter, 1);
    if (!CAS32(&s->state, cmd, result)) Py_RETURN_FALSE;
    uint32_t count = ADD32(&self->main->wake_counter, 1) + 1;
    if (LOAD32(&self->main->main_sleeping)
            && (result == ERROR || (int32_t)(count - LOAD32(&self->main->wake_target)) >= 0))
        wake(&self->main->wake_counter, ALL_BITS);
    Py_RETURN_TRUE;
}

/* Main process: wait until `need` of the workers flagged in `pending` (a bytes-like of
 * num_workers uint8) hold a result, or one of them reports an error, or timeout_ms pass.
 * Returns (number of pending workers holding a result, how many of those hold infos),
 * or (-1, 0) when one reports ERROR. */
static PyObject *Flags_wait_ready(Flags *self, PyObject *args) {
    Py_buffer pending;
    Py_ssize_t need;
    double timeout_ms;
    if (!PyArg_ParseTuple(args, "y*nd", &pending, &need, &timeout_ms)) return NULL;
    if (check_worker(self, 0) < 0 || pending.len != self->num_workers) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "pending must hold %zd bytes", self->num_workers);
        PyBuffer_Release(&pending);
        return NULL;
    }
    const uint8_t *flags = (const uint8_t *)pending.buf;
    Py_ssize_t ready = 0, with_infos = 0;
    int error = 0, rc = 0;
    double start = now_ns(), now = start, deadline = start + timeout_ms * 1e6;
    double spin_ns = LOAD32(&self->commands->spin_ns);
    Py_BEGIN_ALLOW_THREADS
    for (;;) {
        uint32_t counter = LOAD32(&self->main->wake_counter);
        ready = with_infos = 0;
        for (Py_ssize_t w = 0; w < self->num_workers; w++) {
            if (!flags[w]) continue;
            uint32_t state = LOAD32(&slot_of(self, w)->state);
            if (state < FIRST_COMMAND) ready++;
            if (state == READY_INFOS) with_infos++;
            if (state == ERROR) error = 1;
        }
        if (ready >= need || error || now >= deadline) break;
        if (now - start < spin_ns) {
            spin_pause(start, now);
        } else {
            STORE32(&self->main->wake_target, counter + (uint32_t)(need - ready));
            STORE32(&self->main->main_sleeping, 1);
            rc = block_while_equal(&self->main->wake_counter, counter, ALL_BITS, deadline - now);
            STORE32(&self->main->main_sleeping, 0);
            if (rc == EINTR) break;
        }
        now = now_ns();
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&pending);
    if (rc == EINTR && PyErr_CheckSignals() < 0) return NULL;
    return error ? Py_BuildValue("(ii)", -1, 0) : Py_BuildValue("(nn)", ready, with_infos);
}

static PyMethodDef Flags_methods[] = {
    {"send", (PyCFunction)Flags_send, METH_VARARGS,
     "send(worker, command): give a worker a command and wake it if it sleeps."},
    {"send_many", (PyCFunction)Flags_send_many, METH_VARARGS,
     "send_many(mask, command): give every worker flagged in mask the command."},
    {"set_spin", (PyCFunction)Flags_set_spin, METH_VARARGS,
     "set_spin(spin_us): how long every wait, the main process's and the workers', spins before it sleeps."},
    {"wait_command", (PyCFunction)Flags_wait_command, METH_VARARGS,
     "wait_command(worker, timeout_ms) -> command, or -1 on timeout (worker side)."},
    {"post", (PyCFunction)Flags_post, METH_VARARGS,
     "post(worker, command, result) -> False if the command was replaced by CLOSE (worker side)."},
    {"wait_ready", (PyCFunction)Flags_wait_ready, METH_VARARGS,
     "wait_ready(pending, need, timeout_ms) -> (ready, with_infos), (-1, 0) on ERROR."},
    {"release", (PyCFunction)Flags_release, METH_NOARGS, "Release the shared buffer."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Flags_getset[] = {
    {"spin_us", (getter)Flags_get_spin, NULL, "what every wait spins now, in microseconds (see set_spin)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject FlagsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pufferlib.vector._sync.Flags",
    .tp_basicsize = sizeof(Flags),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Flags(buffer, num_workers): worker flags in a shared buffer (see _sync.c).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Flags_init,
    .tp_dealloc = (destructor)Flags_dealloc,
    .tp_methods = Flags_methods,
    .tp_getset = Flags_getset,
};

/* ---- exiting with the parent --------------------------------------------------- */

/* A worker must not outlive the main process, even while its env is stuck in step() or
 * __init__ (a busy loop holding the GIL, a blocking C call). A detached C thread, which
 * needs no GIL, polls getppid() and ends the process once the parent is gone. Unlike
 * Linux's PR_SET_PDEATHSIG it does not fire when merely the thread that started the
 * worker ends, and it works on every POSIX system. */
#if !defined(_MSC_VER)
static pid_t watched_parent;
static useconds_t watch_interval_us;

static void *watch_parent(void *arg) {
    (void)arg;
    for (;;) {
        if (getppid() != watched_parent) _exit(1);
        usleep(watch_interval_us);
    }
    return NULL;
}
#endif

static PyObject *exit_with_parent(PyObject *module, PyObject *args) {
    long parent;
    double interval_ms;
    (void)module;
    if (!PyArg_ParseTuple(args, "ld", &parent, &interval_ms)) return NULL;
#if defined(_MSC_VER)
    (void)parent;
    (void)interval_ms;
    Py_RETURN_FALSE;
#else
    static pid_t started_in = 0;  /* a forked child has no watcher thread even if its parent had one */
    if (getppid() != (pid_t)parent) _exit(1);  /* the parent died before we could watch it */
    if (started_in == getpid()) Py_RETURN_TRUE;
    watched_parent = (pid_t)parent;
    watch_interval_us = (useconds_t)(interval_ms > 1 ? interval_ms * 1000 : 1000);
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&thread, &attr, watch_parent, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) Py_RETURN_FALSE;
    started_in = getpid();
    Py_RETURN_TRUE;
#endif
}

static PyMethodDef module_methods[] = {
    {"exit_with_parent", (PyCFunction)exit_with_parent, METH_VARARGS,
     "exit_with_parent(parent_pid, interval_ms) -> bool: end this process (exit code 1) as soon as its "
     "parent is no longer parent_pid, checked by a C thread every interval_ms; False where unsupported."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sync_module = {
    PyModuleDef_HEAD_INIT, "_sync",
    "Flags in shared memory for the multiprocessing vectorizer: atomics, brief spin, futex.",
    -1, module_methods,
};

PyMODINIT_FUNC PyInit__sync(void) {
    if (PyType_Ready(&FlagsType) < 0) return NULL;
    PyObject *m = PyModule_Create(&sync_module);
    if (m == NULL) return NULL;
    Py_INCREF(&FlagsType);
    if (PyModule_AddObject(m, "Flags", (PyObject *)&FlagsType) < 0) {
        Py_DECREF(&FlagsType);
        Py_DECREF(m);
        return NULL;
    }
    struct { const char *name; long value; } consts[] = {
        {"READY", READY}, {"READY_INFOS", READY_INFOS}, {"ERROR", ERROR}, {"INIT", INIT},
        {"STEP", STEP}, {"RESET", RESET}, {"CLOSE", CLOSE}, {"SLOT_BYTES", SLOT}, {"HEADER_BYTES", HEADER},
        {"HAVE_FUTEX", HAVE_FUTEX},
    };
    for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
        if (PyModule_AddIntConstant(m, consts[i].name, consts[i].value) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    return m;
}
