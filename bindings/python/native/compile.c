/* CompileRequest: one compile request of the package, prepared once, whose compile(context) calls
 * cuabi and returns the package's Module -- the path of a memory-cache hit, which in C costs a
 * fraction of what the cffi calls, their out-pointer and a Python-made Module cost. The GIL is
 * released around the compile (a miss runs NVRTC for seconds). */
#include "native.h"

#include <stddef.h>
#include <stdint.h>

#include <structmember.h>

#include "cuabi/cuabi.h"

PyTypeObject* native_compile_request_type;

static PyObject* owner_name;
static PyObject* context_name;
static PyObject* address_name;

typedef struct {
    PyObject_HEAD
    PFN_cuabi_module_compile compile;
    PFN_cuabi_module_compile_offline compile_offline;
    void* destroy;
    const char* source;
    const cuabi_compile_options* options;
    PyObject* owners;      /* the cffi objects source and options live in */
    PyObject* error;       /* status -> the exception to raise */
    PyTypeObject* module_type;
} NativeCompileRequest;

/* CompileRequest(compile, compile_offline, destroy, source, options, owners, error, module_type):
 * the addresses of cuabi_module_compile, cuabi_module_compile_offline and cuabi_module_destroy, of
 * the request's source and options (alive while `owners` is), and the package's Module class. */
static PyObject* request_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    PyObject *compile, *compile_offline, *destroy, *source, *options, *owners, *error, *module_type;
    static char* keywords[] = {"compile", "compile_offline", "destroy", "source", "options", "owners", "error",
                               "module_type", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOOO:CompileRequest", keywords, &compile, &compile_offline,
                                     &destroy, &source, &options, &owners, &error, &module_type))
        return NULL;
    if (!PyCallable_Check(error) || !PyType_Check(module_type) ||
        !(PyType_GetFlags((PyTypeObject*)module_type) & Py_TPFLAGS_HEAPTYPE)) {
        PyErr_SetString(PyExc_TypeError, "CompileRequest: error must be callable and module_type a class");
        return NULL;
    }
    void* compile_address = native_address(compile, "CompileRequest compile");
    void* offline_address = compile_address ? native_address(compile_offline, "CompileRequest compile_offline") : NULL;
    void* destroy_address = offline_address ? native_address(destroy, "CompileRequest destroy") : NULL;
    void* source_address = destroy_address ? native_address(source, "CompileRequest source") : NULL;
    void* options_address = source_address ? native_address(options, "CompileRequest options") : NULL;
    if (options_address == NULL) return NULL;
    NativeCompileRequest* self = (NativeCompileRequest*)PyType_GenericAlloc(type, 0);
    if (self == NULL) return NULL;
    self->compile = (PFN_cuabi_module_compile)(uintptr_t)compile_address;
    self->compile_offline = (PFN_cuabi_module_compile_offline)(uintptr_t)offline_address;
    self->destroy = destroy_address;
    self->source = source_address;
    self->options = options_address;
    Py_INCREF(owners);
    Py_INCREF(error);
    Py_INCREF(module_type);
    self->owners = owners;
    self->error = error;
    self->module_type = (PyTypeObject*)module_type;
    return (PyObject*)self;
}

/* A new Module (not initialized by its __init__) owning `module`: its _owner and context, as
 * compile.py documents them. On failure the module is destroyed (by the owner, once made). */
