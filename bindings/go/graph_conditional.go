package cuabi

// #include "zcalls.h"
import "C"

// Condition is the value a conditional node tests: made for the graph a stream captures into
// (CreateCondition), passed to kernels as a cudaGraphConditionalHandle parameter (8 bytes; a
// Condition is a launch argument like any number), which set it on the device with
// cudaGraphSetConditional(condition, value).
type Condition uint64

// CreateCondition makes a condition for the graph s captures into now: the capture, or the body
// being captured. With ConditionAssignDefault every replay starts with it at defaultValue.
// ErrCapture when s is not in a capture cuabi began; ErrUnsupported before CUDA 12.3.
func (s *Stream) CreateCondition(defaultValue uint32, flags ConditionFlags) (Condition, error) {
	var value C.uint64_t
	err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_condition_create(bits, C.uint32_t(defaultValue), C.uint32_t(flags), &value)
	})
	return Condition(value), err
}

// CaptureConditional adds a conditional node testing condition after the work captured so far
// and captures its bodies: fn(body) enqueues body number body on s, for each of bodies. While
// takes 1 body, if 1 or 2, switch 1 or more (ErrInvalidArgument otherwise). On any failure cuabi
// ends and discards the whole capture, and the error (or fn's) is returned.
func (s *Stream) CaptureConditional(condition Condition, kind ConditionalType, bodies int, fn func(body int) error) error {
	if bodies < 0 || bodies > int(^uint32(0)) {
		return newError(ErrInvalidArgument, "a conditional node cannot have %d bodies. Fix: pass 1 to %d.", bodies, ^uint32(0))
	}
	if err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_capture_conditional_begin(bits, C.uint64_t(condition), C.int32_t(kind), C.uint32_t(bodies))
	}); err != nil {
		return err
	}
	for body := 0; body < bodies; body++ {
		if body > 0 {
			if err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_capture_conditional_next(bits) }); err != nil {
				return err
			}
		}
		if err := fn(body); err != nil {
			return err
		}
	}
	return call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_capture_conditional_end(bits) })
}

// CaptureWhile adds a while node: what body enqueues runs again and again while condition is
// non-zero.
func (s *Stream) CaptureWhile(condition Condition, body func() error) error {
	return s.CaptureConditional(condition, ConditionalWhile, 1, func(int) error { return body() })
}

// CaptureIf adds an if node: what then enqueues runs when condition is non-zero, what otherwise
// enqueues (when not nil; needs a CUDA 12.8 driver) when it is zero.
func (s *Stream) CaptureIf(condition Condition, then, otherwise func() error) error {
	bodies := []func() error{then}
	if otherwise != nil {
		bodies = append(bodies, otherwise)
	}
	return s.CaptureConditional(condition, ConditionalIf, len(bodies), func(body int) error { return bodies[body]() })
}

// CaptureSwitch adds a switch node: case n runs when condition is n, none when it is at least
// len(cases). Needs a CUDA 12.8 driver.
func (s *Stream) CaptureSwitch(condition Condition, cases ...func() error) error {
	return s.CaptureConditional(condition, ConditionalSwitch, len(cases), func(body int) error { return cases[body]() })
}
