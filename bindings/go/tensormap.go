package cuabi

// #include "zcalls.h"
import "C"

import "runtime"

// TensorMapMaxRank is the most dimensions a tensor map has.
const TensorMapMaxRank = C.CUABI_TENSOR_MAP_MAX_RANK

// TensorMapParams describes a tiled tensor map over a buffer (NewTensorMap): the tensor's
// dimensions, innermost first; the byte strides of every dimension after the first; the box
// (tile) in elements; and how the Tensor Memory Accelerator walks it. The rank is
// len(GlobalDims). cuabi checks every rule of the driver and names what a description breaks.
type TensorMapParams struct {
	DataType       TensorDataType // the zero value is TensorDataUint8
	GlobalDims     []uint64       // elements along each dimension, 1 to TensorMapMaxRank of them
	GlobalStrides  []uint64       // bytes from one index of dimension i+1 to the next: len(GlobalDims)-1
	BoxDims        []uint32       // elements of one box along each dimension
	ElementStrides []uint32       // the step along each dimension, 1 to 8; nil: all 1
	Interleave     TensorInterleave
	Swizzle        TensorSwizzle
	L2Promotion    TensorL2Promotion
	OOBFill        TensorOOBFill
	Offset         uint64 // bytes into the buffer where element (0, ..., 0) lies
}

// TensorMap is an encoded tensor map: the driver's 128-byte CUtensorMap. Pass a *TensorMap to
// Kernel.Launch for a `const __grid_constant__ CUtensorMap` parameter. It holds the buffer's
// address, not the buffer: keep the buffer reachable (and open) while kernels use the map.
type TensorMap struct {
	words [16]uint64
}

// Words is the descriptor's 16 words, for code that copies it elsewhere.
func (m *TensorMap) Words() [16]uint64 { return m.words }

// NewTensorMap encodes a tiled tensor map over b as p describes. ErrInvalidArgument names each
// broken rule with its values (ErrOutOfBounds for a tensor larger than the buffer); ErrUnsupported
// on a device before compute capability 9.0.
func NewTensorMap(b *Buffer, p *TensorMapParams) (*TensorMap, error) {
	bits, err := b.ref()
	if err != nil {
		return nil, err
	}
	m, err := encodeTiled(uintptr(bits), p)
	runtime.KeepAlive(b)
	return m, err
}

// encodeTiled is NewTensorMap on a buffer handle's bits (0 reaches cuabi's rule checks, which come
// before the buffer).
func encodeTiled(bits uintptr, p *TensorMapParams) (*TensorMap, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, newError(ErrInvalidArgument, "the TensorMapParams are nil. Fix: describe the tensor.")
	}
	params := new(C.cuabi_tensor_map_params)
	if err := takeFailure(C.cuabi_go_tensor_map_params_init(C.sizeof_cuabi_tensor_map_params, params)); err != nil {
		return nil, err
	}
	params.data_type = C.int32_t(p.DataType)
	params.rank = C.uint32_t(len(p.GlobalDims))
	params.interleave = C.int32_t(p.Interleave)
	params.swizzle = C.int32_t(p.Swizzle)
	params.l2_promotion = C.int32_t(p.L2Promotion)
	params.oob_fill = C.int32_t(p.OOBFill)
	params.offset = C.uint64_t(p.Offset)
	// Entries past the arrays' capacity stay out; the rank, which counts them all, gets them refused.
	for i := 0; i < len(p.GlobalDims) && i < len(params.global_dims); i++ {
		params.global_dims[i] = C.uint64_t(p.GlobalDims[i])
	}
	for i := 0; i < len(p.GlobalStrides) && i < len(params.global_strides); i++ {
		params.global_strides[i] = C.uint64_t(p.GlobalStrides[i])
	}
	for i := 0; i < len(p.BoxDims) && i < len(params.box_dims); i++ {
		params.box_dims[i] = C.uint32_t(p.BoxDims[i])
	}
	for i := 0; i < len(p.ElementStrides) && i < len(params.element_strides); i++ {
		params.element_strides[i] = C.uint32_t(p.ElementStrides[i])
	}
	encoded := new(C.cuabi_tensor_map)
	if err := takeFailure(C.cuabi_go_tensor_map_encode_tiled(C.uintptr_t(bits), params, encoded)); err != nil {
		return nil, err
	}
	m := &TensorMap{}
	for i := range m.words {
		m.words[i] = uint64(encoded.opaque[i])
	}
	return m, nil
}
