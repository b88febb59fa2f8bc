//! Stop signals: SIGINT (Ctrl-C), SIGTERM and SIGHUP end a long run between frames. The frame
//! in flight is finished or dropped, no partial file is left, an ffmpeg child is stopped (its
//! unfinished video removed), and the process exits with 128 + the signal's number (130, 143,
//! 129), as shells and farm schedulers expect.
//!
//! The binary installs the handlers once ([`install`]); the loops poll [`requested`] and name
//! the signal with [`signal`]. A second stop signal while fogbank is still winding down gets the
//! signal's default action: the process dies at once, killed by that signal. Files already
//! renamed into place are whole; a temporary file being written at that moment may be left
//! behind (`.name.pid.tmp`), never a partial file under a final name.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The signal that asked the run to stop; 0 while none has.
static SIGNAL: AtomicUsize = AtomicUsize::new(0);
/// Set by the first stop signal; arms the default action for the next one.
static ARMED: AtomicBool = AtomicBool::new(false);

/// SIGINT: Ctrl-C in a terminal.
pub const SIGINT: i32 = signal_hook::consts::SIGINT;
/// SIGTERM: what `kill` and farm schedulers send to stop a job.
pub const SIGTERM: i32 = signal_hook::consts::SIGTERM;
/// SIGHUP: the terminal or the ssh session went away.
#[cfg(unix)]
pub const SIGHUP: i32 = signal_hook::consts::SIGHUP;

/// The signals that stop a run between frames.
#[cfg(unix)]
pub const STOP_SIGNALS: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];
/// The signals that stop a run between frames.
#[cfg(not(unix))]
pub const STOP_SIGNALS: [i32; 2] = [SIGINT, SIGTERM];

/// Installs the handlers for [`STOP_SIGNALS`]. Failing to install one (e.g. an embedding
/// program forbids it) only means that signal kills the process the usual way; atomic writes
/// still leave no partial file under a final name.
pub fn install() {
    for signal in STOP_SIGNALS {
        // Registration order is the order the actions run: the default action is checked
        // first, so it only fires once an earlier signal has armed it.
        let _ = signal_hook::flag::register_conditional_default(signal, &ARMED);
        let _ = signal_hook::flag::register_usize(signal, &SIGNAL, signal as usize);
        let _ = signal_hook::flag::register(signal, &ARMED);
    }
}

/// Asks the running loops to stop as if `signal` had arrived (for programs that embed fogbank
/// and stop it their own way). Does not arm the default action.
pub fn request(signal: i32) {
    SIGNAL.store(signal.max(1) as usize, Ordering::SeqCst);
}

/// True once a stop signal arrived (or [`request`] was called).
pub fn requested() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// The stop signal that arrived, if any (the latest one when several did).
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n as i32),
    }
}

/// For stepping loops ([`crate::playback::Playback::advance_to_or_stop`]): break once a stop
/// signal arrived.
pub fn poll() -> std::ops::ControlFlow<()> {
    if requested() {
        std::ops::ControlFlow::Break(())
    } else {
        std::ops::ControlFlow::Continue(())
    }
}

/// A signal's usual name ("SIGTERM"), or "signal N" for one without a known name.
pub fn signal_name(signal: i32) -> String {
    signal_hook::low_level::signal_name(signal)
        .map(str::to_string)
        .unwrap_or_else(|| format!("signal {signal}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_signals_have_their_shell_names() {
        assert_eq!(signal_name(SIGINT), "SIGINT");
        assert_eq!(signal_name(SIGTERM), "SIGTERM");
        #[cfg(unix)]
        assert_eq!(signal_name(SIGHUP), "SIGHUP");
    }
}
