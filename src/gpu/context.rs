//! Finding a GPU and opening it headless: the adapter choice, the device, and the place where
//! wgpu's asynchronous errors are caught.
//!
//! fogbank renders offscreen only, so there is no surface. It prefers a real GPU, then Mesa's
//! lavapipe (Vulkan on the CPU, what CI uses), then GL. wgpu reports validation and
//! out-of-memory problems through callbacks whose default is to panic; here they go into an
//! `ErrorSink` and error scopes, and come back as [`GpuError`] values.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::gpu::GpuError;

/// Which graphics API to render through (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// The best adapter of any backend: a real GPU, else lavapipe, else GL.
    #[default]
    Auto,
    /// Vulkan (GPUs, or lavapipe on the CPU).
    Vulkan,
    /// OpenGL / GLES through EGL.
    Gl,
    /// Metal (macOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
}

impl BackendChoice {
    /// Every choice, in the order the CLI lists them.
    pub const ALL: [BackendChoice; 5] = [
        BackendChoice::Auto,
        BackendChoice::Vulkan,
        BackendChoice::Gl,
        BackendChoice::Metal,
        BackendChoice::Dx12,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Vulkan => "vulkan",
            BackendChoice::Gl => "gl",
            BackendChoice::Metal => "metal",
            BackendChoice::Dx12 => "dx12",
        }
    }

    /// The wgpu backends this choice enumerates.
    fn backends(self) -> wgpu::Backends {
        match self {
            BackendChoice::Auto => {
                wgpu::Backends::VULKAN
                    | wgpu::Backends::METAL
                    | wgpu::Backends::DX12
                    | wgpu::Backends::GL
            }
            BackendChoice::Vulkan => wgpu::Backends::VULKAN,
            BackendChoice::Gl => wgpu::Backends::GL,
            BackendChoice::Metal => wgpu::Backends::METAL,
            BackendChoice::Dx12 => wgpu::Backends::DX12,
        }
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase();
        BackendChoice::ALL
            .into_iter()
            .find(|choice| choice.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = BackendChoice::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown backend `{text}`; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}

/// How to pick the GPU.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GpuOptions {
    /// Which graphics API to use.
    pub backend: BackendChoice,
    /// Use the adapter whose name contains this, case-insensitively (`--adapter`).
    pub adapter_name: Option<String>,
    /// Use the adapter at this index of [`list_adapters_of`] for `backend` (`--gpu`, in
    /// `fogbank info` order). Overrides `adapter_name`.
    pub adapter_index: Option<usize>,
}

/// One adapter as `fogbank info` and the JSON summary describe it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AdapterSummary {
    /// Adapter name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// Graphics API: "vulkan", "gl", "metal", "dx12".
    pub backend: String,
    /// "discrete", "integrated", "virtual", "cpu" or "other".
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version and details.
    pub driver_info: String,
    /// Largest 2D texture side, pixels: the largest frame this adapter can render.
    pub max_texture_dimension_2d: u32,
    /// Largest buffer, bytes: bounds the readback of one frame.
    pub max_buffer_size: u64,
    /// Largest uniform buffer binding, bytes.
    pub max_uniform_buffer_binding_size: u64,
}

impl AdapterSummary {
    fn new(info: &wgpu::AdapterInfo, limits: &wgpu::Limits) -> Self {
        AdapterSummary {
            name: info.name.clone(),
            backend: info.backend.to_str().to_string(),
            device_type: device_type_name(info.device_type).to_string(),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            max_texture_dimension_2d: limits.max_texture_dimension_2d,
            max_buffer_size: limits.max_buffer_size,
            max_uniform_buffer_binding_size: limits.max_uniform_buffer_binding_size,
        }
    }
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}; driver {} {}; frames up to {} px per side)",
            self.name,
            self.backend,
            self.device_type,
            self.driver,
            self.driver_info,
            self.max_texture_dimension_2d
        )
    }
}

fn device_type_name(device_type: wgpu::DeviceType) -> &'static str {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

/// Every adapter of every backend this build supports, best first (the order
/// [`GpuContext::new`] picks from with the `auto` backend). Empty when there is none.
pub fn list_adapters() -> Vec<AdapterSummary> {
    list_adapters_of(BackendChoice::Auto)
}

/// The adapters of `backend`, best first: the list `--gpu INDEX` indexes (for `auto`, the one
/// `fogbank info` prints).
pub fn list_adapters_of(backend: BackendChoice) -> Vec<AdapterSummary> {
    sorted_adapters(backend)
        .iter()
        .map(|adapter| AdapterSummary::new(&adapter.get_info(), &adapter.limits()))
        .collect()
}

