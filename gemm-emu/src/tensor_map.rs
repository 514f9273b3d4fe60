//! The emulator's tensor maps: how a [`TensorMap`] lies in the 128 bytes of
//! a tensor map parameter.
//!
//! On the GPU the bytes are the driver's opaque encoding
//! (`cuTensorMapEncodeTiled`); the emulator, which has no driver, lays the
//! same description out in its own words and reads it back when a
//! `cp.async.bulk.tensor` names the parameter. A kernel never reads the
//! bytes itself, so the two encodings need not agree: what they share is
//! the [`TensorMap`] the ABI derives for the launch. A parameter the
//! launch did not fill with a map (zeros, or a scalar's bytes) does not
//! decode.
//!
//! The element is stored by its size in bytes (2, 4 or 8; `exec/tma.rs`
//! refuses others), not by the driver's data type: the host encodes f16
//! operands as `FLOAT16`, bf16 as `BFLOAT16`, f32 as `FLOAT32` (c32 as
//! pairs of them), but a tile copy moves bits, and the zeros it lands
//! outside the tensor are zero bits in every type, so the size is all the
//! copy needs.
//!
//! ```text
//! bytes   0.. 8  magic "gemmfTM1"        48..64  strides [2] (u64, bytes)
//!         8..16  base address (u64)      64..76  box [3] (u32, elements)
//!        16..20  element bytes (u32)     76..80  1: the 128-byte swizzle
//!        24..48  dims [3] (u64)
//! ```

use gemm_codegen::abi::TensorMap;
use gemm_codegen::ptx::ParamType;

const MAGIC: &[u8; 8] = b"gemmfTM1";

/// The bytes of `map`, with its base at `base`.
pub(crate) fn encode(map: &TensorMap<usize>, base: u64) -> [u8; ParamType::TENSOR_MAP_BYTES as usize] {
    let mut out = [0u8; ParamType::TENSOR_MAP_BYTES as usize];
    out[..8].copy_from_slice(MAGIC);
    out[8..16].copy_from_slice(&base.to_le_bytes());
    out[16..20].copy_from_slice(&map.element_bytes.to_le_bytes());
    for (i, d) in map.dims.iter().enumerate() {
        out[24 + 8 * i..32 + 8 * i].copy_from_slice(&d.to_le_bytes());
    }
    for (i, s) in map.strides.iter().enumerate() {
        out[48 + 8 * i..56 + 8 * i].copy_from_slice(&s.to_le_bytes());
    }
    for (i, b) in map.box_dims.iter().enumerate() {
        out[64 + 4 * i..68 + 4 * i].copy_from_slice(&b.to_le_bytes());
    }
    out[76] = u8::from(map.swizzle_128);
    out
}

/// A tensor map read back from a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub base: u64,
    pub element_bytes: u32,
    pub dims: [u64; 3],
    pub strides: [u64; 2],
    pub box_dims: [u32; 3],
    pub swizzle_128: bool,
}

impl Decoded {
    /// Bytes of one box in shared memory.
    pub fn box_bytes(&self) -> u64 {
        self.box_dims.iter().map(|&b| u64::from(b)).product::<u64>() * u64::from(self.element_bytes)
    }
}

/// The map in `bytes` (a tensor map parameter's), if it holds one.
pub(crate) fn decode(bytes: &[u8]) -> Option<Decoded> {
    if bytes.len() != ParamType::TENSOR_MAP_BYTES as usize || &bytes[..8] != MAGIC {
        return None;
    }
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    Some(Decoded {
        base: u64_at(8),
        element_bytes: u32_at(16),
        dims: [u64_at(24), u64_at(32), u64_at(40)],
        strides: [u64_at(48), u64_at(56)],
        box_dims: [u32_at(64), u32_at(68), u32_at(72)],
        swizzle_128: bytes[76] == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_reads_back_as_it_was_written() {
        let map = TensorMap {
            base: 3usize,
            element_bytes: 4,
            dims: [100, 70, 2],
            strides: [416, 29120],
            box_dims: [32, 128, 1],
            swizzle_128: true,
            describes: true,
        };
        let bytes = encode(&map, 0x4000_0000_0040);
        let d = decode(&bytes).expect("a map");
        assert_eq!(d.base, 0x4000_0000_0040);
        assert_eq!(
            (d.element_bytes, d.dims, d.strides, d.box_dims),
            (4, map.dims, map.strides, map.box_dims)
        );
        assert!(d.swizzle_128);
        assert_eq!(d.box_bytes(), 32 * 128 * 4);
        assert_eq!(decode(&[0u8; 128]), None, "zeros are no map");
        // A 16-bit operand's map: boxes of 64 elements (128 bytes) by 256.
        let half = TensorMap { element_bytes: 2, box_dims: [64, 256, 1], ..map };
        let d = decode(&encode(&half, 0)).expect("a map");
        assert_eq!((d.element_bytes, d.box_dims, d.box_bytes()), (2, [64, 256, 1], 64 * 256 * 2));
    }
}
