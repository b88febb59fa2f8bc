//! Where a sample's uniforms go on their way to the GPU ([`BufferWrites`]): straight into the
//! queue, or staged ([`StagedWrites`]) and copied into place inside the frame's one command
//! encoder.
//!
//! A frame of several samples without a shutter is one submission. Each later sample rewrites
//! the same uniform buffers (its sub-pixel offset, its sheets' heights, its knobs), but a
//! `Queue::write_buffer` lands before the whole submission. So a later sample's writes are
//! gathered here, uploaded once into a buffer of its own, and copied into place by copy
//! commands recorded just before the sample's passes. The passes read the same values at the
//! same points as with a submission per sample, so the picture keeps its bytes. What is
//! saved is the submissions: on a GPU each costs the frame loop's thread about 0.3 ms, and
//! on lavapipe a hand-over to its threads.

use std::cell::RefCell;

/// Something a pass's `prepare` writes its uniforms through: the queue, or [`StagedWrites`].
pub(crate) trait BufferWrites {
    /// Writes `data` into `buffer` at `offset` (bytes); both and `data`'s length are
    /// multiples of 4, as `wgpu::Queue::write_buffer` asks.
    fn write_buffer(&self, buffer: &wgpu::Buffer, offset: u64, data: &[u8]);
}

impl BufferWrites for wgpu::Queue {
    fn write_buffer(&self, buffer: &wgpu::Buffer, offset: u64, data: &[u8]) {
        wgpu::Queue::write_buffer(self, buffer, offset, data);
    }
}

/// One staged write: where it goes and where its bytes lie in the upload.
struct StagedCopy {
    target: wgpu::Buffer,
    target_offset: u64,
    upload_offset: u64,
    size: u64,
}

/// A sample's writes, gathered in order, to be copied into place by
/// [`StagedWrites::record_copies`].
#[derive(Default)]
pub(crate) struct StagedWrites {
    bytes: RefCell<Vec<u8>>,
    copies: RefCell<Vec<StagedCopy>>,
}

impl BufferWrites for StagedWrites {
    fn write_buffer(&self, buffer: &wgpu::Buffer, offset: u64, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let mut bytes = self.bytes.borrow_mut();
        let upload_offset = bytes.len() as u64;
        bytes.extend_from_slice(data);
        // Copies move whole words: keep the next write's bytes aligned.
        let aligned = bytes
            .len()
            .next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT as usize);
        bytes.resize(aligned, 0);
        self.copies.borrow_mut().push(StagedCopy {
            target: buffer.clone(),
            target_offset: offset,
            upload_offset,
            size: data.len() as u64,
        });
    }
}

impl StagedWrites {
    /// Uploads the gathered bytes into `upload` (made, or remade larger, as needed) and
    /// records into `encoder` the copies that put each write in place, in the order written.
    pub(crate) fn record_copies(
        self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        encoder: &mut wgpu::CommandEncoder,
        upload: &mut Option<wgpu::Buffer>,
    ) {
        let bytes = self.bytes.into_inner();
        if bytes.is_empty() {
            return;
        }
        let needed = bytes.len() as u64;
        let buffer = match upload {
            Some(buffer) if buffer.size() >= needed => buffer,
            _ => upload.insert(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("samples.staged_uniforms"),
                size: needed.next_power_of_two().max(256),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })),
        };
        queue.write_buffer(buffer, 0, &bytes);
        for copy in self.copies.into_inner() {
            encoder.copy_buffer_to_buffer(
                buffer,
                copy.upload_offset,
                &copy.target,
                copy.target_offset,
                copy.size,
            );
        }
    }
}
