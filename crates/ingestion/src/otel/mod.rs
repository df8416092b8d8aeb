//! OTLP traces: decoding (protobuf, JSON, gzip) and conversion of spans into events.
