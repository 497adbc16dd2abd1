//! Tensor maps: tiled TMA descriptors over buffers, passed to kernels by value.

use crate::buffer::{Buffer, DeviceCopy};
use crate::error::Result;
use crate::ffi::{call, defaults};
use cuabi_sys as sys;

/// The element type of a tensor map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TensorDataType {
    U8,
    U16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
    F64,
    Bf16,
    F32Ftz,
    Tf32,
    Tf32Ftz,
}

impl TensorDataType {
    fn code(self) -> i32 {
        match self {
            TensorDataType::U8 => sys::CUABI_TENSOR_DATA_UINT8,
            TensorDataType::U16 => sys::CUABI_TENSOR_DATA_UINT16,
            TensorDataType::U32 => sys::CUABI_TENSOR_DATA_UINT32,
            TensorDataType::I32 => sys::CUABI_TENSOR_DATA_INT32,
            TensorDataType::U64 => sys::CUABI_TENSOR_DATA_UINT64,
            TensorDataType::I64 => sys::CUABI_TENSOR_DATA_INT64,
            TensorDataType::F16 => sys::CUABI_TENSOR_DATA_FLOAT16,
            TensorDataType::F32 => sys::CUABI_TENSOR_DATA_FLOAT32,
            TensorDataType::F64 => sys::CUABI_TENSOR_DATA_FLOAT64,
            TensorDataType::Bf16 => sys::CUABI_TENSOR_DATA_BFLOAT16,
            TensorDataType::F32Ftz => sys::CUABI_TENSOR_DATA_FLOAT32_FTZ,
            TensorDataType::Tf32 => sys::CUABI_TENSOR_DATA_TFLOAT32,
            TensorDataType::Tf32Ftz => sys::CUABI_TENSOR_DATA_TFLOAT32_FTZ,
        }
    }
}

/// An interleaved layout (`NC/8HWC8` is 16 bytes of channels, `NC/16HWC16` 32).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TensorInterleave {
    #[default]
    None,
    Bytes16,
    Bytes32,
}

/// How a tile is swizzled across shared memory banks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TensorSwizzle {
    #[default]
    None,
    Bytes32,
    Bytes64,
    Bytes128,
    Bytes128Atom32,
    Bytes128Atom32Flip8,
    Bytes128Atom64,
}

/// The granularity at which L2 fetches the tensor from memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TensorL2Promotion {
    #[default]
    None,
    Bytes64,
    Bytes128,
    Bytes256,
}

impl TensorInterleave {
    fn code(self) -> i32 {
        match self {
            TensorInterleave::None => sys::CUABI_TENSOR_INTERLEAVE_NONE,
            TensorInterleave::Bytes16 => sys::CUABI_TENSOR_INTERLEAVE_16B,
            TensorInterleave::Bytes32 => sys::CUABI_TENSOR_INTERLEAVE_32B,
        }
    }
}

impl TensorSwizzle {
    fn code(self) -> i32 {
        match self {
            TensorSwizzle::None => sys::CUABI_TENSOR_SWIZZLE_NONE,
            TensorSwizzle::Bytes32 => sys::CUABI_TENSOR_SWIZZLE_32B,
            TensorSwizzle::Bytes64 => sys::CUABI_TENSOR_SWIZZLE_64B,
            TensorSwizzle::Bytes128 => sys::CUABI_TENSOR_SWIZZLE_128B,
            TensorSwizzle::Bytes128Atom32 => sys::CUABI_TENSOR_SWIZZLE_128B_ATOM_32B,
            TensorSwizzle::Bytes128Atom32Flip8 => sys::CUABI_TENSOR_SWIZZLE_128B_ATOM_32B_FLIP_8B,
            TensorSwizzle::Bytes128Atom64 => sys::CUABI_TENSOR_SWIZZLE_128B_ATOM_64B,
        }
    }
}

impl TensorL2Promotion {
    fn code(self) -> i32 {
        match self {
            TensorL2Promotion::None => sys::CUABI_TENSOR_L2_PROMOTION_NONE,
            TensorL2Promotion::Bytes64 => sys::CUABI_TENSOR_L2_PROMOTION_64B,
            TensorL2Promotion::Bytes128 => sys::CUABI_TENSOR_L2_PROMOTION_128B,
            TensorL2Promotion::Bytes256 => sys::CUABI_TENSOR_L2_PROMOTION_256B,
        }
    }
}

/// What elements outside the tensor read as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TensorOobFill {
    /// Zeros.
    #[default]
    Zero,
    /// A NaN that FMA treats as zero (floating-point types only).
    NanRequestZeroFma,
}

impl TensorOobFill {
    fn code(self) -> i32 {
        match self {
            TensorOobFill::Zero => sys::CUABI_TENSOR_OOB_FILL_ZERO,
            TensorOobFill::NanRequestZeroFma => sys::CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA,
        }
    }
}

