//! Property tests of the arXiv Atom reader: [`parse_feed`] directly, and
//! [`ArxivClient`] against a loopback server serving the damaged feed. Whatever the
//! bytes, the reader returns a feed or a typed error, never panics, and never takes a
//! truncated feed for a shorter complete one.
//!
//! Each property runs proptest's default 256 cases (`PROPTEST_CASES` runs more).

use std::sync::OnceLock;
use std::time::Duration;

use asterism_library::sources::arxiv::{ArxivClient, ArxivError, ArxivFeed, ArxivSort, parse_feed};
use proptest::prelude::*;

use super::mutate::{as_text, fetch, fixture, mutated, mutations};

const FEEDS: &[&str] = &[
    "search_all_testing_start0_max10.atom.xml",
    "idlist_astro-ph_0601001.atom.xml",
    "idlist_two_ids_one_missing_0808.05394_1707.08567.atom.xml",
    "idlist_0000.0000_empty_result.atom.xml",
    "idlist_abc_error_400.atom.xml",
    "legacy2016_search_au_del_maestro.atom.xml",
    "legacy2016_idlist_1111.2011v2.atom.xml",
];

fn feeds() -> &'static [(&'static str, Vec<u8>)] {
    static FEEDS_READ: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FEEDS_READ.get_or_init(|| {
        FEEDS
            .iter()
            .map(|&name| (name, fixture(&format!("arxiv/{name}"))))
            .collect()
    })
}

/// What every answer of the reader must satisfy.
fn check(result: &Result<ArxivFeed, ArxivError>) -> Result<(), TestCaseError> {
    match result {
        Ok(feed) => {
            for paper in &feed.papers {
                prop_assert!(
                    paper.arxiv_id.as_deref().is_some_and(|id| !id.is_empty()),
                    "a paper without an arXiv id: {paper:?}"
                );
                prop_assert_eq!(paper.sources.as_slice(), ["arxiv".to_string()]);
            }
        }
        Err(ArxivError::BadResponse(message)) => prop_assert!(!message.is_empty()),
        Err(other) => prop_assert!(false, "parse_feed returned {other:?}"),
    }
    Ok(())
}

