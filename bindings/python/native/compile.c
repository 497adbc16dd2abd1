/* A compile and the destruction of the module it made: the path of a memory-cache hit, which in C
 * costs a fraction of what two cffi calls and their out-pointer cost from Python. The GIL is
 * released around both (a miss runs NVRTC for seconds). */
#include "native.h"

#include <stdint.h>

#include "cuabi/cuabi.h"

/* compile(function, context, source, options, error) -> the module's address. function is
 * cuabi_module_compile (context nonzero) or cuabi_module_compile_offline (context 0); source and
 * options the addresses of the request's C memory, alive for the call. */
PyObject* native_compile(PyObject* module, PyObject* args) {
    (void)module;
    PyObject *function, *context, *source, *options, *error;
    if (!PyArg_UnpackTuple(args, "compile", 5, 5, &function, &context, &source, &options, &error)) return NULL;
    void* function_address = native_address(function, "compile function");
    void* source_address = function_address ? native_address(source, "compile source") : NULL;
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
    return PyLong_FromVoidPtr(out);
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