fn sorted_adapters(backend: BackendChoice) -> Vec<wgpu::Adapter> {
    let mut adapters = enumerate(backend, |_| true);
    adapters.sort_by_key(|adapter| preference(&adapter.get_info()));
    adapters
}

/// The adapters of `backend`. For `Auto`, GL is probed last and only when no Vulkan, Metal or
/// DX12 adapter passes `wanted`: even creating a GL instance probes EGL, which on a headless
/// machine is slow and prints warnings although a Vulkan adapter is there.
fn enumerate(
    backend: BackendChoice,
    wanted: impl Fn(&wgpu::Adapter) -> bool,
) -> Vec<wgpu::Adapter> {
    if backend != BackendChoice::Auto {
        let instance = new_instance(backend.backends());
        return pollster::block_on(instance.enumerate_adapters(backend.backends()));
    }
    let primary_backends = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    let primary = new_instance(primary_backends);
    let mut adapters = pollster::block_on(primary.enumerate_adapters(primary_backends));
    if !adapters.iter().any(wanted) {
        let gl = new_instance(wgpu::Backends::GL);
        adapters.extend(pollster::block_on(
            gl.enumerate_adapters(wgpu::Backends::GL),
        ));
    }
    adapters
}

fn new_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    descriptor.backends = backends;
    wgpu::Instance::new(descriptor)
}

/// Lower is better: real GPUs (not through GL), then lavapipe-like Vulkan on the CPU, then GL.
fn preference(info: &wgpu::AdapterInfo) -> u8 {
    use wgpu::{Backend, DeviceType};
    let is_gl = info.backend == Backend::Gl;
    match info.device_type {
        DeviceType::DiscreteGpu if !is_gl => 0,
        DeviceType::IntegratedGpu if !is_gl => 1,
        DeviceType::VirtualGpu if !is_gl => 2,
        DeviceType::Cpu if info.backend == Backend::Vulkan => 3,
        DeviceType::DiscreteGpu | DeviceType::IntegratedGpu if is_gl => 4,
        _ if is_gl => 5,
        _ => 6,
    }
}

/// An open GPU device with its queue, ready to build renderers on.
pub struct GpuContext {
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What the adapter is.
    pub adapter_info: wgpu::AdapterInfo,
    /// The limits the device was opened with (the adapter's own).
    pub limits: wgpu::Limits,
    errors: Arc<ErrorSink>,
}

impl fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter_info", &self.adapter_info)
            .finish_non_exhaustive()
    }
}

impl GpuContext {
    /// Picks an adapter as `options` say and opens it headless.
    ///
    /// Without `adapter_name`, the best by [`list_adapters`]' order; with it, the best whose
    /// name contains it (case-insensitive).
    pub fn new(options: &GpuOptions) -> Result<GpuContext, GpuError> {
        if let Some(index) = options.adapter_index {
            let adapters = sorted_adapters(options.backend);
            return match adapters.get(index) {
                Some(adapter) => GpuContext::open(adapter),
                None if adapters.is_empty() => Err(GpuError::NoAdapter {
                    backend: options.backend,
                }),
                None => Err(GpuError::AdapterNotFound {
                    wanted: format!("index {index}"),
                    backend: options.backend,
                    available: adapters.iter().map(|a| a.get_info().name).collect(),
                }),
            };
        }
        let matches = |adapter: &wgpu::Adapter| match &options.adapter_name {
            None => true,
            Some(wanted) => adapter
                .get_info()
                .name
                .to_lowercase()
                .contains(&wanted.to_lowercase()),
        };
        let mut adapters = enumerate(options.backend, matches);
        adapters.sort_by_key(|adapter| preference(&adapter.get_info()));
        if adapters.is_empty() {
            return Err(GpuError::NoAdapter {
                backend: options.backend,
            });
        }
        let Some(adapter) = adapters.iter().find(|adapter| matches(adapter)) else {
            return Err(GpuError::AdapterNotFound {
                wanted: options.adapter_name.clone().unwrap_or_default(),
                backend: options.backend,
                available: adapters.iter().map(|a| a.get_info().name).collect(),
            });
        };
        GpuContext::open(adapter)
    }

