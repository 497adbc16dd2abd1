package cuabi

import (
	"testing"
)

// Handles that are not live are refused by the library with ErrInvalidHandle, through the same
// trampolines a live handle takes; closed and nil values are refused before the call.
func TestMemoryCallsRefuseDeadHandles(t *testing.T) {
	forgedPool := &MemoryPool{}
	forgedPool.h.bits.Store(uintptr(10)<<56 | uintptr(1)<<32 | 4000000)
	_, err := forgedPool.Attribute(PoolUsedCurrent)
	wantStatus(t, err, ErrInvalidHandle)
	wantStatus(t, forgedPool.Trim(0), ErrInvalidHandle)
	wantStatus(t, forgedPool.SetReleaseThreshold(1<<20), ErrInvalidHandle)
	forgedPool.h.bits.Store(0)

	forgedBuffer := &Buffer{size: 64}
	forgedBuffer.h.bits.Store(uintptr(4)<<56 | uintptr(1)<<32 | 4000000)
	wantStatus(t, forgedBuffer.FreeAsync(nil), ErrInvalidHandle)
	if forgedBuffer.h.bits.Load() == 0 {
		t.Error("a refused FreeAsync closed the Buffer; it must stay open")
	}
	wantStatus(t, forgedBuffer.Prefetch(nil, 0, 64, LocationHost), ErrInvalidHandle)
	wantStatus(t, forgedBuffer.Advise(0, 64, AdviceSetReadMostly, 0), ErrInvalidHandle)
	_, err = forgedBuffer.HostBytes()
	wantStatus(t, err, ErrInvalidHandle)
	forgedBuffer.h.bits.Store(0)

	var nilPool *MemoryPool
	_, err = nilPool.Attribute(PoolReservedCurrent)
	wantStatus(t, err, ErrInvalidHandle, "cuabi.MemoryPool")
	if err := nilPool.Close(); err != nil {
		t.Errorf("closing a nil MemoryPool: %v", err)
	}
	var nilContext *Context
	_, err = nilContext.NewMemoryPool(nil)
	wantStatus(t, err, ErrInvalidHandle)
	_, err = nilContext.DefaultMemoryPool()
	wantStatus(t, err, ErrInvalidHandle)
	_, err = nilContext.NewBufferAsync(64, nil, nil, nil)
	wantStatus(t, err, ErrInvalidHandle)
	_, err = nilContext.NewManagedBuffer(64, ManagedDefault)
	wantStatus(t, err, ErrInvalidHandle)
}

// The library checks advice, locations and attributes before it looks at the handle.
func TestMemoryCallsRefuseUnknownValues(t *testing.T) {
	b := &Buffer{size: 64}
	b.h.bits.Store(uintptr(4)<<56 | uintptr(1)<<32 | 4000000)
	defer b.h.bits.Store(0)
	wantStatus(t, b.Advise(0, 64, Advice(9), 0), ErrInvalidArgument, "advice 9")
	wantStatus(t, b.Advise(0, 64, AdviceSetAccessedBy, Location(-2)), ErrInvalidArgument, "location -2")
	wantStatus(t, b.Prefetch(nil, 0, 64, Location(-5)), ErrInvalidArgument, "location -5")
	wantStatus(t, b.Prefetch(nil, 0, -1, LocationHost), ErrOutOfBounds)
	p := &MemoryPool{}
	p.h.bits.Store(uintptr(10)<<56 | uintptr(1)<<32 | 4000000)
	defer p.h.bits.Store(0)
	_, err := p.Attribute(PoolAttribute(0))
	wantStatus(t, err, ErrInvalidArgument, "attribute 0")
}
