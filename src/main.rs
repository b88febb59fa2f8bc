//! The `fogbank` binary: parse flags, run the command, map errors to exit codes.

use clap::Parser;
use fogbank::cli::Cli;

fn main() {
    quiet_headless_vulkan();
    fogbank::interrupt::install();
    let code = match Cli::parse().into_command().and_then(fogbank::commands::run) {
        Ok(()) => fogbank::error::EXIT_OK,
        // The reader of standard output went away: stop quietly.
        Err(error) if error.is_closed_pipe() => error.exit_code(),
        Err(error) => {
            eprintln!("{}", error.report());
            error.exit_code()
        }
    };
    std::process::exit(code);
}

/// Mesa's Vulkan drivers probe for a Wayland display when wgpu creates its instance and print
/// "XDG_RUNTIME_DIR is invalid or not set" on headless machines (CI, farms). fogbank never opens
/// a window, so pointing the variable at the temporary folder only silences that probe.
fn quiet_headless_vulkan() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        // SAFETY: called first thing in `main`, before any other thread exists.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir()) };
    }
}
