use std::sync::Once;

static REGISTER: Once = Once::new();

/// Registers sqlite-vec as an auto-extension so every connection opened afterwards in
/// this process has `vec0`. Idempotent; called before any pool opens.
pub(crate) fn register_sqlite_vec() {
    REGISTER.call_once(|| {
        // SAFETY: `sqlite3_vec_init` is the extension entry point sqlite-vec exports with
        // the signature SQLite expects of an auto-extension; registering it only makes
        // SQLite call it for each new connection.
        #[allow(unsafe_code)]
        unsafe {
            type EntryPoint = unsafe extern "C" fn(
                *mut libsqlite3_sys::sqlite3,
                *mut *mut std::os::raw::c_char,
                *const libsqlite3_sys::sqlite3_api_routines,
            ) -> std::os::raw::c_int;
            let init: EntryPoint = std::mem::transmute::<*const (), EntryPoint>(
                sqlite_vec::sqlite3_vec_init as *const (),
            );
            libsqlite3_sys::sqlite3_auto_extension(Some(init));
        }
    });
}

/// Encodes an embedding as the little-endian f32 blob sqlite-vec reads.
pub fn vector_to_blob(vector: &[f32]) -> Vec<u8> {
    vector
        .iter()
        .flat_map(|value| value.to_le_bytes())
        .collect()
}

/// Decodes a little-endian f32 blob (what [`vector_to_blob`] wrote).
pub fn blob_to_vector(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|bytes| f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        .collect()
}
