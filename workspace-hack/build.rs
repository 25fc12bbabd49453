// Cargo reads the hack's build-dependencies only when the crate has a build script.
fn main() {}
