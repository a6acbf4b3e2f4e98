//! Hand-built PDFs for tests: pages of Helvetica text (one content stream each),
//! optionally encrypted with a user password, or with no text at all.

/// A PDF with one page per content stream in `pages` (PDF operators, e.g.
/// `BT /F1 12 Tf 72 700 Td (Hello) Tj ET`), optionally with a standard security
/// handler whose user password is not empty.
pub fn build_pdf(pages: &[String], encrypted: bool) -> Vec<u8> {
    let count = pages.len();
    // Objects: 1 catalog, 2 pages, 3 font, then (page, content) pairs.
    let kids: Vec<String> = (0..count).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {count} >>",
            kids.join(" ")
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    for (index, content) in pages.iter().enumerate() {
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
            5 + 2 * index
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
    }
    if encrypted {
        objects.push(format!(
            "<< /Filter /Standard /V 1 /R 2 /O <{}> /U <{}> /P -44 >>",
            "7a".repeat(32),
            "3c".repeat(32)
        ));
    }
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (index, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{object}\nendobj\n", index + 1).bytes());
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").bytes());
    }
    let encrypt = if encrypted {
        format!(
            " /Encrypt {} 0 R /ID [<{}> <{}>]",
            objects.len(),
            "ab".repeat(16),
            "ab".repeat(16)
        )
    } else {
        String::new()
    };
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R{encrypt} >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    pdf
}

/// A page content stream writing `lines` top-down in 11-point Helvetica (parentheses
/// and backslashes escaped).
pub fn text_page(lines: &[&str]) -> String {
    let mut content = String::from("BT /F1 11 Tf 72 720 Td 14 TL");
    for line in lines {
        let escaped = line
            .replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)");
        content.push_str(&format!(" ({escaped}) Tj T*"));
    }
    content.push_str(" ET");
    content
}
