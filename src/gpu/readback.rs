//! Getting finished frames back from the GPU without stalling it: a fixed ring of staging
//! buffers, each mapped asynchronously after its frame is submitted.
//!
//! Frame N is copied into one slot and mapped; the caller gets it back only when the ring is
//! full and a slot is needed again (or at `finish`), by which time the GPU has usually long
//! finished it and is busy with frames N + 1 and N + 2. Frames come back in submission
//! order. Memory is bounded by the ring: `slots × padded row × height` bytes per picture.
//!
//! A slot always holds the 8-bit sRGB picture; [`Readback`] adds a staging buffer per slot for
//! the linear half-float colour target (`--format exr`), one for the fog layer and, for scenes
//! with weather, one for the weather layer (`--layers`), copied in the same submission and
//! mapped alongside, so the extra pictures ride the same ring and come back in the same
//! [`Frame`].
//!
//! The checks that a frame's staging buffers fit the device ([`check_frame_size`]) live here,
//! beside the sizes they check.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Instant;

use crate::frame::Frame;
use crate::frame_pool::{FrameBytes, FramePool, FramePoolStats};
use crate::gpu::GpuError;

/// Which pictures each frame reads back besides the 8-bit sRGB picture, which always comes
/// back (PNG, video, `check` and `sheet` read it). Each one costs a copy and a staging buffer
/// of 8 bytes a pixel per slot of the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Readback {
    /// Read back the linear Rgba16Float colour target as the `encode` pass reads it (after the
    /// `flame` and `overlay` passes, before the sRGB encode) into [`Frame::linear_f16`].
    pub linear_f16: bool,
    /// Draw the fog sheets a second time into a layer of their own (transparent black
    /// elsewhere, premultiplied alpha, cut out by the scene's depth) and read it back into
    /// [`Frame::fog_f16`].
    pub fog_layer_f16: bool,
    /// For a scene with weather: draw the rain, debris and lightning a second time into a
    /// layer of their own (transparent black elsewhere, premultiplied alpha, hidden behind the
    /// scene's geometry) and read it back into [`Frame::weather_f16`]. Nothing for a scene
    /// without weather.
    pub weather_layer_f16: bool,
}

/// Read-back 8-bit pictures this large and larger are copied out on several threads (a
/// 1920×1080 picture is 8.3 MB).
const PARALLEL_COPY_BYTES: usize = 4 << 20;

/// Bytes each rayon task copies of a picture whose rows have no padding.
const PARALLEL_COPY_BLOCK: usize = 1 << 20;

/// Idle 8-bit frame buffers the ring's [`FramePool`] keeps for a ring of `slots`: as many as
/// can be alive at once downstream of it on this machine (the writer pool's encoders and its
/// queue of twice as many, `WriterPool::for_this_machine`, and a frame in the loop's hands and
/// in a video sink's), so in a steady run every frame reuses one.
fn spare_frame_buffers(slots: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    slots + 3 * cores + 2
}

/// How the pixels of one read-back picture are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Texels {
    /// `Rgba8UnormSrgb`: 4 bytes a pixel.
    Rgba8,
    /// `Rgba16Float`: 8 bytes a pixel, four IEEE 754 half floats (little-endian).
    Rgba16Float,
}

impl Texels {
    /// Bytes per pixel.
    pub(crate) const fn bytes_per_pixel(self) -> u32 {
        match self {
            Texels::Rgba8 => 4,
            Texels::Rgba16Float => 8,
        }
    }
}

/// Bytes per row of a picture as it lies in a staging buffer.
///
/// This is the one place the 256-byte row alignment is handled: `copy_texture_to_buffer`
/// requires `bytes_per_row` to be a multiple of `wgpu::COPY_BYTES_PER_ROW_ALIGNMENT` (256), so
/// each row (4 bytes a pixel for RGBA8, 8 for half-float RGBA) is padded up to it in the
/// staging buffer, and [`ReadbackRing::wait_oldest`] drops the padding when it copies the rows
/// out. (`write_texture` has no such rule.)
pub(crate) fn padded_bytes_per_row(width: u32, texels: Texels) -> u32 {
    let unpadded = width * texels.bytes_per_pixel();
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Size in bytes of one staging buffer for a `width` × `height` picture.
pub(crate) fn staging_bytes(width: u32, height: u32, texels: Texels) -> u64 {
    u64::from(padded_bytes_per_row(width, texels)) * u64::from(height)
}

/// The textures one frame is read back from.
pub(crate) struct ReadbackSources<'a> {
    /// The finished 8-bit sRGB picture (`Rgba8UnormSrgb`).
    pub srgb8: &'a wgpu::Texture,
    /// The linear colour target (`Rgba16Float`).
    pub linear_f16: &'a wgpu::Texture,
    /// The fog layer (`Rgba16Float`), when the renderer draws one.
    pub fog_f16: Option<&'a wgpu::Texture>,
    /// The weather layer (`Rgba16Float`), when the renderer draws one.
    pub weather_f16: Option<&'a wgpu::Texture>,
}

