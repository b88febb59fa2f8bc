//! A pool of threads that encode images and write them atomically, so the GPU and the
//! simulation never wait for PNG compression.
//!
//! Jobs go through a bounded queue: when the encoders fall behind, the producer blocks rather
//! than holding an unbounded number of frames in memory. The first error is kept and reported
//! when the pool is drained.

use super::{atomic, png};
use crate::frame_pool::FrameBytes;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// One image to encode and write.
#[derive(Debug)]
pub struct WriteJob {
    /// Final path of the file.
    pub path: PathBuf,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Tightly packed RGBA8 pixels (PNG; empty for EXR, whose pixels are in the format). A
    /// frame's buffer goes back to its pool once the job is encoded.
    pub rgba8: FrameBytes,
    /// Tag the PNG as sRGB (pictures) or not (data maps); EXR ignores it (always linear).
    pub srgb: bool,
    /// The file format, with the pixels of formats that are not 8-bit.
    pub format: ImageFormat,
}

/// How a [`WriteJob`] is encoded.
///
/// There is deliberately no EXR made from 8-bit pixels: an EXR holds what the renderer read
/// back from its linear half-float target ([`crate::frame::Frame::linear_f16`], or a layer),
/// never an sRGB picture decoded back to linear, which would have lost the precision and the
/// values above 1.0 that are the reason to write EXR.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ImageFormat {
    /// 8-bit PNG of `rgba8` as given.
    #[default]
    Png,
    /// Half-float OpenEXR of `bits` written unchanged: `width * height * 4` IEEE 754 halves
    /// (raw bits), linear RGBA with premultiplied alpha, rows top to bottom.
    ExrF16 {
        /// The pixels.
        bits: Vec<u16>,
        /// How they are compressed.
        compression: super::exr::ExrCompression,
    },
}

/// What the pool did, once drained.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteReport {
    /// Files written.
    pub files: usize,
    /// Seconds spent encoding and writing, summed over threads.
    pub busy_s: f64,
    /// Of `busy_s`, seconds encoding (PNG or EXR bytes in memory).
    pub encode_s: f64,
    /// Of `busy_s`, seconds writing files (temporary file, rename).
    pub write_s: f64,
    /// Encoder threads.
    pub threads: usize,
    /// Seconds [`WriterPool::submit`] was blocked on a full queue: the encoders were behind.
    pub queue_wait_s: f64,
}

enum Done {
    Written { encode_s: f64, write_s: f64 },
    Failed(crate::Error),
}

/// How much lower than the rest of fogbank the encoder threads run (a Unix nice value).
///
/// Encoders work through a queue a few frames deep; the simulation's team and the frame loop
/// are on every frame's critical path. Under contention the system then gives the cores to
/// the critical path first. On the 16-core GPU host, with eight threads simulating and eight
/// encoding, the walkway rendered at 331 to 359 frames/s with the encoders at the same
/// priority, and at 372 to 379 below it (`benches/runs/2026-12-05-h100-f`).
#[cfg(target_os = "linux")]
const ENCODER_NICE: libc::c_int = 19;

/// Lowers the calling encoder thread's priority by [`ENCODER_NICE`] (Linux; elsewhere it keeps
/// its priority). A refusal is ignored: the thread only runs at the usual priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `setpriority` only reads its three integer arguments. On Linux, `PRIO_PROCESS`
    // with id 0 names the calling thread alone.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, ENCODER_NICE);
    }
}

/// Encoder threads fed through a bounded queue.
pub struct WriterPool {
    sender: Option<SyncSender<WriteJob>>,
    done: Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
    report: WriteReport,
    error: Option<crate::Error>,
}

impl WriterPool {
    /// A pool of `threads` encoders with room for `queue` waiting jobs.
    pub fn new(threads: usize, queue: usize) -> Self {
        let (sender, jobs) = sync_channel::<WriteJob>(queue.max(1));
        let jobs = Arc::new(Mutex::new(jobs));
        let (done_sender, done) = std::sync::mpsc::channel();
        let threads: Vec<JoinHandle<()>> = (0..threads.max(1))
            .map(|i| {
                let jobs = Arc::clone(&jobs);
                let done_sender = done_sender.clone();
                std::thread::Builder::new()
                    .name(format!("fogbank-encode-{i}"))
                    .spawn(move || {
                        lower_priority();
                        loop {
                            let job = match jobs.lock() {
                                Ok(receiver) => receiver.recv(),
                                Err(_) => return,
                            };
                            let Ok(job) = job else { return };
                            let _ = done_sender.send(run_job(job));
                        }
                    })
                    .expect("spawning an encoder thread")
            })
            .collect();
        WriterPool {
            report: WriteReport {
                threads: threads.len(),
                ..WriteReport::default()
            },
            sender: Some(sender),
            done,
            threads,
            error: None,
        }
    }