    /// Opens `adapter` headless with its own limits.
    fn open(adapter: &wgpu::Adapter) -> Result<GpuContext, GpuError> {
        let adapter_info = adapter.get_info();
        // The adapter's own limits: the largest frames it can do, not WebGPU's defaults.
        let limits = adapter.limits();
        // Timestamp queries time each pass on the GPU (render --stats), and filtered reads of
        // 32-bit floats serve the fog's noise lattice (`passes/fog_lattice.rs`), where the
        // adapter has them; asked for only then, so every adapter still opens.
        let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::FLOAT32_FILTERABLE;
        let required_features = adapter.features() & wanted;
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("fogbank"),
            required_features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (device, queue) =
            pollster::block_on(adapter.request_device(&descriptor)).map_err(|error| {
                GpuError::RequestDevice {
                    adapter: adapter_info.name.clone(),
                    message: error.to_string(),
                }
            })?;

        let errors = Arc::new(ErrorSink::default());
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| sink.record(&error)));
        let sink = Arc::clone(&errors);
        device.set_device_lost_callback(move |reason, message| {
            sink.record_lost(format!("{reason:?}: {message}"));
        });

        Ok(GpuContext {
            device,
            queue,
            adapter_info,
            limits,
            errors,
        })
    }

    /// This device's adapter, as `fogbank info` prints it.
    pub fn summary(&self) -> AdapterSummary {
        AdapterSummary::new(&self.adapter_info, &self.limits)
    }

    /// One line naming the adapter, for logs and the JSON summary.
    pub fn adapter_description(&self) -> String {
        self.summary().to_string()
    }

    /// Where this device's uncaptured errors go.
    pub(crate) fn errors(&self) -> Arc<ErrorSink> {
        Arc::clone(&self.errors)
    }

    /// This context as if its adapter were of `device_type`: the same device and queue,
    /// for tests of what the kind of adapter decides (the compositor `Auto` picks).
    #[cfg(test)]
    pub(crate) fn as_if(&self, device_type: wgpu::DeviceType) -> GpuContext {
        let mut adapter_info = self.adapter_info.clone();
        adapter_info.device_type = device_type;
        GpuContext {
            device: self.device.clone(),
            queue: self.queue.clone(),
            adapter_info,
            limits: self.limits.clone(),
            errors: self.errors(),
        }
    }
}

/// A wgpu error kept for later, without its source chain (which is not `Clone`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum CapturedError {
    Validation(String),
    OutOfMemory(String),
    Lost(String),
}

/// Collects what wgpu reports outside error scopes: the first error wins (later ones are
/// usually consequences), and it is handed out once.
#[derive(Debug, Default)]
pub(crate) struct ErrorSink {
    first: Mutex<Option<CapturedError>>,
}

impl ErrorSink {
    fn slot(&self) -> MutexGuard<'_, Option<CapturedError>> {
        // A panic elsewhere while holding the lock leaves the data usable: take it anyway.
        self.first
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn record(&self, error: &wgpu::Error) {
        let captured = match error {
            wgpu::Error::OutOfMemory { .. } => CapturedError::OutOfMemory(error.to_string()),
            wgpu::Error::Validation { .. } | wgpu::Error::Internal { .. } => {
                CapturedError::Validation(error.to_string())
            }
        };
        self.slot().get_or_insert(captured);
    }

    fn record_lost(&self, message: String) {
        self.slot().get_or_insert(CapturedError::Lost(message));
    }

    /// The error recorded since the last call, if any, as a [`GpuError`].
    pub(crate) fn take(&self, during: &'static str) -> Result<(), GpuError> {
        match self.slot().take() {
            None => Ok(()),
            Some(CapturedError::Validation(message)) => {
                Err(GpuError::Validation { during, message })
            }
            Some(CapturedError::OutOfMemory(message)) => {
                Err(GpuError::OutOfMemory { during, message })
            }
            Some(CapturedError::Lost(message)) => Err(GpuError::DeviceLost { message }),
        }
    }
}

/// Runs `work` inside validation and out-of-memory error scopes and turns what they catch (or
/// what reached the uncaptured handler meanwhile) into a [`GpuError`] naming `during`.
pub(crate) fn scoped<T>(
    device: &wgpu::Device,
    errors: &ErrorSink,
    during: &'static str,
    work: impl FnOnce() -> T,
) -> Result<T, GpuError> {
    let memory_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation_scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = work();
    // Scopes pop in reverse order of pushing.
    let validation = pollster::block_on(validation_scope.pop());
    let memory = pollster::block_on(memory_scope.pop());
    if let Some(error) = validation {
        return Err(GpuError::Validation {
            during,
            message: error.to_string(),
        });
    }
    if let Some(error) = memory {
        return Err(GpuError::OutOfMemory {
            during,
            message: error.to_string(),
        });
    }
    errors.take(during)?;
    Ok(value)
}