/// One staging buffer and the layout of the picture copied into it.
struct Staging {
    buffer: wgpu::Buffer,
    texels: Texels,
}

/// One slot of the ring: a staging buffer per picture read back.
struct Slot {
    srgb8: Staging,
    linear_f16: Option<Staging>,
    fog_f16: Option<Staging>,
    weather_f16: Option<Staging>,
}

impl Slot {
    /// The slot's buffers with their sources, in a fixed order: sRGB, linear, fog, weather.
    fn pairs<'s, 't>(
        &'s self,
        sources: &ReadbackSources<'t>,
    ) -> impl Iterator<Item = (&'s Staging, &'t wgpu::Texture)> {
        [
            Some((&self.srgb8, sources.srgb8)),
            self.linear_f16.as_ref().map(|s| (s, sources.linear_f16)),
            self.fog_f16.as_ref().zip(sources.fog_f16),
            self.weather_f16.as_ref().zip(sources.weather_f16),
        ]
        .into_iter()
        .flatten()
    }

    /// Every buffer of the slot.
    fn stagings(&self) -> impl Iterator<Item = &Staging> {
        [
            Some(&self.srgb8),
            self.linear_f16.as_ref(),
            self.fog_f16.as_ref(),
            self.weather_f16.as_ref(),
        ]
        .into_iter()
        .flatten()
    }
}

/// A submitted frame whose staging buffers are being mapped.
struct InFlight {
    slot: usize,
    frame_index: u32,
    submission: wgpu::SubmissionIndex,
    /// One per buffer of the slot, in [`Slot::stagings`] order.
    mapped: Vec<mpsc::Receiver<Result<(), wgpu::BufferAsyncError>>>,
}

/// The ring of staging buffers.
pub(crate) struct ReadbackRing {
    slots: Vec<Slot>,
    /// Oldest first.
    in_flight: VecDeque<InFlight>,
    /// The slot the next frame goes to (always free when the ring is not full: frames leave in
    /// the order they came).
    next_slot: usize,
    width: u32,
    height: u32,
    /// Seconds [`ReadbackRing::wait_oldest`] was blocked until a frame was done and mapped.
    pub(crate) wait_s: f64,
    /// Seconds [`ReadbackRing::wait_oldest`] spent copying frames out of the mapped buffers.
    pub(crate) copy_s: f64,
    /// Where the 8-bit pictures handed on are copied to, and come back to once consumed.
    pool: FramePool,
}

