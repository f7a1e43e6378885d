// SPDX-License-Identifier: GPL-2.0

//! Oopses on load through frames whose v0 symbols are close to and past `KSYM_NAME_LEN`
//! (512): a plain function of about 505 characters and a generic one of over 512 once its
//! closure type is mangled in. What kallsyms prints for each is what kallsyms-check verifies.

use core::hint::black_box;

use kernel::prelude::*;

module! {
    type: RustOopsLong,
    name: "rust_oops_long",
    authors: ["Rust-for-Linux developer tools"],
    description: "Oopses on load through frames with very long symbols",
    license: "GPL",
}

struct RustOopsLong;

/// Writes through a NULL pointer: the kernel oopses here.
#[inline(never)]
fn die_by_writing_through_a_null_pointer(value: u32) {
    let null = core::ptr::null_mut::<u32>();
    // SAFETY: None: this write is the point of the module, it must fault.
    unsafe { core::ptr::write_volatile(null, value) };
}

/// A frame whose symbol is a little under `KSYM_NAME_LEN`.
#[inline(never)]
fn a_plain_function_whose_name_is_long_enough_that_its_v0_symbol_comes_close_to_ksym_name_len_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(value: u32) {
    die_by_writing_through_a_null_pointer(black_box(value));
    black_box(());
}

/// A frame whose symbol is over `KSYM_NAME_LEN` once `F` is mangled in.
#[inline(never)]
fn a_generic_function_whose_symbol_goes_past_ksym_name_len_once_the_closure_type_is_added_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy<F: FnOnce()>(f: F) {
    f();
    black_box(());
}

impl kernel::Module for RustOopsLong {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("expecting to die in rust_oops_long::die_by_writing_through_a_null_pointer\n");
        a_generic_function_whose_symbol_goes_past_ksym_name_len_once_the_closure_type_is_added_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy(|| a_plain_function_whose_name_is_long_enough_that_its_v0_symbol_comes_close_to_ksym_name_len_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(11));
        Ok(RustOopsLong)
    }
}
