//! The scene hash, from a byte encoding fogbank owns.
//!
//! A render's manifest names its scene by a hash, and a simulation cache refuses a snapshot made
//! for another scene by comparing hashes. Hashing some library's text output (JSON, RON) would
//! tie every hash to that library's formatting of numbers and whitespace, so an upgrade could
//! silently change them all. Instead the scene is written through serde into the small,
//! documented, tagged byte stream below, and the hash is 64-bit FNV-1a of those bytes
//! ([`crate::sim::fnv1a64`]). Only fogbank can change this encoding, and a change to it is a
//! change to [`FORMAT_VERSION`].
//!
//! The same encoding with some fields left out gives the narrower hashes: [`Scene::step_hash`]
//! (in `step.rs`) covers exactly what the world's step reads, and a snapshot carries it.
//!
//! # The encoding, version 1
//!
//! The stream starts with [`MAGIC`] (`fogbank-scene\0`) and the version as a little-endian
//! `u32`, then one value. Every value starts with a one-byte tag; numbers are little-endian;
//! a *name* or *text* is its UTF-8 length as a `u64` and then its bytes.
//!
//! | tag | value | then |
//! |---|---|---|
//! | `0x00` | unit, unit struct | — |
//! | `0x01` / `0x02` | `false` / `true` | — |
//! | `0x03` | unsigned integer (`u8`…`u64`) | `u64` |
//! | `0x04` | signed integer (`i8`…`i64`) | `i64` |
//! | `0x05` / `0x06` | `u128` / `i128` | 16 bytes |
//! | `0x07` | `f32` | its bit pattern as `u32` (so `-0.0` and `0.0` differ, NaNs by payload) |
//! | `0x08` | `f64` | its bit pattern as `u64` |
//! | `0x09` | `char` | its scalar value as `u32` |
//! | `0x0A` | string | text |
//! | `0x0B` | bytes | length `u64`, bytes |
//! | `0x0C` | `None` | — |
//! | `0x0D` | `Some` | the value |
//! | `0x0E` | list, tuple, fixed array | count `u64`, the values in order |
//! | `0x0F` | map | count `u64`, (key, value) pairs sorted by the key's bytes |
//! | `0x10` | struct | count `u64`, (name, value) pairs sorted by name |
//! | `0x11` | enum variant | the variant's name, then its payload: `0x00` for a unit variant, the value for a newtype variant, a list for a tuple variant, a struct for a struct variant |
//!
//! What this means for the hash:
//! - It follows the serialized scene, which is the scene file's own shape: field names and
//!   variant names are in it, Rust type names are not (a newtype struct is its inner value).
//! - Struct fields are sorted by name, so neither the order of fields in a scene file nor the
//!   order of fields in the Rust structs changes it; integer widths do not either.
//! - Fields the scene leaves out when serializing (`skip_serializing_if`: no fires, no blocks,
//!   no terrain, height-fog fields at their defaults) are not in it, so a scene that does not
//!   use a feature keeps its hash when that feature is added to fogbank.
//! - Any change of a value, down to one bit of a float, changes it (up to FNV's collisions).

use serde::Serialize;
use serde::ser::{self, Error as _};

use super::Scene;

mod step;
pub use step::LOOK_FIELDS;

/// First bytes of every encoding.
pub const MAGIC: &[u8] = b"fogbank-scene\0";

/// Version of the encoding; bump it whenever what the bytes are changes.
pub const FORMAT_VERSION: u32 = 1;

/// The tags of the encoding (see the module documentation).
mod tag {
    pub const UNIT: u8 = 0x00;
    pub const FALSE: u8 = 0x01;
    pub const TRUE: u8 = 0x02;
    pub const UINT: u8 = 0x03;
    pub const INT: u8 = 0x04;
    pub const UINT128: u8 = 0x05;
    pub const INT128: u8 = 0x06;
    pub const F32: u8 = 0x07;
    pub const F64: u8 = 0x08;
    pub const CHAR: u8 = 0x09;
    pub const STR: u8 = 0x0A;
    pub const BYTES: u8 = 0x0B;
    pub const NONE: u8 = 0x0C;
    pub const SOME: u8 = 0x0D;
    pub const SEQ: u8 = 0x0E;
    pub const MAP: u8 = 0x0F;
    pub const STRUCT: u8 = 0x10;
    pub const VARIANT: u8 = 0x11;
}

/// A value whose `Serialize` implementation reported an error (scene types never do).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot encode the value: {0}")]
pub struct EncodeError(String);

impl ser::Error for EncodeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        EncodeError(msg.to_string())
    }
}

/// The canonical bytes of `value`: magic, version, then the value. `skip` names fields to
/// leave out, as if they were not there, by their dotted path from the outermost struct
/// (see [`field_path`]): `output` leaves out a whole section, `fog.color` one field of it.
pub fn encode<T: Serialize + ?Sized>(value: &T, skip: &[&str]) -> Result<Vec<u8>, EncodeError> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    value.serialize(Encoder {
        out: &mut out,
        skip,
        path: String::new(),
    })?;
    Ok(out)
}

