/* The module cuabi._native: its types, functions and the largest block it packs itself. */
#include "native.h"

int native_add_type(PyObject* module, PyType_Spec* spec, const char* name, PyTypeObject** out) {
    *out = (PyTypeObject*)PyType_FromSpec(spec);
    if (*out == NULL) return -1;
    Py_INCREF(*out); /* one reference kept in *out, one given to the module */
    if (PyModule_AddObject(module, name, (PyObject*)*out) < 0) {
        Py_DECREF(*out);
        return -1;
    }
    return 0;
}

static PyMethodDef native_functions[] = {
    {"compile", native_compile, METH_VARARGS, "compile(function, destroy, context, source, options, error, module_type, context_object) -> module"},
    {"destroy", native_destroy, METH_VARARGS, "destroy(function, handle)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "cuabi._native", "The launch fast path of the cuabi package (stable ABI).", -1,
    native_functions, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject* module = PyModule_Create(&native_module);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "MAX_PACKED", NATIVE_MAX_PACKED) < 0 || native_add_layout(module) < 0 ||
        native_add_launcher(module) < 0 || native_add_batch(module) < 0 || native_init_compile() < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
