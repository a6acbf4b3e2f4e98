//! The `asterism` binary against the scripted model and the Sesame fixture server.

mod suite {
    mod ask;
}