/// FNV-1a 64 of the canonical bytes of `value`, leaving out the fields at the paths `skip`.
pub fn hash<T: Serialize + ?Sized>(value: &T, skip: &[&str]) -> Result<u64, EncodeError> {
    encode(value, skip).map(|bytes| crate::sim::fnv1a64(&bytes))
}

/// The dotted path of `name` under `parent`, as [`encode`]'s `skip` names it: struct fields
/// by name, an enum's payload by the variant's name (`camera.Follow.fov_y_deg`), and every
/// element of a list, map or option at the path of the list itself (`fires.color` is the
/// colour of each fire).
pub fn field_path(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}.{name}")
    }
}

/// Sections of a scene the world's 60 Hz step never reads: they change the picture, never the
/// simulated state, and are left out of [`Scene::simulation_hash`]. (The fires, camera, fog,
/// hall, ball, fluid, weather and walkers all feed the step: the fires warm the fog, the follow
/// camera keeps state, the hall's solids block the air.)
pub const LOOK_ONLY_SECTIONS: &[&str] = &[
    "output",
    "lights",
    "distance_fog",
    "lamps",
    "background",
    "clouds",
    "water",
];

impl Scene {
    /// The scene's hash: the same scene (file and `--set` overrides resolved) always gives the
    /// same hash, on every platform and release, whatever order its file writes fields in. See
    /// [`crate::scene::canonical`] for what goes into it.
    pub fn content_hash(&self) -> u64 {
        hash(self, &[]).expect("scene types serialize without errors")
    }

    /// The hash of what the simulation depends on: [`Scene::content_hash`] without the
    /// sections the world step never reads ([`LOOK_ONLY_SECTIONS`]). Size, frame rate and clip
    /// length only choose which states are shown, and the lights, distance fog, lamps,
    /// background, clouds and water only how they look, so a simulation cache made for one size, or before a
    /// lamp was added, serves the other.
    pub fn simulation_hash(&self) -> u64 {
        hash(self, LOOK_ONLY_SECTIONS).expect("scene types serialize without errors")
    }
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    put_len(out, name.len());
    out.extend_from_slice(name.as_bytes());
}

/// Writes one value to `out`.
struct Encoder<'a> {
    out: &'a mut Vec<u8>,
    /// Paths of fields to leave out (see [`field_path`]).
    skip: &'a [&'a str],
    /// The path of this value.
    path: String,
}

impl<'a> Encoder<'a> {
    fn nested(out: &'a mut Vec<u8>, skip: &'a [&'a str], path: String) -> Self {
        Encoder { out, skip, path }
    }

    fn tagged(self, tag: u8, bytes: &[u8]) -> Result<(), EncodeError> {
        self.out.push(tag);
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    fn variant_head(&mut self, variant: &str) {
        self.out.push(tag::VARIANT);
        put_name(self.out, variant);
    }
}

/// The bytes of one nested value at `path`.
fn encoded<T: Serialize + ?Sized>(
    value: &T,
    skip: &[&str],
    path: String,
) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    value.serialize(Encoder::nested(&mut out, skip, path))?;
    Ok(out)
}

impl<'a> ser::Serializer for Encoder<'a> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = SeqEncoder<'a>;
    type SerializeTuple = SeqEncoder<'a>;
    type SerializeTupleStruct = SeqEncoder<'a>;
    type SerializeTupleVariant = SeqEncoder<'a>;
    type SerializeMap = MapEncoder<'a>;
    type SerializeStruct = StructEncoder<'a>;
    type SerializeStructVariant = StructEncoder<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.tagged(if v { tag::TRUE } else { tag::FALSE }, &[])
    }
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        self.tagged(tag::INT, &v.to_le_bytes())
    }
    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        self.tagged(tag::INT128, &v.to_le_bytes())
    }
    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        self.tagged(tag::UINT, &v.to_le_bytes())
    }
    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        self.tagged(tag::UINT128, &v.to_le_bytes())
    }
    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        self.tagged(tag::F32, &v.to_bits().to_le_bytes())
    }
    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        self.tagged(tag::F64, &v.to_bits().to_le_bytes())
    }
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        self.tagged(tag::CHAR, &u32::from(v).to_le_bytes())
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        self.out.push(tag::STR);
        put_name(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        self.out.push(tag::BYTES);
        put_len(self.out, v.len());
        self.out.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.tagged(tag::NONE, &[])
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        self.out.push(tag::SOME);
        value.serialize(Encoder::nested(self.out, self.skip, self.path))
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.tagged(tag::UNIT, &[])
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        self.variant_head(variant);
        self.tagged(tag::UNIT, &[])
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.variant_head(variant);
        let path = field_path(&self.path, variant);
        if self.skip.contains(&path.as_str()) {
            // The variant stays in the hash, its payload does not.
            return self.tagged(tag::UNIT, &[]);
        }
        value.serialize(Encoder::nested(self.out, self.skip, path))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<SeqEncoder<'a>, EncodeError> {
        Ok(SeqEncoder::new(self.out, self.skip, self.path))
    }
    fn serialize_tuple(self, _len: usize) -> Result<SeqEncoder<'a>, EncodeError> {
        Ok(SeqEncoder::new(self.out, self.skip, self.path))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<SeqEncoder<'a>, EncodeError> {
        Ok(SeqEncoder::new(self.out, self.skip, self.path))
    }
    fn serialize_tuple_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<SeqEncoder<'a>, EncodeError> {
        self.variant_head(variant);
        let path = field_path(&self.path, variant);
        Ok(SeqEncoder::new(self.out, self.skip, path))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapEncoder<'a>, EncodeError> {
        Ok(MapEncoder {
            out: self.out,
            skip: self.skip,
            path: self.path,
            entries: Vec::new(),
            key: None,
        })
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<StructEncoder<'a>, EncodeError> {
        Ok(StructEncoder {
            out: self.out,
            skip: self.skip,
            path: self.path,
            fields: Vec::new(),
        })
    }
    fn serialize_struct_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<StructEncoder<'a>, EncodeError> {
        self.variant_head(variant);
        Ok(StructEncoder {
            out: self.out,
            skip: self.skip,
            path: field_path(&self.path, variant),
            fields: Vec::new(),
        })
    }
}