static PyObject* adopt(NativeCompileRequest* self, PyObject* context, cuabi_module* module) {
    PyObject* owner = native_owner_new(self->destroy, module, 0, NULL);
    if (owner == NULL) {
        ((PFN_cuabi_module_destroy)(uintptr_t)self->destroy)(module);
        return NULL;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(self->module_type, Py_tp_alloc);
    PyObject* object = alloc(self->module_type, 0);
    if (object == NULL || PyObject_SetAttr(object, owner_name, owner) < 0 ||
        PyObject_SetAttr(object, context_name, context) < 0) {
        Py_XDECREF(object);
        Py_DECREF(owner);
        return NULL;
    }
    Py_DECREF(owner);
    return object;
}

/* compile(context): the module of this request, compiled for `context` (a package Context; its
 * _address is the handle) or offline (None). */
static PyObject* request_compile(NativeCompileRequest* self, PyObject* context) {
    void* context_address = NULL;
    if (context != Py_None) {
        PyObject* address = PyObject_GetAttr(context, address_name);
        if (address == NULL) return NULL;
        context_address = native_address(address, "CompileRequest context");
        Py_DECREF(address);
        if (context_address == NULL) return NULL;
    }
    cuabi_module* out = NULL;
    cuabi_status status;
    Py_BEGIN_ALLOW_THREADS
    if (context_address == NULL)
        status = self->compile_offline(self->source, self->options, &out);
    else
        status = self->compile(context_address, self->source, self->options, &out);
    Py_END_ALLOW_THREADS
    if (status != CUABI_SUCCESS) return native_raise_status(self->error, (int)status);
    return adopt(self, context, out);
}

static int request_traverse(NativeCompileRequest* self, visitproc visit, void* arg) {
    Py_VISIT(self->owners);
    Py_VISIT(self->error);
    Py_VISIT(self->module_type);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int request_clear(NativeCompileRequest* self) {
    Py_CLEAR(self->owners);
    Py_CLEAR(self->error);
    Py_CLEAR(self->module_type);
    return 0;
}

static void request_dealloc(NativeCompileRequest* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    request_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

/* CompileFront(function, plain_requests): the package's compile() as users call it. A call of
 * only a source and `target` and/or `context` keywords whose request was prepared before (the
 * package keeps those in plain_requests: {target: {source: request}}, request.native a
 * CompileRequest) compiles here without entering Python; every other call goes to `function`,
 * the package's Python compile(), which prepares requests and is the definition of the call. */
typedef struct {
    PyObject_HEAD
    PyObject* function;
    PyObject* plain_requests;
    PyObject* dict; /* __doc__, __wrapped__ and the rest that functools.update_wrapper sets */
} NativeCompileFront;

static PyObject* target_name;
static PyObject* native_name;

static PyObject* front_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    PyObject *function, *plain_requests;
    static char* keywords[] = {"function", "plain_requests", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!:CompileFront", keywords, &function, &PyDict_Type,
                                     &plain_requests))
        return NULL;
    if (!PyCallable_Check(function)) {
        PyErr_SetString(PyExc_TypeError, "CompileFront: function must be callable");
        return NULL;
    }
    NativeCompileFront* self = (NativeCompileFront*)PyType_GenericAlloc(type, 0);
    if (self == NULL) return NULL;
    Py_INCREF(function);
    Py_INCREF(plain_requests);
    self->function = function;
    self->plain_requests = plain_requests;
    return (PyObject*)self;
}

/* Sets *target and *context (borrowed, Py_None when absent) from keywords that are only those two;
 * 0 for any other keyword. */
static int plain_keywords(PyObject* kwargs, PyObject** target, PyObject** context) {
    *target = Py_None;
    *context = Py_None;
    if (kwargs == NULL) return 1;
    Py_ssize_t position = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &position, &key, &value)) {
        if (key == target_name || (PyUnicode_Check(key) && PyUnicode_Compare(key, target_name) == 0))
            *target = value;
        else if (key == context_name || (PyUnicode_Check(key) && PyUnicode_Compare(key, context_name) == 0))
            *context = value;
        else
            return 0;
    }
    return 1;
}

/* The prepared CompileRequest of a plain call (a new reference), or NULL without an error set. */
static PyObject* prepared(NativeCompileFront* self, PyObject* args, PyObject* kwargs, PyObject** context) {
    PyObject* target;
    if (PyTuple_Size(args) != 1 || !plain_keywords(kwargs, &target, context)) return NULL;
    PyObject* source = PyTuple_GetItem(args, 0);
    if (source == NULL || !PyUnicode_CheckExact(source) || (target != Py_None && !PyUnicode_CheckExact(target))) {
        PyErr_Clear();
        return NULL;
    }
    PyObject* by_source = PyDict_GetItemWithError(self->plain_requests, target);
    PyObject* request = by_source != NULL && PyDict_CheckExact(by_source) ? PyDict_GetItemWithError(by_source, source)
                                                                          : NULL;
    PyObject* native = request != NULL ? PyObject_GetAttr(request, native_name) : NULL;
    if (native != NULL && Py_TYPE(native) == native_compile_request_type) return native;
    Py_XDECREF(native);
    PyErr_Clear();
    return NULL;
}

