package cuabi

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestStatusNamesMatchTheLibrary(t *testing.T) {
	if len(statusNames) < 39 {
		t.Fatalf("only %d statuses generated", len(statusNames))
	}
	for status, name := range statusNames {
		if got := StatusName(status); got != name {
			t.Errorf("StatusName(%d) = %q, the package says %q", status, got, name)
		}
		if status.String() != name || status.Error() != name {
			t.Errorf("Status(%d) prints %q / %q, want %q", status, status.String(), status.Error(), name)
		}
	}
	for _, s := range []Status{9999, -1, 14} {
		if got := StatusName(s); got != "CUABI_UNKNOWN_STATUS" {
			t.Errorf("StatusName(%d) = %q, want CUABI_UNKNOWN_STATUS", s, got)
		}
		if s.String() != "CUABI_UNKNOWN_STATUS" || !strings.Contains(s.Error(), fmt.Sprint(int32(s))) {
			t.Errorf("Status(%d) prints %q / %q", s, s.String(), s.Error())
		}
	}
}

func TestErrorsIsMatchesTheStatus(t *testing.T) {
	var err error = &Error{Status: ErrLaunchBlock, Name: "CUABI_ERROR_LAUNCH_BLOCK", Message: "m. Fix: f"}
	wrapped := fmt.Errorf("launching: %w", err)
	if !errors.Is(wrapped, ErrLaunchBlock) || errors.Is(wrapped, ErrLaunchGrid) {
		t.Error("errors.Is does not follow the Status")
	}
	var status Status
	if !errors.As(wrapped, &status) || status != ErrLaunchBlock {
		t.Errorf("errors.As(Status) = %v", status)
	}
	if got := err.Error(); got != "CUABI_ERROR_LAUNCH_BLOCK: m. Fix: f" {
		t.Errorf("Error() = %q", got)
	}
}

// Failures of many goroutines at once, each with its own message, keep their own message: the
// message is copied on the OS thread of the failing call, inside that call. Reading cuabi's
// thread-local message after the call instead would hand goroutines each other's messages
// whenever the scheduler moves one between the call and the read.
func TestFailuresKeepTheirOwnMessageUnderGoroutines(t *testing.T) {
	module, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", NameExpressions: testExpressions})
	must(t, err)
	defer module.Close()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				expression := fmt.Sprintf("scale<struct_%d_%d>", g, i)
				_, err := module.LoweredName(expression)
				var e *Error
				if !errors.As(err, &e) || e.Status != ErrKernelNotFound || !strings.Contains(e.Message, expression) {
					errs <- fmt.Errorf("goroutine %d call %d: got %v", g, i, err)
					return
				}
				runtime.Gosched()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClosedAndNilObjectsReportInvalidHandle(t *testing.T) {
	module, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90"})
	must(t, err)
	must(t, module.Close())
	must(t, module.Close()) // twice is harmless
	_, err = module.Info()
	wantStatus(t, err, ErrInvalidHandle, "cuabi.Module", "Close")
	_, err = module.Kernel("saxpy")
	wantStatus(t, err, ErrInvalidHandle)

	var ctx *Context
	_, err = ctx.NewStream(nil)
	wantStatus(t, err, ErrInvalidHandle, "cuabi.Context")
	var k *Kernel
	wantStatus(t, k.Launch(LaunchConfig{}), ErrInvalidHandle, "cuabi.Kernel")
	for _, c := range []interface{ Close() error }{ctx, k, (*Stream)(nil), (*Event)(nil), (*Buffer)(nil), (*Module)(nil),
		(*Graph)(nil), (*Range)(nil), (*HostMemory)(nil)} {
		must(t, c.Close())
	}
}

// An offline module nobody closes is released by its finalizer; closing it later is harmless.
func TestFinalizerReleasesUnreachableModules(t *testing.T) {
	finalized := make(chan struct{}, 1)
	func() {
		m, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90"})
		must(t, err)
		runtime.SetFinalizer(m, nil)
		runtime.SetFinalizer(m, func(m *Module) {
			m.Close()
			finalized <- struct{}{}
		})
	}()
	for i := 0; i < 20; i++ {
		runtime.GC()
		select {
		case <-finalized:
			return
		default:
		}
	}
	t.Fatal("the finalizer of an unreachable Module did not run")
}
