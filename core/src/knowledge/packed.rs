//! Reads a table as `build.rs` packs it (its `Packed`): its texts one after another, and its
//! shape. In the shape a text is `s`, where it starts in the texts and its length (four bytes
//! each, little-endian); a list is `l`, its length and its items; a table is `t`, its length
//! and each key (start and length) with its value. Texts are borrowed from the binary's, which
//! are checked UTF-8 once, when it is compiled; lists and tables are read as serde reads JSON's,
//! so the types that read the data, and their checks, are the same.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A packed table: its shape, its texts, and where the items of its lists two tables deep
/// (`[network] fetchers = [...]`) are in them (start and length), each once, sorted by text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packed {
    pub(crate) shape: &'static [u8],
    pub(crate) texts: &'static str,
    pub(crate) listed: &'static [(u32, u32)],
}

impl Packed {
    /// Whether `word` is an item of a list two tables deep: a binary search, with nothing
    /// read.
    pub(crate) fn lists(&self, word: &str) -> bool {
        self.listed
            .binary_search_by(|&(start, len)| {
                let (start, len) = (start as usize, len as usize);
                self.texts
                    .get(start..start.saturating_add(len))
                    .unwrap_or("")
                    .cmp(word)
            })
            .is_ok()
    }
}

impl Packed {
    /// The entries of a packed table in order, each key with its value packed alone: nothing
    /// is read but the shape, so that a caller reads only the entries it needs.
    pub(crate) fn entries(&self) -> Result<Vec<(&'static str, Packed)>, PackedError> {
        let mut r = self.table()?;
        let n = r.number()?;
        let mut out = Vec::with_capacity(n.min(r.shape.len()));
        for _ in 0..n {
            let key = r.text()?;
            out.push((key, r.value()?));
        }
        Ok(out)
    }

    /// The value of `key` in a packed table, if it has one.
    pub(crate) fn get(&self, key: &str) -> Result<Option<Packed>, PackedError> {
        let mut r = self.table()?;
        for _ in 0..r.number()? {
            let k = r.text()?;
            let v = r.value()?;
            if k == key {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// A reader past the tag of a table.
    fn table(&self) -> Result<Reader, PackedError> {
        let mut r = Reader {
            shape: self.shape,
            texts: self.texts,
        };
        match r.take(1)?[0] {
            b't' => Ok(r),
            tag => Err(PackedError(format!("a table was expected, not {tag}"))),
        }
    }
}

/// Why packed bytes do not read as the type asked for.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PackedError(String);

impl de::Error for PackedError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        PackedError(msg.to_string())
    }
}

/// Reads a packed table, all of it, as a `T`.
pub(crate) fn from_packed<T: Deserialize<'static>>(packed: Packed) -> Result<T, PackedError> {
    let mut reader = Reader {
        shape: packed.shape,
        texts: packed.texts,
    };
    let value = T::deserialize(&mut reader)?;
    if !reader.shape.is_empty() {
        return Err(PackedError(format!(
            "{} bytes left over",
            reader.shape.len()
        )));
    }
    Ok(value)
}

struct Reader {
    shape: &'static [u8],
    texts: &'static str,
}

impl Reader {
    fn take(&mut self, n: usize) -> Result<&'static [u8], PackedError> {
        if self.shape.len() < n {
            return Err(PackedError("the packed data ends early".into()));
        }
        let (head, rest) = self.shape.split_at(n);
        self.shape = rest;
        Ok(head)
    }

    fn number(&mut self) -> Result<usize, PackedError> {
        let mut n = [0; 4];
        n.copy_from_slice(self.take(4)?);
        usize::try_from(u32::from_le_bytes(n)).map_err(|e| PackedError(e.to_string()))
    }

    fn text(&mut self) -> Result<&'static str, PackedError> {
        let start = self.number()?;
        let len = self.number()?;
        start
            .checked_add(len)
            .and_then(|end| self.texts.get(start..end))
            .ok_or_else(|| PackedError(format!("no text at {start} of length {len}")))
    }
}

impl Reader {
    /// The next value, packed alone, and passed over.
    fn value(&mut self) -> Result<Packed, PackedError> {
        let start = self.shape;
        self.skip(0)?;
        let len = start.len() - self.shape.len();
        Ok(Packed {
            shape: &start[..len],
            texts: self.texts,
            listed: &[],
        })
    }

    /// Passes over one value, reading nothing; `depth` deep in the data.
    fn skip(&mut self, depth: usize) -> Result<(), PackedError> {
        if depth > 64 {
            return Err(PackedError("the packed data nests too deep".into()));
        }
        match self.take(1)?[0] {
            b's' => {
                self.take(8)?;
            }
            b'l' => {
                for _ in 0..self.number()? {
                    self.skip(depth + 1)?;
                }
            }
            b't' => {
                for _ in 0..self.number()? {
                    self.take(8)?;
                    self.skip(depth + 1)?;
                }
            }
            tag => return Err(PackedError(format!("no value is tagged {tag}"))),
        }
        Ok(())
    }
}

