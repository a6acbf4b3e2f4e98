//! Damage done to recorded answers by the parser property tests: byte-level (flips,
//! inserts, deletes, truncation, invalid UTF-8) and markup-level (a deleted tag, a
//! duplicated element or line, a number made huge), plus a loopback server per test
//! thread, whose answer each case sets, for the tests that go through the public
//! clients.

use std::any::{Any, TypeId};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use asterism_testkit::{LoopbackServer, fixture_path};
use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use proptest::prelude::*;
use proptest::sample::Index;

/// Numbers no service sends: past every integer type, past f64, signs, not numbers.
pub const HUGE_NUMBERS: &[&str] = &[
    "99999999999999999999999999999999999999",
    "18446744073709551616",
    "-9223372036854775809",
    "1e999",
    "-1e308",
    "4.9e-324",
    "NaN",
    "inf",
    "-0",
    "0",
];

/// One change to an answer's bytes.
#[derive(Debug, Clone)]
pub enum Mutation {
    Flip {
        at: Index,
        bit: u8,
    },
    Overwrite {
        at: Index,
        byte: u8,
    },
    Insert {
        at: Index,
        bytes: Vec<u8>,
    },
    Delete {
        at: Index,
        len: usize,
    },
    Truncate {
        at: Index,
    },
    /// A byte that cannot start or continue valid UTF-8 here.
    InvalidUtf8 {
        at: Index,
        byte: u8,
    },
    /// Removes one `<…>` tag (start, end or empty).
    DeleteTag {
        nth: Index,
    },
    /// Repeats one element (`<x …>…</x>`), or one line when there are no tags.
    Duplicate {
        nth: Index,
    },
    /// Replaces one run of digits with a value from [`HUGE_NUMBERS`].
    HugeNumber {
        nth: Index,
        number: Index,
    },
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        1 => (any::<Index>(), any::<u8>())
            .prop_map(|(at, byte)| Mutation::Overwrite { at, byte }),
        1 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        1 => (any::<Index>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => any::<Index>().prop_map(|at| Mutation::Truncate { at }),
        1 => (
            any::<Index>(),
            prop::sample::select(vec![0x80u8, 0xBF, 0xC0, 0xC3, 0xE2, 0xF0, 0xF8, 0xFE, 0xFF])
        )
            .prop_map(|(at, byte)| Mutation::InvalidUtf8 { at, byte }),
        2 => any::<Index>().prop_map(|nth| Mutation::DeleteTag { nth }),
        2 => any::<Index>().prop_map(|nth| Mutation::Duplicate { nth }),
        2 => (any::<Index>(), any::<Index>())
            .prop_map(|(nth, number)| Mutation::HugeNumber { nth, number }),
    ]
}

/// One to eight mutations.
pub fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..8)
}

/// `(start, end)` of every `<…>` tag.
fn tags(body: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(open) = body[from..].iter().position(|&b| b == b'<') {
        let start = from + open;
        match body[start..].iter().position(|&b| b == b'>') {
            Some(close) => {
                spans.push((start, start + close + 1));
                from = start + close + 1;
            }
            None => break,
        }
    }
    spans
}

/// `(start, end)` of every element from its start tag to its end tag.
fn elements(body: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for (start, end) in tags(body) {
        let tag = &body[start + 1..end - 1];
        if tag.is_empty() || matches!(tag[0], b'/' | b'?' | b'!') || tag.ends_with(b"/") {
            continue;
        }
        let name_len = tag
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(tag.len());
        let closing = [b"</", &tag[..name_len], b">"].concat();
        if let Some(at) = body[end..]
            .windows(closing.len())
            .position(|w| w == closing.as_slice())
        {
            spans.push((start, end + at + closing.len()));
        }
    }
    spans
}

/// `(start, end)` of every line, with its line end.
fn lines(body: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (at, &byte) in body.iter().enumerate() {
        if byte == b'\n' {
            spans.push((start, at + 1));
            start = at + 1;
        }
    }
    if start < body.len() {
        spans.push((start, body.len()));
    }
    spans
}

/// `(start, end)` of every run of ASCII digits.
fn numbers(body: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut at = 0;
    while at < body.len() {
        if body[at].is_ascii_digit() {
            let start = at;
            while at < body.len() && body[at].is_ascii_digit() {
                at += 1;
            }
            spans.push((start, at));
        } else {
            at += 1;
        }
    }
    spans
}

