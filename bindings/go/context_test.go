package cuabi

import (
	"errors"
	"strings"
	"testing"
)

// The policy travels to the library, which checks it before it looks for a driver: an unknown
// one is refused with its value named, and each ImageVerify* constant passes that check (the
// negative ordinal checked after it is what refuses the context then).
func TestContextOptionsImageVerification(t *testing.T) {
	_, err := NewContext(&ContextOptions{ImageVerification: 7})
	var e *Error
	if !errors.As(err, &e) || e.Status != ErrInvalidArgument ||
		!strings.Contains(e.Message, "image_verification is 7") || !strings.Contains(e.Message, "Fix:") {
		t.Fatalf("NewContext with ImageVerification 7: %v, want ErrInvalidArgument naming the value", err)
	}
	for _, policy := range []ImageVerification{ImageVerifyDefault, ImageVerifyUntrusted, ImageVerifyAll, ImageVerifyNone} {
		if _, err := NewContext(&ContextOptions{Device: -1, ImageVerification: policy}); !errors.Is(err, ErrInvalidDevice) {
			t.Errorf("NewContext with ImageVerification %d and device -1: %v, want ErrInvalidDevice", policy, err)
		}
	}
	if (ContextOptions{}).ImageVerification != ImageVerifyDefault {
		t.Error("the zero ContextOptions does not mean ImageVerifyDefault")
	}
}
