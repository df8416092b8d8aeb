//! Rows encoded in ClickHouse's `RowBinary` format ahead of their insert, by the thread that built
//! them (`events::EventSegment`). The client library encodes a row only while an insert is open,
//! by which time the worker's rows had left the caches of the thread that made them; encoding them
//! where they were built, and freeing them there, took about 30 % off the worker's CPU per span
//! (README, Speed).
//!
//! The format (ClickHouse docs, "RowBinary"): the columns of a row one after the other, each in
//! its binary form, with no names or separators. Integers and floats are little-endian,
//! `Bool`/`UInt8` one byte; `String` is its byte length as an unsigned LEB128 varint, then the
//! bytes; `Nullable(T)` is one byte, 1 for NULL, else 0 followed by the `T`; `Array(T)` is its
//! length as a varint, then the elements; `Map(K, V)` its length, then each key and value;
//! `Tuple` its elements with no prefix.

use std::fmt::Display;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// A value the format cannot carry (an enum, a sequence of unknown length): a bug in a row type.
#[derive(Debug, thiserror::Error)]
#[error("cannot encode a row in RowBinary: {0}")]
pub struct EncodeError(String);

impl ser::Error for EncodeError {
    fn custom<T: Display>(message: T) -> Self {
        Self(message.to_string())
    }
}

/// Appends `row`, a struct whose fields are the insert's columns in order, to `out`.
pub fn encode<T: Serialize>(row: &T, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    row.serialize(&mut Encoder { out })
}

struct Encoder<'a> {
    out: &'a mut Vec<u8>,
}

impl Encoder<'_> {
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.out.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.out.push(value as u8);
    }

    fn length(&mut self, len: Option<usize>) -> Result<(), EncodeError> {
        let len = len.ok_or_else(|| EncodeError("a sequence or map of unknown length".into()))?;
        self.varint(len as u64);
        Ok(())
    }

    fn unsupported(what: &str) -> EncodeError {
        EncodeError(format!("{what} has no RowBinary form here"))
    }
}

macro_rules! little_endian {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, value: $type) -> Result<(), EncodeError> {
            self.out.extend_from_slice(&value.to_le_bytes());
            Ok(())
        }
    )*};
}

impl ser::Serializer for &mut Encoder<'_> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Impossible<(), EncodeError>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), EncodeError>;

    little_endian!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_i128: i128,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128,
        serialize_f32: f32, serialize_f64: f64
    );

    fn serialize_bool(self, value: bool) -> Result<(), EncodeError> {
        self.out.push(u8::from(value));
        Ok(())
    }

    fn serialize_char(self, _: char) -> Result<(), EncodeError> {
        Err(Encoder::unsupported("a char"))
    }

    fn serialize_str(self, value: &str) -> Result<(), EncodeError> {
        self.serialize_bytes(value.as_bytes())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), EncodeError> {
        self.varint(value.len() as u64);
        self.out.extend_from_slice(value);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), EncodeError> {
        self.out.push(1);
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), EncodeError> {
        self.out.push(0);
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), EncodeError> {
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), EncodeError> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), EncodeError> {
        Err(Encoder::unsupported("an enum"))
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), EncodeError> {
        Err(Encoder::unsupported("an enum"))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self, EncodeError> {
        self.length(len)?;
        Ok(self)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(Encoder::unsupported("an enum"))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self, EncodeError> {
        self.length(len)?;
        Ok(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, EncodeError> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(Encoder::unsupported("an enum"))
    }
}

/// Elements, tuple fields and struct fields are written one after the other, with no separator.
macro_rules! in_order {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for &mut Encoder<'_> {
            type Ok = ();
            type Error = EncodeError;
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), EncodeError> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), EncodeError> {
                Ok(())
            }
        }
    )*};
}

in_order!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl ser::SerializeMap for &mut Encoder<'_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), EncodeError> {
        key.serialize(&mut **self)
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Encoder<'_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Serialize)]
    struct Row<'a> {
        text: &'a str,
        small: u8,
        wide: i64,
        missing: Option<u16>,
        present: Option<u16>,
        flag: bool,
        list: &'a [String],
        map: &'a BTreeMap<String, u64>,
    }

    #[test]
    fn a_row_is_its_columns_in_binary_one_after_the_other() {
        let map = BTreeMap::from([("in".to_owned(), 3u64), ("out".to_owned(), 258)]);
        let list = ["a".to_owned(), String::new()];
        let row = Row {
            text: "hé",
            small: 7,
            wide: -2,
            missing: None,
            present: Some(513),
            flag: true,
            list: &list,
            map: &map,
        };
        let mut out = Vec::new();
        encode(&row, &mut out).expect("encodes");
        let mut expected = vec![3, b'h', 0xc3, 0xa9, 7];
        expected.extend_from_slice(&(-2i64).to_le_bytes());
        expected.extend_from_slice(&[1, 0, 1, 2, 1]);
        expected.extend_from_slice(&[2, 1, b'a', 0]);
        expected.extend_from_slice(&[2, 2, b'i', b'n']);
        expected.extend_from_slice(&3u64.to_le_bytes());
        expected.extend_from_slice(&[3, b'o', b'u', b't']);
        expected.extend_from_slice(&258u64.to_le_bytes());
        assert_eq!(out, expected);
    }

    #[test]
    fn lengths_are_leb128_varints() {
        for (len, prefix) in
            [(0usize, vec![0u8]), (127, vec![0x7f]), (128, vec![0x80, 0x01]), (300, vec![0xac, 0x02])]
        {
            let mut out = Vec::new();
            encode(&"x".repeat(len), &mut out).expect("encodes");
            assert_eq!(&out[..prefix.len()], prefix, "length {len}");
            assert_eq!(out.len(), prefix.len() + len);
        }
    }

    #[test]
    fn what_the_format_cannot_carry_is_an_error_not_a_wrong_row() {
        #[derive(Serialize)]
        enum Kind {
            A,
        }
        let mut out = Vec::new();
        assert!(encode(&Kind::A, &mut out).is_err());
        assert!(encode(&'c', &mut out).is_err());
    }
}
