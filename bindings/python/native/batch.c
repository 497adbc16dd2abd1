/* Batch: the C items of a cuabi_launch_batch call, each with its packed arguments and the Python
 * objects its pointers point into, submitted with the GIL released. */
#include "native.h"

#include <stdint.h>
#include <string.h>

#include "cuabi/cuabi.h"

PyTypeObject* native_batch_type;

typedef struct {
    PyObject_HEAD
    Py_ssize_t capacity;
    Py_ssize_t count;
    size_t submitted;
    PFN_cuabi_launch_batch launch;
    PyObject* error;
    cuabi_launch_item* items;
    PyObject** owners; /* per item: what kernel and config point into */
    PyObject** data;   /* per item: the bytes object `packed` points into */
} NativeBatch;

/* Batch(capacity, launch, error): launch the address of cuabi_launch_batch. */
static PyObject* batch_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    Py_ssize_t capacity;
    PyObject *launch, *error;
    static char* keywords[] = {"capacity", "launch", "error", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nOO:Batch", keywords, &capacity, &launch, &error)) return NULL;
    if (capacity < 1 || capacity > (Py_ssize_t)CUABI_LAUNCH_BATCH_MAX_ITEMS) {
        PyErr_Format(PyExc_ValueError, "Batch: capacity %zd is not in 1..%u", capacity, CUABI_LAUNCH_BATCH_MAX_ITEMS);
        return NULL;
    }
    if (!PyCallable_Check(error)) {
        PyErr_SetString(PyExc_TypeError, "Batch: error must be callable");
        return NULL;
    }
    void* launch_address = native_address(launch, "Batch launch");
    if (launch_address == NULL) return NULL;
    NativeBatch* self = (NativeBatch*)PyType_GenericAlloc(type, 0);
    if (self == NULL) return NULL;
    self->capacity = capacity;
    self->launch = (PFN_cuabi_launch_batch)(uintptr_t)launch_address;
    Py_INCREF(error);
    self->error = error;
    self->items = PyMem_Calloc((size_t)capacity, sizeof(cuabi_launch_item));
    self->owners = PyMem_Calloc((size_t)capacity, sizeof(PyObject*));
    self->data = PyMem_Calloc((size_t)capacity, sizeof(PyObject*));
    if (self->items == NULL || self->owners == NULL || self->data == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject*)self;
}

/* Appends one item that takes `data` (a bytes object, kept) as its packed arguments. */
static PyObject* append(NativeBatch* self, PyObject* kernel, PyObject* config, PyObject* owners, PyObject* data) {
    if (self->count == self->capacity) {
        Py_DECREF(data);
        PyErr_Format(PyExc_IndexError, "Batch: all %zd items are taken", self->capacity);
        return NULL;
    }
    void* kernel_address = native_address(kernel, "Batch kernel");
    void* config_address = kernel_address ? native_address(config, "Batch config") : NULL;
    if (config_address == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    cuabi_launch_item* item = &self->items[self->count];
    memset(item, 0, sizeof *item);
    item->kernel = (cuabi_kernel*)kernel_address;
    item->config = (const cuabi_launch_config*)config_address;
    item->packed = PyBytes_AsString(data); /* never NULL, also for b"": the packed form */
    item->packed_size = (size_t)PyBytes_Size(data);
    Py_INCREF(owners);
    self->owners[self->count] = owners;
    self->data[self->count] = data;
    self->count++;
    Py_RETURN_TRUE;
}

/* The positional arguments of a METH_VARARGS call (METH_FASTCALL joined the stable ABI in 3.10),
 * borrowed; 0 when there are not exactly `count`. */
static int unpack(PyObject* tuple, PyObject** out, Py_ssize_t count) {
    if (PyTuple_Size(tuple) != count) return 0;
    for (Py_ssize_t i = 0; i < count; ++i) out[i] = PyTuple_GetItem(tuple, i);
    return 1;
}

/* add(layout, kernel, config, owners, args) -> True when packed and added, False when an argument
 * is left to the Python packer (nothing is added then). */
static PyObject* batch_add(NativeBatch* self, PyObject* tuple) {
    PyObject* args[5];
    if (!unpack(tuple, args, 5) || !PyObject_TypeCheck(args[0], native_layout_type) || !PyTuple_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "Batch.add(layout, kernel, config, owners, args: tuple)");
        return NULL;
    }
    NativeLayout* layout = (NativeLayout*)args[0];
    PyObject* data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)layout->size);
    if (data == NULL) return NULL;
    if (!native_pack(layout, args[4], (unsigned char*)PyBytes_AsString(data))) {
        Py_DECREF(data);
        Py_RETURN_FALSE;
    }
    return append(self, args[1], args[2], args[3], data);
}

