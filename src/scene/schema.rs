//! A JSON Schema of the scene format, for editors: completion of field names, the doc of each
//! field on hover (with its unit and default), and a squiggle under a misspelt one.
//!
//! The section types (and the simulation's [`FluidParams`], the `fluid` section) derive
//! `schemars::JsonSchema`, so their doc comments become descriptions and their `Default`s
//! become `default`s.

use serde_json::Value;

use super::Scene;
#[cfg(doc)]
use crate::sim::FluidParams;

/// A JSON Schema (draft 2020-12) of a scene file: one object whose properties are the scene's
/// sections, every field optional with its default. The schema describes serde's data model,
/// which RON writes with its own syntax (tuples `( … )` for arrays, `Follow( … )` for a variant).
pub fn json_schema() -> Value {
    let schema = schemars::schema_for!(Scene);
    let mut value = serde_json::to_value(&schema).unwrap_or(Value::Null);
    tidy_floats(&mut value);
    value
}

/// Writes `f32` values (defaults such as 0.6, which reach JSON widened to
/// 0.6000000238418579) with the digits a person would write: any number that is exactly an
/// `f32` becomes the `f64` of that `f32`'s shortest decimal. Numbers that are not `f32`s are
/// left as they are.
fn tidy_floats(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(x) = number.as_f64()
                && f64::from(x as f32) == x
                && let Ok(short) = (x as f32).to_string().parse::<f64>()
                && let Some(tidy) = serde_json::Number::from_f64(short)
            {
                *number = tidy;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_floats),
        Value::Object(object) => object.values_mut().for_each(tidy_floats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::FluidParams;

    #[test]
    fn the_schema_has_every_section_as_a_property() {
        let schema = json_schema();
        // It is JSON that survives a round trip through text.
        let text = serde_json::to_string_pretty(&schema).unwrap();
        let reread: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reread.to_string(), schema.to_string());
        assert_eq!(schema["type"], "object");
        assert!(
            schema["$schema"]
                .as_str()
                .is_some_and(|s| s.contains("json-schema.org")),
            "{schema}"
        );
        assert_eq!(schema["additionalProperties"], false);
        let properties = schema["properties"].as_object().expect("properties");
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "background",
                "ball",
                "camera",
                "clouds",
                "distance_fog",
                "fires",
                "fluid",
                "fog",
                "hall",
                "lamps",
                "lights",
                "name",
                "output",
                "walkers",
                "water",
                "weather",
            ]
        );
        // Every section of the serialized default scene is described.
        let defaults = serde_json::to_value(Scene::default()).unwrap();
        for key in defaults.as_object().unwrap().keys() {
            assert!(properties.contains_key(key), "{key} is not in the schema");
        }
    }

    #[test]
    fn doc_comments_and_defaults_reach_the_schema() {
        let schema = json_schema();
        let text = schema.to_string();
        // A field of a section type: its doc (with the unit) and its default.
        let sheets = find_property(&schema, "sheets").expect("fog.sheets");
        assert_eq!(sheets["type"], "integer");
        assert!(
            sheets["description"]
                .as_str()
                .is_some_and(|d| d.contains("horizontal sheets")),
            "{sheets}"
        );
        assert!(
            text.contains("world units"),
            "units are in the descriptions"
        );
        assert!(text.contains("\"default\""), "defaults are in the schema");
        // f32 defaults read as written, not widened.
        let top = find_property(&schema, "top").expect("fog.top");
        assert_eq!(top["default"].to_string(), "1.7", "{top}");
        // The camera's variants are named.
        for variant in ["Follow", "Fixed", "Keyframed"] {
            assert!(text.contains(&format!("\"{variant}\"")), "{variant}");
        }
    }

    #[test]
    fn the_moon_s_shadows_are_an_optional_boolean() {
        let schema = json_schema();
        let lights = resolve(&schema, &schema["properties"]["lights"]);
        let moon = resolve(&schema, &lights["properties"]["directional"]);
        let shadows = &moon["properties"]["shadows"];
        assert_eq!(shadows["type"], "boolean", "{shadows}");
        // Left out, it is off: not required, and left out of the defaults written.
        let required = moon["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&Value::from("shadows")), "{moon}");
        assert!(
            shadows["description"]
                .as_str()
                .is_some_and(|d| d.contains("shafts")),
            "{shadows}"
        );
    }

    #[test]
    fn the_fluid_section_lists_every_parameter_with_its_doc_and_default() {
        let schema = json_schema();
        let fluid = &schema["properties"]["fluid"];
        let fluid = resolve(&schema, fluid);
        assert_eq!(fluid["additionalProperties"], false);
        let properties = fluid["properties"].as_object().expect("fluid properties");
        let mut defaults = serde_json::to_value(FluidParams::default()).unwrap();
        tidy_floats(&mut defaults);
        let defaults = defaults.as_object().unwrap();
        // The pressure solver's fields and the optional stages are left out of a serialized
        // scene at their defaults (so older scenes keep their hash); every other field
        // serializes.
        let skipped_at_default = [
            "solver",
            "sor_omega",
            "multigrid_cycles",
            "fog",
            "viscosity",
            "fog_diffusion",
            "projections",
            "streams",
        ];
        assert_eq!(properties.len(), defaults.len() + skipped_at_default.len());
        for (name, property) in properties {
            if let Some(default) = defaults.get(name) {
                assert_eq!(&property["default"], default, "{name}");
            } else {
                assert!(skipped_at_default.contains(&name.as_str()), "{name}");
            }
            let description = property["description"].as_str().unwrap_or("");
            assert!(description.len() > 10, "{name} has no description");
        }
        assert_eq!(properties["grid"]["type"], "integer");
        assert_eq!(properties["vorticity"]["type"], "number");
    }

    /// The schema a `$ref` points at, or the schema itself.
    fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
        match schema["$ref"].as_str() {
            Some(reference) => {
                let name = reference.trim_start_matches("#/$defs/");
                &root["$defs"][name]
            }
            None => schema,
        }
    }

    /// The first property called `name` anywhere in the schema.
    fn find_property<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
        match value {
            Value::Object(object) => {
                if let Some(Value::Object(properties)) = object.get("properties")
                    && let Some(found) = properties.get(name)
                {
                    return Some(found);
                }
                object.values().find_map(|v| find_property(v, name))
            }
            Value::Array(items) => items.iter().find_map(|v| find_property(v, name)),
            _ => None,
        }
    }
}
