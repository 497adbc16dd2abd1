/* The C side of the overhead benchmark: cuabi_launch and cuabi_launch_packed called from a C loop,
 * on the same library (the Go package already loaded it), the same CUstream and the same kernel
 * as the Go side, in the same process. */
#ifndef CUABI_GO_OVERHEAD_BASELINE_H
#define CUABI_GO_OVERHEAD_BASELINE_H

#include <stddef.h>
#include <stdint.h>

/* Opens `library` (already loaded by the Go package), makes a context, compiles `source` (a memory
 * cache hit after Go's compile), takes kernel `name` (saxpy's parameters), and wraps `cu_stream`.
 * The arguments are (1.0f, x, y, n). Returns 0, or -1 with the reason in `error`. */
int baseline_open(const char* library, const char* source, const char* name, void* cu_stream, uint64_t x, uint64_t y,
                  uint32_t n, char* error, size_t capacity);

/* Nanoseconds for `launches` launches from a C loop (argument table or packed), timed with
 * CLOCK_MONOTONIC; -1 when a launch fails (the reason in `error`). */
double baseline_table(int launches, char* error, size_t capacity);
double baseline_packed(int launches, char* error, size_t capacity);

/* One cuabi_launch (argument table) and its status: called once per cgo crossing, it measures what
 * the crossing itself adds around a real driver call, apart from the package's own work. */
int baseline_launch_once(void);

void baseline_close(void);

#endif
