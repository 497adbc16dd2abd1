package cuabi

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// The launch arguments' encoding, which needs no GPU.

type celsius float32

func TestArgumentsAreEncodedInTheirCSize(t *testing.T) {
	buffer := &Buffer{address: 0x7f0012345600}
	for _, c := range []struct {
		value any
		want  []byte
	}{
		{true, []byte{1}},
		{int8(-2), []byte{0xfe}},
		{uint8(7), []byte{7}},
		{int16(-2), []byte{0xfe, 0xff}},
		{uint16(0x1234), []byte{0x34, 0x12}},
		{int32(-1), []byte{0xff, 0xff, 0xff, 0xff}},
		{uint32(0x01020304), []byte{4, 3, 2, 1}},
		{float32(2), []byte{0, 0, 0, 0x40}},
		{int64(-1), bytes.Repeat([]byte{0xff}, 8)},
		{uint64(1), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{math.Float64frombits(0x0102030405060708), []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{DevicePtr(0xabcdef), []byte{0xef, 0xcd, 0xab, 0, 0, 0, 0, 0}},
		{Condition(0x0102), []byte{2, 1, 0, 0, 0, 0, 0, 0}},
		{complex64(complex(1, 2)), []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40}},
		{complex(1.0, 0), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0}},
		{buffer, []byte{0x00, 0x56, 0x34, 0x12, 0x00, 0x7f, 0, 0}},
		{[]byte{9, 8, 7}, []byte{9, 8, 7}},
	} {
		var scratch [16]byte
		size, problem := encodeArg(scratch[:], []any{c.value}, 0)
		if problem != argOK || size != len(c.want) || !bytes.Equal(scratch[:size], c.want) {
			t.Errorf("%T %v: got % x (problem %d), want % x", c.value, c.value, scratch[:size], problem, c.want)
		}
		if size, _ := encodeArg(scratch[:size-1], []any{c.value}, 0); size != len(c.want) {
			t.Errorf("%T: size %d reported for a short destination, want %d", c.value, size, len(c.want))
		}
	}
}

func TestArgumentsWithoutAFixedCSizeAreRefused(t *testing.T) {
	closed := &Buffer{}
	for _, c := range []struct {
		value     any
		status    Status
		fragments []string
	}{
		{1, ErrInvalidArgument, []string{"argument 0", "Go int", "int32"}},
		{uint(1), ErrInvalidArgument, []string{"Go uint"}},
		{uintptr(1), ErrInvalidArgument, []string{"Go uintptr"}},
		{celsius(1), ErrInvalidArgument, []string{"cuabi.celsius", "cannot pass"}},
		{"text", ErrInvalidArgument, []string{"string"}},
		{nil, ErrInvalidArgument, []string{"nil"}},
		{closed, ErrInvalidHandle, []string{"closed or nil *cuabi.Buffer"}},
		{(*Buffer)(nil), ErrInvalidHandle, []string{"closed or nil"}},
	} {
		var scratch [16]byte
		args := []any{c.value}
		_, problem := encodeArg(scratch[:], args, 0)
		wantStatus(t, argError(problem, args, 0, "kernel 'k'"), c.status, append(c.fragments, "kernel 'k'")...)
	}
}

var saxpyLayout = &paramLayout{params: []paramSlot{{0, 4}, {8, 8}, {16, 8}, {24, 4}}, size: 28}

func TestPackPlacesArgumentsAtTheirOffsets(t *testing.T) {
	k := &Kernel{name: "saxpy"}
	packed := make([]byte, saxpyLayout.size)
	must(t, k.pack(packed, saxpyLayout, []any{float32(2), DevicePtr(0x1000), DevicePtr(0x2000), uint32(5)}))
	want := []byte{0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0}
	if !bytes.Equal(packed, want) {
		t.Errorf("packed % x\n  want % x", packed, want)
	}
}

func TestPackRefusesWrongCountAndSizes(t *testing.T) {
	k := &Kernel{name: "saxpy"}
	packed := make([]byte, saxpyLayout.size)
	err := k.pack(packed, saxpyLayout, []any{float32(2), DevicePtr(1), DevicePtr(2)})
	wantStatus(t, err, ErrArgumentCount, "saxpy", "takes 4 parameters; 3 arguments")
	err = k.pack(packed, saxpyLayout, []any{2.0, DevicePtr(1), DevicePtr(2), uint32(5)})
	wantStatus(t, err, ErrArgumentSize, "parameter 0 takes 4 bytes", "float64 of 8 bytes")
	err = k.pack(packed, saxpyLayout, []any{float32(2), DevicePtr(1), DevicePtr(2), []byte{1, 2}})
	wantStatus(t, err, ErrArgumentSize, "parameter 3")
}

// Packing Go values allocates nothing: the arguments and the packed buffer stay on the stack.
func TestPackAllocatesNothing(t *testing.T) {
	k := &Kernel{name: "saxpy"}
	x, y := DevicePtr(0x1000), DevicePtr(0x2000)
	a, n := float32(2), uint32(1<<20)
	allocs := testing.AllocsPerRun(1000, func() {
		var packed [64]byte
		if err := k.pack(packed[:saxpyLayout.size], saxpyLayout, []any{a, x, y, n}); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("packing allocates %v times per launch", allocs)
	}
}

func TestDim3TrailingZerosCountAsOne(t *testing.T) {
	for _, c := range []struct {
		in   Dim3
		want [3]uint32
	}{
		{Dim3{X: 256}, [3]uint32{256, 1, 1}},
		{Dim3{X: 16, Y: 16}, [3]uint32{16, 16, 1}},
		{Dim3{X: 2, Y: 3, Z: 4}, [3]uint32{2, 3, 4}},
		{Dim3{}, [3]uint32{0, 1, 1}},
		{Dim3{X: 4, Z: 2}, [3]uint32{4, 0, 2}},
	} {
		got := c.in.c()
		if [3]uint32{uint32(got[0]), uint32(got[1]), uint32(got[2])} != c.want {
			t.Errorf("%+v -> %v, want %v", c.in, got, c.want)
		}
	}
}

func TestLaunchOnAClosedStreamIsRefused(t *testing.T) {
	k := &Kernel{name: "k"}
	k.h.set(1) // never reaches the library: the closed stream is refused first
	err := k.LaunchTable(LaunchConfig{Stream: &Stream{}})
	wantStatus(t, err, ErrInvalidHandle, "cuabi.Stream")
	if !strings.Contains(err.Error(), "CUABI_ERROR_INVALID_HANDLE") {
		t.Errorf("Error() = %q", err)
	}
}
