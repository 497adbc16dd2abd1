package cuabi_test

import (
	"errors"
	"fmt"
	"runtime"

	"cuabi"
)

const saxpySource = `extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
`

// Compile a kernel, launch it on buffers and read the result back.
func Example() {
	ctx, err := cuabi.NewContext(nil)
	if err != nil {
		fmt.Println(err) // without a GPU: CUABI_ERROR_DRIVER_NOT_FOUND: ... Fix: ...
		return
	}
	defer ctx.Close()
	module, err := ctx.Compile(saxpySource, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer module.Close()
	saxpy, err := module.Kernel("saxpy")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer saxpy.Close()
	x, _ := cuabi.NewBufferFrom(ctx, []float32{0, 1, 2, 3})
	defer x.Close()
	y, _ := cuabi.NewBufferFrom(ctx, []float32{1, 1, 1, 1})
	defer y.Close()

	// A nil Stream runs the launch synchronously.
	err = saxpy.Launch(cuabi.LaunchConfig{Grid: cuabi.Dim3{X: 1}, Block: cuabi.Dim3{X: 4}}, float32(2), x, y, uint32(4))
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float32, 4)
	cuabi.ReadSlice(y, 0, out)
	fmt.Println(out) // [1 3 5 7]
}

// Compile ahead of time, without a GPU, and read the C++ name a template lowered to.
func ExampleCompileOffline() {
	module, err := cuabi.CompileOffline(`template <typename T> __global__ void scale(T* p, T f) { *p *= f; }`,
		&cuabi.CompileOptions{Target: "sm_90", NameExpressions: []string{"scale<float>"}})
	if err != nil {
		var e *cuabi.Error
		if errors.As(err, &e) && e.Status == cuabi.ErrCompile {
			fmt.Println(e.Log) // NVRTC's whole log
		}
		return
	}
	defer module.Close()
	name, _ := module.LoweredName("scale<float>")
	fmt.Println(name) // _Z5scaleIfEvPT_S0_
}

// Failures are *cuabi.Error values whose Status is an error sentinel.
func ExampleError() {
	_, err := cuabi.CompileOffline("__global__ void broken( { }", &cuabi.CompileOptions{Target: "sm_90"})
	if errors.Is(err, cuabi.ErrCompile) {
		var e *cuabi.Error
		errors.As(err, &e)
		fmt.Println(e.Name)    // CUABI_ERROR_COMPILE
		fmt.Println(e.Message) // ... Fix: ...
	}
}

// Capture launches into a graph, update one node's arguments, replay.
func ExampleStream_Capture() {
	ctx, err := cuabi.NewContext(nil)
	if err != nil {
		return
	}
	defer ctx.Close()
	module, _ := ctx.Compile(saxpySource, nil)
	defer module.Close()
	saxpy, _ := module.Kernel("saxpy")
	defer saxpy.Close()
	stream, _ := ctx.NewStream(nil)
	defer stream.Close()
	x, _ := ctx.NewBuffer(4*1024, &cuabi.BufferOptions{Flags: cuabi.BufferZero})
	defer x.Close()
	y, _ := ctx.NewBuffer(4*1024, &cuabi.BufferOptions{Flags: cuabi.BufferZero})
	defer y.Close()
	config := cuabi.LaunchConfig{Grid: cuabi.Dim3{X: 4}, Block: cuabi.Dim3{X: 256}, Stream: stream}

	graph, err := stream.Capture(cuabi.CaptureThreadLocal, func() error {
		return saxpy.Launch(config, float32(1), x, y, uint32(1024)) // recorded, not run
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer graph.Close()
	graph.UpdateKernelArgs(0, float32(3), x, y, uint32(1024))
	graph.Launch(stream)
	stream.Synchronize()
}

// A range that one goroutine starts and another ends; push and pop need one OS thread.
func ExampleStartRange() {
	r, err := cuabi.StartRange("load batch", "")
	if err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.End()
	}()
	<-done

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cuabi.PushRange("step", "")
	defer cuabi.PopRange()
}
