//! Ctrl-C: long runs stop between frames, finish the files in flight and leave nothing partial.
//!
//! The binary installs the handler once; the frame loops poll [`requested`].

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler. A second Ctrl-C is left to the default behaviour only in the
/// sense that the flag stays set; loops stop at the next frame boundary.
pub fn install() {
    // Failing to install (e.g. a handler already set by an embedding program) only means
    // Ctrl-C kills the process the usual way; atomic writes still leave no partial file.
    let _ = ctrlc::set_handler(|| REQUESTED.store(true, Ordering::SeqCst));
}

/// True once Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
