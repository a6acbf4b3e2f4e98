//! Integration tests of the streaming client against loopback servers speaking the real
//! wire format: every recorded provider stream, and the scripted model's faults.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod faults;
    mod recorded_streams;
    mod requests;
    mod sse_properties;
}
