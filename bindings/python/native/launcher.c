/* Launcher: a kernel bound to a launch config; calling it packs the arguments on the stack and
 * calls cuabi_launch_packed with the GIL released. Arguments it does not pack go, with the call,
 * to the package's Python launcher, which packs, launches and refuses them as it always has. */
#include "native.h"

#include <stdint.h>

#include "cuabi/cuabi.h"

PyTypeObject* native_launcher_type;

typedef struct {
    PyObject_HEAD
    NativeLayout* layout;
    PFN_cuabi_launch_packed launch;
    cuabi_kernel* kernel;
    const cuabi_launch_config* config;
    PyObject* owners;   /* what kernel and config point into: alive as long as this launcher */
    PyObject* fallback; /* the Python launcher of the same kernel and config */
    PyObject* error;    /* status -> the exception to raise */
} NativeLauncher;

void* native_address(PyObject* value, const char* what) {
    void* address = PyLong_Check(value) ? PyLong_AsVoidPtr(value) : NULL;
    if (address == NULL && !PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: a nonzero address is needed", what);
    return address;
}

PyObject* native_raise_status(PyObject* error, int status) {
    PyObject* exception = PyObject_CallFunction(error, "i", status);
    if (exception == NULL) return NULL;
    PyErr_SetObject((PyObject*)Py_TYPE(exception), exception);
    Py_DECREF(exception);
    return NULL;
}

/* Launcher(layout, launch, kernel, config, owners, fallback, error): launch the address of
 * cuabi_launch_packed, kernel and config the addresses of the handle and the launch config. */
static PyObject* launcher_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    PyObject *layout, *launch, *kernel, *config, *owners, *fallback, *error;
    static char* keywords[] = {"layout", "launch", "kernel", "config", "owners", "fallback", "error", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOOOOO:Launcher", keywords, native_layout_type, &layout,
                                     &launch, &kernel, &config, &owners, &fallback, &error))
        return NULL;
    if (!PyCallable_Check(fallback) || !PyCallable_Check(error)) {
        PyErr_SetString(PyExc_TypeError, "Launcher: fallback and error must be callable");
        return NULL;
    }
    void* launch_address = native_address(launch, "Launcher launch");
    void* kernel_address = launch_address ? native_address(kernel, "Launcher kernel") : NULL;
    void* config_address = kernel_address ? native_address(config, "Launcher config") : NULL;
    if (config_address == NULL) return NULL;
    NativeLauncher* self = (NativeLauncher*)PyType_GenericAlloc(type, 0);
    if (self == NULL) return NULL;
    Py_INCREF(layout);
    Py_INCREF(owners);
    Py_INCREF(fallback);
    Py_INCREF(error);
    self->layout = (NativeLayout*)layout;
    self->launch = (PFN_cuabi_launch_packed)(uintptr_t)launch_address;
    self->kernel = (cuabi_kernel*)kernel_address;
    self->config = (const cuabi_launch_config*)config_address;
    self->owners = owners;
    self->fallback = fallback;
    self->error = error;
    return (PyObject*)self;
}

static PyObject* launcher_call(NativeLauncher* self, PyObject* args, PyObject* kwargs) {
    _Alignas(16) unsigned char data[NATIVE_MAX_PACKED];
    if ((kwargs != NULL && PyDict_Size(kwargs) != 0) || !native_pack(self->layout, args, data))
        return PyObject_Call(self->fallback, args, kwargs);
    cuabi_status status;
    Py_BEGIN_ALLOW_THREADS
    status = self->launch(self->kernel, self->config, data, self->layout->size);
    Py_END_ALLOW_THREADS
    if (status != CUABI_SUCCESS) return native_raise_status(self->error, (int)status);
    Py_RETURN_NONE;
}

static int launcher_traverse(NativeLauncher* self, visitproc visit, void* arg) {
    Py_VISIT(self->layout);
    Py_VISIT(self->owners);
    Py_VISIT(self->fallback);
    Py_VISIT(self->error);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int launcher_clear(NativeLauncher* self) {
    Py_CLEAR(self->layout);
    Py_CLEAR(self->owners);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->error);
    return 0;
}

static void launcher_dealloc(NativeLauncher* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    launcher_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyObject* launcher_get_fallback(NativeLauncher* self, void* closure) {
    (void)closure;
    Py_INCREF(self->fallback);
    return self->fallback;
}

static PyGetSetDef launcher_getset[] = {
    {"fallback", (getter)launcher_get_fallback, NULL, "the Python launcher of the same kernel and config", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot launcher_slots[] = {
    {Py_tp_new, (void*)launcher_new},
    {Py_tp_call, (void*)launcher_call},
    {Py_tp_traverse, (void*)launcher_traverse},
    {Py_tp_clear, (void*)launcher_clear},
    {Py_tp_dealloc, (void*)launcher_dealloc},
    {Py_tp_getset, launcher_getset},
    {Py_tp_doc, "A kernel bound to a launch config: calling it launches."},
    {0, NULL},
};

static PyType_Spec launcher_spec = {"cuabi._native.Launcher", sizeof(NativeLauncher), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, launcher_slots};

int native_add_launcher(PyObject* module) {
    return native_add_type(module, &launcher_spec, "Launcher", &native_launcher_type);
}
