//! Frames of a native video (GIF, animated PNG) compressed in parallel and handed back in order.
//!
//! Once a frame's palette or filter is chosen it is independent of every other frame, so the
//! costly part (quantising and LZW for GIF, filtering and deflate for animated PNG) runs on
//! worker threads while the caller keeps rendering. The caller, the only writer, appends the
//! results to the file strictly in submission order: [`InOrder::submit`] returns the frames
//! that are ready to be written, oldest first, and [`InOrder::finish`] the rest. At most
//! `limit` frames are in flight (submitted, not yet handed back), so memory stays bounded on
//! long clips: `submit` blocks while the limit is reached. Each result is a pure function of
//! its frame, so the file is the same bytes whatever the number of threads.
//!
//! [`Workers`] are two sets of threads. Each *frame thread* runs whole jobs, one after another,
//! from one queue, so a frame never waits behind another; the parts of a job that split into
//! bands of rows (a GIF frame's colour count and pixel mapping) run on a rayon pool of their
//! own, the *row pool*, which the frame thread waits for asleep. Frames were once rayon jobs
//! that split their rows on the same pool: a thread waiting for its frame's rows then stole a
//! whole later frame and finished its own only after that one, so the oldest frame, the one
//! the writer waits for, came back late while the other threads ran out of work. Bands pay
//! only while the row pool has threads to spare ([`Rows::bands_pay`]): with one thread, or
//! with every frame thread busy, a job does that work in one pass on its own thread instead.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use super::{EncoderError, VideoError};

/// A finished job: its position and its result (or the panic message of a worker that failed).
type Finished<T> = (u64, Result<Result<T, VideoError>, String>);

/// A job as a frame thread runs it, given the row pool.
type Job = Box<dyn FnOnce(&Rows<'_>) + Send>;

/// The row pool as a job is given it, with how many frame threads are running a job.
pub(crate) struct Rows<'a> {
    /// The pool the bands of rows run on.
    pub(crate) pool: &'a rayon::ThreadPool,
    /// Frame threads running a job, the caller's included.
    busy: &'a AtomicUsize,
}

impl Rows<'_> {
    /// Whether work split into bands of rows has threads to spread over now: the pool has more
    /// than one, and fewer frame threads run jobs than it has. With every frame thread busy,
    /// every core already has a frame, and the bands would only add their own cost.
    pub(crate) fn bands_pay(&self) -> bool {
        let threads = self.pool.current_num_threads();
        threads > 1 && self.busy.load(Ordering::Relaxed) < threads
    }
}

/// The threads jobs run on: frame threads taking whole jobs from one queue, and a row pool for
/// the bands of rows inside a job (see the module documentation). Threads end once every
/// clone is dropped and the queue is empty.
#[derive(Clone)]
pub(crate) struct Workers(Arc<Queue>);

struct Queue {
    jobs: Sender<Job>,
    threads: usize,
}

impl Workers {
    /// `threads` frame threads and a row pool of `threads` threads (at least one each).
    pub(crate) fn with_threads(threads: usize) -> Result<Workers, VideoError> {
        let threads = threads.max(1);
        let cannot_start = |e: &dyn std::fmt::Display| {
            VideoError::Settings(format!("cannot start the video encoder threads: {e}"))
        };
        let rows = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("fogbank-video-rows-{i}"))
            .build()
            .map_err(|e| cannot_start(&e))?;
        let rows = Arc::new(rows);
        let busy = Arc::new(AtomicUsize::new(0));
        let (jobs, queue) = channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads {
            let (queue, rows, busy) = (Arc::clone(&queue), Arc::clone(&rows), Arc::clone(&busy));
            std::thread::Builder::new()
                .name(format!("fogbank-video-{i}"))
                .spawn(move || run_jobs(&queue, &rows, &busy))
                .map_err(|e| cannot_start(&e))?;
        }
        Ok(Workers(Arc::new(Queue { jobs, threads })))
    }

    /// How many frame threads run jobs (and how many threads the row pool has).
    pub(crate) fn threads(&self) -> usize {
        self.0.threads
    }

    fn spawn(&self, job: Job) {
        // The frame threads hold the receiver until every sender is gone: sending cannot fail
        // while `self` lives, unless a thread could not be started (then the job's result is
        // never handed back and `with_threads` has already failed).
        let _ = self.0.jobs.send(job);
    }
}