/// The most dimensions a tensor map has.
pub const TENSOR_MAP_MAX_RANK: usize = sys::CUABI_TENSOR_MAP_MAX_RANK as usize;

/// What [`TensorMap::tiled`] describes: the tensor's dimensions (innermost first), the byte
/// strides of every dimension but the innermost, the box (tile) and how to walk it. The rank is the
/// number of dimensions; cuabi checks every rule of the driver and names what a description
/// breaks (`docs/tensor-maps.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapParams {
    data_type: TensorDataType,
    global_dims: Vec<u64>,
    global_strides: Vec<u64>,
    box_dims: Vec<u32>,
    element_strides: Option<Vec<u32>>,
    interleave: TensorInterleave,
    swizzle: TensorSwizzle,
    l2_promotion: TensorL2Promotion,
    oob_fill: TensorOobFill,
    offset: u64,
}

impl TensorMapParams {
    /// A tensor of `global_dims` elements of `data_type` (innermost dimension first; at most
    /// [`TENSOR_MAP_MAX_RANK`] dimensions), rows
    /// `global_strides` bytes apart (one per dimension after the first), read in boxes of
    /// `box_dims` elements; every element stride 1, no interleave, swizzle or L2 promotion,
    /// zeros outside, at offset 0 of the buffer.
    pub fn new(data_type: TensorDataType, global_dims: &[u64], global_strides: &[u64], box_dims: &[u32]) -> Self {
        TensorMapParams {
            data_type,
            global_dims: global_dims.to_vec(),
            global_strides: global_strides.to_vec(),
            box_dims: box_dims.to_vec(),
            element_strides: None,
            interleave: TensorInterleave::None,
            swizzle: TensorSwizzle::None,
            l2_promotion: TensorL2Promotion::None,
            oob_fill: TensorOobFill::Zero,
            offset: 0,
        }
    }

    /// The step along each dimension (1 to 8; default 1).
    pub fn element_strides(mut self, strides: &[u32]) -> Self {
        self.element_strides = Some(strides.to_vec());
        self
    }

    /// The interleaved layout.
    pub fn interleave(mut self, interleave: TensorInterleave) -> Self {
        self.interleave = interleave;
        self
    }

    /// The shared memory swizzle.
    pub fn swizzle(mut self, swizzle: TensorSwizzle) -> Self {
        self.swizzle = swizzle;
        self
    }

    /// The L2 promotion.
    pub fn l2_promotion(mut self, promotion: TensorL2Promotion) -> Self {
        self.l2_promotion = promotion;
        self
    }

    /// What out-of-bounds elements read as.
    pub fn oob_fill(mut self, fill: TensorOobFill) -> Self {
        self.oob_fill = fill;
        self
    }

    /// Where element (0, ..., 0) lies in the buffer, in bytes.
    pub fn offset(mut self, bytes: u64) -> Self {
        self.offset = bytes;
        self
    }

    /// The C struct; entries past the arrays' capacity are left for cuabi to refuse through the
    /// rank (which counts every dimension given).
    fn to_raw(&self) -> Result<sys::cuabi_tensor_map_params> {
        let mut raw: sys::cuabi_tensor_map_params = defaults()?;
        raw.data_type = self.data_type.code();
        raw.rank = self.global_dims.len() as u32;
        raw.interleave = self.interleave.code();
        raw.swizzle = self.swizzle.code();
        raw.l2_promotion = self.l2_promotion.code();
        raw.oob_fill = self.oob_fill.code();
        raw.offset = self.offset;
        copy_into(&mut raw.global_dims, &self.global_dims);
        copy_into(&mut raw.global_strides, &self.global_strides);
        copy_into(&mut raw.box_dims, &self.box_dims);
        if let Some(strides) = &self.element_strides {
            copy_into(&mut raw.element_strides, strides);
        }
        Ok(raw)
    }
}

fn copy_into<T: Copy>(array: &mut [T], values: &[T]) {
    let count = values.len().min(array.len());
    array[..count].copy_from_slice(&values[..count]);
}

/// An encoded tensor map: the driver's 128-byte `CUtensorMap`, passed to a kernel's
/// `const __grid_constant__ CUtensorMap` parameter as an argument like any other value. It holds
/// the buffer's address, not the buffer: keep the buffer alive while kernels use the map (a graph
/// does not; [`Graph::retain_buffer`](crate::Graph::retain_buffer) does).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct TensorMap {
    opaque: [u64; 16],
}

// Safety: 128 plain bytes, copied to the kernel as they are.
unsafe impl DeviceCopy for TensorMap {}

impl std::fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TensorMap { .. }")
    }
}

