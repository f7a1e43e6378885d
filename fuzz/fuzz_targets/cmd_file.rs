//! kbuild's `.cmd` files and the command lines in them: rustc's and bindgen's invocations, the
//! shell splitting under them, and rustc's response files.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(cmd) = kbuild::rustc::parse_cmd_file(&text) {
        let _ = kbuild::rustc::find_rustc(&cmd.command);
        let _ = kbuild::bindgen::find_bindgen(&cmd.command);
    }
    let _ = kbuild::rustc::find_rustc(&text);
    let _ = kbuild::bindgen::find_bindgen(&text);
    let _ = kbuild::shell::split_commands(&text);
    let _ = kbuild::rustc::response_file_cfgs(&text);
});