/// A list, tuple or fixed array: counted, then written in order. Its elements stand at its
/// own path.
struct SeqEncoder<'a> {
    out: &'a mut Vec<u8>,
    skip: &'a [&'a str],
    path: String,
    count: usize,
    body: Vec<u8>,
}

impl<'a> SeqEncoder<'a> {
    fn new(out: &'a mut Vec<u8>, skip: &'a [&'a str], path: String) -> Self {
        SeqEncoder {
            out,
            skip,
            path,
            count: 0,
            body: Vec::new(),
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.count += 1;
        value.serialize(Encoder::nested(
            &mut self.body,
            self.skip,
            self.path.clone(),
        ))
    }

    fn finish(self) -> Result<(), EncodeError> {
        self.out.push(tag::SEQ);
        put_len(self.out, self.count);
        self.out.extend_from_slice(&self.body);
        Ok(())
    }
}

/// Sequences, tuples, tuple structs and tuple variants are all "elements in order" to the
/// encoder: one impl each, all the same.
macro_rules! elements_in_order {
    ($($trait:ident :: $method:ident),* $(,)?) => {$(
        impl ser::$trait for SeqEncoder<'_> {
            type Ok = ();
            type Error = EncodeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
                self.element(value)
            }
            fn end(self) -> Result<(), EncodeError> {
                self.finish()
            }
        }
    )*};
}

elements_in_order!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

/// A map: its entries sorted by the bytes of their keys, so iteration order does not matter.
/// Its values stand at its own path.
struct MapEncoder<'a> {
    out: &'a mut Vec<u8>,
    skip: &'a [&'a str],
    path: String,
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    key: Option<Vec<u8>>,
}

impl ser::SerializeMap for MapEncoder<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.key = Some(encoded(key, &[], String::new())?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| EncodeError::custom("map value without a key"))?;
        self.entries
            .push((key, encoded(value, self.skip, self.path.clone())?));
        Ok(())
    }
    fn end(mut self) -> Result<(), EncodeError> {
        self.entries.sort();
        self.out.push(tag::MAP);
        put_len(self.out, self.entries.len());
        for (key, value) in &self.entries {
            self.out.extend_from_slice(key);
            self.out.extend_from_slice(value);
        }
        Ok(())
    }
}

/// A struct (or a struct variant's fields): named fields sorted by name.
struct StructEncoder<'a> {
    out: &'a mut Vec<u8>,
    skip: &'a [&'a str],
    path: String,
    fields: Vec<(&'static str, Vec<u8>)>,
}

impl StructEncoder<'_> {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        let path = field_path(&self.path, name);
        if !self.skip.contains(&path.as_str()) {
            self.fields.push((name, encoded(value, self.skip, path)?));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<(), EncodeError> {
        self.fields.sort_by(|a, b| a.0.cmp(b.0));
        self.out.push(tag::STRUCT);
        put_len(self.out, self.fields.len());
        for (name, value) in &self.fields {
            put_name(self.out, name);
            self.out.extend_from_slice(value);
        }
        Ok(())
    }
}

impl ser::SerializeStruct for StructEncoder<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.field(name, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for StructEncoder<'_> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.field(name, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

#[cfg(test)]
mod tests;
