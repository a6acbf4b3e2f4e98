//! Property tests of the Sesame reader: [`parse_sesame`] directly (text and XML
//! answers), and [`SesameClient`] against a loopback server serving the damaged answer.
//! Whatever the bytes, the reader returns a target on the sky or a typed error, and
//! never panics.
//!
//! Each property runs proptest's default 256 cases (`PROPTEST_CASES` runs more).

use std::time::Duration;

use asterism_library::{SesameClient, SesameError, parse_sesame};
use asterism_protocol::ResolvedTarget;
use proptest::prelude::*;

use super::mutate::{HUGE_NUMBERS, as_text, fetch, fixture, mutated, mutations};

const ANSWERS: &[(&str, &str)] = &[
    ("NGC 4258", "ngc4258_oxp_VSNA_pyvo2013.xml"),
    ("NGC 3642", "ngc3642_oI_Si_2024_astropy.txt"),
    (
        "NGC 3642",
        "ngc3642_oI_SNV_2013_ned_unreachable_astropy.txt",
    ),
    (
        "castor",
        "castor_oI_SNV_2013_ned_vizier_not_found_astropy.txt",
    ),
    ("HIP123456", "hip123456_ox_V_nothing_found_saao2019.xml"),
];

fn answer(index: usize) -> (&'static str, Vec<u8>) {
    let (query, name) = ANSWERS[index];
    (query, fixture(&format!("sesame/{name}")))
}

/// `hh:mm:ss.ss` with hours below 24, or `±dd:mm:ss.s` with degrees at most 90.
fn sexagesimal_ok(text: &str, first_max: u32, decimals: usize, signed: bool) -> bool {
    let text = if signed {
        match text.strip_prefix(['+', '-']) {
            Some(rest) => rest,
            None => return false,
        }
    } else {
        text
    };
    let parts: Vec<&str> = text.split(':').collect();
    let [first, minutes, seconds] = parts.as_slice() else {
        return false;
    };
    let two_digits = |part: &str, max: u32| {
        part.len() == 2 && part.parse::<u32>().is_ok_and(|value| value <= max)
    };
    let Some((whole, fraction)) = seconds.split_once('.') else {
        return false;
    };
    two_digits(first, first_max)
        && two_digits(minutes, 59)
        && two_digits(whole, 59)
        && fraction.len() == decimals
        && fraction.chars().all(|c| c.is_ascii_digit())
}

/// What every answer of the reader must satisfy: a position on the sky, a name, or a
/// typed error.
fn check(query: &str, result: &Result<ResolvedTarget, SesameError>) -> Result<(), TestCaseError> {
    match result {
        Ok(target) => {
            let on_sky =
                |ra: f64, dec: f64| (0.0..360.0).contains(&ra) && (-90.0..=90.0).contains(&dec);
            prop_assert!(
                on_sky(target.ra_deg, target.dec_deg),
                "off the sky: {target:?}"
            );
            for resolver in &target.resolvers {
                prop_assert!(
                    on_sky(resolver.ra_deg, resolver.dec_deg),
                    "off the sky: {resolver:?}"
                );
            }
            prop_assert!(
                sexagesimal_ok(&target.ra_sexagesimal, 23, 2, false),
                "{}",
                target.ra_sexagesimal
            );
            prop_assert!(
                sexagesimal_ok(&target.dec_sexagesimal, 90, 1, true),
                "{}",
                target.dec_sexagesimal
            );
            prop_assert!(!target.name.trim().is_empty(), "no name: {target:?}");
            prop_assert!(target.aliases.iter().all(|alias| !alias.trim().is_empty()));
            prop_assert!(target.resolvers.iter().any(|r| r.name == target.resolver));
            prop_assert!(target.redshift.is_none_or(f64::is_finite));
            prop_assert!(target.velocity_kms.is_none_or(f64::is_finite));
        }
        Err(SesameError::NotFound(name)) => prop_assert_eq!(name.as_str(), query.trim()),
        Err(SesameError::BadResponse(message)) => prop_assert!(!message.is_empty()),
        Err(other) => prop_assert!(false, "parse_sesame returned {other:?}"),
    }
    Ok(())
}

