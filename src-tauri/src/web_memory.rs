//! How much memory the web process keeps. WebKitGTK's web process releases what its
//! JavaScript heap and caches no longer need only under memory pressure, and by default
//! it sees pressure only past a third of the machine's memory (at most 3 GB): after a
//! search, an import and the panels, it kept 145–170 MB more than at its start, for
//! good. WebKit's memory-pressure settings give it a limit of its own instead:
//! past [`CONSERVATIVE`] of the limit it drops its caches, past [`STRICT`] it also
//! collects the JavaScript heap and hands the freed pages back, checked every
//! [`POLL_SECONDS`]; it is never killed for its size.
//!
//! The settings can only be given when the `WebKitWebContext` is constructed, and the
//! webview library (wry) constructs it without a way in. So, before any context exists,
//! the context class's property setter is wrapped: where the construction leaves the
//! settings at their default (none), ours are given instead. Settings given explicitly
//! are left as they are. `ASTERISM_WEB_MEMORY_MB` sets the limit; `0` keeps WebKit's own.

/// The variable that sets the web process's memory limit in MB (0: WebKit's own).
pub const VARIABLE: &str = "ASTERISM_WEB_MEMORY_MB";
/// The limit when the variable is not set: twice the footprint (anonymous private
/// memory) past which the strict policy starts, well above the page's 40–50 MB at rest.
pub const DEFAULT_LIMIT_MB: u32 = 200;
/// Fraction of the limit past which caches are dropped.
pub const CONSERVATIVE: f64 = 0.33;
/// Fraction of the limit past which the heap is collected and handed back.
pub const STRICT: f64 = 0.5;
/// The least limit taken: under it the page's own 40–50 MB at rest would be past the
/// strict threshold, and the web process would collect its heap at every check.
pub const MIN_LIMIT_MB: u32 = 100;
/// How often the web process measures itself.
pub const POLL_SECONDS: f64 = 10.0;

/// The limit in MB given the variable's value, or `None` to keep WebKit's own handling.
pub fn limit_mb(value: Option<&str>) -> Option<u32> {
    match value.map(str::trim) {
        None | Some("") => Some(DEFAULT_LIMIT_MB),
        Some(text) => match text.parse::<u32>() {
            Ok(0) => None,
            Ok(limit) if limit < MIN_LIMIT_MB => {
                tracing::warn!(
                    limit,
                    "{VARIABLE} is under {MIN_LIMIT_MB} MB: {MIN_LIMIT_MB} is used"
                );
                Some(MIN_LIMIT_MB)
            }
            Ok(limit) => Some(limit),
            Err(_) => {
                tracing::warn!(%text, "{VARIABLE} is not a whole number of MB: the default is used");
                Some(DEFAULT_LIMIT_MB)
            }
        },
    }
}

#[cfg(all(target_os = "linux", test))]
use linux::applied;
#[cfg(target_os = "linux")]
pub use linux::install;

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // GObject's class struct and WebKit's C functions, each block said why
mod linux {
    use std::ffi::CStr;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use gobject_sys::{GObject, GObjectClass, GParamSpec, GValue};
    use webkit2gtk_sys as webkit;

    type SetProperty = unsafe extern "C" fn(*mut GObject, u32, *mut GValue, *mut GParamSpec);

    /// The class's own setter and our settings (a pointer kept for the process's life).
    struct Hook {
        class: usize,
        original: SetProperty,
        settings: usize,
    }

    static HOOK: OnceLock<Option<Hook>> = OnceLock::new();
    static REPLACE: Once = Once::new();
    static APPLIED: AtomicUsize = AtomicUsize::new(0);

    /// How many web contexts were constructed with our settings.
    #[cfg(test)]
    pub fn applied() -> usize {
        APPLIED.load(Ordering::Relaxed)
    }

