//! File writers: rows in, bytes out, a chunk at a time. Each writer keeps only what it has not
//! handed over yet ([`FileWriter::take_bytes`]), so a file of any size passes through a bounded
//! buffer on its way to a multipart upload.
//!
//! Every file has a fixed list of columns, known before the first row (so a CSV header and a
//! Parquet schema exist for an empty window too). A row's value for a column is written as it
//! came from the reads: JSON and JSONL keep it as JSON; CSV and Parquet write text as text and
//! any other value (numbers, maps, lists) as its JSON text; null is empty (CSV) or null.

use std::io::Write;
use std::sync::{Arc, Mutex};

use flate2::Compression;
use flate2::write::GzEncoder;
use parquet::basic::{Compression as ParquetCompression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use reads::sql::JsonRow;
use serde_json::Value;

use crate::model::FileType;
use crate::{Error, Result};

/// Bytes written but not yet handed over; shared between the encoder that writes and the writer
/// that drains it.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl Write for SharedBuf {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

enum Out {
    Plain(SharedBuf),
    Gzip(GzEncoder<SharedBuf>),
}

impl Write for Out {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::Plain(buf) => buf.write(bytes),
            Out::Gzip(gz) => gz.write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

enum Encoding {
    Json { first: bool },
    Jsonl,
    Csv,
    Parquet(Box<SerializedFileWriter<SharedBuf>>),
}

pub struct FileWriter {
    columns: Vec<String>,
    encoding: Encoding,
    out: Out,
    buf: SharedBuf,
    rows: u64,
}

fn io(error: std::io::Error) -> Error {
    Error::Internal(format!("writing an export file: {error}"))
}

fn pq(error: parquet::errors::ParquetError) -> Error {
    Error::Internal(format!("writing a Parquet file: {error}"))
}

impl FileWriter {
    pub fn new(file_type: FileType, gzip: bool, columns: Vec<String>) -> Result<Self> {
        let buf = SharedBuf::default();
        let out = if file_type.gzipped(gzip) {
            Out::Gzip(GzEncoder::new(buf.clone(), Compression::default()))
        } else {
            Out::Plain(buf.clone())
        };
        let encoding = match file_type {
            FileType::Json => Encoding::Json { first: true },
            FileType::Jsonl => Encoding::Jsonl,
            FileType::Csv => Encoding::Csv,
            FileType::Parquet => Encoding::Parquet(Box::new(parquet_writer(&columns, buf.clone())?)),
        };
        let mut writer = Self { columns, encoding, out, buf, rows: 0 };
        match writer.encoding {
            Encoding::Json { .. } => writer.out.write_all(b"[").map_err(io)?,
            Encoding::Csv => {
                let header: Vec<String> = writer.columns.iter().map(|c| csv_field(c)).collect();
                writer.out.write_all(header.join(",").as_bytes()).map_err(io)?;
                writer.out.write_all(b"\n").map_err(io)?;
            }
            _ => {}
        }
        Ok(writer)
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes a chunk of rows (a Parquet row group per call).
    pub fn write_rows(&mut self, rows: &[JsonRow]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        self.rows += rows.len() as u64;
        match &mut self.encoding {
            Encoding::Parquet(writer) => write_row_group(writer, &self.columns, rows),
            Encoding::Json { first } => {
                for row in rows {
                    if !*first {
                        self.out.write_all(b",").map_err(io)?;
                    }
                    *first = false;
                    write_object(&mut self.out, &self.columns, row)?;
                }
                Ok(())
            }
            Encoding::Jsonl => {
                for row in rows {
                    write_object(&mut self.out, &self.columns, row)?;
                    self.out.write_all(b"\n").map_err(io)?;
                }
                Ok(())
            }
            Encoding::Csv => {
                for row in rows {
                    let fields: Vec<String> = (self.columns.iter())
                        .map(|c| row.get(c).and_then(text_of).map(|t| csv_field(&t)).unwrap_or_default())
                        .collect();
                    self.out.write_all(fields.join(",").as_bytes()).map_err(io)?;
                    self.out.write_all(b"\n").map_err(io)?;
                }
                Ok(())
            }
        }
    }

    /// The bytes encoded so far and not yet taken.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        self.buf.take()
    }

    /// Ends the file and returns its last bytes.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        match self.encoding {
            Encoding::Json { .. } => self.out.write_all(b"]").map_err(io)?,
            Encoding::Parquet(writer) => {
                writer.close().map_err(pq)?;
            }
            _ => {}
        }
        if let Out::Gzip(gz) = self.out {
            gz.finish().map_err(io)?;
        }
        Ok(self.buf.take())
    }
}

