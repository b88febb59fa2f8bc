//! `fogbank scene`: the scene as fogbank resolved it (file, defaults and `--set` overrides)
//! printed as RON, or the JSON Schema of the scene format for editors.

use super::{SceneSettings, load_scene};
use crate::Error;

pub(super) fn run(settings: &SceneSettings) -> Result<(), Error> {
    let text = if settings.schema {
        let schema = crate::scene::json_schema();
        serde_json::to_string_pretty(&schema).unwrap_or_default()
    } else {
        let loaded = load_scene(&settings.scene)?;
        crate::scene::to_ron(&loaded.scene).map_err(|e| Error::Serialize {
            what: "scene",
            source: Box::new(e),
        })?
    };
    super::write_stdout(text.as_bytes(), true)
}
