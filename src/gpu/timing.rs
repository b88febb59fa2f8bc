//! Where the renderer's time goes: CPU seconds recording frames and waiting for them, and,
//! where the adapter has `Features::TIMESTAMP_QUERY`, GPU seconds per pass.
//!
//! Pass times come from timestamp queries written between the passes: after each pass the
//! renderer records an empty compute pass whose only job is to write a timestamp at its start
//! (`PassTimer::mark`). Backends write those once every earlier command has finished (Vulkan:
//! `BOTTOM_OF_PIPE`), so the difference between two marks is the pass between them.
//!
//! lavapipe writes a timestamp only when a later command flushes its queue, and it runs a
//! compute dispatch at once. So each mark took the time at the next mark, and a compute pass's
//! time showed under the pass before it: the `fog_shadow` pass's 13 ms a frame under
//! `fire_flicker`. On a CPU adapter each mark is followed by a second, spare timestamp that is
//! never read; it flushes the mark's at once. Each
//! frame's marks are resolved into a buffer in the frame's own submission, copied to a staging
//! buffer and mapped like the frame's pixels, and read when the frame comes back: timing never
//! stalls the GPU. Without timestamp queries the passes are not timed and [`GpuTimes::passes`]
//! stays empty; the CPU-side submit and wait times still are.
//!
//! These are wall-clock and GPU-clock measurements for reports only: nothing rendered depends
//! on them.

use std::collections::VecDeque;
use std::sync::mpsc;

use crate::gpu::GpuError;

/// Most timestamps one frame writes (a start mark and one after each pass).
const MAX_MARKS: u32 = 16;
/// Bytes between two slots' timestamps in the resolve buffer
/// (`wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT`).
const SLOT_STRIDE: u64 = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;

/// What the renderer measured over the frames it rendered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GpuTimes {
    /// Seconds the CPU spent uploading each frame's data and recording its commands.
    pub record_s: f64,
    /// Seconds in `Queue::submit` and the non-blocking poll after it. Tiny on a GPU; a CPU
    /// adapter (lavapipe) may block here until earlier frames are done, so it is a wait.
    pub submit_s: f64,
    /// Seconds the CPU was blocked until a finished frame was done on the GPU and mapped.
    pub readback_wait_s: f64,
    /// Seconds copying finished frames out of the mapped staging buffers.
    pub readback_copy_s: f64,
    /// The 8-bit frame buffers the readback ring handed on: allocated, reused, idle now.
    pub frame_buffers: crate::frame_pool::FramePoolStats,
    /// GPU seconds per pass, summed over the timed frames, in pass order (the copies into the
    /// staging buffers are the pass `readback`). Empty without timestamp queries.
    pub passes: Vec<(&'static str, f64)>,
    /// Frames whose passes were timed on the GPU.
    pub timed_frames: u32,
    /// Whether the adapter has timestamp queries (pass times are measured on the GPU).
    pub timestamps: bool,
}

impl GpuTimes {
    /// GPU seconds of every pass together.
    pub fn gpu_s(&self) -> f64 {
        self.passes.iter().map(|(_, s)| s).sum()
    }

    fn add_pass(&mut self, name: &'static str, seconds: f64) {
        match self.passes.iter_mut().find(|(seen, _)| *seen == name) {
            Some((_, total)) => *total += seconds,
            None => self.passes.push((name, seconds)),
        }
    }
}

/// Marks the end of the pass `name` when passes are timed (`timer` is `Some`).
pub(crate) fn mark(
    timer: &mut Option<PassTimer>,
    encoder: &mut wgpu::CommandEncoder,
    name: &'static str,
) {
    if let Some(timer) = timer.as_mut() {
        timer.mark(encoder, name);
    }
}

/// A frame whose timestamps are being mapped.
struct Pending {
    slot: usize,
    names: Vec<&'static str>,
    mapped: mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

/// Timestamp queries for the passes of frames in flight, one slot of marks per frame.
pub(crate) struct PassTimer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: Vec<wgpu::Buffer>,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
    slots: usize,
    /// On a CPU adapter, the query written after each mark to flush it (see the module docs).
    flush_query: Option<u32>,
    /// The slot being recorded and the names of its marks so far (the first is the start).
    slot: usize,
    names: Vec<&'static str>,
    in_flight: VecDeque<Pending>,
}

