"""Python cffi in ABI mode: ffi.cdef() of the installed header after scripts/cffi-cdef.sh (the
documented preprocessing), then ffi.dlopen() of the installed library.

Reported through cffi: ffi.sizeof / ffi.offsetof of every struct and field, every integer
constant as lib.CUABI_X (cffi constants are plain Python ints, so the value -- sign included -- is
what is compared), every PFN_ type, and every function found in the library whose type is the
pointer type its PFN_ typedef names. Any warning cffi raises while parsing or loading fails the
probe. cffi has no string constants (CUABI_VERSION_STRING: call cuabi_version_number()).
"""
import os
import sys
import warnings

import expected as ex
from tool import run_clean, unavailable

KINDS = (ex.STRUCTS, ex.CONSTANTS, ex.PFNS, ex.FUNCTIONS)
TYPED_CONSTANTS = False


def report(ffi, lib, expected):
    lines = []
    for name, _, fields in expected.structs:
        lines.append("struct %s size=%d" % (name, ffi.sizeof(name)))
        lines += ["field %s.%s offset=%d" % (name, member, ffi.offsetof(name, member)) for member, _ in fields]
    for name, _, _ in expected.integers:
        if hasattr(lib, name):
            lines.append("constant %s value=%d" % (name, getattr(lib, name)))
    for name in expected.pfns:
        ffi.typeof(name)
        lines.append("pfn %s" % name)
    for name in expected.functions:
        function = getattr(lib, name, None)
        if function is None:
            continue
        pfn = "PFN_" + name
        same = pfn in expected.pfns and ffi.typeof(function) is ffi.typeof(pfn)
        lines.append("function %s%s" % (name, "" if same else " type %s, but %s is %s" % (
            ffi.typeof(function).cname, pfn, ffi.typeof(pfn).cname if pfn in expected.pfns else "missing")))
    return "\n".join(lines)


def run(expected, ctx):
    try:
        import cffi
    except ImportError:
        unavailable("Python cffi is not installed for %s" % sys.executable)
    cdef = run_clean(["bash", os.path.join(ctx.source_dir, "scripts", "cffi-cdef.sh"), ctx.header],
                     "scripts/cffi-cdef.sh", env=dict(os.environ, CC=ctx.cc))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ffi = cffi.FFI()
        ffi.cdef(cdef)
        lib = ffi.dlopen(ctx.library)
        text = report(ffi, lib, expected)
    problems = ["cffi %s: %s" % (w.category.__name__, w.message) for w in caught]
    print("cffi %s read %d lines of declarations" % (cffi.__version__, len(cdef.splitlines())))
    return text, problems
