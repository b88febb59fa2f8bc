//! A team of rayon's threads for a long run of short passes over the same rows, as the
//! multigrid's V-cycles make. Each pass splits its rows into chunks; every member claims its
//! own chunks first (the same rows every pass, so they stay in its core's cache), then any
//! chunk still unclaimed; and a pass starts when every chunk of the last one is done.
//!
//! Handing each pass to rayon costs a fork and a join, and its tasks land on whichever thread
//! steals them, so a row's data moves between the cores' caches from pass to pass. On the
//! walkway's 256² grid a task is a few microseconds of work, and the hand-offs cost more than
//! the work. A team starts once per solve (one `rayon::broadcast`) and crosses two atomics
//! between passes.
//!
//! No member waits for another member as such, only for chunks. A member the system puts
//! aside (an encoder thread wanted its core) holds up at most the chunk it was running: the
//! others take its next chunks. A barrier of all members would wait for it every pass, and
//! rendering the walkway with one ran at a sixth of the speed. Waits spin, then yield. A member
//! that panics marks the team, and the others panic in turn instead of waiting for ever.
//!
//! Rows only decide who computes them, never how, so the results keep their bits on any
//! number of members.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Spins in a wait before a member starts yielding its core.
const SPINS_BEFORE_YIELDING: u32 = 1 << 12;

/// One chunk's claim, on a cache line of its own: the number of the last pass that claimed it.
#[repr(align(64))]
struct Claim(AtomicUsize);

/// What the members of one team share.
struct Board {
    /// Chunks finished, over every pass so far.
    done: AtomicUsize,
    claims: Vec<Claim>,
    poisoned: AtomicBool,
}

/// Marks the board when its member unwinds, so the others stop waiting.
struct PoisonOnPanic<'a>(&'a Board);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// One member of a team: which it is, how many there are, and how far the passes have come.
pub(super) struct Member<'a> {
    index: usize,
    count: usize,
    board: Option<&'a Board>,
    /// Passes so far, and their chunks in all.
    passes: usize,
    chunks_so_far: usize,
}

impl Member<'_> {
    /// A team of one: every pass runs at once, whole, on the calling thread.
    pub(super) fn solo() -> Member<'static> {
        Member {
            index: 0,
            count: 1,
            board: None,
            passes: 0,
            chunks_so_far: 0,
        }
    }

    /// Runs one pass over `rows` in at most `chunks` chunks: waits until every chunk of the
    /// last pass is done, then calls `work` with each chunk this member claims. Every member
    /// makes the same sequence of calls.
    pub(super) fn pass(&mut self, rows: Range<usize>, chunks: usize, work: impl Fn(Range<usize>)) {
        let Some(board) = self.board else {
            work(rows);
            return;
        };
        let chunks = chunks.clamp(1, board.claims.len());
        wait_until(board, self.chunks_so_far);
        self.passes += 1;
        let pass = self.passes;
        let count = rows.end - rows.start;
        let chunk =
            |c: usize| rows.start + count * c / chunks..rows.start + count * (c + 1) / chunks;
        let mut run = |c: usize| {
            let claims = &board.claims[c].0;
            if claims.load(Ordering::Relaxed) < pass
                && claims.fetch_max(pass, Ordering::AcqRel) < pass
            {
                work(chunk(c));
                board.done.fetch_add(1, Ordering::AcqRel);
            }
        };
        // Its own chunks first (the same rows as last pass), then whatever is left.
        (self.index..chunks).step_by(self.count).for_each(&mut run);
        (0..chunks).for_each(&mut run);
        self.chunks_so_far += chunks;
    }
}

/// Returns once `done` chunks have finished; every write made in them is visible after.
fn wait_until(board: &Board, done: usize) {
    let mut spins = 0u32;
    while board.done.load(Ordering::Acquire) < done {
        assert!(
            !board.poisoned.load(Ordering::Relaxed),
            "a member of the fluid's thread team panicked"
        );
        if spins < SPINS_BEFORE_YIELDING {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Runs `op` on `members` threads of the current rayon pool at once (at most the pool's size),
/// each with its own [`Member`], for passes of at most `max_chunks` chunks, and returns when
/// all have finished. One member runs on the calling thread, with no pool, when `members` is 1.
pub(super) fn run(members: usize, max_chunks: usize, op: impl Fn(&mut Member) + Sync) {
    let members = members.clamp(1, rayon::current_num_threads().max(1));
    if members == 1 {
        op(&mut Member::solo());
        return;
    }
    let board = Board {
        done: AtomicUsize::new(0),
        claims: (0..max_chunks.max(1))
            .map(|_| Claim(AtomicUsize::new(0)))
            .collect(),
        poisoned: AtomicBool::new(false),
    };
    rayon::broadcast(|context| {
        let index = context.index();
        if index >= members {
            return;
        }
        let _poison = PoisonOnPanic(&board);
        let mut member = Member {
            index,
            count: members,
            board: Some(&board),
            passes: 0,
            chunks_so_far: 0,
        };
        op(&mut member);
        // The caller reads the results once `broadcast` returns: wait for every chunk.
        wait_until(&board, member.chunks_so_far);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn chunks_cover_the_rows_once_and_passes_see_the_last_pass() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .expect("a pool");
        let rows = 3..40;
        let cells = Mutex::new(vec![0u32; 40]);
        let seen = Mutex::new(Vec::new());
        pool.install(|| {
            run(4, 5, |member| {
                for (pass, chunks) in [4, 1, 3, 5, 1].into_iter().enumerate() {
                    member.pass(rows.clone(), chunks, |band| {
                        let mut cells = cells.lock().unwrap();
                        // Each pass finds every row at the count the last pass left.
                        for r in band {
                            assert_eq!(cells[r], pass as u32, "row {r}, pass {pass}");
                            cells[r] += 1;
                        }
                    });
                }
                seen.lock().unwrap().push(member.index);
            })
        });
        let cells = cells.into_inner().unwrap();
        assert!(cells[..3].iter().all(|&c| c == 0));
        assert!(cells[3..].iter().all(|&c| c == 5), "{cells:?}");
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3]);
    }

    #[test]
    fn a_member_that_panics_stops_the_team_instead_of_hanging_it() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                run(3, 3, |member| {
                    member.pass(0..9, 3, |rows| {
                        assert!(rows.start != 0, "the first chunk fails");
                    });
                    // Never starts: the first pass's failed chunk is never done.
                    member.pass(0..9, 3, |_| {});
                })
            })
        }));
        assert!(outcome.is_err(), "the panic comes back to the caller");
    }

    #[test]
    fn one_member_runs_on_the_calling_thread() {
        let caller = std::thread::current().id();
        run(1, 8, |member| {
            assert_eq!(std::thread::current().id(), caller);
            member.pass(0..5, 8, |band| assert_eq!(band, 0..5));
        });
    }
}
