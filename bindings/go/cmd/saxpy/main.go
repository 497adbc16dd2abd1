// Command saxpy is the cuabi Go package end to end: compile a kernel from a string, launch it on
// buffers, read the result back, then capture the launch into a graph and replay it.
//
//	go run ./cmd/saxpy              (CUABI_LIBRARY=/path/to/libcuabi.so.1 when it is not installed)
package main

import (
	"fmt"
	"os"

	"cuabi"
)

const source = `extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "saxpy:", err) // the message ends in "Fix: ..."
		os.Exit(1)
	}
}

func run() error {
	const n = 1 << 20
	ctx, err := cuabi.NewContext(nil) // device 0
	if err != nil {
		return err
	}
	defer ctx.Close()
	module, err := ctx.Compile(source, nil) // NVRTC, or a cache hit
	if err != nil {
		return err
	}
	defer module.Close()
	saxpy, err := module.Kernel("saxpy")
	if err != nil {
		return err
	}
	defer saxpy.Close()

	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, err := cuabi.NewBufferFrom(ctx, xs)
	if err != nil {
		return err
	}
	defer x.Close()
	y, err := cuabi.NewBufferFrom(ctx, ys)
	if err != nil {
		return err
	}
	defer y.Close()
	stream, err := ctx.NewStream(nil)
	if err != nil {
		return err
	}
	defer stream.Close()

	config := cuabi.LaunchConfig{Grid: cuabi.Dim3{X: (n + 255) / 256}, Block: cuabi.Dim3{X: 256}, Stream: stream}
	// Every limit and argument is checked before the driver sees the launch.
	if err := saxpy.Launch(config, float32(2), x, y, uint32(n)); err != nil {
		return err
	}
	if err := stream.Synchronize(); err != nil {
		return err
	}
	if err := cuabi.ReadSlice(y, 0, ys); err != nil {
		return err
	}
	fmt.Printf("after one launch: y[3] = %g\n", ys[3]) // 2*3 + 1 = 7

	graph, err := stream.Capture(cuabi.CaptureThreadLocal, func() error {
		for i := 0; i < 4; i++ {
			if err := saxpy.Launch(config, float32(1), x, y, uint32(n)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer graph.Close()
	nodes, err := graph.NodeCount()
	if err != nil {
		return err
	}
	if err := graph.Launch(stream); err != nil {
		return err
	}
	if err := stream.Synchronize(); err != nil {
		return err
	}
	if err := cuabi.ReadSlice(y, 0, ys); err != nil {
		return err
	}
	fmt.Printf("after replaying a graph of %d launches: y[3] = %g\n", nodes, ys[3]) // 7 + 4*3 = 19
	return nil
}
