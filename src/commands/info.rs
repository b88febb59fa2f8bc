//! `fogbank info`: the GPU adapters wgpu can see, their backends and limits.

use super::InfoSettings;
use crate::Error;
use crate::gpu::list_adapters;

pub(super) fn run(settings: &InfoSettings) -> Result<(), Error> {
    let adapters = list_adapters();
    if settings.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&adapters).unwrap_or_default()
        );
        return Ok(());
    }
    if adapters.is_empty() {
        outln!(
            "no GPU adapter found. On Debian or Ubuntu, install Mesa's Vulkan drivers \
             (lavapipe runs on the CPU): sudo apt-get install mesa-vulkan-drivers"
        );
        return Ok(());
    }
    for (i, adapter) in adapters.iter().enumerate() {
        outln!(
            "adapter {i}: {} ({}, {}), driver {} {}, max texture {} px",
            adapter.name,
            adapter.backend,
            adapter.device_type,
            adapter.driver,
            adapter.driver_info,
            adapter.max_texture_dimension_2d
        );
    }
    Ok(())
}
