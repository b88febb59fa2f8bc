//! Getting finished frames back from the GPU without stalling it: a fixed ring of staging
//! buffers, each mapped asynchronously after its frame is submitted.
//!
//! Frame N is copied into one slot and mapped, and handed to the ring's copier thread
//! (`copier.rs`), which waits until the GPU has finished it, copies it out of mapped memory
//! into a pooled buffer and unmaps the slot. The frame loop's thread only records and submits:
//! it gets frame N back when the ring is full and its slot is needed again (or at `finish`),
//! by which time the copier has usually long finished it while the GPU works on the frames
//! after it. Frames come back in submission order. Memory is bounded by the ring:
//! `slots × padded row × height` bytes per picture. The ring has [`FRAMES_IN_FLIGHT`] slots,
//! fewer for large frames with half-float pictures, and never fewer than three.
//!
//! The copy out drops the rows' 256-byte padding and lands in a buffer of the ring's
//! [`FramePool`], so no frame allocates; the buffer goes back to the pool when its last
//! consumer drops it.
//!
//! A slot always holds the 8-bit sRGB picture; [`Readback`] adds a staging buffer per slot for
//! the linear half-float colour target (`--format exr`), one for the fog layer and, for scenes
//! with weather, one for the weather layer (`--layers`), copied in the same submission and
//! mapped alongside, so the extra pictures ride the same ring and come back in the same
//! [`Frame`].
//!
//! The checks that a frame's staging buffers fit the device ([`check_frame_size`]) live here,
//! beside the sizes they check.

mod copier;

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Instant;

use copier::{Copier, CopyJob};

use crate::frame::Frame;
use crate::frame_pool::{FramePool, FramePoolStats};
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

/// The most frames in flight at once (the readback ring's size; fewer for frames whose
/// staging buffers are large, see `ring_slots`). While the readback thread copies
/// the oldest out of mapped memory, the GPU works through the ones queued behind it and the
/// frame loop's thread records the next: on an H200 at 1920×1080, 3 slots gave 346–353
/// frames/s, 4 gave 393–403 and 6 gave 410–412.
pub const FRAMES_IN_FLIGHT: usize = 6;

/// Staging memory a ring may take in all before it gets fewer slots (never fewer than
/// [`MIN_RING_SLOTS`]).
const RING_STAGING_BUDGET_BYTES: u64 = 256 << 20;

/// The fewest slots a ring has: one the GPU fills while the copier empties another and the
/// frame loop's thread records a third.
const MIN_RING_SLOTS: usize = 3;

/// Slots for a ring of `width` × `height` frames reading back what `readback` asks for (the
/// weather layer only with `weather`): [`FRAMES_IN_FLIGHT`] while they fit
/// [`RING_STAGING_BUDGET_BYTES`] (a 3840×2160 ring of 8-bit pictures takes 6 × 33 MB), fewer
/// for large frames with half-float pictures, and never fewer than [`MIN_RING_SLOTS`].
pub(crate) fn ring_slots((width, height): (u32, u32), readback: Readback, weather: bool) -> usize {
    ring_slots_of_at_most((width, height), readback, weather, FRAMES_IN_FLIGHT)
}

/// [`ring_slots`] with at most `max_slots`.
fn ring_slots_of_at_most(
    (width, height): (u32, u32),
    readback: Readback,
    weather: bool,
    max_slots: usize,
) -> usize {
    let half_float_pictures = [
        readback.linear_f16,
        readback.fog_layer_f16,
        readback.weather_layer_f16 && weather,
    ]
    .into_iter()
    .filter(|&read| read)
    .count() as u64;
    let slot_bytes = staging_bytes(width, height, Texels::Rgba8)
        + half_float_pictures * staging_bytes(width, height, Texels::Rgba16Float);
    let fitting =
        usize::try_from(RING_STAGING_BUDGET_BYTES / slot_bytes.max(1)).unwrap_or(usize::MAX);
    fitting.min(max_slots).max(MIN_RING_SLOTS.min(max_slots))
}

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
/// staging buffer, and the copier (`copier.rs`) drops the padding when it copies the rows out. (`write_texture` has no such rule.)
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
#[derive(Clone)]
struct Staging {
    buffer: wgpu::Buffer,
    texels: Texels,
}

/// One slot of the ring: a staging buffer per picture read back.
#[derive(Clone)]
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

/// The ring of staging buffers.
pub(crate) struct ReadbackRing {
    /// The loop's handles on the slots' buffers (the copier holds clones of the same buffers).
    slots: Vec<Slot>,
    /// Slots whose frames were submitted and have not come back, oldest first.
    busy: VecDeque<usize>,
    /// The slot the next frame goes to (always free when the ring is not full: frames leave in
    /// the order they came).
    next_slot: usize,
    /// The thread that waits for each frame, copies it out and unmaps its slot.
    copier: Copier,
    /// Seconds [`ReadbackRing::wait_oldest`] was blocked until the oldest frame was done on the
    /// GPU, mapped and copied out.
    pub(crate) wait_s: f64,
    /// Seconds the copier spent copying frames out of the mapped buffers (on its own thread).
    pub(crate) copy_s: f64,
    /// Where the 8-bit pictures handed on are copied to, and come back to once consumed.
    pool: FramePool,
}

