//! Getting finished frames back from the GPU without stalling it: a fixed ring of staging
//! buffers, each mapped asynchronously after its frame is submitted.
//!
//! Frame N is copied into one slot and mapped; the caller gets it back only when the ring is
//! full and a slot is needed again (or at `finish`), by which time the GPU has usually long
//! finished it and is busy with frames N + 1 and N + 2. Frames come back in submission
//! order. Memory is bounded by the ring: `slots × padded row × height` bytes.

use std::collections::VecDeque;
use std::sync::mpsc;

use crate::frame::Frame;
use crate::gpu::GpuError;

/// Bytes per pixel of the output picture (RGBA8).
const BYTES_PER_PIXEL: u32 = 4;

/// Bytes per row of a frame as it lies in a staging buffer.
///
/// This is the one place the 256-byte row alignment is handled: `copy_texture_to_buffer`
/// requires `bytes_per_row` to be a multiple of `wgpu::COPY_BYTES_PER_ROW_ALIGNMENT` (256), so
/// each row is padded up to it in the staging buffer, and [`ReadbackRing::wait_oldest`] drops
/// the padding when it copies the rows out. (`write_texture` has no such rule.)
pub(crate) fn padded_bytes_per_row(width: u32) -> u32 {
    let unpadded = width * BYTES_PER_PIXEL;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Size in bytes of one staging buffer for a `width` × `height` frame.
pub(crate) fn staging_bytes(width: u32, height: u32) -> u64 {
    u64::from(padded_bytes_per_row(width)) * u64::from(height)
}

/// A submitted frame whose staging buffer is being mapped.
struct InFlight {
    slot: usize,
    frame_index: u32,
    submission: wgpu::SubmissionIndex,
    mapped: mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>,
}

/// The ring of staging buffers.
pub(crate) struct ReadbackRing {
    buffers: Vec<wgpu::Buffer>,
    /// Oldest first.
    in_flight: VecDeque<InFlight>,
    /// The slot the next frame goes to (always free when the ring is not full: frames leave in
    /// the order they came).
    next_slot: usize,
    width: u32,
    height: u32,
}

impl ReadbackRing {
    /// A ring of `slots` (at least 1) buffers for `width` × `height` frames.
    pub(crate) fn new(device: &wgpu::Device, width: u32, height: u32, slots: usize) -> Self {
        let buffers = (0..slots.max(1))
            .map(|slot| {
                let label = format!("readback.slot{slot}");
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&label),
                    size: staging_bytes(width, height),
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
            .collect();
        ReadbackRing {
            buffers,
            in_flight: VecDeque::new(),
            next_slot: 0,
            width,
            height,
        }
    }

    /// Frames submitted and not yet returned.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Whether every slot holds a frame not yet returned.
    pub(crate) fn is_full(&self) -> bool {
        self.in_flight.len() >= self.buffers.len()
    }

    /// Records the copy of `output` into the next free slot and returns that slot. The ring
    /// must not be full.
    pub(crate) fn record_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::Texture,
    ) -> usize {
        let slot = self.next_slot;
        encoder.copy_texture_to_buffer(
            output.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffers[slot],
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_bytes_per_row(self.width)),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        slot
    }

    /// Starts mapping `slot` once `submission` (which holds its copy) is done.
    pub(crate) fn start_map(
        &mut self,
        slot: usize,
        frame_index: u32,
        submission: wgpu::SubmissionIndex,
    ) {
        let (sender, mapped) = mpsc::channel();
        self.buffers[slot].map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver only goes away with the ring; nothing to do then.
            let _ = sender.send(result);
        });
        self.in_flight.push_back(InFlight {
            slot,
            frame_index,
            submission,
            mapped,
        });
        self.next_slot = (slot + 1) % self.buffers.len();
    }

    /// Waits for the oldest frame in flight and returns it, rows unpadded; `None` when nothing
    /// is in flight.
    pub(crate) fn wait_oldest(&mut self, device: &wgpu::Device) -> Result<Option<Frame>, GpuError> {
        let Some(flight) = self.in_flight.pop_front() else {
            return Ok(None);
        };
        let poll_error = |error: wgpu::PollError| GpuError::Poll {
            message: error.to_string(),
        };
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(flight.submission.clone()),
                timeout: None,
            })
            .map_err(poll_error)?;
        // Waiting on the submission runs its map callback; a few more waits cover backends
        // that deliver it one poll late.
        let mut result = flight.mapped.try_recv();
        for _ in 0..8 {
            if result.is_ok() {
                break;
            }
            device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(poll_error)?;
            result = flight.mapped.try_recv();
        }
        let readback_error = |message: String| GpuError::Readback {
            frame_index: flight.frame_index,
            message,
        };
        match result {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(readback_error(error.to_string())),
            Err(_) => return Err(readback_error("the buffer was never mapped".into())),
        }

        let buffer = &self.buffers[flight.slot];
        let padded = padded_bytes_per_row(self.width) as usize;
        let unpadded = (self.width * BYTES_PER_PIXEL) as usize;
        let mut rgba8 = Vec::with_capacity(unpadded * self.height as usize);
        {
            let view = buffer
                .get_mapped_range(..)
                .map_err(|error| readback_error(error.to_string()))?;
            for row in view.chunks_exact(padded).take(self.height as usize) {
                rgba8.extend_from_slice(&row[..unpadded]);
            }
        }
        buffer.unmap();
        Ok(Some(Frame {
            frame_index: flight.frame_index,
            width: self.width,
            height: self.height,
            rgba8,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pad_to_256_bytes() {
        assert_eq!(padded_bytes_per_row(64), 256);
        assert_eq!(padded_bytes_per_row(33), 256);
        assert_eq!(padded_bytes_per_row(65), 512);
        assert_eq!(padded_bytes_per_row(640), 2560);
        assert_eq!(staging_bytes(33, 17), 256 * 17);
    }
}
