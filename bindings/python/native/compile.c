/* A compile and the destruction of the module it made: the path of a memory-cache hit, which in C
 * costs a fraction of what two cffi calls and their out-pointer cost from Python. The GIL is
 * released around both (a miss runs NVRTC for seconds). */
#include "native.h"

#include <stdint.h>

#include "cuabi/cuabi.h"

static PyObject* owned_name;
static PyObject* keep_name;
static PyObject* context_name;
static PyObject* address_name;

/* A new object of `type` (the package's Module, not initialized by its __init__) that owns the
 * module at `address` as an int: its attributes as compile.py documents them. *owner_made is set
 * once the object owns the module (its finalizer then destroys it); until then the caller must. */
static PyObject* adopt(PyObject* type, PyObject* context, cuabi_module* address, int* owner_made) {
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject*)type, Py_tp_alloc);
    PyObject* handle = PyLong_FromVoidPtr(address);
    PyObject* owned = handle ? PyList_New(1) : NULL;
    PyObject* object = owned ? alloc((PyTypeObject*)type, 0) : NULL;
    if (object == NULL) {
        Py_XDECREF(owned);
        Py_XDECREF(handle);
        return NULL;
    }
    Py_INCREF(handle);
    PyList_SetItem(owned, 0, handle); /* steals the reference just taken */
    const int owns = PyObject_SetAttr(object, owned_name, owned) == 0;
    Py_DECREF(owned);
    *owner_made = owns;
    const int failed = !owns || PyObject_SetAttr(object, keep_name, Py_None) < 0 ||
                       PyObject_SetAttr(object, context_name, context) < 0 ||
                       PyObject_SetAttr(object, address_name, handle) < 0;
    Py_DECREF(handle);
    if (failed) {
        Py_DECREF(object);
        return NULL;
    }
    return object;
}

int native_init_compile(void) {
    owned_name = PyUnicode_InternFromString("_owned");
    keep_name = PyUnicode_InternFromString("_keep");
    context_name = PyUnicode_InternFromString("context");
    address_name = PyUnicode_InternFromString("_address");
    return owned_name && keep_name && context_name && address_name ? 0 : -1;
}

/* compile(function, destroy, context, source, options, error, module_type, context_object) -> a
 * new module_type object owning the module made. function is cuabi_module_compile (context
 * nonzero) or cuabi_module_compile_offline (context 0), destroy cuabi_module_destroy; source and
 * options the addresses of the request's C memory, alive for the call. */
PyObject* native_compile(PyObject* module, PyObject* args) {
    (void)module;
    PyObject *function, *destroy, *context, *source, *options, *error, *type, *context_object;
    if (!PyArg_UnpackTuple(args, "compile", 8, 8, &function, &destroy, &context, &source, &options, &error, &type,
                           &context_object))
        return NULL;
    if (!PyType_Check(type) || !(PyType_GetFlags((PyTypeObject*)type) & Py_TPFLAGS_HEAPTYPE)) {
        PyErr_SetString(PyExc_TypeError, "compile: module_type must be a class");
        return NULL;
    }
    void* function_address = native_address(function, "compile function");
    void* destroy_address = function_address ? native_address(destroy, "compile destroy") : NULL;
    void* source_address = destroy_address ? native_address(source, "compile source") : NULL;
    void* options_address = source_address ? native_address(options, "compile options") : NULL;
    if (options_address == NULL) return NULL;
    void* context_address = PyLong_AsVoidPtr(context);
    if (context_address == NULL && PyErr_Occurred()) return NULL;
    cuabi_module* out = NULL;
    cuabi_status status;
    Py_BEGIN_ALLOW_THREADS
    if (context_address == NULL)
        status = ((PFN_cuabi_module_compile_offline)(uintptr_t)function_address)(source_address, options_address, &out);
    else
        status = ((PFN_cuabi_module_compile)(uintptr_t)function_address)(context_address, source_address,
                                                                          options_address, &out);
    Py_END_ALLOW_THREADS
    if (status != CUABI_SUCCESS) return native_raise_status(error, (int)status);
    int owner_made = 0;
    PyObject* adopted = adopt(type, context_object, out, &owner_made);
    if (!owner_made) ((PFN_cuabi_module_destroy)(uintptr_t)destroy_address)(out);
    return adopted;
}

/* destroy(function, handle): function(handle) for a cuabi_*_destroy of one handle argument. */
PyObject* native_destroy(PyObject* module, PyObject* args) {
    (void)module;
    PyObject *function, *handle;
    if (!PyArg_UnpackTuple(args, "destroy", 2, 2, &function, &handle)) return NULL;
    void* function_address = native_address(function, "destroy function");
    void* handle_address = function_address ? native_address(handle, "destroy handle") : NULL;
    if (handle_address == NULL) return NULL;
    Py_BEGIN_ALLOW_THREADS
    ((PFN_cuabi_module_destroy)(uintptr_t)function_address)(handle_address);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}
