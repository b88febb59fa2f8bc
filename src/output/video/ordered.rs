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

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use super::{EncoderError, VideoError};

/// A finished job: its position and its result (or the panic message of a worker that failed).
type Finished<T> = (u64, Result<Result<T, VideoError>, String>);

/// The threads jobs run on: a rayon pool of their own.
#[derive(Clone)]
pub(crate) struct Workers(Arc<rayon::ThreadPool>);

impl Workers {
    /// A pool of `threads` threads (at least one).
    pub(crate) fn with_threads(threads: usize) -> Result<Workers, VideoError> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("fogbank-video-{i}"))
            .build()
            .map(|pool| Workers(Arc::new(pool)))
            .map_err(|e| {
                VideoError::Settings(format!("cannot start the video encoder threads: {e}"))
            })
    }

    /// How many threads run jobs.
    pub(crate) fn threads(&self) -> usize {
        self.0.current_num_threads()
    }

    fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.0.spawn(job);
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
        }
    }

    /// Jobs submitted and not yet handed back.
    pub(crate) fn in_flight(&self) -> usize {
        (self.submitted - self.handed_back) as usize
    }

    /// Starts `job` and returns the results that are ready, in order (possibly none). Blocks
    /// while `limit` jobs are in flight until the oldest is done.
    pub(crate) fn submit(
        &mut self,
        job: impl FnOnce() -> Result<T, VideoError> + Send + 'static,
    ) -> Vec<Result<T, VideoError>> {
        let position = self.submitted;
        self.submitted += 1;
        let sender = self.sender.clone();
        self.workers.spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(job)).map_err(|panic| {
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a worker thread panicked".into())
            });
            // The receiver goes only with a sink that was dropped: nothing to hand back then.
            let _ = sender.send((position, result));
        });
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
                for result in jobs.submit(move || {
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
    fn a_failing_or_panicking_job_is_an_error_in_its_place() {
        let mut jobs = InOrder::new(Workers::with_threads(2).unwrap(), Path::new("clip.gif"));
        let mut out = jobs.submit(|| Ok(1u8));
        out.extend(jobs.submit(|| Err(VideoError::AlreadyFinished)));
        out.extend(jobs.submit(|| panic!("boom")));
        out.extend(jobs.submit(|| Ok(4u8)));
        out.extend(jobs.finish());
        assert_eq!(out.len(), 4);
        assert_eq!(*out[0].as_ref().unwrap(), 1);
        assert!(matches!(out[1], Err(VideoError::AlreadyFinished)));
        let text = out[2].as_ref().unwrap_err().to_string();
        assert!(text.contains("boom") && text.contains("clip.gif"), "{text}");
        assert_eq!(*out[3].as_ref().unwrap(), 4);
    }
}
