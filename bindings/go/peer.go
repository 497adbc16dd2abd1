package cuabi

// #include "zcalls.h"
import "C"

import "runtime"

// Several GPUs: peer access between two devices' contexts, and copies between their buffers.
// Peer access goes one way, from a context to another device's memory, and is shared by every
// user of the devices' primary contexts in the process; cuabi remembers what it enabled, and a
// copy between devices without it is refused (ErrContextMismatch, naming both devices) unless it
// asks to be staged through host memory (PeerCopyStaged).

// withPeer runs f with the handles of c and peer, both kept alive for the call.
func (c *Context) withPeer(peer *Context, f func(context, other C.uintptr_t) *C.cuabi_go_failure) error {
	other, err := peer.ref()
	if err != nil {
		return err
	}
	err = call(c, func(bits C.uintptr_t) *C.cuabi_go_failure { return f(bits, other) })
	runtime.KeepAlive(peer)
	return err
}

// CanAccessPeer reports whether c's device can be given access to the memory of peer's device
// (EnablePeerAccess); true for two contexts of one device.
func (c *Context) CanAccessPeer(peer *Context) (bool, error) {
	var can C.uint32_t
	err := c.withPeer(peer, func(context, other C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_context_can_access_peer(context, other, &can)
	})
	return can != 0, err
}

// EnablePeerAccess lets c's kernels and copies reach the memory of peer's device (one direction;
// call it the other way round for both). Enabling what is enabled succeeds. ErrUnsupported when
// the devices cannot be peers; the message names both.
func (c *Context) EnablePeerAccess(peer *Context) error {
	return c.withPeer(peer, func(context, other C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_context_enable_peer_access(context, other)
	})
}

// DisablePeerAccess undoes EnablePeerAccess; disabling what is not enabled succeeds. Work still
// using the peer's memory must have finished.
func (c *Context) DisablePeerAccess(peer *Context) error {
	return c.withPeer(peer, func(context, other C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_context_disable_peer_access(context, other)
	})
}

// PeerAccessEnabled reports whether peer access from c to peer's device is enabled through cuabi.
func (c *Context) PeerAccessEnabled(peer *Context) (bool, error) {
	var enabled C.uint32_t
	err := c.withPeer(peer, func(context, other C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_context_get_peer_access(context, other, &enabled)
	})
	return enabled != 0, err
}

// CopyPeer copies size bytes from src at srcOffset, on any device, to b at dstOffset, on stream s
// (of either buffer's device; nil: b's device, synchronously). Between devices the stream's device
// needs peer access to the other one unless flags has PeerCopyStaged; otherwise ErrContextMismatch
// names both devices. ErrOutOfBounds when either range exceeds its buffer.
func (b *Buffer) CopyPeer(s *Stream, dstOffset int, src *Buffer, srcOffset, size int, flags PeerCopyFlags) error {
	return b.copyFrom(s, dstOffset, src, srcOffset, size, func(dst, from, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_copy_peer(dst, C.size_t(dstOffset), from, C.size_t(srcOffset), C.size_t(size),
			C.uint32_t(flags), stream)
	})
}
