/* Owner: the cell that owns one cuabi handle for a package object (a Module, a Buffer, ...). The
 * handle is destroyed exactly once: by close(), or when the cell itself is deallocated or cleared
 * by the collector. Being C, deallocation runs no Python code, so a handle object that is simply
 * dropped costs no finalizer call, and none can run while cffi holds a lock. */
#include "native.h"

#include <stdint.h>

#include "cuabi/cuabi.h"

PyTypeObject* native_owner_type;

typedef void (*destroy_void)(void* handle);
/* cuabi_range_end answers a status that nobody can act on at this point: ignored. */
typedef cuabi_status (*destroy_status)(void* handle);

typedef struct {
    PyObject_HEAD
    void* destroy;       /* the cuabi_*_destroy (or cuabi_range_end) function */
    void* handle;        /* kept after close: a later call with it gets CUABI_ERROR_INVALID_HANDLE */
    PyObject* keep;      /* what the handle points into (foreign memory's owner), dropped after it */
    char owned;
    char returns_status;
} NativeOwner;

/* Takes the handle out of the cell, destroys it, then drops what it kept. Under the GIL the owned
 * flag is read and cleared in one step, so of any number of threads exactly one destroys. */
static void owner_release(NativeOwner* self, int release_gil) {
    if (!self->owned) return;
    self->owned = 0;
    void* destroy = self->destroy;
    void* handle = self->handle;
    const char returns_status = self->returns_status;
    if (release_gil) {
        Py_BEGIN_ALLOW_THREADS
        if (returns_status) (void)((destroy_status)(uintptr_t)destroy)(handle);
        else ((destroy_void)(uintptr_t)destroy)(handle);
        Py_END_ALLOW_THREADS
    } else if (returns_status) {
        (void)((destroy_status)(uintptr_t)destroy)(handle);
    } else {
        ((destroy_void)(uintptr_t)destroy)(handle);
    }
    Py_CLEAR(self->keep);
}

PyObject* native_owner_new(void* destroy, void* handle, int returns_status, PyObject* keep) {
    NativeOwner* self = (NativeOwner*)PyType_GenericAlloc(native_owner_type, 0);
    if (self == NULL) return NULL;
    self->destroy = destroy;
    self->handle = handle;
    self->returns_status = (char)(returns_status != 0);
    self->owned = 1;
    Py_XINCREF(keep);
    self->keep = keep;
    return (PyObject*)self;
}

/* Owner(destroy, handle, returns_status=False, keep=None): destroy the address of the handle's
 * cuabi_*_destroy (or cuabi_range_end, which returns a status), handle its address. Positional
 * only: one is made for every handle, and keyword parsing would double what that costs. */
static PyObject* owner_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    (void)type;
    PyObject *destroy, *handle, *status = Py_False, *keep = Py_None;
    if ((kwargs != NULL && PyDict_Size(kwargs) != 0) ||
        !PyArg_UnpackTuple(args, "Owner", 2, 4, &destroy, &handle, &status, &keep)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Owner takes its arguments by position");
        return NULL;
    }
    const int returns_status = PyObject_IsTrue(status);
    if (returns_status < 0) return NULL;
    void* destroy_address = native_address(destroy, "Owner destroy");
    void* handle_address = destroy_address ? native_address(handle, "Owner handle") : NULL;
    if (handle_address == NULL) return NULL;
    return native_owner_new(destroy_address, handle_address, returns_status, keep == Py_None ? NULL : keep);
}

static PyObject* owner_close(NativeOwner* self, PyObject* unused) {
    (void)unused;
    owner_release(self, 1);
    Py_RETURN_NONE;
}

static PyObject* owner_forget(NativeOwner* self, PyObject* unused) {
    (void)unused;
    self->owned = 0;
    Py_CLEAR(self->keep);
    Py_RETURN_NONE;
}

static int owner_bool(NativeOwner* self) { return self->owned; }

static PyObject* owner_get_address(NativeOwner* self, void* closure) {
    (void)closure;
    return PyLong_FromVoidPtr(self->handle);
}

static int owner_traverse(NativeOwner* self, visitproc visit, void* arg) {
    Py_VISIT(self->keep);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

/* The collector breaks a cycle through `keep` here: the handle goes first, as on any release. */
static int owner_clear(NativeOwner* self) {
    owner_release(self, 0);
    Py_CLEAR(self->keep);
    return 0;
}

static void owner_dealloc(NativeOwner* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    owner_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyMethodDef owner_methods[] = {
    {"close", (PyCFunction)owner_close, METH_NOARGS, "Destroys the handle now (once; later calls do nothing)."},
    {"forget", (PyCFunction)owner_forget, METH_NOARGS,
     "Gives the handle up without destroying it (another call destroyed it)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef owner_getset[] = {
    {"address", (getter)owner_get_address, NULL, "the handle's address, kept after close", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot owner_slots[] = {
    {Py_tp_new, (void*)owner_new},
    {Py_nb_bool, (void*)owner_bool},
    {Py_tp_methods, owner_methods},
    {Py_tp_getset, owner_getset},
    {Py_tp_traverse, (void*)owner_traverse},
    {Py_tp_clear, (void*)owner_clear},
    {Py_tp_dealloc, (void*)owner_dealloc},
    {Py_tp_doc, "Owns one cuabi handle: true until close() or forget(); destroys it once."},
    {0, NULL},
};

static PyType_Spec owner_spec = {"cuabi._native.Owner", sizeof(NativeOwner), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, owner_slots};

int native_add_owner(PyObject* module) { return native_add_type(module, &owner_spec, "Owner", &native_owner_type); }