impl de::Deserializer<'static> for &mut Reader {
    type Error = PackedError;

    fn deserialize_any<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, PackedError> {
        match self.take(1)?[0] {
            b's' => visitor.visit_borrowed_str(self.text()?),
            b'l' => {
                let left = self.number()?;
                visitor.visit_seq(Items { reader: self, left })
            }
            b't' => {
                let left = self.number()?;
                visitor.visit_map(Items { reader: self, left })
            }
            tag => Err(PackedError(format!("no value is tagged {tag}"))),
        }
    }

    /// A text reads as the variant it names (`"destroy"` as `Class::Destroy`).
    fn deserialize_enum<V: Visitor<'static>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, PackedError> {
        if self.shape.first() == Some(&b's') {
            self.take(1)?;
            let text = self.text()?;
            return visitor.visit_enum(BorrowedStrDeserializer::<PackedError>::new(text));
        }
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'static>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// The items of a list, or the entries of a table, not read yet.
struct Items<'r> {
    reader: &'r mut Reader,
    left: usize,
}

impl Items<'_> {
    /// Counts one more item read; `false` when none is left.
    fn next(&mut self) -> bool {
        let more = self.left > 0;
        self.left = self.left.saturating_sub(1);
        more
    }
}

impl SeqAccess<'static> for Items<'_> {
    type Error = PackedError;

    fn next_element_seed<T: DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, PackedError> {
        if !self.next() {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl MapAccess<'static> for Items<'_> {
    type Error = PackedError;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, PackedError> {
        if !self.next() {
            return Ok(None);
        }
        let key = self.reader.text()?;
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, PackedError> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields, bound(deserialize = "'de: 'static"))]
    struct Shape {
        names: Vec<&'static str>,
        verbs: BTreeMap<&'static str, Vec<&'static str>>,
    }

    /// Packs texts and lists the way `build.rs` does, for the tests.
    fn packed(parts: &[Part]) -> Packed {
        fn n(x: usize, out: &mut Vec<u8>) {
            out.extend(u32::try_from(x).unwrap().to_le_bytes());
        }
        let mut shape = Vec::new();
        let mut texts = String::new();
        for part in parts {
            match part {
                Part::Tag(t) => shape.push(*t),
                Part::Len(x) => n(*x, &mut shape),
                Part::Key(k) => {
                    n(texts.len(), &mut shape);
                    n(k.len(), &mut shape);
                    texts.push_str(k);
                }
                Part::Text(k) => {
                    shape.push(b's');
                    n(texts.len(), &mut shape);
                    n(k.len(), &mut shape);
                    texts.push_str(k);
                }
                Part::Raw(b) => shape.extend_from_slice(b),
            }
        }
        Packed {
            shape: Box::leak(shape.into_boxed_slice()),
            texts: Box::leak(texts.into_boxed_str()),
            listed: &[],
        }
    }

    enum Part {
        Tag(u8),
        Len(usize),
        Key(&'static str),
        Text(&'static str),
        Raw(&'static [u8]),
    }
    use Part::*;

    fn good() -> Vec<Part> {
        vec![
            Tag(b't'),
            Len(2),
            Key("names"),
            Tag(b'l'),
            Len(2),
            Text("a"),
            Text("é"),
            Key("verbs"),
            Tag(b't'),
            Len(1),
            Key("git"),
            Tag(b'l'),
            Len(1),
            Text("push"),
        ]
    }

    #[test]
    fn packed_tables_lists_and_texts_read_as_their_types() {
        let shape: Shape = from_packed(packed(&good())).unwrap();
        assert_eq!(shape.names, ["a", "é"]);
        assert_eq!(shape.verbs["git"], ["push"]);
    }

    #[test]
    fn a_table_entry_is_read_alone_and_by_its_key() {
        let p = packed(&good());
        let entries = p.entries().unwrap();
        let keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["names", "verbs"]);
        let names: Vec<&str> = from_packed(entries[0].1).unwrap();
        assert_eq!(names, ["a", "é"]);
        let verbs = p.get("verbs").unwrap().unwrap();
        let git: Vec<&str> = from_packed(verbs.get("git").unwrap().unwrap()).unwrap();
        assert_eq!(git, ["push"]);
        assert!(p.get("nothing").unwrap().is_none());
        // A list is no table; data cut short is an error, never a panic.
        assert!(entries[0].1.entries().is_err());
        let mut cut = good();
        cut.truncate(9);
        assert!(packed(&cut).entries().is_err());
        assert!(packed(&cut).get("verbs").is_err());
    }

    #[test]
    fn bad_packed_data_is_an_error_not_a_panic() {
        let cut = |n: usize| {
            let mut p = good();
            p.truncate(n);
            p
        };
        let mut extra = good();
        extra.push(Raw(b"x"));
        let mut unknown = good();
        unknown[1] = Len(3);
        unknown.extend([Key("others"), Tag(b'l'), Len(0)]);
        for parts in [
            cut(0),
            cut(3),
            cut(9),
            extra,
            unknown,
            vec![Raw(b"x")],
            vec![Tag(b's'), Len(0), Len(u32::MAX as usize)],
        ] {
            assert!(from_packed::<Shape>(packed(&parts)).is_err());
        }
        // "é" is two bytes: a text of one byte from its start is no text.
        let split = packed(&[Tag(b'l'), Len(1), Text("é")]);
        let bad = Packed {
            shape: b"l\x01\0\0\0s\0\0\0\0\x01\0\0\0",
            texts: split.texts,
            listed: &[],
        };
        assert!(from_packed::<Vec<&'static str>>(bad).is_err());
    }
}
