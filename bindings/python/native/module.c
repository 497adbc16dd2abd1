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

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "cuabi._native",
    "The fast paths of the cuabi package (stable ABI): launches, batches, compile hits, handle owners.", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject* module = PyModule_Create(&native_module);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "MAX_PACKED", NATIVE_MAX_PACKED) < 0 || native_add_layout(module) < 0 ||
        native_add_launcher(module) < 0 || native_add_batch(module) < 0 || native_add_owner(module) < 0 ||
        native_add_compile(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
