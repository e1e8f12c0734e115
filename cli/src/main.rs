//! The `rgt` binary; see the library for everything it does.

fn main() -> std::process::ExitCode {
    rgt::run()
}
