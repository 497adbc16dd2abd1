package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"time"
)

// Event is a marker in a stream: record it, wait for it, time the work between two of them.
// An Event is safe for concurrent use.
type Event struct {
	h handle
}

// EventOptions configure Context.NewEvent; the zero value (or nil) is a timing event.
type EventOptions struct {
	Flags EventFlags
}

// NewEvent creates an event. ErrInvalidArgument for unknown flags.
func (c *Context) NewEvent(options *EventOptions) (*Event, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_event_create(ctx, eventOptions(options), &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	e := &Event{}
	return own(e, &e.h, bits, (*Event).Close), nil
}

func eventOptions(options *EventOptions) *C.cuabi_event_options {
	o := &C.cuabi_event_options{struct_size: C.sizeof_cuabi_event_options, flags: C.CUABI_EVENT_DEFAULT}
	if options != nil {
		o.flags = C.uint32_t(options.Flags)
	}
	return o
}

// Close destroys the event. Closing twice is harmless; it returns nil.
func (e *Event) Close() error {
	if e != nil {
		e.h.release(e, func(bits C.uintptr_t) { C.cuabi_go_event_destroy(bits) })
	}
	return nil
}

func (e *Event) ref() (C.uintptr_t, error) {
	if e == nil {
		return 0, errClosed("cuabi.Event")
	}
	return e.h.ref("cuabi.Event")
}

// Record marks the current end of stream s; nil records on the calling thread's per-thread stream,
// where synchronous (nil-stream) work runs, so two events recorded with nil time that work.
func (e *Event) Record(s *Stream) error {
	stream, err := optionalStream(s)
	if err != nil {
		return err
	}
	err = call(e, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_event_record(bits, stream) })
	runtime.KeepAlive(s)
	return err
}

// Synchronize waits until the event has completed.
func (e *Event) Synchronize() error {
	return call(e, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_event_synchronize(bits) })
}

// Query reports whether the event has completed, without waiting.
func (e *Event) Query() (bool, error) {
	bits, err := e.ref()
	if err != nil {
		return false, err
	}
	f := C.cuabi_go_event_query(bits)
	runtime.KeepAlive(e)
	if quiet(f, ErrNotReady) {
		return false, nil
	}
	return f == nil, takeFailure(f)
}

// ElapsedTime is the time between two completed events (resolution about half a microsecond).
// ErrNotReady when one has not completed; ErrInvalidArgument when one was never recorded or was
// created with EventDisableTiming.
func ElapsedTime(start, end *Event) (time.Duration, error) {
	b, err := end.ref()
	if err != nil {
		return 0, err
	}
	var ms C.float
	err = call(start, func(a C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_event_get_elapsed_ms(a, b, &ms) })
	runtime.KeepAlive(end)
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}
