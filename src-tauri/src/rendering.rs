//! How the webview paints. WebKitGTK composites the page's layers with OpenGL by default;
//! where there is no GPU driver (a remote desktop, a virtual machine) that is Mesa's
//! software rasteriser, and either way it keeps a GL copy of each layer and of the
//! window: at rest, 86 MB of the web process's 206 MB, measured under Xvfb. The app's
//! page is text, lists and PDF pages, which WebKit paints as fast without compositing,
//! so the webview is told never to composite in GL (WebKitGTK's hardware acceleration
//! policy). `ASTERISM_WEBVIEW_COMPOSITING=on` keeps WebKitGTK's own choice, as does a
//! `WEBKIT_DISABLE_COMPOSITING_MODE` the user set.

/// The variable that keeps WebKitGTK's own choice.
pub const VARIABLE: &str = "ASTERISM_WEBVIEW_COMPOSITING";

/// Whether the page is painted without GL compositing, given the variable's value.
pub fn paint_without_compositing(value: Option<&str>) -> bool {
    !matches!(
        value.map(str::trim).map(str::to_ascii_lowercase).as_deref(),
        Some("on" | "1" | "true" | "yes")
    )
}

/// Applies [`paint_without_compositing`] to the window's webview.
#[cfg(target_os = "linux")]
pub fn configure(window: &tauri::WebviewWindow) {
    let ours = std::env::var(VARIABLE).ok();
    if !paint_without_compositing(ours.as_deref())
        || std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_some()
    {
        return;
    }
    let applied = window.with_webview(|webview| {
        use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
        if let Some(settings) = WebViewExt::settings(&webview.inner()) {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    if let Err(error) = applied {
        tracing::warn!(%error, "could not set how the webview paints");
    }
}

#[cfg(not(target_os = "linux"))]
pub fn configure(_window: &tauri::WebviewWindow) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_is_off_unless_asked_for() {
        assert!(paint_without_compositing(None));
        assert!(paint_without_compositing(Some("")));
        assert!(paint_without_compositing(Some("off")));
        assert!(!paint_without_compositing(Some("on")));
        assert!(!paint_without_compositing(Some(" ON ")));
        assert!(!paint_without_compositing(Some("1")));
    }
}
