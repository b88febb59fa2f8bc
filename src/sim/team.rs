//! A team of rayon's threads for a long run of short passes over the same rows, as the
//! multigrid's V-cycles make. Each pass splits its rows into chunks, and each member owns a
//! run of consecutive chunks (the same rows every pass, so they stay in its core's cache, and
//! its neighbours' rows only meet it at the run's two ends). A member takes its own chunks
//! from the front of its run; one with nothing left takes another's from the back. A pass
//! starts when every chunk of the last one is done.
//!
//! Handing each pass to rayon costs a fork and a join, and its tasks land on whichever thread
//! steals them, so a row's data moves between the cores' caches from pass to pass. On the
//! walkway's 256² grid a task is a few microseconds of work, and the hand-offs cost more than
//! the work. A team starts once per solve (one `rayon::broadcast`).
//!
//! Between passes the members share as few cache lines as they can. Each member has a lane
//! of its own line: the front and back of its run in this pass, and the chunks it has
//! finished. A member writes only its own lane's count; a wait reads every lane's count. A
//! lane's run is claimed by compare-and-swap, and whoever first touches a lane in a pass (its
//! owner or a thief) sets its run up, so a member the system puts aside (an encoder thread
//! wanted its core) holds up at most the chunk it was running: the others take its chunks.
//! A barrier of all members would wait for it every pass, and rendering the walkway with one
//! ran at a sixth of the speed. Waits spin, then yield. A member that panics marks the team,
//! and the others panic in turn instead of waiting for ever.
//!
//! Rows only decide who computes them, never how, so the results keep their bits on any
//! number of members.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Spins in a wait before a member starts yielding its core.
const SPINS_BEFORE_YIELDING: u32 = 1 << 12;

/// One member's lane, on a cache line of its own.
#[repr(align(64))]
struct Lane {
    /// The member's run of chunks in the pass that last touched it: [`Run`] packed.
    run: AtomicU64,
    /// Chunks this member finished (its own or taken), over every pass so far.
    done: AtomicUsize,
}

/// A lane's run in one pass: the chunks `front..back` are still to be claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    pass: u32,
    front: u16,
    back: u16,
}

impl Run {
    fn pack(self) -> u64 {
        (u64::from(self.pass) << 32) | (u64::from(self.front) << 16) | u64::from(self.back)
    }

    fn unpack(packed: u64) -> Run {
        Run {
            pass: (packed >> 32) as u32,
            front: (packed >> 16) as u16,
            back: packed as u16,
        }
    }
}

/// What the members of one team share.
struct Board {
    lanes: Vec<Lane>,
    poisoned: AtomicBool,
}

impl Board {
    /// Chunks finished by every member together.
    fn done(&self) -> usize {
        self.lanes
            .iter()
            .map(|lane| lane.done.load(Ordering::Acquire))
            .sum()
    }

    /// Claims a chunk of `lane`'s run in pass `pass`, whose run is `chunks` (set up here if
    /// the lane has not been touched in this pass yet): the front one for its owner, the back
    /// one for a thief. `None` once the run is empty.
    fn claim(&self, lane: usize, pass: u32, chunks: Range<usize>, owner: bool) -> Option<usize> {
        let run = &self.lanes[lane].run;
        let mut seen = run.load(Ordering::Acquire);
        loop {
            let mut now = Run::unpack(seen);
            if now.pass > pass {
                // A later pass has begun: this one's chunks are all done.
                return None;
            }
            if now.pass < pass {
                // Untouched in this pass: its whole run.
                now = Run {
                    pass,
                    front: chunks.start as u16,
                    back: chunks.end as u16,
                };
            }
            if now.front >= now.back {
                return None;
            }
            let taken = if owner {
                now.front += 1;
                now.front - 1
            } else {
                now.back -= 1;
                now.back
            };
            match run.compare_exchange_weak(seen, now.pack(), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(usize::from(taken)),
                Err(actual) => seen = actual,
            }
        }
    }
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
    passes: u32,
    chunks_so_far: usize,
    /// Chunks this member has finished (what it stores in its lane).
    finished: usize,
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
            finished: 0,
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
        let chunks = chunks.clamp(1, MAX_CHUNKS);
        wait_until(board, self.chunks_so_far);
        self.passes += 1;
        let pass = self.passes;
        let count = rows.end - rows.start;
        let chunk =
            |c: usize| rows.start + count * c / chunks..rows.start + count * (c + 1) / chunks;
        let members = self.count;
        let run_of = |m: usize| m * chunks / members..(m + 1) * chunks / members;
        let done = &board.lanes[self.index].done;
        // Its own run from the front, then the others' from the back, the next member first.
        for m in (0..members).map(|k| (self.index + k) % members) {
            let owner = m == self.index;
            while let Some(c) = board.claim(m, pass, run_of(m), owner) {
                work(chunk(c));
                // Only this member writes its count: a store, not a read-modify-write.
                self.finished += 1;
                done.store(self.finished, Ordering::Release);
            }
        }
        self.chunks_so_far += chunks;
    }
}

/// The most chunks of one pass (a run's ends are 16 bits).
const MAX_CHUNKS: usize = u16::MAX as usize;

/// Returns once `done` chunks have finished; every write made in them is visible after.
fn wait_until(board: &Board, done: usize) {
    let mut spins = 0u32;
    while board.done() < done {
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
/// each with its own [`Member`], and returns when all have finished. One member runs on the
/// calling thread, with no pool, when `members` is 1.
pub(super) fn run(members: usize, op: impl Fn(&mut Member) + Sync) {
    let members = members.clamp(1, rayon::current_num_threads().max(1));
    if members == 1 {
        op(&mut Member::solo());
        return;
    }
    let board = Board {
        lanes: (0..members)
            .map(|_| Lane {
                run: AtomicU64::new(0),
                done: AtomicUsize::new(0),
            })
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
            finished: 0,
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
            run(4, |member| {
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
                run(3, |member| {
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
    fn the_others_take_the_chunks_of_a_member_put_aside() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        let ran = Mutex::new(Vec::new());
        pool.install(|| {
            run(3, |member| {
                if member.index == 0 {
                    // Put aside until the others have long finished the pass.
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                member.pass(0..9, 9, |rows| {
                    let thread = rayon::current_thread_index().expect("a pool thread");
                    ran.lock().unwrap().push((rows.start, thread));
                });
            })
        });
        let mut ran = ran.into_inner().unwrap();
        ran.sort_unstable();
        let rows: Vec<usize> = ran.iter().map(|&(row, _)| row).collect();
        assert_eq!(rows, (0..9).collect::<Vec<_>>(), "every chunk once");
        assert!(
            ran.iter().all(|&(_, thread)| thread != 0),
            "the late member's chunks were taken: {ran:?}"
        );
    }

    #[test]
    fn one_member_runs_on_the_calling_thread() {
        let caller = std::thread::current().id();
        run(1, |member| {
            assert_eq!(std::thread::current().id(), caller);
            member.pass(0..5, 8, |band| assert_eq!(band, 0..5));
        });
    }
}
