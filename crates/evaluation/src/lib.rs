//! Evaluators and evaluation rules (docs/evaluators.md): the `/api/public/v2/evaluators` and
//! `/api/public/v2/evaluation-rules` resources in the Python SDK 5's shapes (bodies checked field
//! by field, stored in PostgreSQL), and the worker's engine that runs LLM-as-a-judge evaluators on
//! new observations and writes `EVAL` scores through the ingestion service.

pub mod definition;
pub mod engine;
pub mod error;
pub mod evaluators;
pub mod executions;
pub mod filter;
pub mod jsonpath;
pub mod page;
pub mod pauses;
pub mod rules;
pub mod runs;

pub use error::{Code, Error, Issue, Result};