/// A frame thread: runs jobs from `queue` until every [`Workers`] is dropped, counting itself
/// in `busy` while it runs one.
fn run_jobs(queue: &Mutex<Receiver<Job>>, pool: &rayon::ThreadPool, busy: &AtomicUsize) {
    loop {
        // The lock is held only while taking a job, never while running one.
        let job = match queue.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => return,
        };
        match job {
            Ok(job) => {
                busy.fetch_add(1, Ordering::Relaxed);
                job(&Rows { pool, busy });
                busy.fetch_sub(1, Ordering::Relaxed);
            }
            Err(_) => return,
        }
    }
}

/// Jobs run on [`Workers`], results returned in submission order.
pub(crate) struct InOrder<T: Send + 'static> {
    workers: Workers,
    sender: Sender<Finished<T>>,
    results: Receiver<Finished<T>>,
    /// Jobs submitted so far (the next job's position).
    submitted: u64,
    /// Results handed back so far (the position of the next one to hand back).
    handed_back: u64,
    /// Finished out of order, waiting for an earlier one.
    waiting: BTreeMap<u64, Result<T, VideoError>>,
    /// Most jobs in flight.
    limit: usize,
    /// The video being made, named by the error of a worker that panicked.
    path: PathBuf,
    /// Set when the sink is dropped: jobs not started yet are skipped.
    dropped: Arc<AtomicBool>,
}

