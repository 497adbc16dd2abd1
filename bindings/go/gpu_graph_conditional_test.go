package cuabi

import (
	"errors"
	"testing"
)

const conditionalSource = `extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
extern "C" __global__ void set_condition(cudaGraphConditionalHandle condition, unsigned value) {
    cudaGraphSetConditional(condition, value);
}
extern "C" __global__ void add_value(unsigned* out, unsigned value) { *out += value; }
`

func conditionalKernel(t *testing.T, f *saxpyFixture, name string) *Kernel {
	t.Helper()
	module, err := f.ctx.Compile(conditionalSource, nil)
	must(t, err)
	t.Cleanup(func() { module.Close() })
	kernel, err := module.Kernel(name)
	must(t, err)
	t.Cleanup(func() { kernel.Close() })
	return kernel
}

func readUint32(t *testing.T, b *Buffer) uint32 {
	t.Helper()
	got := make([]uint32, 1)
	must(t, ReadSlice(b, 0, got))
	return got[0]
}

// A while node runs saxpy until count_down clears the condition: y grows by exactly 5 x.
func TestGPUWhileNodeRunsUntilAKernelClearsTheCondition(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	countDown := conditionalKernel(t, f, "count_down")
	counter := deviceSlice(t, f.ctx, []uint32{5})
	one := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 1}, Stream: f.stream}
	var made Condition
	g, err := f.stream.Capture(CaptureThreadLocal, func() error {
		condition, err := f.stream.CreateCondition(1, ConditionAssignDefault)
		if err != nil {
			return err
		}
		made = condition
		return f.stream.CaptureWhile(condition, func() error {
			if err := f.saxpy.Launch(f.config(), float32(1), f.x, f.y, uint32(f.n)); err != nil {
				return err
			}
			return countDown.Launch(one, counter, condition)
		})
	})
	must(t, err)
	defer g.Close()
	must(t, g.Launch(f.stream))
	for k := 0; k < 5; k++ {
		f.expectSaxpy(1)
	}
	f.checkY(t)
	if left := readUint32(t, counter); left != 0 {
		t.Errorf("counter = %d after the replay, want 0", left)
	}
	info, err := g.Node(0)
	must(t, err)
	if info.Kind != NodeConditional || info.ConditionalType != ConditionalWhile || info.ConditionalBodyCount != 1 ||
		info.Condition != made || info.ConditionalBodyNodes != 2 {
		t.Errorf("node 0 = %+v, want a while node of 1 body with 2 nodes testing %#x", info, made)
	}
}

// If (with an else body) and switch nodes run the body their condition names.
func TestGPUIfAndSwitchNodesRunTheBodyTheirConditionNames(t *testing.T) {
	f := newSaxpyFixture(t, 256)
	if version, err := DriverVersion(); err != nil || version < 12080 {
		t.Skip("if-else and switch nodes need a CUDA 12.8 driver")
	}
	set, add := conditionalKernel(t, f, "set_condition"), conditionalKernel(t, f, "add_value")
	out := deviceSlice(t, f.ctx, []uint32{0})
	one := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 1}, Stream: f.stream}
	adder := func(value uint32) func() error { return func() error { return add.Launch(one, out, value) } }
	g, err := f.stream.Capture(CaptureThreadLocal, func() error {
		condition, err := f.stream.CreateCondition(0, ConditionAssignDefault)
		if err != nil {
			return err
		}
		if err := set.Launch(one, condition, uint32(0)); err != nil {
			return err
		}
		if err := f.stream.CaptureIf(condition, adder(1), adder(10)); err != nil {
			return err
		}
		choice, err := f.stream.CreateCondition(2, ConditionAssignDefault)
		if err != nil {
			return err
		}
		return f.stream.CaptureSwitch(choice, adder(100), adder(200), adder(400))
	})
	must(t, err)
	defer g.Close()
	must(t, g.Launch(f.stream))
	must(t, f.stream.Synchronize())
	if got := readUint32(t, out); got != 410 {
		t.Errorf("out = %d, want 410 (the else body and case 2)", got)
	}
}

// A refused node ends the whole capture, and the error says why.
func TestGPURefusedConditionalsEndTheCapture(t *testing.T) {
	f := newSaxpyFixture(t, 256)
	_, err := f.stream.Capture(CaptureThreadLocal, func() error {
		return f.stream.CaptureWhile(Condition(0x1234567), func() error { return nil })
	})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a forged condition: %v, want ErrInvalidArgument", err)
	}
	status, err := f.stream.CaptureStatus()
	must(t, err)
	if status != CaptureNone {
		t.Errorf("capture status %d after the refusal, want CaptureNone", status)
	}
	if _, err := f.stream.CreateCondition(1, ConditionDefault); !errors.Is(err, ErrCapture) {
		t.Errorf("not capturing: %v, want ErrCapture", err)
	}
}
