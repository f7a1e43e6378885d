// SPDX-License-Identifier: GPL-2.0

//! An out-of-tree Rust module, built with `make M=`: what most kernel Rust developers write.

use kernel::prelude::*;

module! {
    type: RustOutOfTree,
    name: "rust_out_of_tree",
    authors: ["Rust-for-Linux developer tools"],
    description: "Out-of-tree Rust module of the demo kernel",
    license: "GPL",
}

struct RustOutOfTree {
    greetings: KVec<&'static str>,
}

impl kernel::Module for RustOutOfTree {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("Rust out-of-tree sample (init)\n");
        let mut greetings = KVec::new();
        greetings.push("hello", GFP_KERNEL)?;
        greetings.push("from", GFP_KERNEL)?;
        greetings.push("outside the tree", GFP_KERNEL)?;
        Ok(RustOutOfTree { greetings })
    }
}

impl Drop for RustOutOfTree {
    fn drop(&mut self) {
        pr_info!("Greetings: {:?}\n", self.greetings);
        pr_info!("Rust out-of-tree sample (exit)\n");
    }
}