pub fn apply(body: &mut Vec<u8>, mutation: &Mutation) {
    let len = body.len();
    match mutation {
        Mutation::Flip { at, bit } if len > 0 => body[at.index(len)] ^= 1 << bit,
        Mutation::Overwrite { at, byte } if len > 0 => body[at.index(len)] = *byte,
        Mutation::Insert { at, bytes } => {
            let at = at.index(len + 1);
            body.splice(at..at, bytes.iter().copied());
        }
        Mutation::Delete { at, len: count } if len > 0 => {
            let at = at.index(len);
            body.drain(at..(at + count).min(len));
        }
        Mutation::Truncate { at } => body.truncate(at.index(len + 1)),
        Mutation::InvalidUtf8 { at, byte } => body.insert(at.index(len + 1), *byte),
        Mutation::DeleteTag { nth } => {
            let spans = tags(body);
            if !spans.is_empty() {
                let (start, end) = spans[nth.index(spans.len())];
                body.drain(start..end);
            }
        }
        Mutation::Duplicate { nth } => {
            let mut spans = elements(body);
            if spans.is_empty() {
                spans = lines(body);
            }
            if !spans.is_empty() {
                let (start, end) = spans[nth.index(spans.len())];
                let copy = body[start..end].to_vec();
                body.splice(end..end, copy);
            }
        }
        Mutation::HugeNumber { nth, number } => {
            let spans = numbers(body);
            if !spans.is_empty() {
                let (start, end) = spans[nth.index(spans.len())];
                let number = HUGE_NUMBERS[number.index(HUGE_NUMBERS.len())];
                body.splice(start..end, number.bytes());
            }
        }
        _ => {}
    }
}

/// `body` after every mutation, in order.
pub fn mutated(body: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut body = body.to_vec();
    for mutation in mutations {
        apply(&mut body, mutation);
    }
    body
}

/// A recorded answer's bytes.
pub fn fixture(relative: &str) -> Vec<u8> {
    std::fs::read(fixture_path(relative)).unwrap()
}

/// Text as an HTTP client hands it over (reqwest's `text()` replaces invalid UTF-8).
pub fn as_text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

/// What the loopback server answers to every request.
struct Answer {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

/// A test thread's runtime, its loopback server and the clients built against it once
/// (building a reqwest client loads the root certificates: about 12 ms).
struct Loopback {
    runtime: tokio::runtime::Runtime,
    server: LoopbackServer,
    answer: Arc<Mutex<Answer>>,
    clients: RefCell<HashMap<TypeId, Box<dyn Any>>>,
}

impl Loopback {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let answer = Arc::new(Mutex::new(Answer {
            status: 200,
            content_type: "text/plain".into(),
            body: Vec::new(),
        }));
        let shared = answer.clone();
        let router = Router::new().fallback(move || {
            let answer = shared.clone();
            async move {
                let (status, content_type, body) = {
                    let answer = answer.lock().unwrap();
                    (
                        answer.status,
                        answer.content_type.clone(),
                        answer.body.clone(),
                    )
                };
                Response::builder()
                    .status(status)
                    .header(header::CONTENT_TYPE, content_type)
                    .body(Body::from(body))
                    .unwrap()
            }
        });
        let server = runtime.block_on(LoopbackServer::start(router, 0)).unwrap();
        Self {
            runtime,
            server,
            answer,
            clients: RefCell::default(),
        }
    }
}

thread_local! {
    static LOOPBACK: OnceCell<Loopback> = const { OnceCell::new() };
}

fn with_loopback<R>(f: impl FnOnce(&Loopback) -> R) -> R {
    LOOPBACK.with(|cell| f(cell.get_or_init(Loopback::start)))
}

/// Has this thread's loopback server answer every request with `body` and `status`,
/// then runs `request` with this thread's client of type `C` (built once by `make` from
/// the server's URL).
pub fn fetch<C, Fut>(
    status: u16,
    content_type: &str,
    body: Vec<u8>,
    make: impl FnOnce(&str) -> C,
    request: impl FnOnce(C) -> Fut,
) -> Fut::Output
where
    C: Clone + 'static,
    Fut: Future,
{
    with_loopback(|loopback| {
        *loopback.answer.lock().unwrap() = Answer {
            status,
            content_type: content_type.into(),
            body,
        };
        let client = loopback
            .clients
            .borrow_mut()
            .entry(TypeId::of::<C>())
            .or_insert_with(|| Box::new(make(&loopback.server.url())))
            .downcast_ref::<C>()
            .unwrap()
            .clone();
        loopback.runtime.block_on(request(client))
    })
}

#[test]
fn mutations_find_their_targets() {
    let body = b"<a x=\"1\"><b>12</b><c/></a>\nline 2\n".to_vec();
    assert_eq!(tags(&body).len(), 5);
    assert_eq!(elements(&body), [(0, 26), (9, 18)]);
    assert_eq!(numbers(&body), [(6, 7), (12, 14), (32, 33)]);
    assert_eq!(lines(&body), [(0, 27), (27, 34)]);
}
