// SPDX-License-Identifier: GPL-2.0

//! An out-of-tree Rust module, built with `make M=`: what most kernel Rust developers write.
//!
//! One source for every demo kernel: `authors` and `params` are written as mainline has them
//! (6.12's demo series accepts both).

use kernel::prelude::*;

module! {
    type: RustOutOfTree,
    name: "rust_out_of_tree",
    authors: ["Rust-for-Linux developer tools"],
    description: "Out-of-tree Rust module of the demo kernel",
    license: "GPL",
    params: {
        greetings: u32 {
            default: 3,
            description: "How many of the greetings to keep, at most 3",
        },
        shout: bool {
            default: false,
            description: "Whether to print the greetings in capitals",
        },
    },
}

struct RustOutOfTree {
    greetings: KVec<&'static str>,
}

impl kernel::Module for RustOutOfTree {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("Rust out-of-tree sample (init)\n");
        let (count, shout) =
            (module_parameters::greetings.value(), module_parameters::shout.value());
        pr_info!("greetings: {count}, shout: {shout}\n");
        let words: [&'static str; 3] = if shout {
            ["HELLO", "FROM", "OUTSIDE THE TREE"]
        } else {
            ["hello", "from", "outside the tree"]
        };
        let mut greetings = KVec::new();
        for word in words.into_iter().take(count as usize) {
            greetings.push(word, GFP_KERNEL)?;
        }
        Ok(RustOutOfTree { greetings })
    }
}

impl Drop for RustOutOfTree {
    fn drop(&mut self) {
        pr_info!("Greetings: {:?}\n", self.greetings);
        pr_info!("Rust out-of-tree sample (exit)\n");
    }
}
