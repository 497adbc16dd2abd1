package cuabi

import (
	"encoding/binary"
	"math"
	"testing"
)

// saxpyFixture: a context on device 0, a stream, the test source compiled for the device with its
// kernels, and x[i] = i, y[i] = 1 on the device, with y's expected value kept on the host.
type saxpyFixture struct {
	ctx          *Context
	stream       *Stream
	module       *Module
	saxpy, scale *Kernel
	x, y         *Buffer
	n            int
	xs, want     []float32
}

func newSaxpyFixture(t *testing.T, n int) *saxpyFixture {
	t.Helper()
	f := &saxpyFixture{ctx: gpu(t), n: n}
	var err error
	f.stream, err = f.ctx.NewStream(nil)
	must(t, err)
	t.Cleanup(func() { f.stream.Close() })
	f.module, err = f.ctx.Compile(testSource, &CompileOptions{NameExpressions: testExpressions})
	must(t, err)
	t.Cleanup(func() { f.module.Close() })
	f.saxpy, err = f.module.Kernel("saxpy")
	must(t, err)
	t.Cleanup(func() { f.saxpy.Close() })
	f.scale, err = f.module.Kernel("scale<float>")
	must(t, err)
	t.Cleanup(func() { f.scale.Close() })
	f.xs, f.want = make([]float32, n), make([]float32, n)
	for i := range f.xs {
		f.xs[i], f.want[i] = float32(i), 1
	}
	f.x = deviceSlice(t, f.ctx, f.xs)
	f.y = deviceSlice(t, f.ctx, f.want)
	return f
}

func deviceSlice[T Element](t *testing.T, ctx *Context, data []T) *Buffer {
	t.Helper()
	b, err := NewBufferFrom(ctx, data)
	must(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// config covers the n elements in blocks of 256 threads on the fixture's stream.
func (f *saxpyFixture) config() LaunchConfig {
	return LaunchConfig{Grid: Dim3{X: uint32((f.n + 255) / 256)}, Block: Dim3{X: 256}, Stream: f.stream}
}

// expectSaxpy applies y = a*x + y to the expected values as the GPU computes it: one fused
// multiply-add, rounded once to float32 (exact in float64 for these magnitudes).
func (f *saxpyFixture) expectSaxpy(a float32) {
	for i := range f.want {
		f.want[i] = fma32(a, f.xs[i], f.want[i])
	}
}

func fma32(a, x, y float32) float32 { return float32(float64(a)*float64(x) + float64(y)) }

// checkY synchronizes the stream and compares y with the expected values.
func (f *saxpyFixture) checkY(t *testing.T) {
	t.Helper()
	must(t, f.stream.Synchronize())
	checkFloats(t, "y", f.y, f.want)
}

func checkFloats(t *testing.T, name string, b *Buffer, want []float32) {
	t.Helper()
	got := make([]float32, len(want))
	must(t, ReadSlice(b, 0, got))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// packSaxpy lays saxpy's arguments out at the offsets the kernel reports, as a C caller would.
func packSaxpy(t *testing.T, k *Kernel, a float32, x, y DevicePtr, n uint32) []byte {
	t.Helper()
	values := [][]byte{
		binary.LittleEndian.AppendUint32(nil, math.Float32bits(a)),
		binary.LittleEndian.AppendUint64(nil, uint64(x)),
		binary.LittleEndian.AppendUint64(nil, uint64(y)),
		binary.LittleEndian.AppendUint32(nil, n),
	}
	var packed []byte
	for i, v := range values {
		offset, size, err := k.ParamInfo(i)
		must(t, err)
		if size != len(v) {
			t.Fatalf("parameter %d has %d bytes, want %d", i, size, len(v))
		}
		for len(packed) < offset+size {
			packed = append(packed, 0)
		}
		copy(packed[offset:], v)
	}
	return packed
}