#[test]
fn the_recorded_answers_parse_to_their_known_values() {
    let parse = |index| {
        let (query, body) = answer(index);
        parse_sesame(query, &as_text(&body))
    };
    let ngc4258 = parse(0).unwrap();
    assert_eq!(
        (ngc4258.name.as_str(), ngc4258.resolver.as_str()),
        ("M 106", "Simbad")
    );
    assert_eq!(
        (
            ngc4258.ra_sexagesimal.as_str(),
            ngc4258.dec_sexagesimal.as_str()
        ),
        ("12:18:57.62", "+47:18:13.4")
    );
    let ngc3642 = parse(1).unwrap();
    assert_eq!(ngc3642.name, "NGC 3642");
    assert!((ngc3642.ra_deg - 170.57458768232).abs() < 1e-9);
    assert_eq!(ngc3642.reference_count, Some(203));
    let resolvers: Vec<String> = parse(2)
        .unwrap()
        .resolvers
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(resolvers, ["Simbad", "VizieR"]);
    assert_eq!(parse(3).unwrap().dec_sexagesimal, "+31:53:17.8");
    assert_eq!(parse(4), Err(SesameError::NotFound("HIP123456".into())));
    for index in 0..ANSWERS.len() {
        let (query, body) = answer(index);
        check(query, &parse_sesame(query, &as_text(&body))).unwrap();
    }
}

/// Every prefix of every recorded answer (one per byte offset, 10 998 in all).
#[test]
fn an_answer_cut_at_any_byte_gives_a_target_or_a_typed_error() {
    let mut checked = 0;
    for (index, (_, file)) in ANSWERS.iter().enumerate() {
        let (query, body) = answer(index);
        for cut in 0..=body.len() {
            let result = parse_sesame(query, &as_text(&body[..cut]));
            if let Err(error) = check(query, &result) {
                panic!("{file} cut at {cut}: {error}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 10_998);
}

/// A number as Sesame writes it, or one it never writes.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(HUGE_NUMBERS).prop_map(str::to_string),
        prop::sample::select(vec![
            "170.5745", "+59.0745", "-91", "90", "-90", "360", "400", "-0.0001", "1e2", "5.3E-03",
            ""
        ])
        .prop_map(str::to_string),
        any::<f64>().prop_map(|value| value.to_string()),
    ]
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "",
            " ",
            "{NGC} 3642",
            "{ }",
            "M 31",
            "NAME CASTOR",
            "\u{feff}"
        ])
        .prop_map(str::to_string),
        "\\PC{0,12}",
    ]
}

/// Lines of Sesame's text output with odd numbers and names, shuffled.
fn text_soup() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        prop::sample::select(vec![
            "# ngc3642    #Q2779348",
            "#=Si=Simbad, all IDs (via url):    1    41ms",
            "#=N=NED",
            "#=V=VizieR (local)",
            "#=X=",
            "#=",
            "#!N=NED : *** Could not access the server ***",
            "#====Done (2024-Feb-15,11:26:16z)====",
            "%C.0 LIN",
            "%C.0 ",
            "%J",
            "%V",
            "%@ 503952",
            "",
        ])
        .prop_map(str::to_string),
        (number(), number())
            .prop_map(|(ra, dec)| format!("%J {ra} {dec} = 11:22:17.90 +59:04:28.2")),
        number().prop_map(|ra| format!("%J {ra}")),
        name().prop_map(|name| format!("%I.0 {name}")),
        name().prop_map(|name| format!("%I {name}")),
        name().prop_map(|name| format!("%M {name}")),
        (number(), number()).prop_map(|(v, z)| format!("%V v {v} {z} [1] D 2016A&A...595A.118V")),
        number().prop_map(|n| format!("%#B {n}")),
        "\\PC{0,20}",
    ];
    prop::collection::vec(line, 0..24).prop_map(|lines| format!("#\n{}", lines.join("\n")))
}

