package cuabi

import (
	"runtime"
	"strings"
	"testing"
)

func TestThreadRangesPushAndPopOnOneThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	must(t, PushRange("conformance", ""))
	must(t, PushRange("inner", "go-test-domain"))
	must(t, PopRange())
	must(t, PopRange())
	wantStatus(t, PopRange(), ErrRange) // none open on this thread
}

func TestRangeStartedOnOneThreadEndsOnAnother(t *testing.T) {
	started := make(chan *Range)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // held until the other goroutine ended the range: two threads for sure
		defer runtime.UnlockOSThread()
		r, err := StartRange("across threads", "")
		if err != nil {
			t.Error(err)
			close(started)
			return
		}
		started <- r
		<-release
	}()
	r := <-started
	if r == nil {
		return
	}
	ended := make(chan error, 2)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ended <- r.End()
		ended <- r.End()
	}()
	must(t, <-ended)
	wantStatus(t, <-ended, ErrInvalidHandle) // ending twice
	close(release)
	must(t, r.Close()) // after End: harmless
}

func TestRangeNamesAreChecked(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, name := range []string{"", "\xff\xfe", "nul\x00inside"} {
		wantStatus(t, PushRange(name, ""), ErrInvalidArgument)
		_, err := StartRange(name, "")
		wantStatus(t, err, ErrInvalidArgument)
	}
	wantStatus(t, PushRange("name", "\xff"), ErrInvalidArgument)
}

func TestRangeCatalogListsCuabiPhases(t *testing.T) {
	catalog, err := RangeCatalog()
	must(t, err)
	if len(catalog) < 13 {
		t.Errorf("catalog has %d entries, want at least 13", len(catalog))
	}
	seen := map[string]bool{}
	for _, e := range catalog {
		if !strings.HasPrefix(e.Name, "cuabi.") || e.Description == "" || seen[e.Name] {
			t.Errorf("catalog entry %+v", e)
		}
		seen[e.Name] = true
	}
	if !RangesEnabled() {
		t.Error("ranges are off although CUABI_NVTX is not 0")
	}
	if ProfilerAttached() {
		t.Error("a profiler is reported attached in a plain test run")
	}
}
