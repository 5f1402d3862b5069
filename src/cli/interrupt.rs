//! Ctrl-C (SIGINT) and SIGTERM for `validate`: the first signal asks the run to stop at its
//! next check (after the batch being validated); a second one ends the process at once with
//! exit status 130 (the temporary report files are then left under their hidden `.tmp`
//! names, never under the report's name).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGINT, SIGTERM};

/// Exit status of a run stopped by a signal (128 + SIGINT, the shells' convention).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Whether a stop was asked for; set by the signal handlers [`install`] registers.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Registers the handlers: for SIGINT and SIGTERM, the first sets the flag, a second
    /// one exits with [`EXIT_INTERRUPTED`].
    ///
    /// Errors: the operating system's, when a handler cannot be registered.
    pub fn install() -> std::io::Result<Interrupt> {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM] {
            // registered first, so it sees the flag as it was before this signal
            signal_hook::flag::register_conditional_shutdown(
                signal,
                i32::from(EXIT_INTERRUPTED),
                flag.clone(),
            )?;
            signal_hook::flag::register(signal, flag.clone())?;
        }
        Ok(Interrupt(flag))
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
