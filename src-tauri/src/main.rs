// Hide the console window of release builds on Windows.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // `--version` answers without opening a window (for packagers and support).
    if std::env::args()
        .skip(1)
        .any(|arg| arg == "--version" || arg == "-V")
    {
        println!("asterism-app {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    asterism_app_lib::run();
}
