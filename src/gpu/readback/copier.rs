//! The readback ring's copier: one thread that takes each submitted frame in order, waits
//! until the GPU has finished it and its staging buffers are mapped, copies the pictures out
//! (dropping the rows' padding) and unmaps the slot, then hands the [`Frame`] back.
//!
//! Copying a 1920×1080 picture out of mapped memory takes over a millisecond even spread over
//! several threads (mapped staging memory reads at a few GB/s); on the frame loop's thread that
//! time added to every frame's recording. Here it overlaps with the recording of the next
//! frames and with the GPU's work on them.
//!
//! The copier touches a slot only between the ring handing it a frame in that slot and the
//! ring receiving that frame back; the ring records into a slot and maps it only outside that
//! window, so the two never use one buffer at once.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::{Slot, Staging, padded_bytes_per_row};
use crate::frame::Frame;
use crate::frame_pool::{FrameBytes, FramePool};
use crate::gpu::GpuError;

/// Read-back 8-bit pictures this large and larger are copied out on several threads (a
/// 1920×1080 picture is 8.3 MB).
const PARALLEL_COPY_BYTES: usize = 4 << 20;

/// Bytes each rayon task copies of a picture whose rows have no padding.
const PARALLEL_COPY_BLOCK: usize = 1 << 20;

/// How long the copier waits between polls for a finished frame's map callbacks.
const MAP_CALLBACK_POLL: Duration = Duration::from_millis(1);

/// How long the copier waits for a finished frame's map callbacks before it gives up on the
/// frame (they normally come within microseconds of the frame finishing).
const MAP_CALLBACK_WAIT: Duration = Duration::from_secs(10);

/// A submitted frame whose slot's buffers are being mapped.
pub(super) struct CopyJob {
    pub(super) slot: usize,
    pub(super) frame_index: u32,
    pub(super) submission: wgpu::SubmissionIndex,
    /// One per buffer of the slot, in [`Slot::stagings`] order.
    pub(super) mapped: Vec<mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>>,
}

/// A frame copied out, or why it could not be; its slot is unmapped either way.
pub(super) struct Copied {
    pub(super) slot: usize,
    pub(super) frame: Result<Frame, GpuError>,
    /// Seconds spent copying the pictures out of mapped memory.
    pub(super) copy_s: f64,
}

/// The copier's thread and the channels to and from it.
pub(super) struct Copier {
    /// `None` only while dropping (closing it ends the thread).
    jobs: Option<mpsc::Sender<CopyJob>>,
    copied: mpsc::Receiver<Copied>,
    thread: Option<thread::JoinHandle<()>>,
    width: u32,
    height: u32,
}

