//! How WebKitGTK paints the window. Where there is no GPU to paint with (no DRM render
//! node: a virtual machine, a remote X session, Xvfb), its GPU painting runs on Mesa's
//! software rasteriser (llvmpipe), which is slower than Skia's own CPU painting and
//! keeps ~40–50 MB more in the web process (the page's textures live in process memory
//! there); so on such a machine the app asks WebKit for CPU painting. A value the user
//! set for `WEBKIT_SKIA_ENABLE_CPU_RENDERING` is left as it is.

use std::path::Path;

const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// Chooses CPU painting when the machine has no render node. Must run before any thread
/// starts (it sets an environment variable, which the web process inherits).
pub fn choose() {
    if std::env::var_os(CPU_PAINTING).is_some() || has_render_node(Path::new("/dev/dri")) {
        return;
    }
    // SAFETY: called first in `main`, before the app starts any thread.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var(CPU_PAINTING, "1");
    }
}

/// Whether `dri` holds a DRM render node (`renderD128`, …), the device GPU painting uses.
fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_render_node_counts_as_a_gpu() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            !has_render_node(&dir.path().join("missing")),
            "no /dev/dri at all"
        );
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(
            !has_render_node(dir.path()),
            "a display card without a render node"
        );
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }
}