impl TensorMap {
    /// Encodes a tiled tensor map over `buffer` as `params` describe. Each broken rule is refused
    /// with [`Status::InvalidArgument`](crate::Status::InvalidArgument) (or
    /// [`Status::OutOfBounds`](crate::Status::OutOfBounds) for a tensor larger than the buffer)
    /// naming the rule and its values; [`Status::Unsupported`](crate::Status::Unsupported) before
    /// compute capability 9.0.
    pub fn tiled(buffer: &Buffer, params: &TensorMapParams) -> Result<TensorMap> {
        let raw_params = params.to_raw()?;
        let mut raw = sys::cuabi_tensor_map { opaque: [0; 16] };
        call!(cuabi_tensor_map_encode_tiled(buffer.as_raw(), &raw_params, &mut raw))?;
        Ok(TensorMap { opaque: raw.opaque })
    }

    /// The descriptor's 16 words, for code that copies it elsewhere.
    pub fn words(&self) -> &[u64; 16] {
        &self.opaque
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_is_the_drivers_128_bytes() {
        assert_eq!(std::mem::size_of::<TensorMap>(), 128);
        assert_eq!(std::mem::size_of::<sys::cuabi_tensor_map>(), 128);
    }

    /// What cuabi says about `params` (rules come before the buffer, so a NULL one does).
    fn refusal(params: &TensorMapParams) -> crate::Error {
        let raw = params.to_raw().unwrap();
        let mut out = sys::cuabi_tensor_map { opaque: [0; 16] };
        let mut encode =
            || -> Result<()> { call!(cuabi_tensor_map_encode_tiled(std::ptr::null_mut(), &raw, &mut out)) };
        encode().unwrap_err()
    }

    #[test]
    fn the_description_reaches_cuabi_whole() {
        let params = TensorMapParams::new(TensorDataType::Bf16, &[64, 32, 4], &[256, 8192], &[32, 8, 1])
            .element_strides(&[1, 2, 1])
            .swizzle(TensorSwizzle::Bytes64)
            .l2_promotion(TensorL2Promotion::Bytes128)
            .oob_fill(TensorOobFill::NanRequestZeroFma)
            .offset(512);
        let raw = params.to_raw().unwrap();
        assert_eq!((raw.data_type, raw.rank, raw.offset), (sys::CUABI_TENSOR_DATA_BFLOAT16, 3, 512));
        assert_eq!(raw.global_dims, [64, 32, 4, 0, 0]);
        assert_eq!(raw.global_strides, [256, 8192, 0, 0]);
        assert_eq!(raw.box_dims, [32, 8, 1, 0, 0]);
        assert_eq!(raw.element_strides, [1, 2, 1, 1, 1]);
        assert_eq!(
            (raw.swizzle, raw.l2_promotion),
            (sys::CUABI_TENSOR_SWIZZLE_64B, sys::CUABI_TENSOR_L2_PROMOTION_128B)
        );
        assert_eq!(raw.oob_fill, sys::CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA);
        assert_eq!(raw.interleave, sys::CUABI_TENSOR_INTERLEAVE_NONE);
        // The rules pass: the refusal is the NULL buffer's.
        assert_eq!(refusal(&params).status(), crate::Status::InvalidHandle);
    }

    #[test]
    fn broken_rules_come_back_named_with_their_values() {
        let narrow_box = TensorMapParams::new(TensorDataType::F32, &[64, 32], &[256], &[3, 8]);
        let error = refusal(&narrow_box);
        assert_eq!(error.status(), crate::Status::InvalidArgument, "{error}");
        assert!(error.message().contains("box_dims[0] 3 x 4-byte FLOAT32 = 12 bytes"), "{error}");
        let six = TensorMapParams::new(TensorDataType::U8, &[16; 6], &[16; 5], &[16; 6]);
        assert!(refusal(&six).message().contains("rank is 6"), "{}", refusal(&six));
        let odd_stride = TensorMapParams::new(TensorDataType::F32, &[64, 32], &[250], &[32, 8]);
        assert!(refusal(&odd_stride).message().contains("global_strides[0]"));
        let interleaved = TensorMapParams::new(TensorDataType::F32, &[64, 32], &[256], &[32, 8])
            .interleave(TensorInterleave::Bytes16);
        assert!(refusal(&interleaved).message().contains("needs rank 3 or more"));
    }

    #[test]
    fn a_rank_above_the_maximum_is_passed_on_for_cuabi_to_refuse() {
        let dims = [16u64; TENSOR_MAP_MAX_RANK + 1];
        let raw = TensorMapParams::new(TensorDataType::U8, &dims, &[16; 5], &[16; 6]).to_raw().unwrap();
        assert_eq!(raw.rank as usize, TENSOR_MAP_MAX_RANK + 1);
        assert_eq!(raw.global_dims, [16; TENSOR_MAP_MAX_RANK]);
    }
}
