//! arXiv HTML (LaTeXML, as served by arxiv.org/html and ar5iv) → Markdown.
//!
//! Math is kept as `$…$` / `$$…$$` from each `<math>` element's `alttext` (every
//! converter otherwise emits the rendered glyphs, the TeX and the annotation words, which
//! is junk for retrieval); navigation, bibliography widgets and scripts are dropped.
//! Pages where the conversion failed are detected and refused, so the caller falls back
//! to the PDF.

use htmd::element_handler::Handlers;
use htmd::{Element, HtmlToMarkdown};

/// Why an HTML page gives no text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HtmlParseError {
    #[error("arXiv has no usable HTML for this paper ({0})")]
    NoConversion(String),
    #[error("the HTML could not be converted: {0}")]
    Convert(String),
}

/// Phrases of arXiv's and ar5iv's stub pages for failed conversions.
const STUB_MARKERS: [&str; 4] = [
    "No HTML is available",
    "Conversion to HTML had a Fatal error",
    "HTML is not available for the source",
    "This paper is not yet available in HTML",
];

fn attribute(element: &Element<'_>, name: &str) -> Option<String> {
    element
        .attrs
        .iter()
        .find(|attribute| &*attribute.name.local == name)
        .map(|attribute| attribute.value.to_string())
}

/// Converts a LaTeXML page. A stub page for a failed conversion, or a page with almost
/// no text, is an error.
pub fn latexml_to_markdown(html: &str) -> Result<String, HtmlParseError> {
    if let Some(marker) = STUB_MARKERS.iter().find(|marker| html.contains(*marker)) {
        return Err(HtmlParseError::NoConversion((*marker).to_string()));
    }
    let converter = HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script",
            "style",
            "nav",
            "header",
            "footer",
            "button",
            "annotation",
            "annotation-xml",
        ])
        .add_handler(vec!["math"], |_: &dyn Handlers, element: Element| {
            let tex = attribute(&element, "alttext")?;
            let tex = tex.trim();
            let display = attribute(&element, "display").is_some_and(|display| display == "block");
            Some(
                if display {
                    format!("\n\n$${tex}$$\n\n")
                } else {
                    format!("${tex}$")
                }
                .into(),
            )
        })
        .build();
    let markdown = converter
        .convert(html)
        .map_err(|error| HtmlParseError::Convert(error.to_string()))?;
    let markdown = super::clean_text(&markdown);
    let words = markdown.split_whitespace().count();
    if words < 50 {
        return Err(HtmlParseError::NoConversion(format!(
            "only {words} words of text"
        )));
    }
    Ok(markdown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> String {
        let filler = "The observations were reduced with the standard pipeline and calibrated against photometric standards. ".repeat(6);
        format!(
            "<html><head><script>var x=1;</script></head><body><nav>Back to arXiv</nav><article><h1 class=\"ltx_title\">Masers in NGC 4258</h1><section><h2>1 Introduction</h2>{body}<p>{filler}</p></section></article></body></html>"
        )
    }

    #[test]
    fn math_is_kept_as_tex_and_chrome_is_dropped() {
        let html = page(
            "<p>The distance is <math alttext=\"D=7.6\\pm 0.17\\,\\mathrm{Mpc}\" display=\"inline\"><semantics><mrow><mi>D</mi></mrow><annotation encoding=\"application/x-tex\">D=7.6\\pm 0.17\\,\\mathrm{Mpc}</annotation></semantics></math> from the maser disk.</p>\
             <table class=\"ltx_equation\"><tr><td><math alttext=\"H_{0}=\\frac{v}{D}\" display=\"block\"><mi>H</mi></math></td></tr></table>",
        );
        let markdown = latexml_to_markdown(&html).unwrap();
        assert!(markdown.contains("# Masers in NGC 4258"), "{markdown}");
        assert!(markdown.contains("## 1 Introduction"), "{markdown}");
        assert!(
            markdown.contains("$D=7.6\\pm 0.17\\,\\mathrm{Mpc}$ from the maser disk"),
            "{markdown}"
        );
        assert!(markdown.contains("$$H_{0}=\\frac{v}{D}$$"), "{markdown}");
        assert!(!markdown.contains("application/x-tex"));
        assert!(!markdown.contains("Back to arXiv"));
        assert!(!markdown.contains("var x"));
    }

    #[test]
    fn stub_pages_are_refused() {
        let stub = "<html><body><h1>No HTML is available for this paper</h1></body></html>";
        assert_eq!(
            latexml_to_markdown(stub).unwrap_err(),
            HtmlParseError::NoConversion("No HTML is available".into())
        );
        let fatal = "<html><body><p>Conversion to HTML had a Fatal error and exited abruptly.</p></body></html>";
        assert!(latexml_to_markdown(fatal).is_err());
        assert!(
            matches!(latexml_to_markdown("<html><body><p>Hi</p></body></html>"), Err(HtmlParseError::NoConversion(reason)) if reason.contains("words"))
        );
    }
}