/* add_packed(kernel, config, owners, data: bytes): an item packed by the Python packer. */
static PyObject* batch_add_packed(NativeBatch* self, PyObject* tuple) {
    PyObject* args[4];
    if (!unpack(tuple, args, 4) || !PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "Batch.add_packed(kernel, config, owners, data: bytes)");
        return NULL;
    }
    Py_INCREF(args[3]);
    return append(self, args[0], args[1], args[2], args[3]);
}

static PyObject* batch_launch(NativeBatch* self, PyObject* unused) {
    (void)unused;
    size_t submitted = 0;
    cuabi_status status;
    Py_BEGIN_ALLOW_THREADS
    status = self->launch(self->items, (size_t)self->count, &submitted);
    Py_END_ALLOW_THREADS
    self->submitted = submitted;
    if (status != CUABI_SUCCESS) return native_raise_status(self->error, (int)status);
    Py_RETURN_NONE;
}

static void release_items(NativeBatch* self) {
    for (Py_ssize_t i = 0; i < self->count; ++i) {
        Py_CLEAR(self->owners[i]);
        Py_CLEAR(self->data[i]);
    }
    self->count = 0;
}

static PyObject* batch_clear_items(NativeBatch* self, PyObject* unused) {
    (void)unused;
    release_items(self);
    Py_RETURN_NONE;
}

static Py_ssize_t batch_length(NativeBatch* self) { return self->count; }

static PyObject* batch_get_submitted(NativeBatch* self, void* closure) {
    (void)closure;
    return PyLong_FromSize_t(self->submitted);
}

static int batch_traverse(NativeBatch* self, visitproc visit, void* arg) {
    for (Py_ssize_t i = 0; i < self->count; ++i) Py_VISIT(self->owners[i]);
    Py_VISIT(self->error);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int batch_gc_clear(NativeBatch* self) {
    if (self->owners != NULL) release_items(self);
    Py_CLEAR(self->error);
    return 0;
}

static void batch_dealloc(NativeBatch* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    batch_gc_clear(self);
    PyMem_Free(self->items);
    PyMem_Free(self->owners);
    PyMem_Free(self->data);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyMethodDef batch_methods[] = {
    {"add", (PyCFunction)batch_add, METH_VARARGS,
     "add(layout, kernel, config, owners, args) -> bool"},
    {"add_packed", (PyCFunction)batch_add_packed, METH_VARARGS,
     "add_packed(kernel, config, owners, data)"},
    {"launch", (PyCFunction)batch_launch, METH_NOARGS, "submits the items with cuabi_launch_batch"},
    {"clear", (PyCFunction)batch_clear_items, METH_NOARGS, "drops every item"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef batch_getset[] = {
    {"submitted", (getter)batch_get_submitted, NULL, "how many items the last launch() submitted", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot batch_slots[] = {
    {Py_tp_new, (void*)batch_new},
    {Py_tp_methods, batch_methods},
    {Py_tp_getset, batch_getset},
    {Py_sq_length, (void*)batch_length},
    {Py_tp_traverse, (void*)batch_traverse},
    {Py_tp_clear, (void*)batch_gc_clear},
    {Py_tp_dealloc, (void*)batch_dealloc},
    {Py_tp_doc, "The C items of a cuabi_launch_batch call."},
    {0, NULL},
};

static PyType_Spec batch_spec = {"cuabi._native.Batch", sizeof(NativeBatch), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                                 batch_slots};

int native_add_batch(PyObject* module) {
    return native_add_type(module, &batch_spec, "Batch", &native_batch_type);
}