impl Copier {
    /// Starts the thread for a ring of `slots` (clones of the ring's buffers) of `width` ×
    /// `height` frames whose 8-bit pictures go into buffers of `pool`.
    pub(super) fn spawn(
        device: &wgpu::Device,
        slots: Vec<Slot>,
        (width, height): (u32, u32),
        pool: FramePool,
    ) -> Result<Self, GpuError> {
        let (jobs, job_queue) = mpsc::channel::<CopyJob>();
        let (copied_sender, copied) = mpsc::channel();
        let device = device.clone();
        let thread = thread::Builder::new()
            .name("fogbank-readback".into())
            .spawn(move || {
                let out = Out {
                    width,
                    height,
                    pool,
                };
                for job in job_queue {
                    let slot = job.slot;
                    let (frame, copy_s) = out.copy_frame(&device, &slots[slot], job);
                    let copied = Copied {
                        slot,
                        frame,
                        copy_s,
                    };
                    if copied_sender.send(copied).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| GpuError::ReadbackThread {
                message: error.to_string(),
            })?;
        Ok(Copier {
            jobs: Some(jobs),
            copied,
            thread: Some(thread),
            width,
            height,
        })
    }

    /// The frames' width and height.
    pub(super) fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Hands the copier a submitted frame.
    pub(super) fn send(&self, job: CopyJob) -> Result<(), GpuError> {
        let frame_index = job.frame_index;
        self.jobs
            .as_ref()
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(|| stopped(Some(frame_index)))
    }

    /// The oldest frame handed over and not yet received, waiting for it if need be.
    pub(super) fn receive(&self) -> Result<Copied, GpuError> {
        self.copied.recv().map_err(|_| stopped(None))
    }
}

impl Drop for Copier {
    fn drop(&mut self) {
        // Closing the queue ends the thread once it has finished (and unmapped) the frames it
        // was given; waiting for it keeps their buffers from being freed while mapped.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The error for a copier that is no longer running (its thread panicked), before it got
/// frame `frame_index` or, with `None`, before it handed back the oldest frame.
fn stopped(frame_index: Option<u32>) -> GpuError {
    let message = match frame_index {
        Some(index) => format!("the readback thread stopped before frame {index} reached it"),
        None => "the readback thread stopped before handing back a frame".to_string(),
    };
    GpuError::ReadbackThread { message }
}

/// What the copier copies frames into.
struct Out {
    width: u32,
    height: u32,
    pool: FramePool,
}

impl Out {
    /// Waits for `job`'s frame, copies it out of `slot` and unmaps the slot; also returns the
    /// seconds the copy took.
    fn copy_frame(
        &self,
        device: &wgpu::Device,
        slot: &Slot,
        job: CopyJob,
    ) -> (Result<Frame, GpuError>, f64) {
        let readback_error = |message: String| GpuError::Readback {
            frame_index: job.frame_index,
            message,
        };
        let mut mapped = 0;
        if let Err(error) = wait_mapped(device, &job, &mut mapped) {
            // The buffers that did get mapped are unmapped again (their order is the
            // receivers').
            for staging in slot.stagings().take(mapped) {
                staging.buffer.unmap();
            }
            return (Err(error), 0.0);
        }
        let copying = Instant::now();
        let values = (self.width * self.height * 4) as usize;
        let srgb8_read = self.read_rgba8(&slot.srgb8);
        // Half floats lie in the buffer as the texture stores them: little-endian.
        let half_floats = |staging: &Staging| {
            let mut bits = Vec::with_capacity(values);
            self.read_rows(staging, |row| {
                bits.extend(
                    row.chunks_exact(2)
                        .map(|pair| u16::from_le_bytes([pair[0], pair[1]])),
                );
            })
            .map(|()| bits)
        };
        let linear_f16 = slot.linear_f16.as_ref().map(half_floats).transpose();
        let fog_f16 = slot.fog_f16.as_ref().map(half_floats).transpose();
        let weather_f16 = slot.weather_f16.as_ref().map(half_floats).transpose();
        // Unmapped before any error is returned, so the slot can be mapped again.
        for staging in slot.stagings() {
            staging.buffer.unmap();
        }
        let copy_s = copying.elapsed().as_secs_f64();
        let frame = (|| {
            Ok(Frame {
                frame_index: job.frame_index,
                width: self.width,
                height: self.height,
                rgba8: srgb8_read.map_err(readback_error)?,
                linear_f16: linear_f16.map_err(readback_error)?,
                fog_f16: fog_f16.map_err(readback_error)?,
                weather_f16: weather_f16.map_err(readback_error)?,
            })
        })();
        (frame, copy_s)
    }

    /// The 8-bit picture of a mapped staging buffer, rows without their padding, copied once
    /// into a buffer of the [`FramePool`] (the padding is dropped in that one copy; rows of a
    /// multiple of 256 bytes, as at 1920 or 3840 wide, have none and go as one block).
    /// Pictures of [`PARALLEL_COPY_BYTES`] and more are copied on rayon's threads; smaller ones
    /// are not worth waking the threads for.
    fn read_rgba8(&self, staging: &Staging) -> Result<FrameBytes, String> {
        use rayon::prelude::*;
        let padded = padded_bytes_per_row(self.width, staging.texels) as usize;
        let unpadded = (self.width * staging.texels.bytes_per_pixel()) as usize;
        let height = self.height as usize;
        let bytes = unpadded * height;
        let view = staging
            .buffer
            .get_mapped_range(..)
            .map_err(|error| error.to_string())?;
        let mapped: &[u8] = &view;
        let copy = |out: &mut [u8]| {
            let parallel = bytes >= PARALLEL_COPY_BYTES;
            match (padded == unpadded, parallel) {
                (true, false) => out.copy_from_slice(&mapped[..bytes]),
                (true, true) => out
                    .par_chunks_mut(PARALLEL_COPY_BLOCK)
                    .zip(mapped[..bytes].par_chunks(PARALLEL_COPY_BLOCK))
                    .for_each(|(block, from)| block.copy_from_slice(from)),
                (false, false) => {
                    for (row, padded_row) in
                        out.chunks_exact_mut(unpadded).zip(mapped.chunks(padded))
                    {
                        row.copy_from_slice(&padded_row[..unpadded]);
                    }
                }
                (false, true) => out
                    .par_chunks_mut(unpadded)
                    .zip(mapped.par_chunks(padded))
                    .with_min_len(64)
                    .for_each(|(row, padded_row)| row.copy_from_slice(&padded_row[..unpadded])),
            }
        };
        Ok(self.pool.take_filled(bytes, copy))
    }

    /// Hands each row of a mapped staging buffer to `row`, top to bottom, without the padding.
    fn read_rows(&self, staging: &Staging, mut row: impl FnMut(&[u8])) -> Result<(), String> {
        let padded = padded_bytes_per_row(self.width, staging.texels) as usize;
        let unpadded = (self.width * staging.texels.bytes_per_pixel()) as usize;
        let view = staging
            .buffer
            .get_mapped_range(..)
            .map_err(|error| error.to_string())?;
        for padded_row in view.chunks_exact(padded).take(self.height as usize) {
            row(&padded_row[..unpadded]);
        }
        Ok(())
    }
}

/// Waits until `job`'s submission is done and every buffer of its slot is mapped, counting in
/// `mapped` the buffers found mapped (the first ones, in [`Slot::stagings`] order).
fn wait_mapped(device: &wgpu::Device, job: &CopyJob, mapped: &mut usize) -> Result<(), GpuError> {
    let poll_error = |error: wgpu::PollError| GpuError::Poll {
        message: error.to_string(),
    };
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(job.submission.clone()),
            timeout: None,
        })
        .map_err(poll_error)?;
    for receiver in &job.mapped {
        // The submission is done, so the buffer's mapping is settled; its callback runs on
        // whichever thread's poll found it settled (the frame loop's thread polls too), which
        // may be moments after this thread's wait returned. Poll again while waiting for it.
        let mut result = receiver.try_recv();
        let mut waited = Duration::ZERO;
        while matches!(result, Err(mpsc::TryRecvError::Empty)) && waited < MAP_CALLBACK_WAIT {
            device.poll(wgpu::PollType::Poll).map_err(poll_error)?;
            result = match receiver.recv_timeout(MAP_CALLBACK_POLL) {
                Ok(mapped) => Ok(mapped),
                Err(mpsc::RecvTimeoutError::Timeout) => Err(mpsc::TryRecvError::Empty),
                Err(mpsc::RecvTimeoutError::Disconnected) => Err(mpsc::TryRecvError::Disconnected),
            };
            waited += MAP_CALLBACK_POLL;
        }
        match result {
            Ok(Ok(())) => *mapped += 1,
            Ok(Err(error)) => {
                return Err(GpuError::Readback {
                    frame_index: job.frame_index,
                    message: error.to_string(),
                });
            }
            Err(_) => {
                return Err(GpuError::Readback {
                    frame_index: job.frame_index,
                    message: "the buffer was never mapped".into(),
                });
            }
        }
    }
    Ok(())
}
