package cuabi

import (
	"errors"
	"testing"
)

// Conditional captures refuse what can be told without a GPU: a closed stream and a body count no
// node can have, before any body runs. (A Condition is an 8-byte launch argument: launch_test.go.)
func TestConditionalCapturesRefuseBadArgumentsWithoutAGPU(t *testing.T) {
	var closed *Stream
	ran := false
	body := func(int) error { ran = true; return nil }
	if err := closed.CaptureConditional(1, ConditionalWhile, 1, body); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("nil stream: %v, want ErrInvalidHandle", err)
	}
	if err := closed.CaptureConditional(1, ConditionalWhile, -1, body); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("-1 bodies: %v, want ErrInvalidArgument", err)
	}
	if _, err := closed.CreateCondition(1, ConditionAssignDefault); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("nil stream: %v, want ErrInvalidHandle", err)
	}
	if ran {
		t.Error("a body ran although the node was refused")
	}
}
