package cuabi

import (
	"encoding/binary"
	"errors"
	"testing"
)

// Tensor maps and peer copies without a GPU: the description reaches cuabi's rule checks whole
// (they come before the buffer, so a zero handle does), a *TensorMap is encoded as its 128 bytes,
// and closed handles are refused before cuabi is called.

func validTensorMapParams() TensorMapParams {
	return TensorMapParams{DataType: TensorDataFloat32, GlobalDims: []uint64{64, 32}, GlobalStrides: []uint64{256},
		BoxDims: []uint32{32, 8}}
}

func TestTensorMapRulesAreCheckedByCuabiAndNamed(t *testing.T) {
	valid := validTensorMapParams()
	_, err := encodeTiled(0, &valid)
	wantStatus(t, err, ErrInvalidHandle, "buffer")
	for _, c := range []struct {
		change   func(*TensorMapParams)
		status   Status
		fragment string
	}{
		{func(p *TensorMapParams) { p.BoxDims[0] = 3 }, ErrInvalidArgument, "box_dims[0] 3 x 4-byte FLOAT32 = 12 bytes"},
		{func(p *TensorMapParams) { p.GlobalStrides[0] = 250 }, ErrInvalidArgument, "global_strides[0]"},
		{func(p *TensorMapParams) { p.GlobalDims = make([]uint64, TensorMapMaxRank+1) }, ErrInvalidArgument, "rank is 6"},
		{func(p *TensorMapParams) { p.ElementStrides = []uint32{1, 9} }, ErrInvalidArgument, "element_strides[1] is 9"},
		{func(p *TensorMapParams) { p.Swizzle = TensorSwizzle32b; p.BoxDims[0] = 16 }, ErrInvalidArgument,
			"exceeds the 32-byte span of swizzle 1"},
		{func(p *TensorMapParams) { p.Interleave = TensorInterleave16b }, ErrInvalidArgument, "needs rank 3 or more"},
		{func(p *TensorMapParams) { p.L2Promotion = 9 }, ErrInvalidArgument, "l2_promotion is 9"},
		{func(p *TensorMapParams) { p.DataType = TensorDataInt32; p.OOBFill = TensorOOBFillNanRequestZeroFma },
			ErrInvalidArgument, "needs a floating-point data_type"},
	} {
		p := validTensorMapParams()
		c.change(&p)
		_, err := encodeTiled(0, &p)
		wantStatus(t, err, c.status, c.fragment)
	}
	_, err = encodeTiled(0, nil)
	wantStatus(t, err, ErrInvalidArgument, "nil")
}

func TestATensorMapArgumentIsItsSixteenWords(t *testing.T) {
	m := &TensorMap{}
	for i := range m.words {
		m.words[i] = uint64(i+1) << 8
	}
	var scratch [136]byte
	size, problem := encodeArg(scratch[:], []any{m}, 0)
	if problem != argOK || size != 128 {
		t.Fatalf("size %d, problem %d; want 128, argOK", size, problem)
	}
	for i := range m.words {
		if got := binary.LittleEndian.Uint64(scratch[i*8:]); got != m.words[i] {
			t.Errorf("word %d: %#x, want %#x", i, got, m.words[i])
		}
	}
	if m.Words() != m.words {
		t.Error("Words differs from the descriptor")
	}
	var none *TensorMap
	if _, problem := encodeArg(scratch[:], []any{none}, 0); problem == argOK {
		t.Error("a nil *TensorMap was accepted")
	}
}

func TestPeerCallsRefuseClosedHandlesBeforeCuabi(t *testing.T) {
	var closed *Context
	open := &Context{}
	if _, err := closed.CanAccessPeer(open); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("CanAccessPeer on a nil context: %v", err)
	}
	for _, err := range []error{open.EnablePeerAccess(closed), open.DisablePeerAccess(nil)} {
		wantStatus(t, err, ErrInvalidHandle, "cuabi.Context was closed")
	}
	if _, err := open.PeerAccessEnabled(nil); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("PeerAccessEnabled with a nil peer: %v", err)
	}
	var buffer *Buffer
	wantStatus(t, (&Buffer{}).CopyPeer(nil, 0, buffer, 0, 16, PeerCopyStaged), ErrInvalidHandle, "cuabi.Buffer was closed")
	if _, err := NewTensorMap(buffer, &TensorMapParams{}); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("NewTensorMap on a nil buffer: %v", err)
	}
}
