package cuabi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const batchGood = "extern \"C\" __global__ void good(int* p) { p[0] = VALUE; }\n"
const batchBroken = "extern \"C\" __global__ void broken(int* p) { p[0] = not_declared_go; }\n"
const batchHeavy = `template <int D> struct Tree {
    __device__ __forceinline__ static float run(float x, const float* p) {
        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);
    }
};
template <> struct Tree<0> {
    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }
};
extern "C" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<12>::run(p[threadIdx.x], p); }
`

// heavySource is batchHeavy with a comment of its own: NVRTC's own cache (12.9+) does not see
// cuabi's salt, and must not serve the compile these tests cancel.
func heavySource() string {
	return batchHeavy + fmt.Sprintf("// %d:%d\n", os.Getpid(), time.Now().UnixNano())
}

func freshOptions(define string) *CompileOptions {
	salt := fmt.Sprintf("%d:%d", os.Getpid(), time.Now().UnixNano())
	return &CompileOptions{Target: "sm_90", Defines: []string{define}, Salt: []byte(salt)}
}

func TestCompileAllKeepsEachRequestsResult(t *testing.T) {
	results, err := CompileAll(context.Background(), []CompileRequest{
		{Source: batchGood, Options: freshOptions("VALUE=1")},
		{Source: batchBroken, Options: freshOptions("VALUE=2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || results[0].Err != nil {
		t.Fatalf("results %+v", results)
	}
	defer results[0].Module.Close()
	var e *Error
	if !errors.As(results[1].Err, &e) || e.Status != ErrCompile || !strings.Contains(e.Log, "not_declared_go") {
		t.Fatalf("request 1: %v", results[1].Err)
	}
}

func TestCompileAllCancelsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	batch, err := StartCompileBatch([]CompileRequest{{Source: heavySource(), Options: freshOptions("VALUE=3")}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		state, _, err := batch.State(0)
		if err != nil {
			t.Fatal(err)
		}
		if state != RequestQueued || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Second)
	if state, _, _ := batch.State(0); state != RequestCompiling {
		t.Fatalf("state %d: the heavy compile is not running", state)
	}
	go func() {
		<-ctx.Done()
		batch.Cancel()
	}()
	cancelled := time.Now()
	cancel()
	_, err = batch.Module(0)
	if latency := time.Since(cancelled); latency > 250*time.Millisecond {
		t.Errorf("the cancel took %v", latency)
	}
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err %v", err)
	}
	if state, result, _ := batch.State(0); state != RequestDone || !errors.Is(result, ErrCancelled) {
		t.Fatalf("state %d, %v", state, result)
	}
	if batch.Len() != 1 {
		t.Fatalf("Len %d", batch.Len())
	}
}

func TestCompileBatchRefusesAClosedBatchAndABadIndex(t *testing.T) {
	batch, err := StartCompileBatch(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := batch.Module(0); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("err %v", err)
	}
	batch.Close()
	if _, _, err := batch.State(0); !errors.Is(err, ErrInvalidHandle) {
		t.Fatalf("err %v", err)
	}
	if MaxCompileRequests != 4096 {
		t.Fatal(MaxCompileRequests)
	}
}

func TestCompileAllEndsWhenItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	started := time.Now()
	results, err := CompileAll(ctx, []CompileRequest{{Source: heavySource(), Options: freshOptions("VALUE=4")}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if !errors.Is(results[0].Err, ErrCancelled) {
		t.Fatalf("request 0: %v", results[0].Err)
	}
	if elapsed := time.Since(started); elapsed > 2500*time.Millisecond {
		t.Errorf("CompileAll returned %v after it started; its context ended at 1.5 s", elapsed)
	}
}