    /// Gives every web context constructed from now on the memory-pressure settings
    /// (see the module's documentation). Call it before the first webview; once is
    /// enough, later calls do nothing.
    pub fn install() {
        let Some(limit) = super::limit_mb(std::env::var(super::VARIABLE).ok().as_deref()) else {
            return;
        };
        // SAFETY: this runs on the thread that starts the app, before any web context
        // exists. The class reference is kept for the process's life, so the class
        // struct (and the setter replaced in it) stays valid. The hook is in place
        // before the setter is replaced, which happens once.
        let hook = HOOK.get_or_init(|| unsafe {
            let class = gobject_sys::g_type_class_ref(webkit::webkit_web_context_get_type())
                as *mut GObjectClass;
            let original = (*class).set_property?;
            let settings = webkit::webkit_memory_pressure_settings_new();
            webkit::webkit_memory_pressure_settings_set_memory_limit(settings, limit);
            webkit::webkit_memory_pressure_settings_set_conservative_threshold(
                settings,
                super::CONSERVATIVE,
            );
            webkit::webkit_memory_pressure_settings_set_strict_threshold(settings, super::STRICT);
            webkit::webkit_memory_pressure_settings_set_poll_interval(
                settings,
                super::POLL_SECONDS,
            );
            Some(Hook {
                class: class as usize,
                original,
                settings: settings as usize,
            })
        });
        if let Some(hook) = hook {
            REPLACE.call_once(|| unsafe {
                (*(hook.class as *mut GObjectClass)).set_property = Some(set_property);
            });
        }
    }

    /// The context class's setter, with our settings where the construction gave none.
    unsafe extern "C" fn set_property(
        object: *mut GObject,
        id: u32,
        value: *mut GValue,
        pspec: *mut GParamSpec,
    ) {
        let Some(Some(hook)) = HOOK.get() else { return };
        // SAFETY: GObject calls this with a valid property spec and value of its type;
        // ours is a value of the same boxed type, set and unset here.
        unsafe {
            let name = CStr::from_ptr(gobject_sys::g_param_spec_get_name(pspec));
            if name.to_bytes() != b"memory-pressure-settings"
                || !gobject_sys::g_value_get_boxed(value).is_null()
            {
                return (hook.original)(object, id, value, pspec);
            }
            let mut ours: GValue = std::mem::zeroed();
            gobject_sys::g_value_init(
                &mut ours,
                webkit::webkit_memory_pressure_settings_get_type(),
            );
            gobject_sys::g_value_set_boxed(&mut ours, hook.settings as *const _);
            (hook.original)(object, id, &mut ours, pspec);
            gobject_sys::g_value_unset(&mut ours);
        }
        APPLIED.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn install() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_the_default_a_number_or_none() {
        assert_eq!(limit_mb(None), Some(DEFAULT_LIMIT_MB));
        assert_eq!(limit_mb(Some(" ")), Some(DEFAULT_LIMIT_MB));
        assert_eq!(limit_mb(Some("300")), Some(300));
        assert_eq!(limit_mb(Some("0")), None);
        assert_eq!(limit_mb(Some("20")), Some(MIN_LIMIT_MB));
        assert_eq!(limit_mb(Some("lots")), Some(DEFAULT_LIMIT_MB));
    }

    /// A context constructed after `install` gets the settings; one given its own keeps
    /// them. Without the wrapped setter, `applied` stays at 0. A web context needs a
    /// display: scripts/test.sh runs it under Xvfb (`-- --ignored web_memory::`).
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    #[test]
    #[ignore = "needs a display"]
    fn contexts_constructed_after_install_get_the_settings() {
        use webkit2gtk_sys as webkit;
        gtk::init().expect("a display (run under xvfb-run)");
        install();
        let before = applied();
        // SAFETY: contexts constructed through GObject's constructor (no GTK needed)
        // with NULL-terminated property lists; each is freed after.
        unsafe {
            let context = gobject_sys::g_object_new(
                webkit::webkit_web_context_get_type(),
                std::ptr::null::<std::ffi::c_char>(),
            );
            assert_eq!(applied(), before + 1, "a new context got the settings");
            gobject_sys::g_object_unref(context);
            let own = webkit::webkit_memory_pressure_settings_new();
            let context = gobject_sys::g_object_new(
                webkit::webkit_web_context_get_type(),
                c"memory-pressure-settings".as_ptr(),
                own,
                std::ptr::null::<std::ffi::c_char>(),
            );
            assert_eq!(applied(), before + 1, "settings given explicitly are kept");
            gobject_sys::g_object_unref(context);
            webkit::webkit_memory_pressure_settings_free(own);
        }
    }
}