impl PassTimer {
    /// A timer for up to `slots` frames in flight, or `None` when the device was opened
    /// without timestamp queries. `cpu_adapter`: flush each mark (see the module docs).
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: usize,
        cpu_adapter: bool,
    ) -> Option<PassTimer> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let slots = slots.max(1);
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("timing.queries"),
            ty: wgpu::QueryType::Timestamp,
            count: MAX_MARKS * slots as u32 + 1,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timing.resolve"),
            size: SLOT_STRIDE * slots as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = (0..slots)
            .map(|slot| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("timing.slot{slot}")),
                    size: u64::from(MAX_MARKS) * 8,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
            .collect();
        Some(PassTimer {
            set,
            resolve,
            staging,
            period_ns: f64::from(queue.get_timestamp_period()),
            slots,
            // The one query past every slot's marks.
            flush_query: cpu_adapter.then_some(MAX_MARKS * slots as u32),
            slot: 0,
            names: Vec::new(),
            in_flight: VecDeque::new(),
        })
    }

    /// Writes a timestamp once everything recorded so far in `encoder` is done: the end of
    /// the pass `name` (or, for the first mark of a frame, its start).
    pub(crate) fn mark(&mut self, encoder: &mut wgpu::CommandEncoder, name: &'static str) {
        let used = self.names.len() as u32;
        if used >= MAX_MARKS {
            return;
        }
        let index = self.slot as u32 * MAX_MARKS + used;
        self.write_timestamp(encoder, "timing.mark", index);
        self.names.push(name);
        if let Some(flush_query) = self.flush_query {
            self.write_timestamp(encoder, "timing.flush", flush_query);
        }
    }

    /// An empty compute pass `label` that writes the timestamp `index` of the set.
    fn write_timestamp(&self, encoder: &mut wgpu::CommandEncoder, label: &str, index: u32) {
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.set,
                beginning_of_pass_write_index: Some(index),
                end_of_pass_write_index: None,
            }),
        });
    }

    /// Records the resolve of this frame's marks and their copy to the slot's staging buffer.
    pub(crate) fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let count = self.names.len() as u32;
        if count == 0 {
            return;
        }
        let first = self.slot as u32 * MAX_MARKS;
        let offset = SLOT_STRIDE * self.slot as u64;
        encoder.resolve_query_set(&self.set, first..first + count, &self.resolve, offset);
        encoder.copy_buffer_to_buffer(
            &self.resolve,
            offset,
            &self.staging[self.slot],
            0,
            u64::from(count) * 8,
        );
    }

    /// Starts mapping this frame's timestamps (after the submission that resolves them) and
    /// moves on to the next slot.
    pub(crate) fn start_map(&mut self) {
        let names = std::mem::take(&mut self.names);
        if names.is_empty() {
            return;
        }
        let (sender, mapped) = mpsc::channel();
        self.staging[self.slot].map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver only goes away with the timer; nothing to do then.
            let _ = sender.send(result);
        });
        self.in_flight.push_back(Pending {
            slot: self.slot,
            names,
            mapped,
        });
        self.slot = (self.slot + 1) % self.slots;
    }

    /// Adds the pass times of the oldest frame in flight to `times`. Call it when that frame
    /// has come back: its submission is done, so this does not wait for the GPU.
    pub(crate) fn collect_oldest(
        &mut self,
        device: &wgpu::Device,
        times: &mut GpuTimes,
    ) -> Result<(), GpuError> {
        let Some(pending) = self.in_flight.pop_front() else {
            return Ok(());
        };
        let mut result = pending.mapped.try_recv();
        for _ in 0..8 {
            if result.is_ok() {
                break;
            }
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|error| GpuError::Poll {
                    message: error.to_string(),
                })?;
            result = pending.mapped.try_recv();
        }
        // A timestamp that cannot be read only costs the statistics of one frame.
        if !matches!(result, Ok(Ok(()))) {
            return Ok(());
        }
        let buffer = &self.staging[pending.slot];
        if let Ok(view) = buffer.get_mapped_range(..) {
            let ticks: Vec<u64> = view
                .chunks_exact(8)
                .take(pending.names.len())
                .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect();
            drop(view);
            for (pair, name) in ticks.windows(2).zip(pending.names.iter().skip(1)) {
                let seconds = pair[1].saturating_sub(pair[0]) as f64 * self.period_ns * 1e-9;
                times.add_pass(name, seconds);
            }
            times.timed_frames += 1;
        }
        buffer.unmap();
        Ok(())
    }
}
