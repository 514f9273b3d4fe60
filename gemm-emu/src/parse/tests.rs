//! The reader on a small hand-written kernel: its round trip, and the
//! errors it names.

use super::*;
use gemm_codegen::ptx::write_string;

const TINY: &str = "//
// a tiny kernel
//

.version 6.0
.target sm_70
.address_size 64

.visible .entry tiny(
\t.param .u64 out,
\t.param .f32 x
)
.reqntid 32, 1, 1
{
\t// values
\t.reg .u64 %p, %q;
\t.reg .u32 %t;
\t.reg .f32 %v;
\t.reg .pred %ok;
\t// shared memory
\t.shared .align 16 .b8 buf[128];
\tld.param.u64\t%p, [out];
\tld.param.f32\t%v, [x];
\tcvta.to.global.u64\t%p, %p;
\tmov.u32\t%t, %tid.x;
\tsetp.lt.u32\t%ok, %t, 16;
\t@!%ok bra.uni\t$done;

\t// store
\tmul.wide.u32\t%q, %t, 4;
\tadd.u64\t%q, %q, %p;
\tst.global.f32\t[%q+-4], %v;
\tst.shared.v2.f32\t[buf+8], {%v, %v};
$done:
\tret;
}
";

#[test]
fn tiny_kernel_round_trips() {
    let (m, map) = parse_with_source_map(TINY).unwrap();
    assert_eq!(m.header, vec!["a tiny kernel".to_owned()]);
    let k = &m.kernels[0];
    assert_eq!(k.reg_groups, vec!["".to_owned(), "values".to_owned()]);
    assert_eq!(k.regs.len(), 5);
    assert_eq!(k.shared[0].bytes, Some(128));
    assert_eq!(k.reqntid, Some((32, 1, 1)));
    assert_eq!(write_string(&m), TINY);
    // `ld.param.u64 %p, [out]` is on line 22.
    assert_eq!(map.line(0, 0), 22);
    assert!(matches!(k.body[0], Stmt::Instr { instr: Instr::LdParam { .. }, .. }));
}

#[test]
fn unknown_instructions_are_named_with_their_line() {
    let text = TINY.replace("\tret;", "\tshfl.sync.idx.b32\t%t, %t, 0, 31, -1;");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, 35);
    assert!(e.message.contains("unknown instruction `shfl.sync.idx.b32`"), "{e}");
}

#[test]
fn mistyped_operands_are_refused() {
    let text = TINY.replace("add.u64\t%q, %q, %p", "add.u64\t%q, %q, %v");
    let e = parse(&text).unwrap_err();
    assert!(e.message.contains("%v of type .f32 cannot be used as .u64"), "{e}");
    let text = TINY.replace("mov.u32\t%t, %tid.x", "mov.u32\t%t, %tid.y");
    assert!(parse(&text).unwrap_err().message.contains("`%tid.y`"));
}

#[test]
fn undefined_labels_and_bad_directives_are_refused() {
    let text = TINY.replace("$done:", "$later:");
    assert!(parse(&text).unwrap_err().message.contains("undefined label `$done`"));
    let text = TINY.replace(".reqntid 32, 1, 1", ".maxntid 32, 1, 1");
    assert!(parse(&text).unwrap_err().message.contains("`.maxntid`"));
    let text = TINY.replace(".version 6.0", ".version 7.0");
    assert!(parse(&text).unwrap_err().message.contains("`.version 7.0`"));
}