impl ReadbackRing {
    /// A ring of `slots` (at least 1) slots for `width` × `height` frames, each with the
    /// buffers `readback` asks for (the weather layer's only with `weather`: the scene has
    /// weather). With `readback.fog_layer_f16` every [`ReadbackRing::record_copy`] must be
    /// given the fog layer, and with a weather layer the weather layer. Fails only when the
    /// copier's thread cannot be started.
    pub(crate) fn new(
        device: &wgpu::Device,
        (width, height): (u32, u32),
        slots: usize,
        readback: Readback,
        weather: bool,
    ) -> Result<Self, GpuError> {
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
        let slots: Vec<Slot> = (0..slots.max(1))
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
        let copier = Copier::spawn(device, slots.clone(), (width, height), pool.clone())?;
        Ok(ReadbackRing {
            slots,
            busy: VecDeque::new(),
            next_slot: 0,
            copier,
            wait_s: 0.0,
            copy_s: 0.0,
            pool,
        })
    }

    /// What the ring's frame buffer pool has done so far.
    pub(crate) fn pool_stats(&self) -> FramePoolStats {
        self.pool.stats()
    }

    /// Frames submitted and not yet returned.
    pub(crate) fn in_flight(&self) -> usize {
        self.busy.len()
    }

    /// Whether every slot holds a frame not yet returned.
    pub(crate) fn is_full(&self) -> bool {
        self.busy.len() >= self.slots.len()
    }

    /// Records the copies of the pictures into the next free slot and returns that slot. The
    /// ring must not be full.
    pub(crate) fn record_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &ReadbackSources<'_>,
    ) -> usize {
        let slot = self.next_slot;
        let (width, height) = self.copier.size();
        for (staging, texture) in self.slots[slot].pairs(sources) {
            encoder.copy_texture_to_buffer(
                texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &staging.buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(padded_bytes_per_row(width, staging.texels)),
                        rows_per_image: Some(height),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
            );
        }
        slot
    }

    /// Starts mapping every buffer of `slot` once `submission` (which holds its copies) is
    /// done, and hands the frame to the copier, which copies it out as soon as it is mapped.
    pub(crate) fn start_map(
        &mut self,
        slot: usize,
        frame_index: u32,
        submission: wgpu::SubmissionIndex,
    ) -> Result<(), GpuError> {
        let mapped = self.slots[slot]
            .stagings()
            .map(|staging| {
                let (sender, mapped) = mpsc::channel();
                staging
                    .buffer
                    .map_async(wgpu::MapMode::Read, .., move |result| {
                        // The receiver only goes away with the copier; nothing to do then.
                        let _ = sender.send(result);
                    });
                mapped
            })
            .collect();
        self.copier.send(CopyJob {
            slot,
            frame_index,
            submission,
            mapped,
        })?;
        self.busy.push_back(slot);
        self.next_slot = (slot + 1) % self.slots.len();
        Ok(())
    }

    /// Waits for the oldest frame in flight and returns it, rows unpadded; `None` when nothing
    /// is in flight.
    pub(crate) fn wait_oldest(&mut self) -> Result<Option<Frame>, GpuError> {
        let Some(slot) = self.busy.pop_front() else {
            return Ok(None);
        };
        let started = Instant::now();
        let copied = self.copier.receive()?;
        self.wait_s += started.elapsed().as_secs_f64();
        self.copy_s += copied.copy_s;
        debug_assert_eq!(copied.slot, slot, "frames come back in submission order");
        copied.frame.map(Some)
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
    fn large_frames_with_half_float_pictures_get_fewer_slots() {
        let plain = Readback::default();
        let every = Readback {
            linear_f16: true,
            fog_layer_f16: true,
            weather_layer_f16: true,
        };
        assert_eq!(ring_slots_of_at_most((1920, 1080), plain, false, 6), 6);
        assert_eq!(ring_slots_of_at_most((3840, 2160), plain, false, 6), 6);
        // 33 MB + 3 × 66 MB a slot: one would fit the budget; three are the least.
        assert_eq!(ring_slots_of_at_most((3840, 2160), every, true, 6), 3);
        // Without weather the weather layer is not read back: 33 + 2 × 66 MB.
        assert_eq!(ring_slots_of_at_most((1920, 1080), every, false, 6), 6);
        assert_eq!(ring_slots_of_at_most((160, 90), every, true, 2), 2);
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