static PyObject* front_call(NativeCompileFront* self, PyObject* args, PyObject* kwargs) {
    PyObject* context;
    PyObject* request = prepared(self, args, kwargs, &context);
    if (request == NULL) return PyObject_Call(self->function, args, kwargs);
    PyObject* module = request_compile((NativeCompileRequest*)request, context);
    Py_DECREF(request);
    return module;
}

static int front_traverse(NativeCompileFront* self, visitproc visit, void* arg) {
    Py_VISIT(self->function);
    Py_VISIT(self->plain_requests);
    Py_VISIT(self->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int front_clear(NativeCompileFront* self) {
    Py_CLEAR(self->function);
    Py_CLEAR(self->plain_requests);
    Py_CLEAR(self->dict);
    return 0;
}

static void front_dealloc(NativeCompileFront* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    front_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(type);
}

static PyObject* front_get(PyObject* self, PyObject* instance, PyObject* owner) {
    (void)instance;
    (void)owner;
    Py_INCREF(self); /* like a staticmethod: never bound to an instance */
    return self;
}

/* __dict__ (PyObject_GenericGetDict is not in the 3.9 stable ABI). */
static PyObject* front_get_dict(NativeCompileFront* self, void* closure) {
    (void)closure;
    if (self->dict == NULL && (self->dict = PyDict_New()) == NULL) return NULL;
    Py_INCREF(self->dict);
    return self->dict;
}

static PyGetSetDef front_getset[] = {
    {"__dict__", (getter)front_get_dict, NULL, "the attributes functools.update_wrapper sets", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef front_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(NativeCompileFront, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot front_slots[] = {
    {Py_tp_new, (void*)front_new},
    {Py_tp_call, (void*)front_call},
    {Py_tp_descr_get, (void*)front_get},
    {Py_tp_members, front_members},
    {Py_tp_getset, front_getset},
    {Py_tp_traverse, (void*)front_traverse},
    {Py_tp_clear, (void*)front_clear},
    {Py_tp_dealloc, (void*)front_dealloc},
    {Py_tp_doc, "The package's compile(), with the plain memory-cache hit in C (see __wrapped__)."},
    {0, NULL},
};

static PyType_Spec front_spec = {"cuabi._native.CompileFront", sizeof(NativeCompileFront), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, front_slots};

static PyMethodDef request_methods[] = {
    {"compile", (PyCFunction)request_compile, METH_O,
     "compile(context) -> a new Module of this request (context None: offline)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot request_slots[] = {
    {Py_tp_new, (void*)request_new},
    {Py_tp_methods, request_methods},
    {Py_tp_traverse, (void*)request_traverse},
    {Py_tp_clear, (void*)request_clear},
    {Py_tp_dealloc, (void*)request_dealloc},
    {Py_tp_doc, "A compile request prepared once: compile(context) returns a new Module."},
    {0, NULL},
};

static PyType_Spec request_spec = {"cuabi._native.CompileRequest", sizeof(NativeCompileRequest), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, request_slots};

int native_add_compile(PyObject* module) {
    owner_name = PyUnicode_InternFromString("_owner");
    context_name = PyUnicode_InternFromString("context");
    address_name = PyUnicode_InternFromString("_address");
    target_name = PyUnicode_InternFromString("target");
    native_name = PyUnicode_InternFromString("native");
    if (owner_name == NULL || context_name == NULL || address_name == NULL || target_name == NULL ||
        native_name == NULL)
        return -1;
    PyTypeObject* front_type;
    if (native_add_type(module, &request_spec, "CompileRequest", &native_compile_request_type) < 0 ||
        native_add_type(module, &front_spec, "CompileFront", &front_type) < 0)
        return -1;
    Py_DECREF(front_type); /* the module holds it */
    return 0;
}
