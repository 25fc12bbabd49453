//! Prints the TypeScript declarations of the types the web app shares with the core
//! (`chatflow_core::typescript`); `cargo xtask types` writes them to the web app.

fn main() {
    print!("{}", chatflow_core::typescript::typescript_definitions());
}