#[test]
fn the_recorded_feeds_parse_to_their_known_values() {
    let parsed: Vec<ArxivFeed> = feeds()
        .iter()
        .map(|(name, body)| parse_feed(&as_text(body)).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect();
    let ids = |feed: &ArxivFeed| -> Vec<String> {
        feed.papers
            .iter()
            .map(|paper| paper.arxiv_id.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(parsed[0].papers.len(), 10);
    assert!(parsed[0].papers.iter().all(|paper| !paper.title.is_empty()));
    assert_eq!(ids(&parsed[1]), ["astro-ph/0601001"]);
    assert_eq!(parsed[1].papers[0].year, Some(2006));
    assert_eq!(ids(&parsed[2]), ["1707.08567"]);
    assert_eq!(parsed[3].total_results, Some(0));
    assert!(parsed[3].papers.is_empty());
    assert_eq!(
        parsed[4].error.as_deref(),
        Some("incorrect id format for abc")
    );
    assert!(parsed[4].papers.is_empty());
    assert_eq!(parsed[5].papers.len(), 10);
    assert_eq!(ids(&parsed[6]), ["1111.2011"]);
    assert_eq!(parsed[6].papers[0].arxiv_version, Some(2));
}

/// Checks the feed cut at `cut`: an error unless the prefix holds the closing
/// `</feed>`, and then the same feed as the whole answer.
fn check_cut(name: &str, body: &[u8], whole: &ArxivFeed, cut: usize) {
    let closed_at = body
        .windows(7)
        .position(|w| w == b"</feed>")
        .map(|at| at + 7)
        .unwrap();
    let result = parse_feed(&as_text(&body[..cut]));
    if cut < closed_at {
        assert!(
            matches!(result, Err(ArxivError::BadResponse(_))),
            "{name} cut at {cut}: {result:?}"
        );
    } else {
        assert_eq!(result.as_ref(), Ok(whole), "{name} cut at {cut}");
    }
}

/// Cuts every feed of at most `max_len` bytes at every byte offset; returns how many.
fn cut_everywhere(max_len: usize) -> usize {
    let mut checked = 0;
    for (name, body) in feeds().iter().filter(|(_, body)| body.len() <= max_len) {
        let whole = parse_feed(&as_text(body)).unwrap();
        for cut in 0..body.len() {
            check_cut(name, body, &whole, cut);
            checked += 1;
        }
    }
    checked
}

/// Every prefix of the five id-list feeds (12 789 byte offsets): an error unless it
/// holds the closing `</feed>`, and then the same feed as the whole answer. The two
/// 10-entry feeds get random cuts below (every cut of theirs: the ignored test).
#[test]
fn a_feed_cut_at_any_byte_is_an_error_not_a_shorter_feed() {
    assert_eq!(cut_everywhere(5_000), 12_789);
}

/// Every prefix of all seven feeds (61 452 offsets): about a minute in a debug build,
/// since each cut is read from the start. Run it with `--ignored`.
#[test]
#[ignore = "slow: about a minute in a debug build; the id-list feeds and random cuts cover it"]
fn every_feed_cut_at_any_byte_is_an_error_not_a_shorter_feed() {
    let total: usize = feeds().iter().map(|(_, body)| body.len()).sum();
    assert_eq!(cut_everywhere(usize::MAX), total);
}

/// Pieces of Atom, entities, CDATA, comments and odd ids, shuffled.
fn atom_soup() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        4 => prop::sample::select(vec![
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\">",
            "<feed>",
            "</feed>",
            "<entry>",
            "</entry>",
            "<id>",
            "</id>",
            "<title>",
            "</title>",
            "<summary>",
            "</summary>",
            "<author>",
            "</author>",
            "<name>",
            "</name>",
            "<arxiv:affiliation>",
            "</arxiv:affiliation>",
            "<published>",
            "</published>",
            "<arxiv:doi>",
            "</arxiv:doi>",
            "<arxiv:journal_ref>",
            "</arxiv:journal_ref>",
            "<category term=\"astro-ph.CO\"/>",
            "<category term='&amp;'/>",
            "<category term=\"&bogus;\"/>",
            "<arxiv:primary_category term=\"astro-ph.GA\"/>",
            "<opensearch:totalResults>",
            "</opensearch:totalResults>",
            "http://arxiv.org/abs/1202.3665v3",
            "http://arxiv.org/api/errors#x",
            "/abs/",
            "arXiv:",
            "v",
            "v99999999999999999999",
            ".pdf",
            "Error",
            "RamÃ\u{AD}rez",
            "Ã",
            "&amp;",
            "&lt;",
            "&bogus;",
            "&#0;",
            "&#xD800;",
            "&#99999999;",
            "<![CDATA[",
            "]]>",
            "<!--",
            "-->",
            "<!DOCTYPE feed [<!ENTITY e \"x\">]>",
            "2013",
            "99999999999999999999",
            "-1",
            " ",
            "\n",
            "<",
            ">",
            "/",
            "=",
            "\"",
        ]).prop_map(str::to_string),
        1 => "\\PC{0,6}",
    ];
    prop::collection::vec(token, 0..80).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A cut anywhere in any feed, the 10-entry ones included.
    #[test]
    fn a_cut_anywhere_is_an_error_not_a_shorter_feed(
        feed in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
    ) {
        let (name, body) = feed.get(feeds());
        let whole = parse_feed(&as_text(body)).unwrap();
        check_cut(name, body, &whole, cut.index(body.len() + 1));
    }

    /// Arbitrary bytes (read as a client reads them, invalid UTF-8 replaced).
    #[test]
    fn arbitrary_bytes_give_a_feed_or_a_typed_error(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check(&parse_feed(&as_text(&bytes)))?;
    }

    /// Shuffled pieces of Atom: gets past the XML reader into the feed logic.
    #[test]
    fn atom_soup_gives_a_feed_or_a_typed_error(soup in atom_soup()) {
        check(&parse_feed(&soup))?;
    }

    /// A recorded feed after up to 7 mutations: flipped, inserted, deleted bytes,
    /// truncation, invalid UTF-8, a deleted tag, a duplicated element, a huge number.
    #[test]
    fn damaged_feeds_give_a_feed_or_a_typed_error(
        feed in any::<prop::sample::Index>(),
        damage in mutations(),
    ) {
        let (_, body) = feed.get(feeds());
        check(&parse_feed(&as_text(&mutated(body, &damage))))?;
    }

    /// The same through `ArxivClient::search`, served with a 200, 400 or 503: the client
    /// answers with a feed or one of its typed errors, never a transport failure.
    #[test]
    fn the_client_reads_damaged_feeds_into_a_feed_or_a_typed_error(
        feed in any::<prop::sample::Index>(),
        damage in mutations(),
        status in prop::sample::select(vec![200u16, 400, 503]),
    ) {
        let (_, body) = feed.get(feeds());
        let body = mutated(body, &damage);
        let result = fetch(
            status,
            "application/atom+xml",
            body,
            |url| {
                ArxivClient::new(format!("{url}/api"), Duration::from_secs(5))
                    .unwrap()
                    .with_interval(Duration::ZERO)
            },
            |client| async move { client.search("all:testing", 0, 10, ArxivSort::Relevance).await },
        );
        match &result {
            Ok(feed) => {
                prop_assert_eq!(status, 200);
                check(&Ok(feed.clone()))?;
            }
            Err(ArxivError::Rejected(_) | ArxivError::Http(_) | ArxivError::BadResponse(_)) => {}
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}
