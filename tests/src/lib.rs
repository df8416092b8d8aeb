//! Black-box tests live in `blackbox/`; this library is empty on purpose (cargo needs a target).
