package cuabi

/*
#cgo noescape cuabi_go_batch_launch
#cgo nocallback cuabi_go_batch_launch
#include <stdlib.h>
#include "batch_shim.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// MaxBatchItems is the most launches one LaunchBatch holds (CUABI_LAUNCH_BATCH_MAX_ITEMS).
const MaxBatchItems = C.CUABI_LAUNCH_BATCH_MAX_ITEMS

// batchArgAlign aligns each launch's packed arguments in the scratch, as a C compiler aligns a
// struct of any kernel parameter type.
const batchArgAlign = 16

// LaunchBatch is a reusable list of launches submitted with one cgo crossing
// (cuabi_launch_batch), so a launch-bound Go program pays the crossing once per batch instead of
// once per kernel. Its storage -- launch entries and packed arguments -- is C memory allocated once
// by NewLaunchBatch: Add writes into it and Launch passes only that C pointer, so no Go pointer
// crosses and neither Add nor Launch allocates.
//
// A LaunchBatch is not safe for concurrent use. Close releases its C memory (a finalizer does too).
type LaunchBatch struct {
	c        *C.cuabi_go_batch
	entries  []C.cuabi_go_batch_entry // views of the C memory
	args     []byte
	count    int
	argsUsed int
	// What the entries name, kept reachable until Reset: the C side holds only their handles.
	kernels []*Kernel
	streams []*Stream
}

// NewLaunchBatch makes a batch of up to capacity launches (1..MaxBatchItems) whose packed
// arguments take up to argBytes bytes in all (each launch's arguments start 16-byte aligned).
// ErrInvalidArgument for a capacity out of range or a negative argBytes, ErrOutOfHostMemory when
// the C memory cannot be allocated.
func NewLaunchBatch(capacity, argBytes int) (*LaunchBatch, error) {
	if capacity < 1 || capacity > MaxBatchItems {
		return nil, newError(ErrInvalidArgument,
			"a LaunchBatch of capacity %d was asked for; it holds 1 to %d launches (CUABI_LAUNCH_BATCH_MAX_ITEMS). Fix: pass a capacity in that range.",
			capacity, MaxBatchItems)
	}
	if argBytes < 0 {
		return nil, newError(ErrInvalidArgument, "argBytes is %d. Fix: pass the bytes of packed arguments the batch needs, or 0.", argBytes)
	}
	c := C.cuabi_go_batch_new(C.size_t(capacity), C.size_t(argBytes))
	if c == nil {
		return nil, newError(ErrOutOfHostMemory,
			"no memory for a LaunchBatch of %d launches and %d argument bytes. Fix: free memory, or make a smaller batch.",
			capacity, argBytes)
	}
	b := &LaunchBatch{
		c:       c,
		entries: unsafe.Slice(c.entries, capacity),
		kernels: make([]*Kernel, 0, capacity),
		streams: make([]*Stream, 0, capacity),
	}
	if argBytes > 0 {
		b.args = unsafe.Slice((*byte)(unsafe.Pointer(c.args)), argBytes)
	}
	runtime.SetFinalizer(b, (*LaunchBatch).Close)
	return b, nil
}

// Len is the number of launches added since the last Reset.
func (b *LaunchBatch) Len() int { return b.count }

// Add appends a launch of k with config and args, encoded and checked as Kernel.Launch encodes
// and checks them (count and sizes against the kernel's parameter layout). Everything else is
// checked when Launch submits it. On an error nothing is added. ErrInvalidArgument when the batch
// is full or its argument bytes are used up; a closed batch, kernel or stream is ErrInvalidHandle.
// Add allocates nothing (after the kernel's first use, which reads its parameter layout).
func (b *LaunchBatch) Add(k *Kernel, config LaunchConfig, args ...any) error {
	if b == nil || b.c == nil {
		return errClosed("cuabi.LaunchBatch")
	}
	if b.count == len(b.entries) {
		return newError(ErrInvalidArgument,
			"the LaunchBatch holds %d launches, its capacity. Fix: Launch and Reset it, or make it with a larger capacity.", b.count)
	}
	bits, layout, err := k.refAndLayout()
	if err != nil {
		return err
	}
	offset := (b.argsUsed + batchArgAlign - 1) &^ (batchArgAlign - 1)
	if offset+layout.size > len(b.args) {
		return newError(ErrInvalidArgument,
			"kernel '%s' needs %d bytes of arguments, but the LaunchBatch has %d of its %d bytes left. Fix: Launch and Reset it, or make it with more argBytes.",
			k.name, layout.size, max(len(b.args)-offset, 0), len(b.args))
	}
	entry := &b.entries[b.count]
	*entry = C.cuabi_go_batch_entry{kernel: bits, args_offset: C.uint64_t(offset), args_size: C.uint64_t(layout.size)}
	packed := b.args[offset : offset+layout.size]
	clear(packed)
	if err := k.prepare(&config, &entry.config, packed, layout, args); err != nil {
		return err
	}
	b.count++
	b.argsUsed = offset + layout.size
	b.kernels = append(b.kernels, k)
	if config.Stream != nil {
		b.streams = append(b.streams, config.Stream)
	}
	return nil
}

// Launch submits the batch's launches in order with one crossing (cuabi_launch_batch), each
// checked as one Kernel.Launch would be. It returns how many were submitted: all of them on
// success. When launch k is refused, launches 0..k-1 stay submitted, none after k is, Launch
// returns k and k's error, whose message begins "cuabi_launch_batch item k of n: ". The batch keeps
// its launches: Launch again to submit the same ones, or Reset to fill it anew. An empty batch
// launches nothing. Launch allocates nothing.
func (b *LaunchBatch) Launch() (int, error) {
	if b == nil || b.c == nil {
		return 0, errClosed("cuabi.LaunchBatch")
	}
	if err := loaded(); err != nil {
		return 0, err
	}
	f := C.cuabi_go_batch_launch(b.c, C.size_t(b.count))
	submitted := int(b.c.submitted)
	runtime.KeepAlive(b)
	return submitted, takeFailure(f)
}

// Reset empties the batch (its memory stays, for the next Adds) and lets go of the kernels and
// streams it named.
func (b *LaunchBatch) Reset() {
	if b == nil {
		return
	}
	clear(b.kernels)
	clear(b.streams)
	b.kernels, b.streams = b.kernels[:0], b.streams[:0]
	b.count, b.argsUsed = 0, 0
}

// Close releases the batch's C memory. Closing twice is harmless; it returns nil.
func (b *LaunchBatch) Close() error {
	if b == nil || b.c == nil {
		return nil
	}
	C.cuabi_go_batch_free(b.c)
	b.c, b.entries, b.args = nil, nil, nil
	b.Reset()
	runtime.SetFinalizer(b, nil)
	return nil
}