impl<T: Send + 'static> InOrder<T> {
    /// Runs jobs for the video at `path` on `workers`, with at most two per thread in flight.
    pub(crate) fn new(workers: Workers, path: &Path) -> Self {
        let limit = (workers.threads() * 2).max(2);
        let (sender, results) = channel();
        InOrder {
            workers,
            sender,
            results,
            submitted: 0,
            handed_back: 0,
            waiting: BTreeMap::new(),
            limit,
            path: path.to_path_buf(),
            dropped: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Jobs submitted and not yet handed back.
    pub(crate) fn in_flight(&self) -> usize {
        (self.submitted - self.handed_back) as usize
    }

    /// Starts `job` on a frame thread (it is given the row pool for work split into bands of
    /// rows) and returns the results that are ready, in order (possibly none). Blocks while
    /// `limit` jobs are in flight until the oldest is done.
    pub(crate) fn submit(
        &mut self,
        job: impl FnOnce(&Rows<'_>) -> Result<T, VideoError> + Send + 'static,
    ) -> Vec<Result<T, VideoError>> {
        let position = self.submitted;
        self.submitted += 1;
        let sender = self.sender.clone();
        let dropped = Arc::clone(&self.dropped);
        self.workers.spawn(Box::new(move |rows: &Rows<'_>| {
            if dropped.load(Ordering::Relaxed) {
                return;
            }
            let result = catch_unwind(AssertUnwindSafe(|| job(rows))).map_err(|panic| {
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a worker thread panicked".into())
            });
            // The receiver goes only with a sink that was dropped: nothing to hand back then.
            let _ = sender.send((position, result));
        }));
        let mut ready = Vec::new();
        while let Ok(finished) = self.results.try_recv() {
            self.keep(finished);
        }
        self.take_ready(&mut ready);
        while self.in_flight() >= self.limit {
            self.wait_one();
            self.take_ready(&mut ready);
        }
        ready
    }

    /// Waits for every job in flight and returns their results, in order.
    pub(crate) fn finish(&mut self) -> Vec<Result<T, VideoError>> {
        let mut ready = Vec::new();
        self.take_ready(&mut ready);
        while self.in_flight() > 0 {
            self.wait_one();
            self.take_ready(&mut ready);
        }
        ready
    }

    /// Blocks until one more job is done.
    fn wait_one(&mut self) {
        // The sink holds a sender itself, so this never ends for lack of senders.
        if let Ok(finished) = self.results.recv() {
            self.keep(finished);
        }
    }

    fn keep(&mut self, (position, result): Finished<T>) {
        let result = result.unwrap_or_else(|message| {
            Err(VideoError::Encode {
                path: self.path.clone(),
                source: EncoderError::Worker(message),
            })
        });
        self.waiting.insert(position, result);
    }

    /// Moves every result whose predecessors are all handed back to `ready`.
    fn take_ready(&mut self, ready: &mut Vec<Result<T, VideoError>>) {
        while let Some(result) = self.waiting.remove(&self.handed_back) {
            self.handed_back += 1;
            ready.push(result);
        }
    }
}

impl<T: Send + 'static> Drop for InOrder<T> {
    /// Jobs still queued for a sink that is gone (an error or Ctrl-C in the frame loop) are
    /// skipped rather than compressed for nothing.
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_submission_order_whatever_the_threads() {
        for threads in [1, 4] {
            let mut jobs = InOrder::new(
                Workers::with_threads(threads).unwrap(),
                Path::new("clip.gif"),
            );
            let mut out = Vec::new();
            for i in 0..40u64 {
                // Later jobs finish first: the order must still be kept.
                let pause = std::time::Duration::from_micros((40 - i) * 50);
                for result in jobs.submit(move |_| {
                    std::thread::sleep(pause);
                    Ok(i * i)
                }) {
                    out.push(result.unwrap());
                }
                assert!(jobs.in_flight() <= threads * 2);
            }
            out.extend(jobs.finish().into_iter().map(|r| r.unwrap()));
            assert_eq!(out, (0..40u64).map(|i| i * i).collect::<Vec<_>>());
            assert_eq!(jobs.in_flight(), 0);
        }
    }

    #[test]
    fn a_frame_waiting_for_its_rows_never_runs_another_frame() {
        use rayon::prelude::*;
        std::thread_local! {
            static BUSY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        // Each job splits its work into bands on the row pool; a thread that picked up a second
        // job while waiting for the first one's rows (as a rayon pool's join does) would find
        // itself busy.
        let mut jobs = InOrder::new(Workers::with_threads(3).unwrap(), Path::new("clip.gif"));
        let mut out = Vec::new();
        for i in 0..30u64 {
            out.extend(jobs.submit(move |rows| {
                let nested = BUSY.with(|busy| busy.replace(true));
                let sum: u64 = rows.pool.install(|| {
                    (0..64u64)
                        .into_par_iter()
                        .map(|band| {
                            std::thread::sleep(std::time::Duration::from_micros(200));
                            band * i
                        })
                        .sum()
                });
                BUSY.with(|busy| busy.set(false));
                Ok((nested, sum))
            }));
        }
        out.extend(jobs.finish());
        assert_eq!(out.len(), 30);
        for (i, result) in out.into_iter().enumerate() {
            let (nested, sum) = result.unwrap();
            assert!(
                !nested,
                "job {i} started inside another job on the same thread"
            );
            assert_eq!(sum, 2016 * i as u64);
        }
    }

    #[test]
    fn bands_pay_only_while_the_row_pool_has_threads_to_spare() {
        // One thread: never.
        let mut jobs = InOrder::new(Workers::with_threads(1).unwrap(), Path::new("clip.gif"));
        let mut out = jobs.submit(|rows| Ok(rows.bands_pay()));
        out.extend(jobs.finish());
        assert!(!*out[0].as_ref().unwrap());
        // Three threads: a job alone, yes; three at once, each on a frame thread, no.
        let mut jobs = InOrder::new(Workers::with_threads(3).unwrap(), Path::new("clip.gif"));
        let mut out = jobs.submit(|rows| Ok(rows.bands_pay()));
        out.extend(jobs.finish());
        assert!(*out[0].as_ref().unwrap());
        let all_busy = Arc::new(std::sync::Barrier::new(3));
        let mut out = Vec::new();
        for _ in 0..3 {
            let all_busy = Arc::clone(&all_busy);
            out.extend(jobs.submit(move |rows| {
                all_busy.wait();
                let pay = rows.bands_pay();
                all_busy.wait();
                Ok(pay)
            }));
        }
        out.extend(jobs.finish());
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|pay| !*pay.as_ref().unwrap()));
    }

    #[test]
    fn a_failing_or_panicking_job_is_an_error_in_its_place() {
        let mut jobs = InOrder::new(Workers::with_threads(2).unwrap(), Path::new("clip.gif"));
        let mut out = jobs.submit(|_| Ok(1u8));
        out.extend(jobs.submit(|_| Err(VideoError::AlreadyFinished)));
        out.extend(jobs.submit(|_| panic!("boom")));
        out.extend(jobs.submit(|_| Ok(4u8)));
        out.extend(jobs.finish());
        assert_eq!(out.len(), 4);
        assert_eq!(*out[0].as_ref().unwrap(), 1);
        assert!(matches!(out[1], Err(VideoError::AlreadyFinished)));
        let text = out[2].as_ref().unwrap_err().to_string();
        assert!(text.contains("boom") && text.contains("clip.gif"), "{text}");
        assert_eq!(*out[3].as_ref().unwrap(), 4);
    }
}
