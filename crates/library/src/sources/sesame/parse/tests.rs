use super::*;
use pretty_assertions::assert_eq;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(asterism_testkit::fixture_path(&format!("sesame/{name}"))).unwrap()
}

#[test]
fn ngc4258_xml_prefers_simbad_and_merges_aliases() {
    let target = parse_sesame("NGC 4258", &fixture("ngc4258_oxp_VSNA_pyvo2013.xml")).unwrap();
    assert_eq!(target.name, "M 106");
    assert_eq!(target.resolver, "Simbad");
    assert!((target.ra_deg - 184.74008333).abs() < 1e-9);
    assert!((target.dec_deg - 47.30371944).abs() < 1e-9);
    assert_eq!(target.ra_sexagesimal, "12:18:57.62");
    assert_eq!(target.dec_sexagesimal, "+47:18:13.4");
    assert_eq!(target.object_type.as_deref(), Some("LIN"));
    assert_eq!(
        target.object_type_label.as_deref(),
        Some("LINER-type active galaxy nucleus")
    );
    assert_eq!(target.morphology.as_deref(), Some("SAB(s)bc;LINER"));
    assert_eq!(target.redshift, Some(0.001541));
    assert_eq!(target.velocity_kms, Some(447.89));
    assert_eq!(target.reference_count, Some(1630));
    assert!(target.aliases.iter().any(|alias| alias == "NGC 4258"));
    assert!(target.aliases.iter().any(|alias| alias == "UGC 7353"));
    assert!(
        target.aliases.iter().any(|alias| alias == "PGC 039600"),
        "NED's aliases are merged"
    );
    let resolvers: Vec<&str> = target.resolvers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(resolvers, ["Simbad", "NED", "VizieR"]);
    // "MCG+08-22-104" (Simbad) and "MCG +08-22-104" (NED) are one alias.
    assert_eq!(
        target
            .aliases
            .iter()
            .filter(|a| a.replace(' ', "") == "MCG+08-22-104")
            .count(),
        1
    );
}

#[test]
fn ngc3642_text_2024() {
    let target = parse_sesame("NGC 3642", &fixture("ngc3642_oI_Si_2024_astropy.txt")).unwrap();
    assert_eq!(target.name, "NGC 3642");
    assert_eq!(target.resolver, "Simbad");
    assert!((target.ra_deg - 170.57458768232).abs() < 1e-9);
    assert!((target.dec_deg - 59.07452101151).abs() < 1e-9);
    assert_eq!(target.ra_sexagesimal, "11:22:17.90");
    assert_eq!(target.dec_sexagesimal, "+59:04:28.3");
    assert_eq!(target.velocity_kms, Some(1583.0));
    assert_eq!(target.reference_count, Some(203));
}

#[test]
fn ngc3642_text_2013_with_ned_unreachable_uses_simbad_and_vizier() {
    let target = parse_sesame(
        "NGC 3642",
        &fixture("ngc3642_oI_SNV_2013_ned_unreachable_astropy.txt"),
    )
    .unwrap();
    assert_eq!(target.resolver, "Simbad");
    let resolvers: Vec<&str> = target.resolvers.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(resolvers, ["Simbad", "VizieR"]);
    assert_eq!(target.redshift, Some(0.005327));
}

#[test]
fn castor_text_resolved_by_simbad_only() {
    let target = parse_sesame(
        "castor",
        &fixture("castor_oI_SNV_2013_ned_vizier_not_found_astropy.txt"),
    )
    .unwrap();
    assert_eq!(target.name, "NAME CASTOR");
    assert_eq!(
        target.object_type_label.as_deref(),
        Some("Double or multiple star")
    );
    assert_eq!(target.ra_sexagesimal, "07:34:35.87");
    assert_eq!(target.dec_sexagesimal, "+31:53:17.8");
}

#[test]
fn nothing_found_is_a_not_found_error() {
    let error = parse_sesame(
        "HIP123456",
        &fixture("hip123456_ox_V_nothing_found_saao2019.xml"),
    )
    .unwrap_err();
    assert_eq!(error, SesameError::NotFound("HIP123456".into()));
    assert!(error.to_string().contains("no object named \"HIP123456\""));
}

#[test]
fn garbage_is_a_bad_response_not_a_panic() {
    for body in [
        "",
        "<html>502</html>",
        "<?xml version=\"1.0\"?><Sesame><Target><Resolver",
        "\u{0}\u{1}binary",
        "#=S=Simbad\n%J not numbers",
    ] {
        let result = parse_sesame("x", body);
        assert!(
            matches!(
                result,
                Err(SesameError::BadResponse(_)) | Err(SesameError::NotFound(_))
            ),
            "{body:?} gave {result:?}"
        );
    }
}

/// Found by the property tests: a position off the sky (a damaged digit, a number past
/// f64's integers) was taken as the target's position and printed as `+256204778801521:…`.
#[test]
fn a_resolver_with_a_position_off_the_sky_is_ignored() {
    let text = "#=S=Simbad\n%I.0 M 31\n%J 10.68 1e38\n#=V=VizieR\n%J 10.6 +41.2\n";
    let target = parse_sesame("M 31", text).unwrap();
    assert_eq!((target.resolver.as_str(), target.dec_deg), ("VizieR", 41.2));
    let xml = "<Sesame><Target><Resolver name=\"S=Simbad\"><jradeg>400</jradeg>\
               <jdedeg>41.2</jdedeg></Resolver></Target></Sesame>";
    assert_eq!(
        parse_sesame("M 31", xml),
        Err(SesameError::NotFound("M 31".into()))
    );
    for (ra, dec) in [("-0.1", "0"), ("360", "0"), ("0", "90.01"), ("0", "-90.01")] {
        let text = format!("#=S=Simbad\n%J {ra} {dec}\n");
        assert!(parse_sesame("x", &text).is_err(), "{ra} {dec}");
    }
    assert!(parse_sesame("x", "#=S=Simbad\n%J 0 -90\n").is_ok());
}

/// Found by the property tests: a main name that is empty once VizieR's braces are
/// gone (`%I.0 { }`) named the target "" instead of the query.
#[test]
fn an_empty_main_name_falls_back_to_the_query() {
    let text = "#=S=Simbad\n%I.0 { }\n%J 10.68 +41.27\n";
    assert_eq!(parse_sesame("M 31", text).unwrap().name, "M 31");
    let xml = "<Sesame><Target><Resolver name=\"S=Simbad\"><jradeg>10.68</jradeg>\
               <jdedeg>41.27</jdedeg><oname> </oname></Resolver></Target></Sesame>";
    assert_eq!(parse_sesame("M 31", xml).unwrap().name, "M 31");
}

#[test]
fn sexagesimal_rounding_carries() {
    assert_eq!(ra_to_sexagesimal(359.9999999), "00:00:00.00");
    assert_eq!(ra_to_sexagesimal(0.0), "00:00:00.00");
    assert_eq!(dec_to_sexagesimal(-0.5), "-00:30:00.0");
    assert_eq!(dec_to_sexagesimal(-89.99999999), "-90:00:00.0");
}
