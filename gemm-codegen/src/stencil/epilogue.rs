//! The epilogue (Algorithm 1, line 23): `C = alpha · C_regs + beta · C`,
//! each thread storing its elements of the tile in the strided layout of
//! [`CLayout`], so that consecutive threads store consecutive rows.
//!
//! BLAS semantics: when `beta = 0`, C is never read (it may hold NaN); the
//! branch on `beta` is uniform, taken by every thread alike. Elements outside
//! the matrix are neither read nor written.

use crate::ptx::{Address, CacheQual, Cmp, Instr, Operand as Op, Reg, Space, Type};

use super::{CLayout, Cx, Elem, Epilogue};

pub(crate) struct Strided;

impl Epilogue for Strided {
    fn emit(&mut self, cx: &mut Cx<'_>, acc: &[Elem]) {
        let layout = CLayout::new(cx.plan);
        let (m_thr, n_thr) = (cx.plan.m_thr(), cx.plan.n_thr());
        let esz = cx.esz();
        let w = i64::from(layout.width());
        let params = cx.params;

        cx.b.reg_group("epilogue");
        let row0 = cx.b.reg("c_row0", Type::U32);
        let col0 = cx.b.reg("c_col0", Type::U32);
        let row_lim = cx.b.reg("c_row_lim", Type::S32);
        let col_lim = cx.b.reg("c_col_lim", Type::S32);
        let ldc_bytes = cx.b.reg("ldc_bytes", Type::U64);
        let row_bytes = cx.b.reg("c_row_bytes", Type::U64);
        let base = cx.b.reg("c_base", Type::U64);
        let col_ptr = cx.b.reg("c_col_ptr", Type::U64);
        let row_ok: Vec<Reg> = (0..m_thr).map(|i| cx.b.reg(format!("c_row_ok_{i}"), Type::Pred)).collect();
        let col_ok: Vec<Reg> = (0..n_thr).map(|j| cx.b.reg(format!("c_col_ok_{j}"), Type::Pred)).collect();
        let ok = cx.b.reg("c_ok", Type::Pred);
        let beta_zero = cx.b.reg("p_beta_zero", Type::Pred);
        let old = cx.elem("c_old");
        let new = cx.elem("c_new");
        let neg_im = |cx: &mut Cx<'_>, e: Elem, name: &str| {
            e.im.map(|im| {
                let r = cx.b.reg(name, cx.scalar);
                cx.b.push(Instr::neg(r, im));
                r
            })
        };

        cx.b.comment("the thread's first element of C, and which of its rows and columns exist");
        cx.b.push(Instr::mad(row0, cx.tx, Op::imm(w), cx.blk_m0));
        cx.b.push(Instr::mad(col0, cx.ty, Op::imm(w), cx.blk_n0));
        cx.b.push(Instr::sub(row_lim, params.m, row0));
        cx.b.push(Instr::sub(col_lim, params.n, col0));
        for (i, &p) in row_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, row_lim, Op::imm(layout.row_offset(i as u32))));
        }
        for (j, &p) in col_ok.iter().enumerate() {
            cx.b.push(Instr::setp(Cmp::Gt, Type::S32, p, col_lim, Op::imm(layout.col_offset(j as u32))));
        }
        cx.b.push(Instr::mul(ldc_bytes, params.ldc, Op::imm(esz)));
        cx.b.push(Instr::mul_wide(row_bytes, row0, Op::imm(esz)));
        cx.b.push(Instr::add(row_bytes, row_bytes, params.c_ptr));
        cx.index_times_stride(base, col0, ldc_bytes, Some(row_bytes));

        let alpha_nim = neg_im(cx, params.alpha, "alpha_nim");
        let beta_nim = neg_im(cx, params.beta, "beta_nim");
        cx.b.comment("beta = 0: C is not read");
        let zero = Op::float_zero(cx.scalar);
        cx.b.push(Instr::setp(Cmp::Eq, cx.scalar, beta_zero, params.beta.re, zero));
        if let Some(im) = params.beta.im {
            let im_zero = cx.b.reg("p_beta_im_zero", Type::Pred);
            cx.b.push(Instr::setp(Cmp::Eq, cx.scalar, im_zero, im, zero));
            cx.b.push(Instr::and_pred(beta_zero, beta_zero, im_zero));
        }
        let overwrite = cx.b.label("epilogue_beta_zero");
        let done = cx.b.label("epilogue_done");
        cx.b.push_if(beta_zero, Instr::bra_uni(overwrite));

        for read_c in [true, false] {
            if read_c {
                cx.b.comment("C = alpha * C_regs + beta * C");
            } else {
                cx.b.place(overwrite);
                cx.b.comment("C = alpha * C_regs");
            }
            for j in 0..n_thr {
                let col_offset = i64::from(layout.col_offset(j));
                cx.b.push(Instr::mad(col_ptr, ldc_bytes, Op::imm(col_offset), base));
                for i in 0..m_thr {
                    let c = acc[(i * n_thr + j) as usize];
                    let addr = Address::reg(col_ptr, i64::from(layout.row_offset(i)) * esz);
                    cx.b.push(Instr::and_pred(ok, row_ok[i as usize], col_ok[j as usize]));
                    // new = alpha * c
                    let guard = read_c.then_some(ok);
                    let push = |cx: &mut Cx<'_>, instr| match guard {
                        Some(p) => cx.b.push_if(p, instr),
                        None => cx.b.push(instr),
                    };
                    push(cx, Instr::mul(new.re, params.alpha.re, c.re));
                    if let (Some(n_im), Some(c_im), Some(a_im), Some(a_nim)) =
                        (new.im, c.im, params.alpha.im, alpha_nim)
                    {
                        push(cx, Instr::fma(new.re, a_nim, c_im, new.re));
                        push(cx, Instr::mul(n_im, params.alpha.re, c_im));
                        push(cx, Instr::fma(n_im, a_im, c.re, n_im));
                    }
                    if read_c {
                        // new += beta * old
                        push(cx, Instr::ld(Space::Global, CacheQual::None, &old.regs(), addr));
                        push(cx, Instr::fma(new.re, params.beta.re, old.re, new.re));
                        if let (Some(n_im), Some(o_im), Some(b_im), Some(b_nim)) =
                            (new.im, old.im, params.beta.im, beta_nim)
                        {
                            push(cx, Instr::fma(new.re, b_nim, o_im, new.re));
                            push(cx, Instr::fma(n_im, params.beta.re, o_im, n_im));
                            push(cx, Instr::fma(n_im, b_im, old.re, n_im));
                        }
                    }
                    cx.b.push_if(ok, Instr::st(Space::Global, addr, &new.regs()));
                }
            }
            if read_c {
                cx.b.push(Instr::bra_uni(done));
            }
        }
        cx.b.place(done);
    }
}