fn write_object(out: &mut Out, columns: &[String], row: &JsonRow) -> Result<()> {
    let json = |e: serde_json::Error| Error::Internal(format!("writing JSON: {e}"));
    out.write_all(b"{").map_err(io)?;
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            out.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut *out, column).map_err(json)?;
        out.write_all(b":").map_err(io)?;
        serde_json::to_writer(&mut *out, row.get(column).unwrap_or(&Value::Null)).map_err(json)?;
    }
    out.write_all(b"}").map_err(io)
}

/// A value as a CSV or Parquet cell: text as is, other values as JSON, null as nothing.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Every column an optional UTF-8 string: the rows' types vary by source and field group, and
/// text keeps every value exactly (numbers as the engine printed them).
fn parquet_writer(columns: &[String], buf: SharedBuf) -> Result<SerializedFileWriter<SharedBuf>> {
    let fields = columns
        .iter()
        .map(|name| {
            Type::primitive_type_builder(name, PhysicalType::BYTE_ARRAY)
                .with_repetition(Repetition::OPTIONAL)
                .with_logical_type(Some(LogicalType::String))
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(pq)?;
    let schema = Type::group_type_builder("export").with_fields(fields).build().map_err(pq)?;
    let properties = WriterProperties::builder().set_compression(ParquetCompression::SNAPPY).build();
    SerializedFileWriter::new(buf, Arc::new(schema), Arc::new(properties)).map_err(pq)
}

fn write_row_group(
    writer: &mut SerializedFileWriter<SharedBuf>,
    columns: &[String],
    rows: &[JsonRow],
) -> Result<()> {
    let mut group = writer.next_row_group().map_err(pq)?;
    for column in columns {
        let Some(mut out) = group.next_column().map_err(pq)? else {
            return Err(Error::Internal("Parquet schema has fewer columns than the rows".into()));
        };
        let mut values = Vec::with_capacity(rows.len());
        let mut levels = Vec::with_capacity(rows.len());
        for row in rows {
            match row.get(column).and_then(text_of) {
                Some(text) => {
                    values.push(ByteArray::from(text.into_bytes()));
                    levels.push(1);
                }
                None => levels.push(0),
            }
        }
        out.typed::<ByteArrayType>().write_batch(&values, Some(&levels), None).map_err(pq)?;
        out.close().map_err(pq)?;
    }
    group.close().map_err(pq)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use parquet::file::reader::{FileReader, SerializedFileReader};
    use serde_json::json;

    use super::*;

    fn rows() -> Vec<JsonRow> {
        let a = json!({"id": "a", "name": "x, \"y\"", "n": 1.5, "m": {"k": "v"}});
        let b = json!({"id": "b", "name": null});
        [a, b].into_iter().map(|v| v.as_object().unwrap().clone()).collect()
    }

    fn written(file_type: FileType, gzip: bool) -> Vec<u8> {
        let columns = ["id", "name", "n", "m"].map(String::from).to_vec();
        let mut writer = FileWriter::new(file_type, gzip, columns).unwrap();
        let mut bytes = writer.take_bytes();
        for row in rows() {
            writer.write_rows(&[row]).unwrap();
            bytes.extend(writer.take_bytes());
        }
        bytes.extend(writer.finish().unwrap());
        bytes
    }

    #[test]
    fn json_and_jsonl_keep_values_and_column_order() {
        let json: Value = serde_json::from_slice(&written(FileType::Json, false)).unwrap();
        assert_eq!(json[0], json!({"id": "a", "name": "x, \"y\"", "n": 1.5, "m": {"k": "v"}}));
        assert_eq!(json[1], json!({"id": "b", "name": null, "n": null, "m": null}));
        let mut text = String::new();
        flate2::read::GzDecoder::new(&written(FileType::Jsonl, true)[..]).read_to_string(&mut text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], r#"{"id":"a","name":"x, \"y\"","n":1.5,"m":{"k":"v"}}"#);
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn csv_quotes_and_leaves_nulls_empty() {
        let text = String::from_utf8(written(FileType::Csv, false)).unwrap();
        assert_eq!(text, "id,name,n,m\na,\"x, \"\"y\"\"\",1.5,\"{\"\"k\"\":\"\"v\"\"}\"\nb,,,\n");
    }

    #[test]
    fn parquet_reads_back_row_group_by_row_group() {
        let bytes = bytes::Bytes::from(written(FileType::Parquet, true));
        assert_eq!(&bytes[..4], b"PAR1", "gzip does not apply to Parquet");
        let reader = SerializedFileReader::new(bytes).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 2);
        let rows: Vec<String> = reader.get_row_iter(None).unwrap().map(|r| r.unwrap().to_string()).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0], r#"{id: "a", name: "x, "y"", n: "1.5", m: "{"k":"v"}"}"#);
        assert!(rows[1].contains("name: null"), "{}", rows[1]);
    }
}
