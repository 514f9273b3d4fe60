//! What the decoder makes of the TMA family (`gemm_codegen::ptx::Tma`):
//! a parameter's address, `mbarrier`s, and each bulk tensor copy with its
//! registers resolved into [`super::Program::tensor_loads`].

use gemm_codegen::ptx::{self, Space, Tma, Type};

use super::{Decoder, Op, Src, TensorLoad};
use crate::error::EmuError;
use crate::memory::PARAM_WINDOW;

impl Decoder<'_> {
    /// Decodes an instruction of the TMA family: a parameter's address is
    /// its offset in the parameter image above [`PARAM_WINDOW`], and
    /// `cvta.param` keeps it.
    pub(super) fn tma(
        &self,
        t: &Tma,
        param_offsets: &[u32],
        loads: &mut Vec<TensorLoad>,
    ) -> Result<Op, EmuError> {
        let u64_reg = |r: ptx::Reg| {
            if matches!(r.ty(), Type::U64 | Type::B64) {
                Ok(self.val(r)?)
            } else {
                self.unsupported(format!("{} is not a 64-bit register", self.name(r)))
            }
        };
        Ok(match *t {
            Tma::ParamAddr { dst, param } => {
                let Some(&off) = param_offsets.get(param.index()) else {
                    return self.unsupported("parameter index out of range");
                };
                Op::Mov { d: u64_reg(dst)?, a: Src::I(PARAM_WINDOW + u64::from(off)) }
            }
            Tma::CvtaParam { dst, src } => Op::Mov { d: u64_reg(dst)?, a: Src::R(u64_reg(src)?) },
            Tma::MbarrierInit { bar, count } => {
                if count == 0 || count >= 1 << 20 {
                    return self.unsupported(format!("an mbarrier of {count} arrivals (1 to 2^20 - 1)"));
                }
                Op::MbarInit { base: self.base(Space::Shared, bar.base)?, off: bar.offset, count }
            }
            Tma::MbarrierArriveExpectTx { bar, bytes } => {
                if bytes >= 1 << 20 {
                    return self.unsupported(format!("{bytes} transaction bytes (at most 2^20 - 1)"));
                }
                Op::MbarExpectTx { base: self.base(Space::Shared, bar.base)?, off: bar.offset, bytes }
            }
            Tma::MbarrierTryWait { done, bar, parity } => Op::MbarTryWait {
                p: self.pred(done)?,
                base: self.base(Space::Shared, bar.base)?,
                off: bar.offset,
                parity: self.src(parity, 32)?,
            },
            Tma::TensorLoad { dst, map, coords, bar } => {
                let coords = [self.src(coords[0], 32)?, self.src(coords[1], 32)?, self.src(coords[2], 32)?];
                loads.push(TensorLoad {
                    dst: self.base(Space::Shared, dst.base)?,
                    dst_off: dst.offset,
                    map: u64_reg(map)?,
                    coords,
                    bar: self.base(Space::Shared, bar.base)?,
                    bar_off: bar.offset,
                });
                Op::TensorLoad(loads.len() as u32 - 1)
            }
        })
    }
}
