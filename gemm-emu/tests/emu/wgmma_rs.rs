//! `wgmma.mma_async` with A from registers (`Instr::WgmmaRs`) in the
//! emulator, on `wgmma.rs`'s hand-built kernel: each thread loads its
//! elements of A from global memory where `WgmmaShape::a_at` says, four
//! `.b32` registers a `wgmma`. The product is exact; each mistake (an A
//! register written in flight or after the fence, a value not TF32, the
//! lanes' order) is refused with its own fault or gives a wrong product.

use gemm_emu::FaultKind;

use super::wgmma::{
    K, Shape, assert_product, emulate, emulate_edited, emulate_text, inputs, kernel, reference,
};

/// The text with a copy of the first line containing `needle` (a load of an
/// A register, say) put after the `nth` line containing `after`.
fn copied_after(text: &str, needle: &str, after: &str, nth: usize) -> String {
    let line = text.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no {needle}"));
    let at = text.lines().filter(|l| l.contains(after)).nth(nth).unwrap_or_else(|| panic!("no {after}"));
    text.replacen(&format!("{at}\n"), &format!("{at}\n{line}\n"), 1)
}

/// A from registers (each thread's elements where [`WgmmaShape::a_at`]
/// puts them, two chained `wgmma`s on `%a0 … %a3` then `%a4 … %a7`)
/// computes `A · B` exactly: N = 8 and 128, one and two warpgroups, D
/// zeroed first; reading the A registers between the fence and the
/// `wgmma`, and while it is in flight, is allowed, and so is writing them
/// once it has retired.
#[test]
fn a_from_registers_gives_the_exact_product() {
    for s in [(1, 8), (1, 128), (2, 8), (2, 128)].map(|(groups, n)| Shape::rs(groups, n)) {
        let run = emulate(&s);
        assert!(run.text.contains("}, {%a4, %a5, %a6, %a7}, %bdesc1, "), "{}", run.text);
        assert_product(&s, &run, 1.0);
    }
    let s = Shape { zero_init: true, ..Shape::rs(1, 64) };
    assert_product(&s, &emulate(&s), 1.0);
    let s = Shape::rs(1, 64);
    let read = "\tsetp.ne.b32\t%p, %a4, 0;";
    let run = emulate_edited(&s, |t| {
        let t =
            t.replacen("\twgmma.fence.sync.aligned;\n", &format!("\twgmma.fence.sync.aligned;\n{read}\n"), 1);
        let t = t.replacen("\twgmma.commit_group", &format!("{read}\n\twgmma.commit_group"), 1);
        copied_after(&t, "\t%a0,", "wgmma.wait_group", 0)
    });
    assert_eq!(run.text.matches(read).count(), 2);
    assert_product(&s, &run, 1.0);
}

/// `imm-scale-a = -1` negates A from registers too.
#[test]
fn a_from_registers_negated_negates_the_product() {
    for (neg, sign) in [((true, false), -1.0), ((true, true), 1.0)] {
        let s = Shape { neg, ..Shape::rs(1, 128) };
        assert_product(&s, &emulate(&s), sign);
    }
}

/// Writing an A register before the `wgmma.wait_group` that retires the
/// `wgmma` reading it is refused at the write, naming the register and
/// that `wgmma`, even one writing the value already there: `%a4` (the
/// second's) and `%a0` (the first's) after the second `wgmma`.
#[test]
fn writing_an_a_register_in_flight_is_refused() {
    let s = Shape::rs(1, 64);
    for (reg, nth) in [("%a4", 1), ("%a0", 0)] {
        let run = emulate_edited(&s, |t| copied_after(&t, &format!("\t{reg},"), "wgmma.mma_async", 1));
        let f = run.fault();
        let wgmma_line = run.line_of("wgmma.mma_async", nth);
        assert_eq!(f.kind, FaultKind::WgmmaOperandRegisterWritten { reg: reg.into(), wgmma_line });
        assert_eq!((f.thread, f.line), (0, run.line_of("wgmma.mma_async", 1) + 1));
        assert!(f.to_string().contains("`wgmma.wait_group`"), "{f}");
    }
}

/// An A register written after the warp's last `wgmma.fence` needs another
/// fence before the `wgmma` that reads it.
#[test]
fn writing_an_a_register_after_the_fence_is_refused() {
    let s = Shape::rs(1, 64);
    for (reg, nth) in [("%a0", 0), ("%a6", 1)] {
        let run = emulate_edited(&s, |t| copied_after(&t, &format!("\t{reg},"), "wgmma.fence", 0));
        assert_eq!(run.fault().kind, FaultKind::WgmmaWithoutFence { reg: Some(reg.into()) });
        assert_eq!(run.fault().line, run.line_of("wgmma.mma_async", nth));
    }
}

/// An A value that is not TF32 is refused when the `wgmma` reading it is
/// issued, naming the thread and register holding it: A(13, 11) is the
/// second `wgmma`'s (k 8 + 3) `%a5` (row g + 8, g = 5) of lane 4g + 3.
#[test]
fn an_a_register_not_rounded_to_tf32_is_refused() {
    let s = Shape::rs(1, 8);
    let (mut a, b) = inputs(&s);
    let bits = (1.0 + f32::EPSILON).to_bits();
    a[(13 * K + 11) as usize] = f32::from_bits(bits);
    let run = emulate_text(&s, kernel(&s), s.threads(), &a, &b);
    let want = FaultKind::WgmmaRegisterNotTf32 { thread: 23, reg: "%a5".into(), row: 13, k: 3, bits };
    assert_eq!(run.fault().kind, want);
    assert_eq!((run.fault().thread, run.fault().line), (23, run.line_of("wgmma.mma_async", 1)));
}

/// A fragment in the wrong lane order (`%a0` and `%a1` swapped: rows g and
/// g + 8 exchanged) is valid PTX: nothing faults, the product is wrong.
#[test]
fn a_fragment_in_the_wrong_order_is_a_wrong_product() {
    let s = Shape::rs(1, 64);
    let run = emulate_edited(&s, |t| t.replacen("{%a0, %a1, %a2, %a3}", "{%a1, %a0, %a2, %a3}", 1));
    run.result.as_ref().unwrap_or_else(|e| panic!("{e}\n{}", run.text));
    let (a, b) = inputs(&s);
    let want = reference(&s, &a, &b);
    let wrong = run.d.iter().zip(&want).filter(|&(&got, &w)| f64::from(got) != w).count();
    assert!(wrong > want.len() / 2, "{wrong} of {} wrong", want.len());
}