impl ReadbackRing {
    /// A ring of `slots` (at least 1) slots for `width` × `height` frames, each with the
    /// buffers `readback` asks for (the weather layer's only with `weather`: the scene has
    /// weather). With `readback.fog_layer_f16` every [`ReadbackRing::record_copy`] must be
    /// given the fog layer, and with a weather layer the weather layer.
    pub(crate) fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        slots: usize,
        readback: Readback,
        weather: bool,
    ) -> Self {
        let staging = |slot: usize, picture: &str, texels: Texels| {
            let label = format!("readback.slot{slot}.{picture}");
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&label),
                size: staging_bytes(width, height, texels),
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            Staging { buffer, texels }
        };
        let pool = FramePool::new(spare_frame_buffers(slots.max(1)));
        let slots = (0..slots.max(1))
            .map(|slot| Slot {
                srgb8: staging(slot, "srgb8", Texels::Rgba8),
                linear_f16: readback
                    .linear_f16
                    .then(|| staging(slot, "linear_f16", Texels::Rgba16Float)),
                fog_f16: readback
                    .fog_layer_f16
                    .then(|| staging(slot, "fog_f16", Texels::Rgba16Float)),
                weather_f16: (readback.weather_layer_f16 && weather)
                    .then(|| staging(slot, "weather_f16", Texels::Rgba16Float)),
            })
            .collect();
        ReadbackRing {
            slots,
            in_flight: VecDeque::new(),
            next_slot: 0,
            width,
            height,
            wait_s: 0.0,
            copy_s: 0.0,
            pool,
        }
    }

    /// What the ring's frame buffer pool has done so far.
    pub(crate) fn pool_stats(&self) -> FramePoolStats {
        self.pool.stats()
    }

    /// Frames submitted and not yet returned.
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Whether every slot holds a frame not yet returned.
    pub(crate) fn is_full(&self) -> bool {
        self.in_flight.len() >= self.slots.len()
    }

    /// Records the copies of the pictures into the next free slot and returns that slot. The
    /// ring must not be full.
    pub(crate) fn record_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &ReadbackSources<'_>,
    ) -> usize {
        let slot = self.next_slot;
        for (staging, texture) in self.slots[slot].pairs(sources) {
            encoder.copy_texture_to_buffer(
                texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &staging.buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(padded_bytes_per_row(self.width, staging.texels)),
                        rows_per_image: Some(self.height),
                    },
                },
                wgpu::Extent3d {
                    width: self.width,
                    height: self.height,
                    depth_or_array_layers: 1,
                },
            );
        }
        slot
    }

    /// Starts mapping every buffer of `slot` once `submission` (which holds its copies) is
    /// done.
    pub(crate) fn start_map(
        &mut self,
        slot: usize,
        frame_index: u32,
        submission: wgpu::SubmissionIndex,
    ) {
        let mapped = self.slots[slot]
            .stagings()
            .map(|staging| {
                let (sender, mapped) = mpsc::channel();
                staging
                    .buffer
                    .map_async(wgpu::MapMode::Read, .., move |result| {
                        // The receiver only goes away with the ring; nothing to do then.
                        let _ = sender.send(result);
                    });
                mapped
            })
            .collect();
        self.in_flight.push_back(InFlight {
            slot,
            frame_index,
            submission,
            mapped,
        });
        self.next_slot = (slot + 1) % self.slots.len();
    }

    /// Waits for the oldest frame in flight and returns it, rows unpadded; `None` when nothing
    /// is in flight.
    pub(crate) fn wait_oldest(&mut self, device: &wgpu::Device) -> Result<Option<Frame>, GpuError> {
        let Some(flight) = self.in_flight.pop_front() else {
            return Ok(None);
        };
        let started = Instant::now();
        let poll_error = |error: wgpu::PollError| GpuError::Poll {
            message: error.to_string(),
        };
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(flight.submission.clone()),
                timeout: None,
            })
            .map_err(poll_error)?;
        let readback_error = |message: String| GpuError::Readback {
            frame_index: flight.frame_index,
            message,
        };
        for mapped in &flight.mapped {
            // Waiting on the submission runs the map callbacks; a few more waits cover
            // backends that deliver them one poll late.
            let mut result = mapped.try_recv();
            for _ in 0..8 {
                if result.is_ok() {
                    break;
                }
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(poll_error)?;
                result = mapped.try_recv();
            }
            match result {
                Ok(Ok(())) => {}
                Ok(Err(error)) => return Err(readback_error(error.to_string())),
                Err(_) => return Err(readback_error("the buffer was never mapped".into())),
            }
        }

        let copying = Instant::now();
        self.wait_s += (copying - started).as_secs_f64();
        let slot = &self.slots[flight.slot];
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
        self.copy_s += copying.elapsed().as_secs_f64();
        let rgba8 = srgb8_read.map_err(readback_error)?;
        Ok(Some(Frame {
            frame_index: flight.frame_index,
            width: self.width,
            height: self.height,
            rgba8,
            linear_f16: linear_f16.map_err(readback_error)?,
            fog_f16: fog_f16.map_err(readback_error)?,
            weather_f16: weather_f16.map_err(readback_error)?,
        }))
    }

    /// The 8-bit picture of a mapped staging buffer, rows without their padding, copied once
    /// into a buffer of the ring's [`FramePool`] (the padding is dropped in that one copy; rows
    /// of a multiple of 256 bytes, as at 1920 or 3840 wide, have none and go as one block).
    /// Pictures of [`PARALLEL_COPY_BYTES`] and more are copied on rayon's threads: at 1920×1080
    /// one thread's copy out of mapped memory costs the frame loop's thread a millisecond or
    /// so; smaller ones are not worth waking the threads for.
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

/// Checks a `width` × `height` frame fits the device before anything is allocated.
pub fn check_frame_size(width: u32, height: u32, limits: &wgpu::Limits) -> Result<(), GpuError> {
    if width == 0 || height == 0 {
        return Err(GpuError::EmptySize { width, height });
    }
    let max = limits.max_texture_dimension_2d;
    if width > max || height > max {
        return Err(GpuError::SizeTooLarge { width, height, max });
    }
    check_staging_size(width, height, Texels::Rgba8, limits)
}

/// Checks one staging buffer of a `width` × `height` picture of `texels` fits the device.
pub(crate) fn check_staging_size(
    width: u32,
    height: u32,
    texels: Texels,
    limits: &wgpu::Limits,
) -> Result<(), GpuError> {
    let bytes = staging_bytes(width, height, texels);
    if bytes > limits.max_buffer_size {
        return Err(GpuError::FrameBufferTooLarge {
            width,
            height,
            bytes,
            max: limits.max_buffer_size,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pad_to_256_bytes() {
        assert_eq!(padded_bytes_per_row(64, Texels::Rgba8), 256);
        assert_eq!(padded_bytes_per_row(33, Texels::Rgba8), 256);
        assert_eq!(padded_bytes_per_row(65, Texels::Rgba8), 512);
        assert_eq!(padded_bytes_per_row(640, Texels::Rgba8), 2560);
        assert_eq!(staging_bytes(33, 17, Texels::Rgba8), 256 * 17);
    }

    #[test]
    fn half_float_rows_are_twice_as_wide_before_padding() {
        assert_eq!(padded_bytes_per_row(32, Texels::Rgba16Float), 256);
        assert_eq!(padded_bytes_per_row(33, Texels::Rgba16Float), 512);
        assert_eq!(padded_bytes_per_row(64, Texels::Rgba16Float), 512);
        assert_eq!(padded_bytes_per_row(640, Texels::Rgba16Float), 5120);
        assert_eq!(staging_bytes(33, 17, Texels::Rgba16Float), 512 * 17);
    }
}
