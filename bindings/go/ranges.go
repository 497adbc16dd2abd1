package cuabi

// #include "zcalls.h"
import "C"

import "runtime"

// Profiler ranges: cuabi marks its own phases as NVTX ranges in the "cuabi" domain (RangeCatalog
// lists them), and programs mark theirs the same way, in "cuabi" (domain "") or a domain they
// name. With no profiler attached a range costs a flag check; CUABI_NVTX=0 turns ranges off. The
// checks (names, push depth, ending twice) apply with or without a profiler. All of it is safe for
// concurrent use and needs no GPU.

// RangesEnabled reports whether cuabi emits NVTX ranges (false when CUABI_NVTX=0).
func RangesEnabled() bool {
	if loaded() != nil {
		return false
	}
	var on C.uint32_t
	return takeFailure(C.cuabi_go_range_get_enabled(&on)) == nil && on != 0
}

// ProfilerAttached reports whether ranges are enabled and an NVTX tool (Nsight Systems, ...) is
// attached to this process.
func ProfilerAttached() bool {
	if loaded() != nil {
		return false
	}
	var on C.uint32_t
	return takeFailure(C.cuabi_go_range_get_profiler_attached(&on)) == nil && on != 0
}

// RangeCatalogEntry is one of cuabi's own ranges: its NVTX message ("cuabi.compile") and the phase
// it covers.
type RangeCatalogEntry struct {
	Name, Description string
}

// RangeCatalog lists cuabi's own ranges.
func RangeCatalog() ([]RangeCatalogEntry, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	var count C.size_t
	if err := takeFailure(C.cuabi_go_range_get_catalog_count(&count)); err != nil {
		return nil, err
	}
	entries := make([]RangeCatalogEntry, int(count))
	for i := range entries {
		var name, description *C.char // static strings of the library
		if err := takeFailure(C.cuabi_go_range_get_catalog_entry(C.size_t(i), &name, &description)); err != nil {
			return nil, err
		}
		entries[i] = RangeCatalogEntry{C.GoString(name), C.GoString(description)}
	}
	return entries, nil
}

// rangeText converts a name and a domain ("": cuabi's, passed as NULL).
func rangeText(name, domain string) (*C.char, *C.char, error) {
	n, err := text("the range name", name)
	if err != nil || domain == "" {
		return n, nil, err
	}
	d, err := text("the range domain", domain)
	return n, d, err
}

// PushRange opens range name in domain ("": "cuabi") on the calling OS thread; PopRange closes it.
// Both must run on the same thread, so hold runtime.LockOSThread from push to pop (StartRange
// needs no thread). ErrInvalidArgument for an empty or invalid UTF-8 name or domain, ErrRange
// beyond 256 domains.
func PushRange(name, domain string) error {
	if err := loaded(); err != nil {
		return err
	}
	n, d, err := rangeText(name, domain)
	if err != nil {
		return err
	}
	return takeFailure(C.cuabi_go_range_push(n, d))
}

// PopRange closes the innermost range the calling OS thread opened with PushRange. ErrRange when
// it has none open.
func PopRange() error {
	if err := loaded(); err != nil {
		return err
	}
	return takeFailure(C.cuabi_go_range_pop())
}

// Range is a profiler range that any goroutine may end (StartRange). Safe for concurrent use:
// exactly one End succeeds.
type Range struct {
	h handle
}

// StartRange starts range name in domain ("": "cuabi"), to be ended by End from any goroutine.
// Errors as for PushRange.
func StartRange(name, domain string) (*Range, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	n, d, err := rangeText(name, domain)
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	if err := takeFailure(C.cuabi_go_range_start(n, d, &bits)); err != nil {
		return nil, err
	}
	r := &Range{}
	return own(r, &r.h, bits, (*Range).Close), nil
}

// End ends the range. Ending it again returns ErrInvalidHandle and changes nothing.
func (r *Range) End() error {
	if r == nil {
		return errClosed("cuabi.Range")
	}
	bits := r.h.take()
	if bits == 0 {
		return errClosed("cuabi.Range")
	}
	runtime.SetFinalizer(r, nil)
	return takeFailure(C.cuabi_go_range_end(bits))
}

// Close ends the range if it has not ended; it returns nil (the finalizer calls it for ranges
// nobody ended).
func (r *Range) Close() error {
	if r != nil && r.h.bits.Load() != 0 {
		r.End()
	}
	return nil
}
