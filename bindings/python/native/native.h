/* cuabi._native: the fast paths of the Python package (launches, batches,
 * compile hits and the cells that own handles), written for CPython's stable ABI
 * (Py_LIMITED_API 3.9), so one abi3 build serves every CPython from 3.9 on.
 *
 * It never links libcuabi: the package passes in the addresses of the functions it resolved with
 * cuabi_get_proc_address from the library it loaded, and of the handles and configs its cffi
 * objects own (the Python objects that own them are kept alive here). Anything this module does
 * not pack itself goes to the package's Python code, so every refusal keeps its Python message. */
#ifndef CUABI_PYTHON_NATIVE_H
#define CUABI_PYTHON_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>

/* The largest packed argument block packed on the stack; a kernel with larger parameters launches
 * through the Python packer (CUDA allows up to 32764 bytes, kernels that large are rare). */
#define NATIVE_MAX_PACKED 4096

/* The kinds of a scalar type's encoding in NativeLayout.scalars: (kind << 8) | its size in bytes. */
enum { NATIVE_SCALAR_FLOAT = 1, NATIVE_SCALAR_SIGNED = 2, NATIVE_SCALAR_UNSIGNED = 3, NATIVE_SCALAR_BOOL = 4 };

/* A kernel's parameters, (offset, size) each, what a Buffer is, and the scalar types (NumPy's)
 * whose encoding the Python packer has taught it. */
typedef struct {
    PyObject_HEAD
    Py_ssize_t count;
    size_t size; /* the packed size: the end of the last parameter */
    PyObject* buffer_type;
    PyObject* scalars; /* dict: type -> int code (NATIVE_SCALAR_* << 8 | size), shared with Python */
    size_t* offsets;
    size_t* sizes;
} NativeLayout;

extern PyTypeObject* native_layout_type;
extern PyTypeObject* native_launcher_type;
extern PyTypeObject* native_batch_type;
extern PyTypeObject* native_owner_type;
extern PyTypeObject* native_compile_request_type;

/* Packs `args` (a tuple) into `out` (layout->size bytes, padding zeroed). Returns 1 when packed,
 * 0 when an argument is one this module leaves to the Python packer (a count that does not match,
 * a type other than exact int, float, Buffer and the scalar types taught, a value out of the
 * parameter's range, a size that differs from the parameter's); no Python error is set either way. */
int native_pack(NativeLayout* layout, PyObject* args, unsigned char* out);

/* Raises the exception `error(status)` returns (the package's last_error: the thread's message). */
PyObject* native_raise_status(PyObject* error, int status);

/* An address the package passed as a Python int, nonzero. Sets ValueError and returns 0 else. */
void* native_address(PyObject* value, const char* what);

/* A new Owner (owner.c) of `handle`, destroyed through `destroy` (a function of one handle argument
 * returning void, or cuabi_status where returns_status is nonzero); `keep` (may be NULL) lives
 * until the handle is destroyed. */
PyObject* native_owner_new(void* destroy, void* handle, int returns_status, PyObject* keep);

/* Makes the type of `spec`, keeps it in *out and adds it to `module` as `name`. -1 on failure. */
int native_add_type(PyObject* module, PyType_Spec* spec, const char* name, PyTypeObject** out);

int native_add_layout(PyObject* module);
int native_add_launcher(PyObject* module);
int native_add_batch(PyObject* module);
int native_add_owner(PyObject* module);
int native_add_compile(PyObject* module);

#endif
