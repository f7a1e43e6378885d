// SPDX-License-Identifier: GPL-2.0

//! Oopses on load with a NULL-pointer write at the end of a chain of long-named generic
//! frames, for kallsyms-check.

use kernel::prelude::*;

mod chain;

module! {
    type: RustOopsNull,
    name: "rust_oops_null",
    authors: ["Rust-for-Linux developer tools"],
    description: "Oopses on load with a NULL-pointer write in Rust code",
    license: "GPL",
}

struct RustOopsNull;

/// Writes `value` through a NULL pointer: the kernel oopses here.
#[inline(never)]
fn die_by_writing_through_a_null_pointer<T: Copy>(value: T) {
    let null = core::ptr::null_mut::<T>();
    // SAFETY: None: this write is the point of the module, it must fault.
    unsafe { core::ptr::write_volatile(null, value) };
}

impl kernel::Module for RustOopsNull {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let die = die_by_writing_through_a_null_pointer::<u32>;
        // The address as a number: newer kernels hash `{:p}` as C's `%p`, and a checker needs
        // the real one (C's `%px`) to look it up in kallsyms.
        pr_info!(
            "expecting to die in {} at {:#x}\n",
            core::any::type_name_of_val(&die),
            die as fn(u32) as usize
        );
        chain::first_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms(7u32, die);
        Ok(RustOopsNull)
    }
}
