//! Tests of what a scan finds out about a build, on the targets and `.cmd` paths of the demo
//! trees.

use super::*;

fn check(cmd_file: &str, target: &str, objtree: &str, expect: &str) {
    let build = RustBuild {
        cmd_file: PathBuf::from(cmd_file),
        target: target.to_owned(),
        invocation: RustcInvocation::default(),
    };
    assert_eq!(build.working_dir(Path::new(objtree)), PathBuf::from(expect), "{cmd_file}");
}

#[test]
fn rustc_ran_where_the_target_is_relative_to() {
    // The kernel's crates and samples: the objtree.
    check("/o/rust/.kernel.o.cmd", "rust/kernel.o", "/o", "/o");
    check("/o/rust/host/.libsyn.rlib.cmd", "rust/host/libsyn.rlib", "/o", "/o");
    check("/o/samples/rust/.rust_minimal.o.cmd", "samples/rust/rust_minimal.o", "/o", "/o");
}

#[test]
fn external_modules_ran_in_their_folder_since_6_13() {
    // Linux 7.3: kbuild changes into `M=`; targets and roots are relative to it.
    check("/x/rust_oops/.rust_oops_null.o.cmd", "rust_oops_null.o", "/o", "/x/rust_oops");
    check("/x/m/sub/.a.o.cmd", "sub/a.o", "/o", "/x/m");
    // Linux 6.12: `make O= M=` ran in the objtree and named the module by absolute paths.
    check("/x/rust_oops/.rust_oops_null.o.cmd", "/x/rust_oops/rust_oops_null.o", "/o", "/o");
}
