//! The XMP packet of a PDF (Dublin Core and PRISM fields), read from the raw bytes:
//! pdfium does not expose it, and PDF writers leave it uncompressed so that tools can
//! find it this way. A compressed or missing packet gives an empty [`Xmp`].

use quick_xml::Reader;
use quick_xml::events::Event;

/// What the XMP packet says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Xmp {
    pub title: Option<String>,
    /// As written ("Jane Smith" or "Smith, Jane").
    pub creators: Vec<String>,
    pub doi: Option<String>,
    pub year: Option<i32>,
    pub journal: Option<String>,
}

const START: &[u8] = b"<x:xmpmeta";
const END: &[u8] = b"</x:xmpmeta>";

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The last XMP packet in the file (an incremental update appends a newer one), if
/// any is stored uncompressed.
pub fn read_xmp(bytes: &[u8]) -> Xmp {
    let mut found = None;
    let mut from = 0;
    while let Some(start) = bytes.get(from..).and_then(|rest| find(rest, START)) {
        let start = from + start;
        let Some(length) = bytes.get(start..).and_then(|rest| find(rest, END)) else {
            break;
        };
        let end = start + length + END.len();
        found = Some(&bytes[start..end]);
        from = end;
    }
    found
        .map(|packet| parse_packet(&String::from_utf8_lossy(packet)))
        .unwrap_or_default()
}

fn local(name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    name.rsplit(':').next().unwrap_or(&name).to_string()
}

fn year_of(text: &str) -> Option<i32> {
    text.trim()
        .get(..4)
        .and_then(|year| year.parse().ok())
        .filter(|year| (1800..=2200).contains(year))
}

/// Reads one `<x:xmpmeta>` element; damaged XML gives what was read before the damage.
pub fn parse_packet(xml: &str) -> Xmp {
    let mut reader = Reader::from_str(xml);
    let mut xmp = Xmp::default();
    let mut path: Vec<String> = Vec::new();
    let mut text = String::new();
    loop {
        match reader.read_event() {
            Err(_) | Ok(Event::Eof) => break,
            Ok(Event::Start(start)) => {
                path.push(local(start.name().as_ref()));
                text.clear();
            }
            Ok(Event::Text(chunk)) => {
                if let Ok(value) = chunk.xml_content() {
                    text.push_str(&value);
                }
            }
            Ok(Event::GeneralRef(reference)) => {
                let name: &[u8] = reference.as_ref();
                text.push_str(match name {
                    b"amp" => "&",
                    b"lt" => "<",
                    b"gt" => ">",
                    b"quot" => "\"",
                    b"apos" => "'",
                    _ => "",
                });
            }
            Ok(Event::End(_)) => {
                let value = std::mem::take(&mut text);
                take_field(
                    &mut xmp,
                    &path,
                    value.split_whitespace().collect::<Vec<_>>().join(" "),
                );
                path.pop();
            }
            Ok(_) => {}
        }
    }
    xmp
}

/// Stores the text of the element at `path` where it belongs.
fn take_field(xmp: &mut Xmp, path: &[String], value: String) {
    if value.is_empty() {
        return;
    }
    // dc:title and dc:creator hold their values in rdf:Alt/rdf:Seq items.
    let field = path
        .iter()
        .rev()
        .find(|name| !matches!(name.as_str(), "li" | "Alt" | "Seq" | "Bag"))
        .map(String::as_str)
        .unwrap_or_default();
    match field {
        "title" if xmp.title.is_none() => xmp.title = Some(value),
        "creator" => xmp.creators.push(value),
        "doi" if xmp.doi.is_none() => xmp.doi = Some(value),
        "identifier" if xmp.doi.is_none() => {
            xmp.doi = crate::library::identifiers::find_doi(&value);
        }
        "publicationName" if xmp.journal.is_none() => xmp.journal = Some(value),
        // The issue's or the document's date; not the file's (CreateDate).
        "coverDate" | "publicationDate" | "date" if xmp.year.is_none() => {
            xmp.year = year_of(&value);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACKET: &str = r#"%PDF-1.7 junk <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Dust &amp; Gas in M 31</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>Jane Smith</rdf:li><rdf:li>Rui Costa</rdf:li></rdf:Seq></dc:creator>
<prism:doi>10.1051/0004-6361/202346488</prism:doi>
<prism:publicationName>Astronomy &amp; Astrophysics</prism:publicationName>
<prism:coverDate>2023-08-25</prism:coverDate>
<xmp:CreateDate>2025-01-10T10:00:00Z</xmp:CreateDate>
</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?> trailer"#;

    #[test]
    fn an_uncompressed_packet_is_read() {
        let xmp = read_xmp(PACKET.as_bytes());
        assert_eq!(xmp.title.as_deref(), Some("Dust & Gas in M 31"));
        assert_eq!(xmp.creators, vec!["Jane Smith", "Rui Costa"]);
        assert_eq!(xmp.doi.as_deref(), Some("10.1051/0004-6361/202346488"));
        assert_eq!(xmp.journal.as_deref(), Some("Astronomy & Astrophysics"));
        assert_eq!(xmp.year, Some(2023), "the issue's date, not the file's");
    }

    #[test]
    fn no_packet_or_a_broken_one_is_empty_not_an_error() {
        assert_eq!(read_xmp(b"%PDF-1.4 no metadata here"), Xmp::default());
        let cut = &PACKET.as_bytes()[..PACKET.len() / 2];
        assert_eq!(read_xmp(cut), Xmp::default());
        assert_eq!(parse_packet("<x:xmpmeta><dc:title>"), Xmp::default());
    }
}
