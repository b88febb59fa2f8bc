//! The `fogbank` binary: parse flags, run the command, map errors to exit codes.

use clap::Parser;
use fogbank::cli::Cli;

fn main() {
    fogbank::interrupt::install();
    let code = match Cli::parse().into_command().and_then(fogbank::commands::run) {
        Ok(()) => fogbank::error::EXIT_OK,
        Err(error) => {
            let message = error.to_string();
            if message.starts_with("error:") {
                eprintln!("{message}");
            } else {
                eprintln!("error: {message}");
            }
            error.exit_code()
        }
    };
    std::process::exit(code);
}
