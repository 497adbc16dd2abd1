package cuabi

import (
	"errors"
	"testing"
)

// Without a driver or a device, every device call says what is missing and how to fix it.
func TestWithoutAGPUDeviceCallsSayWhatIsMissing(t *testing.T) {
	ctx, err := NewContext(nil)
	if err == nil {
		ctx.Close()
		t.Skip("a GPU is present: the GPU tests cover the device calls")
	}
	status := ErrDriverNotFound
	if errors.Is(err, ErrNoDevice) {
		status = ErrNoDevice
	}
	wantStatus(t, err, status)
	_, err = DeviceCount()
	wantStatus(t, err, status)
	_, err = QueryDevice(0)
	wantStatus(t, err, status)
	if status == ErrDriverNotFound {
		_, err = DriverVersion()
		wantStatus(t, err, ErrDriverNotFound, "libcuda.so.1")
	}
}
