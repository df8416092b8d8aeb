//! `sqlx::migrate!` embeds `migrations/postgres` at compile time, but cargo does not know the macro
//! reads that directory: without this, a new migration file would not rebuild the binaries.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations/postgres");
}