/// Pieces of Sesame's XML output with odd numbers and names, shuffled.
fn xml_soup() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        3 => prop::sample::select(vec![
            "<Sesame>",
            "</Sesame>",
            "<Target option=\"VSNA\">",
            "</Target>",
            "<Resolver name=\"S=Simbad (CDS, via client/server)\">",
            "<Resolver name=\"N=NED\">",
            "<Resolver name=\"&bogus;\">",
            "<Resolver>",
            "</Resolver>",
            "<jradeg>",
            "</jradeg>",
            "<jdedeg>",
            "</jdedeg>",
            "<oname>",
            "</oname>",
            "<alias>",
            "</alias>",
            "<otype>",
            "</otype>",
            "<MType>",
            "</MType>",
            "<nrefs>",
            "</nrefs>",
            "<z><v>",
            "<Vel><v>",
            "</v></z>",
            "</v></Vel>",
            "<INFO>*** Nothing found ***</INFO>",
            "<!-- Q28643906 #1 -->",
            "<![CDATA[",
            "]]>",
            "&amp;",
            "&#0;",
        ])
        .prop_map(str::to_string),
        2 => number(),
        1 => name(),
    ];
    prop::collection::vec(token, 0..60)
        .prop_map(|tokens| format!("<?xml version=\"1.0\"?>{}", tokens.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Arbitrary bytes (read as a client reads them, invalid UTF-8 replaced), alone or
    /// after the start of a text or XML answer.
    #[test]
    fn arbitrary_bytes_give_a_target_or_a_typed_error(
        start in prop::sample::select(vec!["", "#", "#=S=Simbad\n%J ", "<?xml", "<Sesame><Target><Resolver name=\"S=Simbad\">"]),
        bytes in prop::collection::vec(any::<u8>(), 0..1024),
    ) {
        let mut body = start.as_bytes().to_vec();
        body.extend_from_slice(&bytes);
        check("M 31", &parse_sesame("M 31", &as_text(&body)))?;
    }

    /// Text answers with numbers past every range, empty names and stray lines.
    #[test]
    fn text_soup_gives_a_target_or_a_typed_error(soup in text_soup()) {
        check("M 31", &parse_sesame("M 31", &soup))?;
    }

    /// XML answers with numbers past every range, empty names and stray tags.
    #[test]
    fn xml_soup_gives_a_target_or_a_typed_error(soup in xml_soup()) {
        check("M 31", &parse_sesame("M 31", &soup))?;
    }

    /// A recorded answer after up to 7 mutations: flipped, inserted, deleted bytes,
    /// truncation, invalid UTF-8, a deleted tag, a duplicated element or line, a huge
    /// number.
    #[test]
    fn damaged_answers_give_a_target_or_a_typed_error(
        which in 0..ANSWERS.len(),
        damage in mutations(),
    ) {
        let (query, body) = answer(which);
        check(query, &parse_sesame(query, &as_text(&mutated(&body, &damage))))?;
    }

    /// The same through `SesameClient::resolve`, served with a 200, 404 or 502.
    #[test]
    fn the_client_reads_damaged_answers_into_a_target_or_a_typed_error(
        which in 0..ANSWERS.len(),
        damage in mutations(),
        status in prop::sample::select(vec![200u16, 404, 502]),
    ) {
        let (query, body) = answer(which);
        let result = fetch(
            status,
            "text/plain",
            mutated(&body, &damage),
            |url| SesameClient::new(url, Duration::from_secs(5)).unwrap(),
            |client| async move { client.resolve(query).await },
        );
        match &result {
            Err(SesameError::Http(code)) => prop_assert_eq!(*code, status),
            other => {
                prop_assert_eq!(status, 200);
                check(query, other)?;
            }
        }
    }
}
