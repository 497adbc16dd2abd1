/* A kernel's parameter layout and the packing of exact Python ints, floats and Buffers into it.
 * The encodings are the Python packer's (cuabi/kernel.py): an int takes the parameter's size,
 * unsigned, or signed when negative; a float is a float32 or float64 by the parameter's size; a
 * Buffer is its 8-byte device address; a scalar of a type in `scalars` (NumPy's, each added by the
 * Python packer when it first encodes one) has its own size, which must be the parameter's.
 * Everything else, and every value that does not fit, is the Python packer's to encode or refuse. */
#include "native.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the packing copies the low bytes of host integers: it needs a little-endian host, as CUDA's are"
#endif

PyTypeObject* native_layout_type;
static PyObject* address_name;

static int pack_int(PyObject* value, size_t size, unsigned char* out) {
    if (size != 1 && size != 2 && size != 4 && size != 8) return 0;
    int overflow = 0;
    long long signed_value = PyLong_AsLongLongAndOverflow(value, &overflow);
    uint64_t bits;
    if (overflow == 0) {
        if (signed_value == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        const unsigned shift = (unsigned)(8 * size);
        if (signed_value >= 0) {
            if (size < 8 && ((uint64_t)signed_value >> shift) != 0) return 0;
        } else if (size < 8 && signed_value < -(1LL << (shift - 1))) {
            return 0;
        }
        bits = (uint64_t)signed_value;
    } else if (overflow > 0 && size == 8) {
        /* Above INT64_MAX: an unsigned 64-bit parameter still holds it up to 2**64 - 1. */
        bits = PyLong_AsUnsignedLongLong(value);
        if (bits == (uint64_t)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    } else {
        return 0;
    }
    memcpy(out, &bits, size);
    return 1;
}

static int pack_float(PyObject* value, size_t size, unsigned char* out) {
    const double number = PyFloat_AsDouble(value);
    if (size == 8) {
        memcpy(out, &number, 8);
        return 1;
    }
    if (size != 4) return 0; /* float16 and the size errors are the Python packer's */
    const float narrow = (float)number;
    if (isinf(narrow) && !isinf(number)) return 0; /* the Python packer raises OverflowError */
    memcpy(out, &narrow, 4);
    return 1;
}

static int pack_buffer(PyObject* value, size_t size, unsigned char* out) {
    if (size != 8) return 0;
    PyObject* address = PyObject_GetAttr(value, address_name);
    if (address == NULL) {
        PyErr_Clear();
        return 0;
    }
    uint64_t bits = 0;
    int packed = 0;
    if (PyLong_CheckExact(address)) {
        bits = PyLong_AsUnsignedLongLong(address);
        if (bits == (uint64_t)-1 && PyErr_Occurred()) PyErr_Clear();
        else packed = 1;
    }
    Py_DECREF(address);
    if (packed) memcpy(out, &bits, 8);
    return packed;
}

/* A scalar of a type the Python packer taught (`code` from the scalars dict): its own size must be
 * the parameter's, as the Python packer requires. */
static int pack_scalar(PyObject* value, PyObject* code, size_t size, unsigned char* out) {
    const long bits = PyLong_AsLong(code);
    const long kind = bits >> 8;
    if (bits < 0 || (size_t)(bits & 0xFF) != size) {
        PyErr_Clear();
        return 0;
    }
    if (kind == NATIVE_SCALAR_FLOAT) {
        const double number = PyFloat_AsDouble(value);
        if (number == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (size == 8) {
            memcpy(out, &number, 8);
            return 1;
        }
        if (size != 4) return 0;
        const float narrow = (float)number; /* exact: the value is a float32 */
        memcpy(out, &narrow, 4);
        return 1;
    }
    if (kind == NATIVE_SCALAR_BOOL) {
        const int truth = PyObject_IsTrue(value);
        if (truth < 0 || size != 1) {
            PyErr_Clear();
            return 0;
        }
        *out = (unsigned char)truth;
        return 1;
    }
    if (kind != NATIVE_SCALAR_SIGNED && kind != NATIVE_SCALAR_UNSIGNED) return 0;
    PyObject* integer = PyNumber_Index(value);
    if (integer == NULL) {
        PyErr_Clear();
        return 0;
    }
    /* In the type's range by construction; pack_int encodes it at the parameter's size. */
    const int packed = pack_int(integer, size, out);
    Py_DECREF(integer);
    return packed;
}

int native_pack(NativeLayout* layout, PyObject* args, unsigned char* out) {
    if (PyTuple_Size(args) != layout->count) return 0;
    memset(out, 0, layout->size);
    for (Py_ssize_t i = 0; i < layout->count; ++i) {
        PyObject* value = PyTuple_GetItem(args, i);
        unsigned char* at = out + layout->offsets[i];
        const size_t size = layout->sizes[i];
        int packed;
        if (PyLong_CheckExact(value)) packed = pack_int(value, size, at);
        else if (PyFloat_CheckExact(value)) packed = pack_float(value, size, at);
        else if ((PyObject*)Py_TYPE(value) == layout->buffer_type) packed = pack_buffer(value, size, at);
        else {
            PyObject* code = PyDict_GetItemWithError(layout->scalars, (PyObject*)Py_TYPE(value));
            if (code == NULL) PyErr_Clear();
            packed = code != NULL && pack_scalar(value, code, size, at);
        }
        if (!packed) return 0;
    }
    return 1;
}

/* Layout(params, buffer_type, scalars): params a sequence of (offset, size) in order, each
 * parameter after the previous one's end, the whole at most NATIVE_MAX_PACKED bytes; scalars a
 * dict of type -> code, kept (not copied): the package adds to it. */
static PyObject* layout_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    PyObject* params;
    PyObject* buffer_type;
    PyObject* scalars;
    static char* keywords[] = {"params", "buffer_type", "scalars", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!:Layout", keywords, &params, &buffer_type, &PyDict_Type,
                                     &scalars))
        return NULL;
    if (!PyType_Check(buffer_type)) {
        PyErr_SetString(PyExc_TypeError, "Layout: buffer_type must be a type");
        return NULL;
    }
    PyObject* items = PySequence_Tuple(params);
    if (items == NULL) return NULL;
    NativeLayout* self = (NativeLayout*)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    self->count = PyTuple_Size(items);
    self->offsets = PyMem_Calloc((size_t)self->count + 1, sizeof(size_t));
    self->sizes = PyMem_Calloc((size_t)self->count + 1, sizeof(size_t));
    Py_INCREF(buffer_type);
    self->buffer_type = buffer_type;
    Py_INCREF(scalars);
    self->scalars = scalars;
    if (self->offsets == NULL || self->sizes == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    size_t end = 0;
    for (Py_ssize_t i = 0; i < self->count; ++i) {
        PyObject* param = PyTuple_GetItem(items, i);
        Py_ssize_t offset, size;
        if (!PyTuple_Check(param)) {
            PyErr_Format(PyExc_TypeError, "Layout: parameter %zd is not an (offset, size) tuple", i);
            goto fail;
        }
        if (!PyArg_ParseTuple(param, "nn:Layout parameter", &offset, &size)) goto fail;
        if (offset < 0 || (size_t)offset < end || size <= 0 || offset > NATIVE_MAX_PACKED ||
            size > NATIVE_MAX_PACKED - offset) {
            PyErr_Format(PyExc_ValueError,
                         "Layout: parameter %zd at offset %zd of %zd bytes overlaps the one before it or "
                         "ends outside 0..%d bytes",
                         i, offset, size, NATIVE_MAX_PACKED);
            goto fail;
        }
        self->offsets[i] = (size_t)offset;
        self->sizes[i] = (size_t)size;
        end = (size_t)(offset + size);
    }
    self->size = end;
    Py_DECREF(items);
    return (PyObject*)self;
fail:
    Py_DECREF(items);
    Py_DECREF(self);
    return NULL;
}

static void layout_dealloc(NativeLayout* self) {
    PyTypeObject* type = Py_TYPE(self);
    PyMem_Free(self->offsets);
    PyMem_Free(self->sizes);
    Py_XDECREF(self->buffer_type);
    Py_XDECREF(self->scalars);
    PyObject_Free(self);
    Py_DECREF(type);
}

/* pack(args) -> bytes, or None when an argument is left to the Python packer. */
static PyObject* layout_pack(NativeLayout* self, PyObject* args) {
    unsigned char data[NATIVE_MAX_PACKED];
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_TypeError, "Layout.pack takes a tuple");
        return NULL;
    }
    if (!native_pack(self, args, data)) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char*)data, (Py_ssize_t)self->size);
}

static PyObject* layout_get_size(NativeLayout* self, void* closure) {
    (void)closure;
    return PyLong_FromSize_t(self->size);
}

static PyMethodDef layout_methods[] = {
    {"pack", (PyCFunction)layout_pack, METH_O,
     "pack(args) -> bytes, or None when an argument is left to the Python packer"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef layout_getset[] = {
    {"size", (getter)layout_get_size, NULL, "the packed size in bytes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot layout_slots[] = {
    {Py_tp_new, (void*)layout_new},
    {Py_tp_dealloc, (void*)layout_dealloc},
    {Py_tp_methods, layout_methods},
    {Py_tp_getset, layout_getset},
    {Py_tp_doc, "A kernel's parameter layout, packing exact ints, floats and Buffers."},
    {0, NULL},
};

static PyType_Spec layout_spec = {"cuabi._native.Layout", sizeof(NativeLayout), 0, Py_TPFLAGS_DEFAULT, layout_slots};

int native_add_layout(PyObject* module) {
    address_name = PyUnicode_InternFromString("address");
    if (address_name == NULL) return -1;
    return native_add_type(module, &layout_spec, "Layout", &native_layout_type);
}
