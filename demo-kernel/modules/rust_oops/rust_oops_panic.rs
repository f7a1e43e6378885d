// SPDX-License-Identifier: GPL-2.0

//! Panics on load at the end of a chain of long-named generic frames; the kernel turns a Rust
//! panic into `BUG()`. For kallsyms-check.

use kernel::prelude::*;

mod chain;

module! {
    type: RustOopsPanic,
    name: "rust_oops_panic",
    authors: ["Rust-for-Linux developer tools"],
    description: "Panics on load in Rust code",
    license: "GPL",
}

struct RustOopsPanic;

/// Panics with `value` in the message.
#[inline(never)]
fn die_by_panicking<T: Copy + core::fmt::Debug>(value: T) {
    // lint-allow(no-panic): this module exists to panic, for kallsyms-check.
    panic!("rust_oops_panic: deliberate panic with {value:?}");
}

impl kernel::Module for RustOopsPanic {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let die = die_by_panicking::<u32>;
        // The address as a number: newer kernels hash `{:p}` as C's `%p`, and a checker needs
        // the real one (C's `%px`) to look it up in kallsyms.
        pr_info!(
            "expecting to die in {} at {:#x}\n",
            core::any::type_name_of_val(&die),
            die as fn(u32) as usize
        );
        chain::first_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms(9u32, die);
        Ok(RustOopsPanic)
    }
}
