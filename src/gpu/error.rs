//! What can go wrong on the GPU side, as one error type the frame loop and the CLI can report.
//!
//! wgpu reports most problems (validation, out of memory) through callbacks and error scopes
//! rather than return values, and its default is to panic. The context collects them instead
//! (see [`crate::gpu::context`]) and they come back here, so a bad frame is an error message,
//! never a crash.

use crate::gpu::context::BackendChoice;

/// Any failure of the GPU side: finding a device, building the renderer, rendering a frame.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter at all for the chosen backend.
    #[error(
        "no GPU adapter found for backend `{backend}`. To render on the CPU, install Mesa's \
         Vulkan drivers: sudo apt-get install mesa-vulkan-drivers (lavapipe); or pick another \
         backend with --backend (auto, vulkan, gl, metal, dx12). `fogbank info` lists the \
         adapters it can see"
    )]
    NoAdapter {
        /// The backend that was asked for.
        backend: BackendChoice,
    },

    /// `--adapter` named nothing that exists.
    #[error(
        "no adapter name contains `{wanted}` (backend `{backend}`); available: {}",
        if available.is_empty() { "none".to_string() } else { available.join(", ") }
    )]
    AdapterNotFound {
        /// The substring that was asked for.
        wanted: String,
        /// The backend that was asked for.
        backend: BackendChoice,
        /// Names of the adapters that exist, to pick from.
        available: Vec<String>,
    },

    /// The adapter refused to give a device.
    #[error("could not open a device on adapter `{adapter}`: {message}")]
    RequestDevice {
        /// Name of the adapter.
        adapter: String,
        /// wgpu's explanation.
        message: String,
    },

    /// The picture is larger than the device can render in one texture.
    #[error(
        "frame size {width}x{height} is too large for this GPU: at most {max} pixels per side; \
         lower --size or output.width/height in the scene"
    )]
    SizeTooLarge {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
        /// Largest side the device supports, in pixels.
        max: u32,
    },

    /// The picture's readback buffer is larger than the device allows.
    #[error(
        "frame size {width}x{height} needs a {bytes}-byte readback buffer, more than this GPU's \
         limit of {max} bytes; lower the frame size"
    )]
    FrameBufferTooLarge {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
        /// Bytes the buffer would need.
        bytes: u64,
        /// Largest buffer the device supports, in bytes.
        max: u64,
    },

    /// A zero width or height.
    #[error("frame size {width}x{height} is empty: width and height must be at least 1")]
    EmptySize {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
    },

    /// The fluid grid cannot be a texture on this device.
    #[error("fluid grid of {grid} cells per side is not usable here: it must be 1 to {max}")]
    GridSize {
        /// Cells per side asked for.
        grid: u32,
        /// Largest texture side the device supports.
        max: u32,
    },

    /// A fluid map handed to the renderer has the wrong number of bytes.
    #[error("the {map} map has {actual} bytes, expected {expected} (grid x grid x 4, RGBA8)")]
    MapSize {
        /// Which map: "fluid" or "lift".
        map: &'static str,
        /// Bytes expected.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },

    /// `render_one` was called while frames from `submit` were still in flight.
    #[error("{count} frame(s) still in flight: call finish() before render_one()")]
    FramesInFlight {
        /// Frames not yet returned.
        count: usize,
    },

    /// wgpu rejected a call: a bug in fogbank, or a limit of this device.
    #[error("GPU validation error during {during}: {message}")]
    Validation {
        /// What the renderer was doing.
        during: &'static str,
        /// wgpu's description.
        message: String,
    },

    /// The device ran out of memory.
    #[error("GPU out of memory during {during}: {message}")]
    OutOfMemory {
        /// What the renderer was doing.
        during: &'static str,
        /// wgpu's description.
        message: String,
    },

    /// The device was lost (driver reset, GPU removed).
    #[error("GPU device lost: {message}")]
    DeviceLost {
        /// wgpu's description.
        message: String,
    },

    /// Waiting for the GPU failed.
    #[error("waiting for the GPU failed: {message}")]
    Poll {
        /// wgpu's description.
        message: String,
    },

    /// The thread that copies finished frames out of mapped memory could not start or stopped.
    #[error("reading frames back from the GPU failed: {message}")]
    ReadbackThread {
        /// What went wrong.
        message: String,
    },

    /// A finished frame could not be read back.
    #[error("reading frame {frame_index} back from the GPU failed: {message}")]
    Readback {
        /// The frame that was being read.
        frame_index: u32,
        /// wgpu's description.
        message: String,
    },
}