    /// A pool sized for this machine: one encoder per core. The frame loop's own thread
    /// mostly waits for the GPU, so encoders get every core when they are the bottleneck.
    pub fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        WriterPool::new(cores, cores * 2)
    }

    /// A pool of `threads` encoders (at least one) with a queue of twice as many jobs
    /// (`--threads`).
    pub fn with_threads(threads: usize) -> Self {
        let threads = threads.max(1);
        WriterPool::new(threads, threads * 2)
    }

    /// Queues a job, blocking while the queue is full. Returns the first error seen so far, if
    /// any, so the producer can stop early.
    pub fn submit(&mut self, job: WriteJob) -> Result<(), crate::Error> {
        self.collect_finished();
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if let Some(sender) = &self.sender {
            // The receiver lives as long as the threads; a send error means they all died.
            let started = Instant::now();
            if sender.send(job).is_err() {
                return Err(crate::Error::EncoderStopped);
            }
            self.report.queue_wait_s += started.elapsed().as_secs_f64();
        }
        Ok(())
    }

    /// Number of files written so far.
    pub fn files_written(&mut self) -> usize {
        self.collect_finished();
        self.report.files
    }

    fn collect_finished(&mut self) {
        while let Ok(done) = self.done.try_recv() {
            self.record(done);
        }
    }

    fn record(&mut self, done: Done) {
        match done {
            Done::Written { encode_s, write_s } => {
                self.report.files += 1;
                self.report.busy_s += encode_s + write_s;
                self.report.encode_s += encode_s;
                self.report.write_s += write_s;
            }
            Done::Failed(error) => {
                if self.error.is_none() {
                    self.error = Some(error);
                }
            }
        }
    }

    /// Waits for every queued job and returns the report, or the first error.
    pub fn finish(mut self) -> Result<WriteReport, crate::Error> {
        self.sender = None;
        for thread in std::mem::take(&mut self.threads) {
            let _ = thread.join();
        }
        while let Ok(done) = self.done.try_recv() {
            self.record(done);
        }
        match self.error.take() {
            Some(error) => Err(error),
            None => Ok(self.report.clone()),
        }
    }
}

fn run_job(job: WriteJob) -> Done {
    let started = Instant::now();
    let encoded = match &job.format {
        ImageFormat::Png => png::encode_rgba8(job.width, job.height, &job.rgba8, job.srgb)
            .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) }),
        ImageFormat::ExrF16 { bits, compression } => {
            super::exr::encode_exr_rgba_f16_with(job.width, job.height, bits, *compression)
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })
        }
    };
    let writing = Instant::now();
    let encode_s = (writing - started).as_secs_f64();
    let bytes = match encoded {
        Ok(bytes) => bytes,
        Err(source) => {
            return Done::Failed(crate::Error::Encode {
                path: job.path,
                source,
            });
        }
    };
    match atomic::write_atomic(&job.path, &bytes) {
        Ok(()) => Done::Written {
            encode_s,
            write_s: writing.elapsed().as_secs_f64(),
        },
        Err(source) => Done::Failed(crate::Error::Write {
            path: job.path,
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_job_and_reports_errors() {
        let dir = std::env::temp_dir().join(format!("fogbank-pool-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut pool = WriterPool::new(2, 2);
        for i in 0..6u8 {
            pool.submit(WriteJob {
                path: dir.join(format!("f{i}.png")),
                width: 2,
                height: 1,
                rgba8: vec![i; 8].into(),
                srgb: true,
                format: ImageFormat::Png,
            })
            .unwrap();
        }
        let report = pool.finish().unwrap();
        assert_eq!((report.files, report.threads), (6, 2));
        assert!(report.encode_s >= 0.0 && report.write_s >= 0.0 && report.queue_wait_s >= 0.0);
        assert!((report.busy_s - report.encode_s - report.write_s).abs() < 1e-9);
        for i in 0..6u8 {
            let bytes = std::fs::read(dir.join(format!("f{i}.png"))).unwrap();
            assert_eq!(png::decode_rgba8(&bytes).unwrap().2, vec![i; 8]);
        }
        std::fs::remove_dir_all(&dir).unwrap();

        let mut failing = WriterPool::new(1, 1);
        failing
            .submit(WriteJob {
                path: PathBuf::from("/nonexistent-fogbank/x.png"),
                width: 1,
                height: 1,
                rgba8: vec![0; 4].into(),
                srgb: false,
                format: ImageFormat::Png,
            })
            .unwrap();
        assert!(matches!(failing.finish(), Err(crate::Error::Write { .. })));
    }

    #[test]
    fn exr_jobs_write_their_half_floats_unchanged() {
        let dir = std::env::temp_dir().join(format!("fogbank-pool-exr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 3 × 2 pixels: values above 1, a negative zero, a subnormal and an infinity survive.
        let bits: Vec<u16> = (0..24u16)
            .map(|i| match i {
                0 => 0x4A00, // 12.0
                1 => 0x8000, // -0.0
                2 => 0x0001, // smallest subnormal
                3 => 0x7C00, // +infinity
                _ => 0x3C00 + i * 37,
            })
            .collect();
        let mut pool = WriterPool::new(1, 1);
        let path = dir.join("frame_0000.exr");
        pool.submit(WriteJob {
            path: path.clone(),
            width: 3,
            height: 2,
            rgba8: Vec::new().into(),
            srgb: false,
            format: ImageFormat::ExrF16 {
                bits: bits.clone(),
                compression: Default::default(),
            },
        })
        .unwrap();
        assert_eq!(pool.finish().unwrap().files, 1);
        let bytes = std::fs::read(&path).unwrap();
        let decoded = super::super::exr::decode_exr_rgba_f16(&bytes).unwrap();
        assert_eq!(decoded, (3, 2, bits));

        // The wrong number of halves is an encode error naming the file, not a panic.
        let mut short = WriterPool::new(1, 1);
        short
            .submit(WriteJob {
                path: dir.join("short.exr"),
                width: 3,
                height: 2,
                rgba8: Vec::new().into(),
                srgb: false,
                format: ImageFormat::ExrF16 {
                    bits: vec![0; 5],
                    compression: Default::default(),
                },
            })
            .unwrap();
        assert!(matches!(short.finish(), Err(crate::Error::Encode { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
